//! Many ranks, one job: per-rank breakdowns, iterations, collectives matched across ranks,
//! stragglers and clock alignment (issue 41 §1–§2). A *rank* is one input file, numbered as the
//! GPU analyses number it (`gpu::rank_numbers`, [`RankSource`]: `distributedInfo.rank` when every
//! file has one, else the `rank_N` / `rank-N` every file name states, else — Neuron captures only
//! — the NeuronCore every file name states (`nc_N`, `vnc_N`), else the file's position). A rank is
//! a *GPU rank* ([`RankKind::Gpu`]) or, when its file has a device group with Neuron engine
//! tracks, a *Neuron rank* ([`RankKind::Neuron`]: one NTFF per NeuronCore of one job).
//!
//! **Per rank** ([`RankRow`]): the GPU breakdown of `analysis::gpu` under the chosen
//! definitions (Loupe's by default, HTA's for parity): `kernel_ns` is the GPU span (HTA's
//! "kernel time", `measures::GPU_SPAN`), `idle_ns` the idle in it, `compute_ns`, `non_compute_ns`
//! HTA's temporal breakdown, and `exposed_comm_ns` = the union of the rank's communication
//! kernels minus its intersection with the union of its compute kernels
//! (`measures::EXPOSED_COMMUNICATION`: communication not overlapped by any compute kernel of
//! that rank; memory copies neither hide nor count). `iterations` = the distinct `ProfilerStep#k`
//! of the rank's host tracks; a step's time is its slice's duration ([`Step`]).
//!
//! **Neuron ranks** (one definition, the device summary's: `analysis::device_summary`,
//! `measures::ENGINE_ACTIVE_TIME`). An engine is *busy* during its instructions, semaphore waits
//! (`EVENT_SEMAPHORE`, `device_summary::semaphore_wait_opcode`) left out; the device is *active*
//! while an engine is busy or a DMA packet moves (the device summary's `total_active_time`).
//! - Iterations = the NEFF executions of the capture. An NTFF holds one (the profiled execution:
//!   `docs/formats/ntff-v5.md` §10.1 — several per file are untested), so a Neuron rank has one
//!   iteration, number 0, [`Step`] = its execution: first start to last end of its engine
//!   instructions (waits included) and DMA packets, in ns on the capture's own clock (0 = the
//!   capture's profile start). No slice spans an execution, so its `slice` is the earliest of those
//!   events (where a click goes). A Neuron rank that has `ProfilerStep#k` keeps those instead.
//! - `kernel_ns` = the execution span (the device's span, as HTA's "kernel time" is the GPU's);
//!   `compute_ns` = the union of the engines' busy intervals; `idle_ns` = span − the active time;
//!   `non_compute_ns` = span − compute − idle = time only DMA packets move.
//! - Communication = the rank's collective operations ([`TrackRole::CollectiveOps`]: Explorer's
//!   `CcOp` rows); `exposed_comm_ns` = their union minus its intersection with the engines' busy
//!   union. An NTFF's collective records are not decoded, so a capture has none: then
//!   `exposed_comm_ns` is 0 when the program has no memory for collectives (`Collectives` + `DMA
//!   Rings Collectives` = 0 bytes: none can run, the device summary's rule for `cc_op_*`) and
//!   **`None`** otherwise (not known, never a fake 0).
//! - Collectives: each collective operation, keyed by (no process group, operation name) and
//!   matched across ranks by occurrence order, as GPU kernels are; `bytes` is not read (none).
//! - Identity: `neuron_core` = the NeuronCore the input states (`DeviceInfo::neuron_core`, the
//!   capture's own export's `model_info.nc_idx`), else the one the file name states; an NTFF does
//!   not carry it. `neff_uuid` = the NEFF UUID the capture states (`DeviceInfo::neff_uuid`, NTFF
//!   `/2`, a prefix in captures whose UUID holds a 0x00 byte). Ranks of different NEFFs are
//!   flagged ([`RankWarning::NeffMismatch`]; a truncated prefix matches the full UUID it starts),
//!   never merged: each stays its own rank.
//!
//! **Collectives** ([`Collective`]): the communication kernels of the GPU analysis (its kernel
//! types: Loupe's communication families by default, `^nccl.*Kernel` with HTA's definitions),
//! always on exact ns and with every step kept (HTA's rounding and last-step drop apply to the
//! breakdown only). An instance is keyed by (process group, kernel name, sequence number): the
//! process group is Kineto's `Process Group Name` argument when the kernel carries one (else
//! none), and the sequence number is the kernel's occurrence index among the rank's kernels of
//! the same process group and name, in start order across all streams. The same instance on
//! every rank is the kernels with equal keys. The ranks *expected* for a key are those with at
//! least one kernel of that key; an instance is *complete* when every expected rank has it; when
//! ranks hold different numbers of kernels of a key, the key is listed in
//! [`RanksReport::mismatches`] and the instances past the shortest rank's count name the ranks
//! that miss them (`missing`) — nothing is filled in. Per instance, on the aligned clocks:
//! - `start_skew_ns` = latest start − earliest start (`measures::COLLECTIVE_SKEW`);
//! - `dur_min/median/max_ns` over the ranks that have it (median: the middle one, or the floor
//!   of the mean of the two middle ones);
//! - `last_rank`: the rank with the latest start (the lowest rank number among equals); none
//!   when the skew is 0 or only one rank has the instance;
//! - `bytes` = `In msg nelems` × the size of `dtype` (the input message of one rank, TraceLens'
//!   message size), when the ranks' arguments agree; `algbw_gbps` = bytes / `dur_min_ns`
//!   (TraceLens: the shortest rank's duration is the one with the least waiting), in GB/s
//!   (1 byte per ns).
//!
//! **Stragglers** ([`Straggler`]), over the complete instances with two or more ranks:
//! `last_count` = how often the rank is `last_rank`; `mean_lateness_ns` = the mean over those
//! instances of (its start − the instance's earliest start), rounded to the nearest ns
//! (`measures::MEAN_LATENESS`).
//!
//! **Clock alignment** ([`Align`], [`offsets`]): an offset per rank, in ns, added to that rank's
//! recorded times. As recorded: 0. Start of iteration k: the reference rank's (the lowest rank
//! number) `ProfilerStep#k` start − the rank's. End of the n-th collective (from 0, among the
//! complete instances in the reference rank's start order): the reference rank's end of it − the
//! rank's (all ranks leave a collective together). The report's collective statistics and
//! stragglers are computed on the aligned times ([`RanksReport::realign`]).

pub use crate::analysis::gpu::RankSource;
use crate::analysis::gpu::{gpu_analysis, gpu_analysis_with_events, GpuOptions, KernelType, RankMap};
use crate::model::{ArgValue, GroupKind, SliceRef, Trace, TrackRole};
use crate::strings::FxHashMap;

/// How the ranks' clocks are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    /// The times as the files record them.
    #[default]
    AsRecorded,
    /// `ProfilerStep#k` starts at the same time on every rank.
    Iteration(i64),
    /// The n-th complete collective (from 0) ends at the same time on every rank.
    Collective(usize),
}

