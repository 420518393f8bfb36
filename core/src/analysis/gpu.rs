//! GPU breakdowns of a profile with GPU streams, in two sets of definitions ([`Definitions`]):
//!
//! **Loupe's (the default)**, those of `analysis::measures` (`// --- GPU ---`), the same as the
//! Overall Summary and the Dashboard use: a *GPU activity* is a slice on a GPU stream track whose
//! typed [`GpuWork`] (set by the importer from the trace's own activity kind) is a kernel, memory
//! copy or memory set — annotation ranges, sync and event markers are not work (a slice the
//! importer could not type counts as work); exact ns; no step dropped. *Memory* = the memory copies
//! and sets (typed); *communication* = the kernels of [`kernels::is_communication`] (NCCL, RCCL,
//! NVSHMEM, `multimem_*`, custom all-reduce, all-gather / reduce-scatter / all-to-all families);
//! *computation* = the other kernels. Where this differs from HTA: HTA counts any slice with a
//! Kineto `stream` argument (also a host-side Triton op), only `^nccl.*Kernel` as
//! communication (a `multimem_all_reduce_kernel` is computation there), rounds to whole µs and
//! drops the last ProfilerStep.
//!
//! **HTA's** ([`Definitions::Hta`], `loupe analyze --definitions hta`, the switch in the GPU
//! Breakdown), as Holistic Trace Analysis (HTA 0.5, `hta/analyzers/breakdown_analysis.py`,
//! `communication_analysis.py`, `cuda_kernel_analysis.py`) and TraceLens define them, described
//! below. `scripts/hta_oracle.py` checks the numbers against HTA itself in this mode.
//!
//! **Which events.** A *GPU activity* is a slice on a [`TrackRole::GpuStream`] track. When the
//! profile carries Kineto's `stream` argument, only slices whose `stream` is an integer other
//! than −1 count — HTA's test, which drops `gpu_user_annotation` ranges and stream-less device
//! events, and (as HTA does) also counts a host slice that carries a `stream` argument, such as
//! the `triton_…` CPU op Inductor records around each Triton launch.
//! A *rank* is one input file (several files dropped together are several ranks); its number is
//! the file's `distributedInfo.rank` when every file has one, else the `rank_N` its name states
//! when every name states a distinct one, else the file's position ([`rank_numbers`]).
//!
//! **HTA's preprocessing**, applied to every analysis here unless switched off in [`GpuOptions`]:
//! - Times in whole µs: each start is rounded up and each end down (HTA does this to float
//!   timestamps; it can make a sub-µs kernel last 0 or −1 µs, as in HTA).
//! - The last `ProfilerStep` is dropped when the profile has two or more: per rank, the cutoff is
//!   the latest start of a non-kernel slice named `…ProfilerStep…`; a kernel with a launch
//!   correlation is kept when its launch (found through the launch → kernel flow, else through
//!   the same `correlation` argument on a CPU slice of the rank) starts before
//!   the cutoff, an activity without one when it starts before the cutoff.
//!
//! **Definitions** (per rank; merged = union of intervals, HTA's `merge_kernel_intervals`):
//! - kernel time = end of the last merged interval − start of the first; idle = kernel time −
//!   merged busy time; compute = merged time of COMPUTATION kernels; non-compute = kernel time −
//!   compute − idle. Percentages of kernel time, rounded to 0.01 like HTA.
//! - Kernel type by name: COMMUNICATION `^nccl.*Kernel`; MEMORY `^Memcpy|^Memset|^dma`;
//!   COMPUTATION unless the name matches `^nccl.*Kernel|.*Memcpy|^Memset|.*Sync`; else OTHER.
//! - Kernel-type totals: the time covered by each combination of merged COMPUTATION,
//!   COMMUNICATION and MEMORY intervals ("COMPUTATION overlapping MEMORY", …), summed over ranks.
//! - Top kernels per type: by summed duration; past `top_kernels` names, or past the
//!   `duration_ratio` quantile of the cumulative sum, the rest is folded into "others".
//! - Idle per stream: between consecutive kernels/memcpys/memsets of one stream, the gap is *host
//!   wait* when the next one's launch started after the previous ended, else *kernel wait* when the
//!   gap is under `consecutive_kernel_delay_ns` (HTA's 30, in its µs), else *other*.
//! - Communication–computation overlap = merged comm ∩ merged compute / merged comm time.
//! - Launch delay = kernel start − end of its CPU launch (through the launch flow), clipped at 0.
//! - Exposed time (TraceLens): exposed comm = comm − compute; exposed memcpy = memory − (compute ∪
//!   comm); idle = kernel time − busy.

pub mod kernels;

use crate::analysis::latency::{histogram, nearest_rank, Histogram};
use crate::model::{ArgValue, ArgsId, GpuWork, SliceRef, Trace, TrackRole};
use crate::strings::{FxHashMap, StrId};
use kernels::TensorCore;

/// HTA's kernel classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum KernelType {
    Computation,
    Communication,
    Memory,
    Other,
}

impl KernelType {
    pub fn label(self) -> &'static str {
        match self {
            KernelType::Computation => "COMPUTATION",
            KernelType::Communication => "COMMUNICATION",
            KernelType::Memory => "MEMORY",
            KernelType::Other => "OTHER",
        }
    }
}

/// HTA's `get_kernel_type` on a kernel name.
pub fn kernel_type(name: &str) -> KernelType {
    // Python's `.` stops at a newline: only the first line can match `.*X`
    let first = name.split('\n').next().unwrap_or("");
    let nccl = first.strip_prefix("nccl").is_some_and(|r| r.contains("Kernel"));
    if nccl {
        KernelType::Communication
    } else if name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma") {
        KernelType::Memory
    } else if first.contains("Memcpy") || name.starts_with("Memset") || first.contains("Sync") {
        KernelType::Other
    } else {
        KernelType::Computation
    }
}

/// Which definitions the analyses use (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Definitions {
    /// `analysis::measures`: typed work, extended communication families, exact ns.
    #[default]
    Loupe,
    /// Holistic Trace Analysis' rules, for parity.
    Hta,
}

impl Definitions {
    pub fn from_name(s: &str) -> Option<Definitions> {
        match s.trim().to_ascii_lowercase().as_str() {
            "loupe" | "default" => Some(Definitions::Loupe),
            "hta" => Some(Definitions::Hta),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Definitions::Loupe => "loupe",
            Definitions::Hta => "hta",
        }
    }
}

/// The kernel type of a typed activity under Loupe's definitions: memory by its typed kind,
/// communication by [`kernels::is_communication`], else computation.
pub fn loupe_kernel_type(work: Option<GpuWork>, name: &str) -> KernelType {
    loupe_kernel_type_by(work, || kernels::is_communication(name))
}

