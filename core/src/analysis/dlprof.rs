//! A DLProf-style dashboard over a GPU trace (PyTorch profiler/Kineto today; any trace whose
//! tracks have the role [`TrackRole::GpuStream`]): GPU utilisation, a resource-usage breakdown,
//! the top GPU ops, an iteration summary, an op-type summary, ops and kernels tables and
//! rule-based recommendations. [`DlprofIndex::build`] does the per-trace work once (classify GPU
//! activities, bind each to the CPU op that launched it); [`DlprofIndex::dashboard`] aggregates
//! for a chosen iteration range (all panels follow the range).
//!
//! Definitions (all times i64 ns, on the trace's clock):
//! - **GPU activity**: a slice on a `GpuStream` track whose typed [`GpuWork`] (set by the
//!   importer from the trace's own activity kind) is work (`analysis::gpu::is_gpu_work`): a
//!   **memory** op when it is a memory copy or set, else a **kernel**. Annotation ranges, sync and
//!   event markers are not activities.
//! - **Tensor-core kernel**: the kernel's `uses tensor cores` argument where the trace has one
//!   (DLProf's database), else the name families of `analysis::gpu::kernels::tensor_core`
//!   (Volta → Blackwell, AMD MFMA): three-valued — a kernel whose name says neither is
//!   **unknown**, never counted as "no tensor core".
//! - **Framework trace**: a PyTorch profiler (Kineto) trace. Framework advice (`torch.…`) and the
//!   "no iterations" rule fire only on those; on other traces (Nsight Systems of a CUDA program)
//!   "Top GPU ops" are the top GPU kernels and memory ops by name, not the CUDA API calls that
//!   launched them.
//! - **Launch**: a flow from a CPU-thread slice (the runtime call, e.g. `cudaLaunchKernel`) to
//!   the activity. The activity's **op** is the outermost *op slice* enclosing the launch on its
//!   thread; an op slice is any CPU slice whose [`HostWork`] (typed by the importer from its
//!   format's categories) is an op or unknown — not an annotation, a Python frame, a runtime or
//!   OS runtime call — and that is not an iteration (`ProfilerStep#N`). A launch
//!   with no enclosing op is its own op (e.g. a `cudaMemcpyAsync` called from Python); an
//!   activity without a launch flow is counted under [`NO_LAUNCH_OP`].
//! - **Window**: with no range, the whole trace `[trace.start, trace.end)`. With an iteration
//!   range `[a, b]` (iteration numbers, inclusive), from the first chosen iteration's start to
//!   the later of the last one's end and the end of the last GPU activity it launched; an
//!   activity belongs to the range when its launch (else its own start) lies in the chosen
//!   iterations' span, an op when its start does.
//! - **GPU utilisation** = per device, the union of its activities (kernels and memory) over the
//!   window, averaged over devices (a device = the group holding the streams).
//! - **Resource usage** splits each device's window, first match wins: tensor-core kernel
//!   running → other kernel → memory op → a CPU op or runtime call running on any thread
//!   ("CPU only") → idle. The five parts sum to window × devices.
//! - **Tensor-core eligible op**: an op whose name has a GEMM/convolution stem
//!   ([`TC_ELIGIBLE_STEMS`]: `mm`, `bmm`, `addmm`, `matmul`, `linear`, `conv…`, `einsum`, …) or
//!   that launched a kernel whose name contains `gemm` or `conv`.
//! - **Op type**: the op name after its last `::` (and after `: ` of autograd's
//!   `evaluate_function: XBackward0`), lower-cased, trailing `_` removed.
//!
//! Recommendations are rules with thresholds written out below; they are deterministic (same
//! trace and range → same list, same order).

use crate::analysis::gpu::is_gpu_work;
use crate::analysis::gpu::kernels::{self, Precision, TensorCore};
use crate::model::{ArgValue, GpuWork, HostWork, SliceRef, Trace, TrackId, TrackRole};
use crate::strings::{FxHashMap, StrId};
/// Name stems of ops that can use tensor cores (GEMM and convolution).
pub const TC_ELIGIBLE_STEMS: &[&str] = &[
    "mm",
    "bmm",
    "addmm",
    "addbmm",
    "baddbmm",
    "matmul",
    "linear",
    "conv",
    "cudnn_conv",
    "_convolution",
    "convolution",
    "einsum",
    "gemm",
    "scaled_dot_product",
    "_scaled_dot_product",
];
/// The op name of GPU activities that have no launch flow.
pub const NO_LAUNCH_OP: &str = "(no launch flow)";

/// Recommendation: the GPU is idle more than this share of the window.
pub const GPU_IDLE_PERCENT: f64 = 20.0;
/// Recommendation: memory copies/sets take more than this share of GPU busy time.
pub const MEMORY_PERCENT: f64 = 10.0;
/// Recommendation (launch-bound): a kernel shorter than this is "small".
pub const SMALL_KERNEL_NS: i64 = 10_000;
/// … and more than this share of kernels are small (with at least [`SMALL_KERNEL_MIN_COUNT`]).
pub const SMALL_KERNEL_PERCENT: f64 = 50.0;
pub const SMALL_KERNEL_MIN_COUNT: usize = 100;
/// Recommendation: tensor-core kernels take less than this share of the eligible ops' GPU time…
pub const LOW_TC_PERCENT: f64 = 50.0;
/// … when eligible ops take at least this share of all GPU time.
pub const TC_ELIGIBLE_MIN_PERCENT: f64 = 5.0;
/// Recommendation: the GPU waits on the CPU ("CPU only") more than this share of the window.
pub const CPU_BOUND_PERCENT: f64 = 30.0;
/// Panels: how many ops the "top GPU ops" chart shows.
pub const TOP_OPS: usize = 10;

