//! **Regions** (Neuron Explorer's Region Highlighter): a profile cut into named time regions by
//! one method at a time, so that each region can be read as an annotation interval (its own
//! summary, `interval::interval_metrics`) and regions compared side by side.
//!
//! Methods, and what each region is:
//! - [`RegionMethod::Operator`] at a level (framework operator, layer, HLO operator): per device
//!   group, the typed `operator` column of its engine and DMA tracks (never names) mapped to
//!   the ancestor at that level. Work sorted by start; a region is a run of consecutive work
//!   whose operator at the level is the same (work without one does not break a run), from the
//!   run's first start to its last end, cut at the next run's start so regions never overlap (a
//!   run cut to nothing is dropped) — the operator timeline's own `spans`
//!   (`model/builder/op_timeline.rs`), over all of a device's engines and queues together. Only
//!   when the profile has operators at that level.
//! - [`RegionMethod::Iterations`]: the importer's iterations (Kineto `ProfilerStep#N`), as they
//!   are.
//! - [`RegionMethod::Collectives`]: per group, the communication kernels on its GPU streams
//!   (typed kernels whose name `gpu::kernels::is_communication` accepts; several streams' kernels
//!   overlapping in time count as one collective). Region `k` runs from the end of collective
//!   `k − 1` (the first from the group's first work) to the end of collective `k`: the compute
//!   phase before a collective and the collective itself, named after it. Only when there are
//!   collectives.
//!
//! Not available, and why ([`methods`] says so per profile): NKI kernel frames (Explorer's third
//! method) need the Explorer's `KernelStackFrames` table; neither an NTFF, a NEFF nor the JSON
//! export carries a kernel's frame boundaries, and the Parquet importer skips that table.
//!
//! [`durations`] sums the regions by name (count, total, min / median / max): the chart of
//! region durations.

use crate::analysis::gpu::kernels::is_communication;
use crate::model::builder::op_timeline::{spans, Work};
use crate::model::{GpuWork, GroupId, OpId, OpLevel, SourceId, Trace, TrackRole};
use crate::strings::{FxHashMap, StrId};

/// How regions are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "method", content = "level")]
pub enum RegionMethod {
    Operator(OpLevel),
    Iterations,
    Collectives,
}

impl RegionMethod {
    /// Every method, in the order a menu lists them.
    pub const ALL: [RegionMethod; 5] = [
        RegionMethod::Operator(OpLevel::Framework),
        RegionMethod::Operator(OpLevel::Layer),
        RegionMethod::Operator(OpLevel::Hlo),
        RegionMethod::Iterations,
        RegionMethod::Collectives,
    ];
    pub fn label(self) -> &'static str {
        match self {
            RegionMethod::Operator(OpLevel::Framework) => "Framework operators",
            RegionMethod::Operator(OpLevel::Layer) => "Layers",
            RegionMethod::Operator(OpLevel::Hlo) => "HLO operators",
            RegionMethod::Operator(_) => "Operators",
            RegionMethod::Iterations => "Iterations",
            RegionMethod::Collectives => "Collective boundaries",
        }
    }
    /// A stable key (menus, links).
    pub fn key(self) -> &'static str {
        match self {
            RegionMethod::Operator(OpLevel::Framework) => "framework",
            RegionMethod::Operator(OpLevel::Layer) => "layer",
            RegionMethod::Operator(OpLevel::Hlo) => "hlo",
            RegionMethod::Operator(OpLevel::Penguin) => "penguin",
            RegionMethod::Operator(OpLevel::Bir) => "bir",
            RegionMethod::Iterations => "iterations",
            RegionMethod::Collectives => "collectives",
        }
    }
    pub fn from_key(k: &str) -> Option<RegionMethod> {
        RegionMethod::ALL.into_iter().find(|m| m.key() == k)
    }
}

/// One region.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Region {
    pub name: String,
    pub start_ns: i64,
    pub end_ns: i64,
    /// The device / process group it was made from (`None`: the whole profile, iterations).
    pub group: Option<GroupId>,
}

