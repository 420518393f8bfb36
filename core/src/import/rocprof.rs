//! rocprofv3 JSON (`rocprofv3 --output-format json`, ROCprofiler-SDK's tool output) → the model
//! (format `rocprof`). A gzip-compressed file is unwrapped by [`super::container`] first.
//!
//! No sample is shared: the layout below is **inferred** from the ROCprofiler-SDK sources and its
//! tests (what they read from the JSON), not from a specification, and the fixtures in the tests
//! are written from it:
//! - the root is `{"rocprofiler-sdk-tool": [<node>, …]}` (one node per profiled process; a single
//!   object instead of the array is accepted too);
//! - a node has `metadata` (`pid`), `agents` (`id.handle`, `type` 1 = CPU / 2 = GPU, `name`,
//!   `product_name`, `node_id`, `logical_node_type_id`), `kernel_symbols` (an array indexed by
//!   `kernel_id`, or an object keyed by it, with `formatted_kernel_name` / `truncated_kernel_name`
//!   / `kernel_name`), `strings.buffer_records` (an array indexed by a record's `kind`: `{kind,
//!   operations}`, `operations` indexed by the record's `operation`), and `buffer_records`: arrays
//!   of records keyed by kind (`kernel_dispatch`, `memory_copy`, `hip_api`, `hsa_api`,
//!   `marker_api`, `rccl_api`, …);
//! - every record has `start_timestamp`, `end_timestamp` (ns) and `correlation_id.internal`; API
//!   records have `thread_id`, `kind`, `operation`; a kernel dispatch has `dispatch_info`
//!   (`agent_id.handle`, `queue_id.handle`, `kernel_id`, `dispatch_id`, `grid_size` and
//!   `workgroup_size` `{x,y,z}`, `private_segment_size`, `group_segment_size`); a memory copy has
//!   `src_agent_id`/`dst_agent_id` (`.handle`) and `bytes` (the record's `size` is the size of the
//!   C struct, not of the copy).
//!
//! Mapping: one group per GPU agent with one stream track per queue (`kernel` slices named by the
//! kernel symbol, grid/workgroup/LDS/scratch/dispatch id as args) and a "memory copies" track in
//! lanes (`gpu_memcpy` slices named by their operation, e.g. `MEMORY_COPY_HOST_TO_DEVICE`, bytes in
//! the typed column; placed on the GPU end of the copy); one process group with a thread track per
//! `thread_id` holding every `*_api` record as a slice (category = the record kind, e.g. `hip_api`,
//! name = its operation). A flow goes from each API call to the dispatch or copy with the same
//! `correlation_id.internal`. Other record kinds (memory allocations, scratch memory, counters,
//! PC samples) are counted in a `rocprof_skipped_records` warning.
//!
//! What a user sees counted as slices: kernel dispatches + memory copies + API calls.
//!
//! Reading: the text is streamed ([`serde_json::Deserializer`] with seeds and visitors), never
//! held as a generic JSON tree: each record becomes a small typed struct as it is read, charged
//! to the import's [`crate::limits::Budget`] ([`Item::HeldRecords`]). A tool node's records are
//! held until the whole file is read (the API calls are built before the dispatches and copies
//! they launch, a node's string tables may follow its records, and a repeated key replaces the
//! earlier one as in a JSON object), then built and released: memory is a small multiple of the
//! model, not of the text. The reading is lenient as a tree's accessors were: a field of the
//! wrong type counts as missing; only invalid JSON is an error.

use crate::model::WarningKind;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::limits::Item;
use crate::model::{
    ArgValue, FlowEnd, GpuWork, GroupId, GroupKind, Layout, SliceDomain, SliceHandle, TrackId, TrackKind,
};
use crate::TraceBuilder;

pub struct Rocprof;

pub const NAME: &str = "rocprof";
const ROOT_KEY: &str = "rocprofiler-sdk-tool";

impl Importer for Rocprof {
    fn name(&self) -> &'static str {
        NAME
    }
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        let key = b"\"rocprofiler-sdk-tool\"";
        let start = prefix.iter().position(|c| !c.is_ascii_whitespace());
        if start.is_some_and(|s| prefix[s] == b'{') && prefix.windows(key.len()).any(|w| w == key) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        crate::limits::check_json_size(file.bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
        if !progress.report(0, file.bytes.len() as u64) {
            return Err(ImportError::Cancelled);
        }
        let cx = Cx { b: RefCell::new(b), held: RefCell::new((0, 0)) };
        let root = read(file.bytes, &cx);
        let (n, bytes) = *cx.held.borrow();
        let b = cx.b.into_inner();
        let root = match root {
            Ok(r) => r,
            // a charge that crossed the budget stopped the reading: its error, not serde's
            Err(e) => return Err(b.budget_error().unwrap_or(e)),
        };
        let tool = match root {
            Root::Object(Some(t)) => t,
            Root::Object(None) | Root::Other => return Err(ImportError::NotMine(NAME)),
        };
        let nodes: Vec<Option<NodeRaw>> = match tool {
            Tool::Nodes(v) => v,
            Tool::Node(n) => vec![Some(*n)],
            Tool::Other => {
                return Err(ImportError::Invalid {
                    format: NAME,
                    message: format!("\"{ROOT_KEY}\" is neither an array nor an object"),
                })
            }
        };
        if !progress.report(0, file.bytes.len() as u64) {
            return Err(ImportError::Cancelled);
        }
        for (i, node) in nodes.into_iter().enumerate() {
            match node {
                Some(n) => Node::new(b, &n, i as i64).run(),
                None => {
                    b.warn(WarningKind::RocprofBadNode, || format!("tool node {i} is not an object; skipped"))
                }
            }
        }
        b.release(Item::HeldRecords, n, bytes);
        if b.slice_count() == 0 {
            b.warn(WarningKind::RocprofNoRecords, || "no kernel dispatch, memory copy or API record".into());
        }
        Ok(())
    }
}

