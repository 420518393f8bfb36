//! The TensorBoard-Neuron plugin's **operator framework view** and **operator HLO view**,
//! computed from a device profile (NTFF + NEFF, the JSON export, Parquet): per operator at one
//! level of the typed operator tree, its occurrences, instructions, execution time split into
//! compute / control / data transfer, share of the total, the devices it ran on and its members
//! (the operators one level down: the HLO ops a framework op was lowered to, the fused members of
//! an HLO fusion).
//!
//! Definitions (the plugin's own are not public; these are stated in the app next to the table):
//! - *time* is instruction time: the durations of the slices on [`TrackRole::Engine`] tracks
//!   (compute: Tensor, TensorMatrix, Vector, Scalar, GpSimd; control: Sync) and of DMA tracks
//!   (data transfer), summed — instructions that overlap on different engines both count, as in
//!   the Operator Table;
//! - *time %* is that time over the same sum for every slice of those tracks, including the ones
//!   without an operator at this level (reported as `unattributed_ns`, split by kind of work);
//! - semaphore waits (`EVENT_SEMAPHORE` instructions) are waiting, not compute
//!   ([`super::measures::ENGINE_WAITING`]): left out by default and reported apart
//!   (`waits_left_out`), as neuron-profile leaves them out of instruction time. Counted in, they
//!   were 99 % of the time of the shared captures (an engine waits for the whole profile, its
//!   instructions take microseconds) and carry no operator, so the doughnut of a NEFF + NTFF pair
//!   was all "no operator"; `include_waits` counts them in again;
//! - *occurrences* is the number of distinct operator nodes of that name at that level that ran
//!   at least one instruction (a name used at several places of the program counts each place);
//! - operators are grouped by name (two nodes with the same name at the same level are one row).

use std::collections::{HashMap, HashSet};

use crate::model::{Engine, GroupId, OpId, OpLevel, Trace, TrackRole};
use crate::strings::StrId;

/// Which kind of work a slice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Lane {
    Compute,
    Control,
    DataTransfer,
}

impl Lane {
    pub const ALL: [Lane; 3] = [Lane::Compute, Lane::Control, Lane::DataTransfer];
    pub fn name(self) -> &'static str {
        match self {
            Lane::Compute => "compute",
            Lane::Control => "control",
            Lane::DataTransfer => "data transfer",
        }
    }
    /// The lane of a track's slices, `None` for tracks that are not device work.
    pub fn of(role: TrackRole) -> Option<Lane> {
        match role {
            TrackRole::Engine(Engine::Sync) => Some(Lane::Control),
            TrackRole::Engine(_) => Some(Lane::Compute),
            r if r.is_dma() => Some(Lane::DataTransfer),
            _ => None,
        }
    }
}

/// One operator (by name) of the view.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpViewRow {
    pub name: String,
    /// Distinct operator nodes of this name at this level that ran.
    pub occurrences: u32,
    /// Slices (instructions, DMA transfers) attributed to it.
    pub instructions: u64,
    pub total_ns: i64,
    /// Per [`Lane::ALL`]: compute, control, data transfer.
    pub lane_ns: [i64; 3],
    /// `total_ns` over the view's total, in percent.
    pub percent: f64,
    /// Device groups (NeuronCores) it ran on, by name.
    pub devices: Vec<String>,
    /// Operators one level down, by time (at most [`MAX_MEMBERS`]), and how many there are.
    pub members: Vec<(String, i64)>,
    pub member_count: u32,
}

/// Members listed per row.
pub const MAX_MEMBERS: usize = 12;

/// The levels the views can show for this trace (layer, framework, HLO: those the operator tree
/// has nodes at), outermost first.
pub fn levels(trace: &Trace) -> Vec<OpLevel> {
    [OpLevel::Layer, OpLevel::Framework, OpLevel::Hlo]
        .into_iter()
        .filter(|&l| trace.operators.nodes.iter().any(|n| n.level == l))
        .collect()
}

/// The view at one level.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OperatorView {
    pub level: OpLevel,
    /// Rows by total time, longest first.
    pub rows: Vec<OpViewRow>,
    /// Time of every slice on device-work tracks.
    pub total_ns: i64,
    /// Of which: slices without an operator at this level.
    pub unattributed_ns: i64,
    pub unattributed_slices: u64,
    /// The unattributed time per [`Lane::ALL`].
    pub unattributed_lane_ns: [i64; 3],
    /// Semaphore-wait instructions left out (count, ns); zero when they are included.
    pub waits_left_out: (u64, i64),
}