impl Region {
    pub fn dur_ns(&self) -> i64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// Why a method makes no region on this profile.
pub fn unavailable(trace: &Trace, method: RegionMethod) -> Option<String> {
    match method {
        RegionMethod::Operator(level) => {
            (!trace.operators.nodes.iter().any(|n| n.level == level)).then(|| {
                format!(
                    "no {} in this profile: regions by operator need instructions attributed to operators \
                 (a NEFF or the JSON export beside the NTFF)",
                    method.label().to_lowercase()
                )
            })
        }
        RegionMethod::Iterations => trace
            .iterations
            .is_empty()
            .then(|| "no iterations in this profile (Kineto ProfilerStep#N annotations)".to_string()),
        RegionMethod::Collectives => {
            let mut coll = Collectives::new(trace);
            let any = trace
                .tracks
                .iter()
                .filter(|t| t.role == TrackRole::GpuStream)
                .any(|t| (0..t.slices.len()).any(|i| coll.is(t, i)));
            (!any).then(|| "no collective kernels on the GPU streams of this profile".to_string())
        }
    }
}

/// Each method with the reason it makes nothing here (`None`: available).
pub fn methods(trace: &Trace) -> Vec<(RegionMethod, Option<String>)> {
    RegionMethod::ALL.into_iter().map(|m| (m, unavailable(trace, m))).collect()
}

/// Whether slice `i` of `t` is a collective kernel: a typed kernel whose name
/// [`is_communication`] accepts, the name tested once per distinct name (the test lower-cases it
/// and searches it for ~20 families; a trace has ~10⁵ kernels and ~10² names).
struct Collectives<'a> {
    trace: &'a Trace,
    by_name: FxHashMap<StrId, bool>,
}

impl<'a> Collectives<'a> {
    fn new(trace: &'a Trace) -> Self {
        Collectives { trace, by_name: FxHashMap::default() }
    }
    fn is(&mut self, t: &crate::model::Track, i: usize) -> bool {
        let trace = self.trace;
        t.slices.gpu_work_of(i) == Some(GpuWork::Kernel)
            && *self
                .by_name
                .entry(t.slices.name[i])
                .or_insert_with(|| is_communication(trace.str(t.slices.name[i])))
    }
}

/// The regions of `method`, in time order (per group, then by start).
pub fn regions(trace: &Trace, method: RegionMethod) -> Vec<Region> {
    if unavailable(trace, method).is_some() {
        return Vec::new();
    }
    match method {
        RegionMethod::Operator(level) => operator_regions(trace, level),
        RegionMethod::Iterations => trace
            .iterations
            .iter()
            .map(|it| Region {
                name: format!("iteration {}", it.number),
                start_ns: it.start_ns,
                end_ns: it.end_ns,
                group: None,
            })
            .collect(),
        RegionMethod::Collectives => collective_regions(trace),
    }
}

fn operator_regions(trace: &Trace, level: OpLevel) -> Vec<Region> {
    let ops = &trace.operators;
    let at: Vec<OpId> = (0..ops.len()).map(|i| ops.at_level(OpId(i as u32), level)).collect();
    let mut out = Vec::new();
    for (g, group) in trace.groups.iter().enumerate() {
        // every attributed engine / DMA slice, as the operator timeline takes it
        let mut work: Vec<Work> = Vec::new();
        for &tid in &group.tracks {
            let t = trace.track(tid);
            if !(t.role.engine().is_some() || t.role.is_dma()) {
                continue;
            }
            let Some(dom) = t.slices.domain.as_ref() else { continue };
            for i in 0..t.slices.len() {
                let op = dom.operator(i);
                if !op.is_none() {
                    let s = t.slices.start_ns[i];
                    work.push((s, s.saturating_add(t.slices.dur_ns.at(i)), op, SourceId::NONE));
                }
            }
        }
        work.sort_unstable_by_key(|w| (w.0, w.1));
        // the operator timeline's runs (one rule for both), over all of the device's lanes
        for (s, e, op, _) in spans(&work, |op| at.get(op.idx()).copied().unwrap_or(OpId::NONE)) {
            let name = ops.node(op).map_or("?", |n| trace.str(n.name)).to_string();
            out.push(Region { name, start_ns: s, end_ns: e, group: Some(GroupId(g as u32)) });
        }
    }
    out
}