// ---- reading: the file's text → typed records ----

/// What the reading charges its held records to: the builder's budget.
struct Cx<'b> {
    b: RefCell<&'b mut TraceBuilder>,
    /// Records and bytes charged, released once the nodes are built.
    held: RefCell<(u64, u64)>,
}

impl Cx<'_> {
    /// Charge `n` records taking `bytes` more memory; a serde error (the budget's error is kept
    /// by the builder) when over.
    fn hold<E: de::Error>(&self, n: u64, bytes: u64) -> Result<(), E> {
        {
            let mut h = self.held.borrow_mut();
            h.0 += n;
            h.1 += bytes;
        }
        self.b.borrow_mut().charge_bytes(Item::HeldRecords, n, bytes).map_err(|e| E::custom(e.to_string()))
    }
    /// Push `x` onto `v`, charging a record and the vector's growth.
    fn push<T, E: de::Error>(&self, v: &mut Vec<T>, x: T) -> Result<(), E> {
        let grew = if v.len() == v.capacity() {
            let old = v.capacity();
            v.reserve(1);
            ((v.capacity() - old) * std::mem::size_of::<T>()) as u64
        } else {
            0
        };
        v.push(x);
        self.hold(1, grew)
    }
    /// Charge a string's bytes.
    fn text<E: de::Error>(&self, s: &Option<String>) -> Result<(), E> {
        match s {
            Some(s) => self.hold(0, s.len() as u64 + 24),
            None => Ok(()),
        }
    }
}

fn read(bytes: &[u8], cx: &Cx<'_>) -> Result<Root, ImportError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let invalid =
        |e: serde_json::Error| ImportError::Invalid { format: NAME, message: format!("not valid JSON: {e}") };
    let root = RootSeed(cx).deserialize(&mut de).map_err(invalid)?;
    de.end().map_err(invalid)?;
    Ok(root)
}

/// The scalar visits of a lenient visitor: any value but the one it wants reads as `$v`.
macro_rules! scalars_are {
    ($v:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
    };
}
macro_rules! seqs_are {
    ($v:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok($v)
        }
    };
}
macro_rules! maps_are {
    ($v:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<Skip, Skip>()?.is_some() {}
            Ok($v)
        }
    };
}
macro_rules! expecting {
    ($s:literal) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str($s)
        }
    };
}

/// Any JSON value, read (every number and string checked as a tree's parser would) and dropped.
struct Skip;
impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Skip;
            expecting!("any JSON value");
            scalars_are!(Skip);
            seqs_are!(Skip);
            maps_are!(Skip);
        }
        d.deserialize_any(V)
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);
impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            expecting!("a string");
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON number as a tree holds it: non-negative integers, negative ones; anything else
/// (floats, strings, objects…) is `Other`, as a tree's `as_u64`/`as_i64` would say.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
enum Num {
    #[default]
    Other,
    U(u64),
    I(i64),
}
impl Num {
    /// `Value::as_u64`.
    fn u64(self) -> Option<u64> {
        match self {
            Num::U(u) => Some(u),
            _ => None,
        }
    }
    /// `Value::as_i64`, else `as_u64` clamped to `i64::MAX`.
    fn int(self) -> Option<i64> {
        match self {
            Num::U(u) => Some(i64::try_from(u).unwrap_or(i64::MAX)),
            Num::I(i) => Some(i),
            Num::Other => None,
        }
    }
}
impl<'de> de::Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            expecting!("any JSON value");
            fn visit_u64<E: de::Error>(self, u: u64) -> Result<Num, E> {
                Ok(Num::U(u))
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Num, E> {
                Ok(u64::try_from(i).map_or(Num::I(i), Num::U))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num::Other)
            }
            seqs_are!(Num::Other);
            maps_are!(Num::Other);
        }
        d.deserialize_any(V)
    }
}

