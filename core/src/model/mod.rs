//! The one internal model every importer writes into (through [`TraceBuilder`]) and every widget
//! reads. It knows no file format.
//!
//! Layout: a [`Trace`] has groups (a process, a device), each with tracks (a thread, an engine, a
//! DMA queue, an async lane set). A track stores its slices as columns (struct of arrays), sorted
//! depth-major: all depth-0 slices by start, then depth 1, … At one depth slices never overlap, so
//! starts *and* ends are sorted, which is what makes binary-search range queries and the
//! level-of-detail index ([`crate::lod`]) work. Times are i64 nanoseconds on the file's own clock.

pub mod builder;
pub mod columns;
pub mod domain;
pub mod program;
pub mod synth;
pub mod table;
pub mod validate;
pub mod warnings;
pub mod wire;

pub use builder::{DomainShapeRef, FlowEnd, SliceHandle, TraceBuilder};
pub(crate) use columns::partition;
pub use columns::{ArgsId, CounterId, DurColumn, GroupId, IdColumn, InstantColumns, SliceColumns, TrackId};
pub use domain::{
    Attribution, CounterRole, DeviceInfo, DeviceMemory, DmaBlock, DmaQueueType, DomainBuild, DomainColumns,
    DomainShape, DomainShapes, Engine, GpuWork, HostWork, Incomplete, InstructionTraffic, OpId, OpLevel,
    OpNodeRow, OperatorTree, SliceDomain, SourceId, SourceLoc, ThrottlePeriod, TrackRole, WorkKind,
};
pub use program::{
    CorrelationReport, OpNode, Program, ProgramHeader, ProgramKind, ProgramLevel, ProgramSubgraph,
    ProgramTableKind, Table,
};
pub use table::{Cell, Column, ColumnUnit, DataTable, TableKind};
pub use validate::InvalidTrace;
pub use warnings::{Warning, WarningKind, Warnings};

use crate::lod::LodIndex;
use crate::strings::{StrId, StringTable};

/// Where a lazily kept argument set is: the `args` JSON object at `offset..offset + len` of
/// input file number `file` (its index in the load). The viewer re-reads and parses those bytes
/// when the event is inspected (`loupe_core::import::chrome::args_from_text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LazyArgs {
    pub file: u8,
    pub offset: u64,
    pub len: u32,
}

impl LazyArgs {
    /// Offsets below 2^40 (1 TiB), lengths below 2^16.
    pub const MAX_OFFSET: u64 = (1 << 40) - 1;
    pub const MAX_LEN: u32 = (1 << 16) - 1;
}

/// The typed ids a lazy argument set carries in memory, for analyses that cannot wait for a
/// re-read: Kineto's `stream` and `correlation` arguments as integers (HTA's reading: integer,
/// or a float truncated, or a string holding an integer), `None` when absent or not a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuIds {
    pub stream: Option<i64>,
    pub correlation: Option<i64>,
}

/// The lazy argument sets of an [`ArgStore`], as columns: 11 bytes a set (was 24: a packed
/// 8-byte range and two `i64` ids). Set i is
///
/// - its byte range: offset bits 0..32 in `lo[i]`, length in `len[i]`, and the input file and
///   offset bits 32..40 from the *run* that holds it: `runs` is sorted by first set, one entry
///   `first << 32 | file << 8 | offset bits 32..40` wherever the file or those high bits change
///   (sets are added in file order, so a load has one run per file and 4 GiB);
/// - its `stream`: `stream[i]` indexes the table `streams` of distinct values (at most
///   [`Self::STREAM_WIDE`] of them), [`Self::STREAM_NONE`] = absent, [`Self::STREAM_WIDE`] = the
///   value is in `stream_wide`;
/// - its `correlation`: `corr[i]` itself when below [`Self::CORR_WIDE`], [`Self::CORR_NONE`] =
///   absent, [`Self::CORR_WIDE`] = the value is in `corr_wide`.
///
/// `stream_wide` and `corr_wide` hold `[set, value]` for the sets whose value did not fit, sorted
/// by set: every value reads back exactly as it was added.
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct LazyStore {
    pub lo: Vec<u32>,
    pub len: Vec<u16>,
    pub runs: Vec<u64>,
    pub stream: Vec<u8>,
    pub streams: Vec<i64>,
    pub stream_wide: Vec<[i64; 2]>,
    pub corr: Vec<u32>,
    pub corr_wide: Vec<[i64; 2]>,
}

