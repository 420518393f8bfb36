//! The **operator timeline** of a device profile (what the TensorBoard-Neuron plugin's
//! "operator timeline" showed): per NeuronCore, three tracks — compute, control, data transfer —
//! whose slices are the spans of framework operators (depth 0) with the spans of their HLO
//! operators nested inside (depth 1), derived from the instructions' typed `operator` column.
//!
//! A span is a run of consecutive work (by start time, across the lane's engines or DMA queues)
//! whose operator at that level is the same; work without an operator at that level does not
//! break a run. It starts at its first slice's start and ends at its last slice's end, cut at
//! the start of the next span so that spans never overlap (engines run in parallel; the cut is
//! where the next operator's work begins). The outer level is the framework operator when the
//! profile has them, else the layer; the inner level is the HLO operator.
//!
//! The tracks have [`TrackRole::OperatorSpans`]: analyses that sum device time (the summaries,
//! the operator views) only count engine and DMA tracks, so nothing is counted twice.

use super::TraceBuilder;
use crate::model::{
    ArgsId, Engine, GroupId, Layout, OpId, OpLevel, SliceDomain, SourceId, TrackKind, TrackRole, WorkKind,
};

/// One unit of device work: (start, end, operator, source line).
pub(crate) type Work = (i64, i64, OpId, SourceId);

impl TraceBuilder {
    /// Add the operator timeline tracks to every device group whose work carries operators.
    /// Called once by the import entry point after every importer ran; a no-op otherwise.
    pub fn add_operator_timeline(&mut self) {
        if self.operators.nodes.is_empty() {
            return;
        }
        let has = |l: OpLevel| self.operators.nodes.iter().any(|n| n.level == l);
        let outer_level = if has(OpLevel::Framework) {
            OpLevel::Framework
        } else if has(OpLevel::Layer) {
            OpLevel::Layer
        } else {
            return;
        };
        // ancestor at the outer and inner level of every node, computed once
        let n_ops = self.operators.nodes.len();
        let at = |level: OpLevel| -> Vec<OpId> {
            (0..n_ops).map(|i| self.operators.at_level(OpId(i as u32), level)).collect()
        };
        let outer_of = at(outer_level);
        let inner_of = at(OpLevel::Hlo);
        // (group, lane) → its tracks, in track order; each lane's work is gathered, laid out and
        // dropped in turn, in a vector of the lane's size (not grown by doubling: on a generated
        // 900 MB NTFF the work of every lane at once, grown, was the import's peak)
        let mut lanes: Vec<(GroupId, WorkKind, Vec<usize>, usize)> = Vec::new();
        for (ti, (track, tb)) in self.tracks.iter().enumerate() {
            let lane = match track.role {
                TrackRole::Engine(Engine::Sync) => WorkKind::Control,
                TrackRole::Engine(_) => WorkKind::Compute,
                r if r.is_dma() => WorkKind::DataTransfer,
                _ => continue,
            };
            let n = tb.start_ns.len();
            match lanes.iter_mut().find(|w| w.0 == track.group && w.1 == lane) {
                Some(w) => {
                    w.2.push(ti);
                    w.3 += n;
                }
                None => lanes.push((track.group, lane, vec![ti], n)),
            }
        }
        lanes.sort_by_key(|w| (w.0, w.1 as u8));
        let outer_cat = self.intern(if outer_level == OpLevel::Framework { "framework op" } else { "layer" });
        let inner_cat = self.intern("hlo op");
        for (group, lane, tracks, room) in lanes {
            let mut items: Vec<Work> = Vec::with_capacity(room);
            for ti in tracks {
                let tb = &self.tracks[ti].1;
                for i in 0..tb.start_ns.len() {
                    let (op, source) = tb.domain.operator_source(i);
                    if op.get().is_some() && op.idx() < n_ops {
                        let s = tb.start_ns[i];
                        items.push((s, s.saturating_add(tb.dur_ns[i].max(0)), op, source));
                    }
                }
            }
            if items.is_empty() {
                continue;
            }
            // a stable sort: each track's work is already in start order (a lane's engines and
            // DMA queues are runs of it), so this merges runs; ties keep insertion order
            items.sort_by_key(|w| (w.0, w.1));
            let outer = spans(&items, |op| outer_of[op.idx()]);
            if outer.is_empty() {
                continue;
            }
            let t = self.add_track(
                group,
                &format!("Operators · {}", lane.name()),
                TrackKind::Thread,
                lane.name(),
            );
            self.set_track_role(t, TrackRole::OperatorSpans(lane));
            self.set_track_layout(t, Layout::Nested);
            self.set_track_sort(t, -100 + lane as i64);
            for (s, e, op, members) in outer {
                let name = self.operators.nodes[op.idx()].name;
                let mine = &items[members.0..members.1];
                let source = common_source(mine, |o| outer_of[o.idx()] == op);
                let h = self.add_slice(t, s, e - s, name, outer_cat, ArgsId::NONE);
                self.set_slice_domain(h, SliceDomain { operator: op, source, ..SliceDomain::default() });
                for (is, ie, iop, inner) in spans(mine, |op| inner_of[op.idx()]) {
                    let (is, ie) = (is.max(s), ie.min(e));
                    if ie <= is {
                        continue;
                    }
                    let name = self.operators.nodes[iop.idx()].name;
                    let source = common_source(&mine[inner.0..inner.1], |o| inner_of[o.idx()] == iop);
                    let h = self.add_slice(t, is, ie - is, name, inner_cat, ArgsId::NONE);
                    self.set_slice_domain(h, SliceDomain { operator: iop, source, ..SliceDomain::default() });
                }
            }
        }
    }
}

