//! Summaries over a time window: per track event count, summed duration, busy time (union of
//! its slices), utilisation and DMA bytes; per Neuron engine the same, rolled up. Built once per
//! trace as prefix sums ([`WindowIndex`]), so a window costs O(tracks × depths × log n) — cheap
//! enough to recompute on every zoom frame at 10 M slices.

use crate::model::{Engine, SliceRef, Trace, TrackId, TrackRole};

/// Prefix sums of one track.
#[derive(Debug, Clone, Default)]
struct TrackIndex {
    /// `dur_prefix[i]` = sum of durations of slices `0..i` in the track's depth-major order
    /// (sums over one depth's contiguous range are differences).
    dur_prefix: Vec<i64>,
    /// Same for DMA bytes (slices without bytes count 0).
    bytes_prefix: Vec<u64>,
    /// Union of all slices as disjoint sorted intervals, with prefix lengths; empty when
    /// `busy_is_depth0`.
    busy_start: Vec<i64>,
    busy_end: Vec<i64>,
    busy_prefix: Vec<i64>,
    /// The union is depth 0's slices themselves (they are the only ones it needs and no two of
    /// them touch: an engine's instructions): its intervals are read from the slice columns and
    /// its prefix lengths are `dur_prefix`, 24 bytes a slice not stored.
    busy_is_depth0: bool,
}

/// Prefix sums for every track of a trace.
#[derive(Debug, Clone, Default)]
pub struct WindowIndex {
    tracks: Vec<TrackIndex>,
}

/// Totals of one track inside a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TrackWindow {
    pub track: TrackId,
    /// Slices overlapping the window (any depth).
    pub count: u64,
    /// Sum of slice durations clipped to the window (nested slices count again).
    pub sum_dur_ns: i64,
    /// Time the track had at least one slice, inside the window.
    pub busy_ns: i64,
    /// DMA bytes of slices overlapping the window (whole slices).
    pub bytes: u64,
}

/// One Neuron engine (all its tracks, e.g. one per NeuronCore) inside a window.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct EngineWindow {
    pub engine: Option<Engine>,
    pub instruction_count: u64,
    pub instruction_time_ns: i64,
    pub active_time_ns: i64,
    /// active time / window length × 100 (per engine track; averaged over cores).
    pub active_percent: f64,
}

/// A window's summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WindowSummary {
    pub t0_ns: i64,
    pub t1_ns: i64,
    pub tracks: Vec<TrackWindow>,
    pub engines: Vec<EngineWindow>,
    pub slices: u64,
    pub dma_count: u64,
    pub dma_bytes: u64,
}

impl WindowSummary {
    pub fn window_ns(&self) -> i64 {
        (self.t1_ns - self.t0_ns).max(0)
    }
    /// busy / window length, 0..=1.
    pub fn utilisation(&self, t: &TrackWindow) -> f64 {
        let w = self.window_ns();
        if w == 0 {
            0.0
        } else {
            (t.busy_ns as f64 / w as f64).clamp(0.0, 1.0)
        }
    }
}

fn clip(s: i64, e: i64, t0: i64, t1: i64) -> i64 {
    (e.min(t1) - s.max(t0)).max(0)
}

/// The length inside `[t0, t1)` (`t0 < t1`) of `n` disjoint intervals sorted by start: the k-th
/// is `start(k)..end(k)`, and `prefix(k)` is the summed length of the first k.
fn busy_in(
    n: usize,
    start: impl Fn(usize) -> i64,
    end: impl Fn(usize) -> i64,
    prefix: impl Fn(usize) -> i64,
    t0: i64,
    t1: i64,
) -> i64 {
    // first interval ending after t0, first starting at or after t1 (both sorted)
    let lo = crate::model::partition(n, |k| end(k) <= t0);
    let hi = crate::model::partition(n, |k| start(k) < t1);
    if lo >= hi {
        return 0;
    }
    let mut sum = prefix(hi) - prefix(lo);
    // only the first and last interval can cross the window's edges
    sum -= (end(lo) - start(lo)) - clip(start(lo), end(lo), t0, t1);
    if hi - 1 != lo {
        let k = hi - 1;
        sum -= (end(k) - start(k)) - clip(start(k), end(k), t0, t1);
    }
    sum
}