impl LazyStore {
    pub const STREAM_NONE: u8 = u8::MAX;
    pub const STREAM_WIDE: u8 = u8::MAX - 1;
    pub const CORR_NONE: u32 = u32::MAX;
    pub const CORR_WIDE: u32 = u32::MAX - 1;

    /// The number of lazy sets.
    #[inline]
    pub fn len(&self) -> usize {
        self.lo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }
    /// Add set number `self.len()`; `None` when the range does not fit a [`LazyArgs`].
    fn push(&mut self, r: LazyArgs, ids: GpuIds) -> Option<()> {
        if r.offset > LazyArgs::MAX_OFFSET || r.len > LazyArgs::MAX_LEN {
            return None;
        }
        let i = self.lo.len() as u64;
        let high = u64::from(r.file) << 8 | r.offset >> 32;
        if self.runs.last().is_none_or(|&run| run & 0xFFFF_FFFF != high) {
            self.runs.push(i << 32 | high);
        }
        self.lo.push(r.offset as u32);
        self.len.push(r.len as u16);
        let stream = match ids.stream {
            None => Self::STREAM_NONE,
            Some(v) => match self.streams.iter().position(|&x| x == v) {
                Some(k) => k as u8,
                None if self.streams.len() < usize::from(Self::STREAM_WIDE) => {
                    self.streams.push(v);
                    (self.streams.len() - 1) as u8
                }
                None => {
                    self.stream_wide.push([i as i64, v]);
                    Self::STREAM_WIDE
                }
            },
        };
        self.stream.push(stream);
        let corr = match ids.correlation {
            None => Self::CORR_NONE,
            Some(v) => match u32::try_from(v).ok().filter(|&c| c < Self::CORR_WIDE) {
                Some(c) => c,
                None => {
                    self.corr_wide.push([i as i64, v]);
                    Self::CORR_WIDE
                }
            },
        };
        self.corr.push(corr);
        Some(())
    }
    /// The byte range of set `i` (`None` when out of range or damaged).
    pub fn range(&self, i: usize) -> Option<LazyArgs> {
        let (&lo, &len) = (self.lo.get(i)?, self.len.get(i)?);
        let k = self.runs.partition_point(|&run| (run >> 32) as usize <= i).checked_sub(1)?;
        let run = self.runs[k];
        Some(LazyArgs {
            file: (run >> 8) as u8,
            offset: (run & 0xFF) << 32 | u64::from(lo),
            len: u32::from(len),
        })
    }
    /// The typed ids of set `i` (`None` when out of range).
    pub fn ids(&self, i: usize) -> Option<GpuIds> {
        let (&s, &c) = (self.stream.get(i)?, self.corr.get(i)?);
        let wide = |w: &[[i64; 2]]| w.binary_search_by_key(&(i as i64), |e| e[0]).ok().map(|k| w[k][1]);
        let stream = match s {
            Self::STREAM_NONE => None,
            Self::STREAM_WIDE => wide(&self.stream_wide),
            k => self.streams.get(usize::from(k)).copied(),
        };
        let correlation = match c {
            Self::CORR_NONE => None,
            Self::CORR_WIDE => wide(&self.corr_wide),
            c => Some(i64::from(c)),
        };
        Some(GpuIds { stream, correlation })
    }
    /// Whether some set has a `stream` id.
    pub fn any_stream(&self) -> bool {
        self.stream.iter().any(|&s| s != Self::STREAM_NONE)
    }
    /// Whether some set has a `correlation` id.
    pub fn any_correlation(&self) -> bool {
        self.corr.iter().any(|&c| c != Self::CORR_NONE)
    }
    pub fn shrink_to_fit(&mut self) {
        self.lo.shrink_to_fit();
        self.len.shrink_to_fit();
        self.runs.shrink_to_fit();
        self.stream.shrink_to_fit();
        self.streams.shrink_to_fit();
        self.stream_wide.shrink_to_fit();
        self.corr.shrink_to_fit();
        self.corr_wide.shrink_to_fit();
    }
    pub fn heap_bytes(&self) -> usize {
        self.lo.capacity() * 4
            + self.len.capacity() * 2
            + self.runs.capacity() * 8
            + self.stream.capacity()
            + self.streams.capacity() * 8
            + (self.stream_wide.capacity() + self.corr_wide.capacity()) * 16
            + self.corr.capacity() * 4
    }
}