/// [`loupe_kernel_type`] with the name's communication test given as `is_communication`, called
/// only when the typed kind leaves it open (so a caller can answer it once per distinct name).
fn loupe_kernel_type_by(work: Option<GpuWork>, is_communication: impl FnOnce() -> bool) -> KernelType {
    match work {
        Some(w) if w.is_memory() => KernelType::Memory,
        Some(w) if !w.is_work() => KernelType::Other,
        _ if is_communication() => KernelType::Communication,
        _ => KernelType::Computation,
    }
}

/// Whether a slice of a GPU stream is work under Loupe's definitions (untyped slices are).
#[inline]
pub fn is_gpu_work(work: Option<GpuWork>) -> bool {
    work.is_none_or(GpuWork::is_work)
}

/// Knobs. [`GpuOptions::default`] is Loupe's definitions; [`GpuOptions::hta`] HTA's.
#[derive(Debug, Clone)]
pub struct GpuOptions {
    /// Which definitions (activities, kernel types).
    pub definitions: Definitions,
    /// Round starts up and ends down to whole µs, as HTA does.
    pub hta_rounding: bool,
    /// Drop the last ProfilerStep when there are two or more, as HTA does.
    pub drop_last_step: bool,
    /// Gaps below this on one stream are "kernel wait" (HTA: 30 in its µs).
    pub consecutive_kernel_delay_ns: i64,
    /// Kernels kept by name per type before folding into "others" (HTA: 10).
    pub top_kernels: usize,
    /// Cumulative-time quantile past which kernels are folded (HTA: 0.8).
    pub duration_ratio: f64,
    /// Launch delays above this are outliers (HTA: 100 µs).
    pub launch_delay_outlier_ns: i64,
    /// Launch calls longer than this are runtime outliers (HTA: 50 µs).
    pub runtime_outlier_ns: i64,
    /// Bins of the utilisation-over-time series.
    pub utilisation_bins: usize,
    /// Launch-delay outliers listed (the largest first).
    pub max_outliers: usize,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            definitions: Definitions::Loupe,
            hta_rounding: false,
            drop_last_step: false,
            ..GpuOptions::hta()
        }
    }
}

impl GpuOptions {
    /// HTA's definitions and preprocessing (whole µs, the last ProfilerStep dropped).
    pub fn hta() -> Self {
        GpuOptions {
            definitions: Definitions::Hta,
            hta_rounding: true,
            drop_last_step: true,
            consecutive_kernel_delay_ns: 30_000,
            top_kernels: 10,
            duration_ratio: 0.8,
            launch_delay_outlier_ns: 100_000,
            runtime_outlier_ns: 50_000,
            utilisation_bins: 100,
            max_outliers: 20,
        }
    }
}

/// Temporal breakdown of one rank (or the sum over ranks).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Temporal {
    /// The GPU span: first activity start → last activity end (HTA's "kernel time";
    /// `measures::GPU_SPAN`).
    pub kernel_ns: i64,
    /// Union of the activities (`measures::GPU_BUSY`) = `kernel_ns − idle_ns`.
    pub busy_ns: i64,
    /// Idle in the GPU span (`measures::GPU_IDLE_IN_SPAN`).
    pub idle_ns: i64,
    pub compute_ns: i64,
    pub non_compute_ns: i64,
    pub idle_pct: f64,
    pub compute_pct: f64,
    pub non_compute_pct: f64,
}

