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
    /// Durations as u32 with the few that do not fit kept exactly aside ([`DurColumn`]; read with
    /// `dur_ns.at(i)`).
    pub dur_ns: DurColumn,
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
        self.start_ns[i].saturating_add(self.dur_ns.at(i))
    }
    pub fn heap_bytes(&self) -> usize {
        self.start_ns.capacity() * 8
            + self.dur_ns.heap_bytes()
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
        let d = |k: usize| self.dur_ns.at(r.start + k);
        // ends are sorted at one depth: first slice whose end is after t0
        let lo = partition(s.len(), |k| s[k].saturating_add(d(k)) <= t0_ns && !(d(k) == 0 && s[k] == t0_ns));
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

/// Slice durations in 4 bytes each: `narrow[i]` is the duration when it is in `0..u32::MAX`
/// (4.29 s), else [`DurColumn::WIDE`], and the duration itself is in `wide` as `[i, duration]`,
/// sorted by `i`. Every i64 reads back exactly ([`DurColumn::at`]); a marker without its entry
/// (damage, which [`Trace::validate`](super::Trace::validate) refuses) reads as 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DurColumn {
    pub narrow: Vec<u32>,
    pub wide: Vec<[i64; 2]>,
}

impl DurColumn {
    pub const WIDE: u32 = u32::MAX;

    #[inline]
    pub fn len(&self) -> usize {
        self.narrow.len()
    }
    pub fn is_empty(&self) -> bool {
        self.narrow.is_empty()
    }
    /// Duration `i` (panics when out of range, as indexing a `Vec` does).
    #[inline]
    pub fn at(&self, i: usize) -> i64 {
        let d = self.narrow[i];
        if d != Self::WIDE {
            i64::from(d)
        } else {
            self.wide_at(i)
        }
    }
    #[cold]
    fn wide_at(&self, i: usize) -> i64 {
        self.wide.binary_search_by_key(&(i as i64), |e| e[0]).map_or(0, |k| self.wide[k][1])
    }
    #[inline]
    pub fn get(&self, i: usize) -> Option<i64> {
        (i < self.len()).then(|| self.at(i))
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = i64> + Clone + '_ {
        (0..self.len()).map(move |i| self.at(i))
    }
    /// Durations `r` (clamped to the column).
    pub fn iter_range(&self, r: std::ops::Range<usize>) -> impl ExactSizeIterator<Item = i64> + Clone + '_ {
        (r.start.min(self.len())..r.end.min(self.len())).map(move |i| self.at(i))
    }
    pub fn to_vec(&self) -> Vec<i64> {
        self.iter().collect()
    }
    pub fn reserve(&mut self, n: usize) {
        self.narrow.reserve(n);
    }
    pub fn push(&mut self, d: i64) {
        match u32::try_from(d).ok().filter(|&n| n != Self::WIDE) {
            Some(n) => self.narrow.push(n),
            None => {
                self.wide.push([self.narrow.len() as i64, d]);
                self.narrow.push(Self::WIDE);
            }
        }
    }
    /// Replace duration `i`.
    pub fn set(&mut self, i: usize, d: i64) {
        if let Ok(k) = self.wide.binary_search_by_key(&(i as i64), |e| e[0]) {
            self.wide.remove(k);
        }
        match u32::try_from(d).ok().filter(|&n| n != Self::WIDE) {
            Some(n) => self.narrow[i] = n,
            None => {
                let k = self.wide.partition_point(|e| e[0] < i as i64);
                self.wide.insert(k, [i as i64, d]);
                self.narrow[i] = Self::WIDE;
            }
        }
    }
    pub fn pop(&mut self) -> Option<i64> {
        let last = self.len().checked_sub(1).map(|i| self.at(i))?;
        if self.narrow.pop() == Some(Self::WIDE) {
            self.wide.pop();
        }
        Some(last)
    }
    pub fn shrink_to_fit(&mut self) {
        self.narrow.shrink_to_fit();
        self.wide.shrink_to_fit();
    }
    /// Whether the wide entries are sorted, in range and exactly one per marker.
    pub fn is_consistent(&self) -> bool {
        let n = self.narrow.len();
        self.wide.windows(2).all(|w| w[0][0] < w[1][0])
            && self.wide.iter().all(|e| {
                usize::try_from(e[0]).ok().filter(|&i| i < n).is_some_and(|i| self.narrow[i] == Self::WIDE)
            })
            && self.narrow.iter().filter(|&&d| d == Self::WIDE).count() == self.wide.len()
    }
    pub fn heap_bytes(&self) -> usize {
        self.narrow.capacity() * 4 + self.wide.capacity() * 16
    }
}

impl PartialEq<Vec<i64>> for DurColumn {
    fn eq(&self, other: &Vec<i64>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl From<Vec<i64>> for DurColumn {
    fn from(v: Vec<i64>) -> DurColumn {
        let mut c = DurColumn { narrow: Vec::with_capacity(v.len()), wide: Vec::new() };
        for d in v {
            c.push(d);
        }
        c
    }
}

impl FromIterator<i64> for DurColumn {
    fn from_iter<I: IntoIterator<Item = i64>>(it: I) -> DurColumn {
        let mut c = DurColumn::default();
        for d in it {
            c.push(d);
        }
        c
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