impl Align {
    /// `recorded`, `iteration:K` or `collective:N`.
    pub fn parse(s: &str) -> Option<Align> {
        let s = s.trim();
        if s == "recorded" || s == "as-recorded" || s == "none" {
            return Some(Align::AsRecorded);
        }
        let (kind, n) = s.split_once(':')?;
        match kind {
            "iteration" | "step" => n.trim().parse().ok().map(Align::Iteration),
            "collective" => n.trim().parse().ok().map(Align::Collective),
            _ => None,
        }
    }
}

impl Align {
    /// The text [`Align::parse`] reads back: `recorded`, `iteration:K`, `collective:N`.
    pub fn key(self) -> String {
        match self {
            Align::AsRecorded => "recorded".into(),
            Align::Iteration(k) => format!("iteration:{k}"),
            Align::Collective(n) => format!("collective:{n}"),
        }
    }

    /// For people: "as recorded", "start of iteration 551", "end of collective 3".
    pub fn label(self) -> String {
        match self {
            Align::AsRecorded => "as recorded".into(),
            Align::Iteration(k) => format!("start of ProfilerStep#{k}"),
            Align::Collective(n) => format!("end of collective {n}"),
        }
    }
}

/// The rank number of each group (by `GroupId`), as [`ranks_report`] numbers ranks: one rank
/// per input file.
pub fn group_ranks(trace: &Trace) -> Vec<i64> {
    let map = RankMap::of(trace);
    map.group_rank.iter().map(|&k| map.numbers.get(k).copied().unwrap_or(k as i64)).collect()
}

/// The NeuronCore of a device group: the input's, else its file name's (module doc).
fn neuron_core_of(info: &crate::model::DeviceInfo, file: Option<&str>) -> Option<(u32, CoreSource)> {
    info.neuron_core.map(|c| (c, CoreSource::Input)).or_else(|| {
        let n = crate::analysis::gpu::neuron_core_in_file_name(file?)?;
        Some((u32::try_from(n).ok()?, CoreSource::FileName))
    })
}

/// The distinct rank numbers of a profile's groups, ascending (one per input file).
pub fn distinct_ranks(trace: &Trace) -> Vec<i64> {
    let mut v = group_ranks(trace);
    v.sort_unstable();
    v.dedup();
    v
}

/// A clock offset per group (by `GroupId`): its rank's offset, 0 for a rank the offsets do not
/// name or cannot place (`offset_ns: None`). Added to every time of the group's tracks and
/// counters when they are drawn: the timeline's view of an alignment.
pub fn group_offsets(group_ranks: &[i64], offsets: &[RankOffset]) -> Vec<i64> {
    group_ranks
        .iter()
        .map(|r| offsets.iter().find(|o| o.rank == *r).and_then(|o| o.offset_ns).unwrap_or(0))
        .collect()
}

/// The ranks × iterations grid of step times (a heatmap's cells): one row per rank that has
/// steps, one column per `ProfilerStep#k` number any of them has, ascending; a cell is the
/// rank's step (as recorded) or none.
#[derive(Debug, Clone, PartialEq)]
pub struct StepGrid {
    pub ranks: Vec<i64>,
    /// k of each column.
    pub steps: Vec<i64>,
    /// Row-major: `cells[row * steps.len() + col]`.
    pub cells: Vec<Option<Step>>,
    /// Shortest and longest step time of the grid (0 when empty).
    pub min_ns: i64,
    pub max_ns: i64,
}

impl StepGrid {
    pub fn of(steps: &[RankSteps]) -> StepGrid {
        let rows: Vec<&RankSteps> = steps.iter().filter(|r| !r.steps.is_empty()).collect();
        let mut numbers: Vec<i64> = rows.iter().flat_map(|r| r.steps.iter().map(|s| s.number)).collect();
        numbers.sort_unstable();
        numbers.dedup();
        let mut cells = Vec::with_capacity(rows.len() * numbers.len());
        for r in &rows {
            cells.extend(numbers.iter().map(|k| r.steps.iter().find(|s| s.number == *k).copied()));
        }
        let durs = || cells.iter().flatten().map(|s| s.dur_ns);
        let (min_ns, max_ns) = (durs().min().unwrap_or(0), durs().max().unwrap_or(0));
        StepGrid { ranks: rows.iter().map(|r| r.rank).collect(), steps: numbers, cells, min_ns, max_ns }
    }

    pub fn cell(&self, row: usize, col: usize) -> Option<&Step> {
        if col >= self.steps.len() {
            return None;
        }
        self.cells.get(row * self.steps.len() + col)?.as_ref()
    }

    /// Where a step time sits between the grid's shortest (0) and longest (1) step: the heat
    /// of its cell. 0 when every step is as long.
    pub fn heat(&self, dur_ns: i64) -> f64 {
        if self.max_ns <= self.min_ns {
            return 0.0;
        }
        ((dur_ns - self.min_ns) as f64 / (self.max_ns - self.min_ns) as f64).clamp(0.0, 1.0)
    }

    /// The median step time of a column over the ranks that have it (the lower middle one).
    pub fn column_median_ns(&self, col: usize) -> Option<i64> {
        let mut d: Vec<i64> =
            (0..self.ranks.len()).filter_map(|r| self.cell(r, col)).map(|s| s.dur_ns).collect();
        d.sort_unstable();
        d.get(d.len().checked_sub(1)? / 2).copied()
    }
}

/// What a rank's work is recorded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankKind {
    /// GPU streams (Kineto, …): the breakdown of `analysis::gpu`.
    Gpu,
    /// A Neuron device profile (one NTFF per NeuronCore): engines and DMA queues.
    Neuron,
}

/// Where a Neuron rank's NeuronCore index comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreSource {
    /// The input states it (`DeviceInfo::neuron_core`: the export's `model_info.nc_idx`).
    Input,
    /// The file's name (`nc_N`, `vnc_N`: `gpu::neuron_core_in_file_name`).
    FileName,
}

/// One rank's row of the rank summary.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankRow {
    pub rank: i64,
    pub file: Option<String>,
    pub kind: RankKind,
    /// How the rank numbers of the profile were chosen.
    pub numbered_by: RankSource,
    /// Distinct `ProfilerStep#k` of the rank; a Neuron rank's NEFF executions.
    pub iterations: usize,
    pub idle_ns: i64,
    pub compute_ns: i64,
    pub non_compute_ns: i64,
    /// The GPU span (HTA's "kernel time"); a Neuron rank's device span (module doc).
    pub kernel_ns: i64,
    /// `None`: the rank's communication is not in the input (a Neuron capture whose program has
    /// memory for collectives and no decoded collective operations, module doc).
    pub exposed_comm_ns: Option<i64>,
    /// A Neuron rank's NeuronCore, where the input or the file name states it.
    pub neuron_core: Option<u32>,
    pub neuron_core_from: Option<CoreSource>,
    /// A Neuron rank's NEFF UUID as its capture states it (hex; a prefix when truncated).
    pub neff_uuid: Option<String>,
    pub neff_uuid_truncated: bool,
}

/// A problem with the ranks as one job, typed (the CLI prints it, the app shows it).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RankWarning {
    /// Neuron ranks captured from different NEFFs (by their UUIDs): they are not the cores of one
    /// job running one program. They stay separate ranks and are compared as asked, but their
    /// iterations and collectives are not the same work.
    NeffMismatch { neffs: Vec<NeffRanks> },
    /// Neuron ranks whose capture states no NEFF UUID: whether they ran one NEFF is not known.
    NeffUnknown { ranks: Vec<i64> },
}