fn collective_regions(trace: &Trace) -> Vec<Region> {
    let mut out = Vec::new();
    let mut collective = Collectives::new(trace);
    for (g, group) in trace.groups.iter().enumerate() {
        let mut first_work = i64::MAX;
        // (start, end, name) of the group's collective kernels
        let mut coll: Vec<(i64, i64, &str)> = Vec::new();
        for &tid in &group.tracks {
            let t = trace.track(tid);
            if t.role != TrackRole::GpuStream {
                continue;
            }
            for i in 0..t.slices.len() {
                let s = t.slices.start_ns[i];
                if t.slices.gpu_work_of(i).is_some_and(GpuWork::is_work) {
                    first_work = first_work.min(s);
                }
                if collective.is(t, i) {
                    coll.push((s, s.saturating_add(t.slices.dur_ns.at(i)), trace.str(t.slices.name[i])));
                }
            }
        }
        coll.sort_unstable_by_key(|c| (c.0, c.1));
        // overlapping collectives (several streams, one operation) are one
        let mut merged: Vec<(i64, i64, &str)> = Vec::new();
        for c in coll {
            match merged.last_mut() {
                Some(m) if c.0 < m.1 => m.1 = m.1.max(c.1),
                _ => merged.push(c),
            }
        }
        let mut from = first_work.min(merged.first().map_or(i64::MAX, |m| m.0));
        for (_, end, name) in merged {
            out.push(Region {
                name: format!("→ {}", short_kernel(name)),
                start_ns: from,
                end_ns: end,
                group: Some(GroupId(g as u32)),
            });
            from = end;
        }
    }
    out
}

/// A kernel name without its template / argument list (at most 60 characters).
fn short_kernel(name: &str) -> String {
    let base = name.split(['(', '<']).next().unwrap_or(name).trim();
    base.chars().take(60).collect()
}

/// Regions of one name together: the chart of region durations.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RegionDurations {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    /// The lower median (nearest rank) of the durations.
    pub median_ns: i64,
    pub max_ns: i64,
}