/// Builds a [`WindowIndex`] in bounded steps of at most [`WindowIndexBuilder::STEP`] slices
/// (the page yields to the browser between steps, so a million-slice engine track never
/// freezes it): a track's prefix sums in chunks, then its busy union as a merge of its depths,
/// each already sorted by start, a chunk of intervals at a time.
#[derive(Debug, Default)]
pub struct WindowIndexBuilder {
    tracks: Vec<TrackIndex>,
    cur: Option<TrackBuild>,
}

/// The track being indexed.
#[derive(Debug, Default)]
struct TrackBuild {
    ti: TrackIndex,
    has_bytes: bool,
    /// Next slice of the prefix sums.
    next: usize,
    /// The busy merge, once the prefix sums are done: per depth its next slice and its end,
    /// smallest start first.
    heap: Option<LaneHeap>,
    /// The merge is done: the busy prefix sums follow, a chunk at a time.
    merged: bool,
    /// Whether depth 0 alone makes the union and its slices never touch (checked a chunk at a
    /// time before merging: then nothing is merged nor stored), and how far it was checked.
    depth0_disjoint: Option<bool>,
    checked: usize,
}

/// (start, end, slice, end of its depth's range), smallest first.
type LaneHeap = std::collections::BinaryHeap<std::cmp::Reverse<(i64, i64, usize, usize)>>;

impl WindowIndexBuilder {
    /// Slices per step.
    pub const STEP: usize = 1 << 18;

    /// Do the next step; `false` once every track is indexed.
    pub fn add_next(&mut self, trace: &Trace) -> bool {
        let Some(t) = trace.tracks.get(self.tracks.len()) else { return false };
        let c = &t.slices;
        let n = c.len();
        let b = self.cur.get_or_insert_with(|| {
            let has_bytes = c.domain.as_ref().is_some_and(|d| d.bytes.iter().any(|&b| b != u64::MAX));
            let mut ti = TrackIndex { dur_prefix: Vec::with_capacity(n + 1), ..TrackIndex::default() };
            ti.dur_prefix.push(0);
            if has_bytes {
                // bytes only where some slice has them (DMA tracks): 8 bytes per slice saved elsewhere
                ti.bytes_prefix.reserve(n + 1);
                ti.bytes_prefix.push(0);
            }
            TrackBuild { ti, has_bytes, ..TrackBuild::default() }
        });
        if b.next < n {
            let end = (b.next + Self::STEP).min(n);
            let mut acc = *b.ti.dur_prefix.last().unwrap_or(&0);
            b.ti.dur_prefix.extend(c.dur_ns[b.next..end].iter().map(|&d| {
                acc = acc.saturating_add(d);
                acc
            }));
            if let (true, Some(d)) = (b.has_bytes, c.domain.as_ref()) {
                let mut accb = *b.ti.bytes_prefix.last().unwrap_or(&0);
                b.ti.bytes_prefix.extend(d.bytes[b.next..end].iter().map(|&x| {
                    accb = accb.saturating_add(if x == u64::MAX { 0 } else { x });
                    accb
                }));
            }
            b.next = end;
            return true;
        }
        let depths = match t.layout {
            crate::model::Layout::Nested => 1.min(c.depth_count()),
            crate::model::Layout::Lanes => c.depth_count(),
        };
        if b.depth0_disjoint.is_none() {
            // the union of one depth whose slices never touch is those slices
            let r = c.depth_range(0);
            if depths != 1 || r.is_empty() {
                b.depth0_disjoint = Some(false);
            } else {
                let from = r.start + b.checked.max(1);
                let end = from.saturating_add(Self::STEP).min(r.end);
                let apart = (from..end).all(|i| c.start_ns[i] > c.end_ns(i - 1));
                b.checked = end - r.start;
                if !apart {
                    b.depth0_disjoint = Some(false);
                } else if end >= r.end {
                    b.depth0_disjoint = Some(true);
                }
            }
            return true;
        }
        if b.depth0_disjoint == Some(true) {
            let mut ti = std::mem::take(&mut b.ti);
            ti.busy_is_depth0 = true;
            self.cur = None;
            self.tracks.push(ti);
            return true;
        }
        if !b.merged {
            // union: depth 0 of a nested track covers every deeper slice; lanes need every depth
            let (starts, ends) = (&mut b.ti.busy_start, &mut b.ti.busy_end);
            let heap = b.heap.get_or_insert_with(|| {
                // at most one busy interval per merged slice: room for all of them up front (a
                // doubling copy of tens of megabytes inside one step was a long task)
                let most: usize = (0..depths).map(|d| c.depth_range(d).len()).sum();
                starts.reserve_exact(most);
                ends.reserve_exact(most);
                (0..depths)
                    .map(|d| c.depth_range(d))
                    .filter(|r| !r.is_empty())
                    .map(|r| std::cmp::Reverse((c.start_ns[r.start], c.end_ns(r.start), r.start, r.end)))
                    .collect()
            });
            for _ in 0..Self::STEP {
                let Some(std::cmp::Reverse((s, e, i, lane_end))) = heap.pop() else { break };
                if i + 1 < lane_end {
                    heap.push(std::cmp::Reverse((c.start_ns[i + 1], c.end_ns(i + 1), i + 1, lane_end)));
                }
                match ends.last_mut() {
                    Some(last) if s <= *last => *last = (*last).max(e),
                    _ => {
                        starts.push(s);
                        ends.push(e);
                    }
                }
            }
            if !heap.is_empty() {
                return true;
            }
            b.heap = None;
            b.merged = true;
            // merging slices left room unused: give it back when it is much
            if starts.capacity() > starts.len() + starts.len() / 4 {
                starts.shrink_to_fit();
                ends.shrink_to_fit();
            }
            b.ti.busy_prefix.reserve_exact(starts.len() + 1);
            b.ti.busy_prefix.push(0);
            return true;
        }
        // the busy prefix sums, a chunk at a time
        let ti = &mut b.ti;
        let from = ti.busy_prefix.len() - 1;
        let end = (from + Self::STEP).min(ti.busy_start.len());
        let mut a = *ti.busy_prefix.last().unwrap_or(&0);
        ti.busy_prefix.extend((from..end).map(|k| {
            a = a.saturating_add(ti.busy_end[k] - ti.busy_start[k]);
            a
        }));
        if end < ti.busy_start.len() {
            return true;
        }
        let ti = std::mem::take(&mut b.ti);
        self.cur = None;
        self.tracks.push(ti);
        true
    }
    /// Tracks indexed so far.
    pub fn tracks_done(&self) -> usize {
        self.tracks.len()
    }
    pub fn finish(self) -> WindowIndex {
        WindowIndex { tracks: self.tracks }
    }
}

