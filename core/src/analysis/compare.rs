//! Comparing two profiles (A = baseline, B = the other): what got slower or faster, and where.
//!
//! - **The comparison table** ([`compare`]): one row per key, count and total time in A and B,
//!   `delta_ns = B − A`, `ratio = B / A` (absent when A is 0), sorted by |delta| (the impact),
//!   ties by key. The key is the **operator** when both profiles have typed operator columns on
//!   device work (Neuron device profiles: the framework-level operator, else the innermost one,
//!   named by its path from the root, so the same operator of two captures gets the same key);
//!   otherwise the **name** of recorded slices, split into device (GPU streams, engines, DMA
//!   queues) and host (everything else). Derived tracks (the operator timeline) never count. Time
//!   is the sum of slice durations (inclusive: nested slices of one name count their own time).
//!   Each row keeps its events on both sides (`events_a`/`events_b`, not serialised) so a click
//!   can highlight them.
//! - **Neuron instructions** ([`NeuronAlignment`]): two device profiles *run the same program*
//!   when, per engine, the program slots (`instruction`, the NEFF pc) they executed agree: at
//!   least 90 % of the union of (engine, pc) is in both, and at least 95 % of those carry the same
//!   opcode. This is a structural test on the typed columns, not a comparison of file names (a
//!   NEFF path differs between machines; an NTFF and its JSON export name the NEFF differently).
//!   Then each (engine, pc) is a row (executions and time on each side), and each engine a row.
//!   Other profiles fall back to the operator/name table alone.
//! - **Iterations then kernels** ([`IterationAlignment`], traces with GPU streams, e.g. Kineto):
//!   iterations (`ProfilerStep#N`) pair by number (by order when no number is shared); the GPU
//!   kernels *starting* inside each iteration's window are taken in start order and aligned by
//!   name with an edit distance over insertions and deletions (a substitution counts as one of
//!   each, so the alignment keeps the most kernels paired: n + m − 2·LCS); only equal names
//!   pair. The full table costs n × m, so it is used up to [`MAX_DP_CELLS`]; beyond, the
//!   k-th kernel of a name in A pairs with the k-th of that name in B (linear time), and the
//!   result says which method ran. Without iterations in both, the whole traces are one pair.
//! - **Timeline sync** ([`offset_ns`]): the shift to add to B's times to draw it under A:
//!   absolute (0), by start, or by the start of one iteration.
//! - **B's lanes** ([`lanes`]): which of B's tracks the Compare widget draws, where, and the slice
//!   under the pointer.

use crate::model::{Engine, OpId, OpLevel, SliceRef, Trace, TrackId, TrackRole};
use std::collections::HashMap;

pub mod lanes;

/// Largest `n × m` for which iterations are aligned with the full edit-distance table.
pub const MAX_DP_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Operator,
    Name,
}

/// One row of the comparison table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub key: String,
    /// `device` / `host` for name rows, `operator` for operator rows.
    pub side: &'static str,
    pub count_a: u64,
    pub count_b: u64,
    pub time_a_ns: i64,
    pub time_b_ns: i64,
    pub delta_ns: i64,
    pub ratio: Option<f64>,
    #[serde(skip)]
    pub events_a: Vec<SliceRef>,
    #[serde(skip)]
    pub events_b: Vec<SliceRef>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    pub level: Level,
    pub total_a_ns: i64,
    pub total_b_ns: i64,
    pub rows: Vec<Row>,
    pub neuron: Option<NeuronAlignment>,
    pub iterations: Option<IterationAlignment>,
}

fn ratio(a: i64, b: i64) -> Option<f64> {
    (a != 0).then(|| b as f64 / a as f64)
}

/// Device work for the tables: engines, GPU streams, DMA queues (derived tracks never).
fn is_device(r: TrackRole) -> bool {
    matches!(r, TrackRole::Engine(_) | TrackRole::GpuStream | TrackRole::DmaQueue | TrackRole::DmaTransfers)
}

