//! The model's transfer encoding between the parser worker and the page (and in the page's model
//! cache): a small bincode *skeleton* plus the big columns as raw little-endian arrays, so the
//! receiver can decode it **in pieces of any size** (a few milliseconds each, between animation
//! frames) at close to memcpy speed, instead of one monolithic bincode decode that stalls the
//! page's main thread for the whole model (hundreds of milliseconds on a 1 GB trace).
//!
//! ```text
//! "LPWIRE08"  u64 skeleton length  skeleton (bincode: the Trace with the columns below emptied)
//! u64 column count  column count × (u8 kind, u64 elements)  the columns' raw bytes, in order
//! ```
//!
//! The columns are the model's per-slice, per-instant, per-sample, LOD, flow and argument-store vectors,
//! visited in one fixed order by [`for_each_column`] (the encoder takes them out in that order,
//! the decoder puts them back in the same order over the decoded skeleton). Anything not visited
//! simply stays in the skeleton, so the list only decides speed, never correctness. A decoded
//! model is untrusted bytes (the cache): every length is checked against the input before anything
//! is allocated, and the caller runs [`crate::Trace::validate`] on the result.

use crate::lod::LodIndex;
use crate::model::domain::{OpId, SourceId};
use crate::model::{ArgsId, Flow, IdColumn, SliceColumns, SliceRef, Trace, TrackId};
use crate::strings::StrId;

const MAGIC: &[u8; 8] = b"LPWIRE08";
/// Bytes before the skeleton: magic + skeleton length.
pub const PREFIX_BYTES: usize = 16;
const TABLE_ENTRY_BYTES: usize = 9;

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_fixed_int_encoding()
}

/// Why a transfer encoding could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// Not this encoding (another magic or version).
    NotWire,
    /// Shorter or longer than its header says.
    Length(String),
    /// The skeleton's bincode is damaged.
    Skeleton(String),
    /// The column table does not fit the skeleton (kind or count).
    Columns(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::NotWire => write!(f, "not a Loupe model transfer (wrong magic or version)"),
            WireError::Length(m) => write!(f, "model transfer has the wrong length: {m}"),
            WireError::Skeleton(m) => write!(f, "model transfer skeleton is damaged: {m}"),
            WireError::Columns(m) => write!(f, "model transfer columns do not fit: {m}"),
        }
    }
}

impl std::error::Error for WireError {}

/// A fixed-width column element, stored little-endian.
trait Raw: Copy {
    const SIZE: usize;
    /// Whether some byte patterns are not a value ([`Raw::try_get`] must be used).
    const CHECKED: bool = false;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
    /// `None` for bytes that are not a value (only where [`Raw::CHECKED`]).
    #[inline]
    fn try_get(b: &[u8]) -> Option<Self> {
        Some(Self::get(b))
    }
}