impl WindowIndex {
    pub fn build(trace: &Trace) -> WindowIndex {
        let mut b = WindowIndexBuilder::default();
        while b.add_next(trace) {}
        b.finish()
    }

    /// Resident bytes of the index.
    pub fn heap_bytes(&self) -> usize {
        self.tracks
            .iter()
            .map(|t| {
                t.dur_prefix.capacity() * 8
                    + t.bytes_prefix.capacity() * 8
                    + (t.busy_start.capacity() + t.busy_end.capacity() + t.busy_prefix.capacity()) * 8
            })
            .sum()
    }

    /// Busy time of `track` (of `trace`, the one indexed) inside `[t0, t1)`.
    pub fn busy_ns(&self, trace: &Trace, track: TrackId, t0: i64, t1: i64) -> i64 {
        let Some(ti) = self.tracks.get(track.idx()) else { return 0 };
        if t1 <= t0 {
            return 0;
        }
        if ti.busy_is_depth0 {
            let Some(t) = trace.tracks.get(track.idx()) else { return 0 };
            let c = &t.slices;
            let r = c.depth_range(0);
            if r.end >= ti.dur_prefix.len() {
                return 0;
            }
            // the k-th interval is slice r.start + k, its length its duration
            let (s, d) = (&c.start_ns[r.clone()], &c.dur_ns[r.clone()]);
            busy_in(s.len(), |k| s[k], |k| s[k].saturating_add(d[k]), |k| ti.dur_prefix[r.start + k], t0, t1)
        } else {
            let (s, e, p) = (&ti.busy_start, &ti.busy_end, &ti.busy_prefix);
            busy_in(s.len(), |k| s[k], |k| e[k], |k| p[k], t0, t1)
        }
    }