/// Whether a kernel uses tensor cores, by its name (`analysis::gpu::kernels::tensor_core`).
pub fn uses_tensor_cores(kernel_name: &str) -> TensorCore {
    kernels::tensor_core(kernel_name)
}

/// Whether an op name has a GEMM/convolution stem ([`TC_ELIGIBLE_STEMS`]).
pub fn op_name_tc_eligible(op: &str) -> bool {
    let l = op.to_ascii_lowercase();
    l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .any(|t| TC_ELIGIBLE_STEMS.iter().any(|s| t.starts_with(s)))
}

/// The op type of an op name (see the module doc).
pub fn op_type(op: &str) -> String {
    let s = op.rsplit(": ").next().unwrap_or(op);
    let s = s.rsplit("::").next().unwrap_or(s);
    let s = s.trim().trim_end_matches('_');
    if s.is_empty() {
        op.to_ascii_lowercase()
    } else {
        s.to_ascii_lowercase()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityClass {
    Kernel,
    Memory,
}

/// One GPU activity (kernel or memory op), bound to its launch and op.
#[derive(Debug, Clone, Copy)]
struct Activity {
    slice: SliceRef,
    device: u32,
    start_ns: i64,
    end_ns: i64,
    name: StrId,
    class: ActivityClass,
    tensor_core: TensorCore,
    precision: Option<Precision>,
    /// Start of the launching runtime call, else the activity's own start.
    launch_ns: i64,
    /// Duration of the launching runtime call (0 without one).
    launch_dur_ns: i64,
    /// The launching runtime call.
    launch: Option<SliceRef>,
    /// Index into `ops`, or `None` (no launch flow).
    op: Option<u32>,
}

/// One op call (an outermost op slice, or a launch without an op).
#[derive(Debug, Clone, Copy)]
struct OpCall {
    slice: SliceRef,
    name: StrId,
    start_ns: i64,
    dur_ns: i64,
}

/// Per-trace work for the dashboard, done once ([`DlprofIndex::build`]).
#[derive(Debug, Clone)]
pub struct DlprofIndex {
    devices: Vec<String>,
    activities: Vec<Activity>,
    ops: Vec<OpCall>,
    /// Merged CPU activity (ops and runtime calls on CPU threads), sorted, disjoint.
    cpu_busy: Vec<(i64, i64)>,
    iterations: Vec<crate::model::Iteration>,
    trace_span: (i64, i64),
    op_names: FxHashMap<StrId, String>,
    framework: bool,
}

/// Totals of one row of the ops or kernels table.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    pub count: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    pub max_ns: i64,
}

impl Stats {
    fn add(&mut self, v: i64) {
        if self.count == 0 {
            self.min_ns = v;
            self.max_ns = v;
        } else {
            self.min_ns = self.min_ns.min(v);
            self.max_ns = self.max_ns.max(v);
        }
        self.count += 1;
        self.total_ns = self.total_ns.saturating_add(v);
    }
    /// Mean, rounded down (0 when empty).
    pub fn avg_ns(&self) -> i64 {
        if self.count == 0 {
            0
        } else {
            self.total_ns / self.count as i64
        }
    }
}

/// A row of the ops table: one op name.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpRow {
    pub name: String,
    pub op_type: String,
    pub calls: u64,
    /// CPU time of the calls (their durations).
    pub cpu: Stats,
    /// GPU time per call (the sum of its activities), over the calls that launched any.
    pub gpu: Stats,
    /// GPU time of all its activities.
    pub gpu_total_ns: i64,
    pub kernels: u64,
    /// GPU time of its tensor-core kernels.
    pub tensor_core_ns: i64,
    /// GPU time of its kernels known not to use tensor cores whose name states FP32 / FP64.
    pub full_precision_ns: i64,
    /// GPU time of its kernels whose tensor-core use is unknown.
    pub tensor_core_unknown_ns: i64,
    pub tc_eligible: bool,
}

/// A row of the kernels table: one kernel (or memory op) name.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KernelRow {
    pub name: String,
    pub class: ActivityClass,
    pub tensor_core: TensorCore,
    /// The numeric type its name states.
    pub precision: Option<Precision>,
    pub gpu: Stats,
    /// Durations of the launching runtime calls.
    pub launch: Stats,
    /// The op that launched it most (by GPU time).
    pub top_op: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpTypeRow {
    pub op_type: String,
    pub ops: u64,
    pub calls: u64,
    pub cpu_total_ns: i64,
    pub gpu_total_ns: i64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IterationRow {
    pub number: i64,
    pub start_ns: i64,
    pub duration_ns: i64,
    /// Union of the GPU activities it launched.
    pub gpu_busy_ns: i64,
    pub kernels: u64,
    pub gpu_percent: f64,
}

/// The window split by resource (see the module doc); parts sum to `window_ns × devices`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ResourceUsage {
    pub tensor_core_ns: i64,
    /// Kernels known not to use tensor cores.
    pub other_kernel_ns: i64,
    /// Kernels whose tensor-core use is unknown.
    pub unknown_kernel_ns: i64,
    pub memory_ns: i64,
    pub cpu_only_ns: i64,
    /// Neither GPU nor CPU work (`measures::NEITHER_GPU_NOR_CPU`): not "idle", which is
    /// window − GPU busy.
    pub idle_ns: i64,
}

