//! Metrics of the interval between two annotation markers (the Annotations widget's "diff vs"):
//! its length, and per track and per Neuron engine the event count, busy time and utilisation,
//! plus DMA bytes on DMA tracks. Built on the prefix sums of [`WindowIndex`], so an interval
//! costs O(tracks × depths × log n) whatever its length.
//!
//! How slices crossing the interval's edges count (the window semantics of `WindowIndex`):
//! - **count**: every slice overlapping `[t0, t1)` counts once, whole (a slice from before `t0`
//!   into the interval is one event of the interval);
//! - **busy time / utilisation**: only the part inside the interval (clipped), union of the
//!   track's slices, so nested or overlapping slices are not counted twice;
//! - **DMA bytes**: the whole byte count of every DMA slice overlapping the interval (a transfer
//!   is not split by time: the byte column says nothing about when inside it the bytes moved).
//! - **engines**: the window summary's engine measures ([`super::measures`] `ENGINE_*`): count
//!   whole, instruction time clipped and without semaphore waits, active time = clipped union of
//!   the non-wait instructions over the interval's length, waiting apart.

use serde::Serialize;

use crate::analysis::summary::{EngineWindow, WindowIndex};
use crate::model::{Trace, TrackId};

/// One track inside the interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntervalTrack {
    pub track: TrackId,
    /// "group / track" as the timeline shows it.
    pub label: String,
    /// Slices overlapping the interval (whole, any depth).
    pub count: u64,
    /// Time the track had at least one slice, inside the interval.
    pub busy_ns: i64,
    /// busy / interval length, 0..=1.
    pub utilisation: f64,
    /// Bytes of the DMA slices overlapping the interval; `None` on tracks that are not DMA.
    pub dma_bytes: Option<u64>,
}

/// The interval's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntervalMetrics {
    pub t0_ns: i64,
    pub t1_ns: i64,
    pub len_ns: i64,
    /// Tracks with at least one event in the interval, busiest first.
    pub tracks: Vec<IntervalTrack>,
    /// Neuron engines (all their tracks together), in engine order; empty for other profiles.
    pub engines: Vec<EngineWindow>,
    /// Slices overlapping the interval, all tracks.
    pub events: u64,
    /// Bytes of all DMA slices overlapping the interval (`None` when the profile has no DMA track).
    pub dma_bytes: Option<u64>,
}

/// Metrics of the interval between `a_ns` and `b_ns` (in either order).
pub fn interval_metrics(trace: &Trace, index: &WindowIndex, a_ns: i64, b_ns: i64) -> IntervalMetrics {
    interval_metrics_on_view_clock(trace, index, a_ns, b_ns, &[])
}