    /// One track's totals inside `[t0, t1)`.
    pub fn track_window(&self, trace: &Trace, track: TrackId, t0: i64, t1: i64) -> TrackWindow {
        let mut out = TrackWindow { track, count: 0, sum_dur_ns: 0, busy_ns: 0, bytes: 0 };
        let (Some(ti), Some(t)) = (self.tracks.get(track.idx()), trace.tracks.get(track.idx())) else {
            return out;
        };
        let c = &t.slices;
        for d in 0..c.depth_count() {
            let r = c.range_at_depth(d, t0, t1);
            if r.is_empty() {
                continue;
            }
            out.count += r.len() as u64;
            if !ti.bytes_prefix.is_empty() {
                out.bytes += ti.bytes_prefix[r.end] - ti.bytes_prefix[r.start];
            }
            let mut sum = ti.dur_prefix[r.end] - ti.dur_prefix[r.start];
            let (a, b) = (r.start, r.end - 1);
            sum -= c.dur_ns[a] - clip(c.start_ns[a], c.end_ns(a), t0, t1);
            if b != a {
                sum -= c.dur_ns[b] - clip(c.start_ns[b], c.end_ns(b), t0, t1);
            }
            out.sum_dur_ns += sum;
        }
        out.busy_ns = self.busy_ns(trace, track, t0, t1);
        out
    }

    /// The summary of `[t0, t1)`, over the tracks where `include[track]` is true (all when None).
    pub fn window(&self, trace: &Trace, t0: i64, t1: i64, include: Option<&[bool]>) -> WindowSummary {
        let mut s = WindowSummary { t0_ns: t0, t1_ns: t1.max(t0), ..Default::default() };
        let mut engines: Vec<(Engine, EngineWindow, u32)> = Vec::new();
        for (i, t) in trace.tracks.iter().enumerate() {
            if include.is_some_and(|inc| !inc.get(i).copied().unwrap_or(false)) {
                continue;
            }
            let tw = self.track_window(trace, TrackId(i as u32), t0, t1);
            s.slices += tw.count;
            if t.role.is_dma() && t.role == TrackRole::DmaQueue {
                s.dma_count += tw.count;
                s.dma_bytes += tw.bytes;
            }
            if let Some(e) = t.role.engine() {
                let k = match engines.iter().position(|x| x.0 == e) {
                    Some(k) => k,
                    None => {
                        engines.push((e, EngineWindow { engine: Some(e), ..Default::default() }, 0));
                        engines.len() - 1
                    }
                };
                let ew = &mut engines[k];
                ew.1.instruction_count += tw.count;
                ew.1.instruction_time_ns += tw.sum_dur_ns;
                ew.1.active_time_ns += tw.busy_ns;
                ew.2 += 1;
            }
            s.tracks.push(tw);
        }
        let w = s.window_ns();
        engines.sort_by_key(|e| e.0);
        s.engines = engines
            .into_iter()
            .map(|(_, mut ew, n)| {
                ew.active_percent = if w == 0 || n == 0 {
                    0.0
                } else {
                    ew.active_time_ns as f64 / (w as f64 * n as f64) * 100.0
                };
                ew
            })
            .collect();
        s
    }
}

