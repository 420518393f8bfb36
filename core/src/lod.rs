//! Level-of-detail index and viewport query.
//!
//! At one depth of a track, slices are disjoint and sorted, so the slices overlapping a window are
//! one index range found by binary search. What remains is to avoid emitting millions of
//! sub-pixel slices: [`query`] merges runs of narrow slices separated by less than a pixel, and
//! finds where each run ends without visiting its slices, using two block-maximum trees
//! ([`LodIndex`]), the segment-forest idea from Perfetto/gigatrace at a coarser grain: for every
//! 32 consecutive slices of a depth, the index of the longest slice (a merged block is shown with
//! its longest slice's name/colour; a run stops before a slice wide enough to draw on its own) and
//! the largest gap to the next slice (a run stops at its first gap of at least a pixel); then the
//! same over those, and so on (≈ 0.39 bytes per slice together). A frame costs
//! O(drawn items × log n), independent of how many slices are in view.

use crate::model::columns::SliceColumns;

const FANOUT: usize = 32;

#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct LodIndex {
    /// Per depth, levels of "index of the longest slice" per block of FANOUT^(level+1) slices.
    pub depths: Vec<Vec<Vec<u32>>>,
    /// Per depth, levels of "largest gap" per block of FANOUT^(level+1) slices, where the gap after
    /// slice k is `start[k+1] - end[k]` (i64::MAX after the last slice of the depth). Lets a merged
    /// block jump straight to its end: it ends at the first gap of at least a pixel.
    pub gaps: Vec<Vec<Vec<i64>>>,
}

impl LodIndex {
    pub fn build(cols: &SliceColumns) -> LodIndex {
        let mut depths = Vec::with_capacity(cols.depth_count());
        let mut gaps = Vec::with_capacity(cols.depth_count());
        for d in 0..cols.depth_count() {
            let r = cols.depth_range(d);
            let mut levels: Vec<Vec<u32>> = Vec::new();
            // level 0 over slices
            let mut cur: Vec<u32> = r
                .clone()
                .step_by(FANOUT)
                .map(|b| {
                    let e = (b + FANOUT).min(r.end);
                    longest_linear(cols, b..e) as u32
                })
                .collect();
            while cur.len() > 1 {
                let next: Vec<u32> = cur
                    .chunks(FANOUT)
                    .map(|c| {
                        *c.iter()
                            .max_by_key(|&&i| (cols.dur_ns.at(i as usize), std::cmp::Reverse(i)))
                            .unwrap_or(&c[0])
                    })
                    .collect();
                levels.push(cur);
                cur = next;
            }
            levels.push(cur);
            depths.push(levels);
            // gap levels
            let mut glevels: Vec<Vec<i64>> = Vec::new();
            let mut cur: Vec<i64> = r
                .clone()
                .step_by(FANOUT)
                .map(|b| {
                    (b..(b + FANOUT).min(r.end)).map(|k| gap_after(cols, r.end, k)).max().unwrap_or(i64::MAX)
                })
                .collect();
            while cur.len() > 1 {
                let next: Vec<i64> =
                    cur.chunks(FANOUT).map(|c| c.iter().copied().max().unwrap_or(i64::MAX)).collect();
                glevels.push(cur);
                cur = next;
            }
            glevels.push(cur);
            gaps.push(glevels);
        }
        LodIndex { depths, gaps }
    }

    pub fn heap_bytes(&self) -> usize {
        self.depths.iter().flat_map(|l| l.iter()).map(|v| v.capacity() * 4).sum::<usize>()
            + self.gaps.iter().flat_map(|l| l.iter()).map(|v| v.capacity() * 8).sum::<usize>()
            + (self.depths.capacity() + self.gaps.capacity()) * 24
    }