/// Per region name, longest total first (ties by name).
pub fn durations(regions: &[Region]) -> Vec<RegionDurations> {
    let mut by: std::collections::BTreeMap<&str, Vec<i64>> = std::collections::BTreeMap::new();
    for r in regions {
        by.entry(r.name.as_str()).or_default().push(r.dur_ns());
    }
    let mut out: Vec<RegionDurations> = by
        .into_iter()
        .map(|(name, mut d)| {
            d.sort_unstable();
            RegionDurations {
                name: name.to_string(),
                count: d.len() as u64,
                total_ns: d.iter().fold(0i64, |a, &x| a.saturating_add(x)),
                min_ns: d[0],
                median_ns: d[(d.len() - 1) / 2],
                max_ns: d[d.len() - 1],
            }
        })
        .collect();
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, Engine, GroupKind, SliceDomain, TraceBuilder, TrackId, TrackKind};
    use crate::strings::StrId;

    fn slice(b: &mut TraceBuilder, t: TrackId, s: i64, d: i64, name: &str, dom: SliceDomain) {
        let n = b.intern(name);
        let h = b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, dom);
    }

    /// A device with two engines whose instructions belong to operators A, B, A (framework) with
    /// HLO children; one instruction without an operator in the middle of A's run.
    fn device() -> Trace {
        let mut b = TraceBuilder::new("test");
        let fa = b.add_operator(OpId::NONE, OpLevel::Framework, "A");
        let a1 = b.add_operator(fa, OpLevel::Hlo, "a.1");
        let a2 = b.add_operator(fa, OpLevel::Hlo, "a.2");
        let fb = b.add_operator(OpId::NONE, OpLevel::Framework, "B");
        let b1 = b.add_operator(fb, OpLevel::Hlo, "b.1");
        let g = b.add_group("nc0", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let act = b.add_track(g, "Scalar", TrackKind::Stream, "act");
        b.set_track_role(act, TrackRole::Engine(Engine::Scalar));
        let host = b.add_track(g, "host", TrackKind::Thread, "h");
        let op = |operator| SliceDomain { operator, ..SliceDomain::default() };
        slice(&mut b, pe, 0, 10, "MATMUL", op(a1));
        slice(&mut b, act, 5, 10, "ACTIVATE", op(a2)); // same framework op, other HLO op, other engine
        slice(&mut b, pe, 12, 2, "MATMUL", op(OpId::NONE)); // no operator: does not break A's run
        slice(&mut b, pe, 20, 10, "MATMUL", op(b1));
        slice(&mut b, act, 25, 10, "ACTIVATE", op(b1));
        slice(&mut b, pe, 40, 5, "MATMUL", op(a1));
        slice(&mut b, host, 0, 1000, "host", op(fb)); // not device work: ignored
        b.finish()
    }

    #[test]
    fn operator_regions_are_runs_cut_at_the_next_run() {
        let t = device();
        let r = regions(&t, RegionMethod::Operator(OpLevel::Framework));
        let got: Vec<(&str, i64, i64)> = r.iter().map(|r| (r.name.as_str(), r.start_ns, r.end_ns)).collect();
        assert_eq!(got, vec![("A", 0, 15), ("B", 20, 35), ("A", 40, 45)]);
        let h = regions(&t, RegionMethod::Operator(OpLevel::Hlo));
        let got: Vec<(&str, i64, i64)> = h.iter().map(|r| (r.name.as_str(), r.start_ns, r.end_ns)).collect();
        // a.1 [0,10) is cut where a.2 starts (5): regions never overlap
        assert_eq!(got, vec![("a.1", 0, 5), ("a.2", 5, 15), ("b.1", 20, 35), ("a.1", 40, 45)]);
        let d = durations(&r);
        assert_eq!(d[0].name, "A");
        assert_eq!((d[0].count, d[0].total_ns, d[0].min_ns, d[0].median_ns, d[0].max_ns), (2, 20, 5, 5, 15));
        assert!(unavailable(&t, RegionMethod::Operator(OpLevel::Layer)).is_some());
        assert!(unavailable(&t, RegionMethod::Iterations).is_some());
        assert!(unavailable(&t, RegionMethod::Collectives).is_some());
        assert!(regions(&t, RegionMethod::Iterations).is_empty());
        assert_eq!(methods(&t).iter().filter(|m| m.1.is_none()).count(), 2);
    }

    /// A GPU rank: compute kernels, two all-reduces (one running on two streams at once), a memcpy.
    #[test]
    fn collective_regions_end_at_each_collective() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("rank 0", GroupKind::Process);
        let s7 = b.add_track(g, "stream 7", TrackKind::Stream, "7");
        b.set_track_role(s7, TrackRole::GpuStream);
        let s9 = b.add_track(g, "stream 9", TrackKind::Stream, "9");
        b.set_track_role(s9, TrackRole::GpuStream);
        let k = |w| SliceDomain { gpu_work: Some(w), ..SliceDomain::default() };
        slice(&mut b, s7, 100, 50, "Memcpy HtoD", k(GpuWork::Memcpy));
        slice(&mut b, s7, 200, 100, "ampere_sgemm_128x64", k(GpuWork::Kernel));
        slice(
            &mut b,
            s9,
            300,
            40,
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)",
            k(GpuWork::Kernel),
        );
        slice(
            &mut b,
            s7,
            310,
            50,
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)",
            k(GpuWork::Kernel),
        );
        slice(&mut b, s7, 400, 100, "ampere_sgemm_128x64", k(GpuWork::Kernel));
        slice(&mut b, s7, 500, 20, "ncclDevKernel_AllGather_RING_LL(ncclDevComm*)", k(GpuWork::Kernel));
        b.add_iteration(3, 100, 300);
        b.add_iteration(4, 300, 520);
        let t = b.finish();
        let r = regions(&t, RegionMethod::Collectives);
        let got: Vec<(&str, i64, i64)> = r.iter().map(|r| (r.name.as_str(), r.start_ns, r.end_ns)).collect();
        assert_eq!(
            got,
            vec![
                ("→ ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100, 360),
                ("→ ncclDevKernel_AllGather_RING_LL", 360, 520)
            ]
        );
        let it = regions(&t, RegionMethod::Iterations);
        assert_eq!(
            it.iter().map(|r| (r.name.as_str(), r.dur_ns())).collect::<Vec<_>>(),
            vec![("iteration 3", 200), ("iteration 4", 220)]
        );
        assert!(unavailable(&t, RegionMethod::Operator(OpLevel::Framework)).is_some());
    }
}
