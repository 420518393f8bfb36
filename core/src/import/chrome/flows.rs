//! The flow collector of the Chrome importer: flow events (v1 `s`/`t`/`f` and v2 `bind_id`)
//! are collected in file order and chained after the whole file is read, sorted by time per
//! flow id (writers do not emit them in time order).

use super::events::Ev;
use super::keys::IdKey;
use crate::model::WarningKind;
use crate::model::{FlowEnd, TraceBuilder};
use crate::strings::StrId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FlowDir {
    Out,
    Step,
    In,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FlowKey {
    v2: bool,
    cat: StrId,
    name: StrId,
    id: IdKey,
}

struct FlowEv {
    key: FlowKey,
    ts: i64,
    dir: FlowDir,
    seq: u32,
    end: FlowEnd,
    name: StrId,
    cat: StrId,
}

/// The direction of a v2 flow binding (`flow_in` / `flow_out`).
pub fn flow_dir(ev: &Ev<'_>) -> FlowDir {
    match (ev.flow_in, ev.flow_out) {
        (true, true) => FlowDir::Step,
        (true, false) => FlowDir::In,
        // TP records "flow without direction"; treating it as a source keeps the link
        _ => FlowDir::Out,
    }
}

/// Every flow event of the file, in file order, until [`FlowCollector::chain`].
#[derive(Default)]
pub struct FlowCollector {
    flows: Vec<FlowEv>,
}

impl FlowCollector {
    /// A v1 flow event (`s`/`t`/`f`): chained per (category, name, id).
    pub fn push_v1(&mut self, cat: StrId, name: StrId, id: IdKey, ts: i64, dir: FlowDir, end: FlowEnd) {
        let seq = self.flows.len() as u32;
        self.flows.push(FlowEv { key: FlowKey { v2: false, cat, name, id }, ts, dir, seq, end, name, cat });
    }

    /// A v2 binding (`bind_id` on a slice or instant): chained per id alone.
    pub fn push_v2(&mut self, bind: (IdKey, FlowDir), ts: i64, end: FlowEnd, cat: StrId) {
        let seq = self.flows.len() as u32;
        let key = FlowKey { v2: true, cat: StrId::EMPTY, name: StrId::EMPTY, id: bind.0 };
        self.flows.push(FlowEv { key, ts, dir: bind.1, seq, end, name: StrId::EMPTY, cat });
    }

    /// Chain the collected events into builder flows; count the ends without a start.
    /// `is_kineto_flow(b, cat)` tells whether a category is Kineto's launch → kernel flow,
    /// whose lone ends are normal.
    pub fn chain(
        &mut self,
        b: &mut TraceBuilder,
        mut is_kineto_flow: impl FnMut(&TraceBuilder, StrId) -> bool,
    ) {
        let mut flows = std::mem::take(&mut self.flows);
        flows.sort_unstable_by_key(|f| (f.key, f.ts, f.dir, f.seq));
        let mut unmatched = 0u64;
        // chains in flight for one id, oldest first: Chrome reuses flow ids (pointers), and two
        // posts before two runs ("s s f f") pair first-in first-out, like the task queue
        let mut pending: std::collections::VecDeque<FlowEnd> = std::collections::VecDeque::new();
        let mut i = 0;
        while i < flows.len() {
            let mut j = i + 1;
            while j < flows.len() && flows[j].key == flows[i].key {
                j += 1;
            }
            let grp = &mut flows[i..j];
            i = j;
            // a launch recorded a little after its kernel (clock skew): one out, one in
            if grp.len() == 2 && grp[0].dir == FlowDir::In && grp[1].dir == FlowDir::Out {
                grp.swap(0, 1);
            }
            let first = &grp[0];
            // Kineto writes an `f` on the host for every runtime call, with or without a
            // device activity; those lone ends are normal there, not damage
            let kineto_flow = is_kineto_flow(b, first.cat);
            pending.clear();
            let v2 = first.key.v2;
            for f in grp.iter() {
                match f.dir {
                    FlowDir::Out => {
                        if v2 {
                            pending.clear();
                        }
                        pending.push_back(f.end);
                    }
                    FlowDir::Step => match pending.pop_front() {
                        Some(from) => {
                            b.add_flow(from, f.end, f.name, f.cat);
                            pending.push_front(f.end);
                        }
                        None => {
                            unmatched += 1;
                            pending.push_front(f.end);
                        }
                    },
                    FlowDir::In => {
                        // a v2 `flow_in` may fan out from one source; a v1 `f` ends its flow
                        let from = if v2 { pending.front().copied() } else { pending.pop_front() };
                        match from {
                            Some(from) => b.add_flow(from, f.end, f.name, f.cat),
                            None if kineto_flow => {}
                            None => unmatched += 1,
                        }
                    }
                }
            }
        }
        b.warnings.add_n(WarningKind::FlowWithoutStart, unmatched, || {
            "flow step/end event(s) without a preceding start with the same id; dropped".to_string()
        });
    }
}
