//! [`Trace::validate`]: the model's invariants, checked. Used by tests, fuzz targets and by the
//! app after it decodes a model sent by the parser worker (a decoded model is untrusted bytes).

use super::*;

/// The first broken invariant found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid model: {0}")]
pub struct InvalidTrace(pub String);

fn bad<T>(msg: String) -> Result<T, InvalidTrace> {
    Err(InvalidTrace(msg))
}

impl Trace {
    /// Check every structural invariant the widgets and the LOD index rely on: ids in range,
    /// column lengths equal, depth ranges well formed, slices at one depth sorted and disjoint,
    /// non-negative durations, domain columns parallel to the slices, operator parents earlier
    /// in the tree (so it has no cycles), flows pointing at real slices, counters sorted, report tables rectangular.
    pub fn validate(&self) -> Result<(), InvalidTrace> {
        let nstr = self.strings.len();
        let s_ok = |id: StrId| (id.0 as usize) < nstr;
        if self.args.lazy.len() != self.args.lazy_ids.len() {
            return bad("lazy argument ranges and their ids differ in length".into());
        }
        if self.args.keys.len() != self.args.values.len() {
            return bad("argument keys and values differ in length".into());
        }
        if self.args.offsets.windows(2).any(|w| w[0] > w[1])
            || self.args.offsets.last().is_some_and(|&o| o as usize != self.args.keys.len())
        {
            return bad("argument offsets are not monotonic or do not end at the entry count".into());
        }
        if !self.args.bases.is_empty() {
            if self.args.bases.len() != self.args.len() {
                return bad("argument bases and sets differ in length".into());
            }
            for (i, &b) in self.args.bases.iter().enumerate() {
                if b != u32::MAX && (b as usize >= i || self.args.bases[b as usize] != u32::MAX) {
                    return bad(format!("argument set {i}: base {b} is not an earlier set without a base"));
                }
            }
        }
        for (gi, g) in self.groups.iter().enumerate() {
            if !s_ok(g.name) {
                return bad(format!("group {gi}: name out of range"));
            }
            for t in &g.tracks {
                if t.idx() >= self.tracks.len() || self.tracks[t.idx()].group.idx() != gi {
                    return bad(format!("group {gi}: track {} missing or in another group", t.0));
                }
            }
            for c in &g.counters {
                if c.idx() >= self.counters.len() {
                    return bad(format!("group {gi}: counter {} out of range", c.0));
                }
            }
        }
        for (ti, t) in self.tracks.iter().enumerate() {
            if t.group.idx() >= self.groups.len() || !s_ok(t.name) || !s_ok(t.source_id) {
                return bad(format!("track {ti}: group or name out of range"));
            }
            let c = &t.slices;
            let n = c.start_ns.len();
            if c.dur_ns.len() != n || c.name.len() != n || c.category.len() != n || c.args.len() != n {
                return bad(format!("track {ti}: slice columns differ in length"));
            }
            if n == 0 {
                if c.depth_starts.len() > 1 {
                    return bad(format!("track {ti}: depth ranges without slices"));
                }
            } else if c.depth_starts.first() != Some(&0)
                || c.depth_starts.last().map(|&x| x as usize) != Some(n)
                || c.depth_starts.windows(2).any(|w| w[0] > w[1])
            {
                return bad(format!("track {ti}: depth ranges do not cover the slices"));
            }
            for i in 0..n {
                if c.dur_ns[i] < 0 {
                    return bad(format!("track {ti}: slice {i} has a negative duration"));
                }
                if !s_ok(c.name[i]) || !s_ok(c.category[i]) {
                    return bad(format!("track {ti}: slice {i} name out of range"));
                }
                if c.args[i] != ArgsId::NONE && !self.args.contains(c.args[i]) {
                    return bad(format!("track {ti}: slice {i} arguments out of range"));
                }
            }
            for d in 0..c.depth_count() {
                let r = c.depth_range(d);
                for i in r.start + 1..r.end {
                    if c.start_ns[i] < c.start_ns[i - 1] {
                        return bad(format!("track {ti} depth {d}: slices not sorted by start at {i}"));
                    }
                    if c.start_ns[i] < c.end_ns(i - 1) {
                        return bad(format!("track {ti} depth {d}: slices {} and {i} overlap", i - 1));
                    }
                }
            }
            if let Some(dc) = &c.domain {
                if dc.opcode.len() != n
                    || dc.operator.len() != n
                    || dc.instruction.len() != n
                    || dc.source.len() != n
                    || dc.bytes.len() != n
                    || dc.start_sub_ps.len() != n
                    || dc.dur_sub_ps.len() != n
                    || dc.flops.len() != n
                    || dc.transpose.len() != n
                {
                    return bad(format!("track {ti}: domain columns differ in length from the slices"));
                }
                for i in 0..n {
                    if !s_ok(dc.opcode[i]) {
                        return bad(format!("track {ti}: slice {i} opcode out of range"));
                    }
                    if !dc.operator[i].is_none() && dc.operator[i].idx() >= self.operators.len() {
                        return bad(format!("track {ti}: slice {i} operator out of range"));
                    }
                    if !dc.source[i].is_none() && dc.source[i].idx() >= self.sources.len() {
                        return bad(format!("track {ti}: slice {i} source out of range"));
                    }
                    if dc.start_sub_ps[i] > 999 || dc.dur_sub_ps[i] > 999 {
                        return bad(format!("track {ti}: slice {i} sub-ns picoseconds above 999"));
                    }
                }
            }
            let ins = &t.instants;
            let m = ins.ts_ns.len();
            if ins.name.len() != m || ins.category.len() != m || ins.args.len() != m {
                return bad(format!("track {ti}: instant columns differ in length"));
            }
            if ins.ts_ns.windows(2).any(|w| w[0] > w[1]) {
                return bad(format!("track {ti}: instants not sorted"));
            }
            if ins.name.iter().chain(&ins.category).any(|&s| !s_ok(s)) {
                return bad(format!("track {ti}: instant name out of range"));
            }
        }
        for (i, node) in self.operators.nodes.iter().enumerate() {
            if !s_ok(node.name) || (!node.parent.is_none() && node.parent.idx() >= i) {
                return bad(format!("operator {i}: name out of range or parent not earlier in the tree"));
            }
        }
        for (i, s) in self.sources.iter().enumerate() {
            if !s_ok(s.file) {
                return bad(format!("source {i}: file name out of range"));
            }
        }
        for (ci, c) in self.counters.iter().enumerate() {
            if c.ts_ns.len() != c.value.len() || c.ts_ns.windows(2).any(|w| w[0] > w[1]) {
                return bad(format!("counter {ci}: columns differ in length or are not sorted"));
            }
            if c.group.idx() >= self.groups.len() || !s_ok(c.name) || !s_ok(c.unit) {
                return bad(format!("counter {ci}: group or name out of range"));
            }
        }
        let slice_ok =
            |r: SliceRef| self.tracks.get(r.track.idx()).is_some_and(|t| (r.index as usize) < t.slices.len());
        for (fi, f) in self.flows.iter().enumerate() {
            if !slice_ok(f.from) || !slice_ok(f.to) || !s_ok(f.name) || !s_ok(f.category) {
                return bad(format!("flow {fi}: end or name out of range"));
            }
        }
        for (ti, t) in self.tables.iter().enumerate() {
            if let Some(ri) = t.rows.iter().position(|r| r.len() != t.columns.len()) {
                return bad(format!("table {ti}: row {ri} does not have one cell per column"));
            }
        }
        if self.start_ns > self.end_ns {
            return bad("start after end".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trace {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Device);
        let t = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_role(t, TrackRole::Engine(Engine::Tensor));
        let op = b.add_operator(OpId::NONE, OpLevel::Framework, "matmul");
        let hlo = b.add_operator(op, OpLevel::Hlo, "dot.1");
        let src = b.add_source("model.py", 12);
        let n = b.intern("MATMULT");
        let e = StrId::EMPTY;
        let h = b.add_slice(t, 10, 5, n, e, ArgsId::NONE);
        b.add_slice(t, 0, 5, n, e, ArgsId::NONE);
        b.set_slice_domain(
            h,
            SliceDomain { opcode: n, operator: hlo, instruction: 7, source: src, ..Default::default() },
        );
        b.finish()
    }

    #[test]
    fn built_trace_is_valid_and_domain_follows_the_sort() {
        let t = sample();
        t.validate().unwrap();
        let c = &t.tracks[0].slices;
        // inserted second but sorted first: no domain
        assert_eq!(c.start_ns, vec![0, 10]);
        let d0 = c.domain_of(0);
        let d1 = c.domain_of(1);
        assert!(d0.operator.is_none() && d0.instruction == u32::MAX);
        assert_eq!(d1.instruction, 7);
        assert_eq!(t.str(t.operators.node(d1.operator).unwrap().name), "dot.1");
        assert_eq!(t.operators.path(d1.operator).len(), 2);
        assert_eq!(t.str(t.sources[d1.source.idx()].file), "model.py");
        assert_eq!(t.tracks[0].role.engine(), Some(Engine::Tensor));
    }

    #[test]
    fn broken_invariants_are_reported() {
        let mut t = sample();
        t.tracks[0].slices.dur_ns[0] = 50; // now overlaps the next slice at depth 0
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.domain.as_mut().unwrap().operator[1] = OpId(99);
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.name.pop();
        assert!(t.validate().is_err());
        let mut t = sample();
        t.operators.nodes[0].parent = OpId(1);
        assert!(t.validate().is_err());
    }

    #[test]
    fn operators_and_sources_are_interned() {
        let mut b = TraceBuilder::new("test");
        let a = b.add_operator(OpId::NONE, OpLevel::Framework, "x");
        assert_eq!(a, b.add_operator(OpId::NONE, OpLevel::Framework, "x"));
        assert_ne!(a, b.add_operator(OpId::NONE, OpLevel::Hlo, "x"));
        assert_eq!(b.add_source("f", 1), b.add_source("f", 1));
        assert_ne!(b.add_source("f", 1), b.add_source("f", 2));
    }

    #[test]
    fn based_argument_sets_read_as_their_base_overridden() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Device);
        let t = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        let [pc, crc, name, extra] = ["pc", "crc", "name", "extra"].map(|k| b.intern(k));
        let v = b.intern("matmul");
        let plain = b.add_args([(pc, ArgValue::UInt(1))]);
        let base = b.add_args([(pc, ArgValue::UInt(3)), (crc, ArgValue::UInt(0)), (name, ArgValue::Str(v))]);
        // equal to the base: no set stored, the base itself
        assert_eq!(b.add_args_over(base, &[(crc, ArgValue::UInt(0))]), base);
        assert_eq!(b.add_args_over(base, &[]), base);
        let over = b.add_args_over(base, &[(crc, ArgValue::UInt(9)), (extra, ArgValue::Bool(true))]);
        assert_ne!(over, base);
        // a based set as a base: stored merged, without a base of its own
        let twice = b.add_args_over(over, &[(pc, ArgValue::UInt(4))]);
        for (i, a) in [plain, base, over, twice].into_iter().enumerate() {
            b.add_slice(t, 10 * i as i64, 5, v, StrId::EMPTY, a);
        }
        let tr = b.finish();
        tr.validate().unwrap();
        let get = |a: ArgsId| tr.args.get(a).collect::<Vec<_>>();
        assert_eq!(get(plain), vec![(pc, ArgValue::UInt(1))]);
        // the base's order, its values overridden, then the set's own new keys
        assert_eq!(
            get(over),
            vec![
                (pc, ArgValue::UInt(3)),
                (crc, ArgValue::UInt(9)),
                (name, ArgValue::Str(v)),
                (extra, ArgValue::Bool(true))
            ]
        );
        assert_eq!(tr.args.base_of(over), base);
        assert_eq!(tr.args.base_of(twice), ArgsId::NONE);
        assert_eq!(get(twice)[0], (pc, ArgValue::UInt(4)));
        assert_eq!(get(twice)[1..], get(over)[1..]);
        // the wire keeps the bases
        let back = crate::model::wire::decode(&crate::model::wire::encode(tr.clone()).unwrap()).unwrap();
        assert_eq!(back.args.bases, tr.args.bases);
        assert_eq!(back.args.get(over).collect::<Vec<_>>(), get(over));
        // a base that is later, or based itself, is refused
        let mut bad = tr.clone();
        bad.args.bases[1] = 2;
        assert!(bad.validate().is_err());
        let mut bad = tr.clone();
        bad.args.bases[2] = 2;
        assert!(bad.validate().is_err());
        let mut bad = tr;
        bad.args.bases.pop();
        assert!(bad.validate().is_err());
    }
}
