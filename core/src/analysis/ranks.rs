//! Many ranks, one job: per-rank breakdowns, iterations, collectives matched across ranks,
//! stragglers and clock alignment (issue 41 §1–§2). A *rank* is one input file, numbered as the
//! GPU analyses number it (`gpu::rank_numbers`: `distributedInfo.rank` when every file has one,
//! else the file's position).
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

use crate::analysis::gpu::{gpu_analysis, gpu_analysis_with_events, GpuOptions, KernelType, RankMap};
use crate::model::{ArgValue, SliceRef, Trace, TrackRole};
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

/// One rank's row of the rank summary.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RankRow {
    pub rank: i64,
    pub file: Option<String>,
    /// Distinct `ProfilerStep#k` of the rank.
    pub iterations: usize,
    pub idle_ns: i64,
    pub compute_ns: i64,
    pub non_compute_ns: i64,
    /// The GPU span (HTA's "kernel time").
    pub kernel_ns: i64,
    pub exposed_comm_ns: i64,
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
}

/// The per-rank breakdown, steps and collectives of a profile, with the collective statistics
/// on clocks aligned by `align`. `gpu` chooses the breakdown's definitions (see the module doc).
pub fn ranks_report(trace: &Trace, gpu: &GpuOptions, align: Align) -> Result<RanksReport, String> {
    let map = RankMap::of(trace);
    // collectives: the same kernel types, exact ns, every step (one pass when the breakdown's
    // options are those already)
    let (breakdown, events) = if gpu.hta_rounding || gpu.drop_last_step {
        let exact = GpuOptions { hta_rounding: false, drop_last_step: false, ..gpu.clone() };
        (gpu_analysis(trace, gpu)?, gpu_analysis_with_events(trace, &exact)?.1)
    } else {
        gpu_analysis_with_events(trace, gpu)?
    };

    let steps = steps(trace, &map);
    let mut ranks: Vec<RankRow> = breakdown
        .temporal_breakdown
        .ranks
        .iter()
        .map(|r| {
            let exposed = breakdown.exposed_time.iter().find(|e| e.rank == r.rank);
            RankRow {
                rank: r.rank,
                file: r.file.clone(),
                iterations: steps.iter().find(|s| s.rank == r.rank).map_or(0, |s| s.steps.len()),
                idle_ns: r.temporal.idle_ns,
                compute_ns: r.temporal.compute_ns,
                non_compute_ns: r.temporal.non_compute_ns,
                kernel_ns: r.temporal.kernel_ns,
                exposed_comm_ns: exposed.map_or(0, |e| e.exposed_comm_ns),
            }
        })
        .collect();
    ranks.sort_by_key(|r| r.rank);
    let rank_numbers: Vec<i64> = {
        let mut v = map.numbers.clone();
        v.sort_unstable();
        v.dedup();
        v
    };

    // communication kernels per rank and key
    let keys = ArgKeys::of(trace);
    type Key = (Option<String>, String);
    let mut by_key: FxHashMap<Key, FxHashMap<i64, Vec<Arrival>>> = FxHashMap::default();
    let mut key_order: Vec<Key> = Vec::new();
    for a in events.activities().iter().filter(|a| a.ty == KernelType::Communication) {
        let (pg, bytes) = keys.read(trace, a.slice);
        let key = (pg, trace.str(a.name).to_string());
        let per_rank = by_key.entry(key.clone()).or_insert_with(|| {
            key_order.push(key.clone());
            FxHashMap::default()
        });
        per_rank.entry(a.rank).or_default().push(Arrival {
            rank: a.rank,
            start_ns: a.start_ns,
            dur_ns: a.end_ns - a.start_ns,
            slice: a.slice,
            bytes,
        });
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
    };
    report.realign(align)?;
    Ok(report)
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
                Align::Iteration(k) => format!("rank {} has no ProfilerStep#{k}", r.rank),
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
                dur_ns: c.dur_ns[i],
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