/// A slice addressed in the finished model.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    bincode::Encode,
    bincode::Decode,
    serde::Serialize,
)]
pub struct SliceRef {
    pub track: TrackId,
    pub index: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum GroupKind {
    Process,
    Device,
    Other,
}

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct Group {
    pub name: StrId,
    pub kind: GroupKind,
    /// Lower sorts first; ties by insertion order.
    pub sort_index: i64,
    pub tracks: Vec<TrackId>,
    pub counters: Vec<CounterId>,
    /// Device facts (execution time, instance type, …) of a device profile, when known.
    pub device: Option<DeviceInfo>,
    /// The input file the group was read from (its name as given to `import_files`, after
    /// container unwrapping), when known.
    pub source_file: Option<StrId>,
    /// A device group's Tensor-engine matrix instructions with their FLOPs from the instruction
    /// words, when its slices state none (an NTFF: `Ntff::instruction_flops`, handed over with
    /// `TraceBuilder::set_device_flops`): `(start ns, end ns, FLOPs)`, sorted by start; they add
    /// up to `device.traffic.hardware_flops`. The device summary over a time window reads them
    /// (`analysis::device_summary`). Empty otherwise. Beside `device`, not in it, only because the
    /// NTFF importer builds `DeviceInfo` field by field.
    pub tensor_flops: Vec<(i64, i64, u64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum TrackKind {
    /// A CPU thread: slices nest by time.
    Thread,
    /// A GPU stream or an accelerator engine queue.
    Stream,
    /// A DMA queue.
    Dma,
    /// Async spans: overlapping spans are put in separate lanes, not nested.
    Async,
    /// Spill track for slices that overlapped their neighbours without nesting.
    Overlap,
}

/// How depth is assigned to slices when the model is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum Layout {
    /// Depth = nesting level by time containment.
    Nested,
    /// Greedy lanes: each slice goes to the first lane free at its start.
    Lanes,
}

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct Track {
    pub name: StrId,
    pub group: GroupId,
    pub kind: TrackKind,
    /// What the track is for analyses (engine, DMA queue, …).
    pub role: TrackRole,
    /// Type of the DMA queue (static / software / hardware dynamic) of a DMA track, when known.
    pub dma_queue_type: Option<DmaQueueType>,
    pub layout: Layout,
    pub sort_index: i64,
    /// Identifier in the source (tid, engine index, …), shown in details.
    pub source_id: StrId,
    pub slices: SliceColumns,
    pub instants: InstantColumns,
    pub lod: LodIndex,
}

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct CounterTrack {
    pub name: StrId,
    pub group: GroupId,
    pub unit: StrId,
    /// What the counter measures (semaphore, engine activity, throughput, …).
    pub role: CounterRole,
    /// The number the source gives the counter, where it numbers them: a semaphore's id
    /// (`S[12]` → 12). Set by the importer, never read back from the name.
    pub number: Option<i64>,
    pub sort_index: i64,
    pub ts_ns: Vec<i64>,
    pub value: Vec<f64>,
}

impl CounterTrack {
    pub fn range(&self, t0_ns: i64, t1_ns: i64) -> std::ops::Range<usize> {
        // include the sample before t0 (its value holds at t0)
        let lo = self.ts_ns.partition_point(|&t| t < t0_ns).saturating_sub(1);
        let hi = self.ts_ns.partition_point(|&t| t < t1_ns);
        lo..hi.max(lo)
    }
    pub fn min_max(&self) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for &v in &self.value {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if lo > hi {
            (0.0, 0.0)
        } else {
            (lo, hi)
        }
    }
}

#[derive(Debug, Clone, Copy, bincode::Encode, bincode::Decode)]
pub struct Flow {
    pub from: SliceRef,
    pub to: SliceRef,
    pub name: StrId,
    pub category: StrId,
}

/// A typed argument value.
#[derive(Debug, Clone, Copy, PartialEq, bincode::Encode, bincode::Decode)]
pub enum ArgValue {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(StrId),
    /// Nested JSON object/array kept as compact text.
    Json(StrId),
}

/// All argument sets of a trace: set i is entries `offsets[i]..offsets[i+1]`.
///
/// **Entries** are columns: `keys[e]`, and the value packed as `tags[e]` (its kind, `TAG_*`)
/// plus `vals[e]`: the value itself when it fits 32 bits (bool, string id, an integer in the
/// u32 / i32 range), else an index into `wide` (floats, wider integers). An entry costs 9
/// bytes (17 with a wide value) instead of 20 for a key and an [`ArgValue`]. Read them with
/// [`ArgStore::get`] / [`ArgStore::value`]; a damaged tag or index reads as `Null` / 0.
///
/// **Based sets.** When `bases` is not empty it has one entry per set: `bases[i]` is the set
/// that set i overrides (`u32::MAX` = none). Set i then reads as its base's entries in the base's
/// order, each value replaced by set i's own entry with the same key, followed by set i's own
/// entries whose keys the base lacks. A base precedes the sets based on it and has no base
/// itself ([`Trace::validate`]). Importers use it for what every execution of one instruction
/// shares (names, lineage) — the events keep only their own values.
///
/// **Row sets** are based sets whose own entries always have the same keys: events that each
/// carry a few values of their own over a shared base (an NTFF instruction's wait and CRCs).
/// A *form* names the base and the keys: form f is base set `form_base[f]` (a plain set
/// without a base) with keys `form_keys[form_off[f]..form_off[f + 1]]` and one value tag per
/// key (`form_tags`, only tags whose value is the 32-bit value itself: no `wide` index). A row
/// is a form index followed by one 32-bit value per key, stored one after another in `rows`;
/// its id is [`ArgsId::ROW_BIT`] | its offset in `rows`. It reads like a based set whose own
/// entries are the form's keys with the row's values: 4 bytes a row plus 4 a value, where a
/// based set costs 8 a set (offset, base) plus 9 a value (key, tag, value): an NTFF event's
/// four values take 20 bytes instead of 44.
///
/// Lazy sets (ids with [`ArgsId::LAZY_BIT`]) are not in memory, only where they are and two
/// typed ids, 11 bytes a set (see [`LazyStore`]). [`ArgStore::get`] yields nothing for them.
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct ArgStore {
    pub offsets: Vec<u32>,
    pub keys: Vec<StrId>,
    pub tags: Vec<u8>,
    pub vals: Vec<u32>,
    pub wide: Vec<u64>,
    pub lazy: LazyStore,
    pub bases: Vec<u32>,
    /// Row forms (see "Row sets"): `form_off` is empty or one longer than `form_base`.
    pub form_base: Vec<u32>,
    pub form_off: Vec<u32>,
    pub form_keys: Vec<StrId>,
    pub form_tags: Vec<u8>,
    /// Row sets, one after another: a form index, then the form's values.
    pub rows: Vec<u32>,
}

/// The entries a set holds itself, as parallel slices (a plain set's range of the entry
/// columns, or a row's form keys and tags with its values).
#[derive(Clone, Copy)]
struct OwnEntries<'a> {
    keys: &'a [StrId],
    tags: &'a [u8],
    vals: &'a [u32],
}

impl OwnEntries<'_> {
    const EMPTY: OwnEntries<'static> = OwnEntries { keys: &[], tags: &[], vals: &[] };
}

