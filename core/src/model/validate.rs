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
    /// non-negative durations, host work classes sorted by category, domain columns parallel to the slices, operator parents earlier
    /// in the tree (so it has no cycles), flows pointing at real slices, counters sorted, report
    /// tables rectangular. [`Validation`] checks the same in bounded steps.
    pub fn validate(&self) -> Result<(), InvalidTrace> {
        let mut v = Validation::default();
        while v.step(self, usize::MAX)? {}
        Ok(())
    }
}

/// [`Trace::validate`] in bounded steps, so a page checking a decoded model of millions of
/// slices can give the browser a turn between them: the argument sets, then each track's slices,
/// a block of at most `budget` sets or slices per step, then the rest in one step.
#[derive(Debug, Default)]
pub struct Validation {
    /// 0: argument store, 1: groups, 2: tracks, 3: the rest, 4: done
    phase: u8,
    /// the next argument set (then the next row set's offset), or the track being checked and
    /// its next slice
    pos: usize,
    rows: bool,
    track: usize,
}

impl Validation {
    /// Check the next piece; `Ok(false)` once the whole model is checked.
    pub fn step(&mut self, t: &Trace, budget: usize) -> Result<bool, InvalidTrace> {
        let budget = budget.max(1);
        match self.phase {
            0 => {
                if self.pos == 0 {
                    t.check_arg_store()?;
                }
                if !self.rows {
                    let end = self.pos + budget.min(t.args.len() - self.pos.min(t.args.len()));
                    t.check_arg_sets(self.pos..end)?;
                    self.pos = end;
                    if end >= t.args.len() {
                        (self.rows, self.pos) = (true, 0);
                    }
                } else {
                    self.pos = t.check_arg_rows(self.pos, budget)?;
                    if self.pos >= t.args.rows.len() {
                        (self.phase, self.pos) = (1, 0);
                    }
                }
            }
            1 => {
                t.check_groups()?;
                self.phase = 2;
            }
            2 => {
                let Some(track) = t.tracks.get(self.track) else {
                    self.phase = 3;
                    return Ok(true);
                };
                let n = track.slices.start_ns.len();
                if self.pos == 0 {
                    t.check_track(self.track)?;
                }
                let end = self.pos + budget.min(n - self.pos);
                t.check_slices(self.track, self.pos..end)?;
                self.pos = end;
                if end >= n {
                    (self.track, self.pos) = (self.track + 1, 0);
                }
            }
            3 => {
                t.check_rest()?;
                self.phase = 4;
            }
            _ => return Ok(false),
        }
        Ok(self.phase < 4)
    }
}

/// The lazy sets' columns (see [`super::LazyStore`]): equal lengths, runs sorted from set 0,
/// stream indexes in the table, and exactly one escaped value per escape marker, sorted by set.
fn check_lazy(l: &super::LazyStore) -> Result<(), InvalidTrace> {
    use super::LazyStore as L;
    let n = l.len();
    if l.len.len() != n || l.stream.len() != n || l.corr.len() != n {
        return bad("lazy argument columns differ in length".into());
    }
    let firsts = l.runs.iter().map(|&r| r >> 32);
    if n > 0 && l.runs.first().is_none_or(|&r| r >> 32 != 0)
        || l.runs.windows(2).any(|w| w[0] >> 32 >= w[1] >> 32)
        || firsts.clone().any(|f| f as usize >= n)
        || l.runs.iter().any(|&r| r & 0xFFFF_FFFF > 0xFFFF)
    {
        return bad("lazy argument runs are not sorted from the first set".into());
    }
    if l.streams.len() > usize::from(L::STREAM_WIDE) {
        return bad("too many lazy stream values".into());
    }
    let escaped = |marks: &mut dyn Iterator<Item = bool>, wide: &[[i64; 2]], what: &str| {
        let sorted = wide.windows(2).all(|w| w[0][0] < w[1][0]);
        let mut k = 0usize;
        for (i, m) in marks.enumerate() {
            if m {
                if wide.get(k).is_none_or(|e| e[0] != i as i64) {
                    return bad(format!("lazy set {i}: its {what} is not in the escaped values"));
                }
                k += 1;
            }
        }
        if !sorted || k != wide.len() {
            return bad(format!("lazy {what} escapes do not match their markers"));
        }
        Ok(())
    };
    if let Some(i) = l.stream.iter().position(|&s| s < L::STREAM_WIDE && usize::from(s) >= l.streams.len()) {
        return bad(format!("lazy set {i}: stream index out of the table"));
    }
    escaped(&mut l.stream.iter().map(|&s| s == L::STREAM_WIDE), &l.stream_wide, "stream")?;
    escaped(&mut l.corr.iter().map(|&c| c == L::CORR_WIDE), &l.corr_wide, "correlation")?;
    Ok(())
}