/// A string value (`Value::as_str`), `None` for anything else.
struct Text(Option<String>);
impl<'de> de::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            expecting!("any JSON value");
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Text, E> {
                Ok(Text(Some(s.to_owned())))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            seqs_are!(Text(None));
            maps_are!(Text(None));
        }
        d.deserialize_any(V)
    }
}

/// The fields of a JSON object read into `Self`: `field` takes one key's value (a repeated key
/// is read again and replaces the earlier value, as in a tree's map).
trait Fields<'de>: Default {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// An object read into `T`'s fields: `Some(T)`, or `None` for any other value (read and dropped).
struct Obj<T>(Option<T>);
impl<'de, T: Fields<'de>> de::Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Fields<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            expecting!("any JSON value");
            scalars_are!(Obj(None));
            seqs_are!(Obj(None));
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Obj<T>, A::Error> {
                let mut t = T::default();
                while let Some(k) = map.next_key::<Key<'de>>()? {
                    t.field(&k.0, &mut map)?;
                }
                Ok(Obj(Some(t)))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `{"handle": n}` or `n` (`handle` of the tree reader): the handle.
#[derive(Default)]
struct HandleFields(Num);
impl<'de> Fields<'de> for HandleFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "handle" => self.0 = map.next_value()?,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}
struct Handle(Option<u64>);
impl<'de> de::Deserialize<'de> for Handle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Handle;
            expecting!("any JSON value");
            fn visit_u64<E: de::Error>(self, u: u64) -> Result<Handle, E> {
                Ok(Handle(Some(u)))
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Handle, E> {
                Ok(Handle(u64::try_from(i).ok()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Handle, E> {
                Ok(Handle(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Handle, E> {
                Ok(Handle(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Handle, E> {
                Ok(Handle(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Handle, E> {
                Ok(Handle(None))
            }
            seqs_are!(Handle(None));
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Handle, A::Error> {
                let mut h = HandleFields::default();
                while let Some(k) = map.next_key::<Key<'de>>()? {
                    h.field(&k.0, &mut map)?;
                }
                Ok(Handle(h.0.u64()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `{x, y, z}` (missing or non-integer parts 0).
#[derive(Default)]
struct XyzFields([Num; 3]);
impl<'de> Fields<'de> for XyzFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "x" => self.0[0] = map.next_value()?,
            "y" => self.0[1] = map.next_value()?,
            "z" => self.0[2] = map.next_value()?,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}
fn xyz(o: Obj<XyzFields>) -> Option<[u64; 3]> {
    o.0.map(|f| f.0.map(|n| n.u64().unwrap_or(0)))
}

/// `correlation_id`: its `internal`.
#[derive(Default)]
struct CorrFields(Num);
impl<'de> Fields<'de> for CorrFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "internal" => self.0 = map.next_value()?,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}
fn corr(o: Obj<CorrFields>) -> Num {
    o.0.map_or(Num::Other, |c| c.0)
}

/// A kernel dispatch's `dispatch_info`.
#[derive(Default)]
struct Info {
    agent: Option<u64>,
    queue: Option<u64>,
    kernel_id: Num,
    dispatch_id: Num,
    lds: Num,
    scratch: Num,
    grid: Option<[u64; 3]>,
    workgroup: Option<[u64; 3]>,
}
impl<'de> Fields<'de> for Info {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "agent_id" => self.agent = map.next_value::<Handle>()?.0,
            "queue_id" => self.queue = map.next_value::<Handle>()?.0,
            "kernel_id" => self.kernel_id = map.next_value()?,
            "dispatch_id" => self.dispatch_id = map.next_value()?,
            "group_segment_size" => self.lds = map.next_value()?,
            "private_segment_size" => self.scratch = map.next_value()?,
            "grid_size" => self.grid = xyz(map.next_value()?),
            "workgroup_size" => self.workgroup = xyz(map.next_value()?),
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}

/// Every field a record of any kind may have, as read (not held).
#[derive(Default)]
struct RecordFields {
    start: Num,
    end: Num,
    thread: Num,
    kind: Num,
    operation: Num,
    corr: Num,
    info: Option<Info>,
    src: Option<u64>,
    dst: Option<u64>,
    bytes: Num,
}
impl<'de> Fields<'de> for RecordFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "start_timestamp" => self.start = map.next_value()?,
            "end_timestamp" => self.end = map.next_value()?,
            "thread_id" => self.thread = map.next_value()?,
            "kind" => self.kind = map.next_value()?,
            "operation" => self.operation = map.next_value()?,
            "correlation_id" => self.corr = corr(map.next_value()?),
            "dispatch_info" => self.info = map.next_value::<Obj<Info>>()?.0,
            "src_agent_id" => self.src = map.next_value::<Handle>()?.0,
            "dst_agent_id" => self.dst = map.next_value::<Handle>()?.0,
            "bytes" => self.bytes = map.next_value()?,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}

/// An API call as held.
struct Api {
    start: i64,
    end: i64,
    thread: Num,
    kind: Num,
    operation: Num,
    corr: Num,
}
/// A kernel dispatch as held (its `dispatch_info` boxed: absent in a minimal record).
struct Dispatch {
    start: i64,
    end: i64,
    corr: Num,
    info: Option<Box<Info>>,
}
/// A memory copy as held.
struct Copy {
    start: i64,
    end: i64,
    kind: Num,
    operation: Num,
    src: Option<u64>,
    dst: Option<u64>,
    bytes: Num,
    corr: Num,
}

/// A held record, or a run of records without a start or end time (only counted: each is a
/// `rocprof_missing_time` warning, in its place among the others).
enum Entry<T> {
    Rec(T),
    NoTime(u64),
}

/// One `buffer_records` key's value, as held.
enum Records {
    Api(Vec<Entry<Api>>),
    Dispatches(Vec<Entry<Dispatch>>),
    Copies(Vec<Entry<Copy>>),
    /// A kind not shown: how many records its array has.
    Other(usize),
    /// Not an array.
    NotArray,
}

/// Which kind of records a `buffer_records` key holds.
#[derive(Clone, Copy)]
enum Kind {
    Api,
    Dispatch,
    Copy,
    Other,
}
impl Kind {
    fn of(key: &str) -> Kind {
        if key.ends_with("_api") {
            Kind::Api
        } else if key == "kernel_dispatch" {
            Kind::Dispatch
        } else if key == "memory_copy" {
            Kind::Copy
        } else {
            Kind::Other
        }
    }
}

/// Push `r` (or count it in a run of records without times).
fn push_entry<T, E: de::Error>(cx: &Cx<'_>, v: &mut Vec<Entry<T>>, r: Option<T>) -> Result<(), E> {
    match r {
        Some(r) => cx.push(v, Entry::Rec(r)),
        None => match v.last_mut() {
            Some(Entry::NoTime(n)) => {
                *n += 1;
                Ok(())
            }
            _ => cx.push(v, Entry::NoTime(1)),
        },
    }
}

/// One `buffer_records` key's array, each record converted and charged as it is read.
struct RecordsSeed<'c, 'b>(&'c Cx<'b>, Kind);
impl<'de> DeserializeSeed<'de> for RecordsSeed<'_, '_> {
    type Value = Records;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Records, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for RecordsSeed<'_, '_> {
    type Value = Records;
    expecting!("any JSON value");
    scalars_are!(Records::NotArray);
    maps_are!(Records::NotArray);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Records, A::Error> {
        let cx = self.0;
        let next = |seq: &mut A| -> Result<Option<RecordFields>, A::Error> {
            Ok(seq.next_element::<Obj<RecordFields>>()?.map(|o| o.0.unwrap_or_default()))
        };
        Ok(match self.1 {
            Kind::Api => {
                let mut v = Vec::new();
                while let Some(r) = next(&mut seq)? {
                    let t = r.start.int().zip(r.end.int());
                    let rec = t.map(|(start, end)| Api {
                        start,
                        end,
                        thread: r.thread,
                        kind: r.kind,
                        operation: r.operation,
                        corr: r.corr,
                    });
                    push_entry(cx, &mut v, rec)?;
                }
                Records::Api(v)
            }
            Kind::Dispatch => {
                let mut v = Vec::new();
                while let Some(r) = next(&mut seq)? {
                    let t = r.start.int().zip(r.end.int());
                    let rec = t.map(|(start, end)| Dispatch {
                        start,
                        end,
                        corr: r.corr,
                        info: r.info.map(Box::new),
                    });
                    if let Some(Dispatch { info: Some(_), .. }) = &rec {
                        cx.hold(0, std::mem::size_of::<Info>() as u64)?;
                    }
                    push_entry(cx, &mut v, rec)?;
                }
                Records::Dispatches(v)
            }
            Kind::Copy => {
                let mut v = Vec::new();
                while let Some(r) = next(&mut seq)? {
                    let t = r.start.int().zip(r.end.int());
                    let rec = t.map(|(start, end)| Copy {
                        start,
                        end,
                        kind: r.kind,
                        operation: r.operation,
                        src: r.src,
                        dst: r.dst,
                        bytes: r.bytes,
                        corr: r.corr,
                    });
                    push_entry(cx, &mut v, rec)?;
                }
                Records::Copies(v)
            }
            Kind::Other => {
                let mut n = 0usize;
                while seq.next_element::<Skip>()?.is_some() {
                    n += 1;
                }
                Records::Other(n)
            }
        })
    }
}

/// A node's `buffer_records` object: key → records (a repeated key replaces the earlier one).
struct BufferRecordsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for BufferRecordsSeed<'_, '_> {
    type Value = Option<BTreeMap<String, Records>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for BufferRecordsSeed<'_, '_> {
    type Value = Option<BTreeMap<String, Records>>;
    expecting!("any JSON value");
    scalars_are!(None);
    seqs_are!(None);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(k) = map.next_key::<Key<'de>>()? {
            let records = map.next_value_seed(RecordsSeed(self.0, Kind::of(&k.0)))?;
            self.0.hold::<A::Error>(0, k.0.len() as u64 + 64)?;
            out.insert(k.0.into_owned(), records);
        }
        Ok(Some(out))
    }
}

/// An agent as read.
#[derive(Default)]
struct AgentFields {
    id: Option<u64>,
    kind: Num,
    logical_node_type_id: Num,
    node_id: Num,
    /// Present (any value) and its string.
    product_name: Option<Option<String>>,
    name: Option<Option<String>>,
}
impl<'de> Fields<'de> for AgentFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "id" => self.id = map.next_value::<Handle>()?.0,
            "type" => self.kind = map.next_value()?,
            "logical_node_type_id" => self.logical_node_type_id = map.next_value()?,
            "node_id" => self.node_id = map.next_value()?,
            "product_name" => self.product_name = Some(map.next_value::<Text>()?.0),
            "name" => self.name = Some(map.next_value::<Text>()?.0),
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}

/// A kernel symbol as read.
#[derive(Default)]
struct SymbolFields {
    kernel_id: Num,
    formatted: Option<String>,
    truncated: Option<String>,
    plain: Option<String>,
}
impl SymbolFields {
    fn name(self) -> Option<String> {
        self.formatted.or(self.truncated).or(self.plain)
    }
}
impl<'de> Fields<'de> for SymbolFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "kernel_id" => self.kernel_id = map.next_value()?,
            "formatted_kernel_name" => self.formatted = map.next_value::<Text>()?.0,
            "truncated_kernel_name" => self.truncated = map.next_value::<Text>()?.0,
            "kernel_name" => self.plain = map.next_value::<Text>()?.0,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}

/// `kernel_symbols`: kernel id → name, in the order a tree reader inserted them.
struct SymbolsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for SymbolsSeed<'_, '_> {
    type Value = Vec<(u64, String)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for SymbolsSeed<'_, '_> {
    type Value = Vec<(u64, String)>;
    expecting!("any JSON value");
    scalars_are!(Vec::new());
    /// An array indexed by kernel id (or naming it).
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        let mut i = 0u64;
        while let Some(s) = seq.next_element::<Obj<SymbolFields>>()? {
            if let Some(s) = s.0 {
                let id = s.kernel_id.u64().unwrap_or(i);
                if let Some(n) = s.name() {
                    self.0.hold::<A::Error>(0, n.len() as u64 + 24)?;
                    self.0.push(&mut out, (id, n))?;
                }
            }
            i += 1;
        }
        Ok(out)
    }
    /// An object keyed by kernel id: read in key order (a repeated key replaces the earlier one).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut by_key: BTreeMap<String, (Option<u64>, Option<String>)> = BTreeMap::new();
        while let Some(k) = map.next_key::<Key<'de>>()? {
            let s = map.next_value::<Obj<SymbolFields>>()?.0;
            let entry = match s {
                Some(s) => (s.kernel_id.u64().or_else(|| k.0.parse().ok()), s.name()),
                None => (None, None),
            };
            self.0.text::<A::Error>(&entry.1)?;
            self.0.hold::<A::Error>(1, k.0.len() as u64 + 64)?;
            by_key.insert(k.0.into_owned(), entry);
        }
        Ok(by_key.into_values().filter_map(|(id, name)| Some((id?, name?))).collect())
    }
}

/// `strings.buffer_records`: per record kind, its operations' names (`None` where the entry or
/// its `operations` is not what a tree reader would index).
type OpNames = Vec<Option<Vec<Option<String>>>>;

#[derive(Default)]
struct KindStrings(Option<Vec<Option<String>>>);
struct StringsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for StringsSeed<'_, '_> {
    type Value = Option<OpNames>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for StringsSeed<'_, '_> {
    type Value = Option<OpNames>;
    expecting!("any JSON value");
    scalars_are!(None);
    seqs_are!(None);
    /// `strings`: its `buffer_records` array.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = None;
        while let Some(k) = map.next_key::<Key<'de>>()? {
            if k.0 == "buffer_records" {
                out = map.next_value_seed(KindsSeed(self.0))?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(out)
    }
}
struct KindsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for KindsSeed<'_, '_> {
    type Value = Option<OpNames>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for KindsSeed<'_, '_> {
    type Value = Option<OpNames>;
    expecting!("any JSON value");
    scalars_are!(None);
    maps_are!(None);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = seq.next_element_seed(OpsSeed(self.0))? {
            self.0.push(&mut out, k.0)?;
        }
        Ok(Some(out))
    }
}
/// One kind's entry `{kind, operations: [names]}`.
struct OpsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for OpsSeed<'_, '_> {
    type Value = KindStrings;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for OpsSeed<'_, '_> {
    type Value = KindStrings;
    expecting!("any JSON value");
    scalars_are!(KindStrings(None));
    seqs_are!(KindStrings(None));
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KindStrings, A::Error> {
        let mut out = KindStrings(None);
        while let Some(k) = map.next_key::<Key<'de>>()? {
            if k.0 == "operations" {
                out = KindStrings(map.next_value_seed(NamesSeed(self.0))?);
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(out)
    }
}
/// An array of operation names.
struct NamesSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for NamesSeed<'_, '_> {
    type Value = Option<Vec<Option<String>>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for NamesSeed<'_, '_> {
    type Value = Option<Vec<Option<String>>>;
    expecting!("any JSON value");
    scalars_are!(None);
    maps_are!(None);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = seq.next_element::<Text>()? {
            self.0.text::<A::Error>(&t.0)?;
            self.0.push(&mut out, t.0)?;
        }
        Ok(Some(out))
    }
}

/// `agents`: `None` unless an array.
struct AgentsSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for AgentsSeed<'_, '_> {
    type Value = Vec<Option<AgentFields>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for AgentsSeed<'_, '_> {
    type Value = Vec<Option<AgentFields>>;
    expecting!("any JSON value");
    scalars_are!(Vec::new());
    maps_are!(Vec::new());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(a) = seq.next_element::<Obj<AgentFields>>()? {
            if let Some(a) = &a.0 {
                for t in [&a.product_name, &a.name].into_iter().flatten() {
                    self.0.text::<A::Error>(t)?;
                }
            }
            self.0.push(&mut out, a.0)?;
        }
        Ok(out)
    }
}

/// A tool node as read.
#[derive(Default)]
struct NodeRaw {
    pid: Option<i64>,
    agents: Vec<Option<AgentFields>>,
    kernels: Vec<(u64, String)>,
    ops: Option<OpNames>,
    records: Option<BTreeMap<String, Records>>,
}
struct NodeSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_> {
    type Value = Option<NodeRaw>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
#[derive(Default)]
struct PidFields(Num);
impl<'de> Fields<'de> for PidFields {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "pid" => self.0 = map.next_value()?,
            _ => map.next_value::<Skip>().map(drop)?,
        }
        Ok(())
    }
}
impl<'de> Visitor<'de> for NodeSeed<'_, '_> {
    type Value = Option<NodeRaw>;
    expecting!("any JSON value");
    scalars_are!(None);
    seqs_are!(None);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let cx = self.0;
        let mut n = NodeRaw::default();
        while let Some(k) = map.next_key::<Key<'de>>()? {
            match &*k.0 {
                "metadata" => n.pid = map.next_value::<Obj<PidFields>>()?.0.and_then(|p| p.0.int()),
                "agents" => n.agents = map.next_value_seed(AgentsSeed(cx))?,
                "kernel_symbols" => n.kernels = map.next_value_seed(SymbolsSeed(cx))?,
                "strings" => n.ops = map.next_value_seed(StringsSeed(cx))?,
                "buffer_records" => n.records = map.next_value_seed(BufferRecordsSeed(cx))?,
                _ => map.next_value::<Skip>().map(drop)?,
            }
        }
        Ok(Some(n))
    }
}

/// `rocprofiler-sdk-tool`'s value.
enum Tool {
    /// An array of nodes (`None`: an element that is not an object).
    Nodes(Vec<Option<NodeRaw>>),
    /// A single node object.
    Node(Box<NodeRaw>),
    Other,
}
struct ToolSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for ToolSeed<'_, '_> {
    type Value = Tool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Tool, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for ToolSeed<'_, '_> {
    type Value = Tool;
    expecting!("any JSON value");
    scalars_are!(Tool::Other);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tool, A::Error> {
        let mut out = Vec::new();
        while let Some(n) = seq.next_element_seed(NodeSeed(self.0))? {
            self.0.push(&mut out, n)?;
        }
        Ok(Tool::Nodes(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Tool, A::Error> {
        let n = NodeSeed(self.0).visit_map(map)?;
        Ok(n.map_or(Tool::Other, |n| Tool::Node(Box::new(n))))
    }
}

/// The root: an object (with the tool's value if it has the key), or anything else.
enum Root {
    Object(Option<Tool>),
    Other,
}
struct RootSeed<'c, 'b>(&'c Cx<'b>);
impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
    type Value = Root;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Root, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for RootSeed<'_, '_> {
    type Value = Root;
    expecting!("any JSON value");
    scalars_are!(Root::Other);
    seqs_are!(Root::Other);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Root, A::Error> {
        let mut tool = None;
        while let Some(k) = map.next_key::<Key<'de>>()? {
            if k.0 == ROOT_KEY {
                tool = Some(map.next_value_seed(ToolSeed(self.0))?);
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(Root::Object(tool))
    }
}

// ---- building: typed records → the model ----

struct Agent {
    gpu: bool,
    label: String,
}

struct Node<'a> {
    b: &'a mut TraceBuilder,
    n: &'a NodeRaw,
    pid: i64,
    agents: HashMap<u64, Agent>,
    gpu_groups: HashMap<u64, GroupId>,
    queues: HashMap<(u64, u64), TrackId>,
    copies: HashMap<u64, TrackId>,
    host: Option<GroupId>,
    threads: HashMap<i64, TrackId>,
    /// correlation id → the API call.
    calls: HashMap<i64, SliceHandle>,
}

impl<'a> Node<'a> {
    fn new(b: &'a mut TraceBuilder, n: &'a NodeRaw, index: i64) -> Node<'a> {
        let pid = n.pid.unwrap_or(index);
        Node {
            b,
            n,
            pid,
            agents: HashMap::new(),
            gpu_groups: HashMap::new(),
            queues: HashMap::new(),
            copies: HashMap::new(),
            host: None,
            threads: HashMap::new(),
            calls: HashMap::new(),
        }
    }

    fn op_name(&self, kind: Num, op: Num) -> Option<&'a str> {
        let kinds = self.n.ops.as_ref()?;
        let ops = kinds.get(usize::try_from(kind.u64()?).ok()?)?.as_ref()?;
        ops.get(usize::try_from(op.u64()?).ok()?)?.as_deref()
    }

    fn run(mut self) {
        self.b.add_metadata("rocprof pid", self.pid.to_string());
        for a in self.n.agents.iter().flatten() {
            let Some(h) = a.id else { continue };
            let gpu = a.kind.u64() == Some(2);
            let node = a.logical_node_type_id.int().or(a.node_id.int()).unwrap_or(h as i64);
            let product =
                a.product_name.as_ref().or(a.name.as_ref()).and_then(|s| s.as_deref()).unwrap_or("");
            let label = if gpu { format!("GPU {node}") } else { format!("CPU {node}") };
            let label = if product.is_empty() { label } else { format!("{label} — {product}") };
            self.agents.insert(h, Agent { gpu, label });
        }
        let kernels: HashMap<u64, &str> = self.n.kernels.iter().map(|(id, n)| (*id, n.as_str())).collect();
        let n = self.n;
        let Some(records) = &n.records else {
            self.b.warn(WarningKind::RocprofNoBufferRecords, || {
                "a tool node has no buffer_records object".into()
            });
            return;
        };
        // API calls first: the GPU records' flows start at them
        for (key, v) in records {
            if let Records::Api(v) = v {
                for r in v {
                    match r {
                        Entry::Rec(r) => self.api(key, r),
                        Entry::NoTime(k) => self.no_time(*k),
                    }
                }
            }
        }
        if let Some(Records::Dispatches(v)) = records.get("kernel_dispatch") {
            for r in v {
                match r {
                    Entry::Rec(r) => self.dispatch(r, &kernels),
                    Entry::NoTime(k) => self.no_time(*k),
                }
            }
        }
        if let Some(Records::Copies(v)) = records.get("memory_copy") {
            for r in v {
                match r {
                    Entry::Rec(r) => self.copy(r),
                    Entry::NoTime(k) => self.no_time(*k),
                }
            }
        }
        let skipped: Vec<String> = records
            .iter()
            .filter_map(|(k, v)| match v {
                Records::Other(n) if *n > 0 => Some(format!("{k} ({n})")),
                _ => None,
            })
            .collect();
        if !skipped.is_empty() {
            self.b.warn(WarningKind::RocprofSkippedRecords, || {
                format!("records not shown: {}", skipped.join(", "))
            });
        }
    }

    /// `k` records without a start or end time.
    fn no_time(&mut self, k: u64) {
        self.b.warn_n(WarningKind::RocprofMissingTime, k, || {
            "a record has no start_timestamp or end_timestamp; skipped".into()
        });
    }

    fn host(&mut self) -> GroupId {
        if let Some(g) = self.host {
            return g;
        }
        let g = self.b.add_group(&format!("Process {}", self.pid), GroupKind::Process);
        self.b.set_group_sort(g, self.pid);
        self.host = Some(g);
        g
    }

    fn gpu(&mut self, agent: u64) -> GroupId {
        if let Some(&g) = self.gpu_groups.get(&agent) {
            return g;
        }
        let label = self.agents.get(&agent).map_or_else(|| format!("agent {agent}"), |a| a.label.clone());
        let g = self.b.add_group(&label, GroupKind::Device);
        self.b.set_group_sort(g, -1_000_000 + self.gpu_groups.len() as i64);
        self.gpu_groups.insert(agent, g);
        g
    }

    fn api(&mut self, key: &str, r: &Api) {
        let (start, dur) = (r.start, r.end.saturating_sub(r.start));
        let tid = r.thread.int().unwrap_or(0);
        let track = match self.threads.get(&tid) {
            Some(&t) => t,
            None => {
                let g = self.host();
                let t = self.b.add_track(
                    g,
                    &format!("thread {tid}"),
                    TrackKind::Thread,
                    &format!("tid:{}:{tid}", self.pid),
                );
                self.b.set_track_sort(t, tid);
                self.threads.insert(tid, t);
                t
            }
        };
        let name = self
            .op_name(r.kind, r.operation)
            .map(String::from)
            .unwrap_or_else(|| format!("{key} operation {}", r.operation.u64().unwrap_or(0)));
        let name = self.b.intern(&name);
        let cat = self.b.intern(key);
        let corr = r.corr.int();
        let args = match corr {
            Some(c) => {
                let k = self.b.intern("correlation");
                self.b.add_args([(k, ArgValue::Int(c))])
            }
            None => crate::model::ArgsId::NONE,
        };
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        if let Some(c) = corr {
            self.calls.entry(c).or_insert(h);
        }
    }

    fn flow(&mut self, corr: Num, to: SliceHandle) {
        if let Some(&from) = corr.int().and_then(|c| self.calls.get(&c)) {
            let (n, c) = (self.b.intern("launch"), self.b.intern("ac2g"));
            self.b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(to), n, c);
        }
    }

    fn dispatch(&mut self, r: &Dispatch, kernels: &HashMap<u64, &str>) {
        let (start, dur) = (r.start, r.end.saturating_sub(r.start));
        let none = Info::default();
        let info = r.info.as_deref().unwrap_or(&none);
        let agent = info.agent.unwrap_or(0);
        let queue = info.queue.unwrap_or(0);
        let track = match self.queues.get(&(agent, queue)) {
            Some(&t) => t,
            None => {
                let g = self.gpu(agent);
                let n = self.queues.keys().filter(|(a, _)| *a == agent).count();
                let t = self.b.add_track(
                    g,
                    &format!("queue {n}"),
                    TrackKind::Stream,
                    &format!("queue:{agent}:{queue}"),
                );
                self.b.set_track_sort(t, n as i64);
                self.queues.insert((agent, queue), t);
                t
            }
        };
        let kid = info.kernel_id.u64();
        let name = match kid.and_then(|k| kernels.get(&k)) {
            Some(n) => self.b.intern(n),
            None => self.b.intern(&format!("kernel {}", kid.unwrap_or(0))),
        };
        let cat = self.b.intern("kernel");
        let mut args = Vec::new();
        for (key, v) in [("grid", info.grid), ("workgroup", info.workgroup)] {
            if let Some([x, y, z]) = v {
                let k = self.b.intern(key);
                args.push((k, ArgValue::Json(self.b.intern(&format!("[{x}, {y}, {z}]")))));
            }
        }
        for (key, v) in [
            ("dispatch id", info.dispatch_id),
            ("kernel id", info.kernel_id),
            ("LDS bytes", info.lds),
            ("scratch bytes", info.scratch),
        ] {
            if let Some(v) = v.int() {
                let k = self.b.intern(key);
                args.push((k, ArgValue::Int(v)));
            }
        }
        if let Some(c) = r.corr.int() {
            let k = self.b.intern("correlation");
            args.push((k, ArgValue::Int(c)));
        }
        let args = self.b.add_args(args);
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        self.b.set_slice_domain(h, SliceDomain { gpu_work: Some(GpuWork::Kernel), ..SliceDomain::default() });
        self.flow(r.corr, h);
    }

    fn copy(&mut self, r: &Copy) {
        let (start, dur) = (r.start, r.end.saturating_sub(r.start));
        let (src, dst) = (r.src, r.dst);
        let is_gpu = |a: Option<u64>| a.and_then(|a| self.agents.get(&a)).is_some_and(|a| a.gpu);
        let agent = if is_gpu(dst) {
            dst
        } else if is_gpu(src) {
            src
        } else {
            dst.or(src)
        }
        .unwrap_or(0);
        let track = match self.copies.get(&agent) {
            Some(&t) => t,
            None => {
                let g = self.gpu(agent);
                let t = self.b.add_track(g, "memory copies", TrackKind::Stream, &format!("copies:{agent}"));
                self.b.set_track_layout(t, Layout::Lanes);
                self.b.set_track_sort(t, i64::MAX / 4);
                self.copies.insert(agent, t);
                t
            }
        };
        let name = self.op_name(r.kind, r.operation).unwrap_or("MEMORY_COPY");
        let name = self.b.intern(name);
        let cat = self.b.intern("gpu_memcpy");
        let bytes = r.bytes.u64();
        let mut args = Vec::new();
        if let Some(v) = bytes {
            let k = self.b.intern("bytes");
            args.push((k, ArgValue::UInt(v)));
        }
        if let Some(c) = r.corr.int() {
            let k = self.b.intern("correlation");
            args.push((k, ArgValue::Int(c)));
        }
        let args = self.b.add_args(args);
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        let bytes = bytes.unwrap_or(u64::MAX);
        self.b.set_slice_domain(
            h,
            SliceDomain { bytes, gpu_work: Some(GpuWork::Memcpy), ..SliceDomain::default() },
        );
        self.flow(r.corr, h);
    }
}

#[cfg(test)]
mod tests;
