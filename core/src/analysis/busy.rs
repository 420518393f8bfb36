//! The busy range of a trace: where its events are, ignoring isolated outliers.
//!
//! One stray event (a clock-sync marker hours away, a wait instruction spanning the whole capture)
//! makes "fit everything" show all data in one pixel column. The busy range is the window between
//! the [`OUTLIER_FRACTION`] quantile of slice starts and the `1 - OUTLIER_FRACTION` quantile of
//! slice ends (instants, then counter samples, when a trace has no slices), widened to every
//! event within a quarter of that window's width of it: long outlier slices and far-away
//! stragglers are cut while every dense region and its edges stay in view.
//! Counted over at most [`MAX_SAMPLES`] events (an even stride), so it is cheap on 10 M slices.

use crate::model::Trace;

/// Fraction of events allowed outside the busy range at each end.
pub const OUTLIER_FRACTION: f64 = 0.001;
/// Events looked at (an even stride over each track).
pub const MAX_SAMPLES: usize = 400_000;

/// `[t0, t1)` holding all but the outliers; `None` for a trace without events.
pub fn busy_range(trace: &Trace) -> Option<(i64, i64)> {
    let total: usize = trace.slice_count();
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    if total > 0 {
        let stride = total.div_ceil(MAX_SAMPLES).max(1);
        for t in &trace.tracks {
            let s = &t.slices;
            for i in (0..s.len()).step_by(stride) {
                starts.push(s.start_ns[i]);
                ends.push(s.end_ns(i));
            }
        }
    } else if trace.instant_count() > 0 {
        for t in &trace.tracks {
            starts.extend_from_slice(&t.instants.ts_ns);
        }
        ends = starts.clone();
    } else {
        for c in &trace.counters {
            starts.extend_from_slice(&c.ts_ns);
        }
        ends = starts.clone();
    }
    if starts.is_empty() {
        return None;
    }
    let k = ((starts.len() as f64) * OUTLIER_FRACTION).floor() as usize;
    let k = k.min(starts.len() - 1);
    let (_, &mut q0, _) = starts.select_nth_unstable(k);
    let hi = ends.len() - 1 - k.min(ends.len() - 1);
    let (_, &mut q1, _) = ends.select_nth_unstable(hi);
    // events just outside the quantiles are not outliers: keep those within a margin
    let margin = ((q1 - q0).max(0) / 4).max(1);
    let lo = q0.saturating_sub(margin);
    let hi = q1.saturating_add(margin);
    let t0 = starts.iter().copied().filter(|&t| t >= lo).min().unwrap_or(q0).min(q0);
    let t1 = ends.iter().copied().filter(|&t| t <= hi).max().unwrap_or(q1).max(q1);
    Some(if t1 > t0 { (t0, t1) } else { (t0, t0.saturating_add(1)) })
}

/// Whether the busy range is much narrower than the whole trace (so the view should start there).
pub fn busy_is_narrow(trace: &Trace, busy: (i64, i64)) -> bool {
    let full = (trace.end_ns - trace.start_ns).max(1) as f64;
    ((busy.1 - busy.0) as f64) < 0.5 * full
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
        assert!(t0 <= 1_000, "{t0}");
        assert!(t1 <= 1_000_000, "{t1}");
        assert!(t1 >= 990_000, "{t1}");
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
    fn evenly_spread_events_keep_the_whole_range() {
        let v: Vec<(i64, i64)> = (0..100).map(|i| (i * 1_000, 500)).collect();
        let tr = trace_with(&v);
        let (t0, t1) = busy_range(&tr).unwrap();
        assert_eq!((t0, t1), (0, 99_500));
        assert!(!busy_is_narrow(&tr, (t0, t1)));
    }
}
