//! The ranks' clock alignment as the timeline draws it (issue 41 §1): the user's
//! [`Align`] (as recorded / start of `ProfilerStep#k` / end of the n-th collective) turned into a
//! clock offset per group, track and counter, from `loupe_core::analysis::ranks` — the same
//! offsets `loupe ranks --align … --json` prints. A view setting: the model's times never change;
//! the painter draws a track's recorded time `t` at `t + offset`, the hit list is what was
//! painted, and the tooltip and Event Details show the aligned time beside the offset.
//!
//! The ranks report (per-rank breakdown, steps, collectives) is computed once per loaded trace
//! and shared by the alignment and the Rank Summary widget ([`report`]).

use std::cell::RefCell;
use std::sync::Arc;

use loupe_core::analysis::gpu::GpuOptions;
use loupe_core::analysis::ranks::{self, Align, RankOffset, RanksReport};
use loupe_core::model::{Iteration, TrackId};
use loupe_core::Trace;

/// The offsets one alignment gives (empty vectors: every offset 0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClockShift {
    /// The alignment asked for.
    pub align: Align,
    /// Per track (by `TrackId`): ns added to its recorded times when drawn.
    pub track_ns: Vec<i64>,
    /// Per counter (by `CounterId`).
    pub counter_ns: Vec<i64>,
    /// Per rank, ascending (what the header shows: "rank 1 +12.3 µs").
    pub ranks: Vec<RankOffset>,
    /// Why the alignment could not be applied (the clocks stay as recorded).
    pub error: Option<String>,
    /// The iterations the ruler shows under this alignment: the `ProfilerStep#k` of the lowest
    /// rank that has steps, on its aligned clock (the model's iterations are every rank's on its
    /// recorded clock). `None`: as recorded, the model's.
    pub iterations: Option<Vec<Iteration>>,
}

impl ClockShift {
    pub fn track(&self, t: TrackId) -> i64 {
        self.track_ns.get(t.idx()).copied().unwrap_or(0)
    }
    pub fn counter(&self, c: usize) -> i64 {
        self.counter_ns.get(c).copied().unwrap_or(0)
    }
    /// No offset anywhere.
    pub fn is_identity(&self) -> bool {
        self.track_ns.iter().chain(&self.counter_ns).all(|&o| o == 0)
    }
    /// The offset of a rank, when the alignment placed it.
    pub fn rank(&self, rank: i64) -> Option<i64> {
        self.ranks.iter().find(|o| o.rank == rank).and_then(|o| o.offset_ns)
    }
}

thread_local! {
    /// (load generation, the ranks report of that load).
    static REPORT: RefCell<Option<(u64, Arc<Result<RanksReport, String>>)>> = const { RefCell::new(None) };
}

/// The ranks report of the trace of load `generation` (clocks as recorded; Loupe's
/// definitions, as `loupe ranks` by default), computed on first use and kept for that load.
pub fn report(generation: u64, trace: &Trace) -> Arc<Result<RanksReport, String>> {
    if let Some(r) =
        REPORT.with_borrow(|c| c.as_ref().filter(|(g, _)| *g == generation).map(|(_, r)| r.clone()))
    {
        return r;
    }
    let r = Arc::new(ranks::ranks_report(trace, &GpuOptions::default(), Align::AsRecorded));
    REPORT.with_borrow_mut(|c| *c = Some((generation, r.clone())));
    r
}

/// The report when it has been computed for this load already (no work).
pub fn cached_report(generation: u64) -> Option<Arc<Result<RanksReport, String>>> {
    REPORT.with_borrow(|c| c.as_ref().filter(|(g, _)| *g == generation).map(|(_, r)| r.clone()))
}