impl Trace {
    /// The argument store's column lengths and offsets.
    fn check_arg_store(&self) -> Result<(), InvalidTrace> {
        check_lazy(&self.args.lazy)?;
        if self.args.keys.len() != self.args.tags.len() || self.args.keys.len() != self.args.vals.len() {
            return bad("argument keys and values differ in length".into());
        }
        if self.args.offsets.windows(2).any(|w| w[0] > w[1])
            || self.args.offsets.last().is_some_and(|&o| o as usize != self.args.keys.len())
        {
            return bad("argument offsets are not monotonic or do not end at the entry count".into());
        }
        if !self.args.bases.is_empty() && self.args.bases.len() != self.args.len() {
            return bad("argument bases and sets differ in length".into());
        }
        if self.args.len() > ArgsId::ROW_BIT as usize || self.args.rows.len() >= ArgsId::ROW_BIT as usize {
            return bad("too many argument sets or rows".into());
        }
        let a = &self.args;
        let forms_ok = if a.form_base.is_empty() {
            a.form_off.is_empty() && a.form_keys.is_empty()
        } else {
            a.form_off.len() == a.form_base.len() + 1
                && a.form_off[0] == 0
                && a.form_off.windows(2).all(|w| w[0] <= w[1])
                && a.form_off.last().is_some_and(|&o| o as usize == a.form_keys.len())
        };
        if !forms_ok || a.form_keys.len() != a.form_tags.len() {
            return bad("argument row forms: offsets, keys and tags do not match".into());
        }
        for (f, &b) in a.form_base.iter().enumerate() {
            if b as usize >= a.len() || a.base_of(ArgsId(b)) != ArgsId::NONE {
                return bad(format!("argument row form {f}: base {b} is not a set without a base"));
            }
        }
        if let Some(f) = a.form_tags.iter().position(|&t| !ArgStore::row_tag(t)) {
            return bad(format!("argument row form key {f}: tag {} is not a 32-bit one", a.form_tags[f]));
        }
        Ok(())
    }

    /// The row sets from offset `at`, at most `budget` of them: each a known form whose values
    /// fit. The offset after the last one checked.
    fn check_arg_rows(&self, mut at: usize, budget: usize) -> Result<usize, InvalidTrace> {
        let a = &self.args;
        for _ in 0..budget {
            let Some(&f) = a.rows.get(at) else { break };
            let end = at + 1 + a.form_keys_range(f as usize).len();
            if f as usize >= a.form_count() || end > a.rows.len() {
                return bad(format!("argument row at {at}: form {f} unknown or its values cut short"));
            }
            at = end;
        }
        Ok(at)
    }

    /// The bases of argument sets `r`.
    fn check_arg_sets(&self, r: std::ops::Range<usize>) -> Result<(), InvalidTrace> {
        let bases = &self.args.bases;
        if bases.is_empty() {
            return Ok(());
        }
        for i in r {
            let b = bases[i];
            if b != u32::MAX && (b as usize >= i || bases[b as usize] != u32::MAX) {
                return bad(format!("argument set {i}: base {b} is not an earlier set without a base"));
            }
        }
        Ok(())
    }