    /// Index of the longest slice in `range` (absolute indexes, all at `depth`).
    #[allow(clippy::needless_range_loop)] // `e` indexes raw slices or a level, chosen per step
    pub fn longest(&self, cols: &SliceColumns, depth: usize, range: std::ops::Range<usize>) -> Option<usize> {
        if range.is_empty() {
            return None;
        }
        let base = cols.depth_range(depth).start;
        let levels = self.depths.get(depth)?;
        let mut best: Option<usize> = None;
        let consider = |i: usize, best: &mut Option<usize>| {
            if best.is_none_or(|b| cols.dur_ns.at(i) > cols.dur_ns.at(b)) {
                *best = Some(i);
            }
        };
        // work in depth-relative coordinates
        let (mut lo, mut hi) = (range.start - base, range.end - base);
        let mut level: isize = -1; // -1 = raw slices
        let mut unit = 1usize; // slices per element at this level
        loop {
            let block = FANOUT;
            if hi - lo <= 2 * block || (level + 1) as usize >= levels.len() {
                for e in lo..hi {
                    let i = if level < 0 { base + e } else { levels[level as usize][e] as usize };
                    consider(i, &mut best);
                }
                return best;
            }
            // partial head and tail at this level, then go up
            let lo_up = lo.div_ceil(block);
            let hi_up = hi / block;
            for e in lo..lo_up * block {
                let i = if level < 0 { base + e } else { levels[level as usize][e] as usize };
                consider(i, &mut best);
            }
            for e in hi_up * block..hi {
                let i = if level < 0 { base + e } else { levels[level as usize][e] as usize };
                consider(i, &mut best);
            }
            lo = lo_up;
            hi = hi_up;
            level += 1;
            unit *= block;
            let _ = unit;
        }
    }
}

impl LodIndex {
    /// The first slice at `depth` in `within` (absolute indexes) whose duration is at least
    /// `min_dur` (compared as `dur as f64 >= min_dur`, like [`query`]). O(FANOUT × levels).
    pub fn first_at_least(
        &self,
        cols: &SliceColumns,
        depth: usize,
        within: std::ops::Range<usize>,
        min_dur: f64,
    ) -> Option<usize> {
        let levels = self.depths.get(depth)?;
        let big = |i: usize| cols.dur_ns.at(i) as f64 >= min_dur;
        let base = cols.depth_range(depth).start;
        first_where(
            cols.depth_range(depth),
            within,
            levels.len(),
            |l| levels[l].len(),
            |p| big(base + p),
            |l, p| big(levels[l][p] as usize),
        )
    }

    /// The first slice k at `depth` in `within` (absolute indexes) followed by a gap of at least
    /// `gap` ns (`start[k+1] - end[k] >= gap`; the depth's last slice always qualifies).
    pub fn first_gap_at_least(
        &self,
        cols: &SliceColumns,
        depth: usize,
        within: std::ops::Range<usize>,
        gap: i64,
    ) -> Option<usize> {
        let levels = self.gaps.get(depth)?;
        let r = cols.depth_range(depth);
        let (base, end) = (r.start, r.end);
        first_where(
            r,
            within,
            levels.len(),
            |l| levels[l].len(),
            |p| gap_after(cols, end, base + p) >= gap,
            |l, p| levels[l][p] >= gap,
        )
    }
}

/// `start[k+1] - end[k]` within a depth ending at `depth_end`; i64::MAX after the last slice.
#[inline]
fn gap_after(cols: &SliceColumns, depth_end: usize, k: usize) -> i64 {
    if k + 1 >= depth_end {
        i64::MAX
    } else {
        cols.start_ns[k + 1].saturating_sub(cols.end_ns(k))
    }
}