/// [`interval_metrics`] between two markers placed on the view's clock, where track `k` is drawn
/// `track_offset_ns[k]` later than recorded (the ranks' alignment): each track is read over the
/// interval moved back by its offset ([`WindowIndex::window_on_view_clock`]).
pub fn interval_metrics_on_view_clock(
    trace: &Trace,
    index: &WindowIndex,
    a_ns: i64,
    b_ns: i64,
    track_offset_ns: &[i64],
) -> IntervalMetrics {
    let (t0, t1) = (a_ns.min(b_ns), a_ns.max(b_ns));
    let len_ns = t1.saturating_sub(t0);
    let any_dma = trace.tracks.iter().any(|t| t.role.is_dma());
    if len_ns == 0 {
        // two markers at one time: an empty interval holds nothing (the window index would still
        // report the slices that contain that instant)
        return IntervalMetrics {
            t0_ns: t0,
            t1_ns: t1,
            len_ns,
            tracks: Vec::new(),
            engines: Vec::new(),
            events: 0,
            dma_bytes: any_dma.then_some(0),
        };
    }
    let s = index.window_on_view_clock(trace, t0, t1, None, track_offset_ns);
    let mut dma_total = 0u64;
    let mut tracks: Vec<IntervalTrack> = s
        .tracks
        .iter()
        .filter(|tw| tw.count > 0)
        .map(|tw| {
            let is_dma = trace.tracks.get(tw.track.idx()).is_some_and(|t| t.role.is_dma());
            if is_dma {
                dma_total = dma_total.saturating_add(tw.bytes);
            }
            IntervalTrack {
                track: tw.track,
                label: trace.track_label(tw.track),
                count: tw.count,
                busy_ns: tw.busy_ns,
                utilisation: s.utilisation(tw),
                dma_bytes: is_dma.then_some(tw.bytes),
            }
        })
        .collect();
    tracks.sort_by(|a, b| b.busy_ns.cmp(&a.busy_ns).then(b.count.cmp(&a.count)).then(a.track.cmp(&b.track)));
    IntervalMetrics {
        t0_ns: t0,
        t1_ns: t1,
        len_ns,
        events: s.slices,
        engines: s.engines,
        tracks,
        dma_bytes: any_dma.then_some(dma_total),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, Engine, GroupKind, Layout, SliceDomain, TraceBuilder, TrackKind, TrackRole};
    use crate::strings::StrId;

    /// A device with one Tensor engine track (lanes), one DMA queue, and a host thread (nested).
    fn trace() -> Trace {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        b.set_track_layout(pe, Layout::Lanes);
        let n = b.intern("mm");
        // [0,10) [5,15) overlap; [20,30); [100,110)
        for (s, d) in [(0, 10), (5, 10), (20, 10), (100, 10)] {
            b.add_slice(pe, s, d, n, StrId::EMPTY, ArgsId::NONE);
        }
        let q = b.add_track(g, "q0", TrackKind::Dma, "q");
        b.set_track_role(q, TrackRole::DmaQueue);
        for (s, d, by) in [(0, 4, 100), (8, 4, 200), (40, 4, 300)] {
            let h = b.add_slice(q, s, d, n, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { bytes: by, ..Default::default() });
        }
        let hg = b.add_group("host", GroupKind::Process);
        let th = b.add_track(hg, "main", TrackKind::Thread, "1");
        // nested: [0,100) containing [10,20)
        b.add_slice(th, 0, 100, n, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 10, 10, n, StrId::EMPTY, ArgsId::NONE);
        let t = b.finish();
        t.validate().unwrap();
        t
    }

    fn track<'a>(m: &'a IntervalMetrics, t: &Trace, name: &str) -> Option<&'a IntervalTrack> {
        m.tracks.iter().find(|x| t.str(t.track(x.track).name) == name)
    }

    #[test]
    fn known_answers_with_slices_crossing_the_edges() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        // markers given in reverse order: the interval is [7, 25)
        let m = interval_metrics(&t, &ix, 25, 7);
        assert_eq!((m.t0_ns, m.t1_ns, m.len_ns), (7, 25, 18));
        // Tensor: [0,10) and [5,15) cross the left edge, [20,30) the right: 3 events, whole;
        // busy = [7,15) + [20,25) = 13 of 18
        let pe = track(&m, &t, "Tensor").unwrap();
        assert_eq!((pe.count, pe.busy_ns, pe.dma_bytes), (3, 13, None));
        assert!((pe.utilisation - 13.0 / 18.0).abs() < 1e-12);
        // DMA: [0,4) ends before 7, [8,12) inside: 1 event, 200 bytes, busy 4
        let q = track(&m, &t, "q0").unwrap();
        assert_eq!((q.count, q.busy_ns, q.dma_bytes), (1, 4, Some(200)));
        // host: [0,100) and [10,20) both overlap; busy is their union clipped = 18 (100 %)
        let h = track(&m, &t, "main").unwrap();
        assert_eq!((h.count, h.busy_ns), (2, 18));
        assert!((h.utilisation - 1.0).abs() < 1e-12);
        assert_eq!(m.events, 6);
        assert_eq!(m.dma_bytes, Some(200));
        // busiest first
        assert_eq!(m.tracks.iter().map(|x| x.busy_ns).collect::<Vec<_>>(), vec![18, 13, 4]);
        // the engine roll-up: instruction time is clipped per slice ([7,10)+[7,15)+[20,25) = 16)
        assert_eq!(m.engines.len(), 1);
        let e = m.engines[0];
        assert_eq!(
            (e.engine, e.instruction_count, e.instruction_time_ns, e.active_time_ns),
            (Some(Engine::Tensor), 3, 16, 13)
        );
        assert!((e.active_percent - 13.0 / 18.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_dma_transfer_crossing_an_edge_counts_its_whole_bytes() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        // [2, 9): [0,4) crosses the left edge, [8,12) the right one: both whole
        let m = interval_metrics(&t, &ix, 2, 9);
        let q = track(&m, &t, "q0").unwrap();
        assert_eq!((q.count, q.busy_ns, q.dma_bytes), (2, 3, Some(300)));
    }

    #[test]
    fn empty_and_idle_intervals() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        // two markers at the same time: nothing overlaps an empty interval
        let m = interval_metrics(&t, &ix, 50, 50);
        assert_eq!((m.len_ns, m.events), (0, 0));
        assert!(m.tracks.is_empty());
        // an idle stretch of the engine: only the host's long slice is there
        let m = interval_metrics(&t, &ix, 50, 90);
        assert_eq!(m.tracks.len(), 1);
        assert_eq!((m.tracks[0].count, m.tracks[0].busy_ns), (1, 40));
        assert_eq!(m.dma_bytes, Some(0));
        // past the end of the trace
        let m = interval_metrics(&t, &ix, 1_000, 2_000);
        assert_eq!(m.events, 0);
    }

    #[test]
    fn a_trace_without_dma_has_no_byte_column() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("p", GroupKind::Process);
        let th = b.add_track(g, "t", TrackKind::Thread, "1");
        let n = b.intern("x");
        b.add_slice(th, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        let t = b.finish();
        let m = interval_metrics(&t, &WindowIndex::build(&t), 0, 5);
        assert_eq!(m.dma_bytes, None);
        assert_eq!(m.tracks[0].dma_bytes, None);
        assert_eq!((m.tracks[0].count, m.tracks[0].busy_ns), (1, 5));
    }
}