macro_rules! raw_num {
    ($($t:ty),*) => {$(
        impl Raw for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
raw_num!(i64, u64, u32, u16, f64);

macro_rules! raw_id {
    ($($t:ident),*) => {$(
        impl Raw for $t {
            const SIZE: usize = 4;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                self.0.put(out)
            }
            #[inline]
            fn get(b: &[u8]) -> Self {
                $t(u32::get(b))
            }
        }
    )*};
}
raw_id!(StrId, OpId, SourceId, ArgsId);

impl Raw for bool {
    const SIZE: usize = 1;
    #[inline]
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self))
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

impl Raw for Flow {
    const SIZE: usize = 24;
    #[inline]
    fn put(self, out: &mut Vec<u8>) {
        for v in
            [self.from.track.0, self.from.index, self.to.track.0, self.to.index, self.name.0, self.category.0]
        {
            v.put(out);
        }
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        let u = |k: usize| u32::get(&b[4 * k..4 * k + 4]);
        Flow {
            from: SliceRef { track: TrackId(u(0)), index: u(1) },
            to: SliceRef { track: TrackId(u(2)), index: u(3) },
            name: StrId(u(4)),
            category: StrId(u(5)),
        }
    }
}

/// A tag byte and eight payload bytes.
impl Raw for u8 {
    const SIZE: usize = 1;
    #[inline]
    fn put(self, out: &mut Vec<u8>) {
        out.push(self)
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        b[0]
    }
}

impl Raw for [i64; 2] {
    const SIZE: usize = 16;
    #[inline]
    fn put(self, out: &mut Vec<u8>) {
        self[0].put(out);
        self[1].put(out);
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        [i64::get(&b[..8]), i64::get(&b[8..])]
    }
}

macro_rules! columns {
    ($($var:ident($t:ty) = $kind:literal),* $(,)?) => {
        /// A borrowed column of the model.
        enum ColumnMut<'a> {
            $($var(&'a mut Vec<$t>),)*
        }
        /// A column taken out of (or decoded for) the model.
        enum Column {
            $($var(Vec<$t>),)*
        }
        impl ColumnMut<'_> {
            fn take(self) -> Column {
                match self {
                    $(ColumnMut::$var(v) => Column::$var(std::mem::take(v)),)*
                }
            }
            fn kind(&self) -> u8 {
                match self {
                    $(ColumnMut::$var(_) => $kind,)*
                }
            }
            /// Move `col` in; `Err(col)` back when its kind differs.
            fn put_back(self, col: Column) -> Result<(), Column> {
                match (self, col) {
                    $((ColumnMut::$var(v), Column::$var(c)) => {
                        *v = c;
                        Ok(())
                    })*
                    (_, col) => Err(col),
                }
            }
        }
        impl Column {
            fn kind(&self) -> u8 {
                match self {
                    $(Column::$var(_) => $kind,)*
                }
            }
            fn len(&self) -> usize {
                match self {
                    $(Column::$var(v) => v.len(),)*
                }
            }
            fn elem_size(kind: u8) -> Option<usize> {
                match kind {
                    $($kind => Some(<$t as Raw>::SIZE),)*
                    _ => None,
                }
            }
            fn with_capacity(kind: u8, n: usize) -> Option<Column> {
                match kind {
                    $($kind => Some(Column::$var(Vec::with_capacity(n))),)*
                    _ => None,
                }
            }
            /// Append the bytes of elements `r` (clamped to the column).
            fn write(&self, out: &mut Vec<u8>, r: std::ops::Range<usize>) {
                match self {
                    $(Column::$var(v) => {
                        let v = &v[r.start.min(v.len())..r.end.min(v.len())];
                        out.reserve(v.len() * <$t as Raw>::SIZE);
                        for &x in v {
                            x.put(out);
                        }
                    })*
                }
            }
            /// Append the whole elements in `bytes` (a multiple of the element size); `false` when
            /// some element's bytes are not a value.
            fn extend(&mut self, bytes: &[u8]) -> bool {
                match self {
                    $(Column::$var(v) => {
                        let items = bytes.chunks_exact(<$t as Raw>::SIZE);
                        if <$t as Raw>::CHECKED {
                            v.reserve(items.len());
                            for b in items {
                                match <$t as Raw>::try_get(b) {
                                    Some(x) => v.push(x),
                                    None => return false,
                                }
                            }
                        } else {
                            v.extend(items.map(<$t as Raw>::get));
                        }
                        true
                    })*
                }
            }
        }
    };
}

columns! {
    I64(i64) = 1,
    U64(u64) = 2,
    U32(u32) = 3,
    U16(u16) = 4,
    F64(f64) = 5,
    Bool(bool) = 6,
    Str(StrId) = 7,
    Op(OpId) = 8,
    Src(SourceId) = 9,
    Args(ArgsId) = 10,
    I64x2([i64; 2]) = 11,
    Flows(Flow) = 12,
    U8(u8) = 13,
}

fn id_column<'a>(c: &'a mut IdColumn, f: &mut dyn FnMut(ColumnMut<'a>)) {
    f(ColumnMut::Str(&mut c.table));
    f(ColumnMut::U8(&mut c.narrow));
    f(ColumnMut::U16(&mut c.mid));
    f(ColumnMut::Str(&mut c.wide));
}

fn slice_columns<'a>(s: &'a mut SliceColumns, f: &mut dyn FnMut(ColumnMut<'a>)) {
    f(ColumnMut::I64(&mut s.start_ns));
    f(ColumnMut::U32(&mut s.dur_ns.narrow));
    f(ColumnMut::I64x2(&mut s.dur_ns.wide));
    id_column(&mut s.name, f);
    id_column(&mut s.category, f);
    f(ColumnMut::Args(&mut s.args));
    f(ColumnMut::U32(&mut s.depth_starts));
    if let Some(d) = s.domain.as_mut() {
        f(ColumnMut::U32(&mut d.shape));
        f(ColumnMut::U64(&mut d.bytes));
        f(ColumnMut::U16(&mut d.start_sub_ps));
        f(ColumnMut::U16(&mut d.dur_sub_ps));
        let sh = &mut d.shapes;
        f(ColumnMut::Str(&mut sh.opcode));
        f(ColumnMut::Op(&mut sh.operator));
        f(ColumnMut::U32(&mut sh.instruction));
        f(ColumnMut::U32(&mut sh.pc));
        f(ColumnMut::Src(&mut sh.source));
        f(ColumnMut::U64(&mut sh.flops));
        f(ColumnMut::Bool(&mut sh.transpose));
        f(ColumnMut::U8(&mut sh.gpu_work));
    }
}

fn lod_columns<'a>(l: &'a mut LodIndex, f: &mut dyn FnMut(ColumnMut<'a>)) {
    for level in l.depths.iter_mut().flatten() {
        f(ColumnMut::U32(level));
    }
    for level in l.gaps.iter_mut().flatten() {
        f(ColumnMut::I64(level));
    }
}

/// Every big column of `trace`, in the one order both sides use. It depends only on the
/// skeleton's shape (track count, domain columns present, LOD levels), which survives emptying.
fn for_each_column<'a>(trace: &'a mut Trace, f: &mut dyn FnMut(ColumnMut<'a>)) {
    for t in &mut trace.tracks {
        slice_columns(&mut t.slices, f);
        f(ColumnMut::I64(&mut t.instants.ts_ns));
        f(ColumnMut::Str(&mut t.instants.name));
        f(ColumnMut::Str(&mut t.instants.category));
        f(ColumnMut::Args(&mut t.instants.args));
        lod_columns(&mut t.lod, f);
    }
    for c in &mut trace.counters {
        f(ColumnMut::I64(&mut c.ts_ns));
        f(ColumnMut::F64(&mut c.value));
    }
    f(ColumnMut::Flows(&mut trace.flows));
    f(ColumnMut::U32(&mut trace.args.offsets));
    f(ColumnMut::Str(&mut trace.args.keys));
    f(ColumnMut::U8(&mut trace.args.tags));
    f(ColumnMut::U32(&mut trace.args.vals));
    f(ColumnMut::U64(&mut trace.args.wide));
    let lazy = &mut trace.args.lazy;
    f(ColumnMut::U32(&mut lazy.lo));
    f(ColumnMut::U16(&mut lazy.len));
    f(ColumnMut::U64(&mut lazy.runs));
    f(ColumnMut::U8(&mut lazy.stream));
    f(ColumnMut::I64(&mut lazy.streams));
    f(ColumnMut::I64x2(&mut lazy.stream_wide));
    f(ColumnMut::U32(&mut lazy.corr));
    f(ColumnMut::I64x2(&mut lazy.corr_wide));
    f(ColumnMut::U32(&mut trace.args.bases));
    f(ColumnMut::U32(&mut trace.args.form_base));
    f(ColumnMut::U32(&mut trace.args.form_off));
    f(ColumnMut::Str(&mut trace.args.form_keys));
    f(ColumnMut::U8(&mut trace.args.form_tags));
    f(ColumnMut::U32(&mut trace.args.rows));
}

/// Where [`encode_to`] writes the encoding: told its total length first, then given it front to
/// back, a piece at a time. A `Vec<u8>` is one; the parser worker's is a JavaScript buffer outside
/// wasm memory, so the worker never holds the model and its whole encoding at once.
pub trait Sink {
    /// The encoding's length, before any piece.
    fn begin(&mut self, total_bytes: usize);
    /// The next piece: `write` appends it to the `Vec` it is given (this sink's own, or a scratch
    /// buffer the sink then copies out and clears).
    fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>));
}