impl ArgStore {
    /// The base of set `id` ([`ArgsId::NONE`] for none, lazy and unknown sets).
    pub fn base_of(&self, id: ArgsId) -> ArgsId {
        if id.is_lazy() {
            return ArgsId::NONE;
        }
        if id.is_row() {
            return self.row(id).map_or(ArgsId::NONE, |(f, _)| ArgsId(self.form_base[f]));
        }
        self.bases.get(id.0 as usize).map_or(ArgsId::NONE, |&b| ArgsId(b))
    }
    /// The number of row forms.
    pub fn form_count(&self) -> usize {
        self.form_base.len()
    }
    /// The key range of form `f` in `form_keys` / `form_tags` (empty when out of range or damaged).
    pub fn form_keys_range(&self, f: usize) -> std::ops::Range<usize> {
        match (self.form_off.get(f), self.form_off.get(f + 1)) {
            (Some(&a), Some(&b))
                if a <= b && (b as usize) <= self.form_keys.len().min(self.form_tags.len()) =>
            {
                a as usize..b as usize
            }
            _ => 0..0,
        }
    }
    /// Row set `id`'s form and the range of its values in `rows` (`None` when `id` is not a row
    /// of this store).
    fn row(&self, id: ArgsId) -> Option<(usize, std::ops::Range<usize>)> {
        if !id.is_row() {
            return None;
        }
        let at = (id.0 & !ArgsId::ROW_BIT) as usize;
        let f = *self.rows.get(at)? as usize;
        if f >= self.form_base.len() {
            return None;
        }
        let end = at + 1 + self.form_keys_range(f).len();
        (end <= self.rows.len()).then_some((f, at + 1..end))
    }
    /// The entries set `id` holds itself: a plain set's, or a row's form keys with its values.
    fn own_entries_of(&self, id: ArgsId) -> OwnEntries<'_> {
        if let Some((f, vals)) = self.row(id) {
            let k = self.form_keys_range(f);
            return OwnEntries {
                keys: &self.form_keys[k.clone()],
                tags: &self.form_tags[k],
                vals: &self.rows[vals],
            };
        }
        let o = self.own(id);
        if o.end > self.tags.len() || o.end > self.vals.len() {
            return OwnEntries::EMPTY;
        }
        OwnEntries { keys: &self.keys[o.clone()], tags: &self.tags[o.clone()], vals: &self.vals[o] }
    }
    /// Add row form: base set `base` (a plain set without a base of its own) with `keys`, each
    /// with the tag its values will have (only 32-bit tags). `None` when that does not hold.
    pub fn push_form(&mut self, base: ArgsId, keys: &[(StrId, u8)]) -> Option<u32> {
        let plain_base = !base.is_lazy()
            && !base.is_row()
            && base.idx() < self.len()
            && self.base_of(base) == ArgsId::NONE;
        if !plain_base || keys.iter().any(|&(_, t)| !Self::row_tag(t)) {
            return None;
        }
        let f = u32::try_from(self.form_base.len()).ok()?;
        if self.form_off.is_empty() {
            self.form_off.push(0);
        }
        self.form_base.push(base.0);
        self.form_keys.extend(keys.iter().map(|k| k.0));
        self.form_tags.extend(keys.iter().map(|k| k.1));
        self.form_off.push(self.form_keys.len() as u32);
        Some(f)
    }
    /// Add a row of form `f` with `vals` (one per key, as the form's tags read them). `None`
    /// when the form does not exist, the count differs, or the rows are full.
    pub fn push_row(&mut self, f: u32, vals: &[u32]) -> Option<ArgsId> {
        if (f as usize) >= self.form_base.len() || self.form_keys_range(f as usize).len() != vals.len() {
            return None;
        }
        let at = u32::try_from(self.rows.len()).ok().filter(|&a| a < ArgsId::ROW_BIT - 1)?;
        self.rows.push(f);
        self.rows.extend_from_slice(vals);
        Some(ArgsId(ArgsId::ROW_BIT | at))
    }
    /// Whether a row form may use tag `t`: those whose value is the 32-bit value itself.
    pub fn row_tag(t: u8) -> bool {
        matches!(
            t,
            Self::TAG_NULL
                | Self::TAG_BOOL
                | Self::TAG_INT32
                | Self::TAG_UINT32
                | Self::TAG_STR
                | Self::TAG_JSON
        )
    }
    /// Every set held in memory (plain sets, then row sets in order; not the lazy ones).
    pub fn ids(&self) -> impl Iterator<Item = ArgsId> + '_ {
        let mut at = 0usize;
        let rows = std::iter::from_fn(move || {
            let id = ArgsId(ArgsId::ROW_BIT | u32::try_from(at).ok()?);
            let (_, vals) = self.row(id)?;
            at = vals.end;
            Some(id)
        });
        (0..self.len() as u32).map(ArgsId).chain(rows)
    }
    pub const TAG_NULL: u8 = 0;
    pub const TAG_BOOL: u8 = 1;
    pub const TAG_INT32: u8 = 2;
    pub const TAG_INT64: u8 = 3;
    pub const TAG_UINT32: u8 = 4;
    pub const TAG_UINT64: u8 = 5;
    pub const TAG_FLOAT: u8 = 6;
    pub const TAG_STR: u8 = 7;
    pub const TAG_JSON: u8 = 8;

    /// Append one entry (of the set being built).
    pub fn push_entry(&mut self, key: StrId, v: ArgValue) {
        let mut wide = |x: u64| {
            self.wide.push(x);
            (self.wide.len() - 1) as u32
        };
        let (tag, val) = match v {
            ArgValue::Null => (Self::TAG_NULL, 0),
            ArgValue::Bool(b) => (Self::TAG_BOOL, u32::from(b)),
            ArgValue::Int(i) => match i32::try_from(i) {
                Ok(n) => (Self::TAG_INT32, n as u32),
                Err(_) => (Self::TAG_INT64, wide(i as u64)),
            },
            ArgValue::UInt(u) => match u32::try_from(u) {
                Ok(n) => (Self::TAG_UINT32, n),
                Err(_) => (Self::TAG_UINT64, wide(u)),
            },
            ArgValue::Float(f) => (Self::TAG_FLOAT, wide(f.to_bits())),
            ArgValue::Str(s) => (Self::TAG_STR, s.0),
            ArgValue::Json(s) => (Self::TAG_JSON, s.0),
        };
        self.keys.push(key);
        self.tags.push(tag);
        self.vals.push(val);
    }
    /// The value of entry `e` (`Null` when out of range or damaged).
    pub fn value(&self, e: usize) -> ArgValue {
        let (Some(&tag), Some(&v)) = (self.tags.get(e), self.vals.get(e)) else {
            return ArgValue::Null;
        };
        self.decode(tag, v)
    }
    /// A value from its tag and 32-bit part (`Null` when damaged).
    fn decode(&self, tag: u8, v: u32) -> ArgValue {
        let wide = || self.wide.get(v as usize).copied().unwrap_or(0);
        match tag {
            Self::TAG_BOOL => ArgValue::Bool(v != 0),
            Self::TAG_INT32 => ArgValue::Int(i64::from(v as i32)),
            Self::TAG_INT64 => ArgValue::Int(wide() as i64),
            Self::TAG_UINT32 => ArgValue::UInt(u64::from(v)),
            Self::TAG_UINT64 => ArgValue::UInt(wide()),
            Self::TAG_FLOAT => ArgValue::Float(f64::from_bits(wide())),
            Self::TAG_STR => ArgValue::Str(StrId(v)),
            Self::TAG_JSON => ArgValue::Json(StrId(v)),
            _ => ArgValue::Null,
        }
    }
    /// The entries set `id` holds itself (without its base's), as an entry range.
    pub fn own(&self, id: ArgsId) -> std::ops::Range<usize> {
        // `NONE` is u32::MAX: `i + 1` would overflow a 32-bit usize (wasm32), so test it first
        let i = id.0 as usize;
        match (id != ArgsId::NONE && !id.is_lazy() && !id.is_row())
            .then(|| (self.offsets.get(i), self.offsets.get(i + 1)))
        {
            Some((Some(&a), Some(&b))) if a <= b && (b as usize) <= self.keys.len() => a as usize..b as usize,
            _ => 0..0,
        }
    }
    /// The entries of set `id` it holds itself (without its base's).
    pub fn own_entries(&self, id: ArgsId) -> impl Iterator<Item = (StrId, ArgValue)> + '_ {
        let o = self.own_entries_of(id);
        (0..o.keys.len()).map(move |e| (o.keys[e], self.decode(o.tags[e], o.vals[e])))
    }
    /// Add a lazy set; `None` when the range does not fit a [`LazyArgs`] or the ids run out.
    pub fn push_lazy(&mut self, r: LazyArgs, ids: GpuIds) -> Option<ArgsId> {
        let i = u32::try_from(self.lazy.len()).ok().filter(|&i| i < ArgsId::LAZY_BIT - 1)?;
        self.lazy.push(r, ids)?;
        Some(ArgsId(ArgsId::LAZY_BIT | i))
    }
    /// The byte range of a lazy set.
    pub fn lazy_ref(&self, id: ArgsId) -> Option<LazyArgs> {
        if !id.is_lazy() {
            return None;
        }
        self.lazy.range((id.0 & !ArgsId::LAZY_BIT) as usize)
    }
    /// The typed ids of a lazy set (`None` for eager sets: read their args).
    pub fn gpu_ids(&self, id: ArgsId) -> Option<GpuIds> {
        if !id.is_lazy() {
            return None;
        }
        self.lazy.ids((id.0 & !ArgsId::LAZY_BIT) as usize)
    }
    /// Whether `id` names a set of this store.
    pub fn contains(&self, id: ArgsId) -> bool {
        if id.is_lazy() {
            ((id.0 & !ArgsId::LAZY_BIT) as usize) < self.lazy.len()
        } else if id.is_row() {
            self.row(id).is_some()
        } else {
            id.idx() < self.len()
        }
    }
    /// The entries of set `id`, its base's included (see "Based sets" above).
    pub fn get(&self, id: ArgsId) -> impl Iterator<Item = (StrId, ArgValue)> + '_ {
        let o = self.own_entries_of(id);
        let b = self.own_entries_of(self.base_of(id));
        let based = (0..b.keys.len()).map(move |j| {
            let k = b.keys[j];
            match o.keys.iter().position(|&x| x == k) {
                Some(p) => (k, self.decode(o.tags[p], o.vals[p])),
                None => (k, self.decode(b.tags[j], b.vals[j])),
            }
        });
        let own = (0..o.keys.len())
            .filter(move |&e| !b.keys.contains(&o.keys[e]))
            .map(move |e| (o.keys[e], self.decode(o.tags[e], o.vals[e])));
        based.chain(own)
    }
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 4
            + self.keys.capacity() * 4
            + self.tags.capacity()
            + self.vals.capacity() * 4
            + self.wide.capacity() * 8
            + self.lazy.heap_bytes()
            + self.bases.capacity() * 4
            + (self.form_base.capacity() + self.form_off.capacity() + self.form_keys.capacity()) * 4
            + self.form_tags.capacity()
            + self.rows.capacity() * 4
    }
}

