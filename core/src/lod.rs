//! Level-of-detail index and viewport query.
//!
//! At one depth of a track, slices are disjoint and sorted, so the slices overlapping a window are
//! one index range found by binary search. What remains is to avoid emitting millions of
//! sub-pixel slices: [`query`] walks the window pixel by pixel, jumping (binary search) over all
//! slices that start within the current merged block, so the cost is O(drawn items × log n),
//! independent of how many slices are in view. A merged block is shown with its longest slice
//! (name/colour), found with a block-maximum tree ([`LodIndex`]): for every 32 consecutive slices
//! of a depth, the index of the longest, then the same over those, and so on (≈ 0.13 bytes per
//! slice), the segment-forest idea from Perfetto/gigatrace at a coarser grain.

use crate::model::{partition, SliceColumns};

const FANOUT: usize = 32;

#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct LodIndex {
    /// Per depth, levels of "index of the longest slice" per block of FANOUT^(level+1) slices.
    pub depths: Vec<Vec<Vec<u32>>>,
}

impl LodIndex {
    pub fn build(cols: &SliceColumns) -> LodIndex {
        let mut depths = Vec::with_capacity(cols.depth_count());
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
                    .map(|c| *c.iter().max_by_key(|&&i| (cols.dur_ns[i as usize], std::cmp::Reverse(i))).unwrap_or(&c[0]))
                    .collect();
                levels.push(cur);
                cur = next;
            }
            levels.push(cur);
            depths.push(levels);
        }
        LodIndex { depths }
    }

    pub fn heap_bytes(&self) -> usize {
        self.depths.iter().flat_map(|l| l.iter()).map(|v| v.capacity() * 4).sum::<usize>() + self.depths.capacity() * 24
    }

    /// Index of the longest slice in `range` (absolute indexes, all at `depth`).
    pub fn longest(&self, cols: &SliceColumns, depth: usize, range: std::ops::Range<usize>) -> Option<usize> {
        if range.is_empty() {
            return None;
        }
        let base = cols.depth_range(depth).start;
        let levels = self.depths.get(depth)?;
        let mut best: Option<usize> = None;
        let consider = |i: usize, best: &mut Option<usize>| {
            if best.is_none_or(|b| cols.dur_ns[i] > cols.dur_ns[b]) {
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

fn longest_linear(cols: &SliceColumns, r: std::ops::Range<usize>) -> usize {
    let mut best = r.start;
    for i in r {
        if cols.dur_ns[i] > cols.dur_ns[best] {
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
pub fn query(cols: &SliceColumns, lod: &LodIndex, depth: usize, t0_ns: i64, t1_ns: i64, ns_per_px: f64, merge_px: f64, out: &mut Vec<LodItem>) {
    let r = cols.range_at_depth(depth, t0_ns, t1_ns);
    let min_dur = ns_per_px * merge_px;
    let px = ns_per_px.max(1.0) as i64;
    let is_big = |i: usize| cols.dur_ns[i] as f64 >= min_dur;
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

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn longest_matches_linear() {
        let slices: Vec<(i64, i64)> = (0..5000).map(|i| (i * 100, (i * 7919) % 97)).collect();
        let tr = trace_with(&slices);
        let t = &tr.tracks[0];
        for (a, b) in [(0, 5000), (3, 4), (31, 33), (100, 2000), (1023, 1025), (17, 4999)] {
            let want = longest_linear(&t.slices, a..b);
            let got = t.lod.longest(&t.slices, 0, a..b).unwrap();
            assert_eq!(t.slices.dur_ns[got], t.slices.dur_ns[want], "range {a}..{b}");
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
        assert!(out.iter().any(|it| matches!(it, LodItem::Slice(i) if t.slices.dur_ns[*i as usize] == 200_000)));
        // zoomed in: every slice individually
        out.clear();
        query(&t.slices, &t.lod, 0, 0, 1000, 1.0, 1.0, &mut out);
        assert_eq!(out.len(), 100);
        assert!(out.iter().all(|it| matches!(it, LodItem::Slice(_))));
    }
}