/// Search of a block-maximum tree over the depth `range` (absolute indexes): the first raw
/// position in `within` for which `raw(p)` holds (p relative to the depth start), given that
/// `level(l, p)` holds exactly when some raw position under element p of level l does. Up the
/// tree until a block holds one (or the blocks start past `within`), then down its leftmost such
/// child. O(FANOUT × levels), and O(FANOUT × log(distance)) for a nearby answer or end.
fn first_where(
    range: std::ops::Range<usize>,
    within: std::ops::Range<usize>,
    n_levels: usize,
    level_len: impl Fn(usize) -> usize,
    raw: impl Fn(usize) -> bool,
    level: impl Fn(usize, usize) -> bool,
) -> Option<usize> {
    let base = range.start;
    let (from, end) = (within.start.max(base), within.end.min(range.end));
    if from >= end {
        return None;
    }
    // relative end, and elements at the current level covering it (unit = raw slices per element)
    let end_rel = end - base;
    let len = |l: isize| if l < 0 { range.len() } else { level_len(l as usize) };
    let test = |l: isize, p: usize| if l < 0 { raw(p) } else { level(l as usize, p) };
    let (mut l, mut pos, mut unit) = (-1isize, from - base, 1usize);
    let found = loop {
        let block_end = ((pos / FANOUT + 1) * FANOUT).min(len(l)).min(end_rel.div_ceil(unit));
        if let Some(p) = (pos..block_end).find(|&p| test(l, p)) {
            break p;
        }
        if (l + 1) as usize >= n_levels {
            return None;
        }
        pos = pos / FANOUT + 1;
        l += 1;
        unit *= FANOUT;
        if pos * unit >= end_rel {
            return None;
        }
    };
    // down: the leftmost child whose maximum qualifies holds the first qualifying position
    let mut p = found;
    while l >= 0 {
        l -= 1;
        let lo = p * FANOUT;
        let hi = (lo + FANOUT).min(len(l));
        p = (lo..hi).find(|&c| test(l, c))?;
    }
    (base + p < end).then_some(base + p)
}

fn longest_linear(cols: &SliceColumns, r: std::ops::Range<usize>) -> usize {
    let mut best = r.start;
    for i in r {
        if cols.dur_ns.at(i) > cols.dur_ns.at(best) {
            best = i;
        }
    }
    best
}

/// One thing to draw at one depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LodItem {
    /// A slice wide enough to draw on its own.
    Slice(u32),
    /// Several slices narrower than the merge threshold, drawn as one block.
    Merged { first: u32, end: u32, start_ns: i64, end_ns: i64, longest: u32 },
}