impl Temporal {
    fn new(kernel_ns: i64, idle_ns: i64, compute_ns: i64) -> Temporal {
        let non_compute_ns = kernel_ns - compute_ns - idle_ns;
        let pct = |x: i64| if kernel_ns > 0 { round2(100.0 * x as f64 / kernel_ns as f64) } else { 0.0 };
        Temporal {
            kernel_ns,
            busy_ns: kernel_ns - idle_ns,
            idle_ns,
            compute_ns,
            non_compute_ns,
            idle_pct: pct(idle_ns),
            compute_pct: pct(compute_ns),
            non_compute_pct: pct(non_compute_ns),
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankTemporal {
    pub rank: i64,
    pub file: Option<String>,
    #[serde(flatten)]
    pub temporal: Temporal,
    /// GPU activities analysed, and those dropped with the last ProfilerStep.
    pub activities: u64,
    pub dropped_activities: u64,
    /// Start of the dropped last ProfilerStep (the cutoff), when one was dropped.
    pub dropped_step_start_ns: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TemporalBreakdown {
    /// Sums over ranks.
    #[serde(flatten)]
    pub total: Temporal,
    pub ranks: Vec<RankTemporal>,
}

/// Time covered by one combination of kernel types, over all ranks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KernelTypeTotal {
    /// "COMPUTATION", "MEMORY", "COMMUNICATION" or e.g. "COMPUTATION overlapping MEMORY".
    #[serde(rename = "type")]
    pub kind: String,
    /// The types of the combination, in HTA's order (for [`GpuEvents::select`]).
    #[serde(skip)]
    pub types: Vec<KernelType>,
    pub total_ns: i64,
    pub percent: f64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KernelStat {
    /// The kernel name, or "others" for the folded rest.
    pub name: String,
    pub count: u64,
    /// Distinct names folded in ("others"), else 1.
    pub names: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    pub max_ns: i64,
    pub mean_ns: i64,
    /// Share of this type's total on this rank.
    pub percent: f64,
    /// The folded rest ("others"), not one kernel name.
    #[serde(skip)]
    pub folded: bool,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TopKernels {
    pub rank: i64,
    #[serde(rename = "type")]
    pub kind: KernelType,
    pub total_ns: i64,
    pub kernels: Vec<KernelStat>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StreamIdle {
    pub rank: i64,
    pub stream: String,
    /// Kineto's stream number when the profile has one (else the activities are by `track`).
    #[serde(skip)]
    pub stream_id: Option<i64>,
    pub track: u32,
    pub idle_ns: i64,
    pub host_wait_ns: i64,
    pub kernel_wait_ns: i64,
    pub other_ns: i64,
    /// Gaps of each category (host wait, kernel wait, other).
    pub gaps: [u64; 3],
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankOverlap {
    pub rank: i64,
    pub comm_ns: i64,
    pub overlap_ns: i64,
    /// `None` when the rank has no communication kernels.
    pub overlap_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LaunchOutlier {
    pub kernel: SliceRef,
    pub launch: SliceRef,
    pub name: String,
    pub delay_ns: i64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LaunchDelay {
    pub rank: i64,
    /// Kernels with a CPU launch found through a flow.
    pub count: u64,
    pub min_ns: i64,
    pub median_ns: i64,
    pub p90_ns: i64,
    pub p99_ns: i64,
    pub max_ns: i64,
    pub mean_ns: i64,
    pub histogram: Histogram,
    /// Delay above `launch_delay_outlier_ns`.
    pub outliers: u64,
    pub outlier_threshold_ns: i64,
    /// Launch calls longer than `runtime_outlier_ns`.
    pub runtime_outliers: u64,
    /// Kernels shorter than the call that launched them.
    pub shorter_than_launch: u64,
    /// The largest delays.
    pub top: Vec<LaunchOutlier>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Utilisation {
    pub rank: i64,
    pub start_ns: i64,
    pub bin_ns: i64,
    /// Busy fraction (0..1) of each bin.
    pub busy: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Exposed {
    pub rank: i64,
    pub total_ns: i64,
    pub busy_ns: i64,
    pub idle_ns: i64,
    pub computation_ns: i64,
    pub comm_ns: i64,
    pub exposed_comm_ns: i64,
    pub memcpy_ns: i64,
    pub exposed_memcpy_ns: i64,
}

/// How the numbers were made, for the UI and the JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Method {
    pub time_rounding: &'static str,
    pub last_step: String,
    pub activities: &'static str,
}

/// Kernel time split by tensor-core use (unions over the rank's kernels).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankTensorCore {
    pub rank: i64,
    /// Union of tensor-core kernels (`measures::TENSOR_CORE_TIME`).
    pub tensor_core_ns: i64,
    /// Union of kernels known not to use tensor cores.
    pub not_tensor_core_ns: i64,
    /// Union of kernels it cannot tell (`measures::TENSOR_CORE_UNKNOWN`).
    pub unknown_ns: i64,
    /// Summed duration of tensor-core kernels by the precision their name states ("FP8", …,
    /// "unstated"), largest first.
    pub by_precision: Vec<(String, i64)>,
}

/// Every GPU analysis of a profile.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GpuAnalysis {
    /// Which definitions made these numbers.
    pub definitions: Definitions,
    pub temporal_breakdown: TemporalBreakdown,
    pub kernel_types: Vec<KernelTypeTotal>,
    pub top_kernels: Vec<TopKernels>,
    pub idle_breakdown: Vec<StreamIdle>,
    pub comm_comp_overlap: Vec<RankOverlap>,
    pub launch_delay: Vec<LaunchDelay>,
    pub gpu_utilisation: Vec<Utilisation>,
    pub exposed_time: Vec<Exposed>,
    pub tensor_cores: Vec<RankTensorCore>,
    pub method: Method,
}

#[derive(Debug, Clone, Copy)]
struct Act {
    slice: SliceRef,
    start: i64,
    end: i64,
    name: StrId,
    ty: KernelType,
    /// The CPU launch (slice, start, end), through the launch → kernel flow.
    launch: Option<(SliceRef, i64, i64)>,
    /// Kernel / memcpy / memset (HTA's idle-breakdown categories).
    idle_kind: bool,
    has_corr: bool,
    /// Kineto's `correlation` argument (launch ↔ kernel), when present.
    corr: Option<i64>,
    /// Kineto's `stream` argument, when present (HTA groups streams by it, not by track).
    stream: Option<i64>,
}

/// An integer argument as Kineto writes it (int, uint, float or decimal text); also the critical
/// path's (`critical_path`).
pub(crate) fn int_arg(v: ArgValue, trace: &Trace) -> Option<i64> {
    match v {
        ArgValue::Int(i) => Some(i),
        ArgValue::UInt(u) => i64::try_from(u).ok(),
        ArgValue::Float(f) if f.is_finite() => Some(f.trunc() as i64),
        ArgValue::Str(s) => trace.str(s).trim().parse().ok(),
        _ => None,
    }
}

fn stream_corr(
    trace: &Trace,
    args: ArgsId,
    keys: (Option<StrId>, Option<StrId>),
) -> (Option<i64>, Option<i64>) {
    let (mut stream, mut corr) = (None, None);
    if args == ArgsId::NONE {
        return (None, None);
    }
    // a lazily kept set (large files) carries the two ids as typed columns
    if let Some(ids) = trace.args.gpu_ids(args) {
        return (ids.stream, ids.correlation);
    }
    for (k, v) in trace.args.get(args) {
        if Some(k) == keys.0 {
            stream = int_arg(v, trace);
        } else if Some(k) == keys.1 {
            corr = int_arg(v, trace);
        }
    }
    (stream, corr)
}

/// HTA's `merge_kernel_intervals`: sort by start; a new interval begins when the start is past
/// every earlier end.
fn merge(mut iv: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    iv.sort_by_key(|x| x.0);
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut cummax = i64::MIN;
    for (s, e) in iv {
        match out.last_mut() {
            Some(last) if s <= cummax => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
        cummax = cummax.max(e);
    }
    out
}

fn run_time(m: &[(i64, i64)]) -> i64 {
    m.iter().map(|&(s, e)| e - s).sum()
}

/// Length of the intersection of two merged (disjoint, sorted) interval lists.
fn intersect_len(a: &[(i64, i64)], b: &[(i64, i64)]) -> i64 {
    let (mut i, mut j, mut total) = (0, 0, 0i64);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if hi > lo {
            total += hi - lo;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// A time in µs as the f64 Python reads from the decimal text (`{us}.{ns:03}`): the nearest
/// double, which for an absolute timestamp (~1.7e15 µs) is coarser than a ns. Also HTA's
/// critical path's rounding (`critical_path`).
pub(crate) fn us_f64(ns: i64) -> f64 {
    const EXACT: i64 = 1 << 53;
    if (0..EXACT).contains(&ns) || (-EXACT < ns && ns < 0) {
        // both exact in f64: one correctly rounded division = the nearest double
        return ns as f64 / 1000.0;
    }
    if ns > 0 {
        if let Ok(v) = format!("{}.{:03}", ns / 1000, ns % 1000).parse::<f64>() {
            return v;
        }
    }
    ns as f64 / 1000.0
}

/// HTA's rounding of an event `[start_ns, end_ns)` (`round_down_time_stamps`): in float64 µs,
/// start = ⌈ts⌉, end = ⌊ts + dur⌋ (the end may fall before the start for sub-µs events).
fn hta_round(start_ns: i64, end_ns: i64) -> (i64, i64) {
    let ts = us_f64(start_ns);
    let dur = us_f64(end_ns.saturating_sub(start_ns));
    let to_ns = |us: f64| if us.is_finite() { (us as i64).saturating_mul(1000) } else { 0 };
    (to_ns(ts.ceil()), to_ns((ts + dur).floor()))
}

/// One rank's inputs.
struct Rank {
    number: i64,
    file: Option<StrId>,
    acts: Vec<Act>,
    dropped: u64,
    cutoff: Option<i64>,
}

pub use crate::import::ranks::{neuron_core_in_file_name, rank_in_file_name, RankSource};

/// The rank numbers of the input files (`names`, in order of first appearance; `neuron[i]`: the
/// file is a Neuron capture) and how they were chosen: [`crate::import::ranks::number_files`]
/// over the profile's `distributedInfo` records. The one definition of a rank's number: the GPU
/// analyses, `analysis::ranks`, the critical path and the import's group labels number ranks
/// with it.
pub(crate) fn rank_numbers(trace: &Trace, names: &[Option<&str>], neuron: &[bool]) -> (Vec<i64>, RankSource) {
    crate::import::ranks::number_files(&trace.metadata.entries, names, neuron)
}

/// The ranks of a profile: one per input file (`Group::source_file`), in order of first
/// appearance, numbered by [`rank_numbers`]. The GPU analyses and `analysis::ranks` share it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RankMap {
    /// The input files, in order of first appearance.
    pub files: Vec<Option<StrId>>,
    /// Per group: its file's position in `files`.
    pub group_rank: Vec<usize>,
    /// Per file: its rank number.
    pub numbers: Vec<i64>,
    /// How `numbers` were chosen.
    pub source: RankSource,
}

impl RankMap {
    pub fn of(trace: &Trace) -> RankMap {
        let mut files: Vec<Option<StrId>> = Vec::new();
        let mut neuron: Vec<bool> = Vec::new();
        let group_rank: Vec<usize> = trace
            .groups
            .iter()
            .map(|g| {
                let p = match files.iter().position(|f| *f == g.source_file) {
                    Some(p) => p,
                    None => {
                        files.push(g.source_file);
                        neuron.push(false);
                        files.len() - 1
                    }
                };
                neuron[p] |= g.device.is_some();
                p
            })
            .collect();
        let names: Vec<Option<&str>> = files.iter().map(|f| f.map(|s| trace.str(s))).collect();
        let (numbers, source) = rank_numbers(trace, &names, &neuron);
        RankMap { files, group_rank, numbers, source }
    }

    /// The rank number of a track's file.
    pub fn rank_of_track(&self, trace: &Trace, track: usize) -> i64 {
        let k =
            trace.tracks.get(track).and_then(|t| self.group_rank.get(t.group.idx())).copied().unwrap_or(0);
        self.numbers.get(k).copied().unwrap_or(k as i64)
    }
}

/// Why the GPU analyses do not apply, or their results.
pub fn gpu_analysis(trace: &Trace, opts: &GpuOptions) -> Result<GpuAnalysis, String> {
    analyse(trace, opts, false).map(|x| x.0)
}

/// [`gpu_analysis`] and the activities it counted, to find the events of a table row
/// ([`GpuEvents::select`]).
pub fn gpu_analysis_with_events(
    trace: &Trace,
    opts: &GpuOptions,
) -> Result<(GpuAnalysis, GpuEvents), String> {
    analyse(trace, opts, true)
}

fn analyse(trace: &Trace, opts: &GpuOptions, keep_events: bool) -> Result<(GpuAnalysis, GpuEvents), String> {
    let gpu_tracks: Vec<usize> =
        (0..trace.tracks.len()).filter(|&i| trace.tracks[i].role == TrackRole::GpuStream).collect();
    if gpu_tracks.is_empty() {
        return Err("no GPU stream tracks in this profile".into());
    }
    let hta = opts.definitions == Definitions::Hta;
    let keys = (trace.strings.find("stream"), trace.strings.find("correlation"));
    let idle_cats: Vec<StrId> =
        ["kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"]
            .iter()
            .filter_map(|c| trace.strings.find(c))
            .collect();
    let round = |s: i64, e: i64| if opts.hta_rounding { hta_round(s, e) } else { (s, e) };

    // ranks: one per input file, in order of first appearance
    let RankMap { files, group_rank, numbers, .. } = RankMap::of(trace);
    let rank_of_track = |t: usize| group_rank.get(trace.tracks[t].group.idx()).copied().unwrap_or(0);

    // launches: flow from a non-stream slice into a stream slice
    let mut launch_of: FxHashMap<SliceRef, SliceRef> = FxHashMap::default();
    for f in &trace.flows {
        let (from, to) = (trace.track(f.from.track), trace.track(f.to.track));
        if to.role == TrackRole::GpuStream && from.role != TrackRole::GpuStream {
            launch_of.entry(f.to).or_insert(f.from);
        }
    }

    // does the profile use Kineto's `stream` argument?
    // lazy argument sets keep `stream` and `correlation` typed, without interning their keys
    let lazy = trace.args.lazy.any_stream();
    let lazy_corr = trace.args.lazy.any_correlation();
    let uses_stream_arg = hta
        && (keys.0.is_some() || lazy)
        && gpu_tracks.iter().any(|&ti| {
            let c = &trace.tracks[ti].slices;
            (0..c.len()).any(|i| stream_corr(trace, c.args[i], keys).0.is_some())
        });

    let mut ranks: Vec<Rank> = (0..files.len())
        .map(|k| Rank {
            number: numbers.get(k).copied().unwrap_or(k as i64),
            file: files[k],
            acts: Vec::new(),
            dropped: 0,
            cutoff: None,
        })
        .collect();
    let mut is_step: FxHashMap<StrId, bool> = FxHashMap::default();
    let mut step_names = 0usize;
    let mut type_of: FxHashMap<StrId, KernelType> = FxHashMap::default();
    // Loupe's communication test lower-cases the name and searches it for ~20 families: once per
    // distinct name, not per slice (a 200 MB Kineto trace has ~10⁵ kernels and ~10² names)
    let mut comm_of: FxHashMap<StrId, bool> = FxHashMap::default();
    let mut step_start: Vec<Option<i64>> = vec![None; ranks.len()];
    // CPU slices by `correlation` per rank: the launch when a file has no launch flows
    let mut launch_by_corr: Vec<FxHashMap<i64, SliceRef>> = vec![FxHashMap::default(); ranks.len()];
    let launch_needed = keys.1.is_some() || lazy_corr;
    for (ti, t) in trace.tracks.iter().enumerate() {
        let rk = rank_of_track(ti);
        let c = &t.slices;
        let on_stream = t.role == TrackRole::GpuStream;
        if !on_stream && !uses_stream_arg && !launch_needed {
            // no Kineto arguments: only ProfilerStep names matter on host tracks
            for i in 0..c.len() {
                let name = c.name[i];
                let step = *is_step.entry(name).or_insert_with(|| {
                    let s = trace.str(name).contains("ProfilerStep");
                    step_names += usize::from(s);
                    s
                });
                if step {
                    let s = round(c.start_ns[i], c.end_ns(i)).0;
                    let e = &mut step_start[rk];
                    *e = Some(e.map_or(s, |x: i64| x.max(s)));
                }
            }
            continue;
        }
        for i in 0..c.len() {
            let name = c.name[i];
            let step = *is_step.entry(name).or_insert_with(|| {
                let s = trace.str(name).contains("ProfilerStep");
                step_names += usize::from(s);
                s
            });
            let slice = SliceRef { track: crate::model::TrackId(ti as u32), index: i as u32 };
            let (stream, corr) = if keys.0.is_some() || keys.1.is_some() || lazy || lazy_corr {
                stream_corr(trace, c.args[i], keys)
            } else {
                (None, None)
            };
            // HTA: a GPU event is any event with an integer `stream` other than −1 (also a host
            // slice carrying one, e.g. Inductor's Triton launch ops); without Kineto's argument,
            // every slice on a GPU stream track
            // Loupe: typed work on GPU stream tracks only
            let work = c.gpu_work_of(i);
            let act = if uses_stream_arg {
                stream.is_some_and(|s| s != -1)
            } else {
                on_stream && (hta || is_gpu_work(work))
            };
            // HTA's GPUKernelFilter: stream ≥ 0 and correlation ≥ 0
            let has_corr = stream.is_some_and(|s| s >= 0) && corr.is_some_and(|c| c >= 0);
            let kernel_filter = has_corr;
            let corr_arg = corr;
            if !kernel_filter {
                if let (Some(cr), Some(m)) = (corr.filter(|&c| c >= 0), launch_by_corr.get_mut(rk)) {
                    m.entry(cr).or_insert(slice);
                }
            }
            // HTA's cutoff: latest start of a ProfilerStep that is not a GPU kernel
            if step && !kernel_filter {
                let s = round(c.start_ns[i], c.end_ns(i)).0;
                let e = &mut step_start[rk];
                *e = Some(e.map_or(s, |x: i64| x.max(s)));
            }
            if !act {
                continue;
            }
            let launch = launch_of.get(&slice).map(|&l| {
                let lc = &trace.track(l.track).slices;
                let li = l.index as usize;
                {
                    let (s, e) = round(lc.start_ns[li], lc.end_ns(li));
                    (l, s, e)
                }
            });
            let ty = if hta {
                *type_of.entry(name).or_insert_with(|| kernel_type(trace.str(name)))
            } else {
                loupe_kernel_type_by(work, || {
                    *comm_of.entry(name).or_insert_with(|| kernels::is_communication(trace.str(name)))
                })
            };
            let idle_kind = !uses_stream_arg || idle_cats.contains(&c.category[i]);
            if let Some(r) = ranks.get_mut(rk) {
                let (start, end) = round(c.start_ns[i], c.end_ns(i));
                r.acts.push(Act {
                    slice,
                    start,
                    end,
                    name,
                    ty,
                    launch,
                    idle_kind,
                    has_corr,
                    corr: corr_arg,
                    stream,
                });
            }
        }
    }
    for (r, by_corr) in ranks.iter_mut().zip(&launch_by_corr) {
        for a in r.acts.iter_mut().filter(|a| a.launch.is_none() && a.has_corr) {
            if let Some(&l) = a.corr.and_then(|c| by_corr.get(&c)) {
                let lc = &trace.track(l.track).slices;
                let li = l.index as usize;
                a.launch = Some({
                    let (s, e) = round(lc.start_ns[li], lc.end_ns(li));
                    (l, s, e)
                });
            }
        }
    }
    let drop_steps = opts.drop_last_step && step_names >= 2;
    if drop_steps {
        for (r, cut) in ranks.iter_mut().zip(&step_start) {
            let Some(cut) = *cut else { continue };
            let before = r.acts.len();
            r.acts.retain(
                |a| {
                    if a.has_corr {
                        a.launch.is_some_and(|(_, s, _)| s < cut)
                    } else {
                        a.start < cut
                    }
                },
            );
            r.dropped = (before - r.acts.len()) as u64;
            r.cutoff = Some(cut);
        }
    }
    ranks.retain(|r| !r.acts.is_empty());
    if ranks.is_empty() {
        return Err(if drop_steps {
            "no GPU kernels before the last ProfilerStep (HTA drops the last step)".into()
        } else {
            "no GPU kernels on the GPU stream tracks".into()
        });
    }

    let mut out = GpuAnalysis {
        definitions: opts.definitions,
        tensor_cores: Vec::new(),
        temporal_breakdown: TemporalBreakdown { total: Temporal::default(), ranks: Vec::new() },
        kernel_types: Vec::new(),
        top_kernels: Vec::new(),
        idle_breakdown: Vec::new(),
        comm_comp_overlap: Vec::new(),
        launch_delay: Vec::new(),
        gpu_utilisation: Vec::new(),
        exposed_time: Vec::new(),
        method: Method {
            time_rounding: if opts.hta_rounding {
                "whole µs as HTA: starts rounded up, ends down"
            } else {
                "exact ns"
            },
            last_step: if drop_steps {
                format!("{step_names} ProfilerSteps: the last one is dropped (as HTA)")
            } else if step_names >= 2 {
                "the last ProfilerStep is kept (option)".into()
            } else {
                "fewer than two ProfilerSteps: nothing dropped".into()
            },
            activities: if !hta {
                "kernels, memory copies and memory sets on GPU stream tracks (typed at import; \
                 annotations and sync markers are not work)"
            } else if uses_stream_arg {
                "slices with a Kineto `stream` argument other than −1 (HTA's rule)"
            } else {
                "every slice on GPU stream tracks"
            },
        },
    };
    let mut type_totals: FxHashMap<u32, i64> = FxHashMap::default();
    let (mut k_sum, mut i_sum, mut c_sum) = (0i64, 0i64, 0i64);
    for r in &mut ranks {
        r.acts.sort_by_key(|a| (a.start, a.slice));
        let all = merge(r.acts.iter().map(|a| (a.start, a.end)).collect());
        let of =
            |ty: KernelType| merge(r.acts.iter().filter(|a| a.ty == ty).map(|a| (a.start, a.end)).collect());
        let (comp, comm, mem) =
            (of(KernelType::Computation), of(KernelType::Communication), of(KernelType::Memory));
        let (first, last) = (all.first().map_or(0, |x| x.0), all.last().map_or(0, |x| x.1));
        let kernel_ns = last - first;
        let busy = run_time(&all);
        let idle = kernel_ns - busy;
        let compute = run_time(&comp);
        let t = Temporal::new(kernel_ns, idle, compute);
        (k_sum, i_sum, c_sum) = (k_sum + kernel_ns, i_sum + idle, c_sum + compute);
        out.temporal_breakdown.ranks.push(RankTemporal {
            rank: r.number,
            file: r.file.map(|f| trace.str(f).to_string()),
            temporal: t,
            activities: r.acts.len() as u64,
            dropped_activities: r.dropped,
            dropped_step_start_ns: r.cutoff,
        });
        sweep_types(&[&comp, &comm, &mem], &mut type_totals);
        for ty in [KernelType::Computation, KernelType::Communication, KernelType::Memory] {
            out.top_kernels.push(top_kernels(trace, r, ty, opts));
        }
        out.idle_breakdown.extend(idle_breakdown(trace, r, opts));
        let ov = intersect_len(&comm, &comp);
        let comm_ns = run_time(&comm);
        out.comm_comp_overlap.push(RankOverlap {
            rank: r.number,
            comm_ns,
            overlap_ns: ov,
            overlap_pct: (comm_ns != 0).then(|| round2(100.0 * ov as f64 / comm_ns as f64)),
        });
        out.launch_delay.push(launch_delay(trace, r, opts));
        out.tensor_cores.push(tensor_cores(trace, r));
        out.gpu_utilisation.push(utilisation(r.number, &all, first, last, opts.utilisation_bins));
        let comp_comm = merge(comp.iter().chain(&comm).copied().collect());
        out.exposed_time.push(Exposed {
            rank: r.number,
            total_ns: kernel_ns,
            busy_ns: busy,
            idle_ns: idle,
            computation_ns: compute,
            comm_ns,
            exposed_comm_ns: comm_ns - intersect_len(&comm, &comp),
            memcpy_ns: run_time(&mem),
            exposed_memcpy_ns: run_time(&mem) - intersect_len(&mem, &comp_comm),
        });
    }
    out.temporal_breakdown.total = Temporal::new(k_sum, i_sum, c_sum);
    let sum: i64 = type_totals.values().sum();
    let mut kt: Vec<KernelTypeTotal> = type_totals
        .into_iter()
        .map(|(bits, ns)| KernelTypeTotal {
            kind: type_label(bits),
            types: TYPE_ORDER
                .iter()
                .enumerate()
                .filter(|(k, _)| bits & (1 << k) != 0)
                .map(|(_, &t)| t)
                .collect(),
            total_ns: ns,
            percent: if sum != 0 { ns as f64 * 100.0 / sum as f64 } else { 0.0 },
        })
        .collect();
    kt.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.kind.cmp(&b.kind)));
    out.kernel_types = kt;
    let acts = if keep_events {
        ranks
            .iter()
            .flat_map(|r| {
                r.acts.iter().map(|a| GpuActivity {
                    slice: a.slice,
                    rank: r.number,
                    start_ns: a.start,
                    end_ns: a.end,
                    ty: a.ty,
                    name: a.name,
                    stream: a.stream,
                    idle_kind: a.idle_kind,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok((out, GpuEvents { acts }))
}

/// The GPU activities the analyses counted (after HTA's preprocessing: the dropped last step is
/// not in it), to highlight the events behind a row of the breakdowns.
#[derive(Debug, Clone, Default)]
pub struct GpuEvents {
    acts: Vec<GpuActivity>,
}

/// One GPU activity an analysis counted, with its rank, its (possibly rounded) times and its
/// kernel type under the analysis' definitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuActivity {
    pub slice: SliceRef,
    pub rank: i64,
    pub start_ns: i64,
    pub end_ns: i64,
    pub ty: KernelType,
    pub name: StrId,
    /// Kineto's `stream` argument, when present.
    pub stream: Option<i64>,
    idle_kind: bool,
}

/// Which events of [`GpuEvents`] a row stands for.
#[derive(Debug, Clone, Copy)]
pub enum Which<'a> {
    /// The kernels of one name on one rank (a top-kernels row).
    Kernel { rank: i64, name: &'a str },
    /// The folded "others" row of a top-kernels table: the kernels of `ty` on `rank` whose name
    /// is none of `kept`.
    Folded { rank: i64, ty: KernelType, kept: &'a [String] },
    /// A kernel-type row (all ranks when `rank` is `None`): one type = every kernel of that
    /// type; a combination ("COMPUTATION overlapping MEMORY") = the kernels of those types that
    /// run during the time when exactly that combination runs.
    Types { rank: Option<i64>, types: &'a [KernelType] },
    /// The kernels, memcpys and memsets of one stream (an idle-breakdown row).
    Stream { rank: i64, stream: Option<i64>, track: u32 },
}

impl GpuEvents {
    /// Number of activities.
    pub fn len(&self) -> usize {
        self.acts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.acts.is_empty()
    }

    /// Every activity, by rank, then by (start, slice).
    pub fn activities(&self) -> &[GpuActivity] {
        &self.acts
    }

    /// The events of `which`: `per_track[t]` = ascending slice indices of track `t`.
    pub fn select(&self, trace: &Trace, which: &Which<'_>) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); trace.tracks.len()];
        let mut push = |a: &GpuActivity| {
            if let Some(v) = out.get_mut(a.slice.track.idx()) {
                v.push(a.slice.index);
            }
        };
        match *which {
            Which::Kernel { rank, name } => {
                if let Some(id) = trace.strings.find(name) {
                    self.acts.iter().filter(|a| a.rank == rank && a.name == id).for_each(&mut push);
                }
            }
            Which::Folded { rank, ty, kept } => {
                let kept: Vec<StrId> = kept.iter().filter_map(|n| trace.strings.find(n)).collect();
                self.acts
                    .iter()
                    .filter(|a| a.rank == rank && a.ty == ty && !kept.contains(&a.name))
                    .for_each(&mut push);
            }
            Which::Types { rank, types } => {
                let in_rank = |a: &&GpuActivity| rank.is_none_or(|r| a.rank == r);
                if types.len() <= 1 {
                    self.acts.iter().filter(in_rank).filter(|a| types.contains(&a.ty)).for_each(&mut push);
                } else {
                    let bits = types
                        .iter()
                        .filter_map(|t| TYPE_ORDER.iter().position(|x| x == t))
                        .fold(0u32, |b, k| b | 1 << k);
                    let mut ranks: Vec<i64> = self.acts.iter().filter(in_rank).map(|a| a.rank).collect();
                    ranks.sort_unstable();
                    ranks.dedup();
                    for r in ranks {
                        let of = |ty: KernelType| {
                            merge(
                                self.acts
                                    .iter()
                                    .filter(|a| a.rank == r && a.ty == ty)
                                    .map(|a| (a.start_ns, a.end_ns))
                                    .collect(),
                            )
                        };
                        let sets = TYPE_ORDER.map(of);
                        let during = combination_intervals(&[&sets[0], &sets[1], &sets[2]], bits);
                        self.acts
                            .iter()
                            .filter(|a| a.rank == r && types.contains(&a.ty))
                            .filter(|a| {
                                // `during` is sorted and disjoint: the first interval ending
                                // after the start is the only candidate
                                let k = during.partition_point(|&(_, e)| e <= a.start_ns);
                                during.get(k).is_some_and(|&(s, _)| s < a.end_ns)
                            })
                            .for_each(&mut push);
                    }
                }
            }
            Which::Stream { rank, stream, track } => {
                self.acts
                    .iter()
                    .filter(|a| a.rank == rank && a.idle_kind)
                    .filter(|a| match stream {
                        Some(s) => a.stream == Some(s),
                        None => a.stream.is_none() && a.slice.track.0 == track,
                    })
                    .for_each(&mut push);
            }
        }
        for v in &mut out {
            v.sort_unstable();
            v.dedup();
        }
        out
    }
}

/// The sorted, disjoint intervals during which exactly the types of `bits` run (bit k = the
/// k-th of `sets`, each a merged interval list).
fn combination_intervals(sets: &[&Vec<(i64, i64)>], bits: u32) -> Vec<(i64, i64)> {
    let mut ev: Vec<(i64, i64)> = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let v = 1i64 << k;
        for &(s, e) in set.iter().filter(|x| x.1 > x.0) {
            ev.push((s, v));
            ev.push((e, -v));
        }
    }
    ev.sort_by_key(|x| x.0);
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut running = 0i64;
    for w in 0..ev.len() {
        running += ev[w].1;
        let Some(next) = ev.get(w + 1) else { break };
        if running == i64::from(bits) && next.0 > ev[w].0 {
            match out.last_mut() {
                Some(last) if last.1 == ev[w].0 => last.1 = next.0,
                _ => out.push((ev[w].0, next.0)),
            }
        }
    }
    out
}

const TYPE_ORDER: [KernelType; 3] = [KernelType::Computation, KernelType::Communication, KernelType::Memory];

/// "COMPUTATION overlapping MEMORY" for bits 0b101 (HTA's order: computation, communication, memory).
fn type_label(bits: u32) -> String {
    let parts: Vec<&str> =
        TYPE_ORDER.iter().enumerate().filter(|(k, _)| bits & (1 << k) != 0).map(|(_, t)| t.label()).collect();
    parts.join(" overlapping ")
}

/// HTA's `_get_gpu_kernel_type_time`: sweep the merged intervals of each type and add the time
/// of each combination of running types.
fn sweep_types(sets: &[&Vec<(i64, i64)>], totals: &mut FxHashMap<u32, i64>) {
    let mut ev: Vec<(i64, i64)> = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let v = 1i64 << k;
        for &(s, e) in set.iter() {
            ev.push((s, v));
            ev.push((e, -v));
        }
    }
    ev.sort_by_key(|x| x.0);
    let mut running = 0i64;
    for w in 0..ev.len() {
        running += ev[w].1;
        if running > 0 {
            if let Some(next) = ev.get(w + 1) {
                let d = next.0 - ev[w].0;
                if d != 0 {
                    *totals.entry(running as u32).or_insert(0) += d;
                }
            }
        }
    }
}

fn top_kernels(trace: &Trace, r: &Rank, ty: KernelType, opts: &GpuOptions) -> TopKernels {
    let mut by: FxHashMap<StrId, Vec<i64>> = FxHashMap::default();
    for a in r.acts.iter().filter(|a| a.ty == ty) {
        by.entry(a.name).or_default().push(a.end - a.start);
    }
    let mut rows: Vec<KernelStat> = by
        .into_iter()
        .map(|(n, d)| {
            let total: i64 = d.iter().sum();
            KernelStat {
                name: trace.str(n).to_string(),
                count: d.len() as u64,
                names: 1,
                total_ns: total,
                min_ns: d.iter().copied().min().unwrap_or(0),
                max_ns: d.iter().copied().max().unwrap_or(0),
                mean_ns: total.div_euclid(d.len().max(1) as i64),
                percent: 0.0,
                folded: false,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    let total: i64 = rows.iter().map(|k| k.total_ns).sum();
    if rows.len() > opts.top_kernels {
        // HTA: fold past `top_kernels` rows, or where the cumulative sum passes its
        // `duration_ratio` quantile (linear interpolation, as pandas)
        let cum: Vec<i64> = rows
            .iter()
            .scan(0i64, |s, k| {
                *s += k.total_ns;
                Some(*s)
            })
            .collect();
        let pos = opts.duration_ratio.clamp(0.0, 1.0) * (cum.len() - 1) as f64;
        let lo = pos.floor() as usize;
        let hi = (lo + 1).min(cum.len() - 1);
        let q = cum[lo] as f64 + (cum[hi] - cum[lo]) as f64 * (pos - lo as f64);
        let mut kept = Vec::new();
        let mut others: Option<KernelStat> = None;
        for (i, k) in rows.into_iter().enumerate() {
            if (cum[i] as f64) > q || i >= opts.top_kernels {
                let o = others.get_or_insert(KernelStat {
                    name: "others".into(),
                    count: 0,
                    names: 0,
                    total_ns: 0,
                    min_ns: i64::MAX,
                    max_ns: i64::MIN,
                    mean_ns: 0,
                    percent: 0.0,
                    folded: true,
                });
                o.count += k.count;
                o.names += 1;
                o.total_ns += k.total_ns;
                o.min_ns = o.min_ns.min(k.min_ns);
                o.max_ns = o.max_ns.max(k.max_ns);
            } else {
                kept.push(k);
            }
        }
        if let Some(mut o) = others {
            o.mean_ns = o.total_ns.div_euclid(o.count.max(1) as i64);
            kept.push(o);
        }
        rows = kept;
    }
    for k in &mut rows {
        k.percent = if total != 0 { k.total_ns as f64 * 100.0 / total as f64 } else { 0.0 };
    }
    TopKernels { rank: r.number, kind: ty, total_ns: total, kernels: rows }
}

fn tensor_cores(trace: &Trace, r: &Rank) -> RankTensorCore {
    // each distinct name classified once: its tensor-core use and, for tensor-core kernels, the
    // precision it states
    let mut of: FxHashMap<StrId, (TensorCore, &'static str)> = FxHashMap::default();
    let mut sets: [Vec<(i64, i64)>; 3] = Default::default();
    let mut by_precision: FxHashMap<&'static str, i64> = FxHashMap::default();
    for a in r.acts.iter().filter(|a| matches!(a.ty, KernelType::Computation | KernelType::Communication)) {
        let (tc, p) = *of.entry(a.name).or_insert_with(|| {
            let name = trace.str(a.name);
            let tc = kernels::tensor_core(name);
            let p = if tc == TensorCore::Yes {
                kernels::precision(name).map_or("unstated", |p| p.label())
            } else {
                ""
            };
            (tc, p)
        });
        let k = match tc {
            TensorCore::Yes => 0,
            TensorCore::No => 1,
            TensorCore::Unknown => 2,
        };
        sets[k].push((a.start, a.end));
        if tc == TensorCore::Yes {
            *by_precision.entry(p).or_insert(0) += a.end - a.start;
        }
    }
    let [yes, no, unknown] = sets.map(|v| run_time(&merge(v)));
    let mut by_precision: Vec<(String, i64)> =
        by_precision.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    by_precision.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    RankTensorCore {
        rank: r.number,
        tensor_core_ns: yes,
        not_tensor_core_ns: no,
        unknown_ns: unknown,
        by_precision,
    }
}

fn idle_breakdown(trace: &Trace, r: &Rank, opts: &GpuOptions) -> Vec<StreamIdle> {
    // by Kineto's stream number when there is one (as HTA), else by track
    let mut by: FxHashMap<(i64, u32), Vec<&Act>> = FxHashMap::default();
    for a in r.acts.iter().filter(|a| a.idle_kind) {
        let key = match a.stream {
            Some(s) => (s, u32::MAX),
            None => (i64::MIN, a.slice.track.0),
        };
        by.entry(key).or_default().push(a);
    }
    let mut out: Vec<StreamIdle> = by
        .into_iter()
        .map(|((stream, _), mut acts)| {
            acts.sort_by_key(|a| (a.start, a.slice));
            let track = acts.first().map_or(0, |a| a.slice.track.0);
            let label = if stream == i64::MIN {
                trace.str(trace.tracks[track as usize].name).to_string()
            } else {
                format!("stream {stream}")
            };
            let mut s = StreamIdle {
                rank: r.number,
                stream: label,
                stream_id: (stream != i64::MIN).then_some(stream),
                track,
                idle_ns: 0,
                host_wait_ns: 0,
                kernel_wait_ns: 0,
                other_ns: 0,
                gaps: [0; 3],
            };
            for w in acts.windows(2) {
                let (prev_end, next) = (w[0].end, w[1]);
                let gap = next.start - prev_end;
                let host = next.launch.is_some_and(|(_, ls, _)| ls > prev_end);
                let cat = if host {
                    0
                } else if gap < opts.consecutive_kernel_delay_ns {
                    1
                } else {
                    2
                };
                s.gaps[cat] += 1;
                match cat {
                    0 => s.host_wait_ns += gap,
                    1 => s.kernel_wait_ns += gap,
                    _ => s.other_ns += gap,
                }
                s.idle_ns += gap;
            }
            s
        })
        .collect();
    out.sort_by(|a, b| a.track.cmp(&b.track).then_with(|| a.stream.cmp(&b.stream)));
    out
}

fn launch_delay(trace: &Trace, r: &Rank, opts: &GpuOptions) -> LaunchDelay {
    let mut rows: Vec<(i64, &Act)> = Vec::new();
    let (mut runtime_outliers, mut shorter) = (0u64, 0u64);
    for a in &r.acts {
        if let Some((_, ls, le)) = a.launch {
            rows.push(((a.start - le).max(0), a));
            runtime_outliers += u64::from(le - ls > opts.runtime_outlier_ns);
            shorter += u64::from(a.end - a.start < le - ls);
        }
    }
    let mut d: Vec<i64> = rows.iter().map(|x| x.0).collect();
    d.sort_unstable();
    let n = d.len();
    let total: i128 = d.iter().map(|&x| x as i128).sum();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.slice.cmp(&b.1.slice)));
    let top = rows
        .iter()
        .filter(|x| x.0 > opts.launch_delay_outlier_ns)
        .take(opts.max_outliers)
        .filter_map(|&(delay, a)| {
            Some(LaunchOutlier {
                kernel: a.slice,
                launch: a.launch?.0,
                name: trace.str(a.name).to_string(),
                delay_ns: delay,
            })
        })
        .collect();
    let q = |p: u32| if n == 0 { 0 } else { nearest_rank(&d, p) };
    LaunchDelay {
        rank: r.number,
        count: n as u64,
        min_ns: d.first().copied().unwrap_or(0),
        median_ns: q(500),
        p90_ns: q(900),
        p99_ns: q(990),
        max_ns: d.last().copied().unwrap_or(0),
        mean_ns: if n == 0 { 0 } else { total.div_euclid(n as i128) as i64 },
        histogram: histogram(&d, 16),
        outliers: d.iter().filter(|&&x| x > opts.launch_delay_outlier_ns).count() as u64,
        outlier_threshold_ns: opts.launch_delay_outlier_ns,
        runtime_outliers,
        shorter_than_launch: shorter,
        top,
    }
}

fn utilisation(rank: i64, merged: &[(i64, i64)], first: i64, last: i64, bins: usize) -> Utilisation {
    // i128: a span may be up to 2^64 ns (starts spread over the whole i64 range); the bin count
    // is `bins` whatever the span, and a bin is at least 1 ns
    let span = (last as i128 - first as i128).max(0);
    let bins = bins.max(1) as i128;
    let bin = ((span + bins - 1) / bins).max(1);
    let n = if span == 0 { 0 } else { ((span + bin - 1) / bin) as usize };
    let bin_ns = i64::try_from(bin).unwrap_or(i64::MAX);
    let edge = |k: usize| -> i128 { first as i128 + k as i128 * bin };
    let mut busy_ns = vec![0i128; n];
    for &(s, e) in merged {
        if e <= s {
            continue;
        }
        let (mut t, end) = (s.max(first) as i128, e.min(last) as i128);
        while t < end {
            let k = ((t - first as i128) / bin) as usize;
            let upto = end.min(edge(k + 1));
            if let Some(b) = busy_ns.get_mut(k) {
                *b += upto - t;
            }
            t = upto;
        }
    }
    let busy = busy_ns
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            let w = edge(k + 1).min(last as i128) - edge(k);
            if w > 0 {
                b as f64 / w as f64
            } else {
                0.0
            }
        })
        .collect();
    Utilisation { rank, start_ns: first, bin_ns, busy }
}

#[cfg(test)]
mod tests;