    fn check_groups(&self) -> Result<(), InvalidTrace> {
        let s_ok = |id: StrId| (id.0 as usize) < self.strings.len();
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
        Ok(())
    }

    /// Track `ti` as a whole: its group and names, column lengths, depth ranges, instants.
    fn check_track(&self, ti: usize) -> Result<(), InvalidTrace> {
        let s_ok = |id: StrId| (id.0 as usize) < self.strings.len();
        let t = &self.tracks[ti];
        if t.group.idx() >= self.groups.len() || !s_ok(t.name) || !s_ok(t.source_id) {
            return bad(format!("track {ti}: group or name out of range"));
        }
        let c = &t.slices;
        let n = c.start_ns.len();
        if c.dur_ns.len() != n || c.name.len() != n || c.category.len() != n || c.args.len() != n {
            return bad(format!("track {ti}: slice columns differ in length"));
        }
        if !c.dur_ns.is_consistent() {
            return bad(format!("track {ti}: a duration marked wide is not in the wide ones"));
        }
        if !c.name.is_consistent() || !c.category.is_consistent() {
            return bad(format!("track {ti}: a name or category index is outside its table"));
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
        if let Some(dc) = &c.domain {
            if !dc.fits(n) {
                return bad(format!("track {ti}: domain columns do not fit the slices"));
            }
            let sh = &dc.shapes;
            for s in 0..sh.len() {
                if !s_ok(sh.opcode[s]) {
                    return bad(format!("track {ti}: domain shape {s}: opcode out of range"));
                }
                if !sh.operator[s].is_none() && sh.operator[s].idx() >= self.operators.len() {
                    return bad(format!("track {ti}: domain shape {s}: operator out of range"));
                }
                if !sh.source[s].is_none() && sh.source[s].idx() >= self.sources.len() {
                    return bad(format!("track {ti}: domain shape {s}: source out of range"));
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
        Ok(())
    }

    /// Slices `r` of track `ti` (after [`Trace::check_track`]): durations, ids, order and overlap
    /// within their depth, domain values.
    fn check_slices(&self, ti: usize, r: std::ops::Range<usize>) -> Result<(), InvalidTrace> {
        let s_ok = |id: StrId| (id.0 as usize) < self.strings.len();
        let c = &self.tracks[ti].slices;
        // the depth of r.start, then the first slice of the next depth as i crosses it
        let mut d = c.depth_starts.partition_point(|&x| x as usize <= r.start).saturating_sub(1);
        let mut depth_first = c.depth_starts.get(d).map_or(0, |&x| x as usize);
        let mut next_depth = c.depth_starts.get(d + 1).map_or(usize::MAX, |&x| x as usize);
        for i in r.clone() {
            while i >= next_depth {
                d += 1;
                depth_first = next_depth;
                next_depth = c.depth_starts.get(d + 1).map_or(usize::MAX, |&x| x as usize);
            }
            if c.dur_ns.at(i) < 0 {
                return bad(format!("track {ti}: slice {i} has a negative duration"));
            }
            if !s_ok(c.name[i]) || !s_ok(c.category[i]) {
                return bad(format!("track {ti}: slice {i} name out of range"));
            }
            if c.args[i] != ArgsId::NONE && !self.args.contains(c.args[i]) {
                return bad(format!("track {ti}: slice {i} arguments out of range"));
            }
            if i > depth_first {
                if c.start_ns[i] < c.start_ns[i - 1] {
                    return bad(format!("track {ti} depth {d}: slices not sorted by start at {i}"));
                }
                if c.start_ns[i] < c.end_ns(i - 1) {
                    return bad(format!("track {ti} depth {d}: slices {} and {i} overlap", i - 1));
                }
            }
        }
        if let Some(dc) = &c.domain {
            let shapes = dc.shapes.len();
            if let Some(s) = dc.shape.get(r.clone()) {
                if let Some(k) = s.iter().position(|&s| s as usize >= shapes) {
                    return bad(format!("track {ti}: slice {} names no domain shape", r.start + k));
                }
            }
            for ps in [&dc.start_sub_ps, &dc.dur_sub_ps] {
                if let Some(k) = ps.get(r.clone()).and_then(|p| p.iter().position(|&p| p > 999)) {
                    return bad(format!("track {ti}: slice {} sub-ns picoseconds above 999", r.start + k));
                }
            }
        }
        Ok(())
    }

    /// Operators, sources, counters, flows, tables and the time range.
    fn check_rest(&self) -> Result<(), InvalidTrace> {
        let s_ok = |id: StrId| (id.0 as usize) < self.strings.len();
        for (i, node) in self.operators.nodes.iter().enumerate() {
            if !s_ok(node.name) || (!node.parent.is_none() && node.parent.idx() >= i) {
                return bad(format!("operator {i}: name out of range or parent not earlier in the tree"));
            }
        }
        if self.host_work.iter().any(|&(c, _)| !s_ok(c))
            || self.host_work.windows(2).any(|w| w[0].0 >= w[1].0)
        {
            return bad("host work classes: a category out of range, or not sorted and unique".into());
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
    fn durations_read_back_exactly_and_damage_is_caught() {
        use crate::model::DurColumn;
        let edge = [0, 1, u32::MAX as i64 - 1, u32::MAX as i64, u32::MAX as i64 + 1, i64::MAX, -1, i64::MIN];
        let v: Vec<i64> = (0..40).map(|i| edge[i % edge.len()]).collect();
        let mut c = DurColumn::from(v.clone());
        assert!(c.is_consistent());
        assert_eq!(c, v);
        assert_eq!(c.iter_range(3..6).collect::<Vec<_>>(), v[3..6].to_vec());
        assert_eq!(c.wide.len(), 25);
        let mut w = v.clone();
        for (i, d) in [(3, 7), (0, i64::MAX), (39, u32::MAX as i64), (5, -5)] {
            c.set(i, d);
            w[i] = d;
            assert!(c.is_consistent());
            assert_eq!(c, w);
        }
        assert_eq!(c.pop(), w.pop());
        assert!(c.is_consistent() && c == w);
        let mut bad = c.clone();
        bad.wide.pop();
        assert!(!bad.is_consistent());
        let mut bad = c.clone();
        bad.narrow[1] = DurColumn::WIDE;
        assert!(!bad.is_consistent());
        let mut bad = c.clone();
        bad.wide.swap(0, 1);
        assert!(!bad.is_consistent());
    }

    #[test]
    fn lazy_sets_read_back_exactly_and_damage_is_caught() {
        use crate::model::{GpuIds, LazyArgs};
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "t", TrackKind::Thread, "0");
        let mut want = Vec::new();
        // streams past the table, correlations past u32 and at the markers, offsets past 4 GiB,
        // two files back and forth
        for i in 0..600i64 {
            let stream = match i % 5 {
                0 => None,
                1 => Some(7),
                2 => Some(i64::MAX - i),
                3 => Some(i64::MIN + i),
                _ => Some(-i),
            };
            let correlation = match i % 7 {
                0 => None,
                1 => Some(u32::MAX as i64),
                2 => Some(u32::MAX as i64 - 1),
                3 => Some(-1),
                4 => Some(i64::MIN),
                5 => Some(1 << 40),
                _ => Some(i * 3),
            };
            let file = (i / 150) as u8 % 2;
            let offset = match i {
                0..=99 => i as u64 * 1000,
                100..=199 => (5 << 32) + i as u64,
                _ => LazyArgs::MAX_OFFSET - 1000 + i as u64,
            };
            let len = (i as usize * 163) % (LazyArgs::MAX_LEN as usize + 1);
            let ids = GpuIds { stream, correlation };
            let a = b.add_lazy_args(file, offset, len, ids);
            assert!(a.is_lazy(), "{i}");
            b.add_slice(t, i * 10, 5, StrId::EMPTY, StrId::EMPTY, a);
            want.push((a, LazyArgs { file, offset, len: len as u32 }, ids));
        }
        assert_eq!(b.add_lazy_args(0, LazyArgs::MAX_OFFSET + 1, 1, GpuIds::default()), ArgsId::NONE);
        assert_eq!(b.add_lazy_args(0, 0, LazyArgs::MAX_LEN as usize + 1, GpuIds::default()), ArgsId::NONE);
        let tr = b.finish();
        tr.validate().unwrap();
        for &(a, r, ids) in &want {
            assert_eq!(tr.args.lazy_ref(a), Some(r));
            assert_eq!(tr.args.gpu_ids(a), Some(ids));
        }
        assert!(!tr.args.lazy.stream_wide.is_empty() && !tr.args.lazy.corr_wide.is_empty());
        let damaged = |f: &dyn Fn(&mut crate::model::LazyStore)| {
            let mut x = tr.clone();
            f(&mut x.args.lazy);
            assert!(x.validate().is_err());
        };
        damaged(&|l| l.corr_wide.pop().map(drop).unwrap_or(()));
        damaged(&|l| l.stream_wide.swap(0, 1));
        damaged(&|l| l.stream[0] = (l.streams.len()) as u8);
        damaged(&|l| l.len.pop().map(drop).unwrap_or(()));
        damaged(&|l| l.runs.reverse());
        damaged(&|l| l.runs[0] |= 1 << 32);
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
        t.tracks[0].slices.dur_ns.set(0, 50); // now overlaps the next slice at depth 0
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.domain.as_mut().unwrap().shapes.operator[0] = OpId(99);
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.domain.as_mut().unwrap().shape[1] = 2;
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.domain.as_mut().unwrap().shape.pop();
        assert!(t.validate().is_err());
        let mut t = sample();
        t.tracks[0].slices.name.pop();
        assert!(t.validate().is_err());
        let mut t = sample();
        t.operators.nodes[0].parent = OpId(1);
        assert!(t.validate().is_err());
    }

    /// The stepped check finds what the one-shot check finds, at any step size, on a track
    /// with several depths (a step starting inside a depth, after an empty one).
    #[test]
    fn stepped_validation_finds_the_same() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "main", TrackKind::Thread, "0");
        let n = b.intern("f");
        for i in 0..40i64 {
            // a parent and two children each: three depths
            b.add_slice(t, i * 100, 90, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(t, i * 100 + 10, 20, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(t, i * 100 + 40, 20, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(t, i * 100 + 41, 5, n, StrId::EMPTY, ArgsId::NONE);
        }
        let good = b.finish();
        assert!(good.tracks[0].slices.depth_count() >= 3);
        let stepped = |t: &Trace, budget: usize| {
            let mut v = Validation::default();
            let mut steps = 0;
            loop {
                match v.step(t, budget) {
                    Ok(true) => steps += 1,
                    Ok(false) => return (Ok(()), steps),
                    Err(e) => return (Err(e), steps),
                }
            }
        };
        assert!(stepped(&good, 1).1 > 160);
        let c = &good.tracks[0].slices;
        let d1 = c.depth_range(1);
        let mut broken = Vec::new();
        // a slice out of order in the middle of depth 1, at the first slice of depth 1 (not
        // compared with the last of depth 0), an overlap, a negative duration, a name
        let mut x = good.clone();
        x.tracks[0].slices.start_ns[d1.start + 5] = 0;
        broken.push(x);
        let mut x = good.clone();
        x.tracks[0].slices.start_ns[d1.start] = 0;
        broken.push(x);
        let mut x = good.clone();
        x.tracks[0].slices.dur_ns.set(d1.start + 2, 5000);
        broken.push(x);
        let mut x = good.clone();
        x.tracks[0].slices.dur_ns.set(7, -1);
        broken.push(x);
        let mut x = good.clone();
        x.tracks[0].slices.name.set(3, StrId(999));
        broken.push(x);
        let mut x = good.clone();
        let c = &mut x.tracks[0].slices.category;
        assert!(!c.narrow.is_empty(), "a track's few categories are narrowed");
        c.narrow[2] = c.table.len() as u8;
        broken.push(x);
        let mut x = good.clone();
        let c = &mut x.tracks[0].slices.category;
        c.mid = vec![0; c.narrow.len()];
        broken.push(x);
        for (k, x) in broken.iter().enumerate() {
            let one = x.validate();
            for budget in [1, 2, 7, 64] {
                assert_eq!(stepped(x, budget).0, one, "case {k}, budget {budget}");
            }
            // the first slice of a depth may start before the last of the depth above
            assert_eq!(one.is_ok(), k == 1, "case {k}: {one:?}");
        }
    }

    /// Every kind of value, at the edges of the 32-bit packing, reads back as it was added,
    /// through the builder, the wire and a based set; a damaged tag or wide index reads as
    /// `Null` / 0 instead of panicking.
    #[test]
    fn packed_argument_values_read_back() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "main", TrackKind::Thread, "0");
        let s = b.intern("text");
        let values = [
            ArgValue::Null,
            ArgValue::Bool(true),
            ArgValue::Bool(false),
            ArgValue::Int(0),
            ArgValue::Int(-1),
            ArgValue::Int(i64::from(i32::MIN)),
            ArgValue::Int(i64::from(i32::MAX) + 1),
            ArgValue::Int(i64::MIN),
            ArgValue::UInt(u64::from(u32::MAX)),
            ArgValue::UInt(u64::from(u32::MAX) + 1),
            ArgValue::UInt(u64::MAX),
            ArgValue::Float(0.1),
            ArgValue::Float(-0.0),
            ArgValue::Float(f64::INFINITY),
            ArgValue::Str(s),
            ArgValue::Json(s),
        ];
        let keys: Vec<StrId> = (0..values.len()).map(|i| b.intern(&format!("k{i}"))).collect();
        let entries: Vec<(StrId, ArgValue)> = keys.iter().copied().zip(values).collect();
        let a = b.add_args(entries.iter().copied());
        let over = b.add_args_over(a, &[(keys[7], ArgValue::Int(7)), (keys[8], values[8])]);
        b.add_slice(t, 0, 5, s, StrId::EMPTY, a);
        b.add_slice(t, 10, 5, s, StrId::EMPTY, over);
        let tr = b.finish();
        tr.validate().unwrap();
        let back = crate::model::wire::decode(&crate::model::wire::encode(tr.clone()).unwrap()).unwrap();
        for m in [&tr, &back] {
            assert_eq!(m.args.get(a).collect::<Vec<_>>(), entries);
            let mut want = entries.clone();
            want[7].1 = ArgValue::Int(7);
            assert_eq!(m.args.get(over).collect::<Vec<_>>(), want);
            // the based set stores only the changed value
            assert_eq!(m.args.own(over).len(), 1);
        }
        // 16 entries + 1 own; wide: i32::MAX+1, i64::MIN, u32::MAX+1, u64::MAX, three floats
        assert_eq!(tr.args.keys.len(), 17);
        assert_eq!(tr.args.wide.len(), 7);
        let mut bad = tr.clone();
        bad.args.tags[1] = 200;
        bad.args.vals[11] = 9999;
        assert_eq!(bad.args.value(1), ArgValue::Null);
        assert_eq!(bad.args.value(11), ArgValue::Float(0.0));
        assert_eq!(bad.args.value(usize::MAX), ArgValue::Null);
        let mut bad = tr;
        bad.args.tags.pop();
        assert!(bad.validate().is_err());
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

    #[test]
    fn row_sets_read_as_based_sets_and_survive_the_wire() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Device);
        let t = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        let [pc, wait, crc, name, extra] = ["pc", "wait", "crc", "name", "extra"].map(|k| b.intern(k));
        let v = b.intern("matmul");
        let base = b.add_args([(pc, ArgValue::UInt(3)), (wait, ArgValue::UInt(0)), (name, ArgValue::Str(v))]);
        let other = b.add_args([(pc, ArgValue::UInt(8))]);
        // keys the base has (wait) and has not (crc, extra)
        let f = b.add_args_form(base, &[wait, crc]).unwrap();
        let f2 = b.add_args_form(other, &[extra]).unwrap();
        let based = b.add_args_over(base, &[(crc, ArgValue::UInt(1))]);
        assert_eq!(b.add_args_form(based, &[crc]), None, "a based set is no form's base");
        assert_eq!(b.add_args_form(ArgsId::NONE, &[crc]), None);
        let r1 = b.add_args_row(f, &[7, u32::MAX]);
        let r2 = b.add_args_row(f2, &[5]);
        let r3 = b.add_args_row(f, &[0, 0]);
        assert_eq!(b.add_args_row(f, &[1]), ArgsId::NONE, "a value per key");
        assert_eq!(b.add_args_row(9, &[1]), ArgsId::NONE, "no such form");
        assert!(r1.is_row() && r2.is_row() && !base.is_row() && !ArgsId::NONE.is_row());
        for (i, a) in [base, r1, r2, r3].into_iter().enumerate() {
            b.add_slice(t, 10 * i as i64, 5, v, StrId::EMPTY, a);
        }
        let tr = b.finish();
        tr.validate().unwrap();
        let back = crate::model::wire::decode(&crate::model::wire::encode(tr.clone()).unwrap()).unwrap();
        let all = |m: &Trace| m.args.ids().collect::<Vec<_>>();
        assert_eq!(all(&tr), vec![base, other, based, r1, r2, r3]);
        for m in [&tr, &back] {
            let get = |a: ArgsId| m.args.get(a).collect::<Vec<_>>();
            // the base's order with the row's values, then the row's keys the base lacks
            let u = ArgValue::UInt;
            assert_eq!(
                get(r1),
                vec![(pc, u(3)), (wait, u(7)), (name, ArgValue::Str(v)), (crc, u(4294967295))]
            );
            assert_eq!(get(r2), vec![(pc, u(8)), (extra, u(5))]);
            assert_eq!(get(r3), vec![(pc, u(3)), (wait, u(0)), (name, ArgValue::Str(v)), (crc, u(0))]);
            assert_eq!(m.args.own_entries(r2).collect::<Vec<_>>(), vec![(extra, u(5))]);
            assert_eq!(m.args.base_of(r1), base);
            assert!(m.args.contains(r3));
            assert_eq!(all(m), all(&tr));
        }
        // 3 words for r1, 2 for r2, 3 for r3
        assert_eq!(tr.args.rows.len(), 8);
        // damage: unknown form, values cut short, a form over a based set, a wide tag, a
        // dangling row id in a slice; none of them panics a reader
        let mut bad = tr.clone();
        bad.args.rows[3] = 7;
        assert!(bad.validate().is_err());
        assert_eq!(bad.args.get(r2).count(), 0);
        let mut bad = tr.clone();
        bad.args.rows.pop();
        assert!(bad.validate().is_err());
        assert_eq!(bad.args.get(r3).count(), 0);
        let mut bad = tr.clone();
        bad.args.form_base[0] = 2;
        assert!(bad.validate().is_err());
        let mut bad = tr.clone();
        bad.args.form_tags[0] = ArgStore::TAG_FLOAT;
        assert!(bad.validate().is_err());
        let mut bad = tr.clone();
        bad.args.form_off.pop();
        assert!(bad.validate().is_err());
        let _ = bad.args.get(r1).count();
        let mut bad = tr;
        bad.tracks[0].slices.args[1] = ArgsId(ArgsId::ROW_BIT | 100);
        assert!(bad.validate().is_err());
    }
}
