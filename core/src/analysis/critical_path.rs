//! The critical path of one rank of a Kineto trace, as Holistic Trace Analysis 0.5.0 computes it
//! (`hta/analyzers/critical_path_analysis.py`: `CriticalPathAnalysis.critical_path_analysis` and
//! `CPGraph.summary()`). `scripts/hta_critical_path.py` prints HTA's own numbers for the shared
//! samples; `core/tests/critical_path.rs` checks this module against them.
//!
//! **Events.** As HTA loads a trace (`_filter_irrelevant_gpu_kernels`): when there are
//! `ProfilerStep`s, the last one and everything the CPU starts after its start are dropped, with
//! the GPU events launched from there (so the last step cannot be analysed, as in HTA).
//!
//! **Window.** One rank (one input file). With an annotation, the window is the span of its
//! `instance`-th occurrence (every slice whose name *contains* the annotation, as HTA matches
//! symbol names, in time order); without one, the whole rank. CPU events (no `stream` argument, or
//! −1) that start inside the window and last > 0 are kept; GPU events (a `stream` other than −1)
//! are kept when the CPU call correlated with them (Kineto's `correlation`) is, or when they are a
//! `Stream Wait Event`.
//!
//! **Times** are whole µs as HTA has them: each start rounded up and each end rounded down
//! (`round_down_time_stamps`; a no-op on the usual integer-µs Kineto files). Reported in ns.
//!
//! **Graph** (HTA's published assumptions). A node is the start or the end of an event: CPU
//! operators and CUDA runtime/driver calls (categories `cpu_op`, `cuda_runtime`, `cuda_driver`)
//! and GPU events with a correlation. Edges:
//! - *operator*: per CPU thread, a depth-first walk of the call stack (HTA's nesting rules and its
//!   tie order) joins consecutive start/end nodes; a top-level operator follows the previous one by
//!   a zero-weight *dependency*. Blocking synchronisation calls (`cudaDeviceSynchronize`,
//!   `cudaStreamSynchronize`, `cudaEventSynchronize`, `cudaEventQuery`, `cudaMemcpy`,
//!   `cudaMemcpyAsync`) weigh 0 from their last child to their end: the wait is the GPU's.
//!   Each GPU event's span is an operator edge too.
//! - *kernel launch delay*: launch start → kernel start, when the stream was empty at the launch
//!   and at the kernel (HTA's queue length 1 then 0) and the previous kernel on the stream (and a
//!   cross-stream dependency, if any) ended before the launch; otherwise *kernel–kernel delay*:
//!   previous kernel's end on the stream → kernel start.
//! - *sync dependency* (weight 0): `Stream Sync` / `Context Sync` → the end of the CPU call that
//!   waited, from the last kernel of that stream / of every stream; `Event Sync` → the end of
//!   `cudaEventSynchronize`, from the kernel launched last before the matching `cudaEventRecord` on
//!   the recorded stream; `Stream Wait Event` → from that kernel to the next kernel launched by the
//!   waiting thread on the waiting stream.
//!
//! **Path**: the longest path by weight, with networkx's `dag_longest_path` tie order (the first
//! best predecessor in edge insertion order, nodes in `topological_sort` order), negative weights
//! counted as 0 as HTA does.
//!
//! **Bound by** (HTA's `bound_by`): an operator edge is `cpu_bound` when its event is on the CPU,
//! `gpu_communication_bound` for an NCCL kernel ([`crate::analysis::gpu::kernel_type`]), else `gpu_compute_bound`;
//! launch delays are `gpu_kernel_launch_overhead`, kernel–kernel delays
//! `gpu_kernel_kernel_overhead`; dependencies weigh nothing. Percent of the path's length, as
//! `summary()`. HTA 0.5.0 has no `data_loading` class.
//!
//! **What differs from HTA** where HTA's own answer is not defined: pandas' unstable sorts decide
//! HTA's order of events with equal timestamps; here ties are broken stably (a launch before a
//! kernel, a sync event before a kernel, by position in the model otherwise). HTA's optional
//! zero-weight launch edges (`CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE`) are not added (off by
//! default in HTA). HTA numbers an
//! annotation's instances in file order, this module in time order (the same for Kineto files).
//! Where HTA stops with an exception (a sync event whose CPU call is outside the window, a
//! `cuda_sync` event of an unknown kind) the edge is left out instead.
//!
//! **Lazily kept arguments** (the app's streaming import of very large files keeps only `stream`
//! and `correlation` typed): `wait_on_stream` / `wait_on_cuda_event_record_corr_id` are then not
//! available, so `Event Sync` and `Stream Wait Event` edges are missing; the rest is unchanged.

use crate::analysis::gpu::{kernel_type, KernelType};
use crate::analysis::measures::{self, Definition};
use crate::model::{ArgsId, GroupId, SliceRef, Trace, TrackId};
use crate::strings::{FxHashMap, StrId};

/// Which part of the trace.
#[derive(Debug, Clone, Default)]
pub struct CriticalPathOptions {
    /// The rank (`distributedInfo.rank`, else the file's position); the first file when `None`.
    pub rank: Option<i64>,
    /// Slices whose name contains this text bound the window (`None` or empty: the whole rank).
    pub annotation: Option<String>,
    /// Which occurrence of the annotation, from 0 (HTA's `instance_id`).
    pub instance: usize,
}

/// HTA's edge types (`CPEdgeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// An operator's or kernel's own time (`critical_path_operator`).
    Operator,
    /// Consecutive top-level operators on a thread (`critical_path_dependency`, weight 0).
    Dependency,
    /// CPU launch → kernel start (`critical_path_kernel_launch_delay`).
    KernelLaunchDelay,
    /// Previous kernel's end → kernel start on one stream (`critical_path_kernel_kernel_delay`).
    KernelKernelDelay,
    /// GPU → CPU or GPU → GPU synchronisation (`critical_path_sync_dependency`, weight 0).
    SyncDependency,
}

impl EdgeKind {
    /// HTA's name of the type.
    pub fn hta_name(self) -> &'static str {
        match self {
            EdgeKind::Operator => "critical_path_operator",
            EdgeKind::Dependency => "critical_path_dependency",
            EdgeKind::KernelLaunchDelay => "critical_path_kernel_launch_delay",
            EdgeKind::KernelKernelDelay => "critical_path_kernel_kernel_delay",
            EdgeKind::SyncDependency => "critical_path_sync_dependency",
        }
    }
}