impl Sink for Vec<u8> {
    fn begin(&mut self, total_bytes: usize) {
        self.reserve_exact(total_bytes);
    }
    fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
        write(self);
    }
}

/// The most bytes [`encode_to`] gives a [`Sink`] in one piece of a column.
const PIECE_BYTES: usize = 4 << 20;

/// Encode `trace` (consumed: its columns are moved, not copied, before being written).
pub fn encode(trace: Trace) -> Result<Vec<u8>, WireError> {
    let mut out = Vec::new();
    encode_to(trace, &mut out)?;
    Ok(out)
}

/// [`encode`] into any [`Sink`]: the header, then each column in pieces of at most 4 MiB, each
/// column freed once written (with a scratch-buffer sink the peak is the model plus 4 MiB).
pub fn encode_to(mut trace: Trace, sink: &mut dyn Sink) -> Result<(), WireError> {
    let mut cols = Vec::new();
    for_each_column(&mut trace, &mut |c| cols.push(c.take()));
    let skeleton =
        bincode::encode_to_vec(&trace, bincode_config()).map_err(|e| WireError::Skeleton(e.to_string()))?;
    drop(trace);
    let data: usize = cols.iter().map(|c| c.len() * Column::elem_size(c.kind()).unwrap_or(0)).sum();
    let head_len = PREFIX_BYTES + skeleton.len() + 8 + cols.len() * TABLE_ENTRY_BYTES;
    sink.begin(head_len + data);
    sink.put(&mut |out| {
        out.extend_from_slice(MAGIC);
        (skeleton.len() as u64).put(out);
        out.extend_from_slice(&skeleton);
        (cols.len() as u64).put(out);
        for c in &cols {
            out.push(c.kind());
            (c.len() as u64).put(out);
        }
    });
    drop(skeleton);
    // front to back, each column dropped as soon as it is written, in pieces of at most
    // PIECE_BYTES (a scratch-buffer sink then never holds more, nor regrows for a big column)
    cols.reverse();
    while let Some(c) = cols.pop() {
        let per = PIECE_BYTES / Column::elem_size(c.kind()).unwrap_or(1).max(1);
        let mut at = 0;
        while at < c.len() {
            let end = at.saturating_add(per).min(c.len());
            sink.put(&mut |out| c.write(out, at..end));
            at = end;
        }
    }
    Ok(())
}