/// The offsets of `align` on the trace of load `generation`.
pub fn shift(generation: u64, trace: &Trace, align: Align) -> ClockShift {
    let none = ClockShift { align, ..Default::default() };
    if align == Align::AsRecorded {
        return none;
    }
    let rep = report(generation, trace);
    let rep = match rep.as_ref() {
        Ok(r) => r,
        Err(e) => return ClockShift { error: Some(e.clone()), ..none },
    };
    let offs = match ranks::offsets(&rep.rank_numbers(), &rep.steps, &rep.collectives, align) {
        Ok(o) => o,
        Err(e) => return ClockShift { error: Some(e), ..none },
    };
    if let Some(r) = offs.iter().find(|o| o.offset_ns.is_none()) {
        let why = match align {
            Align::Iteration(k) => format!("rank {} has no ProfilerStep#{k}", r.rank),
            _ => format!("rank {} lacks collective {}", r.rank, align.key()),
        };
        return ClockShift { error: Some(why), ranks: offs, ..none };
    }
    let groups = ranks::group_offsets(&ranks::group_ranks(trace), &offs);
    let of_group = |g: loupe_core::model::GroupId| groups.get(g.idx()).copied().unwrap_or(0);
    let track_ns = trace.tracks.iter().map(|t| of_group(t.group)).collect();
    let mut counter_ns = vec![0; trace.counters.len()];
    for (gi, g) in trace.groups.iter().enumerate() {
        for c in &g.counters {
            if let Some(x) = counter_ns.get_mut(c.idx()) {
                *x = groups.get(gi).copied().unwrap_or(0);
            }
        }
    }
    let iterations = Some(reference_iterations(&rep.steps, &offs));
    ClockShift { align, track_ns, counter_ns, ranks: offs, error: None, iterations }
}

/// The steps of the lowest rank that has any, each moved by that rank's offset, as the ruler's
/// iterations (sorted by start, as the model's are).
fn reference_iterations(steps: &[ranks::RankSteps], offs: &[RankOffset]) -> Vec<Iteration> {
    let Some(r) = steps.iter().filter(|r| !r.steps.is_empty()).min_by_key(|r| r.rank) else {
        return Vec::new();
    };
    let off = offs.iter().find(|o| o.rank == r.rank).and_then(|o| o.offset_ns).unwrap_or(0);
    let mut v: Vec<Iteration> = r
        .steps
        .iter()
        .map(|s| Iteration {
            number: s.number,
            start_ns: s.start_ns.saturating_add(off),
            end_ns: s.start_ns.saturating_add(s.dur_ns).saturating_add(off),
        })
        .collect();
    v.sort_by_key(|i| (i.start_ns, i.number));
    v
}

/// The first `ProfilerStep#k` every rank has (the default when "start of iteration" is chosen).
pub fn first_common_step(rep: &RanksReport) -> Option<i64> {
    let grid = ranks::StepGrid::of(&rep.steps);
    (0..grid.steps.len())
        .find(|&c| {
            (0..grid.ranks.len()).all(|r| grid.cell(r, c).is_some()) && grid.ranks.len() == rep.steps.len()
        })
        .map(|c| grid.steps[c])
}

/// An offset for people: "+12.3 µs", "−4.00 ms", "0".
pub fn fmt_offset(ns: i64) -> String {
    if ns == 0 {
        return "0".into();
    }
    let sign = if ns > 0 { "+" } else { "−" };
    format!("{sign}{}", loupe_core::time::format_duration_ns(ns.saturating_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use loupe_core::analysis::ranks::{RankSteps, Step};
    use loupe_core::model::SliceRef;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn step(number: i64, start_ns: i64, dur_ns: i64) -> Step {
        Step { number, start_ns, dur_ns, slice: SliceRef { track: TrackId(0), index: 0 } }
    }

    /// The ruler's iterations under an alignment: the lowest rank with steps, moved by its
    /// offset, sorted by start; a rank without steps is passed over.
    #[test]
    fn reference_iterations_are_the_lowest_ranks_steps_on_its_aligned_clock() {
        let steps = vec![
            RankSteps { rank: 3, steps: vec![step(7, 5_000, 100)] },
            RankSteps { rank: 0, steps: vec![] },
            RankSteps { rank: 1, steps: vec![step(5, 2_000, 300), step(4, 1_000, 900)] },
        ];
        let offs = vec![
            RankOffset { rank: 0, offset_ns: Some(0) },
            RankOffset { rank: 1, offset_ns: Some(-250) },
            RankOffset { rank: 3, offset_ns: Some(40) },
        ];
        let it = reference_iterations(&steps, &offs);
        assert_eq!(
            it,
            vec![
                Iteration { number: 4, start_ns: 750, end_ns: 1_650 },
                Iteration { number: 5, start_ns: 1_750, end_ns: 2_050 },
            ]
        );
        assert!(reference_iterations(&[], &offs).is_empty());
    }
}