/// What bounds an edge of the path (HTA's `bound_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundBy {
    CpuBound,
    GpuComputeBound,
    GpuCommunicationBound,
    GpuKernelLaunchOverhead,
    GpuKernelKernelOverhead,
    /// Dependency and sync edges (HTA's empty class; always weight 0).
    Dependency,
}

impl BoundBy {
    /// What the class means ([`measures`]); dependencies have none.
    pub fn definition(self) -> Option<&'static Definition> {
        Some(match self {
            BoundBy::CpuBound => &measures::CP_CPU_BOUND,
            BoundBy::GpuComputeBound => &measures::CP_GPU_COMPUTE_BOUND,
            BoundBy::GpuCommunicationBound => &measures::CP_GPU_COMMUNICATION_BOUND,
            BoundBy::GpuKernelLaunchOverhead => &measures::CP_LAUNCH_OVERHEAD,
            BoundBy::GpuKernelKernelOverhead => &measures::CP_KERNEL_KERNEL_OVERHEAD,
            BoundBy::Dependency => return None,
        })
    }

    /// HTA's key (`""` for dependencies).
    pub fn key(self) -> &'static str {
        match self {
            BoundBy::CpuBound => "cpu_bound",
            BoundBy::GpuComputeBound => "gpu_compute_bound",
            BoundBy::GpuCommunicationBound => "gpu_communication_bound",
            BoundBy::GpuKernelLaunchOverhead => "gpu_kernel_launch_overhead",
            BoundBy::GpuKernelKernelOverhead => "gpu_kernel_kernel_overhead",
            BoundBy::Dependency => "",
        }
    }
}

/// One edge of the critical path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PathEdge {
    pub kind: EdgeKind,
    pub bound_by: BoundBy,
    /// The edge's weight as HTA's summary sums it (may be −1 µs where a child outlives its
    /// parent by rounding; counted as 0 in the path's length).
    pub weight_ns: i64,
    /// The events at its two ends.
    #[serde(skip)]
    pub from: SliceRef,
    #[serde(skip)]
    pub to: SliceRef,
    /// The event the edge's time belongs to (operator and kernel–kernel edges; HTA's attribution).
    #[serde(skip)]
    pub event: Option<SliceRef>,
}

/// One class of [`CriticalPath::bound_by`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BoundShare {
    pub bound_by: BoundBy,
    pub ns: i64,
    /// Percent of the path (HTA's `summary()`).
    pub percent: f64,
}

/// HTA's critical path of one rank's window.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalPath {
    pub rank: i64,
    /// The analysed window (whole µs, as ns).
    pub window_start_ns: i64,
    pub window_end_ns: i64,
    /// The whole graph's size.
    pub graph_nodes: usize,
    pub graph_edges: usize,
    /// Nodes on the path (edges + 1).
    pub nodes: usize,
    /// The path's edges, first to last.
    pub edges: Vec<PathEdge>,
    /// Sum of the path's weights (negative ones as 0): its length ([`measures::CRITICAL_PATH`]).
    pub total_ns: i64,
    /// Share of the path per class, in [`BoundBy`] order; classes not on the path left out.
    pub bound_by: Vec<BoundShare>,
    /// The distinct events on the path (either end of an edge), in path order.
    pub events: Vec<SliceRef>,
    graph: Graph,
}

/// Why there is no critical path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CriticalPathError {
    #[error("no rank {0} in this profile")]
    NoSuchRank(i64),
    #[error("no slice named like '{0}' in this rank")]
    NoAnnotation(String),
    #[error("annotation '{name}' occurs {count} time(s); instance {instance} does not exist")]
    NoInstance { name: String, count: usize, instance: usize },
    #[error("no Kineto CPU operators or CUDA runtime calls in the window: nothing to build a path from")]
    Empty,
    #[error("the dependency graph has a cycle (the trace's events do not nest in time)")]
    Cycle,
}

// ---------------------------------------------------------------------------------------------
// The one place where names and categories of the Kineto/CUDA vocabulary are recognised.
// ---------------------------------------------------------------------------------------------

/// Kineto's category and event names HTA's critical path depends on, resolved once to the
/// trace's string ids (a name the trace never uses is `None` and matches nothing).
struct Vocab {
    /// CPU operator / CUDA runtime / CUDA driver categories: the events that get nodes.
    node_cats: Vec<StrId>,
    /// `cuda_sync`: Kineto's synchronisation events on the GPU timeline.
    sync_cat: Option<StrId>,
    context_sync: Option<StrId>,
    stream_sync: Option<StrId>,
    event_sync: Option<StrId>,
    stream_wait_event: Option<StrId>,
    /// `cudaEventRecord` and `cudaStreamWaitEvent` runtime calls.
    event_record: Option<StrId>,
    stream_wait_call: Option<StrId>,
    /// HTA's `get_runtime_launch_events_query`: calls that enqueue a kernel or copy.
    launches: Vec<StrId>,
    /// HTA's `BLOCKING_SYNC_CALLS`.
    blocking: Vec<StrId>,
    /// Argument keys.
    key_stream: Option<StrId>,
    key_corr: Option<StrId>,
    key_wait_stream: Option<StrId>,
    key_wait_record: Option<StrId>,
}

impl Vocab {
    fn new(trace: &Trace) -> Vocab {
        let f = |s: &str| trace.strings.find(s);
        let many = |v: &[&str]| v.iter().filter_map(|s| f(s)).collect::<Vec<_>>();
        Vocab {
            node_cats: many(&["cpu_op", "cuda_runtime", "cuda_driver"]),
            sync_cat: f("cuda_sync"),
            context_sync: f("Context Sync"),
            stream_sync: f("Stream Sync"),
            event_sync: f("Event Sync"),
            stream_wait_event: f("Stream Wait Event"),
            event_record: f("cudaEventRecord"),
            stream_wait_call: f("cudaStreamWaitEvent"),
            launches: many(&[
                "cudaMemsetAsync",
                "cudaMemcpyAsync",
                "cudaLaunchKernel",
                "cudaLaunchKernelExC",
                "cuLaunchKernel",
                "runFunction - job_prep_and_submit_for_execution",
                "hipLaunchKernel",
                "hipExtModuleLaunchKernel",
                "hipMemsetAsync",
                "hipMemcpyAsync",
                "hipMemcpyWithStream",
            ]),
            blocking: many(&[
                "cudaDeviceSynchronize",
                "cudaStreamSynchronize",
                "cudaEventQuery",
                "cudaEventSynchronize",
                "cudaMemcpy",
                "cudaMemcpyAsync",
            ]),
            key_stream: f("stream"),
            key_corr: f("correlation"),
            key_wait_stream: f("wait_on_stream"),
            key_wait_record: f("wait_on_cuda_event_record_corr_id"),
        }
    }