/// Whether `bytes` start like this encoding.
pub fn is_wire(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The header's length (prefix, skeleton and column table) from the first [`PREFIX_BYTES`]; the
/// column table's own length is read by [`Decoder::new`], so this is the length up to the table's
/// count: read that many bytes + 8, then call [`Decoder::table_bytes`].
pub fn skeleton_end(prefix: &[u8]) -> Result<usize, WireError> {
    if prefix.len() < PREFIX_BYTES || !is_wire(prefix) {
        return Err(WireError::NotWire);
    }
    let n = u64::get(&prefix[8..16]);
    usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_add(PREFIX_BYTES))
        .ok_or_else(|| WireError::Length(format!("skeleton of {n} bytes")))
}

/// bincode with a memory limit scaled to the skeleton: a lying length can make the decoder
/// reserve at most some times the input, never gigabytes for a small one.
fn decode_skeleton(skel: &[u8]) -> Result<Trace, WireError> {
    const MIB: usize = 1 << 20;
    match skel.len() {
        n if n <= 4 * MIB => decode_limited::<{ 64 * MIB }>(skel),
        n if n <= 64 * MIB => decode_limited::<{ 512 * MIB }>(skel),
        _ => decode_limited::<{ 3072 * MIB }>(skel),
    }
}

fn decode_limited<const LIMIT: usize>(skel: &[u8]) -> Result<Trace, WireError> {
    let cfg = bincode::config::standard().with_fixed_int_encoding().with_limit::<LIMIT>();
    let (t, used) =
        bincode::decode_from_slice::<Trace, _>(skel, cfg).map_err(|e| WireError::Skeleton(e.to_string()))?;
    if used != skel.len() {
        return Err(WireError::Skeleton(format!("{} trailing bytes", skel.len() - used)));
    }
    Ok(t)
}