/// The source line every item of a span shares (`mine` says which items belong to it), so that
/// a span of one line's work points at that line; `NONE` when they differ or have none.
fn common_source(items: &[Work], mine: impl Fn(OpId) -> bool) -> SourceId {
    let mut found: Option<SourceId> = None;
    for &(_, _, _, src) in items.iter().filter(|w| mine(w.2)) {
        match found {
            None => found = Some(src),
            Some(f) if f != src => return SourceId::NONE,
            Some(_) => {}
        }
    }
    found.unwrap_or(SourceId::NONE)
}

/// Runs of `items` (sorted by start) with the same `key` operator (`NONE` neither starts nor
/// breaks a run): (start, end cut at the next run's start, operator, index range in `items`).
pub(crate) fn spans(items: &[Work], key: impl Fn(OpId) -> OpId) -> Vec<(i64, i64, OpId, (usize, usize))> {
    let mut out: Vec<(i64, i64, OpId, (usize, usize))> = Vec::new();
    for (i, &(s, e, op, _)) in items.iter().enumerate() {
        let k = key(op);
        if k.get().is_none() {
            if let Some(last) = out.last_mut() {
                last.3 .1 = i + 1;
            }
            continue;
        }
        match out.last_mut() {
            Some(last) if last.2 == k => {
                last.1 = last.1.max(e);
                last.3 .1 = i + 1;
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.1 = last.1.min(s).max(last.0);
                }
                out.push((s, e, k, (i, i + 1)));
            }
        }
    }
    // drop empty spans a cut left (two runs starting at the same time)
    out.retain(|r| r.1 > r.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GroupKind, Trace};
    use crate::strings::StrId;

    fn names_at(t: &Trace, track: &str, depth: usize) -> Vec<(String, i64, i64)> {
        let tr = t.tracks.iter().find(|tr| t.str(tr.name) == track).expect("track");
        tr.slices
            .depth_range(depth)
            .map(|i| (t.str(tr.slices.name[i]).to_string(), tr.slices.start_ns[i], tr.slices.end_ns(i)))
            .collect()
    }

    #[test]
    fn framework_and_hlo_spans_per_lane() {
        let mut b = TraceBuilder::new("test");
        let mm = b.add_operator(OpId::NONE, OpLevel::Framework, "matmul");
        let dot = b.add_operator(mm, OpLevel::Hlo, "dot");
        let add = b.add_operator(mm, OpLevel::Hlo, "add");
        let relu = b.add_operator(OpId::NONE, OpLevel::Framework, "relu");
        let max = b.add_operator(relu, OpLevel::Hlo, "max");
        let g = b.add_group("nc0", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let dve = b.add_track(g, "Vector", TrackKind::Stream, "dve");
        b.set_track_role(dve, TrackRole::Engine(Engine::Vector));
        let q = b.add_track(g, "q", TrackKind::Dma, "q");
        b.set_track_role(q, TrackRole::DmaQueue);
        let n = b.intern("i");
        let line7 = b.add_source("model.py", 7);
        let mut put = |b: &mut TraceBuilder, t, s, d, op| {
            let h = b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
            let source = if op == max { line7 } else { SourceId::NONE };
            b.set_slice_domain(h, SliceDomain { operator: op, source, ..SliceDomain::default() });
        };
        put(&mut b, pe, 0, 10, dot);
        put(&mut b, dve, 5, 10, add); // overlaps dot on another engine
        put(&mut b, pe, 12, 3, OpId::NONE); // no operator: does not break the run
        put(&mut b, pe, 20, 10, max);
        put(&mut b, dve, 25, 20, dot); // matmul again after relu: a new span
        put(&mut b, q, 0, 4, dot);
        let _ = &mut put;
        b.add_operator_timeline();
        let t = b.finish();
        assert_eq!(
            names_at(&t, "Operators · compute", 0),
            [("matmul".to_string(), 0, 15), ("relu".to_string(), 20, 25), ("matmul".to_string(), 25, 45)]
        );
        assert_eq!(
            names_at(&t, "Operators · compute", 1),
            [
                ("dot".to_string(), 0, 5),
                ("add".to_string(), 5, 15),
                ("max".to_string(), 20, 25),
                ("dot".to_string(), 25, 45)
            ]
        );
        assert_eq!(names_at(&t, "Operators · data transfer", 0), [("matmul".to_string(), 0, 4)]);
        let tr = t.tracks.iter().find(|tr| t.str(tr.name) == "Operators · compute").expect("track");
        assert_eq!(tr.role, TrackRole::OperatorSpans(WorkKind::Compute));
        // a span whose work all comes from one source line points at it (relu / max: model.py:7)
        let src: Vec<Option<u32>> = (0..tr.slices.len())
            .map(|i| tr.slices.domain_of(i).source.get().map(|s| t.sources[s.idx()].line))
            .collect();
        assert_eq!(src.iter().filter(|s| **s == Some(7)).count(), 2, "{src:?}");
        assert_eq!(src.iter().filter(|s| s.is_none()).count(), src.len() - 2);
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        t.validate().expect("valid");
    }

    #[test]
    fn nothing_without_operators() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let tr = b.add_track(g, "t", TrackKind::Thread, "1");
        let n = b.intern("x");
        b.add_slice(tr, 0, 5, n, StrId::EMPTY, ArgsId::NONE);
        b.add_operator_timeline();
        assert_eq!(b.finish().tracks.len(), 1);
    }
}