    fn is(&self, a: StrId, b: Option<StrId>) -> bool {
        Some(a) == b
    }
}

// ---------------------------------------------------------------------------------------------
// Events of the rank, as HTA's dataframe has them
// ---------------------------------------------------------------------------------------------

/// One event (a row of HTA's dataframe).
#[derive(Debug, Clone)]
struct Ev {
    slice: SliceRef,
    /// CPU thread (group, source id) or GPU device group.
    group: GroupId,
    thread: StrId,
    ts: i64,
    dur: i64,
    name: StrId,
    cat: StrId,
    stream: i64,
    corr: i64,
    /// HTA's `index_correlation`: −1 none, else the correlated event (`None` = 0: not in trace).
    linked: Link,
    wait_stream: i64,
    wait_record: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    None,
    Missing,
    To(u32),
}

impl Link {
    /// HTA's `index_correlation >= 0`.
    fn ge0(self) -> bool {
        self != Link::None
    }
    fn to(self) -> Option<usize> {
        match self {
            Link::To(i) => Some(i as usize),
            _ => None,
        }
    }
}

use super::gpu::int_arg;

/// stream, correlation, wait_on_stream, wait_on_cuda_event_record_corr_id (−1 when absent, as
/// HTA's parser fills them).
fn event_args(trace: &Trace, v: &Vocab, args: ArgsId) -> [i64; 4] {
    let mut out = [-1i64; 4];
    if args == ArgsId::NONE {
        return out;
    }
    if let Some(ids) = trace.args.gpu_ids(args) {
        out[0] = ids.stream.unwrap_or(-1);
        out[1] = ids.correlation.unwrap_or(-1);
        return out;
    }
    for (k, val) in trace.args.get(args) {
        let slot = if Some(k) == v.key_stream {
            0
        } else if Some(k) == v.key_corr {
            1
        } else if Some(k) == v.key_wait_stream {
            2
        } else if Some(k) == v.key_wait_record {
            3
        } else {
            continue;
        };
        if let Some(x) = int_arg(val, trace) {
            out[slot] = x;
        }
    }
    out
}

// a time in µs as the f64 Python reads from Kineto's decimal text (HTA rounds in float64)
use super::gpu::us_f64;

/// HTA's `round_down_time_stamps` of an event `[start_ns, end_ns)`, in float64 µs as HTA does
/// it: start = ⌈ts⌉, end = ⌊ts + dur⌋; returns (start µs, duration µs). On integer-µs traces (HTA
/// then does not round) this is the identity.
fn us_round(start_ns: i64, end_ns: i64) -> (i64, i64) {
    let ts = us_f64(start_ns);
    let dur = us_f64(end_ns.saturating_sub(start_ns));
    let whole = |us: f64| if us.is_finite() { us as i64 } else { 0 };
    let (s, e) = (whole(ts.ceil()), whole((ts + dur).floor()));
    (s, e.saturating_sub(s))
}

/// The input files (by `Group::source_file`, in order of first appearance) and their rank numbers.
fn rank_files(trace: &Trace) -> (Vec<Option<StrId>>, Vec<i64>) {
    let m = crate::analysis::gpu::RankMap::of(trace);
    (m.files, m.numbers)
}

/// The rank's events in model order, with HTA's `index_correlation`.
fn rank_events(trace: &Trace, v: &Vocab, file: Option<StrId>) -> Vec<Ev> {
    let mut evs = Vec::new();
    for (ti, t) in trace.tracks.iter().enumerate() {
        if trace.groups.get(t.group.idx()).map(|g| g.source_file) != Some(file) {
            continue;
        }
        let c = &t.slices;
        for i in 0..c.len() {
            let [stream, corr, wait_stream, wait_record] = event_args(trace, v, c.args[i]);
            let (ts, dur) = us_round(c.start_ns[i], c.end_ns(i));
            evs.push(Ev {
                slice: SliceRef { track: TrackId(ti as u32), index: i as u32 },
                group: t.group,
                thread: t.source_id,
                ts,
                dur,
                name: c.name[i],
                cat: c.category[i],
                stream,
                corr,
                linked: if corr < 0 { Link::None } else { Link::Missing },
                wait_stream,
                wait_record,
            });
        }
    }
    // HTA's transform_correlation_to_index: GPU side = (stream ≥ 0 and correlation ≥ 0) or an
    // Event/Context Sync; CPU side = the other events with a correlation; joined by correlation
    let gpu_side =
        |e: &Ev| (e.stream >= 0 && e.corr >= 0) || v.is(e.name, v.event_sync) || v.is(e.name, v.context_sync);
    // HTA's `_filter_irrelevant_gpu_kernels`, applied when it loads a trace: with ProfilerSteps,
    // only CPU-side events that start before the last step's start are kept, and the GPU-side
    // events whose correlation one of them has
    let mut step: FxHashMap<StrId, bool> = FxHashMap::default();
    let mut is_step =
        |name: StrId| *step.entry(name).or_insert_with(|| trace.str(name).contains("ProfilerStep"));
    let cutoff = evs.iter().filter(|e| !gpu_side(e) && is_step(e.name)).map(|e| e.ts).max();
    if let Some(cut) = cutoff {
        let kept_corrs: std::collections::HashSet<i64> =
            evs.iter().filter(|e| !gpu_side(e) && e.ts < cut).map(|e| e.corr).collect();
        evs.retain(|e| if gpu_side(e) { kept_corrs.contains(&e.corr) } else { e.ts < cut });
    }
    let mut gpu_by_corr: FxHashMap<i64, Vec<u32>> = FxHashMap::default();
    for (i, e) in evs.iter().enumerate() {
        if e.corr != -1 && gpu_side(e) {
            gpu_by_corr.entry(e.corr).or_default().push(i as u32);
        }
    }
    for i in 0..evs.len() {
        let e = &evs[i];
        if e.corr == -1 || gpu_side(e) {
            continue;
        }
        if let Some(gs) = gpu_by_corr.get(&e.corr) {
            for &g in gs {
                evs[i].linked = Link::To(g);
                if let Some(ge) = evs.get_mut(g as usize) {
                    ge.linked = Link::To(i as u32);
                }
            }
        }
    }
    evs
}