impl RankWarning {
    /// For people.
    pub fn message(&self) -> String {
        match self {
            RankWarning::NeffMismatch { neffs } => format!(
                "the Neuron ranks were captured from {} different NEFFs ({}): not the cores of one job",
                neffs.len(),
                neffs
                    .iter()
                    .map(|n| format!(
                        "{}{} on rank {}",
                        n.uuid,
                        if n.truncated { "…" } else { "" },
                        n.ranks.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            RankWarning::NeffUnknown { ranks } => format!(
                "rank {} states no NEFF UUID: whether it ran the others' NEFF is not known",
                ranks.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// The Neuron ranks that ran one NEFF.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NeffRanks {
    /// The longest UUID text of the group (a truncated capture's prefix joins the full one).
    pub uuid: String,
    /// Every member's UUID is a prefix (no member has the full 16 bytes).
    pub truncated: bool,
    pub ranks: Vec<i64>,
}

/// One `ProfilerStep#k` of a rank (as recorded).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Step {
    /// k of `ProfilerStep#k`.
    pub number: i64,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub slice: SliceRef,
}

/// A rank's iterations, in step order: the rows of a ranks × iterations heatmap.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankSteps {
    pub rank: i64,
    pub steps: Vec<Step>,
}

/// One rank's kernel of a collective instance, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Arrival {
    pub rank: i64,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub slice: SliceRef,
    /// `In msg nelems` × dtype size, when the kernel's arguments give them.
    pub bytes: Option<u64>,
}

/// One collective instance across ranks (statistics on the aligned clocks).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Collective {
    pub name: String,
    pub process_group: Option<String>,
    /// Occurrence index among the rank's kernels of this process group and name.
    pub seq: usize,
    /// The ranks that have it, ascending.
    pub ranks: Vec<i64>,
    /// Expected ranks (with kernels of this key) that do not have it.
    pub missing: Vec<i64>,
    pub start_skew_ns: i64,
    pub dur_min_ns: i64,
    pub dur_median_ns: i64,
    pub dur_max_ns: i64,
    pub last_rank: Option<i64>,
    pub bytes: Option<u64>,
    pub algbw_gbps: Option<f64>,
    /// Per rank, ascending rank.
    pub arrivals: Vec<Arrival>,
}

impl Collective {
    /// Every expected rank has it, and there are two or more.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.ranks.len() >= 2
    }
}

/// A rank's standing as a straggler.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Straggler {
    pub rank: i64,
    /// Complete instances in which it arrived last.
    pub last_count: usize,
    /// Complete instances it takes part in.
    pub instances: usize,
    pub mean_lateness_ns: i64,
    pub max_lateness_ns: i64,
}

/// A collective key whose kernel count differs across ranks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CountMismatch {
    pub name: String,
    pub process_group: Option<String>,
    /// (rank, kernels of this key), every rank of the profile.
    pub counts: Vec<(i64, usize)>,
}

/// An offset added to a rank's recorded times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RankOffset {
    pub rank: i64,
    /// `None`: the rank lacks the iteration / collective aligned on.
    pub offset_ns: Option<i64>,
}

/// Everything [`ranks_report`] finds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RanksReport {
    pub ranks: Vec<RankRow>,
    pub steps: Vec<RankSteps>,
    /// In order of earliest recorded start.
    pub collectives: Vec<Collective>,
    /// Most often last first, then by mean lateness.
    pub stragglers: Vec<Straggler>,
    pub mismatches: Vec<CountMismatch>,
    pub align: Align,
    /// The offsets applied (one per rank of `ranks`, ascending).
    pub offsets: Vec<RankOffset>,
    pub warnings: Vec<RankWarning>,
}

