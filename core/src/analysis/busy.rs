//! The busy range of a trace: where its events are, ignoring isolated outliers and long idle
//! stretches.
//!
//! One stray event (a clock-sync marker hours away) or a long idle stretch (a device that sets
//! up, waits 1.8 ms on a semaphore, then works for 90 µs) makes "fit everything" show the work in
//! a few pixel columns. The busy range splits the sorted event starts (slices; instants, then
//! counter samples, when a trace has none) wherever consecutive starts are more than
//! [`GAP_FRACTION`] of the whole span apart, and keeps the cluster holding the most events (when
//! it holds at least half of them, and there are [`MIN_EVENTS`]; else everything): from
//! its first start to the latest end of its events, where an end more than a quarter of the
//! cluster's width past its last start (a wait that outlasts the work) is not followed. Counted
//! over at most [`MAX_SAMPLES`] events (an even stride over each track), so it is cheap on 10 M
//! slices.

use crate::model::Trace;
pub use crate::spans::union_of_sorted;

/// A gap between consecutive starts wider than this fraction of the whole span splits clusters.
pub const GAP_FRACTION: f64 = 0.2;
/// Below this many events, or when no cluster holds half of them, the range is everything.
pub const MIN_EVENTS: usize = 50;
/// Events looked at (an even stride over each track).
pub const MAX_SAMPLES: usize = 400_000;

/// Sampled events are sorted in runs of at most this many (a caller can sort one run per step).
pub const RUN_LEN: usize = 50_000;

/// `[t0, t1)` of the busiest cluster of events; `None` for a trace without events.
pub fn busy_range(trace: &Trace) -> Option<(i64, i64)> {
    let mut runs = sampled_runs(trace);
    for r in &mut runs {
        sort_run(r);
    }
    busy_of_sorted(&merge_runs(runs))
}

/// The events [`busy_range`] looks at, as (start, end) pairs in unsorted runs of at most
/// [`RUN_LEN`]: an even stride of ≤ [`MAX_SAMPLES`] slices over every track, else every
/// instant, else every counter sample. Cheap; the sorting is the work ([`sort_run`], one run at a
/// time if the caller wants to yield between them, then [`merge_runs`] and [`busy_of_sorted`]).
/// [`RunSampler`] gives the same runs one at a time.
pub fn sampled_runs(trace: &Trace) -> Vec<Vec<(i64, i64)>> {
    let mut s = RunSampler::new(trace);
    while s.next_run(trace) {}
    s.finish()
}

/// Which events [`RunSampler`] samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Slices,
    Instants,
    Counters,
}

/// [`sampled_runs`] one run at a time, each allocated once at its final size: a page can yield
/// between runs (on a 9.5 M-slice trace the whole sampling was one 50–60 ms task in the browser,
/// most of it the vector's doubling copies).
#[derive(Debug)]
pub struct RunSampler {
    source: Source,
    stride: usize,
    /// the track (or counter) being sampled, and the next index in it
    item: usize,
    index: usize,
    /// events still to sample
    left: usize,
    runs: Vec<Vec<(i64, i64)>>,
}

impl RunSampler {
    pub fn new(trace: &Trace) -> RunSampler {
        let slices = trace.slice_count();
        let (source, stride, left) = if slices > 0 {
            let stride = slices.div_ceil(MAX_SAMPLES).max(1);
            let left = trace.tracks.iter().map(|t| t.slices.len().div_ceil(stride)).sum();
            (Source::Slices, stride, left)
        } else if trace.instant_count() > 0 {
            (Source::Instants, 1, trace.tracks.iter().map(|t| t.instants.ts_ns.len()).sum())
        } else {
            (Source::Counters, 1, trace.counters.iter().map(|c| c.ts_ns.len()).sum())
        };
        RunSampler {
            source,
            stride,
            item: 0,
            index: 0,
            left,
            runs: Vec::with_capacity(left.div_ceil(RUN_LEN)),
        }
    }

