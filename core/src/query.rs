//! Queries over the finished model: aggregation by name over a time range, and the summary the
//! CLI and the app show.

use crate::model::{SliceRef, Trace, TrackId};
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
    let mut acc: FxHashMap<StrId, (u64, i64)> = FxHashMap::default();
    for t in trace.tracks.iter().filter(|t| !t.role.is_derived()) {
        let cols = &t.slices;
        for d in 0..cols.depth_count() {
            for i in cols.range_at_depth(d, t0_ns, t1_ns) {
                let s = cols.start_ns[i].max(t0_ns);
                let e = cols.end_ns(i).min(t1_ns);
                let e = e.max(s);
                let a = acc.entry(cols.name[i]).or_insert((0, 0));
                a.0 += 1;
                a.1 = a.1.saturating_add(e - s);
            }
        }
    }
    let mut v: Vec<NameStat> = acc
        .into_iter()
        .map(|(n, (count, total_ns))| NameStat { name: trace.str(n).to_string(), count, total_ns })
        .collect();
    v.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    v
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
    let p = trace.program.as_ref().filter(|p| p.kind == "NEFF")?;
    let h = |k: &str| p.header.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()).unwrap_or_default();
    Some(NeffSummary {
        uuid: h("uuid"),
        network_name: h("network_name"),
        lnc_size: h("lnc_size").parse().unwrap_or(0),
        subgraphs: p
            .subgraphs
            .iter()
            .map(|s| NeffSubgraphSummary {
                name: s.name.clone(),
                instructions: s.engines.iter().cloned().collect(),
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
}