/// The per-rank breakdown, steps and collectives of a profile, with the collective statistics
/// on clocks aligned by `align`. `gpu` chooses the GPU breakdown's definitions (see the module
/// doc); Neuron ranks have one definition.
pub fn ranks_report(trace: &Trace, gpu: &GpuOptions, align: Align) -> Result<RanksReport, String> {
    let map = RankMap::of(trace);
    let neuron = neuron_ranks(trace, &map);
    let has_gpu = trace.tracks.iter().any(|t| t.role == TrackRole::GpuStream);
    if !has_gpu && neuron.is_empty() {
        return Err("no GPU stream tracks and no Neuron engine tracks in this profile".into());
    }
    // collectives: the same kernel types, exact ns, every step (one pass when the breakdown's
    // options are those already)
    let gpu_part = if !has_gpu {
        None
    } else if gpu.hta_rounding || gpu.drop_last_step {
        let exact = GpuOptions { hta_rounding: false, drop_last_step: false, ..gpu.clone() };
        Some((gpu_analysis(trace, gpu)?, gpu_analysis_with_events(trace, &exact)?.1))
    } else {
        Some(gpu_analysis_with_events(trace, gpu)?)
    };

    let is_neuron: std::collections::HashSet<i64, crate::strings::FxBuildHasher> =
        neuron.iter().map(|n| n.rank).collect();
    let mut steps = steps(trace, &map);
    // a Neuron rank without ProfilerStep#k: its NEFF executions are its iterations
    let execution: FxHashMap<i64, Option<Step>> = neuron.iter().map(|n| (n.rank, n.execution)).collect();
    for rs in steps.iter_mut().filter(|s| s.steps.is_empty()) {
        if let Some(e) = execution.get(&rs.rank) {
            rs.steps = e.iter().copied().collect();
        }
    }
    let iterations: FxHashMap<i64, usize> = steps.iter().map(|s| (s.rank, s.steps.len())).collect();
    let iterations = |rank: i64| iterations.get(&rank).copied().unwrap_or(0);
    let file_of: FxHashMap<i64, usize> = map.numbers.iter().enumerate().map(|(k, &r)| (r, k)).collect();
    let file_of = |rank: i64| Some(trace.str((*map.files.get(*file_of.get(&rank)?)?)?).to_string());
    let mut ranks: Vec<RankRow> = Vec::new();
    if let Some((breakdown, _)) = &gpu_part {
        for r in &breakdown.temporal_breakdown.ranks {
            if is_neuron.contains(&r.rank) {
                continue;
            }
            let exposed = breakdown.exposed_time.iter().find(|e| e.rank == r.rank);
            ranks.push(RankRow {
                rank: r.rank,
                file: r.file.clone(),
                kind: RankKind::Gpu,
                numbered_by: map.source,
                iterations: iterations(r.rank),
                idle_ns: r.temporal.idle_ns,
                compute_ns: r.temporal.compute_ns,
                non_compute_ns: r.temporal.non_compute_ns,
                kernel_ns: r.temporal.kernel_ns,
                exposed_comm_ns: Some(exposed.map_or(0, |e| e.exposed_comm_ns)),
                neuron_core: None,
                neuron_core_from: None,
                neff_uuid: None,
                neff_uuid_truncated: false,
            });
        }
    }
    for n in &neuron {
        ranks.push(RankRow {
            rank: n.rank,
            file: file_of(n.rank),
            kind: RankKind::Neuron,
            numbered_by: map.source,
            iterations: iterations(n.rank),
            idle_ns: n.idle_ns,
            compute_ns: n.compute_ns,
            non_compute_ns: n.span_ns.saturating_sub(n.compute_ns).saturating_sub(n.idle_ns),
            kernel_ns: n.span_ns,
            exposed_comm_ns: n.exposed_comm_ns,
            neuron_core: n.core.map(|c| c.0),
            neuron_core_from: n.core.map(|c| c.1),
            neff_uuid: n.neff_uuid.clone(),
            neff_uuid_truncated: n.neff_uuid_truncated,
        });
    }
    ranks.sort_by_key(|r| r.rank);
    let rank_numbers: Vec<i64> = {
        let mut v = map.numbers.clone();
        v.sort_unstable();
        v.dedup();
        v
    };

    // communication per rank and key: GPU communication kernels, Neuron collective operations
    type Key = (Option<String>, String);
    let mut by_key: FxHashMap<Key, FxHashMap<i64, Vec<Arrival>>> = FxHashMap::default();
    let mut key_order: Vec<Key> = Vec::new();
    let mut arrive = |key: Key, a: Arrival| {
        let per_rank = by_key.entry(key.clone()).or_insert_with(|| {
            key_order.push(key);
            FxHashMap::default()
        });
        per_rank.entry(a.rank).or_default().push(a);
    };
    if let Some((_, events)) = &gpu_part {
        let keys = ArgKeys::of(trace);
        for a in events.activities().iter().filter(|a| a.ty == KernelType::Communication) {
            if is_neuron.contains(&a.rank) {
                continue;
            }
            let (pg, bytes) = keys.read(trace, a.slice);
            let arrival = Arrival {
                rank: a.rank,
                start_ns: a.start_ns,
                dur_ns: a.end_ns - a.start_ns,
                slice: a.slice,
                bytes,
            };
            arrive((pg, trace.str(a.name).to_string()), arrival);
        }
    }
    for n in &neuron {
        for &slice in &n.collectives {
            let c = &trace.track(slice.track).slices;
            let i = slice.index as usize;
            let arrival =
                Arrival { rank: n.rank, start_ns: c.start_ns[i], dur_ns: c.dur_ns.at(i), slice, bytes: None };
            arrive((None, trace.str(c.name[i]).to_string()), arrival);
        }
    }
    let mut collectives = Vec::new();
    let mut mismatches = Vec::new();
    for key in key_order {
        let Some(mut per_rank) = by_key.remove(&key) else { continue };
        for v in per_rank.values_mut() {
            v.sort_by_key(|a| (a.start_ns, a.slice));
        }
        let mut expected: Vec<i64> = per_rank.keys().copied().collect();
        expected.sort_unstable();
        let counts: Vec<usize> = expected.iter().map(|r| per_rank[r].len()).collect();
        let max = counts.iter().copied().max().unwrap_or(0);
        if counts.iter().any(|&c| c != max) || expected.len() < rank_numbers.len() {
            mismatches.push(CountMismatch {
                name: key.1.clone(),
                process_group: key.0.clone(),
                counts: rank_numbers.iter().map(|r| (*r, per_rank.get(r).map_or(0, Vec::len))).collect(),
            });
        }
        for seq in 0..max {
            let arrivals: Vec<Arrival> =
                expected.iter().filter_map(|r| per_rank[r].get(seq).copied()).collect();
            let missing: Vec<i64> =
                expected.iter().copied().filter(|r| per_rank[r].get(seq).is_none()).collect();
            let bytes = {
                let mut b = arrivals.iter().filter_map(|a| a.bytes);
                let first = b.next();
                first.filter(|&x| b.all(|y| y == x))
            };
            collectives.push(Collective {
                name: key.1.clone(),
                process_group: key.0.clone(),
                seq,
                ranks: arrivals.iter().map(|a| a.rank).collect(),
                missing,
                start_skew_ns: 0,
                dur_min_ns: 0,
                dur_median_ns: 0,
                dur_max_ns: 0,
                last_rank: None,
                bytes,
                algbw_gbps: None,
                arrivals,
            });
        }
    }
    collectives.sort_by(|a, b| {
        let first = |c: &Collective| c.arrivals.iter().map(|x| x.start_ns).min().unwrap_or(i64::MAX);
        first(a).cmp(&first(b)).then_with(|| a.name.cmp(&b.name)).then_with(|| a.seq.cmp(&b.seq))
    });
    let mut report = RanksReport {
        ranks,
        steps,
        collectives,
        stragglers: Vec::new(),
        mismatches,
        align: Align::AsRecorded,
        offsets: Vec::new(),
        warnings: neff_warnings(&neuron),
    };
    report.realign(align)?;
    Ok(report)
}

/// What a Neuron rank's device groups give the report (module doc, "Neuron ranks").
#[derive(Debug, Clone, PartialEq)]
struct NeuronRank {
    rank: i64,
    /// The execution: first start to last end of the rank's instructions and DMA packets.
    execution: Option<Step>,
    span_ns: i64,
    /// Union of the engines' busy intervals (semaphore waits left out).
    compute_ns: i64,
    /// Span − union of the engines' busy intervals and the DMA packets.
    idle_ns: i64,
    exposed_comm_ns: Option<i64>,
    collectives: Vec<SliceRef>,
    core: Option<(u32, CoreSource)>,
    neff_uuid: Option<String>,
    neff_uuid_truncated: bool,
}