    /// Sample the next run (at most [`RUN_LEN`] events); `false` once every event is sampled.
    pub fn next_run(&mut self, trace: &Trace) -> bool {
        if self.left == 0 {
            return false;
        }
        let mut run = Vec::with_capacity(self.left.min(RUN_LEN));
        while run.len() < run.capacity() {
            let room = run.capacity() - run.len();
            let (len, done) = match self.source {
                Source::Slices => {
                    let Some(t) = trace.tracks.get(self.item) else { break };
                    let s = &t.slices;
                    let take = (s.len().saturating_sub(self.index)).div_ceil(self.stride).min(room);
                    let (from, stride) = (self.index, self.stride);
                    run.extend((0..take).map(|k| from + k * stride).map(|i| (s.start_ns[i], s.end_ns(i))));
                    (s.len(), from + take * stride)
                }
                Source::Instants => {
                    let Some(t) = trace.tracks.get(self.item) else { break };
                    let ts = &t.instants.ts_ns[self.index.min(t.instants.ts_ns.len())..];
                    let ts = &ts[..ts.len().min(room)];
                    run.extend(ts.iter().map(|&x| (x, x)));
                    (t.instants.ts_ns.len(), self.index + ts.len())
                }
                Source::Counters => {
                    let Some(c) = trace.counters.get(self.item) else { break };
                    let ts = &c.ts_ns[self.index.min(c.ts_ns.len())..];
                    let ts = &ts[..ts.len().min(room)];
                    run.extend(ts.iter().map(|&x| (x, x)));
                    (c.ts_ns.len(), self.index + ts.len())
                }
            };
            if done >= len {
                self.item += 1;
                self.index = 0;
            } else {
                self.index = done;
            }
        }
        self.left = self.left.saturating_sub(run.len());
        if run.is_empty() {
            // the counts said more than the tracks hold (cannot happen on a finished trace)
            self.left = 0;
            return false;
        }
        self.runs.push(run);
        true
    }

    /// The runs sampled so far (all of them once [`RunSampler::next_run`] said `false`).
    pub fn finish(self) -> Vec<Vec<(i64, i64)>> {
        self.runs
    }
}

/// The union of `[start, end)` spans as disjoint blocks sorted by start; spans that overlap or
/// touch (`start <= end` of the block so far) join one block, as neuron-profile's `active_time`
/// table counts them. Stable sort: spans gathered from a lanes track are one sorted run per
/// lane, which it merges (an unstable sort would sort them from scratch).
pub fn union(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    spans.sort();
    union_of_sorted(&spans).collect()
}

/// Sort one run by start (the order among equal starts does not change the result).
pub fn sort_run(run: &mut [(i64, i64)]) {
    run.sort_unstable_by_key(|e| e.0);
}

/// Merge runs sorted by [`sort_run`] into one sequence sorted by start.
pub fn merge_runs(mut runs: Vec<Vec<(i64, i64)>>) -> Vec<(i64, i64)> {
    while merge_step(&mut runs) {}
    runs.pop().unwrap_or_default()
}

/// One step of [`merge_runs`]: merge the two shortest runs (few runs, linear merges); `false`
/// once at most one run is left. A page can yield between steps (on 400 k samples the whole
/// merge was ≈ 9 ms natively and a large part of a 64 ms task in the browser).
pub fn merge_step(runs: &mut Vec<Vec<(i64, i64)>>) -> bool {
    if runs.len() < 2 {
        return false;
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.len()));
    let (Some(a), Some(b)) = (runs.pop(), runs.pop()) else { return false };
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j].0 < a[i].0 {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    runs.push(out);
    runs.len() > 1
}

/// [`busy_range`] over events already sorted by start.
pub fn busy_of_sorted(ev: &[(i64, i64)]) -> Option<(i64, i64)> {
    if ev.is_empty() {
        return None;
    }
    let n = ev.len();
    let first = ev[0].0;
    let last_end = ev.iter().map(|e| e.1).max().unwrap_or(first);
    let span = last_end.saturating_sub(first).max(1);
    let gap = ((span as f64) * GAP_FRACTION) as i64;
    // the cluster with the most events (the first of equals)
    let (mut best, mut cur) = ((0usize, 0usize), 0usize);
    for i in 1..=n {
        if i == n || ev[i].0.saturating_sub(ev[i - 1].0) > gap {
            if i - cur > best.1 - best.0 {
                best = (cur, i);
            }
            cur = i;
        }
    }
    // few events, or no cluster holding most of them: nothing stands out, keep everything
    if n < MIN_EVENTS || 2 * (best.1 - best.0) < n {
        best = (0, n);
    }
    let cl = &ev[best.0..best.1];
    let t0 = cl[0].0;
    let last_start = cl[cl.len() - 1].0;
    let width = last_start.saturating_sub(t0).max(1);
    let limit = last_start.saturating_add((width / 4).max(1));
    let t1 = cl.iter().map(|e| e.1).filter(|&e| e <= limit).max().unwrap_or(last_start).max(last_start);
    Some((t0, t1.max(t0.saturating_add(1))))
}