/// Decodes a transfer in pieces: the header first ([`Decoder::new`]), then the columns' raw bytes
/// fed in chunks of any size ([`Decoder::feed`]), then [`Decoder::finish`].
pub struct Decoder {
    skeleton: Trace,
    /// (kind, elements) per column, from the table.
    table: Vec<(u8, usize)>,
    done: Vec<Column>,
    current: Option<Column>,
    /// Bytes still owed to the current column.
    current_left: usize,
    /// A partial element carried between two chunks.
    carry: Vec<u8>,
    data_left: u64,
}

impl Decoder {
    /// The number of bytes of the column table whose count is the 8 bytes at `skeleton_end`.
    pub fn table_bytes(count_bytes: &[u8]) -> Result<usize, WireError> {
        if count_bytes.len() < 8 {
            return Err(WireError::Length("column count cut".into()));
        }
        let n = u64::get(&count_bytes[..8]);
        usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(TABLE_ENTRY_BYTES))
            .and_then(|b| b.checked_add(8))
            .ok_or_else(|| WireError::Length(format!("{n} columns")))
    }

    /// `header`: the bytes from the start through the column table; `total_len`: the whole
    /// transfer's length (the columns' bytes must add up to exactly the rest).
    pub fn new(header: &[u8], total_len: u64) -> Result<Decoder, WireError> {
        let skel_end = skeleton_end(header)?;
        let skel =
            header.get(PREFIX_BYTES..skel_end).ok_or_else(|| WireError::Length("skeleton cut".into()))?;
        let table_len = Decoder::table_bytes(&header[skel_end.min(header.len())..])?;
        let table = header
            .get(skel_end + 8..skel_end + table_len)
            .ok_or_else(|| WireError::Length("column table cut".into()))?;
        let header_len = skel_end + table_len;
        let mut skeleton = decode_skeleton(skel)?;
        let mut data: u64 = 0;
        let mut entries = Vec::with_capacity(table.len() / TABLE_ENTRY_BYTES);
        for e in table.chunks_exact(TABLE_ENTRY_BYTES) {
            let kind = e[0];
            let size =
                Column::elem_size(kind).ok_or_else(|| WireError::Columns(format!("unknown kind {kind}")))?;
            let n = u64::get(&e[1..]);
            let bytes = n
                .checked_mul(size as u64)
                .and_then(|b| data.checked_add(b))
                .ok_or_else(|| WireError::Length(format!("column of {n} elements")))?;
            data = bytes;
            entries.push((kind, n));
        }
        let body = total_len.checked_sub(header_len as u64);
        if body != Some(data) {
            return Err(WireError::Length(format!(
                "{total_len} bytes for a {header_len}-byte header and {data} bytes of columns"
            )));
        }
        // the table must fit the skeleton's shape, kind by kind
        let mut kinds = Vec::with_capacity(entries.len());
        for_each_column(&mut skeleton, &mut |c| kinds.push(c.kind()));
        if kinds.len() != entries.len() || kinds.iter().zip(&entries).any(|(k, e)| *k != e.0) {
            return Err(WireError::Columns(format!(
                "{} columns in the table, {} in the skeleton",
                entries.len(),
                kinds.len()
            )));
        }
        // every length is now bounded by the real input, so allocating it is safe
        let table = entries.into_iter().map(|(k, n)| (k, n as usize)).collect();
        let mut d = Decoder {
            skeleton,
            table,
            done: Vec::new(),
            current: None,
            current_left: 0,
            carry: Vec::new(),
            data_left: data,
        };
        d.next_column();
        Ok(d)
    }

    fn next_column(&mut self) {
        while self.current_left == 0 {
            if let Some(c) = self.current.take() {
                self.done.push(c);
            }
            let Some(&(kind, n)) = self.table.get(self.done.len()) else { return };
            self.current = Column::with_capacity(kind, n);
            self.current_left = n * Column::elem_size(kind).unwrap_or(1);
        }
    }

    /// Column bytes still expected.
    pub fn remaining(&self) -> u64 {
        self.data_left
    }

    /// Feed the next `bytes` of column data (any chunking).
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<(), WireError> {
        if bytes.len() as u64 > self.data_left {
            return Err(WireError::Length("more column bytes than the table says".into()));
        }
        self.data_left -= bytes.len() as u64;
        while !bytes.is_empty() {
            let Some(col) = self.current.as_mut() else {
                return Err(WireError::Length("column bytes after the last column".into()));
            };
            let size = Column::elem_size(col.kind()).unwrap_or(1);
            let take = bytes.len().min(self.current_left);
            let (mut part, rest) = bytes.split_at(take);
            bytes = rest;
            self.current_left -= take;
            if !self.carry.is_empty() {
                let need = (size - self.carry.len()).min(part.len());
                self.carry.extend_from_slice(&part[..need]);
                part = &part[need..];
                if self.carry.len() == size {
                    if !col.extend(&self.carry) {
                        return Err(bad_value());
                    }
                    self.carry.clear();
                }
            }
            let whole = part.len() / size * size;
            if !col.extend(&part[..whole]) {
                return Err(bad_value());
            }
            self.carry.extend_from_slice(&part[whole..]);
            if self.current_left == 0 {
                self.next_column();
            }
        }
        Ok(())
    }

    /// The model, once every column byte has been fed.
    pub fn finish(mut self) -> Result<Trace, WireError> {
        if self.data_left != 0 || self.current.is_some() {
            return Err(WireError::Length(format!("{} column bytes missing", self.data_left)));
        }
        let mut cols = std::mem::take(&mut self.done).into_iter();
        let mut mismatch = false;
        for_each_column(&mut self.skeleton, &mut |slot| match cols.next() {
            Some(c) => mismatch |= slot.put_back(c).is_err(),
            None => mismatch = true,
        });
        if mismatch || cols.next().is_some() {
            return Err(WireError::Columns("columns do not match the skeleton".into()));
        }
        Ok(self.skeleton)
    }
}