/// The Neuron ranks of a profile: the files with a device group holding engine tracks, in rank
/// order.
fn neuron_ranks(trace: &Trace, map: &RankMap) -> Vec<NeuronRank> {
    let wait = crate::analysis::device_summary::semaphore_wait_opcode(trace);
    let mut out: Vec<NeuronRank> = Vec::new();
    let mut devices_of: Vec<Vec<usize>> = vec![Vec::new(); map.numbers.len()];
    for (g, group) in trace.groups.iter().enumerate() {
        if let Some(v) = map.group_rank.get(g).and_then(|&k| devices_of.get_mut(k)) {
            if group.kind == GroupKind::Device {
                v.push(g);
            }
        }
    }
    for (k, &rank) in map.numbers.iter().enumerate() {
        let groups: &[usize] = devices_of.get(k).map_or(&[], Vec::as_slice);
        let is_engine = |t: &crate::model::Track| t.role.engine().is_some();
        let tracks: Vec<usize> =
            groups.iter().flat_map(|&g| trace.groups[g].tracks.iter().map(|t| t.idx())).collect();
        if !tracks.iter().any(|&t| is_engine(&trace.tracks[t])) {
            continue;
        }
        // (start, end) of busy engine instructions, of DMA packets; the earliest event
        let (mut busy, mut dma, mut comm) = (Vec::new(), Vec::new(), Vec::new());
        let mut collectives = Vec::new();
        let (mut first, mut last): (Option<(i64, SliceRef)>, Option<i64>) = (None, None);
        for &ti in &tracks {
            let t = &trace.tracks[ti];
            let c = &t.slices;
            let (engine, packets) = (is_engine(t), t.role == TrackRole::DmaQueue);
            if t.role == TrackRole::CollectiveOps {
                for i in 0..c.len() {
                    comm.push((c.start_ns[i], c.end_ns(i)));
                    collectives.push(SliceRef { track: crate::model::TrackId(ti as u32), index: i as u32 });
                }
                continue;
            }
            if !engine && !packets {
                continue;
            }
            for i in 0..c.len() {
                let (s, e) = (c.start_ns[i], c.end_ns(i));
                let here = SliceRef { track: crate::model::TrackId(ti as u32), index: i as u32 };
                if first.is_none_or(|f| (s, here) < f) {
                    first = Some((s, here));
                }
                last = Some(last.map_or(e, |l| l.max(e)));
                if packets {
                    dma.push((s, e));
                } else if wait.is_none_or(|w| c.opcode_of(i) != w) {
                    busy.push((s, e));
                }
            }
        }
        let busy = crate::spans::union(busy);
        let compute_ns = total(&busy);
        let mut active = busy.clone();
        active.extend(dma);
        let active_ns = total(&crate::spans::union(active));
        let execution = match (first, last) {
            (Some((start_ns, slice)), Some(end)) => {
                Some(Step { number: 0, start_ns, dur_ns: end.saturating_sub(start_ns), slice })
            }
            _ => None,
        };
        let span_ns = execution.map_or(0, |s| s.dur_ns);
        let info = groups.iter().find_map(|&g| trace.groups[g].device.as_ref());
        let exposed_comm_ns = if !collectives.is_empty() {
            let comm = crate::spans::union(comm);
            Some(total(&comm).saturating_sub(overlap(&comm, &busy)))
        } else if info.and_then(|d| d.memory).is_some_and(|m| m.collectives_bytes == 0) {
            // the program has no memory for collectives: none can run (the device summary's rule)
            Some(0)
        } else {
            None
        };
        let file = map.files.get(k).copied().flatten().map(|f| trace.str(f));
        let core = info.and_then(|d| neuron_core_of(d, file));
        out.push(NeuronRank {
            rank,
            execution,
            span_ns,
            compute_ns,
            idle_ns: span_ns.saturating_sub(active_ns),
            exposed_comm_ns,
            collectives,
            core,
            neff_uuid: info.and_then(|d| d.neff_uuid).map(|u| trace.str(u).to_string()),
            neff_uuid_truncated: info.is_some_and(|d| d.neff_uuid_truncated),
        });
    }
    out.sort_by_key(|n| n.rank);
    out
}

/// Total length of disjoint sorted spans.
fn total(spans: &[(i64, i64)]) -> i64 {
    spans.iter().fold(0i64, |sum, &(s, e)| sum.saturating_add(e.saturating_sub(s)))
}

/// Length of the intersection of two unions (disjoint, sorted spans).
fn overlap(a: &[(i64, i64)], b: &[(i64, i64)]) -> i64 {
    let (mut i, mut j, mut sum) = (0, 0, 0i64);
    while let (Some(&(s1, e1)), Some(&(s2, e2))) = (a.get(i), b.get(j)) {
        sum = sum.saturating_add(e1.min(e2).saturating_sub(s1.max(s2)).max(0));
        if e1 < e2 {
            i += 1;
        } else {
            j += 1;
        }
    }
    sum
}

/// The NEFF UUID check of the Neuron ranks (module doc).
fn neff_warnings(neuron: &[NeuronRank]) -> Vec<RankWarning> {
    let mut out = Vec::new();
    let unknown: Vec<i64> = neuron.iter().filter(|n| n.neff_uuid.is_none()).map(|n| n.rank).collect();
    // longest UUID first, so a truncated prefix joins the full UUID it starts
    let mut known: Vec<&NeuronRank> = neuron.iter().filter(|n| n.neff_uuid.is_some()).collect();
    known.sort_by_key(|n| (std::cmp::Reverse(n.neff_uuid.as_ref().map_or(0, String::len)), n.rank));
    let mut neffs: Vec<NeffRanks> = Vec::new();
    for n in known {
        let Some(u) = n.neff_uuid.as_deref() else { continue };
        let joins = |g: &NeffRanks| g.uuid == u || (n.neff_uuid_truncated && g.uuid.starts_with(u));
        match neffs.iter_mut().find(|g| joins(g)) {
            Some(g) => {
                g.ranks.push(n.rank);
                g.truncated &= n.neff_uuid_truncated;
            }
            None => neffs.push(NeffRanks {
                uuid: u.to_string(),
                truncated: n.neff_uuid_truncated,
                ranks: vec![n.rank],
            }),
        }
    }
    for g in &mut neffs {
        g.ranks.sort_unstable();
    }
    neffs.sort_by_key(|g| g.ranks.first().copied());
    if neffs.len() > 1 {
        out.push(RankWarning::NeffMismatch { neffs });
    }
    if !unknown.is_empty() && neuron.len() > 1 {
        out.push(RankWarning::NeffUnknown { ranks: unknown });
    }
    out
}

impl RanksReport {
    /// The rank numbers of the report, ascending (those with GPU work).
    pub fn rank_numbers(&self) -> Vec<i64> {
        self.ranks.iter().map(|r| r.rank).collect()
    }

    /// Recompute the offsets, the collective statistics and the stragglers on clocks aligned
    /// by `align`. An alignment some rank cannot take (it lacks the iteration or the
    /// collective) is refused and the report is left as it was.
    pub fn realign(&mut self, align: Align) -> Result<(), String> {
        let ranks = self.rank_numbers();
        let offs = offsets(&ranks, &self.steps, &self.collectives, align)?;
        if let Some(r) = offs.iter().find(|o| o.offset_ns.is_none()) {
            return Err(match align {
                Align::Iteration(k) => {
                    format!("rank {} has no iteration {k} (ProfilerStep#{k} or NEFF execution)", r.rank)
                }
                Align::Collective(n) => format!("rank {} lacks complete collective {n}", r.rank),
                Align::AsRecorded => unreachable!("as recorded has every offset"),
            });
        }
        let off = |rank: i64| offs.iter().find(|o| o.rank == rank).and_then(|o| o.offset_ns).unwrap_or(0);
        for c in &mut self.collectives {
            collective_stats(c, &off);
        }
        self.stragglers = stragglers(&ranks, &self.collectives, &off);
        self.offsets = offs;
        self.align = align;
        Ok(())
    }
}