/// Per operator node: its ancestor-or-self at `level` and the node one level below it on the
/// way down (the member), computed once per view.
fn node_table(trace: &Trace, level: OpLevel) -> Vec<(OpId, OpId)> {
    let ops = &trace.operators;
    (0..ops.len())
        .map(|i| {
            let path = ops.path(OpId(i as u32)); // innermost first
            match path.iter().position(|&p| ops.node(p).is_some_and(|n| n.level == level)) {
                Some(k) => (path[k], if k > 0 { path[k - 1] } else { OpId::NONE }),
                None => (OpId::NONE, OpId::NONE),
            }
        })
        .collect()
}

/// Whether the trace has anything these views can show (device work with operators).
pub fn applies(trace: &Trace) -> bool {
    !trace.operators.is_empty() && trace.tracks.iter().any(|t| Lane::of(t.role).is_some())
}

/// The operator view of `trace` at `level` (normally [`OpLevel::Framework`] or [`OpLevel::Hlo`]),
/// semaphore waits left out.
pub fn operator_view(trace: &Trace, level: OpLevel) -> OperatorView {
    operator_view_with(trace, level, false)
}

/// The operator view of `trace` at `level`, semaphore waits counted as compute when
/// `include_waits`.
pub fn operator_view_with(trace: &Trace, level: OpLevel, include_waits: bool) -> OperatorView {
    let wait_op = if include_waits { None } else { super::device_summary::semaphore_wait_opcode(trace) };
    let mut waits_left_out = (0u64, 0i64);
    let mut unattributed_lane_ns = [0i64; 3];
    let table = node_table(trace, level);
    struct Acc {
        nodes: HashSet<OpId>,
        instructions: u64,
        lane_ns: [i64; 3],
        groups: Vec<GroupId>,
        members: HashMap<StrId, i64>,
    }
    // first per operator node, in dense arrays (one pass over the slices, no hashing: hashing
    // three maps a slice was a 130 ms task at install on a 3 M-instruction NTFF), then per name
    struct PerOp {
        slices: u64,
        ns: i64,
        lane_ns: [i64; 3],
        groups: Vec<GroupId>,
        /// 1 + the last track counted here (0: none yet).
        last_track: usize,
    }
    let mut per_op: Vec<PerOp> = (0..table.len())
        .map(|_| PerOp { slices: 0, ns: 0, lane_ns: [0; 3], groups: Vec::new(), last_track: 0 })
        .collect();
    let (mut total_ns, mut unattributed_ns, mut unattributed_slices) = (0i64, 0i64, 0u64);
    for (ti, track) in trace.tracks.iter().enumerate() {
        let Some(lane) = Lane::of(track.role) else { continue };
        let li = lane as usize;
        let s = &track.slices;
        let ops = s.domain.as_ref();
        let engine = matches!(track.role, TrackRole::Engine(_));
        for i in 0..s.len() {
            let dur = s.dur_ns.at(i).max(0);
            if engine && wait_op.is_some_and(|w| w == s.opcode_of(i)) {
                waits_left_out = (waits_left_out.0 + 1, waits_left_out.1.saturating_add(dur));
                continue;
            }
            total_ns = total_ns.saturating_add(dur);
            let op = ops.map_or(OpId::NONE, |d| d.operator(i));
            let Some(p) = per_op.get_mut(op.idx()) else {
                unattributed_ns = unattributed_ns.saturating_add(dur);
                unattributed_lane_ns[li] = unattributed_lane_ns[li].saturating_add(dur);
                unattributed_slices += 1;
                continue;
            };
            p.slices += 1;
            p.ns = p.ns.saturating_add(dur);
            p.lane_ns[li] = p.lane_ns[li].saturating_add(dur);
            if p.last_track != ti + 1 {
                p.last_track = ti + 1;
                if !p.groups.contains(&track.group) {
                    p.groups.push(track.group);
                }
            }
        }
    }
    let mut by_name: HashMap<StrId, Acc> = HashMap::new();
    for (p, &(anc, member)) in per_op.into_iter().zip(&table) {
        if p.slices == 0 {
            continue;
        }
        let Some(node) = trace.operators.node(anc) else {
            unattributed_ns = unattributed_ns.saturating_add(p.ns);
            unattributed_slices += p.slices;
            for (a, b) in unattributed_lane_ns.iter_mut().zip(p.lane_ns) {
                *a = a.saturating_add(b);
            }
            continue;
        };
        let acc = by_name.entry(node.name).or_insert_with(|| Acc {
            nodes: HashSet::new(),
            instructions: 0,
            lane_ns: [0; 3],
            groups: Vec::new(),
            members: HashMap::new(),
        });
        acc.nodes.insert(anc);
        acc.instructions += p.slices;
        for (a, b) in acc.lane_ns.iter_mut().zip(p.lane_ns) {
            *a = a.saturating_add(b);
        }
        for g in p.groups {
            if !acc.groups.contains(&g) {
                acc.groups.push(g);
            }
        }
        if let Some(m) = trace.operators.node(member) {
            let e = acc.members.entry(m.name).or_default();
            *e = e.saturating_add(p.ns);
        }
    }
    let denom = total_ns.max(1) as f64;
    let mut rows: Vec<OpViewRow> = by_name
        .into_iter()
        .map(|(name, a)| {
            let total: i64 = a.lane_ns.iter().sum();
            let mut members: Vec<(String, i64)> =
                a.members.into_iter().map(|(n, t)| (trace.str(n).to_string(), t)).collect();
            members.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
            let member_count = members.len() as u32;
            members.truncate(MAX_MEMBERS);
            let mut devices: Vec<String> = a
                .groups
                .iter()
                .filter_map(|g| trace.groups.get(g.0 as usize))
                .map(|g| trace.str(g.name).to_string())
                .collect();
            devices.sort();
            devices.dedup();
            OpViewRow {
                name: trace.str(name).to_string(),
                occurrences: a.nodes.len() as u32,
                instructions: a.instructions,
                total_ns: total,
                lane_ns: a.lane_ns,
                percent: total as f64 / denom * 100.0,
                devices,
                members,
                member_count,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    OperatorView {
        level,
        rows,
        total_ns,
        unattributed_ns,
        unattributed_slices,
        unattributed_lane_ns,
        waits_left_out,
    }
}

/// The slices of the operators named `name` at `level` (per track, ascending indices), for
/// highlighting them on the timeline.
pub fn events_of(trace: &Trace, level: OpLevel, name: &str) -> Vec<Vec<u32>> {
    let table = node_table(trace, level);
    let wanted: Vec<bool> = table
        .iter()
        .map(|&(anc, _)| trace.operators.node(anc).is_some_and(|n| trace.str(n.name) == name))
        .collect();
    let mut out = vec![Vec::new(); trace.tracks.len()];
    for (ti, track) in trace.tracks.iter().enumerate() {
        if Lane::of(track.role).is_none() {
            continue;
        }
        let Some(d) = &track.slices.domain else { continue };
        for i in 0..track.slices.len() {
            if wanted.get(d.operator(i).idx()).copied().unwrap_or(false) {
                out[ti].push(i as u32);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GroupKind, SliceDomain, TraceBuilder, TrackId, TrackKind};

    /// Two NeuronCores; framework op "matmul" lowered to HLO "dot.1" and "fusion.2" (which has BIR
    /// members), "relu" to "max.3"; instructions on Tensor, Vector, Sync, and DMA packets.
    fn trace() -> Trace {
        let mut b = TraceBuilder::new("test");
        let mm = b.add_operator(OpId::NONE, OpLevel::Framework, "matmul");
        let dot = b.add_operator(mm, OpLevel::Hlo, "dot.1");
        let fus = b.add_operator(mm, OpLevel::Hlo, "fusion.2");
        let bir_a = b.add_operator(fus, OpLevel::Bir, "I-1");
        let bir_b = b.add_operator(fus, OpLevel::Bir, "I-2");
        let relu = b.add_operator(OpId::NONE, OpLevel::Framework, "relu");
        let max = b.add_operator(relu, OpLevel::Hlo, "max.3");
        let slice = |b: &mut TraceBuilder, t: TrackId, start: i64, dur: i64, op: OpId| {
            let name = b.intern("i");
            let h = b.add_slice(t, start, dur, name, StrId::EMPTY, crate::model::ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { operator: op, ..SliceDomain::default() });
        };
        for core in ["nc0", "nc1"] {
            let g = b.add_group(core, GroupKind::Device);
            let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
            b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
            let dve = b.add_track(g, "Vector", TrackKind::Stream, "dve");
            b.set_track_role(dve, TrackRole::Engine(Engine::Vector));
            let sp = b.add_track(g, "Sync", TrackKind::Stream, "sp");
            b.set_track_role(sp, TrackRole::Engine(Engine::Sync));
            let q = b.add_track(g, "q0", TrackKind::Dma, "q0");
            b.set_track_role(q, TrackRole::DmaQueue);
            let host = b.add_track(g, "host", TrackKind::Thread, "h");
            slice(&mut b, pe, 0, 100, dot);
            slice(&mut b, pe, 100, 50, bir_a);
            slice(&mut b, dve, 0, 30, bir_b);
            slice(&mut b, dve, 40, 20, max);
            slice(&mut b, sp, 0, 10, mm);
            slice(&mut b, q, 0, 40, dot);
            slice(&mut b, q, 50, 5, OpId::NONE);
            slice(&mut b, host, 0, 1000, mm); // not device work: ignored
        }
        b.finish()
    }

    #[test]
    fn framework_view_adds_up() {
        let t = trace();
        let v = operator_view(&t, OpLevel::Framework);
        // per core: 100+50+30+20+10+40+5 = 255
        assert_eq!(v.total_ns, 510);
        assert_eq!((v.unattributed_ns, v.unattributed_slices), (10, 2));
        let names: Vec<&str> = v.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["matmul", "relu"]);
        let mm = &v.rows[0];
        assert_eq!(mm.total_ns, 2 * (100 + 50 + 30 + 10 + 40));
        assert_eq!(mm.lane_ns, [2 * 180, 2 * 10, 2 * 40]);
        assert_eq!(mm.instructions, 10);
        assert_eq!(mm.occurrences, 1);
        assert_eq!(mm.devices, ["nc0", "nc1"]);
        // members one level down: the HLO ops (the Sync instruction sits on matmul itself)
        assert_eq!(mm.members, [("dot.1".to_string(), 280), ("fusion.2".to_string(), 160)]);
        assert_eq!(mm.member_count, 2);
        let sum: i64 = v.rows.iter().map(|r| r.total_ns).sum::<i64>() + v.unattributed_ns;
        assert_eq!(sum, v.total_ns);
        let pct: f64 = v.rows.iter().map(|r| r.percent).sum();
        assert!((pct - 500.0 / 510.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn hlo_view_lists_fused_members() {
        let t = trace();
        let v = operator_view(&t, OpLevel::Hlo);
        let get = |n: &str| v.rows.iter().find(|r| r.name == n).unwrap_or_else(|| panic!("{n}"));
        assert_eq!(get("dot.1").total_ns, 280);
        assert_eq!(get("dot.1").lane_ns, [200, 0, 80]);
        assert_eq!(get("fusion.2").members, [("I-1".to_string(), 100), ("I-2".to_string(), 60)]);
        assert_eq!(get("max.3").total_ns, 40);
        // the Sync instruction's operator is framework-level only: no HLO op
        assert_eq!(v.unattributed_ns, 2 * (10 + 5));
        // events of one operator, for highlighting
        let ev = events_of(&t, OpLevel::Hlo, "fusion.2");
        assert_eq!(ev.iter().map(Vec::len).sum::<usize>(), 4);
        assert!(events_of(&t, OpLevel::Hlo, "nope").iter().all(Vec::is_empty));
        assert!(applies(&t));
        assert_eq!(levels(&t), [OpLevel::Framework, OpLevel::Hlo]);
    }

    /// A semaphore wait without an operator is left out by default (the operators get their
    /// share of the compute), counted in with the toggle.
    #[test]
    fn waits_are_left_out_by_default() {
        let mut b = TraceBuilder::new("test");
        let dot = b.add_operator(OpId::NONE, OpLevel::Hlo, "dot.3");
        let g = b.add_group("nc0", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let q = b.add_track(g, "q0", TrackKind::Dma, "q0");
        b.set_track_role(q, TrackRole::DmaQueue);
        let (wait, mm) = (b.intern("EVENT_SEMAPHORE"), b.intern("MATMUL"));
        for (t, s, d, opcode, op) in
            [(pe, 0, 900, wait, OpId::NONE), (pe, 900, 80, mm, dot), (q, 0, 20, StrId::EMPTY, OpId::NONE)]
        {
            let h = b.add_slice(t, s, d, mm, StrId::EMPTY, crate::model::ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { opcode, operator: op, ..SliceDomain::default() });
        }
        let t = b.finish();
        let v = operator_view(&t, OpLevel::Hlo);
        assert_eq!((v.total_ns, v.waits_left_out), (100, (1, 900)));
        assert_eq!(v.rows[0].total_ns, 80);
        assert!((v.rows[0].percent - 80.0).abs() < 1e-9);
        assert_eq!((v.unattributed_ns, v.unattributed_lane_ns), (20, [0, 0, 20]));
        let v = operator_view_with(&t, OpLevel::Hlo, true);
        assert_eq!((v.total_ns, v.waits_left_out), (1000, (0, 0)));
        assert_eq!((v.unattributed_ns, v.unattributed_lane_ns), (920, [900, 0, 20]));
        assert!((v.rows[0].percent - 8.0).abs() < 1e-9);
    }

    #[test]
    fn no_operators_no_view() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let tr = b.add_track(g, "t", TrackKind::Thread, "1");
        let n = b.intern("x");
        b.add_slice(tr, 0, 5, n, StrId::EMPTY, crate::model::ArgsId::NONE);
        let t = b.finish();
        assert!(!applies(&t));
        assert!(levels(&t).is_empty());
        let v = operator_view(&t, OpLevel::Framework);
        assert!(v.rows.is_empty());
        assert_eq!(v.total_ns, 0);
    }
}