// ---------------------------------------------------------------------------------------------
// The graph (a networkx DiGraph's order semantics)
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
struct Node {
    ev: u32,
    ts: i64,
    is_start: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Edge {
    from: u32,
    to: u32,
    weight: i64,
    kind: EdgeKind,
    /// Attributed event (index into the events).
    event: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Default)]
struct Graph {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Per node, edge ids in first-insertion order (networkx adjacency order).
    succ: Vec<Vec<u32>>,
    pred: Vec<Vec<u32>>,
    by_pair: FxHashMap<(u32, u32), u32>,
    /// Nodes in the order networkx holds them: a node enters the graph with its first edge
    /// (HTA creates its node list apart and adds only edges), so a node without edges is not in
    /// the graph, and this order (not the ids) is the one `topological_sort` starts from.
    order: Vec<u32>,
    in_graph: Vec<bool>,
    /// The events, for attribution and names.
    slices: Vec<SliceRef>,
    ev_stream: Vec<i64>,
}

impl Graph {
    /// networkx `add_edge`: a second edge between the same nodes replaces the first's data and
    /// keeps its place.
    fn add(&mut self, from: u32, to: u32, kind: EdgeKind, zero: bool) -> Option<u32> {
        if from == to {
            return None;
        }
        let (fs, ts) = (self.nodes.get(from as usize)?.ts, self.nodes.get(to as usize)?.ts);
        let weight =
            if matches!(kind, EdgeKind::Dependency | EdgeKind::SyncDependency) || zero { 0 } else { ts - fs };
        let e = Edge { from, to, weight, kind, event: None };
        for x in [from, to] {
            if !self.in_graph[x as usize] {
                self.in_graph[x as usize] = true;
                self.order.push(x);
            }
        }
        if let Some(&id) = self.by_pair.get(&(from, to)) {
            self.edges[id as usize] = e;
            return Some(id);
        }
        let id = self.edges.len() as u32;
        self.edges.push(e);
        self.succ[from as usize].push(id);
        self.pred[to as usize].push(id);
        self.by_pair.insert((from, to), id);
        Some(id)
    }

    /// HTA's `_attribute_edge`.
    fn attribute(&mut self, id: Option<u32>, src_parent: Option<u32>) {
        let Some(e) = id.and_then(|id| self.edges.get(id as usize)) else { return };
        if !matches!(e.kind, EdgeKind::Operator | EdgeKind::KernelKernelDelay) {
            return;
        }
        let (src, dst) = (&self.nodes[e.from as usize], &self.nodes[e.to as usize]);
        let ev = if e.kind == EdgeKind::KernelKernelDelay || src.is_start {
            Some(src.ev)
        } else if !dst.is_start {
            Some(dst.ev)
        } else {
            src_parent
        };
        if let Some(id) = id {
            self.edges[id as usize].event = ev;
        }
    }

    /// networkx `dag_longest_path` with `weight` = max(edge weight, 0) scaled per edge by `scale`
    /// (1.0 = as recorded). The path's nodes, or `None` for a cycle.
    fn longest(&self, scale: &dyn Fn(&Edge) -> f64) -> Option<(Vec<u32>, i64)> {
        let n = self.nodes.len();
        if self.order.is_empty() {
            return Some((Vec::new(), 0));
        }
        let w = |e: &Edge| {
            let base = e.weight.max(0);
            let s = scale(e);
            if s == 1.0 {
                base
            } else {
                (base as f64 * s).round() as i64
            }
        };
        // topological_generations over the graph's nodes in its order, children in insertion order
        let mut indeg: Vec<usize> = self.pred.iter().map(Vec::len).collect();
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut gen: Vec<u32> = self.order.iter().copied().filter(|&v| indeg[v as usize] == 0).collect();
        while !gen.is_empty() {
            let mut next = Vec::new();
            for &u in &gen {
                for &eid in &self.succ[u as usize] {
                    let c = self.edges[eid as usize].to as usize;
                    indeg[c] -= 1;
                    if indeg[c] == 0 {
                        next.push(c as u32);
                    }
                }
            }
            order.extend_from_slice(&gen);
            gen = next;
        }
        if order.len() != self.order.len() {
            return None;
        }
        let mut dist: Vec<(i64, u32)> = vec![(0, 0); n];
        for &v in &order {
            let mut best: Option<(i64, u32)> = None;
            for &eid in &self.pred[v as usize] {
                let e = &self.edges[eid as usize];
                let d = dist[e.from as usize].0.saturating_add(w(e));
                if best.is_none_or(|b| d > b.0) {
                    best = Some((d, e.from));
                }
            }
            dist[v as usize] = match best {
                Some(b) if b.0 >= 0 => b,
                _ => (0, v),
            };
        }
        let mut end = order[0];
        for &v in &order {
            if dist[v as usize].0 > dist[end as usize].0 {
                end = v;
            }
        }
        let total = dist[end as usize].0;
        let mut path = vec![end];
        let mut v = end;
        while dist[v as usize].1 != v {
            v = dist[v as usize].1;
            path.push(v);
        }
        path.reverse();
        Some((path, total))
    }
}

// ---------------------------------------------------------------------------------------------
// Building it
// ---------------------------------------------------------------------------------------------

/// The ranks of the profile, in file order ([`CriticalPathOptions::rank`] takes one of these).
pub fn ranks(trace: &Trace) -> Vec<i64> {
    rank_files(trace).1
}