fn bad_value() -> WireError {
    WireError::Columns("a value that no type has".into())
}

/// Decode a whole transfer at once (tests, the CLI, the in-thread loader).
pub fn decode(bytes: &[u8]) -> Result<Trace, WireError> {
    let skel_end = skeleton_end(bytes)?;
    let table = Decoder::table_bytes(bytes.get(skel_end..).unwrap_or(&[]))?;
    let header_len = skel_end.checked_add(table).ok_or_else(|| WireError::Length("header".into()))?;
    let header = bytes.get(..header_len).ok_or_else(|| WireError::Length("header cut".into()))?;
    let mut d = Decoder::new(header, bytes.len() as u64)?;
    d.feed(&bytes[header_len..])?;
    d.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trace {
        crate::demo::demo_trace()
    }

    fn same(a: &Trace, b: &Trace) {
        let ea = bincode::encode_to_vec(a, bincode_config()).unwrap();
        let eb = bincode::encode_to_vec(b, bincode_config()).unwrap();
        assert!(ea == eb, "models differ after the round trip");
    }

    /// A sink that keeps every piece's length.
    #[derive(Default)]
    struct Pieces {
        bytes: Vec<u8>,
        lens: Vec<usize>,
    }
    impl Sink for Pieces {
        fn begin(&mut self, _total_bytes: usize) {}
        fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
            let before = self.bytes.len();
            write(&mut self.bytes);
            self.lens.push(self.bytes.len() - before);
        }
    }

    #[test]
    fn columns_reach_the_sink_in_bounded_pieces() {
        // 600 k slices: a start column of 4.8 MB, more than one piece
        let t = crate::model::synth::nested_trace(600_000, 1, 1);
        let mut p = Pieces::default();
        encode_to(t.clone(), &mut p).unwrap();
        assert!(p.lens[1..].iter().all(|&n| n <= PIECE_BYTES), "a piece over {PIECE_BYTES} bytes");
        assert!(p.lens[1..].contains(&PIECE_BYTES), "some column was cut");
        assert_eq!(p.bytes, encode(t.clone()).unwrap());
        same(&t, &decode(&p.bytes).unwrap());
    }

    #[test]
    fn round_trip_whole_and_in_every_chunking() {
        let t = sample();
        assert!(t.slice_count() > 0);
        let bytes = encode(t.clone()).unwrap();
        same(&t, &decode(&bytes).unwrap());
        let skel_end = skeleton_end(&bytes).unwrap();
        let header_len = skel_end + Decoder::table_bytes(&bytes[skel_end..]).unwrap();
        for chunk in [1usize, 3, 7, 8, 13, 4096] {
            let mut d = Decoder::new(&bytes[..header_len], bytes.len() as u64).unwrap();
            for c in bytes[header_len..].chunks(chunk) {
                d.feed(c).unwrap();
            }
            assert_eq!(d.remaining(), 0);
            let back = d.finish().unwrap();
            back.validate().unwrap();
            same(&t, &back);
        }
    }

    #[test]
    fn round_trip_of_a_deep_lod_and_domain_columns() {
        // many slices per depth: several LOD levels; the demo's Neuron-like tracks: domain columns
        let t = crate::demo::large_demo(40_000, &mut |_, _| {});
        assert!(t.tracks.iter().any(|t| t.lod.depths.iter().any(|d| d.len() > 1)));
        let back = decode(&encode(t.clone()).unwrap()).unwrap();
        back.validate().unwrap();
        same(&t, &back);
        let d = sample();
        assert!(d.tracks.iter().any(|t| t.slices.domain.is_some()), "the demo has no domain columns");
    }

    /// A sink like the worker's: a buffer of the announced length, filled from a scratch `Vec`.
    #[test]
    fn a_scratch_sink_gets_the_same_bytes() {
        struct Scratch {
            out: Vec<u8>,
            total: usize,
            scratch: Vec<u8>,
            pieces: usize,
        }
        impl Sink for Scratch {
            fn begin(&mut self, total_bytes: usize) {
                self.total = total_bytes;
            }
            fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
                write(&mut self.scratch);
                self.out.extend_from_slice(&self.scratch);
                self.scratch.clear();
                self.pieces += 1;
            }
        }
        let t = crate::demo::large_demo(20_000, &mut |_, _| {});
        let whole = encode(t.clone()).unwrap();
        let mut s = Scratch { out: Vec::new(), total: 0, scratch: Vec::new(), pieces: 0 };
        encode_to(t, &mut s).unwrap();
        assert_eq!(s.total, whole.len());
        assert!(s.out == whole, "the pieces differ from the whole encoding");
        assert!(s.pieces > 10, "one piece per column: {}", s.pieces);
    }

    #[test]
    fn columns_carry_most_of_the_model() {
        let t = sample();
        let bytes = encode(t).unwrap();
        let skel = skeleton_end(&bytes).unwrap();
        // the demo is small, but the per-slice columns should still be the bulk
        assert!(skel * 2 < bytes.len(), "skeleton {skel} of {} bytes", bytes.len());
    }

    #[test]
    fn damaged_transfers_are_typed_errors() {
        let bytes = encode(sample()).unwrap();
        assert_eq!(decode(b"nope").err(), Some(WireError::NotWire));
        assert!(matches!(decode(&bytes[..bytes.len() - 1]), Err(WireError::Length(_))));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(decode(&longer), Err(WireError::Length(_))));
        // every cut and a flipped byte at many offsets: an error or a model, never a panic
        for cut in (0..bytes.len()).step_by(bytes.len() / 61 + 1) {
            let _ = decode(&bytes[..cut]);
            let mut b = bytes.clone();
            b[cut] ^= 0xA5;
            if let Ok(t) = decode(&b) {
                let _ = t.validate();
            }
        }
        // a huge element count is refused before anything is allocated
        let skel_end = skeleton_end(&bytes).unwrap();
        let mut b = bytes.clone();
        b[skel_end + 8 + 1..skel_end + 8 + 9].copy_from_slice(&(u64::MAX / 4).to_le_bytes());
        assert!(matches!(decode(&b), Err(WireError::Length(_))));
    }
}