/// Free-form key/value metadata of the trace (file header fields, versions, …).
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct Metadata {
    pub entries: Vec<(String, String)>,
}

/// A recognised iteration (e.g. Kineto `ProfilerStep#N`).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Iteration {
    pub number: i64,
    pub start_ns: i64,
    pub end_ns: i64,
}

/// The finished, immutable model.
#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
pub struct Trace {
    /// Importer name, e.g. "chrome-json".
    pub format: String,
    pub strings: StringTable,
    pub groups: Vec<Group>,
    pub tracks: Vec<Track>,
    pub counters: Vec<CounterTrack>,
    pub flows: Vec<Flow>,
    pub args: ArgStore,
    pub iterations: Vec<Iteration>,
    /// What the host categories are ([`HostWork`]), as the importer typed them; sorted by
    /// category, one entry each. Read with [`Trace::host_work_of`].
    pub host_work: Vec<(StrId, HostWork)>,
    pub metadata: Metadata,
    pub warnings: Warnings,
    /// The compiled program the trace ran, when one was loaded (e.g. a NEFF).
    pub program: Option<Program>,
    /// Report of the correlation pass (trace events → program), when one ran.
    pub correlation: Option<CorrelationReport>,
    /// Operator hierarchy referenced by the slices' `domain.operator`.
    pub operators: OperatorTree,
    /// Source locations referenced by the slices' `domain.source`.
    pub sources: Vec<SourceLoc>,
    /// Report tables a profiler exported (DLProf `--reports` CSVs), in file order.
    pub tables: Vec<DataTable>,
    /// Earliest and latest time of any event (0, 0 when empty).
    pub start_ns: i64,
    pub end_ns: i64,
}

