//! Queries over the finished model: aggregation by name over a time range, and the summary the
//! CLI and the app show.

use crate::model::{ProgramKind, SliceRef, Trace, TrackId};
use crate::strings::{FxHashMap, StrId};

/// Totals of one slice name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NameStat {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
}

/// Aggregate slices overlapping `[t0_ns, t1_ns)` by name (durations clipped to the range),
/// sorted by total duration (descending), then name. Uses binary search per track depth, so only
/// the slices in range are visited.
pub fn aggregate_by_name(trace: &Trace, t0_ns: i64, t1_ns: i64) -> Vec<NameStat> {
    let mut agg = NameAggregation::new(t0_ns, t1_ns);
    while agg.add_next(trace, usize::MAX) {}
    agg.finish(trace)
}

/// [`aggregate_by_name`] in bounded steps, for a caller that must not stall (the page builds the
/// whole trace's totals between frames): [`NameAggregation::add_next`] until it says `false`,
/// then [`NameAggregation::finish`]. The result does not depend on the step sizes.
#[derive(Debug, Clone)]
pub struct NameAggregation {
    t0_ns: i64,
    t1_ns: i64,
    acc: FxHashMap<StrId, (u64, i64)>,
    /// next (track, depth) and how many of its in-range slices are done
    track: usize,
    depth: usize,
    done_at_depth: usize,
}

impl NameAggregation {
    pub fn new(t0_ns: i64, t1_ns: i64) -> NameAggregation {
        NameAggregation { t0_ns, t1_ns, acc: FxHashMap::default(), track: 0, depth: 0, done_at_depth: 0 }
    }

    /// Add at most `budget` more slices (at least one track depth is looked at); `false` once
    /// every slice in range has been added.
    pub fn add_next(&mut self, trace: &Trace, budget: usize) -> bool {
        let mut left = budget.max(1);
        while let Some(t) = trace.tracks.get(self.track) {
            let cols = &t.slices;
            if t.role.is_derived() || self.depth >= cols.depth_count() {
                self.track += 1;
                self.depth = 0;
                self.done_at_depth = 0;
                continue;
            }
            let r = cols.range_at_depth(self.depth, self.t0_ns, self.t1_ns);
            let from = r.start + self.done_at_depth;
            let to = r.end.min(from.saturating_add(left));
            for i in from..to {
                let s = cols.start_ns[i].max(self.t0_ns);
                let e = cols.end_ns(i).min(self.t1_ns).max(s);
                let a = self.acc.entry(cols.name[i]).or_insert((0, 0));
                a.0 += 1;
                a.1 = a.1.saturating_add(e - s);
            }
            left -= to - from;
            if to == r.end {
                self.depth += 1;
                self.done_at_depth = 0;
            } else {
                self.done_at_depth += to - from;
            }
            if left == 0 {
                return self.track < trace.tracks.len();
            }
        }
        false
    }

    /// The totals, sorted by total duration (descending), then name.
    pub fn finish(self, trace: &Trace) -> Vec<NameStat> {
        let mut v: Vec<NameStat> = self
            .acc
            .into_iter()
            .map(|(n, (count, total_ns))| NameStat { name: trace.str(n).to_string(), count, total_ns })
            .collect();
        v.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
        v
    }
}

/// The headline numbers of a trace (the CLI's `summary --json`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub format: String,
    pub tracks: usize,
    pub slices: usize,
    pub instants: usize,
    pub counter_samples: usize,
    pub flows: usize,
    pub start_ns: i64,
    pub end_ns: i64,
    pub warnings: u64,
    pub top: Vec<NameStat>,
    /// Present when a NEFF was loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neff: Option<NeffSummary>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct NeffSummary {
    pub uuid: String,
    pub network_name: String,
    pub lnc_size: u64,
    pub subgraphs: Vec<NeffSubgraphSummary>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct NeffSubgraphSummary {
    pub name: String,
    /// Instruction count per engine: Tensor, Vector, Scalar, GpSimd, Sync.
    pub instructions: std::collections::BTreeMap<String, u64>,
}

fn neff_summary(trace: &Trace) -> Option<NeffSummary> {
    let p = trace.program.as_ref().filter(|p| p.kind == ProgramKind::Neff)?;
    Some(NeffSummary {
        uuid: p.header.uuid.clone(),
        network_name: p.header.network_name.clone(),
        lnc_size: p.header.lnc_size.map_or(0, u64::from),
        subgraphs: p
            .subgraphs
            .iter()
            .map(|s| NeffSubgraphSummary {
                name: s.name.clone(),
                instructions: s.engines.iter().map(|(e, n)| (e.name().to_string(), *n)).collect(),
            })
            .collect(),
    })
}