/// The offset of each of `ranks` (ascending; the first is the reference) for an alignment:
/// pure, over the recorded steps and collectives. A rank lacking what is aligned on gets `None`;
/// the reference lacking it is an error.
pub fn offsets(
    ranks: &[i64],
    steps: &[RankSteps],
    collectives: &[Collective],
    align: Align,
) -> Result<Vec<RankOffset>, String> {
    let Some(&reference) = ranks.first() else { return Ok(Vec::new()) };
    let anchor: Box<dyn Fn(i64) -> Option<i64> + '_> = match align {
        Align::AsRecorded => Box::new(|_| Some(0)),
        Align::Iteration(k) => Box::new(move |rank| {
            steps.iter().find(|s| s.rank == rank)?.steps.iter().find(|s| s.number == k).map(|s| s.start_ns)
        }),
        Align::Collective(n) => {
            // the n-th complete instance in the reference rank's start order
            let mut complete: Vec<(i64, &Collective)> = collectives
                .iter()
                .filter(|c| c.is_complete())
                .filter_map(|c| Some((c.arrivals.iter().find(|a| a.rank == reference)?.start_ns, c)))
                .collect();
            complete.sort_by_key(|x| x.0);
            let Some(&(_, c)) = complete.get(n) else {
                return Err(format!("there are {} complete collectives, not {}", complete.len(), n + 1));
            };
            Box::new(move |rank| c.arrivals.iter().find(|a| a.rank == rank).map(|a| a.start_ns + a.dur_ns))
        }
    };
    let Some(base) = anchor(reference) else {
        return Err(match align {
            Align::Iteration(k) => format!("the reference rank {reference} has no ProfilerStep#{k}"),
            _ => format!("the reference rank {reference} lacks the anchor"),
        });
    };
    Ok(ranks.iter().map(|&rank| RankOffset { rank, offset_ns: anchor(rank).map(|t| base - t) }).collect())
}

fn collective_stats(c: &mut Collective, off: &dyn Fn(i64) -> i64) {
    let starts: Vec<(i64, i64)> = c.arrivals.iter().map(|a| (a.rank, a.start_ns + off(a.rank))).collect();
    let (Some(earliest), Some(latest)) = (starts.iter().map(|x| x.1).min(), starts.iter().map(|x| x.1).max())
    else {
        return;
    };
    c.start_skew_ns = latest - earliest;
    c.last_rank =
        if c.start_skew_ns > 0 { starts.iter().filter(|x| x.1 == latest).map(|x| x.0).min() } else { None };
    let mut d: Vec<i64> = c.arrivals.iter().map(|a| a.dur_ns).collect();
    d.sort_unstable();
    let n = d.len();
    c.dur_min_ns = d[0];
    c.dur_max_ns = d[n - 1];
    c.dur_median_ns =
        if n % 2 == 1 { d[n / 2] } else { ((d[n / 2 - 1] as i128 + d[n / 2] as i128).div_euclid(2)) as i64 };
    c.algbw_gbps = match c.bytes {
        Some(b) if c.dur_min_ns > 0 => Some(b as f64 / c.dur_min_ns as f64),
        _ => None,
    };
}

fn stragglers(ranks: &[i64], collectives: &[Collective], off: &dyn Fn(i64) -> i64) -> Vec<Straggler> {
    let mut out: Vec<(Straggler, i128)> = ranks
        .iter()
        .map(|&rank| {
            (Straggler { rank, last_count: 0, instances: 0, mean_lateness_ns: 0, max_lateness_ns: 0 }, 0i128)
        })
        .collect();
    for c in collectives.iter().filter(|c| c.is_complete()) {
        let Some(earliest) = c.arrivals.iter().map(|a| a.start_ns + off(a.rank)).min() else { continue };
        for a in &c.arrivals {
            let Some((s, sum)) = out.iter_mut().find(|s| s.0.rank == a.rank) else { continue };
            let late = a.start_ns + off(a.rank) - earliest;
            s.instances += 1;
            s.last_count += usize::from(c.last_rank == Some(a.rank));
            s.max_lateness_ns = s.max_lateness_ns.max(late);
            *sum += i128::from(late);
        }
    }
    let mut v: Vec<Straggler> = out
        .into_iter()
        .map(|(mut s, sum)| {
            if s.instances > 0 {
                let n = s.instances as i128;
                // nearest ns, halves away from zero (lateness is never negative)
                s.mean_lateness_ns = ((2 * sum + n) / (2 * n)) as i64;
            }
            s
        })
        .collect();
    v.sort_by(|a, b| {
        b.last_count
            .cmp(&a.last_count)
            .then_with(|| b.mean_lateness_ns.cmp(&a.mean_lateness_ns))
            .then_with(|| a.rank.cmp(&b.rank))
    });
    v
}

/// Each rank's `ProfilerStep#k` on its host tracks (the earliest slice of each k), in step order.
fn steps(trace: &Trace, map: &RankMap) -> Vec<RankSteps> {
    let mut by_rank: FxHashMap<i64, FxHashMap<i64, Step>> = FxHashMap::default();
    let mut number_of: FxHashMap<crate::strings::StrId, Option<i64>> = FxHashMap::default();
    for (ti, t) in trace.tracks.iter().enumerate() {
        if t.role == TrackRole::GpuStream {
            continue;
        }
        let rank = map.rank_of_track(trace, ti);
        let c = &t.slices;
        for i in 0..c.len() {
            let k = *number_of.entry(c.name[i]).or_insert_with(|| step_number(trace.str(c.name[i])));
            let Some(k) = k else { continue };
            let s = Step {
                number: k,
                start_ns: c.start_ns[i],
                dur_ns: c.dur_ns.at(i),
                slice: SliceRef { track: crate::model::TrackId(ti as u32), index: i as u32 },
            };
            let e = by_rank.entry(rank).or_default().entry(k).or_insert(s);
            if (s.start_ns, s.slice) < (e.start_ns, e.slice) {
                *e = s;
            }
        }
    }
    let mut ranks: Vec<i64> = map.numbers.clone();
    ranks.sort_unstable();
    ranks.dedup();
    ranks
        .into_iter()
        .map(|rank| {
            let mut steps: Vec<Step> =
                by_rank.remove(&rank).map(|m| m.into_values().collect()).unwrap_or_default();
            steps.sort_by_key(|s| s.number);
            RankSteps { rank, steps }
        })
        .collect()
}

/// k of `ProfilerStep#k`.
fn step_number(name: &str) -> Option<i64> {
    name.strip_prefix("ProfilerStep#")?.trim().parse().ok()
}

/// Interned keys of the collective arguments Kineto writes on NCCL kernels.
struct ArgKeys {
    pg: Option<crate::strings::StrId>,
    nelems: Option<crate::strings::StrId>,
    dtype: Option<crate::strings::StrId>,
}

impl ArgKeys {
    fn of(trace: &Trace) -> ArgKeys {
        ArgKeys {
            pg: trace.strings.find("Process Group Name"),
            nelems: trace.strings.find("In msg nelems"),
            dtype: trace.strings.find("dtype"),
        }
    }

    /// (process group, message bytes) of a kernel.
    fn read(&self, trace: &Trace, s: SliceRef) -> (Option<String>, Option<u64>) {
        if self.pg.is_none() && self.nelems.is_none() {
            return (None, None);
        }
        let Some(&args) = trace.track(s.track).slices.args.get(s.index as usize) else { return (None, None) };
        let (mut pg, mut nelems, mut dtype) = (None, None, None);
        for (k, v) in trace.args.get(args) {
            let text = |v: ArgValue| match v {
                ArgValue::Str(x) => Some(trace.str(x).to_string()),
                ArgValue::Int(i) => Some(i.to_string()),
                ArgValue::UInt(u) => Some(u.to_string()),
                _ => None,
            };
            if Some(k) == self.pg {
                pg = text(v);
            } else if Some(k) == self.nelems {
                nelems = crate::analysis::gpu::int_arg(v, trace).and_then(|n| u64::try_from(n).ok());
            } else if Some(k) == self.dtype {
                dtype = text(v);
            }
        }
        let bytes = match (nelems, dtype.as_deref().and_then(dtype_bytes)) {
            (Some(n), Some(b)) => n.checked_mul(b),
            _ => None,
        };
        (pg, bytes)
    }
}