/// Whether the busy range is much narrower than the whole trace (so the view should start there).
pub fn busy_is_narrow(trace: &Trace, busy: (i64, i64)) -> bool {
    let full = (trace.end_ns - trace.start_ns).max(1) as f64;
    ((busy.1 - busy.0) as f64) < 0.2 * full
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GroupKind, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    fn trace_with(slices: &[(i64, i64)]) -> Trace {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("g", GroupKind::Process);
        let t = b.add_track(g, "t", TrackKind::Stream, "");
        let n = b.intern("x");
        for &(s, d) in slices {
            b.add_slice(t, s, d, n, StrId::EMPTY, crate::model::ArgsId::NONE);
        }
        b.finish()
    }

    #[test]
    fn sorted_in_runs_equals_one_sort() {
        // more samples than one run, starts out of order across tracks and equal starts
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("g", GroupKind::Process);
        let n = b.intern("x");
        for k in 0..3i64 {
            let t = b.add_track(g, "t", TrackKind::Stream, "");
            for i in 0..(RUN_LEN as i64 + 7_000) {
                b.add_slice(
                    t,
                    (i * 37 + k * 11) % 90_001 * 10,
                    5 + k,
                    n,
                    StrId::EMPTY,
                    crate::model::ArgsId::NONE,
                );
            }
        }
        let tr = b.finish();
        let runs = sampled_runs(&tr);
        assert!(runs.len() > 3 && runs.iter().all(|r| r.len() <= RUN_LEN));
        let mut whole: Vec<(i64, i64)> = runs.concat();
        whole.sort_unstable();
        let mut sorted_runs = runs;
        for r in &mut sorted_runs {
            sort_run(r);
        }
        let merged = merge_runs(sorted_runs);
        assert_eq!(
            merged.iter().map(|e| e.0).collect::<Vec<_>>(),
            whole.iter().map(|e| e.0).collect::<Vec<_>>()
        );
        assert_eq!(busy_of_sorted(&merged), busy_of_sorted(&whole));
        assert_eq!(busy_range(&tr), busy_of_sorted(&whole));
    }

    /// The sampling as it was written before [`RunSampler`]: every track's strided samples in one
    /// vector, cut into runs.
    fn reference_runs(trace: &Trace) -> Vec<Vec<(i64, i64)>> {
        let total = trace.slice_count();
        let mut ev: Vec<(i64, i64)> = Vec::new();
        if total > 0 {
            let stride = total.div_ceil(MAX_SAMPLES).max(1);
            for t in &trace.tracks {
                let s = &t.slices;
                ev.extend((0..s.len()).step_by(stride).map(|i| (s.start_ns[i], s.end_ns(i))));
            }
        } else if trace.instant_count() > 0 {
            for t in &trace.tracks {
                ev.extend(t.instants.ts_ns.iter().map(|&x| (x, x)));
            }
        } else {
            for c in &trace.counters {
                ev.extend(c.ts_ns.iter().map(|&x| (x, x)));
            }
        }
        ev.chunks(RUN_LEN).map(<[_]>::to_vec).collect()
    }

    #[test]
    fn run_sampler_gives_the_reference_runs() {
        // slices: tracks of uneven lengths (empty ones too) past MAX_SAMPLES, so the stride is 2
        // and track ends fall inside runs
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("g", GroupKind::Process);
        let n = b.intern("x");
        for (k, len) in [0usize, 250_001, 3, 0, 180_000, 7, 1].into_iter().enumerate() {
            let t = b.add_track(g, "t", TrackKind::Stream, "");
            for i in 0..len as i64 {
                b.add_slice(t, i * 10 + k as i64, 3, n, StrId::EMPTY, crate::model::ArgsId::NONE);
            }
        }
        let tr = b.finish();
        assert!(tr.slice_count() > MAX_SAMPLES);
        let runs = sampled_runs(&tr);
        assert_eq!(runs, reference_runs(&tr));
        assert!(runs.iter().all(|r| r.len() <= RUN_LEN && r.capacity() == r.len()));
        // one run per call, then false (and false again)
        let mut s = RunSampler::new(&tr);
        let mut calls = 0;
        while s.next_run(&tr) {
            calls += 1;
        }
        assert!(!s.next_run(&tr));
        assert_eq!(calls, runs.len());

        // instants only, more than one run
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("g", GroupKind::Process);
        let n = b.intern("i");
        for len in [RUN_LEN + 5, 0, 17] {
            let t = b.add_track(g, "t", TrackKind::Thread, "");
            for i in 0..len as i64 {
                b.add_instant(t, i * 7, n, StrId::EMPTY, crate::model::ArgsId::NONE);
            }
        }
        let tr = b.finish();
        assert_eq!(sampled_runs(&tr), reference_runs(&tr));
        assert_eq!(sampled_runs(&tr).len(), 2);

        // counter samples only
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("g", GroupKind::Process);
        for len in [3, RUN_LEN, 0, 2] {
            let c = b.add_counter(g, "c", "");
            for i in 0..len as i64 {
                b.add_counter_sample(c, i * 5, 1.0);
            }
        }
        let tr = b.finish();
        assert_eq!(sampled_runs(&tr), reference_runs(&tr));

        // nothing at all
        let tr = trace_with(&[]);
        assert!(sampled_runs(&tr).is_empty());
        assert!(!RunSampler::new(&tr).next_run(&tr));
    }

    #[test]
    fn empty_trace_has_no_busy_range() {
        assert_eq!(busy_range(&trace_with(&[])), None);
    }

    #[test]
    fn a_far_outlier_is_cut() {
        // 10 000 dense slices in [0, 1 ms), one straggler an hour later
        let mut v: Vec<(i64, i64)> = (0..10_000).map(|i| (i * 100, 50)).collect();
        v.push((3_600_000_000_000, 10));
        let tr = trace_with(&v);
        let (t0, t1) = busy_range(&tr).unwrap();
        assert!(t0 <= 200_000, "{t0}");
        assert!(t1 <= 1_000_000, "{t1}");
        assert!(t1 >= 900_000, "{t1}");
        assert!(busy_is_narrow(&tr, (t0, t1)));
    }

    #[test]
    fn one_long_slice_does_not_stretch_the_range() {
        // a wait spanning 100 s, then 5000 short instructions in its first 10 ms
        let mut v: Vec<(i64, i64)> = vec![(0, 100_000_000_000)];
        v.extend((0..5_000).map(|i| (i * 2_000, 1_000)));
        let (t0, t1) = busy_range(&trace_with(&v)).unwrap();
        assert_eq!(t0, 0);
        assert!(t1 < 20_000_000, "{t1}");
    }

    #[test]
    fn work_at_the_end_of_a_long_wait() {
        // an NTFF-like capture: a few events at 0, waits spanning the capture, the work in its
        // last 2 %
        let mut v: Vec<(i64, i64)> = vec![(0, 1_880_000), (0, 1_880_000)];
        v.extend((0..86).map(|i| (i * 50, 10)));
        v.extend((0..300).map(|i| (1_840_000 + i * 100, 80)));
        let tr = trace_with(&v);
        let (t0, t1) = busy_range(&tr).unwrap();
        assert_eq!(t0, 1_840_000);
        assert!((1_840_000 + 299 * 100 + 80..1_880_000).contains(&t1), "{t1}");
        assert!(busy_is_narrow(&tr, (t0, t1)));
    }

    #[test]
    fn evenly_spread_events_keep_the_whole_range() {
        let v: Vec<(i64, i64)> = (0..1000).map(|i| (i * 1_000, 500)).collect();
        let tr = trace_with(&v);
        let (t0, t1) = busy_range(&tr).unwrap();
        assert_eq!((t0, t1), (0, 999_500));
        assert!(!busy_is_narrow(&tr, (t0, t1)));
    }
}