pub fn summary(trace: &Trace) -> Summary {
    let mut top = aggregate_by_name(trace, i64::MIN, i64::MAX);
    top.truncate(10);
    Summary {
        format: trace.format.clone(),
        tracks: trace.tracks.len(),
        slices: trace.slice_count(),
        instants: trace.instant_count(),
        counter_samples: trace.counter_sample_count(),
        flows: trace.flows.len(),
        start_ns: trace.start_ns,
        end_ns: trace.end_ns,
        warnings: trace.warnings.total(),
        top,
        neff: neff_summary(trace),
    }
}

/// Every slice as (track, index), tracks in display order, each track's slices by start time
/// (then depth).
pub fn slices_in_display_order(trace: &Trace) -> Vec<SliceRef> {
    let mut out = Vec::with_capacity(trace.slice_count());
    for g in trace.ordered_groups() {
        let mut tracks: Vec<TrackId> = trace.groups[g.idx()].tracks.clone();
        tracks.sort_by_key(|t| (trace.track(*t).sort_index, t.0));
        for tid in tracks {
            let cols = &trace.track(tid).slices;
            let mut idx: Vec<u32> = (0..cols.len() as u32).collect();
            // depth-major storage: stable sort by start keeps parents before children
            idx.sort_by_key(|&i| cols.start_ns[i as usize]);
            out.extend(idx.into_iter().map(|index| SliceRef { track: tid, index }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, TraceBuilder, TrackKind};

    #[test]
    fn aggregate_clips_and_sorts() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "main", TrackKind::Thread, "1");
        let a = b.intern("a");
        let c = b.intern("c");
        b.add_slice(t, 0, 100, a, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(t, 10, 20, c, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(t, 200, 50, c, StrId::EMPTY, ArgsId::NONE);
        let tr = b.finish();
        let all = aggregate_by_name(&tr, i64::MIN, i64::MAX);
        assert_eq!(all[0], NameStat { name: "a".into(), count: 1, total_ns: 100 });
        assert_eq!(all[1], NameStat { name: "c".into(), count: 2, total_ns: 70 });
        let part = aggregate_by_name(&tr, 50, 210);
        assert_eq!(part[0], NameStat { name: "a".into(), count: 1, total_ns: 50 });
        assert_eq!(part[1], NameStat { name: "c".into(), count: 1, total_ns: 10 });
        let s = summary(&tr);
        assert_eq!((s.slices, s.start_ns, s.end_ns), (3, 0, 250));
        assert_eq!(slices_in_display_order(&tr).len(), 3);
    }

    /// The stepped aggregation equals a naive pass over every slice (overlap as
    /// `range_at_depth` defines it), whatever the step size.
    #[test]
    fn stepped_aggregation_matches_a_naive_pass() {
        let tr = crate::demo::large_demo(20_000, &mut |_, _| {});
        let mut ranges = vec![(tr.start_ns, tr.end_ns), (i64::MIN, i64::MAX)];
        let span = tr.end_ns - tr.start_ns;
        ranges.push((tr.start_ns + span / 3, tr.start_ns + span / 2));
        for (t0, t1) in ranges {
            let mut acc: std::collections::BTreeMap<String, (u64, i64)> = Default::default();
            for t in tr.tracks.iter().filter(|t| !t.role.is_derived()) {
                let c = &t.slices;
                for i in 0..c.len() {
                    let (s, e) = (c.start_ns[i], c.end_ns(i));
                    if s < t1 && (e > t0 || (c.dur_ns.at(i) == 0 && s == t0)) {
                        let a = acc.entry(tr.str(c.name[i]).to_string()).or_default();
                        a.0 += 1;
                        a.1 += e.min(t1).max(s.max(t0)) - s.max(t0);
                    }
                }
            }
            let whole = aggregate_by_name(&tr, t0, t1);
            let mut naive: Vec<NameStat> =
                acc.into_iter().map(|(name, (count, total_ns))| NameStat { name, count, total_ns }).collect();
            naive.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
            assert!(!naive.is_empty());
            assert_eq!(whole, naive);
            for budget in [1, 7, 1000] {
                let mut agg = NameAggregation::new(t0, t1);
                let mut steps = 0;
                while agg.add_next(&tr, budget) {
                    steps += 1;
                }
                assert!(budget > 1 || steps >= naive.iter().map(|n| n.count).sum::<u64>() as usize - 1);
                assert_eq!(agg.finish(&tr), whole, "budget {budget}");
            }
        }
    }
}