/// Compare two traces (see the module doc).
pub fn compare(a: &Trace, b: &Trace) -> Comparison {
    let level = if has_operators(a) && has_operators(b) { Level::Operator } else { Level::Name };
    let ka = keyed(a, level);
    let kb = keyed(b, level);
    let mut rows: HashMap<(String, &'static str), Row> = HashMap::new();
    for (which, m) in [(0, ka), (1, kb)] {
        for ((key, side), (count, time, events)) in m {
            let r = rows.entry((key.clone(), side)).or_insert_with(|| Row {
                key,
                side,
                count_a: 0,
                count_b: 0,
                time_a_ns: 0,
                time_b_ns: 0,
                delta_ns: 0,
                ratio: None,
                events_a: Vec::new(),
                events_b: Vec::new(),
            });
            if which == 0 {
                (r.count_a, r.time_a_ns, r.events_a) = (count, time, events);
            } else {
                (r.count_b, r.time_b_ns, r.events_b) = (count, time, events);
            }
        }
    }
    let mut rows: Vec<Row> = rows.into_values().collect();
    for r in &mut rows {
        r.delta_ns = r.time_b_ns.saturating_sub(r.time_a_ns);
        r.ratio = ratio(r.time_a_ns, r.time_b_ns);
    }
    sort_by_impact(&mut rows, |r| r.delta_ns, |x, y| (&x.key, x.side).cmp(&(&y.key, y.side)));
    let total = |rows: &[Row], f: fn(&Row) -> i64| rows.iter().map(f).fold(0i64, i64::saturating_add);
    Comparison {
        level,
        total_a_ns: total(&rows, |r| r.time_a_ns),
        total_b_ns: total(&rows, |r| r.time_b_ns),
        neuron: neuron_alignment(a, b),
        iterations: iteration_alignment(a, b),
        rows,
    }
}

fn sort_by_impact<T>(v: &mut [T], delta: fn(&T) -> i64, tie: impl Fn(&T, &T) -> std::cmp::Ordering) {
    v.sort_by(|x, y| delta(y).unsigned_abs().cmp(&delta(x).unsigned_abs()).then_with(|| tie(x, y)));
}

fn has_operators(t: &Trace) -> bool {
    t.tracks.iter().any(|tr| {
        is_device(tr.role)
            && tr.slices.domain.as_ref().is_some_and(|d| d.shapes.operator.iter().any(|o| !o.is_none()))
    })
}

/// The operator a slice counts under: its framework-level ancestor, else its innermost operator.
fn operator_key(t: &Trace, op: OpId, cache: &mut HashMap<OpId, String>) -> String {
    if let Some(k) = cache.get(&op) {
        return k.clone();
    }
    let fw = t.operators.at_level(op, OpLevel::Framework);
    let node = if fw.is_none() { op } else { fw };
    let mut path: Vec<&str> =
        t.operators.path(node).iter().rev().map(|&id| t.str(t.operators.nodes[id.idx()].name)).collect();
    if path.is_empty() {
        path.push("(no operator)");
    }
    let k = path.join(" / ");
    cache.insert(op, k.clone());
    k
}

type Keyed = HashMap<(String, &'static str), (u64, i64, Vec<SliceRef>)>;

fn keyed(t: &Trace, level: Level) -> Keyed {
    let mut m: Keyed = HashMap::new();
    let mut cache = HashMap::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        if tr.role.is_derived() || (level == Level::Operator && !is_device(tr.role)) {
            continue;
        }
        let c = &tr.slices;
        let side = if level == Level::Operator {
            "operator"
        } else if is_device(tr.role) {
            "device"
        } else {
            "host"
        };
        for i in 0..c.len() {
            let key = match level {
                Level::Operator => operator_key(t, c.domain_of(i).operator, &mut cache),
                Level::Name => t.str(c.name[i]).to_string(),
            };
            let e = m.entry((key, side)).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(c.dur_ns.at(i));
            e.2.push(SliceRef { track: TrackId(ti as u32), index: i as u32 });
        }
    }
    m
}

// ---------------------------------------------------------------- Neuron instructions

#[derive(Debug, Clone, serde::Serialize)]
pub struct InstructionRow {
    pub engine: Engine,
    pub pc: u32,
    pub opcode: String,
    pub count_a: u64,
    pub count_b: u64,
    pub time_a_ns: i64,
    pub time_b_ns: i64,
    pub delta_ns: i64,
    #[serde(skip)]
    pub events_a: Vec<SliceRef>,
    #[serde(skip)]
    pub events_b: Vec<SliceRef>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct EngineRow {
    pub engine: Engine,
    pub count_a: u64,
    pub count_b: u64,
    pub time_a_ns: i64,
    pub time_b_ns: i64,
    pub delta_ns: i64,
    pub ratio: Option<f64>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct NeuronAlignment {
    /// Whether A and B ran the same program (the module doc's test); when false, only
    /// `why` is filled and the table above is the comparison.
    pub same_program: bool,
    pub why: String,
    pub engines: Vec<EngineRow>,
    /// Sorted by |delta|.
    pub instructions: Vec<InstructionRow>,
}

type Slots = HashMap<(Engine, u32), (String, u64, i64, Vec<SliceRef>)>;

/// Executions per (engine stream, pc) on engine tracks.
fn slots(t: &Trace) -> Slots {
    let mut m: Slots = HashMap::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        let TrackRole::Engine(e) = tr.role else { continue };
        if e == Engine::TensorMatrix {
            continue; // the PE array's matrix timeline repeats the Tensor stream's instructions
        }
        let Some(d) = &tr.slices.domain else { continue };
        for i in 0..tr.slices.len() {
            let pc = d.instruction(i);
            if pc == u32::MAX {
                continue;
            }
            let op = t.str(d.opcode(i));
            let r = m.entry((e.stream(), pc)).or_insert_with(|| (op.to_string(), 0, 0, Vec::new()));
            r.1 += 1;
            r.2 = r.2.saturating_add(tr.slices.dur_ns.at(i));
            r.3.push(SliceRef { track: TrackId(ti as u32), index: i as u32 });
        }
    }
    m
}

fn neuron_alignment(a: &Trace, b: &Trace) -> Option<NeuronAlignment> {
    let (sa, sb) = (slots(a), slots(b));
    if sa.is_empty() && sb.is_empty() {
        return None;
    }
    let none = |why: String| {
        Some(NeuronAlignment { same_program: false, why, engines: vec![], instructions: vec![] })
    };
    if sa.is_empty() || sb.is_empty() {
        return none("only one profile has instruction slots: compared by operator/name".into());
    }
    let common: Vec<&(Engine, u32)> = sa.keys().filter(|k| sb.contains_key(k)).collect();
    let union = sa.len() + sb.len() - common.len();
    let same_op = common.iter().filter(|k| sa[k].0 == sb[k].0).count();
    let cover = common.len() as f64 / union.max(1) as f64;
    let agree = same_op as f64 / common.len().max(1) as f64;
    let stats = format!(
        "{} of {} program slots in both ({:.1} %), {:.1} % of those with the same opcode",
        common.len(),
        union,
        100.0 * cover,
        100.0 * agree
    );
    if cover < 0.9 || agree < 0.95 {
        return none(format!("different programs ({stats}): compared by operator/name"));
    }
    let mut instructions = Vec::with_capacity(union);
    let mut keys: Vec<(Engine, u32)> = sa.keys().chain(sb.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let mut engines: HashMap<Engine, EngineRow> = HashMap::new();
    for k in keys {
        let empty = (String::new(), 0u64, 0i64, Vec::new());
        let ra = sa.get(&k).unwrap_or(&empty);
        let rb = sb.get(&k).unwrap_or(&empty);
        let opcode = if ra.0.is_empty() { rb.0.clone() } else { ra.0.clone() };
        let e = engines.entry(k.0).or_insert(EngineRow {
            engine: k.0,
            count_a: 0,
            count_b: 0,
            time_a_ns: 0,
            time_b_ns: 0,
            delta_ns: 0,
            ratio: None,
        });
        e.count_a += ra.1;
        e.count_b += rb.1;
        e.time_a_ns = e.time_a_ns.saturating_add(ra.2);
        e.time_b_ns = e.time_b_ns.saturating_add(rb.2);
        instructions.push(InstructionRow {
            engine: k.0,
            pc: k.1,
            opcode,
            count_a: ra.1,
            count_b: rb.1,
            time_a_ns: ra.2,
            time_b_ns: rb.2,
            delta_ns: rb.2.saturating_sub(ra.2),
            events_a: ra.3.clone(),
            events_b: rb.3.clone(),
        });
    }
    sort_by_impact(&mut instructions, |r| r.delta_ns, |x, y| (x.engine, x.pc).cmp(&(y.engine, y.pc)));
    let mut engines: Vec<EngineRow> = engines.into_values().collect();
    for e in &mut engines {
        e.delta_ns = e.time_b_ns.saturating_sub(e.time_a_ns);
        e.ratio = ratio(e.time_a_ns, e.time_b_ns);
    }
    engines.sort_by_key(|e| e.engine.rank());
    Some(NeuronAlignment { same_program: true, why: format!("same program: {stats}"), engines, instructions })
}

// ---------------------------------------------------------------- iterations and kernels

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelMethod {
    /// The full edit-distance table.
    EditDistance,
    /// k-th of a name with the k-th of that name (the table would have been too large).
    NameOccurrence,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct KernelPair {
    pub name: String,
    pub a: SliceRef,
    pub b: SliceRef,
    pub dur_a_ns: i64,
    pub dur_b_ns: i64,
    pub delta_ns: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct IterationPair {
    /// Iteration numbers (`None` when the whole trace stands for one iteration).
    pub number_a: Option<i64>,
    pub number_b: Option<i64>,
    pub dur_a_ns: i64,
    pub dur_b_ns: i64,
    pub delta_ns: i64,
    pub kernels_a: u64,
    pub kernels_b: u64,
    pub kernel_time_a_ns: i64,
    pub kernel_time_b_ns: i64,
    pub method: KernelMethod,
    /// Kernels left unpaired in A (deleted) and in B (inserted); their sum is the edit distance.
    pub only_a: u64,
    pub only_b: u64,
    pub edit_distance: u64,
    /// Matched kernels (same name), in A's order.
    pub pairs: Vec<KernelPair>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct IterationAlignment {
    /// `number`: iterations paired by number; `order`: by position; `whole_trace`: no iterations.
    pub paired_by: &'static str,
    pub iterations: Vec<IterationPair>,
}

/// GPU kernels (slices of GPU-stream tracks, every depth) starting in `[t0, t1)`, in start order.
fn kernels(t: &Trace, t0: i64, t1: i64) -> Vec<(i64, SliceRef)> {
    let mut v = Vec::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        if tr.role != TrackRole::GpuStream {
            continue;
        }
        let c = &tr.slices;
        for d in 0..c.depth_count() {
            let r = c.depth_range(d);
            let s = &c.start_ns[r.clone()];
            let lo = s.partition_point(|&x| x < t0);
            let hi = s.partition_point(|&x| x < t1);
            for i in r.start + lo..r.start + hi {
                v.push((c.start_ns[i], SliceRef { track: TrackId(ti as u32), index: i as u32 }));
            }
        }
    }
    v.sort_unstable();
    v
}

/// (iteration number, start, end) of one side.
type Window = (Option<i64>, i64, i64);

fn iteration_alignment(a: &Trace, b: &Trace) -> Option<IterationAlignment> {
    let gpu = |t: &Trace| t.tracks.iter().any(|tr| tr.role == TrackRole::GpuStream);
    if !gpu(a) || !gpu(b) {
        return None;
    }
    let (windows, paired_by): (Vec<(Window, Window)>, _) = if a.iterations.is_empty()
        || b.iterations.is_empty()
    {
        (vec![((None, a.start_ns, a.end_ns), (None, b.start_ns, b.end_ns))], "whole_trace")
    } else {
        let w = |i: &crate::model::Iteration| (Some(i.number), i.start_ns, i.end_ns);
        let nb: HashMap<i64, &crate::model::Iteration> = b.iterations.iter().map(|i| (i.number, i)).collect();
        let by_number: Vec<_> =
            a.iterations.iter().filter_map(|ia| nb.get(&ia.number).map(|ib| (w(ia), w(ib)))).collect();
        if by_number.is_empty() {
            (a.iterations.iter().zip(&b.iterations).map(|(x, y)| (w(x), w(y))).collect(), "order")
        } else {
            (by_number, "number")
        }
    };
    let iterations = windows
        .into_iter()
        .map(|((na, a0, a1), (nb, b0, b1))| {
            let ka = kernels(a, a0, a1);
            let kb = kernels(b, b0, b1);
            let mut p = align_kernels(a, b, &ka, &kb);
            p.number_a = na;
            p.number_b = nb;
            p.dur_a_ns = a1.saturating_sub(a0);
            p.dur_b_ns = b1.saturating_sub(b0);
            p.delta_ns = p.dur_b_ns.saturating_sub(p.dur_a_ns);
            p
        })
        .collect();
    Some(IterationAlignment { paired_by, iterations })
}

fn dur(t: &Trace, r: SliceRef) -> i64 {
    t.tracks[r.track.idx()].slices.dur_ns.at(r.index as usize)
}
fn name_of(t: &Trace, r: SliceRef) -> &str {
    t.str(t.tracks[r.track.idx()].slices.name[r.index as usize])
}

/// Align two kernel sequences (see the module doc) into an [`IterationPair`] (times filled by
/// the caller).
fn align_kernels(a: &Trace, b: &Trace, ka: &[(i64, SliceRef)], kb: &[(i64, SliceRef)]) -> IterationPair {
    let na: Vec<&str> = ka.iter().map(|&(_, r)| name_of(a, r)).collect();
    let nb: Vec<&str> = kb.iter().map(|&(_, r)| name_of(b, r)).collect();
    let (n, m) = (na.len(), nb.len());
    let mut matched: Vec<(usize, usize)> = Vec::new();
    let (method, only_a, only_b);
    if n.saturating_mul(m) <= MAX_DP_CELLS {
        method = KernelMethod::EditDistance;
        // cost table by rows of u32; directions kept in one byte per cell for the traceback:
        // 0 = match (equal names, cost 0), 1 = A's kernel alone (cost 1), 2 = B's alone (cost 1)
        let mut prev: Vec<u32> = (0..=m as u32).collect();
        let mut cur = vec![0u32; m + 1];
        let mut dir = vec![0u8; (n + 1) * (m + 1)];
        for d in dir.iter_mut().take(m + 1).skip(1) {
            *d = 2;
        }
        for i in 1..=n {
            cur[0] = i as u32;
            dir[i * (m + 1)] = 1;
            for j in 1..=m {
                let del = prev[j] + 1;
                let ins = cur[j - 1] + 1;
                let (c, d) = if na[i - 1] == nb[j - 1] && prev[j - 1] <= del.min(ins) {
                    (prev[j - 1], 0)
                } else if del <= ins {
                    (del, 1)
                } else {
                    (ins, 2)
                };
                cur[j] = c;
                dir[i * (m + 1) + j] = d;
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let (mut i, mut j) = (n, m);
        let (mut da, mut db) = (0u64, 0u64);
        while i > 0 || j > 0 {
            match dir[i * (m + 1) + j] {
                0 if i > 0 && j > 0 => {
                    matched.push((i - 1, j - 1));
                    i -= 1;
                    j -= 1;
                }
                1 if i > 0 => {
                    da += 1;
                    i -= 1;
                }
                _ if j > 0 => {
                    db += 1;
                    j -= 1;
                }
                _ => {
                    da += 1;
                    i -= 1;
                }
            }
        }
        matched.reverse();
        (only_a, only_b) = (da, db);
    } else {
        method = KernelMethod::NameOccurrence;
        let mut queue: HashMap<&str, std::collections::VecDeque<usize>> = HashMap::new();
        for (j, name) in nb.iter().enumerate() {
            queue.entry(name).or_default().push_back(j);
        }
        for (i, name) in na.iter().enumerate() {
            if let Some(j) = queue.get_mut(name).and_then(|q| q.pop_front()) {
                matched.push((i, j));
            }
        }
        only_a = (n - matched.len()) as u64;
        only_b = (m - matched.len()) as u64;
    }
    let pairs: Vec<KernelPair> = matched
        .iter()
        .map(|&(i, j)| {
            let (ra, rb) = (ka[i].1, kb[j].1);
            let (da, db) = (dur(a, ra), dur(b, rb));
            KernelPair {
                name: na[i].to_string(),
                a: ra,
                b: rb,
                dur_a_ns: da,
                dur_b_ns: db,
                delta_ns: db.saturating_sub(da),
            }
        })
        .collect();
    let sum =
        |t: &Trace, k: &[(i64, SliceRef)]| k.iter().map(|&(_, r)| dur(t, r)).fold(0i64, i64::saturating_add);
    IterationPair {
        number_a: None,
        number_b: None,
        dur_a_ns: 0,
        dur_b_ns: 0,
        delta_ns: 0,
        kernels_a: n as u64,
        kernels_b: m as u64,
        kernel_time_a_ns: sum(a, ka),
        kernel_time_b_ns: sum(b, kb),
        method,
        only_a,
        only_b,
        edit_distance: only_a + only_b,
        pairs,
    }
}

// ---------------------------------------------------------------- timeline sync

/// How two timelines are lined up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Both on their own clock.
    Absolute,
    /// B's first event under A's first event.
    ByStart,
    /// B's iteration `n` under A's iteration `n`.
    ByIteration(i64),
}

/// The shift to add to B's times to draw them under A's (`t_on_a = t_b + offset`); `None` when
/// the iteration is missing on either side.
pub fn offset_ns(a: &Trace, b: &Trace, how: Align) -> Option<i64> {
    match how {
        Align::Absolute => Some(0),
        Align::ByStart => Some(a.start_ns.saturating_sub(b.start_ns)),
        Align::ByIteration(n) => {
            let s = |t: &Trace| t.iterations.iter().find(|i| i.number == n).map(|i| i.start_ns);
            Some(s(a)?.saturating_sub(s(b)?))
        }
    }
}

/// How a comparison opens, so that B is on screen under A's view: on their own clocks when the
/// two time ranges overlap (both from the same run or the same clock), else by the first
/// iteration both have (two runs of a training loop), else by start.
pub fn default_align(a: &Trace, b: &Trace) -> Align {
    let overlap = a.start_ns < b.end_ns && b.start_ns < a.end_ns;
    if overlap {
        return Align::Absolute;
    }
    let first_shared =
        a.iterations.iter().map(|i| i.number).find(|n| b.iterations.iter().any(|j| j.number == *n));
    match first_shared {
        Some(n) => Align::ByIteration(n),
        None => Align::ByStart,
    }
}

/// The comparison table as CSV rows (header [`CSV_HEADER`]), for `export::csv::write_rows`.
pub const CSV_HEADER: [&str; 8] =
    ["key", "side", "count_a", "count_b", "time_a_ns", "time_b_ns", "delta_ns", "ratio"];

pub fn csv_rows(c: &Comparison) -> impl Iterator<Item = Vec<String>> + '_ {
    c.rows.iter().map(|r| {
        vec![
            r.key.clone(),
            r.side.to_string(),
            r.count_a.to_string(),
            r.count_b.to_string(),
            r.time_a_ns.to_string(),
            r.time_b_ns.to_string(),
            r.delta_ns.to_string(),
            r.ratio.map_or(String::new(), |x| format!("{x:.6}")),
        ]
    })
}

#[cfg(test)]
mod tests;