/// Up to `limit` slices of the selected tracks overlapping `[t0, t1)`, in time order (for a box
/// selection's event list), plus how many there are in all.
pub fn slices_in(trace: &Trace, t0: i64, t1: i64, include: &[bool], limit: usize) -> (Vec<SliceRef>, u64) {
    let mut v: Vec<(i64, SliceRef)> = Vec::new();
    let mut total = 0u64;
    for (i, t) in trace.tracks.iter().enumerate() {
        if !include.get(i).copied().unwrap_or(false) {
            continue;
        }
        let c = &t.slices;
        for d in 0..c.depth_count() {
            let r = c.range_at_depth(d, t0, t1);
            total += r.len() as u64;
            for k in r.take(limit) {
                v.push((c.start_ns[k], SliceRef { track: TrackId(i as u32), index: k as u32 }));
            }
        }
    }
    v.sort_unstable();
    v.truncate(limit);
    (v.into_iter().map(|x| x.1).collect(), total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, Layout, SliceDomain, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    fn trace() -> Trace {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        b.set_track_layout(pe, Layout::Lanes);
        let n = b.intern("x");
        // overlapping (lanes): [0,10) [5,15) [20,30)
        for (s, d) in [(0, 10), (5, 10), (20, 10)] {
            b.add_slice(pe, s, d, n, StrId::EMPTY, ArgsId::NONE);
        }
        let q = b.add_track(g, "q0", TrackKind::Dma, "q");
        for (s, d, by) in [(0, 4, 100), (10, 4, 200), (40, 4, 300)] {
            let h = b.add_slice(q, s, d, n, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { bytes: by, ..Default::default() });
        }
        let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
        // nested: [0,100) containing [10,20)
        b.add_slice(th, 0, 100, n, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 10, 10, n, StrId::EMPTY, ArgsId::NONE);
        b.finish()
    }

    /// Reference: clip every slice by brute force.
    fn brute(t: &Trace, track: usize, t0: i64, t1: i64) -> (u64, i64, i64) {
        let c = &t.tracks[track].slices;
        let mut count = 0;
        let mut sum = 0;
        let mut pts: Vec<(i64, i64)> = Vec::new();
        for i in 0..c.len() {
            let (s, e) = (c.start_ns[i], c.end_ns(i));
            let overlaps = s < t1 && (e > t0 || (s == e && s >= t0));
            if overlaps {
                count += 1;
                sum += clip(s, e, t0, t1);
                pts.push((s.max(t0), e.min(t1)));
            }
        }
        pts.sort();
        let mut busy = 0;
        let mut cur: Option<(i64, i64)> = None;
        for (s, e) in pts {
            match cur {
                Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
                Some((cs, ce)) => {
                    busy += ce - cs;
                    cur = Some((s, e));
                }
                None => cur = Some((s, e)),
            }
        }
        if let Some((cs, ce)) = cur {
            busy += ce - cs;
        }
        (count, sum, busy)
    }

    #[test]
    fn window_equals_brute_force_at_every_window() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        for t0 in -5..50 {
            for t1 in t0 + 1..t0 + 60 {
                for tr in 0..t.tracks.len() {
                    let w = ix.track_window(&t, TrackId(tr as u32), t0, t1);
                    assert_eq!(
                        (w.count, w.sum_dur_ns, w.busy_ns),
                        brute(&t, tr, t0, t1),
                        "track {tr} [{t0},{t1})"
                    );
                }
            }
        }
    }

    #[test]
    fn engines_and_dma_roll_up() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        let s = ix.window(&t, 0, 50, None);
        assert_eq!(s.engines.len(), 1);
        let e = s.engines[0];
        assert_eq!(e.instruction_count, 3);
        assert_eq!(e.instruction_time_ns, 30);
        assert_eq!(e.active_time_ns, 25);
        assert!((e.active_percent - 50.0).abs() < 1e-9);
        assert_eq!((s.dma_count, s.dma_bytes), (3, 600));
        let only_dma: Vec<bool> = t.tracks.iter().map(|tr| tr.role == TrackRole::DmaQueue).collect();
        let s2 = ix.window(&t, 0, 12, Some(&only_dma));
        assert_eq!((s2.slices, s2.dma_bytes), (2, 300));
        let (list, total) = slices_in(&t, 0, 12, &only_dma, 1);
        assert_eq!((list.len(), total), (1, 2));
    }

    #[test]
    fn touching_or_empty_slices_are_merged_not_read_as_the_union() {
        // (start, dur) at depth 0: touching, a zero-length one at an edge, apart
        for (slices, merged) in [
            (&[(0, 10), (10, 5), (30, 5)][..], true),
            (&[(0, 10), (10, 0), (30, 5)][..], true),
            // the empty slice nests inside the one starting with it: depth 0 stays apart
            (&[(0, 0), (0, 10), (30, 5)][..], false),
            (&[(0, 10), (11, 0), (30, 5)][..], false),
        ] {
            let mut b = TraceBuilder::new("t");
            let g = b.add_group("dev", GroupKind::Device);
            let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
            let n = b.intern("x");
            for &(s, d) in slices {
                b.add_slice(th, s, d, n, StrId::EMPTY, ArgsId::NONE);
            }
            let tr = b.finish();
            let ix = WindowIndex::build(&tr);
            assert_eq!(ix.tracks[0].busy_is_depth0, !merged, "{slices:?}");
            for t0 in -2..40 {
                for t1 in t0 + 1..42 {
                    let brute: i64 = slices.iter().map(|&(s, d)| clip(s, s + d, t0, t1)).sum();
                    assert_eq!(ix.busy_ns(&tr, TrackId(0), t0, t1), brute, "{slices:?} [{t0}, {t1})");
                }
            }
        }
    }

    #[test]
    fn stepped_index_of_a_big_lanes_track_is_the_exact_union() {
        // more slices than one step, in several overlapping lanes, plus a nested track
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_layout(pe, Layout::Lanes);
        let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
        let n = b.intern("x");
        let mut rng = crate::rng::Rng(7);
        let mut t = 0i64;
        for _ in 0..WindowIndexBuilder::STEP + 40_000 {
            t += rng.range(0, 7);
            b.add_slice(pe, t, rng.range(0, 20), n, StrId::EMPTY, ArgsId::NONE);
        }
        for k in 0..1000 {
            b.add_slice(th, k * 100, 50, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(th, k * 100 + 10, 10, n, StrId::EMPTY, ArgsId::NONE);
        }
        // disjoint slices: more busy intervals than one step (the prefix sums take steps too)
        let dj = b.add_track(g, "Vector", TrackKind::Stream, "2");
        for k in 0..WindowIndexBuilder::STEP as i64 + 3000 {
            b.add_slice(dj, k * 10, 1 + k % 5, n, StrId::EMPTY, ArgsId::NONE);
        }
        let tr = b.finish();
        assert!(tr.tracks[0].slices.depth_count() > 1, "the lanes track has one lane");
        let mut steps = 0;
        let mut ib = WindowIndexBuilder::default();
        while ib.add_next(&tr) {
            steps += 1;
        }
        assert!(steps > 4, "{steps} steps");
        let ix = ib.finish();
        for (k, track) in tr.tracks.iter().enumerate() {
            // reference: every slice (lanes) or depth 0 (nested), sorted, merged
            let c = &track.slices;
            let range = if track.layout == Layout::Lanes { 0..c.len() } else { c.depth_range(0) };
            let mut iv: Vec<(i64, i64)> = range.map(|i| (c.start_ns[i], c.end_ns(i))).collect();
            iv.sort_unstable();
            let mut want: Vec<(i64, i64)> = Vec::new();
            for (s, e) in iv {
                match want.last_mut() {
                    Some(l) if s <= l.1 => l.1 = l.1.max(e),
                    _ => want.push((s, e)),
                }
            }
            let got = &ix.tracks[k];
            // the union of the lanes that overlap is stored; that of a nested track whose depth 0
            // never touches (the thread) and of the disjoint track are their depth-0 slices
            assert_eq!(got.busy_is_depth0, k != 0, "track {k}");
            let (starts, ends, prefix): (Vec<i64>, Vec<i64>, Vec<i64>) = if got.busy_is_depth0 {
                let r = c.depth_range(0);
                let p0 = got.dur_prefix[r.start];
                (
                    r.clone().map(|i| c.start_ns[i]).collect(),
                    r.clone().map(|i| c.end_ns(i)).collect(),
                    (r.start..=r.end).map(|i| got.dur_prefix[i] - p0).collect(),
                )
            } else {
                assert!(got.busy_start.len() > 1);
                (got.busy_start.clone(), got.busy_end.clone(), got.busy_prefix.clone())
            };
            assert_eq!(starts, want.iter().map(|w| w.0).collect::<Vec<_>>(), "track {k}");
            assert_eq!(ends, want.iter().map(|w| w.1).collect::<Vec<_>>(), "track {k}");
            let total: i64 = want.iter().map(|w| w.1 - w.0).sum();
            assert_eq!(*prefix.last().unwrap(), total);
            assert_eq!(prefix.len(), want.len() + 1);
            let mut acc = 0;
            assert!(prefix.iter().enumerate().all(|(i, &p)| {
                let ok = p == acc;
                acc += want.get(i).map_or(0, |w| w.1 - w.0);
                ok
            }));
            // busy time in windows: the index against the reference intervals
            let mut rng = crate::rng::Rng(k as u64 + 1);
            let span = c.end_ns(c.len() - 1) + 10;
            for _ in 0..200 {
                let (a, b) = (rng.range(-5, span), rng.range(-5, span));
                let (t0, t1) = (a.min(b), a.max(b) + 1);
                let brute: i64 = want.iter().map(|w| clip(w.0, w.1, t0, t1)).sum();
                assert_eq!(ix.busy_ns(&tr, TrackId(k as u32), t0, t1), brute, "track {k} [{t0}, {t1})");
            }
            assert_eq!(got.dur_prefix.len(), c.len() + 1);
            assert_eq!(*got.dur_prefix.last().unwrap(), c.dur_ns.iter().sum::<i64>());
        }
    }
}