/// HTA's critical path of one rank's window.
pub fn critical_path(trace: &Trace, opts: &CriticalPathOptions) -> Result<CriticalPath, CriticalPathError> {
    let v = Vocab::new(trace);
    let (files, numbers) = rank_files(trace);
    let (file, rank) = match opts.rank {
        None => (files.first().copied().flatten(), numbers.first().copied().unwrap_or(0)),
        Some(r) => {
            let k = numbers.iter().position(|&x| x == r).ok_or(CriticalPathError::NoSuchRank(r))?;
            (files[k], r)
        }
    };
    let evs = rank_events(trace, &v, file);

    // the window
    let annotation = opts.annotation.as_deref().unwrap_or("");
    let (w0, w1) = if annotation.is_empty() {
        let lo = evs.iter().map(|e| e.ts).min().unwrap_or(0);
        let hi = evs.iter().map(|e| e.ts + e.dur).max().unwrap_or(0);
        (lo, hi)
    } else {
        let mut matches: FxHashMap<StrId, bool> = FxHashMap::default();
        let mut ann: Vec<(i64, i64)> = evs
            .iter()
            .filter(|e| *matches.entry(e.name).or_insert_with(|| trace.str(e.name).contains(annotation)))
            .map(|e| (e.ts, e.ts + e.dur))
            .collect();
        if ann.is_empty() {
            return Err(CriticalPathError::NoAnnotation(annotation.to_string()));
        }
        ann.sort_unstable();
        let count = ann.len();
        *ann.get(opts.instance).ok_or(CriticalPathError::NoInstance {
            name: annotation.to_string(),
            count,
            instance: opts.instance,
        })?
    };

    // HTA's clipping
    let in_window = |e: &Ev| e.ts >= w0 && e.ts <= w1 && e.dur > 0;
    let keep: Vec<bool> =
        evs.iter()
            .enumerate()
            .map(|(i, e)| {
                if e.stream == -1 {
                    in_window(e)
                } else {
                    // the CPU event whose index_correlation is this one, in the window
                    let runtime_ok =
                        e.linked.to().and_then(|r| evs.get(r)).is_some_and(|r| {
                            r.stream == -1 && r.linked == Link::To(i as u32) && in_window(r)
                        });
                    runtime_ok || v.is(e.name, v.stream_wait_event)
                }
            })
            .collect();

    build(trace, &v, &evs, &keep, rank, w0, w1)
}

type StackKey = (i64, u8, i64, i64);

/// A launch (or a record / wait call) in time order: (ts, 0 launch / 1 other, position, key,
/// is a launch).
type Timed<K> = (i64, u8, usize, K, bool);

/// Sort key of HTA's `compare_events` for events of positive duration (all the clipped CPU events
/// are): by time; at one time, ends before starts; starts longest first, ends shortest first;
/// then starts by position, ends by reverse position.
fn stack_key(time: i64, is_start: bool, dur: i64, pos: usize) -> StackKey {
    if is_start {
        (time, 1, -dur, pos as i64)
    } else {
        (time, 0, dur, -(pos as i64))
    }
}

/// One CPU thread's call stack (HTA's `CallStackGraph`): children per event, roots in order.
struct CallStack {
    roots: Vec<u32>,
    children: FxHashMap<u32, Vec<u32>>,
    parent: FxHashMap<u32, Option<u32>>,
}

fn call_stack(evs: &[Ev], members: &[u32]) -> CallStack {
    let mut marks: Vec<(StackKey, u32, bool)> = Vec::with_capacity(members.len() * 2);
    for (pos, &i) in members.iter().enumerate() {
        let e = &evs[i as usize];
        let dur = e.dur.max(0);
        marks.push((stack_key(e.ts, true, dur, pos), i, true));
        marks.push((stack_key(e.ts + dur, false, dur, pos), i, false));
    }
    marks.sort_by_key(|m| m.0);
    let mut cs =
        CallStack { roots: Vec::new(), children: FxHashMap::default(), parent: FxHashMap::default() };
    let mut stack: Vec<u32> = Vec::new();
    for (_, i, is_start) in marks {
        if is_start {
            if cs.parent.contains_key(&i) {
                continue;
            }
            let p = stack.last().copied();
            match p {
                Some(p) => cs.children.entry(p).or_default().push(i),
                None => cs.roots.push(i),
            }
            cs.parent.insert(i, p);
            stack.push(i);
        } else {
            // HTA pops the top whatever it is
            stack.pop();
        }
    }
    cs
}

/// Insertion-ordered map stream → last node (a Python dict's order).
#[derive(Default)]
struct LastNode(Vec<(i64, u32)>);

impl LastNode {
    fn get(&self, s: i64) -> Option<u32> {
        self.0.iter().find(|x| x.0 == s).map(|x| x.1)
    }
    fn set(&mut self, s: i64, n: u32) {
        match self.0.iter_mut().find(|x| x.0 == s) {
            Some(x) => x.1 = n,
            None => self.0.push((s, n)),
        }
    }
}