/// Bytes per element of a c10 scalar type name as Kineto writes it (`Float`, `BFloat16`, …).
pub fn dtype_bytes(name: &str) -> Option<u64> {
    let n = name.trim().to_ascii_lowercase();
    Some(match n.as_str() {
        "bool" | "byte" | "char" | "int8" | "uint8" | "qint8" | "quint8" => 1,
        "half" | "bfloat16" | "short" | "int16" | "uint16" | "float16" => 2,
        "float" | "int" | "int32" | "uint32" | "float32" | "complexhalf" | "qint32" => 4,
        "double" | "long" | "int64" | "uint64" | "float64" | "complexfloat" => 8,
        "complexdouble" => 16,
        _ if n.starts_with("float8") => 1,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(rank: i64, start_ns: i64, dur_ns: i64) -> Arrival {
        Arrival {
            rank,
            start_ns,
            dur_ns,
            slice: SliceRef { track: crate::model::TrackId(0), index: 0 },
            bytes: None,
        }
    }

    fn instance(arrivals: Vec<Arrival>, missing: Vec<i64>) -> Collective {
        Collective {
            name: "ncclKernel_AllReduce".into(),
            process_group: None,
            seq: 0,
            ranks: arrivals.iter().map(|a| a.rank).collect(),
            missing,
            start_skew_ns: 0,
            dur_min_ns: 0,
            dur_median_ns: 0,
            dur_max_ns: 0,
            last_rank: None,
            bytes: Some(1000),
            algbw_gbps: None,
            arrivals,
        }
    }

    #[test]
    fn stats_skew_median_last_and_bandwidth() {
        let mut c = instance(
            vec![arrival(0, 100, 50), arrival(1, 130, 20), arrival(2, 110, 41), arrival(3, 130, 10)],
            vec![],
        );
        collective_stats(&mut c, &|_| 0);
        assert_eq!(c.start_skew_ns, 30);
        assert_eq!((c.dur_min_ns, c.dur_median_ns, c.dur_max_ns), (10, 30, 50));
        assert_eq!(c.last_rank, Some(1), "ties: the lowest rank");
        assert_eq!(c.algbw_gbps, Some(100.0));
        // an offset moves rank 0 last
        collective_stats(&mut c, &|r| if r == 0 { 40 } else { 0 });
        assert_eq!((c.start_skew_ns, c.last_rank), (30, Some(0)));
        let mut same = instance(vec![arrival(0, 5, 1), arrival(1, 5, 2)], vec![]);
        collective_stats(&mut same, &|_| 0);
        assert_eq!((same.start_skew_ns, same.last_rank, same.dur_median_ns), (0, None, 1));
    }

    #[test]
    fn stragglers_count_complete_instances_only() {
        let mut a = instance(vec![arrival(0, 0, 1), arrival(1, 10, 1)], vec![]);
        let mut b = instance(vec![arrival(0, 100, 1), arrival(1, 103, 1)], vec![]);
        let mut partial = instance(vec![arrival(0, 500, 1)], vec![1]);
        for c in [&mut a, &mut b, &mut partial] {
            collective_stats(c, &|_| 0);
        }
        let s = stragglers(&[0, 1], &[a, b, partial], &|_| 0);
        assert_eq!(
            s[0],
            Straggler { rank: 1, last_count: 2, instances: 2, mean_lateness_ns: 7, max_lateness_ns: 10 }
        );
        assert_eq!(
            s[1],
            Straggler { rank: 0, last_count: 0, instances: 2, mean_lateness_ns: 0, max_lateness_ns: 0 }
        );
    }

    #[test]
    fn offsets_by_iteration_and_collective() {
        let step = |number, start_ns| Step {
            number,
            start_ns,
            dur_ns: 10,
            slice: SliceRef { track: crate::model::TrackId(0), index: 0 },
        };
        let steps = vec![
            RankSteps { rank: 0, steps: vec![step(1, 1000), step(2, 2000)] },
            RankSteps { rank: 1, steps: vec![step(2, 2500)] },
        ];
        let c = |s0, s1| instance(vec![arrival(0, s0, 10), arrival(1, s1, 4)], vec![]);
        let cs = vec![c(300, 350), c(100, 170)];
        let o = offsets(&[0, 1], &steps, &cs, Align::Iteration(2)).unwrap();
        assert_eq!(
            o,
            vec![RankOffset { rank: 0, offset_ns: Some(0) }, RankOffset { rank: 1, offset_ns: Some(-500) }]
        );
        let o = offsets(&[0, 1], &steps, &cs, Align::Iteration(1)).unwrap();
        assert_eq!(o[1].offset_ns, None);
        assert!(offsets(&[0, 1], &steps, &cs, Align::Iteration(3)).is_err());
        // collective 0 = the one rank 0 starts first (at 100): ends 110 and 174
        let o = offsets(&[0, 1], &steps, &cs, Align::Collective(0)).unwrap();
        assert_eq!(o[1].offset_ns, Some(110 - 174));
        let o = offsets(&[0, 1], &steps, &cs, Align::Collective(1)).unwrap();
        assert_eq!(o[1].offset_ns, Some(310 - 354));
        assert!(offsets(&[0, 1], &steps, &cs, Align::Collective(2)).is_err());
        assert_eq!(offsets(&[0, 1], &steps, &cs, Align::AsRecorded).unwrap()[1].offset_ns, Some(0));
    }

    #[test]
    fn step_grid_cells_heat_and_medians() {
        let step = |number, dur_ns| Step {
            number,
            start_ns: number * 1000,
            dur_ns,
            slice: SliceRef { track: crate::model::TrackId(0), index: number as u32 },
        };
        let steps = vec![
            RankSteps { rank: 0, steps: vec![step(5, 100), step(6, 300)] },
            RankSteps { rank: 1, steps: vec![] },
            RankSteps { rank: 2, steps: vec![step(6, 200), step(7, 500)] },
        ];
        let g = StepGrid::of(&steps);
        assert_eq!(g.ranks, vec![0, 2], "a rank without steps has no row");
        assert_eq!(g.steps, vec![5, 6, 7], "every step number of any rank, ascending");
        assert_eq!(g.cell(0, 0).map(|s| s.dur_ns), Some(100));
        assert_eq!(g.cell(0, 2), None);
        assert_eq!(g.cell(1, 0), None);
        assert_eq!(g.cell(1, 2).map(|s| s.dur_ns), Some(500));
        assert_eq!(g.cell(0, 3), None, "past the last column");
        assert_eq!((g.min_ns, g.max_ns), (100, 500));
        assert_eq!(g.heat(100), 0.0);
        assert_eq!(g.heat(500), 1.0);
        assert_eq!(g.heat(300), 0.5);
        assert_eq!(g.column_median_ns(1), Some(200), "lower middle of 200, 300");
        assert_eq!(g.column_median_ns(0), Some(100));
        let empty = StepGrid::of(&[]);
        assert!(empty.ranks.is_empty() && empty.steps.is_empty());
        assert_eq!((empty.min_ns, empty.max_ns, empty.heat(5)), (0, 0, 0.0));
    }

    #[test]
    fn groups_take_their_ranks_offset() {
        let mut b = crate::model::TraceBuilder::new("test");
        let files = ["r0.json", "r1.json", "r0.json"];
        for (i, f) in files.iter().enumerate() {
            let g = b.add_group(&format!("g{i}"), crate::model::GroupKind::Process);
            b.set_group_source_file(g, f);
        }
        let trace = b.finish();
        // no distributedInfo: ranks are the files' positions, in order of first appearance
        let gr = group_ranks(&trace);
        assert_eq!(gr, vec![0, 1, 0]);
        assert_eq!(distinct_ranks(&trace), vec![0, 1]);
        let offs = [RankOffset { rank: 0, offset_ns: Some(0) }, RankOffset { rank: 1, offset_ns: Some(-42) }];
        assert_eq!(group_offsets(&gr, &offs), vec![0, -42, 0]);
        // a rank the alignment cannot place keeps its recorded clock
        let offs = [RankOffset { rank: 1, offset_ns: None }];
        assert_eq!(group_offsets(&gr, &offs), vec![0, 0, 0]);
    }

    #[test]
    fn rank_and_core_numbers_from_file_names() {
        use crate::analysis::gpu::{neuron_core_in_file_name as nc, rank_in_file_name as rank};
        assert_eq!(rank("job/job_rank_3.ntff"), Some(3));
        assert_eq!(rank("hta__trace_filter_sampled_rank-1.json.gz"), Some(1));
        assert_eq!(rank("profile_rank_12.ntff"), Some(12));
        assert_eq!(rank("RANK_7.json"), Some(7));
        assert_eq!(rank("rank_0"), Some(0));
        assert_eq!(rank("dir_rank_9/worker.json"), None, "the last path component only");
        assert_eq!(rank("crank_3.json"), None, "a word of its own");
        assert_eq!(rank("rank_3a.json"), None);
        assert_eq!(rank("rank_.json"), None);
        assert_eq!(rank("rank_1234567890.json"), None, "at most 9 digits");
        assert_eq!(rank("ranks_3.json"), None);
        assert_eq!(rank("a_rank_x_rank_4.json"), Some(4), "the first match");
        assert_eq!(nc("profile_nc_0_session_0.ntff"), Some(0));
        assert_eq!(nc("i-0abc_pid_12_nc_5_session_0.json"), Some(5));
        assert_eq!(nc("nrt-nc-003.ntff"), Some(3));
        assert_eq!(nc("2a8f_instid_0_vnc_1.ntff"), Some(1));
        assert_eq!(nc("sync_3.ntff"), None);
        assert_eq!(nc("core_3.ntff"), None, "not a name a Neuron tool writes");
        assert_eq!(rank("é_rank_2.ntff"), Some(2), "non-ASCII text around it");
    }

    #[test]
    fn ranks_are_numbered_by_names_then_cores_then_positions() {
        use crate::analysis::gpu::{RankMap, RankSource};
        let trace = |files: &[&str], device: bool| {
            let mut b = crate::model::TraceBuilder::new("test");
            for f in files {
                let g = b.add_group(f, crate::model::GroupKind::Device);
                b.set_group_source_file(g, f);
                if device {
                    b.set_group_device(g, crate::model::DeviceInfo::default());
                }
            }
            b.finish()
        };
        let m = RankMap::of(&trace(&["a_rank_2.ntff", "a_rank_0.ntff", "a_rank_1.ntff"], true));
        assert_eq!((m.numbers, m.source), (vec![2, 0, 1], RankSource::FileName));
        // a repeated number is not a numbering
        let m = RankMap::of(&trace(&["x/rank_1.json", "y/rank_1.json"], false));
        assert_eq!((m.numbers, m.source), (vec![0, 1], RankSource::Position));
        let m = RankMap::of(&trace(&["profile_nc_3_session_0.ntff", "profile_nc_1_session_0.ntff"], true));
        assert_eq!((m.numbers, m.source), (vec![3, 1], RankSource::NeuronCoreInFileName));
        // not Neuron captures: a core in the name is not read
        let m = RankMap::of(&trace(&["profile_nc_3.json", "profile_nc_1.json"], false));
        assert_eq!((m.numbers, m.source), (vec![0, 1], RankSource::Position));
        // one name without a rank: positions
        let m = RankMap::of(&trace(&["a_rank_2.ntff", "b.ntff"], true));
        assert_eq!((m.numbers, m.source), (vec![0, 1], RankSource::Position));
    }

    #[test]
    fn neff_uuids_group_ranks_and_a_prefix_joins_its_uuid() {
        let n = |rank: i64, uuid: Option<&str>, truncated: bool| NeuronRank {
            rank,
            execution: None,
            span_ns: 0,
            compute_ns: 0,
            idle_ns: 0,
            exposed_comm_ns: None,
            collectives: Vec::new(),
            core: None,
            neff_uuid: uuid.map(str::to_string),
            neff_uuid_truncated: truncated,
        };
        let full = "5ee240ec1e134d12b7b0ccdf8eff1e5e";
        // a truncated capture's prefix is the same NEFF
        assert!(neff_warnings(&[n(0, Some(full), false), n(1, Some("5ee240ec"), true)]).is_empty());
        // a full UUID that only starts the same is not
        let w =
            neff_warnings(&[n(0, Some(full), false), n(1, Some("5ee240ec"), false), n(2, Some(full), false)]);
        let [RankWarning::NeffMismatch { neffs }] = w.as_slice() else { panic!("{w:?}") };
        assert_eq!(neffs.iter().map(|g| g.ranks.clone()).collect::<Vec<_>>(), vec![vec![0, 2], vec![1]]);
        let w = neff_warnings(&[n(0, Some(full), false), n(1, None, false)]);
        assert_eq!(w, vec![RankWarning::NeffUnknown { ranks: vec![1] }]);
        assert!(w[0].message().contains("rank 1"));
        assert!(neff_warnings(&[n(0, None, false)]).is_empty(), "one rank is not a job");
    }

    #[test]
    fn spans_total_and_overlap() {
        assert_eq!(total(&[(0, 10), (20, 25)]), 15);
        assert_eq!(overlap(&[(0, 10), (20, 30)], &[(5, 22), (25, 26), (40, 50)]), 5 + 2 + 1);
        assert_eq!(overlap(&[], &[(0, 1)]), 0);
    }

    #[test]
    fn align_parses() {
        assert_eq!(Align::parse("recorded"), Some(Align::AsRecorded));
        assert_eq!(Align::parse("iteration:551"), Some(Align::Iteration(551)));
        assert_eq!(Align::parse("collective:3"), Some(Align::Collective(3)));
        assert_eq!(Align::parse("collective:x"), None);
        for a in [Align::AsRecorded, Align::Iteration(-3), Align::Iteration(551), Align::Collective(7)] {
            assert_eq!(Align::parse(&a.key()), Some(a), "key reads back");
        }
        assert_eq!(dtype_bytes("BFloat16"), Some(2));
        assert_eq!(dtype_bytes("Float8_e4m3fn"), Some(1));
        assert_eq!(dtype_bytes("Float"), Some(4));
    }
}
