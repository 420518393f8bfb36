//! The model's columns and ids: a track's slices as columns (struct of arrays, depth-major), its
//! instants, and the index types. The level-of-detail index ([`crate::lod`]) reads these and
//! nothing else of the model, which is why they live apart from [`super::Trace`].

use super::domain::{DomainColumns, GpuWork, SliceDomain};
use crate::strings::StrId;

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode, serde::Serialize)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}
id_type!(/// Index of a [`Group`](super::Group) in [`Trace::groups`](super::Trace::groups).
    GroupId);
id_type!(/// Index of a [`Track`](super::Track) in [`Trace::tracks`](super::Trace::tracks).
    TrackId);
id_type!(/// Index of a [`CounterTrack`](super::CounterTrack) in [`Trace::counters`](super::Trace::counters).
    CounterId);
id_type!(/// Index of an argument set in [`ArgStore`](super::ArgStore). `ArgsId::NONE` = no arguments.
    ArgsId);

impl ArgsId {
    pub const NONE: ArgsId = ArgsId(u32::MAX);
    /// Set on the ids of lazy argument sets ([`ArgStore::lazy`](super::ArgStore::lazy)); the other bits index them.
    pub const LAZY_BIT: u32 = 1 << 31;

    /// Set (without [`Self::LAZY_BIT`]) on the ids of row sets ([`ArgStore::rows`](super::ArgStore::rows)); the other
    /// bits are the row's offset in `rows`. Plain sets are numbered below it.
    pub const ROW_BIT: u32 = 1 << 30;

    /// Whether the set is kept lazily (a byte range of the source file, not in memory).
    #[inline]
    pub fn is_lazy(self) -> bool {
        self != ArgsId::NONE && self.0 & ArgsId::LAZY_BIT != 0
    }
    /// Whether the set is a row set (a form's values, see [`ArgStore`](super::ArgStore)'s "Row sets").
    #[inline]
    pub fn is_row(self) -> bool {
        self.0 & (ArgsId::LAZY_BIT | ArgsId::ROW_BIT) == ArgsId::ROW_BIT
    }
}

#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct SliceColumns {
    pub start_ns: Vec<i64>,
    pub dur_ns: Vec<i64>,
    /// Names and categories as indexes into the track's distinct values ([`IdColumn`]: 1 or 2
    /// bytes a slice where 4 would be; `name[i]` reads like a `Vec<StrId>`).
    pub name: IdColumn,
    pub category: IdColumn,
    pub args: Vec<ArgsId>,
    /// `depth_starts[d]..depth_starts[d+1]` are the slices at depth d.
    pub depth_starts: Vec<u32>,
    /// Typed domain columns (opcode, operator, program slot, source, bytes), same order as the
    /// slices; `None` when no slice of the track has any.
    pub domain: Option<DomainColumns>,
}