fn build(
    trace: &Trace,
    v: &Vocab,
    evs: &[Ev],
    keep: &[bool],
    rank: i64,
    w0: i64,
    w1: i64,
) -> Result<CriticalPath, CriticalPathError> {
    let n = evs.len();
    // --- nodes: starts then ends, stably by time
    let is_node = |i: usize| {
        keep[i] && (v.node_cats.contains(&evs[i].cat) || (evs[i].stream != -1 && evs[i].linked.ge0()))
    };
    let node_evs: Vec<u32> = (0..n).filter(|&i| is_node(i)).map(|i| i as u32).collect();
    if node_evs.is_empty() {
        return Err(CriticalPathError::Empty);
    }
    let mut marks: Vec<(i64, u32, bool)> = node_evs.iter().map(|&i| (evs[i as usize].ts, i, true)).collect();
    marks.extend(node_evs.iter().map(|&i| (evs[i as usize].ts + evs[i as usize].dur, i, false)));
    marks.sort_by_key(|m| m.0);
    let mut g = Graph {
        slices: evs.iter().map(|e| e.slice).collect(),
        ev_stream: evs.iter().map(|e| e.stream).collect(),
        ..Graph::default()
    };
    let mut start_node: Vec<Option<u32>> = vec![None; n];
    let mut end_node: Vec<Option<u32>> = vec![None; n];
    for (k, &(ts, i, is_start)) in marks.iter().enumerate() {
        g.nodes.push(Node { ev: i, ts, is_start });
        if is_start {
            start_node[i as usize] = Some(k as u32);
        } else {
            end_node[i as usize] = Some(k as u32);
        }
    }
    g.succ = vec![Vec::new(); g.nodes.len()];
    g.in_graph = vec![false; g.nodes.len()];
    g.pred = vec![Vec::new(); g.nodes.len()];
    let nodes_of = |i: usize| Some((start_node[i]?, end_node[i]?));
    let blocking = |i: usize| v.blocking.contains(&evs[i].name);

    // --- CPU threads: (process, thread) whose kept events all have stream < 0, in order of first
    // appearance
    let mut threads: Vec<((GroupId, StrId), Vec<u32>)> = Vec::new();
    let mut thread_pos: FxHashMap<(GroupId, StrId), usize> = FxHashMap::default();
    for i in (0..n).filter(|&i| keep[i]) {
        let key = (evs[i].group, evs[i].thread);
        let p = *thread_pos.entry(key).or_insert_with(|| {
            threads.push((key, Vec::new()));
            threads.len() - 1
        });
        threads[p].1.push(i as u32);
    }
    for (_, members) in &threads {
        if members.iter().any(|&i| evs[i as usize].stream >= 0) {
            continue;
        }
        let cs = call_stack(evs, members);
        // HTA's depth-first walk (enter_func / exit_func), iteratively
        let mut last_node: Option<u32> = None;
        let mut last_high: Option<u32> = None;
        let mut op_depth = 0i64;
        let mut last_parent: Option<u32> = None;
        let mut work: Vec<(u32, bool)> = cs.roots.iter().rev().map(|&r| (r, true)).collect();
        while let Some((i, enter)) = work.pop() {
            let parent = cs.parent.get(&i).copied().flatten();
            if enter {
                work.push((i, false));
                if let Some(ch) = cs.children.get(&i) {
                    work.extend(ch.iter().rev().map(|&c| (c, true)));
                }
                let Some((s, _)) = nodes_of(i as usize) else { continue };
                if op_depth == 0 {
                    if let Some(h) = last_high {
                        g.add(h, s, EdgeKind::Dependency, false);
                    }
                }
                op_depth += 1;
                if let Some(l) = last_node {
                    let e = g.add(l, s, EdgeKind::Operator, false);
                    g.attribute(e, last_parent);
                }
                last_node = Some(s);
                last_parent = parent;
            } else {
                let Some((_, en)) = nodes_of(i as usize) else { continue };
                op_depth -= 1;
                if let Some(l) = last_node {
                    let e = g.add(l, en, EdgeKind::Operator, blocking(i as usize));
                    g.attribute(e, last_parent);
                }
                if op_depth == 0 {
                    last_node = None;
                    last_high = Some(en);
                } else {
                    last_node = Some(en);
                    last_parent = parent;
                }
            }
        }
    }

    // --- GPU side, over the whole rank (HTA uses the full trace for these look-ups)
    let is_launch = |i: usize| v.launches.contains(&evs[i].name) && matches!(evs[i].linked, Link::To(_));
    let kernel_of = |i: usize| evs[i].linked.to().filter(|&k| evs[k].stream != -1);
    // queue length per stream (TraceCounters): +1 at a launch, −1 at its kernel
    let mut queue: Vec<Option<i64>> = vec![None; n];
    {
        let launch_corrs: std::collections::HashSet<i64> =
            (0..n).filter(|&i| is_launch(i)).map(|i| evs[i].corr).collect();
        let mut q: Vec<(i64, u8, usize, i64, i64)> = Vec::new(); // ts, launch first, pos, stream, delta
        for i in 0..n {
            if is_launch(i) {
                if let Some(k) = kernel_of(i) {
                    q.push((evs[i].ts, 0, i, evs[k].stream, 1));
                }
            } else if evs[i].stream != -1 && launch_corrs.contains(&evs[i].corr) {
                q.push((evs[i].ts, 1, i, evs[i].stream, -1));
            }
        }
        q.sort_by_key(|x| (x.0, x.1, x.2));
        let mut len: FxHashMap<i64, i64> = FxHashMap::default();
        for (_, _, i, s, d) in q {
            let l = len.entry(s).or_insert(0);
            *l += d;
            queue[i] = Some(*l);
        }
    }
    // runtime launches in time order with their launch id
    let mut launches: Vec<usize> = (0..n).filter(|&i| is_launch(i) && kernel_of(i).is_some()).collect();
    launches.sort_by_key(|&i| (evs[i].ts, i));
    // cudaEventRecord → the launch before it on the recorded stream
    let mut record_prev: FxHashMap<i64, usize> = FxHashMap::default();
    if v.event_record.is_some() {
        let mut rec_stream: FxHashMap<i64, (i64, GroupId)> = FxHashMap::default();
        for e in evs.iter().filter(|e| e.wait_stream > -1) {
            rec_stream.entry(e.wait_record).or_insert((e.wait_stream, e.group));
        }
        let mut items: Vec<Timed<(i64, GroupId)>> = Vec::new();
        for &i in &launches {
            if let Some(k) = kernel_of(i) {
                items.push((evs[i].ts, 0, i, (evs[k].stream, evs[k].group), true));
            }
        }
        for i in (0..n).filter(|&i| v.is(evs[i].name, v.event_record)) {
            if let Some(&sg) = rec_stream.get(&evs[i].corr) {
                items.push((evs[i].ts, 1, i, sg, false));
            }
        }
        items.sort_by_key(|x| (x.0, x.1, x.2));
        let mut last: FxHashMap<(i64, GroupId), usize> = FxHashMap::default();
        for (_, _, i, sg, is_l) in items {
            if is_l {
                last.insert(sg, i);
            } else if let Some(&l) = last.get(&sg) {
                record_prev.entry(evs[i].corr).or_insert(l);
            }
        }
    }
    // cudaStreamWaitEvent → the next launch by the same thread onto the waiting stream
    let mut wait_next: FxHashMap<usize, usize> = FxHashMap::default();
    if v.stream_wait_call.is_some() && v.stream_wait_event.is_some() {
        let mut items: Vec<Timed<(GroupId, StrId, i64)>> = Vec::new();
        for &i in &launches {
            if let Some(k) = kernel_of(i) {
                items.push((evs[i].ts, 0, i, (evs[i].group, evs[i].thread, evs[k].stream), true));
            }
        }
        for i in (0..n).filter(|&i| v.is(evs[i].name, v.stream_wait_call)) {
            if let Some(k) = kernel_of(i) {
                items.push((evs[i].ts, 1, i, (evs[i].group, evs[i].thread, evs[k].stream), false));
            }
        }
        items.sort_by_key(|x| (x.0, x.1, x.2));
        let mut next: FxHashMap<(GroupId, StrId, i64), usize> = FxHashMap::default();
        for (_, _, i, key, is_l) in items.into_iter().rev() {
            if is_l {
                next.insert(key, i);
            } else if let Some(&l) = next.get(&key) {
                wait_next.insert(i, l);
            }
        }
    }

    let is_sync_cat = |i: usize| v.is(evs[i].cat, v.sync_cat);
    let mut rows: Vec<usize> = (0..n)
        .filter(|&i| {
            keep[i]
                && (evs[i].stream != -1
                    || v.is(evs[i].name, v.event_sync)
                    || v.is(evs[i].name, v.context_sync))
                && evs[i].linked.ge0()
        })
        .collect();
    let sort_by = |i: usize| if is_sync_cat(i) { evs[i].ts + evs[i].dur } else { evs[i].ts };
    rows.sort_by_key(|&i| (sort_by(i), u8::from(!is_sync_cat(i)), i));
    let mut last_node = LastNode::default();
    let mut kernel_sync: FxHashMap<usize, usize> = FxHashMap::default();
    let prev_kernel_of_record = |e: &Ev| record_prev.get(&e.wait_record).and_then(|&l| evs[l].linked.to());
    for i in rows {
        let e = &evs[i];
        if is_sync_cat(i) {
            let cpu_end = e.linked.to().and_then(|c| end_node[c]);
            if v.is(e.name, v.stream_wait_event) || v.is(e.name, v.event_sync) {
                let Some(src) = prev_kernel_of_record(e) else { continue };
                if v.is(e.name, v.stream_wait_event) {
                    let dest =
                        e.linked.to().and_then(|c| wait_next.get(&c)).and_then(|&l| evs[l].linked.to());
                    if let Some(d) = dest {
                        kernel_sync.insert(d, src);
                    }
                } else if let (Some(ge), Some(ce)) = (end_node[src], cpu_end) {
                    g.add(ge, ce, EdgeKind::SyncDependency, false);
                }
                continue;
            }
            let Some(ce) = cpu_end else { continue };
            if v.is(e.name, v.context_sync) {
                let all: Vec<u32> = last_node.0.iter().map(|x| x.1).collect();
                for gn in all {
                    g.add(gn, ce, EdgeKind::SyncDependency, false);
                }
            } else if v.is(e.name, v.stream_sync) {
                if let Some(gn) = last_node.get(e.stream) {
                    g.add(gn, ce, EdgeKind::SyncDependency, false);
                }
            }
            continue;
        }
        let Some((s, en)) = nodes_of(i) else { continue };
        let op = g.add(s, en, EdgeKind::Operator, false);
        g.attribute(op, None);
        let mut sync_end: Option<u32> = None;
        if let Some(src) = kernel_sync.remove(&i) {
            if let Some(se) = end_node[src] {
                g.add(se, s, EdgeKind::SyncDependency, false);
                sync_end = Some(se);
            }
        }
        let ts_of = |nd: u32| g.nodes[nd as usize].ts;
        let last = last_node.get(e.stream);
        let runtime = e.linked.to();
        let runtime_ts = runtime.map(|r| evs[r].ts);
        let launch_delay = runtime.is_some_and(|r| queue[r] == Some(1))
            && queue[i] == Some(0)
            && last.is_none_or(|l| runtime_ts.is_some_and(|rt| ts_of(l) < rt))
            && sync_end.is_none_or(|se| runtime_ts.is_some_and(|rt| ts_of(se) < rt));
        if launch_delay {
            if let Some(rs) = runtime.and_then(|r| start_node[r]) {
                g.add(rs, s, EdgeKind::KernelLaunchDelay, false);
            }
        } else if let Some(l) = last {
            if sync_end.is_none_or(|se| ts_of(se) < ts_of(l)) {
                let kk = g.add(l, s, EdgeKind::KernelKernelDelay, false);
                g.attribute(kk, None);
            }
        }
        last_node.set(e.stream, en);
    }

    let (path, total) = g.longest(&|_| 1.0).ok_or(CriticalPathError::Cycle)?;
    let _ = trace;
    Ok(summarise(trace, g, &path, total, rank, w0, w1))
}