impl Trace {
    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }
    /// What a host slice of category `category` is, when the importer typed it.
    pub fn host_work_of(&self, category: StrId) -> Option<HostWork> {
        self.host_work.binary_search_by_key(&category, |&(c, _)| c).ok().map(|i| self.host_work[i].1)
    }
    pub fn slice_count(&self) -> usize {
        self.tracks.iter().map(|t| t.slices.len()).sum()
    }
    pub fn instant_count(&self) -> usize {
        self.tracks.iter().map(|t| t.instants.len()).sum()
    }
    pub fn counter_sample_count(&self) -> usize {
        self.counters.iter().map(|c| c.ts_ns.len()).sum()
    }
    pub fn duration_ns(&self) -> i64 {
        self.end_ns - self.start_ns
    }
    pub fn track(&self, id: TrackId) -> &Track {
        &self.tracks[id.idx()]
    }
    /// Full display name of a track: "group / track".
    pub fn track_label(&self, id: TrackId) -> String {
        let t = self.track(id);
        let g = &self.groups[t.group.idx()];
        format!("{} / {}", self.str(g.name), self.str(t.name))
    }
    /// The operator attribution of the device group `track` belongs to
    /// ([`Attribution::Unstated`] for a group without device facts).
    pub fn attribution_of_track(&self, track: TrackId) -> Attribution {
        let g = self.tracks.get(track.idx()).map(|t| t.group.idx());
        g.and_then(|g| self.groups.get(g)?.device.as_ref()).map_or(Attribution::Unstated, |d| d.attribution)
    }
    /// Whether some device group's operator attribution is unverified (a NEFF whose UUID differs
    /// from the capture's): widgets then say so prominently and mark the fields.
    pub fn unverified_attribution(&self) -> bool {
        self.groups.iter().filter_map(|g| g.device.as_ref()).any(|d| d.attribution.is_unverified())
    }
    /// The first device group whose capture file is cut short, and how: summaries must not report
    /// the runtime's totals for it as if its events were there.
    pub fn incomplete_capture(&self) -> Option<(&Group, Incomplete)> {
        self.groups.iter().find_map(|g| Some((g, g.device.as_ref()?.incomplete?)))
    }
    /// Flows that start or end at `slice`.
    pub fn flows_of(&self, slice: SliceRef) -> impl Iterator<Item = &Flow> {
        self.flows.iter().filter(move |f| f.from == slice || f.to == slice)
    }
    /// Resident bytes of the model (columns, strings, args, LOD indexes).
    pub fn heap_bytes(&self) -> usize {
        let tracks: usize = self
            .tracks
            .iter()
            .map(|t| {
                t.slices.heap_bytes()
                    + t.lod.heap_bytes()
                    + t.instants.ts_ns.capacity() * 8
                    + t.instants.name.capacity() * 12
                    + std::mem::size_of::<Track>()
            })
            .sum();
        let counters: usize = self.counters.iter().map(|c| c.ts_ns.capacity() * 16).sum();
        tracks
            + counters
            + self.strings.heap_bytes()
            + self.args.heap_bytes()
            + self.flows.capacity() * std::mem::size_of::<Flow>()
            + self.tables.iter().map(DataTable::heap_bytes).sum::<usize>()
            + self.groups.iter().map(|g| g.tensor_flops.capacity() * 24).sum::<usize>()
    }
    /// Look up the arguments of a slice as (key, display value) pairs.
    pub fn args_display(&self, id: ArgsId) -> Vec<(String, String)> {
        self.args.get(id).map(|(k, v)| (self.str(k).to_string(), self.arg_to_string(v))).collect()
    }
    pub fn arg_to_string(&self, v: ArgValue) -> String {
        match v {
            ArgValue::Null => "null".into(),
            ArgValue::Bool(b) => b.to_string(),
            ArgValue::Int(i) => i.to_string(),
            ArgValue::UInt(i) => i.to_string(),
            ArgValue::Float(f) => f.to_string(),
            ArgValue::Str(s) | ArgValue::Json(s) => self.str(s).to_string(),
        }
    }
    /// Tracks in display order: groups by (sort_index, id), tracks within by (sort_index, id).
    pub fn ordered_groups(&self) -> Vec<GroupId> {
        let mut g: Vec<GroupId> = (0..self.groups.len() as u32).map(GroupId).collect();
        g.sort_by_key(|&id| (self.groups[id.idx()].sort_index, id.0));
        g
    }
}