impl SliceColumns {
    pub fn len(&self) -> usize {
        self.start_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start_ns.is_empty()
    }
    pub fn depth_count(&self) -> usize {
        self.depth_starts.len().saturating_sub(1)
    }
    pub fn depth_range(&self, depth: usize) -> std::ops::Range<usize> {
        match (self.depth_starts.get(depth), self.depth_starts.get(depth + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }
    pub fn depth_of(&self, index: usize) -> usize {
        self.depth_starts.partition_point(|&s| s as usize <= index).saturating_sub(1)
    }
    #[inline]
    pub fn end_ns(&self, i: usize) -> i64 {
        self.start_ns[i].saturating_add(self.dur_ns[i])
    }
    pub fn heap_bytes(&self) -> usize {
        self.start_ns.capacity() * 8
            + self.dur_ns.capacity() * 8
            + self.name.heap_bytes()
            + self.category.heap_bytes()
            + self.args.capacity() * 4
            + self.depth_starts.capacity() * 4
            + self.domain.as_ref().map_or(0, |d| d.heap_bytes())
    }
    /// The typed domain fields of slice `i` (all "none" when the track has no domain columns).
    pub fn domain_of(&self, i: usize) -> SliceDomain {
        self.domain.as_ref().map_or_else(SliceDomain::default, |d| d.get(i))
    }
    /// Slice `i`'s opcode (`StrId::EMPTY` = none); one field, without the whole [`SliceDomain`].
    #[inline]
    pub fn opcode_of(&self, i: usize) -> StrId {
        self.domain.as_ref().map_or(StrId::EMPTY, |d| d.opcode(i))
    }
    /// What slice `i` is on a GPU stream (`None` = not typed by the importer).
    #[inline]
    pub fn gpu_work_of(&self, i: usize) -> Option<GpuWork> {
        self.domain.as_ref().and_then(|d| d.gpu_work(i))
    }
    /// Slice `i`'s bytes (`u64::MAX` = none).
    #[inline]
    pub fn bytes_of(&self, i: usize) -> u64 {
        self.domain.as_ref().map_or(u64::MAX, |d| d.bytes(i))
    }
    /// Slice `i`'s picoseconds past its floored start and duration (0 = none).
    #[inline]
    pub fn sub_ps_of(&self, i: usize) -> (u16, u16) {
        self.domain.as_ref().map_or((0, 0), |d| d.sub_ps(i))
    }
    /// Slices at `depth` overlapping `[t0_ns, t1_ns)`, as an index range (binary search).
    pub fn range_at_depth(&self, depth: usize, t0_ns: i64, t1_ns: i64) -> std::ops::Range<usize> {
        let r = self.depth_range(depth);
        let s = &self.start_ns[r.clone()];
        let d = &self.dur_ns[r.clone()];
        // ends are sorted at one depth: first slice whose end is after t0
        let lo = partition(s.len(), |k| s[k].saturating_add(d[k]) <= t0_ns && !(d[k] == 0 && s[k] == t0_ns));
        let hi = lo + partition(s.len() - lo, |k| s[lo + k] < t1_ns);
        r.start + lo..r.start + hi
    }
    /// The deepest slice containing `t_ns` (for binding flows and hit tests).
    pub fn deepest_at(&self, t_ns: i64) -> Option<usize> {
        let mut found = None;
        for depth in 0..self.depth_count() {
            let r = self.depth_range(depth);
            let s = &self.start_ns[r.clone()];
            let k = partition(s.len(), |k| s[k] <= t_ns);
            if k == 0 {
                continue;
            }
            let i = r.start + k - 1;
            if t_ns <= self.end_ns(i) {
                found = Some(i);
            }
        }
        found
    }
}

/// A column of string ids kept as indexes into its distinct values: `narrow` (u8) when there are
/// at most 256 of them, else `mid` (u16) when at most 65 536, else the ids themselves in `wide`.
/// At most one of the three is non-empty; `table` lists the distinct values the indexes name.
/// Reads like a `Vec<StrId>` (`col[i]`, `len`, `iter`, `get`); it is built with
/// [`IdColumn::from`] (or [`IdColumn::push`], which widens it) and [`Trace::validate`](super::Trace::validate)
/// checks every index against the table.
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct IdColumn {
    pub table: Vec<StrId>,
    pub narrow: Vec<u8>,
    pub mid: Vec<u16>,
    pub wide: Vec<StrId>,
}

impl IdColumn {
    #[inline]
    pub fn len(&self) -> usize {
        self.narrow.len() + self.mid.len() + self.wide.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[inline]
    pub fn get(&self, i: usize) -> Option<&StrId> {
        (i < self.len()).then(|| &self[i])
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &StrId> + Clone + '_ {
        (0..self.len()).map(move |i| &self[i])
    }
    /// Keep the ids themselves (4 bytes each) from now on.
    fn widen(&mut self) {
        if self.wide.is_empty() && !(self.narrow.is_empty() && self.mid.is_empty()) {
            self.wide = self.iter().copied().collect();
            self.narrow = Vec::new();
            self.mid = Vec::new();
            self.table = Vec::new();
        }
    }
    /// Append `id` (the column is widened first if it was narrowed).
    pub fn push(&mut self, id: StrId) {
        self.widen();
        self.wide.push(id);
    }
    /// Replace the id at `i` (the column is widened first if it was narrowed).
    pub fn set(&mut self, i: usize, id: StrId) {
        self.widen();
        self.wide[i] = id;
    }
    /// Remove the last id.
    pub fn pop(&mut self) -> Option<StrId> {
        let last = self.len().checked_sub(1).map(|i| self[i])?;
        let _ = (self.narrow.pop(), self.mid.pop(), self.wide.pop());
        Some(last)
    }
    /// Whether every index is in the table and at most one width is in use.
    pub fn is_consistent(&self) -> bool {
        let used = [!self.narrow.is_empty(), !self.mid.is_empty(), !self.wide.is_empty()];
        let t = self.table.len();
        used.iter().filter(|&&u| u).count() <= 1
            && self.narrow.iter().all(|&k| usize::from(k) < t)
            && self.mid.iter().all(|&k| usize::from(k) < t)
    }
    pub fn heap_bytes(&self) -> usize {
        self.table.capacity() * 4
            + self.narrow.capacity()
            + self.mid.capacity() * 2
            + self.wide.capacity() * 4
    }
}

impl std::ops::Index<usize> for IdColumn {
    type Output = StrId;
    #[inline]
    fn index(&self, i: usize) -> &StrId {
        if let Some(&k) = self.narrow.get(i) {
            &self.table[usize::from(k)]
        } else if let Some(&k) = self.mid.get(i) {
            &self.table[usize::from(k)]
        } else {
            &self.wide[i]
        }
    }
}

impl PartialEq for IdColumn {
    fn eq(&self, other: &IdColumn) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<Vec<StrId>> for IdColumn {
    fn eq(&self, other: &Vec<StrId>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl From<Vec<StrId>> for IdColumn {
    /// Narrowed to the fewest bytes its distinct values allow.
    fn from(ids: Vec<StrId>) -> IdColumn {
        let mut index: crate::strings::FxHashMap<StrId, u32> = Default::default();
        let mut table = Vec::new();
        let mut last: Option<(StrId, u32)> = None;
        let mut idx: Vec<u16> = Vec::with_capacity(ids.len());
        for &id in &ids {
            let k = match last {
                Some((l, k)) if l == id => k,
                _ => {
                    let k = *index.entry(id).or_insert_with(|| {
                        table.push(id);
                        (table.len() - 1) as u32
                    });
                    if table.len() > 1 << 16 {
                        return IdColumn { wide: ids, ..Default::default() };
                    }
                    k
                }
            };
            last = Some((id, k));
            idx.push(k as u16);
        }
        if table.len() <= 1 << 8 {
            IdColumn { table, narrow: idx.into_iter().map(|k| k as u8).collect(), ..Default::default() }
        } else {
            IdColumn { table, mid: idx, ..Default::default() }
        }
    }
}

/// `slice::partition_point` over an index predicate.
#[inline]
pub(crate) fn partition(n: usize, mut pred: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct InstantColumns {
    pub ts_ns: Vec<i64>,
    pub name: Vec<StrId>,
    pub category: Vec<StrId>,
    pub args: Vec<ArgsId>,
}

impl InstantColumns {
    pub fn len(&self) -> usize {
        self.ts_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ts_ns.is_empty()
    }
    pub fn range(&self, t0_ns: i64, t1_ns: i64) -> std::ops::Range<usize> {
        let lo = self.ts_ns.partition_point(|&t| t < t0_ns);
        let hi = self.ts_ns.partition_point(|&t| t < t1_ns);
        lo..hi.max(lo)
    }
}