fn bound_of(trace: &Trace, g: &Graph, e: &Edge) -> BoundBy {
    match e.kind {
        EdgeKind::KernelKernelDelay => BoundBy::GpuKernelKernelOverhead,
        EdgeKind::KernelLaunchDelay => BoundBy::GpuKernelLaunchOverhead,
        EdgeKind::Dependency | EdgeKind::SyncDependency => BoundBy::Dependency,
        EdgeKind::Operator => {
            let Some(ev) = e.event.map(|x| x as usize) else { return BoundBy::CpuBound };
            if g.ev_stream.get(ev).copied().unwrap_or(-1) < 0 {
                return BoundBy::CpuBound;
            }
            let Some(sl) = g.slices.get(ev) else { return BoundBy::CpuBound };
            let name = trace.track(sl.track).slices.name[sl.index as usize];
            if kernel_type(trace.str(name)) == KernelType::Communication {
                BoundBy::GpuCommunicationBound
            } else {
                BoundBy::GpuComputeBound
            }
        }
    }
}

fn summarise(
    trace: &Trace,
    g: Graph,
    path: &[u32],
    total_us: i64,
    rank: i64,
    w0: i64,
    w1: i64,
) -> CriticalPath {
    let mut edges = Vec::with_capacity(path.len().saturating_sub(1));
    let mut events: Vec<SliceRef> = Vec::new();
    let mut seen: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for &nd in path {
        let ev = g.nodes[nd as usize].ev;
        if seen.insert(ev) {
            events.push(g.slices[ev as usize]);
        }
    }
    for w in path.windows(2) {
        let Some(&id) = g.by_pair.get(&(w[0], w[1])) else { continue };
        let e = &g.edges[id as usize];
        edges.push(PathEdge {
            kind: e.kind,
            bound_by: bound_of(trace, &g, e),
            weight_ns: e.weight.saturating_mul(1000),
            from: g.slices[g.nodes[e.from as usize].ev as usize],
            to: g.slices[g.nodes[e.to as usize].ev as usize],
            event: e.event.map(|x| g.slices[x as usize]),
        });
    }
    let sum: i64 = edges.iter().map(|e| e.weight_ns).sum();
    let mut classes: Vec<(BoundBy, i64)> = Vec::new();
    for e in &edges {
        match classes.iter_mut().find(|c| c.0 == e.bound_by) {
            Some(c) => c.1 += e.weight_ns,
            None => classes.push((e.bound_by, e.weight_ns)),
        }
    }
    classes.sort_by_key(|c| c.0);
    let bound_by = classes
        .into_iter()
        .filter(|c| c.0 != BoundBy::Dependency || c.1 != 0)
        .map(|(b, ns)| BoundShare {
            bound_by: b,
            ns,
            percent: if sum != 0 { 100.0 * ns as f64 / sum as f64 } else { 0.0 },
        })
        .collect();
    CriticalPath {
        rank,
        window_start_ns: w0.saturating_mul(1000),
        window_end_ns: w1.saturating_mul(1000),
        graph_nodes: g.order.len(),
        graph_edges: g.edges.len(),
        nodes: path.len(),
        edges,
        total_ns: total_us.saturating_mul(1000),
        bound_by,
        events,
        graph: g,
    }
}