/// The drawable items of `depth` overlapping `[t0_ns, t1_ns)` at `ns_per_px`: slices narrower than
/// `merge_px` pixels are merged with neighbours closer than one pixel. Appends to `out`.
///
/// A merged block extends over the following slices while each starts less than a pixel after the
/// previous one ends ([`LodIndex::first_gap_at_least`]) and stops before the first slice wide
/// enough to draw on its own ([`LodIndex::first_at_least`], cached while it is ahead): both are
/// block-maximum tree searches, so a frame costs O(items × log n) whatever the zoom.
#[allow(clippy::too_many_arguments)]
pub fn query(
    cols: &SliceColumns,
    lod: &LodIndex,
    depth: usize,
    t0_ns: i64,
    t1_ns: i64,
    ns_per_px: f64,
    merge_px: f64,
    out: &mut Vec<LodItem>,
) {
    let r = cols.range_at_depth(depth, t0_ns, t1_ns);
    let min_dur = ns_per_px * merge_px;
    let px = ns_per_px.max(1.0) as i64;
    let is_big = |i: usize| cols.dur_ns.at(i) as f64 >= min_dur;
    // first big slice at or after the current position (cached while it is still ahead)
    let mut next_big: Option<usize> = None;
    let mut i = r.start;
    while i < r.end {
        if is_big(i) {
            out.push(LodItem::Slice(i as u32));
            i += 1;
            continue;
        }
        let stop = match next_big {
            Some(b) if b > i => b,
            _ => {
                let b = lod.first_at_least(cols, depth, i..r.end, min_dur).unwrap_or(r.end);
                next_big = Some(b);
                b
            }
        };
        let first = i;
        let start_ns = cols.start_ns[i];
        let mut end_ns = cols.end_ns(i);
        i += 1;
        // grow over small slices starting less than a pixel after the block's end: at one depth
        // ends are sorted, so the block ends at the first gap of at least a pixel (gap tree)
        if i < stop {
            // short blocks are the common case when zoomed in: look at a few gaps first
            let depth_end = cols.depth_range(depth).end;
            let near = (first..(first + 8).min(stop)).find(|&k| gap_after(cols, depth_end, k) >= px);
            let k =
                near.or_else(|| lod.first_gap_at_least(cols, depth, first..stop, px)).unwrap_or(usize::MAX);
            let j = k.saturating_add(1).min(stop);
            if j > i {
                end_ns = end_ns.max(cols.end_ns(j - 1));
                i = j;
            }
        }
        if i - first == 1 {
            out.push(LodItem::Slice(first as u32));
        } else {
            let longest = lod.longest(cols, depth, first..i).unwrap_or(first) as u32;
            out.push(LodItem::Merged { first: first as u32, end: i as u32, start_ns, end_ns, longest });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::partition;
    use crate::model::{ArgsId, GroupKind, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    fn trace_with(slices: &[(i64, i64)]) -> crate::model::Trace {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "t", TrackKind::Thread, "1");
        let n = b.intern("s");
        for &(s, d) in slices {
            b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
        }
        b.finish()
    }

    /// The previous implementation (a longest-slice check at every pixel step), as the oracle:
    /// the drawable items of `depth` overlapping `[t0_ns, t1_ns)` at `ns_per_px`; slices narrower
    /// than `merge_px` pixels are merged with neighbours closer than one pixel.
    #[allow(clippy::too_many_arguments)]
    fn query_reference(
        cols: &SliceColumns,
        lod: &LodIndex,
        depth: usize,
        t0_ns: i64,
        t1_ns: i64,
        ns_per_px: f64,
        merge_px: f64,
        out: &mut Vec<LodItem>,
    ) {
        let r = cols.range_at_depth(depth, t0_ns, t1_ns);
        let min_dur = ns_per_px * merge_px;
        let px = ns_per_px.max(1.0) as i64;
        let is_big = |i: usize| cols.dur_ns.at(i) as f64 >= min_dur;
        let mut i = r.start;
        while i < r.end {
            if is_big(i) {
                out.push(LodItem::Slice(i as u32));
                i += 1;
                continue;
            }
            let first = i;
            let start_ns = cols.start_ns[i];
            let mut end_ns = cols.end_ns(i);
            i += 1;
            loop {
                if i >= r.end {
                    break;
                }
                let limit = end_ns.saturating_add(px);
                let s = &cols.start_ns[i..r.end];
                let mut j = i + partition(s.len(), |k| s[k] < limit);
                if j == i {
                    break;
                }
                // stop before the first big slice in [i, j)
                if let Some(m) = lod.longest(cols, depth, i..j) {
                    if is_big(m) {
                        let (mut lo, mut hi) = (i, m); // first big is in [i, m]
                        if is_big(i) {
                            hi = i;
                        } else {
                            while hi - lo > 1 {
                                let mid = lo + (hi - lo) / 2;
                                let lm = lod.longest(cols, depth, i..mid + 1).unwrap_or(mid);
                                if is_big(lm) {
                                    hi = mid;
                                } else {
                                    lo = mid;
                                }
                            }
                        }
                        j = hi;
                        if j > i {
                            end_ns = end_ns.max(cols.end_ns(j - 1));
                        }
                        i = j;
                        break;
                    }
                }
                end_ns = end_ns.max(cols.end_ns(j - 1));
                i = j;
            }
            let longest = lod.longest(cols, depth, first..i).unwrap_or(first) as u32;
            if i - first == 1 {
                out.push(LodItem::Slice(first as u32));
            } else {
                out.push(LodItem::Merged { first: first as u32, end: i as u32, start_ns, end_ns, longest });
            }
        }
    }

    #[test]
    fn first_at_least_matches_linear() {
        let slices: Vec<(i64, i64)> = (0..40_000).map(|i| (i * 1000, (i * 7919) % 997)).collect();
        let tr = trace_with(&slices);
        let t = &tr.tracks[0];
        let n = t.slices.len();
        for min in [0.0, 1.0, 500.0, 990.0, 996.0, 997.0, 1e9] {
            for from in (0..n).step_by(997).chain([0, 1, 31, 32, 33, 1023, 1024, n - 1, n]) {
                let want = (from..n).find(|&i| t.slices.dur_ns.at(i) as f64 >= min);
                assert_eq!(t.lod.first_at_least(&t.slices, 0, from..n, min), want, "from {from} min {min}");
                for end in [from + 1, from + 31, from + 700, from + 5000] {
                    let want = (from..end.min(n)).find(|&i| t.slices.dur_ns.at(i) as f64 >= min);
                    assert_eq!(
                        t.lod.first_at_least(&t.slices, 0, from..end, min),
                        want,
                        "from {from} end {end} min {min}"
                    );
                }
            }
        }
    }

    #[test]
    fn query_matches_reference() {
        // nested call trees with durations over 4 orders of magnitude, every zoom level and pan
        let tr = crate::model::synth::nested_trace(60_000, 1, 3);
        let t = &tr.tracks[0];
        let span = (tr.end_ns - tr.start_ns) as f64;
        for zoom in [1.0, 3.0, 10.0, 100.0, 1000.0, 1e4, 1e5] {
            let w = span / zoom;
            for k in 0..12 {
                let a = tr.start_ns + ((span - w) * k as f64 / 11.0) as i64 - (w / 7.0) as i64;
                let e = a + w as i64;
                for merge_px in [0.5, 1.0, 3.0] {
                    let npp = w / 1920.0;
                    for d in 0..t.slices.depth_count() {
                        let (mut got, mut want) = (Vec::new(), Vec::new());
                        query(&t.slices, &t.lod, d, a, e, npp, merge_px, &mut got);
                        query_reference(&t.slices, &t.lod, d, a, e, npp, merge_px, &mut want);
                        assert_eq!(got, want, "zoom {zoom} k {k} depth {d} merge {merge_px}");
                    }
                }
            }
        }
    }

    #[test]
    #[ignore]
    fn timing_vs_reference() {
        let tr = crate::model::synth::nested_trace(10_000_000, 1, 42);
        let t = &tr.tracks[0];
        let span = (tr.end_ns - tr.start_ns) as f64;
        for zoom in [1.0, 100.0, 1000.0, 3000.0, 10000.0] {
            let w = span / zoom;
            let a = tr.start_ns + (span / 2.0) as i64;
            let npp = w / 1920.0;
            let mut out = Vec::new();
            let mut best = [f64::MAX; 2];
            for _ in 0..5 {
                type Q = fn(&SliceColumns, &LodIndex, usize, i64, i64, f64, f64, &mut Vec<LodItem>);
                for (k, f) in [query as Q, query_reference as Q].iter().enumerate() {
                    let t0 = std::time::Instant::now();
                    for _ in 0..20 {
                        for d in 0..t.slices.depth_count() {
                            out.clear();
                            f(&t.slices, &t.lod, d, a, a + w as i64, npp, 1.0, &mut out);
                        }
                    }
                    best[k] = best[k].min(t0.elapsed().as_secs_f64() / 20.0 * 1e6);
                }
            }
            eprintln!("zoom {zoom}: new {:.1} us, reference {:.1} us", best[0], best[1]);
        }
    }

    #[test]
    fn query_matches_reference_random() {
        // random slices: zero durations, touching neighbours, partial overlaps (spilled to lanes)
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut slices = Vec::new();
        let mut t = 0i64;
        for _ in 0..20_000 {
            t += [0, 0, 1, 3, 10, 100, 5000][rnd(7) as usize];
            let d = [0, 0, 1, 2, 50, 400, 20_000, 300_000][rnd(8) as usize];
            slices.push((t, d));
        }
        let tr = trace_with(&slices);
        let span = (tr.end_ns - tr.start_ns) as f64;
        for t in &tr.tracks {
            for zoom in [1.0, 10.0, 100.0, 1000.0, 1e4] {
                let w = span / zoom;
                for k in 0..8 {
                    let a = tr.start_ns + ((span - w) * k as f64 / 7.0) as i64;
                    for npp in [w / 1920.0, w / 100.0, 0.5, 3.0] {
                        for d in 0..t.slices.depth_count() {
                            let (mut got, mut want) = (Vec::new(), Vec::new());
                            query(&t.slices, &t.lod, d, a, a + w as i64, npp, 1.0, &mut got);
                            query_reference(&t.slices, &t.lod, d, a, a + w as i64, npp, 1.0, &mut want);
                            assert_eq!(got, want, "zoom {zoom} k {k} depth {d} npp {npp}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn first_gap_matches_linear() {
        let slices: Vec<(i64, i64)> = (0..20_000).map(|i| (i * 1000 + (i * 7919) % 500, 400)).collect();
        let tr = trace_with(&slices);
        let t = &tr.tracks[0];
        let n = t.slices.len();
        let gap =
            |k: usize| if k + 1 >= n { i64::MAX } else { t.slices.start_ns[k + 1] - t.slices.end_ns(k) };
        for g in [0, 100, 500, 900, 1090, 1099, 2000] {
            for from in (0..n).step_by(331).chain([0, 31, 32, 1023, 1024, n - 1, n]) {
                let want = (from..n).find(|&k| gap(k) >= g);
                assert_eq!(t.lod.first_gap_at_least(&t.slices, 0, from..n, g), want, "from {from} gap {g}");
                for end in [from + 1, from + 33, from + 1100, from + 9000] {
                    let want = (from..end.min(n)).find(|&k| gap(k) >= g);
                    assert_eq!(
                        t.lod.first_gap_at_least(&t.slices, 0, from..end, g),
                        want,
                        "from {from} end {end} gap {g}"
                    );
                }
            }
        }
    }

    #[test]
    fn longest_matches_linear() {
        let slices: Vec<(i64, i64)> = (0..5000).map(|i| (i * 100, (i * 7919) % 97)).collect();
        let tr = trace_with(&slices);
        let t = &tr.tracks[0];
        for (a, b) in [(0, 5000), (3, 4), (31, 33), (100, 2000), (1023, 1025), (17, 4999)] {
            let want = longest_linear(&t.slices, a..b);
            let got = t.lod.longest(&t.slices, 0, a..b).unwrap();
            assert_eq!(t.slices.dur_ns.at(got), t.slices.dur_ns.at(want), "range {a}..{b}");
        }
    }

    #[test]
    fn merges_subpixel_and_covers_everything() {
        // 100k tiny slices, 1 ns apart, plus a big one in the middle
        let mut slices: Vec<(i64, i64)> = (0..100_000).map(|i| (i * 10, 5)).collect();
        slices.retain(|&(s, _)| !(400_000..=600_000).contains(&s));
        slices.push((400_000, 200_000));
        let tr = trace_with(&slices);
        let t = &tr.tracks[0];
        let mut out = Vec::new();
        // 1_000_000 ns over 1000 px = 1000 ns per px
        query(&t.slices, &t.lod, 0, 0, 1_000_000, 1000.0, 1.0, &mut out);
        assert!(out.len() < 10, "{out:?}");
        let covered: u32 = out
            .iter()
            .map(|it| match it {
                LodItem::Slice(_) => 1,
                LodItem::Merged { first, end, .. } => end - first,
            })
            .sum();
        assert_eq!(covered as usize, t.slices.len());
        assert!(out
            .iter()
            .any(|it| matches!(it, LodItem::Slice(i) if t.slices.dur_ns.at(*i as usize) == 200_000)));
        // zoomed in: every slice individually
        out.clear();
        query(&t.slices, &t.lod, 0, 0, 1000, 1.0, 1.0, &mut out);
        assert_eq!(out.len(), 100);
        assert!(out.iter().all(|it| matches!(it, LodItem::Slice(_))));
    }
}