impl ResourceUsage {
    /// (label, key, value) in display order.
    pub fn parts(&self) -> [(&'static str, &'static str, i64); 6] {
        [
            ("Tensor-core kernels", "tensor_core", self.tensor_core_ns),
            ("Kernels, no tensor core", "other_kernel", self.other_kernel_ns),
            ("Kernels, tensor core unknown", "unknown_kernel", self.unknown_kernel_ns),
            ("Memory (memcpy/memset)", "memory", self.memory_ns),
            ("CPU only", "cpu_only", self.cpu_only_ns),
            (super::measures::NEITHER_GPU_NOR_CPU.label, "neither", self.idle_ns),
        ]
    }
    pub fn total_ns(&self) -> i64 {
        self.parts().iter().map(|p| p.2).sum()
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Recommendation {
    /// Stable key (`gpu_idle`, `memory`, `launch_bound`, `low_tensor_core`, `cpu_bound`,
    /// `no_iterations`).
    pub key: &'static str,
    pub problem: String,
    pub advice: String,
    /// The measured value and the threshold it crossed (percent), when the rule has one.
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// The measured facts the rule fired on (times, counts, the kernels it looked at).
    pub evidence: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Dashboard {
    /// The iteration range aggregated (numbers, inclusive), `None` = the whole trace.
    pub range: Option<(i64, i64)>,
    pub window_start_ns: i64,
    pub window_ns: i64,
    pub devices: Vec<String>,
    /// Union of GPU activity, summed over devices.
    pub gpu_busy_ns: i64,
    pub gpu_utilisation_percent: f64,
    pub kernel_count: u64,
    pub memory_count: u64,
    pub kernel_time_ns: i64,
    pub memory_time_ns: i64,
    pub tensor_core_kernel_time_ns: i64,
    /// Summed time of kernels whose tensor-core use is unknown.
    pub tensor_core_unknown_time_ns: i64,
    pub small_kernels: u64,
    /// A framework (PyTorch profiler) trace: framework advice applies.
    pub framework: bool,
    /// `top_ops` are GPU kernels and memory ops by name (a trace without framework ops).
    pub top_ops_are_kernels: bool,
    pub resources: ResourceUsage,
    pub top_ops: Vec<OpRow>,
    pub iterations: Vec<IterationRow>,
    pub op_types: Vec<OpTypeRow>,
    pub ops: Vec<OpRow>,
    pub kernels: Vec<KernelRow>,
    pub recommendations: Vec<Recommendation>,
}

/// Total length of the union of intervals (sorted in place).
fn union_len(v: &mut [(i64, i64)]) -> i64 {
    v.sort_unstable();
    let mut total = 0i64;
    let mut cur: Option<(i64, i64)> = None;
    for &(s, e) in v.iter() {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total = total.saturating_add(ce - cs);
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    if let Some((cs, ce)) = cur {
        total = total.saturating_add(ce - cs);
    }
    total
}

/// The parts of a sorted disjoint list inside `[t0, t1)`.
fn clip(v: &[(i64, i64)], t0: i64, t1: i64) -> impl Iterator<Item = (i64, i64)> + '_ {
    let k = v.partition_point(|&(_, e)| e <= t0);
    v[k..].iter().take_while(move |&&(s, _)| s < t1).map(move |&(s, e)| (s.max(t0), e.min(t1)))
}

/// Whether a host slice of this class can be an op: an op, or a category the importer did not
/// type (a producer's own categories, NVTX ranges).
fn is_op_work(w: Option<HostWork>) -> bool {
    matches!(w, None | Some(HostWork::Op))
}

fn pct(part: i64, whole: i64) -> f64 {
    if whole <= 0 {
        0.0
    } else {
        part as f64 / whole as f64 * 100.0
    }
}

impl DlprofIndex {
    /// Whether the trace has GPU streams with any work (else the dashboard does not apply).
    pub fn applies(trace: &Trace) -> bool {
        trace.tracks.iter().any(|t| {
            t.role == TrackRole::GpuStream
                && (0..t.slices.len()).any(|i| is_gpu_work(t.slices.gpu_work_of(i)))
        })
    }

    /// Classify every GPU activity and bind it to its launch and op. O(n log n) in slices.
    pub fn build(trace: &Trace) -> DlprofIndex {
        let iteration_spans: std::collections::HashSet<(i64, i64)> =
            trace.iterations.iter().map(|i| (i.start_ns, i.end_ns)).collect();
        // devices: the groups holding GPU streams, in track order
        let mut device_of_group: FxHashMap<u32, u32> = FxHashMap::default();
        let mut devices = Vec::new();
        for t in &trace.tracks {
            if t.role == TrackRole::GpuStream && !t.slices.is_empty() {
                device_of_group.entry(t.group.0).or_insert_with(|| {
                    devices.push(trace.str(trace.groups[t.group.idx()].name).to_string());
                    (devices.len() - 1) as u32
                });
            }
        }
        // CPU threads: for each slice, the outermost op slice enclosing it (or itself)
        let mut top_op: Vec<Vec<Option<u32>>> = vec![Vec::new(); trace.tracks.len()];
        let mut cpu_intervals = Vec::new();
        for (ti, t) in trace.tracks.iter().enumerate() {
            if t.role != TrackRole::CpuThread {
                continue;
            }
            let s = &t.slices;
            let is_op = |i: usize| {
                is_op_work(trace.host_work_of(s.category[i]))
                    && !iteration_spans.contains(&(s.start_ns[i], s.end_ns(i)))
            };
            let mut top = vec![None; s.len()];
            for d in 0..s.depth_count() {
                let r = s.depth_range(d);
                let parent_r = if d > 0 { s.depth_range(d - 1) } else { 0..0 };
                for i in r {
                    let from_parent = if d > 0 {
                        let ps = &s.start_ns[parent_r.clone()];
                        let k = ps.partition_point(|&x| x <= s.start_ns[i]);
                        let p = parent_r.start + k.saturating_sub(1);
                        (k > 0 && s.end_ns(p) >= s.end_ns(i)).then(|| top[p]).flatten()
                    } else {
                        None
                    };
                    top[i] = from_parent.or_else(|| is_op(i).then_some(i as u32));
                    if is_op(i) || trace.host_work_of(s.category[i]) == Some(HostWork::Runtime) {
                        cpu_intervals.push((s.start_ns[i], s.end_ns(i)));
                    }
                }
            }
            top_op[ti] = top;
        }
        // launches: flow CPU slice → GPU activity
        let mut launch_of: FxHashMap<SliceRef, SliceRef> = FxHashMap::default();
        for f in &trace.flows {
            let (Some(a), Some(b)) =
                (trace.tracks.get(f.from.track.idx()), trace.tracks.get(f.to.track.idx()))
            else {
                continue;
            };
            if a.role == TrackRole::CpuThread && b.role == TrackRole::GpuStream {
                launch_of.entry(f.to).or_insert(f.from);
            }
        }
        let mut ops: Vec<OpCall> = Vec::new();
        let mut op_index: FxHashMap<SliceRef, u32> = FxHashMap::default();
        let mut op_call = |r: SliceRef, ops: &mut Vec<OpCall>| -> u32 {
            *op_index.entry(r).or_insert_with(|| {
                let s = &trace.tracks[r.track.idx()].slices;
                let i = r.index as usize;
                ops.push(OpCall {
                    slice: r,
                    name: s.name[i],
                    start_ns: s.start_ns[i],
                    dur_ns: s.dur_ns.at(i),
                });
                (ops.len() - 1) as u32
            })
        };
        // every outermost op slice is a call, with or without GPU work
        for (ti, tops) in top_op.iter().enumerate() {
            for (i, t) in tops.iter().enumerate() {
                if *t == Some(i as u32) {
                    op_call(SliceRef { track: TrackId(ti as u32), index: i as u32 }, &mut ops);
                }
            }
        }
        // the trace's own tensor-core flag per kernel, where it has one (DLProf's database)
        let uses_tc_key = trace.strings.find("uses tensor cores");
        let uses_tc = |args: crate::model::ArgsId| -> Option<bool> {
            let k = uses_tc_key?;
            trace.args.get(args).into_iter().find(|(key, _)| *key == k).and_then(|(_, v)| match v {
                ArgValue::Bool(b) => Some(b),
                ArgValue::Int(i) => Some(i != 0),
                _ => None,
            })
        };
        let mut tc_of: FxHashMap<StrId, (TensorCore, Option<Precision>)> = FxHashMap::default();
        let mut activities = Vec::new();
        for (ti, t) in trace.tracks.iter().enumerate() {
            if t.role != TrackRole::GpuStream {
                continue;
            }
            let Some(&device) = device_of_group.get(&t.group.0) else { continue };
            let s = &t.slices;
            for i in 0..s.len() {
                let work = s.gpu_work_of(i);
                if !is_gpu_work(work) {
                    continue;
                }
                let memory = work.is_some_and(GpuWork::is_memory);
                let class = if memory { ActivityClass::Memory } else { ActivityClass::Kernel };
                let (tensor_core, precision) = if memory {
                    (TensorCore::No, None)
                } else {
                    let (by_name, p) = *tc_of.entry(s.name[i]).or_insert_with(|| {
                        let n = trace.str(s.name[i]);
                        (kernels::tensor_core(n), kernels::precision(n))
                    });
                    let tc = match uses_tc(s.args[i]) {
                        Some(true) => TensorCore::Yes,
                        Some(false) => TensorCore::No,
                        None => by_name,
                    };
                    (tc, p)
                };
                let slice = SliceRef { track: TrackId(ti as u32), index: i as u32 };
                let launch = launch_of.get(&slice).copied();
                let op = launch.map(|l| {
                    let top = top_op
                        .get(l.track.idx())
                        .and_then(|v| v.get(l.index as usize))
                        .copied()
                        .flatten()
                        .map(|k| SliceRef { track: l.track, index: k });
                    op_call(top.unwrap_or(l), &mut ops)
                });
                let (launch_ns, launch_dur_ns) = launch
                    .and_then(|l| {
                        let ls = &trace.tracks.get(l.track.idx())?.slices;
                        let k = l.index as usize;
                        Some((*ls.start_ns.get(k)?, ls.dur_ns.get(k)?))
                    })
                    .unwrap_or((s.start_ns[i], 0));
                activities.push(Activity {
                    slice,
                    device,
                    start_ns: s.start_ns[i],
                    end_ns: s.end_ns(i),
                    name: s.name[i],
                    class,
                    tensor_core,
                    precision,
                    launch_ns,
                    launch_dur_ns,
                    launch,
                    op,
                });
            }
        }
        activities.sort_by_key(|a| (a.launch_ns, a.start_ns, a.slice));
        let mut op_names = FxHashMap::default();
        for o in &ops {
            op_names.entry(o.name).or_insert_with(|| trace.str(o.name).to_string());
        }
        for a in &activities {
            op_names.entry(a.name).or_insert_with(|| trace.str(a.name).to_string());
        }
        DlprofIndex {
            devices,
            activities,
            ops,
            cpu_busy: super::busy::union(cpu_intervals),
            iterations: trace.iterations.clone(),
            trace_span: (trace.start_ns, trace.end_ns),
            op_names,
            framework: trace.format == "pytorch-kineto",
        }
    }

    /// The iterations of the trace (numbers ascending by start).
    pub fn iterations(&self) -> &[crate::model::Iteration] {
        &self.iterations
    }
    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    fn name(&self, id: StrId) -> &str {
        self.op_names.get(&id).map_or("", String::as_str)
    }

    /// `[t0, t1)` of the iterations numbered `a..=b` (`None` when none is).
    fn range_span(&self, (a, b): (i64, i64)) -> Option<(i64, i64)> {
        let mut sel = self.iterations.iter().filter(|i| i.number >= a && i.number <= b);
        let first = sel.next()?;
        let (mut t0, mut t1) = (first.start_ns, first.end_ns);
        for i in sel {
            t0 = t0.min(i.start_ns);
            t1 = t1.max(i.end_ns);
        }
        Some((t0, t1))
    }

    /// Activities and op calls in the range (all for `None`), and the window.
    fn select(&self, range: Option<(i64, i64)>) -> (Vec<&Activity>, Vec<bool>, i64, i64) {
        match range.and_then(|r| self.range_span(r)) {
            None => (
                self.activities.iter().collect(),
                vec![true; self.ops.len()],
                self.trace_span.0,
                self.trace_span.1,
            ),
            Some((t0, t1)) => {
                let acts: Vec<&Activity> =
                    self.activities.iter().filter(|a| a.launch_ns >= t0 && a.launch_ns < t1).collect();
                let end = acts.iter().map(|a| a.end_ns).max().unwrap_or(t1).max(t1);
                let ops = self.ops.iter().map(|o| o.start_ns >= t0 && o.start_ns < t1).collect();
                (acts, ops, t0, end)
            }
        }
    }

    /// Every panel for the iteration range `range` (numbers, inclusive; `None` = everything).
    pub fn dashboard(&self, range: Option<(i64, i64)>) -> Dashboard {
        let range = range.filter(|r| self.range_span(*r).is_some());
        let (acts, op_sel, w0, w1) = self.select(range);
        let window_ns = (w1 - w0).max(0);
        let ndev = self.devices.len();
        // resource usage per device
        let mut res = ResourceUsage::default();
        let mut busy_total = 0i64;
        let cpu: Vec<(i64, i64)> = clip(&self.cpu_busy, w0, w1).collect();
        for d in 0..ndev as u32 {
            let mut tc: Vec<(i64, i64)> = Vec::new();
            let mut tc_or_unknown: Vec<(i64, i64)> = Vec::new();
            let mut kern: Vec<(i64, i64)> = Vec::new();
            let mut all: Vec<(i64, i64)> = Vec::new();
            for a in acts.iter().filter(|a| a.device == d) {
                let iv = (a.start_ns.max(w0), a.end_ns.min(w1));
                if iv.0 >= iv.1 {
                    continue;
                }
                all.push(iv);
                if a.class == ActivityClass::Kernel {
                    kern.push(iv);
                    if a.tensor_core != TensorCore::No {
                        tc_or_unknown.push(iv);
                    }
                    if a.tensor_core == TensorCore::Yes {
                        tc.push(iv);
                    }
                }
            }
            // first match wins: tensor core, then unknown, then known not
            let tc_ns = union_len(&mut tc);
            let tc_or_unknown_ns = union_len(&mut tc_or_unknown);
            let kern_ns = union_len(&mut kern);
            let busy = union_len(&mut all.clone());
            all.extend(cpu.iter().copied());
            let busy_or_cpu = union_len(&mut all);
            res.tensor_core_ns += tc_ns;
            res.unknown_kernel_ns += tc_or_unknown_ns - tc_ns;
            res.other_kernel_ns += kern_ns - tc_or_unknown_ns;
            res.memory_ns += busy - kern_ns;
            res.cpu_only_ns += busy_or_cpu - busy;
            res.idle_ns += window_ns - busy_or_cpu;
            busy_total += busy;
        }
        // ops and kernels
        let mut per_call_gpu: FxHashMap<u32, i64> = FxHashMap::default();
        let mut op_rows: FxHashMap<StrId, OpRow> = FxHashMap::default();
        let new_row = |name: &str| OpRow {
            name: name.to_string(),
            op_type: op_type(name),
            calls: 0,
            cpu: Stats::default(),
            gpu: Stats::default(),
            gpu_total_ns: 0,
            kernels: 0,
            tensor_core_ns: 0,
            full_precision_ns: 0,
            tensor_core_unknown_ns: 0,
            tc_eligible: op_name_tc_eligible(name),
        };
        for (k, o) in self.ops.iter().enumerate() {
            if op_sel.get(k).copied().unwrap_or(false) {
                let row = op_rows.entry(o.name).or_insert_with(|| new_row(self.name(o.name)));
                row.calls += 1;
                row.cpu.add(o.dur_ns);
            }
        }
        let no_launch = StrId(u32::MAX);
        let mut kernel_rows: FxHashMap<StrId, (KernelRow, FxHashMap<StrId, i64>)> = FxHashMap::default();
        let (mut kernel_count, mut memory_count, mut kernel_time, mut memory_time, mut tc_time, mut small) =
            (0u64, 0u64, 0i64, 0i64, 0i64, 0u64);
        let mut tc_unknown_time = 0i64;
        for a in &acts {
            let dur = a.end_ns - a.start_ns;
            match a.class {
                ActivityClass::Kernel => {
                    kernel_count += 1;
                    kernel_time += dur;
                    match a.tensor_core {
                        TensorCore::Yes => tc_time += dur,
                        TensorCore::Unknown => tc_unknown_time += dur,
                        TensorCore::No => {}
                    }
                    if dur < SMALL_KERNEL_NS {
                        small += 1;
                    }
                }
                ActivityClass::Memory => {
                    memory_count += 1;
                    memory_time += dur;
                }
            }
            let op_name = match a.op {
                Some(k) => {
                    *per_call_gpu.entry(k).or_default() += dur;
                    self.ops.get(k as usize).map_or(no_launch, |o| o.name)
                }
                None => no_launch,
            };
            let row = op_rows.entry(op_name).or_insert_with(|| {
                new_row(if op_name == no_launch { NO_LAUNCH_OP } else { self.name(op_name) })
            });
            row.gpu_total_ns += dur;
            row.kernels += 1;
            if a.class == ActivityClass::Kernel {
                match a.tensor_core {
                    TensorCore::Yes => row.tensor_core_ns += dur,
                    TensorCore::Unknown => row.tensor_core_unknown_ns += dur,
                    TensorCore::No if a.precision.is_some_and(|p| !p.is_reduced()) => {
                        row.full_precision_ns += dur
                    }
                    TensorCore::No => {}
                }
            }
            let kname = self.name(a.name);
            if a.class == ActivityClass::Kernel {
                let l = kname.to_ascii_lowercase();
                if l.contains("gemm") || l.contains("conv") {
                    row.tc_eligible = true;
                }
            }
            let (krow, by_op) = kernel_rows.entry(a.name).or_insert_with(|| {
                (
                    KernelRow {
                        name: kname.to_string(),
                        class: a.class,
                        tensor_core: a.tensor_core,
                        precision: a.precision,
                        gpu: Stats::default(),
                        launch: Stats::default(),
                        top_op: String::new(),
                    },
                    FxHashMap::default(),
                )
            });
            krow.gpu.add(dur);
            if a.launch.is_some() {
                krow.launch.add(a.launch_dur_ns);
            }
            *by_op.entry(op_name).or_default() += dur;
        }
        for (k, g) in &per_call_gpu {
            if let Some(o) = self.ops.get(*k as usize) {
                if let Some(row) = op_rows.get_mut(&o.name) {
                    row.gpu.add(*g);
                }
            }
        }
        let mut ops: Vec<OpRow> = op_rows.into_values().collect();
        ops.sort_by(|a, b| {
            b.gpu_total_ns
                .cmp(&a.gpu_total_ns)
                .then(b.cpu.total_ns.cmp(&a.cpu.total_ns))
                .then(a.name.cmp(&b.name))
        });
        let mut kernels: Vec<KernelRow> = kernel_rows
            .into_values()
            .map(|(mut k, by_op)| {
                let top = by_op.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|x| *x.0);
                k.top_op = match top {
                    Some(id) if id == no_launch => NO_LAUNCH_OP.to_string(),
                    Some(id) => self.name(id).to_string(),
                    None => String::new(),
                };
                k
            })
            .collect();
        kernels.sort_by(|a, b| b.gpu.total_ns.cmp(&a.gpu.total_ns).then(a.name.cmp(&b.name)));
        // without framework ops, the "ops" that launched GPU work are API calls: the top GPU
        // work is then the kernels and memory ops themselves
        let top_ops_are_kernels = !self.framework;
        let top_ops: Vec<OpRow> = if top_ops_are_kernels {
            kernels
                .iter()
                .filter(|k| k.gpu.total_ns > 0)
                .take(TOP_OPS)
                .map(|k| OpRow {
                    gpu_total_ns: k.gpu.total_ns,
                    gpu: k.gpu.clone(),
                    calls: k.gpu.count,
                    kernels: k.gpu.count,
                    tensor_core_ns: if k.tensor_core == TensorCore::Yes { k.gpu.total_ns } else { 0 },
                    ..new_row(&k.name)
                })
                .collect()
        } else {
            ops.iter().filter(|o| o.gpu_total_ns > 0).take(TOP_OPS).cloned().collect()
        };
        // op types
        let mut types: FxHashMap<String, OpTypeRow> = FxHashMap::default();
        for o in &ops {
            let t = types.entry(o.op_type.clone()).or_insert_with(|| OpTypeRow {
                op_type: o.op_type.clone(),
                ops: 0,
                calls: 0,
                cpu_total_ns: 0,
                gpu_total_ns: 0,
            });
            t.ops += 1;
            t.calls += o.calls;
            t.cpu_total_ns += o.cpu.total_ns;
            t.gpu_total_ns += o.gpu_total_ns;
        }
        let mut op_types: Vec<OpTypeRow> = types.into_values().collect();
        op_types.sort_by(|a, b| {
            b.gpu_total_ns
                .cmp(&a.gpu_total_ns)
                .then(b.cpu_total_ns.cmp(&a.cpu_total_ns))
                .then(a.op_type.cmp(&b.op_type))
        });
        // iterations (all of them, so the range selector can show what it picks from)
        let iterations = self
            .iterations
            .iter()
            .map(|it| {
                let mut ivs: Vec<(i64, i64)> = self
                    .activities
                    .iter()
                    .filter(|a| a.launch_ns >= it.start_ns && a.launch_ns < it.end_ns)
                    .map(|a| (a.start_ns, a.end_ns))
                    .collect();
                let kernels = ivs.len() as u64;
                let busy = union_len(&mut ivs);
                let duration_ns = it.end_ns - it.start_ns;
                IterationRow {
                    number: it.number,
                    start_ns: it.start_ns,
                    duration_ns,
                    gpu_busy_ns: busy,
                    kernels,
                    gpu_percent: pct(busy, duration_ns),
                }
            })
            .collect();
        let whole = window_ns.saturating_mul(ndev as i64);
        let mut d = Dashboard {
            range,
            window_start_ns: w0,
            window_ns,
            devices: self.devices.clone(),
            gpu_busy_ns: busy_total,
            gpu_utilisation_percent: pct(busy_total, whole),
            kernel_count,
            memory_count,
            kernel_time_ns: kernel_time,
            memory_time_ns: memory_time,
            tensor_core_kernel_time_ns: tc_time,
            tensor_core_unknown_time_ns: tc_unknown_time,
            small_kernels: small,
            framework: self.framework,
            top_ops_are_kernels,
            resources: res,
            top_ops,
            iterations,
            op_types,
            ops,
            kernels,
            recommendations: Vec::new(),
        };
        d.recommendations = recommendations(&d, !self.iterations.is_empty());
        d
    }

    /// The events of an ops-table row: its op calls (CPU) and their GPU activities, in the
    /// range, as `per_track[track] = slice indices` for the timeline highlight.
    pub fn events_of_op(&self, range: Option<(i64, i64)>, name: &str, track_count: usize) -> Vec<Vec<u32>> {
        let (acts, op_sel, _, _) = self.select(range);
        let mut out = vec![Vec::new(); track_count];
        let mut push = |r: SliceRef| {
            if let Some(v) = out.get_mut(r.track.idx()) {
                v.push(r.index);
            }
        };
        for (k, o) in self.ops.iter().enumerate() {
            if op_sel.get(k).copied().unwrap_or(false) && self.name(o.name) == name {
                push(o.slice);
            }
        }
        for a in acts {
            let op_name =
                a.op.and_then(|k| self.ops.get(k as usize)).map_or(NO_LAUNCH_OP, |o| self.name(o.name));
            if op_name == name {
                push(a.slice);
            }
        }
        out
    }

    /// The GPU activities named `name` in the range (and their launches), for the highlight.
    pub fn events_of_kernel(
        &self,
        range: Option<(i64, i64)>,
        name: &str,
        track_count: usize,
    ) -> Vec<Vec<u32>> {
        let (acts, _, _, _) = self.select(range);
        let mut out = vec![Vec::new(); track_count];
        for a in acts.into_iter().filter(|a| self.name(a.name) == name) {
            for r in std::iter::once(a.slice).chain(a.launch) {
                if let Some(v) = out.get_mut(r.track.idx()) {
                    v.push(r.index);
                }
            }
        }
        out
    }
}

fn ms(ns: i64) -> String {
    crate::time::format_duration_ns(ns)
}

/// The rules, in a fixed order (see the constants for the thresholds). Each fires only when its
/// premise holds (framework advice on framework traces, precision advice when the precision is
/// stated) and names its evidence.
fn recommendations(d: &Dashboard, has_iterations: bool) -> Vec<Recommendation> {
    let mut out = Vec::new();
    let fw = d.framework;
    let whole = d.window_ns.saturating_mul(d.devices.len() as i64);
    let idle = 100.0 - d.gpu_utilisation_percent;
    if whole > 0 && idle > GPU_IDLE_PERCENT {
        out.push(Recommendation {
            key: "gpu_idle",
            problem: format!("The GPU is idle {idle:.1} % of the time (threshold {GPU_IDLE_PERCENT} %)."),
            advice: if fw {
                "Keep the GPU fed: overlap data loading with compute (DataLoader workers, \
                 pin_memory, prefetch), larger batches, fewer host synchronisations (.item(), \
                 .cpu(), torch.cuda.synchronize)."
            } else {
                "Keep the GPU fed: overlap host work and transfers with kernels (several streams, \
                 asynchronous copies from pinned memory), batch small launches (CUDA graphs), and \
                 avoid host synchronisation (cudaDeviceSynchronize, synchronous cudaMemcpy)."
            }
            .into(),
            value: Some(idle),
            threshold: Some(GPU_IDLE_PERCENT),
            evidence: format!(
                "busy (kernels, memory copies and sets) {} of a {} window × {} device(s); \
                 annotation ranges not counted",
                ms(d.gpu_busy_ns),
                ms(d.window_ns),
                d.devices.len()
            ),
        });
    }
    let mem = pct(d.resources.memory_ns, d.gpu_busy_ns);
    if d.gpu_busy_ns > 0 && mem > MEMORY_PERCENT {
        let top = d.kernels.iter().find(|k| k.class == ActivityClass::Memory);
        out.push(Recommendation {
            key: "memory",
            problem: format!(
                "Memory copies and sets take {mem:.1} % of GPU busy time (threshold {MEMORY_PERCENT} %)."
            ),
            advice: if fw {
                "Avoid host↔device copies in the loop: keep tensors on the GPU, use pinned memory \
                 with non_blocking=True, and copy on a separate stream to overlap with compute."
            } else {
                "Avoid host↔device copies in the loop: keep data on the device, copy from pinned \
                 memory with cudaMemcpyAsync on a separate stream to overlap with compute."
            }
            .into(),
            value: Some(mem),
            threshold: Some(MEMORY_PERCENT),
            evidence: format!(
                "{} memory op(s), {} not overlapped by kernels of {} busy{}",
                d.memory_count,
                ms(d.resources.memory_ns),
                ms(d.gpu_busy_ns),
                top.map(|k| format!("; largest: {} ({}×, {})", k.name, k.gpu.count, ms(k.gpu.total_ns)))
                    .unwrap_or_default()
            ),
        });
    }
    let small = pct(d.small_kernels as i64, d.kernel_count as i64);
    if d.kernel_count as usize >= SMALL_KERNEL_MIN_COUNT && small > SMALL_KERNEL_PERCENT {
        out.push(Recommendation {
            key: "launch_bound",
            problem: format!(
                "{} of {} kernels ({small:.1} %) run shorter than {} µs (threshold {SMALL_KERNEL_PERCENT} % \
                 of at least {SMALL_KERNEL_MIN_COUNT} kernels): the run is likely launch-bound.",
                d.small_kernels,
                d.kernel_count,
                SMALL_KERNEL_NS / 1000
            ),
            advice: if fw {
                "Launch fewer, larger kernels: CUDA graphs, torch.compile or fused ops, larger \
                 batches."
            } else {
                "Launch fewer, larger kernels: CUDA graphs, kernel fusion, larger batches."
            }
            .into(),
            value: Some(small),
            threshold: Some(SMALL_KERNEL_PERCENT),
            evidence: format!("{} kernels under {} µs", d.small_kernels, SMALL_KERNEL_NS / 1000),
        });
    }
    // precision advice only where the precision is known: GEMM/conv ops whose kernels do not use
    // tensor cores and state FP32/FP64; kernels it cannot tell about are left out
    let eligible = || d.ops.iter().filter(|o| o.tc_eligible);
    let eligible_tc: i64 = eligible().map(|o| o.tensor_core_ns).sum();
    let eligible_full: i64 = eligible().map(|o| o.full_precision_ns).sum();
    let eligible_unknown: i64 = eligible().map(|o| o.tensor_core_unknown_ns).sum();
    let known = eligible_tc + eligible_full;
    let all_gpu = d.kernel_time_ns + d.memory_time_ns;
    let tc_share = pct(eligible_tc, known);
    if eligible_full > 0 && pct(known, all_gpu) >= TC_ELIGIBLE_MIN_PERCENT && tc_share < LOW_TC_PERCENT {
        let n = eligible().filter(|o| o.full_precision_ns > 0).count();
        let example = d
            .kernels
            .iter()
            .find(|k| k.tensor_core == TensorCore::No && k.precision.is_some_and(|p| !p.is_reduced()));
        out.push(Recommendation {
            key: "low_tensor_core",
            problem: format!(
                "{n} GEMM/convolution op(s) run {} in FP32/FP64 kernels without tensor cores: \
                 {tc_share:.1} % of their known GPU time is in tensor-core kernels (threshold \
                 {LOW_TC_PERCENT} %).",
                ms(eligible_full)
            ),
            advice: if fw {
                "Enable mixed precision (torch.autocast with float16/bfloat16) or TF32 \
                 (torch.backends.cuda.matmul.allow_tf32), and keep GEMM dimensions multiples of 8."
            } else {
                "Use reduced-precision GEMMs (FP16/BF16, or TF32 through the cuBLAS math mode \
                 CUBLAS_TF32_TENSOR_OP_MATH), and keep GEMM dimensions multiples of 8."
            }
            .into(),
            value: Some(tc_share),
            threshold: Some(LOW_TC_PERCENT),
            evidence: format!(
                "tensor-core kernels {}, FP32/FP64 kernels {}, unknown {} (not counted){}",
                ms(eligible_tc),
                ms(eligible_full),
                ms(eligible_unknown),
                example
                    .map(|k| format!(
                        "; e.g. {} ({})",
                        k.name,
                        k.precision.map_or("?", |p: Precision| p.label())
                    ))
                    .unwrap_or_default()
            ),
        });
    }
    let cpu = pct(d.resources.cpu_only_ns, whole);
    if whole > 0 && cpu > CPU_BOUND_PERCENT {
        out.push(Recommendation {
            key: "cpu_bound",
            problem: format!(
                "The GPU waits while only the CPU works {cpu:.1} % of the time (threshold {CPU_BOUND_PERCENT} %)."
            ),
            advice: if fw {
                "Move work off the host path: vectorise Python loops, move preprocessing to the \
                 GPU or to DataLoader workers, and check for synchronous calls."
            } else {
                "Move work off the host path: overlap host computation with GPU work, and check \
                 for synchronous API calls."
            }
            .into(),
            value: Some(cpu),
            threshold: Some(CPU_BOUND_PERCENT),
            evidence: format!(
                "{} of the window with CPU ops or runtime calls and no GPU work",
                ms(d.resources.cpu_only_ns)
            ),
        });
    }
    if fw && !has_iterations {
        out.push(Recommendation {
            key: "no_iterations",
            problem: "No iterations found (no ProfilerStep#N): the panels cover the whole trace.".into(),
            advice: "Profile with torch.profiler.schedule and call prof.step() once per training step \
                     to see per-iteration numbers."
                .into(),
            value: None,
            threshold: None,
            evidence: "a PyTorch profiler trace without ProfilerStep#N ranges".into(),
        });
    }
    out
}

#[cfg(test)]
mod tests;