impl CriticalPath {
    /// "What if": the path's length (ns) when every operator edge attributed to an event that
    /// `chosen` selects (an operator's or a kernel's own time) is shortened by `percent` %, the
    /// rest of the graph unchanged (HTA's idea of simulating on the graph: the dependency
    /// structure is kept, only weights change, and the longest path is searched again).
    pub fn what_if(&self, chosen: &dyn Fn(SliceRef) -> bool, percent: f64) -> i64 {
        let factor = (1.0 - percent.clamp(0.0, 100.0) / 100.0).max(0.0);
        let g = &self.graph;
        let hit: Vec<bool> = g.slices.iter().map(|&s| chosen(s)).collect();
        let scale = |e: &Edge| {
            let on =
                e.kind == EdgeKind::Operator && e.event.is_some_and(|x| hit.get(x as usize) == Some(&true));
            if on {
                factor
            } else {
                1.0
            }
        };
        g.longest(&scale).map_or(self.total_ns, |(_, t)| t.saturating_mul(1000))
    }

    /// [`CriticalPath::what_if`] for every event with this name.
    pub fn what_if_named(&self, trace: &Trace, name: &str, percent: f64) -> i64 {
        let id = trace.strings.find(name);
        self.what_if(
            &|s: SliceRef| {
                let t = trace.track(s.track);
                id.is_some() && t.slices.name.get(s.index as usize).copied() == id
            },
            percent,
        )
    }

    /// The longest edges of the path with their event, longest first.
    pub fn longest_edges(&self, n: usize) -> Vec<&PathEdge> {
        let mut v: Vec<&PathEdge> = self.edges.iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.weight_ns));
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_bytes, NoProgress};

    /// One thread: `aten::foo` [0, 50) launching kernel `k` (stream 7, [30, 230)) at [10, 20),
    /// then `cudaDeviceSynchronize` [60, 300) with its `Context Sync`.
    const TRACE: &str = r#"{"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::foo","pid":1,"tid":1,"ts":1000,"dur":50},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":10,
       "args":{"correlation":1}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":1060,"dur":240,
       "args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1030,"dur":200,
       "args":{"stream":7,"correlation":1,"device":0}},
      {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":99,"ts":1060,"dur":240,
       "args":{"stream":-1,"correlation":2,"device":0}}
    ]}"#;

    fn path() -> (Trace, CriticalPath) {
        let t = import_bytes("t.json", TRACE.as_bytes(), &mut NoProgress).unwrap();
        let cp = critical_path(&t, &CriticalPathOptions::default()).unwrap();
        (t, cp)
    }

    #[test]
    fn launch_kernel_and_device_sync() {
        let (t, cp) = path();
        // foo's start → launch start (10, foo's) → kernel start (20, launch delay) → kernel end
        // (200); the zero-weight sync edge on to cudaDeviceSynchronize's end is not taken:
        // networkx ends the path at the first node of greatest distance in topological order
        assert_eq!(cp.total_ns, 230_000);
        let kinds: Vec<EdgeKind> = cp.edges.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EdgeKind::Operator, EdgeKind::KernelLaunchDelay, EdgeKind::Operator]);
        let shares: Vec<(BoundBy, i64)> = cp.bound_by.iter().map(|b| (b.bound_by, b.ns)).collect();
        assert_eq!(
            shares,
            [
                (BoundBy::CpuBound, 10_000),
                (BoundBy::GpuComputeBound, 200_000),
                (BoundBy::GpuKernelLaunchOverhead, 20_000)
            ]
        );
        let pct: f64 = cp.bound_by.iter().map(|b| b.percent).sum();
        assert!((pct - 100.0).abs() < 1e-9);
        let names: Vec<&str> =
            cp.events.iter().map(|s| t.str(t.track(s.track).slices.name[s.index as usize])).collect();
        assert_eq!(names, ["aten::foo", "cudaLaunchKernel", "k"]);
        // the whole graph: 4 events × 2 nodes; foo→launch→launch→foo, foo→sync dependency,
        // sync start→end, kernel span, launch delay, context sync
        assert_eq!((cp.graph_nodes, cp.graph_edges), (8, 8));
    }

    #[test]
    fn what_if_shortens_the_kernel_and_the_path_moves() {
        let (t, cp) = path();
        // half the kernel: 10 + 20 + 100
        assert_eq!(cp.what_if_named(&t, "k", 50.0), 130_000);
        // no kernel at all: the CPU chain (foo 50 µs, then the sync's own 0) bounds it
        assert_eq!(cp.what_if_named(&t, "k", 100.0), 50_000);
        // shortening what is not on the path changes nothing; an unknown name neither
        assert_eq!(cp.what_if_named(&t, "cudaDeviceSynchronize", 90.0), 230_000);
        assert_eq!(cp.what_if_named(&t, "nope", 50.0), 230_000);
    }

    #[test]
    fn blocking_call_nested_wait_is_not_cpu_time() {
        // cudaDeviceSynchronize's 240 µs are the GPU's: without the kernel the path is foo only
        let (t, cp) = path();
        let sync = t.strings.find("cudaDeviceSynchronize").unwrap();
        assert!(cp.edges.iter().all(|e| {
            let s = e.event.unwrap_or(e.to);
            t.track(s.track).slices.name[s.index as usize] != sync || e.weight_ns == 0
        }));
    }

    #[test]
    fn without_kineto_events_it_says_so() {
        let t = import_bytes(
            "t.json",
            br#"{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]}"#,
            &mut NoProgress,
        )
        .unwrap();
        assert_eq!(critical_path(&t, &CriticalPathOptions::default()), Err(CriticalPathError::Empty));
    }

    #[test]
    fn hta_rounding_of_sub_us_times() {
        assert_eq!(us_round(1_000, 3_000), (1, 2));
        assert_eq!(us_round(1_001, 2_999), (2, 0));
        assert_eq!(us_round(1_500, 2_400), (2, 0));
        // an absolute ns timestamp: float64 µs as HTA reads it, where the spacing of doubles is
        // 0.25 µs: "…249.123" is the double …249.0, so its ceiling is …249 (exact: …250)
        assert_eq!(
            us_round(1_712_195_495_537_249_123, 1_712_195_495_537_251_000),
            (1_712_195_495_537_249, 2)
        );
    }
}
