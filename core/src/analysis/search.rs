//! Event search: a small query language over the model, run in bounded chunks so a page can
//! search 10 M events without freezing.
//!
//! ```text
//! matmul                 name contains "matmul" (case-insensitive)
//! opcode:MATMULT         a named field equals a value (case-insensitive): name, opcode, engine,
//!                        operator (any level of the operator path), layer, hlo, track, group,
//!                        category (cat), source (file or file:line, by path suffix), or any arg key
//! "two words"            quoted text, as a word or a value (field:"a b")
//! dur>10us  dur<=1ms     numeric filters on dur, start (relative to the trace start), end, bytes
//!                        with units ns, us/µs, ms, s (times) and B, KB/KiB, MB/MiB, GB/GiB (bytes)
//! -word  -field:value    negation
//! ```
//! Terms combine with AND. Fields are typed columns first ([`crate::model::domain`]); only
//! unknown field names fall back to argument keys.

use crate::model::{ArgValue, OpLevel, SliceRef, Trace, TrackId};
use crate::strings::StrId;

/// A numeric comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

impl Cmp {
    fn test(self, a: i128, b: i128) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumField {
    Dur,
    Start,
    End,
    Bytes,
}

/// A field that `field:value` can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Name,
    Opcode,
    Engine,
    Operator,
    Layer,
    Hlo,
    Track,
    Group,
    Category,
    Source,
    /// Any other key: an argument.
    Arg(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// Name contains (lower-cased needle).
    Word(String),
    Is(Field, String),
    Num(NumField, Cmp, i128),
    Not(Box<Term>),
}

/// A parsed query: terms combined with AND.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Query {
    pub terms: Vec<Term>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("unclosed quote")]
    UnclosedQuote,
    #[error("'{0}' is not a number with a unit (e.g. 10us, 2ms, 4KiB)")]
    BadNumber(String),
    #[error("'{0}:' needs a value")]
    EmptyValue(String),
}

fn tokens(s: &str) -> Result<Vec<String>, QueryError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if quoted {
        return Err(QueryError::UnclosedQuote);
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

fn parse_number(field: NumField, text: &str) -> Result<i128, QueryError> {
    let t = text.trim();
    let split =
        t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| QueryError::BadNumber(text.to_string()))?;
    let unit = unit.trim().to_ascii_lowercase();
    let scale: f64 = match field {
        NumField::Bytes => match unit.as_str() {
            "" | "b" => 1.0,
            "kb" => 1e3,
            "kib" | "k" => 1024.0,
            "mb" => 1e6,
            "mib" | "m" => 1048576.0,
            "gb" => 1e9,
            "gib" | "g" => 1073741824.0,
            _ => return Err(QueryError::BadNumber(text.to_string())),
        },
        _ => match unit.as_str() {
            "" | "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => return Err(QueryError::BadNumber(text.to_string())),
        },
    };
    let x = v * scale;
    if !x.is_finite() || x.abs() > 1e30 {
        return Err(QueryError::BadNumber(text.to_string()));
    }
    Ok(x.round() as i128)
}

fn field_of(key: &str) -> Field {
    match key.to_ascii_lowercase().as_str() {
        "name" => Field::Name,
        "opcode" | "op" => Field::Opcode,
        "engine" => Field::Engine,
        "operator" | "framework" => Field::Operator,
        "layer" => Field::Layer,
        "hlo" => Field::Hlo,
        "track" => Field::Track,
        "group" | "process" | "device" => Field::Group,
        "category" | "cat" => Field::Category,
        "source" | "src" => Field::Source,
        _ => Field::Arg(key.to_string()),
    }
}

impl Query {
    pub fn parse(s: &str) -> Result<Query, QueryError> {
        let mut terms = Vec::new();
        for tok in tokens(s)? {
            let (neg, body) = match tok.strip_prefix('-') {
                Some(rest) if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit()) => {
                    (true, rest)
                }
                _ => (false, tok.as_str()),
            };
            let term = Self::term(body)?;
            terms.push(if neg { Term::Not(Box::new(term)) } else { term });
        }
        Ok(Query { terms })
    }

    fn term(body: &str) -> Result<Term, QueryError> {
        for (field_name, nf) in [
            ("dur", NumField::Dur),
            ("start", NumField::Start),
            ("end", NumField::End),
            ("bytes", NumField::Bytes),
        ] {
            if let Some(rest) = body.strip_prefix(field_name) {
                let ops = [(">=", Cmp::Ge), ("<=", Cmp::Le), (">", Cmp::Gt), ("<", Cmp::Lt), ("=", Cmp::Eq)];
                if let Some((op, cmp)) = ops.iter().find(|(op, _)| rest.starts_with(op)) {
                    return Ok(Term::Num(nf, *cmp, parse_number(nf, &rest[op.len()..])?));
                }
            }
        }
        if let Some((k, v)) = body.split_once(':') {
            if !k.is_empty() {
                if v.is_empty() {
                    return Err(QueryError::EmptyValue(k.to_string()));
                }
                return Ok(Term::Is(field_of(k), v.to_string()));
            }
        }
        Ok(Term::Word(body.to_lowercase()))
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// Per-string precomputed answers, so matching an event is array lookups, not string work.
struct Compiled {
    /// Per term: for string-valued terms, which string ids satisfy it (by StrId index).
    str_sets: Vec<Option<Vec<bool>>>,
    /// Per term on Operator/Layer/Hlo: which operator nodes satisfy it (self or any ancestor).
    op_sets: Vec<Option<Vec<bool>>>,
    /// Per term on Source: which source ids satisfy it.
    src_sets: Vec<Option<Vec<bool>>>,
    /// Per term on Arg: the key's string id (None = key absent in the trace: never matches).
    arg_keys: Vec<Option<StrId>>,
    /// Per term on Track/Group/Engine: which tracks satisfy it.
    track_sets: Vec<Option<Vec<bool>>>,
}

fn eq_ci(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl Compiled {
    fn new(trace: &Trace, q: &Query) -> Compiled {
        let n = q.terms.len();
        let mut c = Compiled {
            str_sets: vec![None; n],
            op_sets: vec![None; n],
            src_sets: vec![None; n],
            arg_keys: vec![None; n],
            track_sets: vec![None; n],
        };
        for (k, t) in q.terms.iter().enumerate() {
            let t = match t {
                Term::Not(inner) => inner.as_ref(),
                t => t,
            };
            c.compile(trace, k, t);
        }
        c
    }

    fn strings_where(trace: &Trace, f: impl Fn(&str) -> bool) -> Vec<bool> {
        (0..trace.strings.len()).map(|i| f(trace.strings.get(StrId(i as u32)))).collect()
    }

    fn compile(&mut self, trace: &Trace, k: usize, t: &Term) {
        match t {
            Term::Word(w) => {
                self.str_sets[k] = Some(Self::strings_where(trace, |s| contains_ci(s, w)));
            }
            Term::Is(Field::Name | Field::Opcode | Field::Category, v) => {
                self.str_sets[k] = Some(Self::strings_where(trace, |s| eq_ci(s, v)));
            }
            Term::Is(f @ (Field::Operator | Field::Layer | Field::Hlo), v) => {
                let level = match f {
                    Field::Layer => Some(OpLevel::Layer),
                    Field::Hlo => Some(OpLevel::Hlo),
                    _ => None,
                };
                let nodes = &trace.operators.nodes;
                let mut m = vec![false; nodes.len()];
                for i in 0..nodes.len() {
                    let n = &nodes[i];
                    let hit = level.is_none_or(|l| n.level == l) && eq_ci(trace.str(n.name), v);
                    // parents come first in the tree, so a parent's answer is already known
                    m[i] =
                        hit || (!n.parent.is_none() && m.get(n.parent.0 as usize).copied().unwrap_or(false));
                }
                self.op_sets[k] = Some(m);
            }
            Term::Is(Field::Source, v) => {
                let (file, line) = match v.rsplit_once(':') {
                    Some((f, l)) if l.parse::<u32>().is_ok() => (f, l.parse::<u32>().ok()),
                    _ => (v.as_str(), None),
                };
                let m = trace
                    .sources
                    .iter()
                    .map(|s| {
                        let path = trace.str(s.file);
                        (path.eq_ignore_ascii_case(file) || path.ends_with(&format!("/{file}")))
                            && line.is_none_or(|l| l == s.line)
                    })
                    .collect();
                self.src_sets[k] = Some(m);
            }
            Term::Is(f @ (Field::Track | Field::Group | Field::Engine), v) => {
                let m = trace
                    .tracks
                    .iter()
                    .map(|tr| match f {
                        Field::Track => eq_ci(trace.str(tr.name), v),
                        Field::Group => {
                            trace.groups.get(tr.group.0 as usize).is_some_and(|g| eq_ci(trace.str(g.name), v))
                        }
                        _ => tr.role.engine().is_some_and(|e| eq_ci(e.name(), v)),
                    })
                    .collect();
                self.track_sets[k] = Some(m);
            }
            Term::Is(Field::Arg(key), v) => {
                let id = (0..trace.strings.len() as u32).map(StrId).find(|&s| trace.str(s) == key.as_str());
                self.arg_keys[k] = id;
                self.str_sets[k] = Some(Self::strings_where(trace, |s| eq_ci(s, v)));
            }
            Term::Num(..) | Term::Not(_) => {}
        }
    }
}

/// ASCII-case-insensitive substring test without allocating (`needle` is lower-case).
fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return false;
    }
    if !needle.is_ascii() {
        return hay.to_lowercase().contains(needle);
    }
    h.windows(n.len()).any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

/// A search in progress: call [`Search::step`] until it returns true, then read the hits.
pub struct Search {
    query: Query,
    compiled: Compiled,
    /// Next (track, slice) to look at.
    track: usize,
    index: usize,
    /// Hits found so far, per track (sorted by slice index within a track).
    per_track: Vec<Vec<u32>>,
    count: usize,
    scanned: u64,
    total: u64,
    done: bool,
    /// Per term on a slice's name or category: its string set read through the current track's
    /// [`IdColumn`](crate::model::IdColumn) table (`local[k][code]`), so that a narrowed column is
    /// tested with one load a slice; `None` for other terms and wide columns.
    local: Vec<Option<Vec<bool>>>,
    local_track: usize,
}

impl Search {
    pub fn new(trace: &Trace, query: Query) -> Search {
        let compiled = Compiled::new(trace, &query);
        Search {
            compiled,
            track: 0,
            index: 0,
            per_track: vec![Vec::new(); trace.tracks.len()],
            count: 0,
            scanned: 0,
            total: trace.slice_count() as u64,
            done: query.is_empty(),
            local: Vec::new(),
            local_track: usize::MAX,
            query,
        }
    }

    /// [`Search::local`] for track `t`.
    fn localise(&mut self, t: &crate::model::Track) {
        let sets = &self.compiled.str_sets;
        self.local = (self.query.terms.iter().enumerate())
            .map(|(k, term)| {
                let term = match term {
                    Term::Not(inner) => inner,
                    t => t,
                };
                let col = match term {
                    Term::Word(_) | Term::Is(Field::Name, _) => &t.slices.name,
                    Term::Is(Field::Category, _) => &t.slices.category,
                    _ => return None,
                };
                if !col.wide.is_empty() {
                    return None;
                }
                let set = sets.get(k)?.as_ref();
                Some(
                    col.table
                        .iter()
                        .map(|id| set.and_then(|s| s.get(id.0 as usize)).copied().unwrap_or(false))
                        .collect(),
                )
            })
            .collect();
    }

    pub fn query(&self) -> &Query {
        &self.query
    }
    pub fn is_done(&self) -> bool {
        self.done
    }
    /// Slices looked at so far and in all.
    pub fn progress(&self) -> (u64, u64) {
        (self.scanned, self.total)
    }
    pub fn hit_count(&self) -> usize {
        self.count
    }
    /// Hits on one track (slice indices, ascending).
    pub fn track_hits(&self, track: TrackId) -> &[u32] {
        self.per_track.get(track.0 as usize).map_or(&[], |v| v.as_slice())
    }

    /// Examine up to `budget` slices. Returns true when the search is complete.
    pub fn step(&mut self, trace: &Trace, budget: usize) -> bool {
        let mut left = budget.max(1);
        while !self.done && left > 0 {
            let Some(t) = trace.tracks.get(self.track) else {
                self.done = true;
                break;
            };
            if self.local_track != self.track {
                self.localise(t);
                self.local_track = self.track;
            }
            let n = t.slices.len();
            let end = n.min(self.index.saturating_add(left));
            for i in self.index..end {
                if self.matches(trace, TrackId(self.track as u32), i) {
                    self.per_track[self.track].push(i as u32);
                    self.count += 1;
                }
            }
            let did = end - self.index;
            self.scanned += did as u64;
            left -= did.min(left);
            self.index = end;
            if self.index >= n {
                self.track += 1;
                self.index = 0;
            }
        }
        self.done
    }

    /// Run to completion.
    pub fn run(trace: &Trace, query: Query) -> Search {
        let mut s = Search::new(trace, query);
        s.step(trace, usize::MAX);
        s
    }

    fn matches(&self, trace: &Trace, tid: TrackId, i: usize) -> bool {
        self.query.terms.iter().enumerate().all(|(k, t)| match t {
            Term::Not(inner) => !self.term_matches(trace, k, inner, tid, i),
            t => self.term_matches(trace, k, t, tid, i),
        })
    }

    fn term_matches(&self, trace: &Trace, k: usize, t: &Term, tid: TrackId, i: usize) -> bool {
        let tr = trace.track(tid);
        let c = &tr.slices;
        let in_set = |set: &Option<Vec<bool>>, id: usize| {
            set.as_ref().and_then(|s| s.get(id)).copied().unwrap_or(false)
        };
        let local = |col: &crate::model::IdColumn| {
            if self.local_track != tid.idx() {
                return None;
            }
            let l = self.local.get(k)?.as_ref()?;
            let code = match col.narrow.get(i) {
                Some(&c) => usize::from(c),
                None => usize::from(*col.mid.get(i)?),
            };
            Some(l.get(code).copied().unwrap_or(false))
        };
        match t {
            Term::Word(_) | Term::Is(Field::Name, _) => {
                local(&c.name).unwrap_or_else(|| in_set(&self.compiled.str_sets[k], c.name[i].0 as usize))
            }
            Term::Is(Field::Category, _) => local(&c.category)
                .unwrap_or_else(|| in_set(&self.compiled.str_sets[k], c.category[i].0 as usize)),
            Term::Is(Field::Opcode, _) => {
                let d = c.domain_of(i);
                d.opcode != StrId::EMPTY && in_set(&self.compiled.str_sets[k], d.opcode.0 as usize)
            }
            Term::Is(Field::Operator | Field::Layer | Field::Hlo, _) => {
                let op = c.domain_of(i).operator;
                !op.is_none() && in_set(&self.compiled.op_sets[k], op.0 as usize)
            }
            Term::Is(Field::Source, _) => {
                let s = c.domain_of(i).source;
                !s.is_none() && in_set(&self.compiled.src_sets[k], s.0 as usize)
            }
            Term::Is(Field::Track | Field::Group | Field::Engine, _) => {
                in_set(&self.compiled.track_sets[k], tid.0 as usize)
            }
            Term::Is(Field::Arg(_), v) => {
                let Some(key) = self.compiled.arg_keys[k] else { return false };
                trace.args.get(c.args[i]).any(|(ak, av)| {
                    ak == key
                        && match av {
                            ArgValue::Str(s) | ArgValue::Json(s) => {
                                in_set(&self.compiled.str_sets[k], s.0 as usize)
                            }
                            other => eq_ci(&trace.arg_to_string(other), v),
                        }
                })
            }
            Term::Num(f, cmp, x) => {
                let v: Option<i128> = match f {
                    NumField::Dur => Some(c.dur_ns.at(i) as i128),
                    NumField::Start => Some(c.start_ns[i] as i128 - trace.start_ns as i128),
                    NumField::End => Some(c.end_ns(i) as i128 - trace.start_ns as i128),
                    NumField::Bytes => Some(c.domain_of(i).bytes).filter(|&b| b != u64::MAX).map(i128::from),
                };
                v.is_some_and(|v| cmp.test(v, *x))
            }
            Term::Not(inner) => !self.term_matches(trace, k, inner, tid, i),
        }
    }

    /// Hits per track (slice indices, ascending), indexed by track.
    pub fn per_track(&self) -> &[Vec<u32>] {
        &self.per_track
    }

    /// All hits in time order (by start, then track), for paging.
    pub fn hits_by_time(&self, trace: &Trace) -> Vec<SliceRef> {
        let mut v: Vec<(i64, SliceRef)> = Vec::with_capacity(self.count);
        for (t, hits) in self.per_track.iter().enumerate() {
            let tr = &trace.tracks[t];
            for &i in hits {
                v.push((tr.slices.start_ns[i as usize], SliceRef { track: TrackId(t as u32), index: i }));
            }
        }
        v.sort_unstable();
        v.into_iter().map(|x| x.1).collect()
    }
}

/// Paging over hits without ordering them all: hits of one (track, depth) are already in time
/// order (slices are depth-major, sorted by start within a depth), so the next / previous hit
/// and a hit's rank are binary searches per (track, depth) segment — O(segments × log n) per
/// page, however many hits there are. Order is (start, track, index).
pub mod paging {
    use super::*;

    type Key = (i64, u32, u32);

    fn segments<'a>(
        trace: &'a Trace,
        per_track: &'a [Vec<u32>],
    ) -> impl Iterator<Item = (u32, &'a [u32])> + 'a {
        per_track.iter().enumerate().filter(|(_, h)| !h.is_empty()).flat_map(move |(t, hits)| {
            let c = &trace.tracks[t].slices;
            (0..c.depth_count()).filter_map(move |d| {
                let r = c.depth_range(d);
                let a = hits.partition_point(|&i| (i as usize) < r.start);
                let b = hits.partition_point(|&i| (i as usize) < r.end);
                (a < b).then(|| (t as u32, &hits[a..b]))
            })
        })
    }

    fn key(trace: &Trace, t: u32, i: u32) -> Key {
        (trace.tracks[t as usize].slices.start_ns[i as usize], t, i)
    }

    fn of(r: SliceRef, trace: &Trace) -> Key {
        key(trace, r.track.0, r.index)
    }

    /// The first hit after `from` (or the first hit at all), wrapping to the first.
    pub fn next(trace: &Trace, per_track: &[Vec<u32>], from: Option<SliceRef>) -> Option<SliceRef> {
        let k = from.map(|r| of(r, trace));
        let mut best: Option<Key> = None;
        let mut first: Option<Key> = None;
        for (t, seg) in segments(trace, per_track) {
            let f = key(trace, t, seg[0]);
            first = Some(first.map_or(f, |x: Key| x.min(f)));
            if let Some(k) = k {
                let p = seg.partition_point(|&i| key(trace, t, i) <= k);
                if let Some(&i) = seg.get(p) {
                    let c = key(trace, t, i);
                    best = Some(best.map_or(c, |x: Key| x.min(c)));
                }
            }
        }
        let pick = if k.is_some() { best.or(first) } else { first };
        pick.map(|(_, t, i)| SliceRef { track: TrackId(t), index: i })
    }

    /// The last hit before `from` (or the last hit at all), wrapping to the last.
    pub fn prev(trace: &Trace, per_track: &[Vec<u32>], from: Option<SliceRef>) -> Option<SliceRef> {
        let k = from.map(|r| of(r, trace));
        let mut best: Option<Key> = None;
        let mut last: Option<Key> = None;
        for (t, seg) in segments(trace, per_track) {
            let l = key(trace, t, seg[seg.len() - 1]);
            last = Some(last.map_or(l, |x: Key| x.max(l)));
            if let Some(k) = k {
                let p = seg.partition_point(|&i| key(trace, t, i) < k);
                if p > 0 {
                    let c = key(trace, t, seg[p - 1]);
                    best = Some(best.map_or(c, |x: Key| x.max(c)));
                }
            }
        }
        let pick = if k.is_some() { best.or(last) } else { last };
        pick.map(|(_, t, i)| SliceRef { track: TrackId(t), index: i })
    }

    /// How many hits come before `r` in (start, track, index) order.
    pub fn rank(trace: &Trace, per_track: &[Vec<u32>], r: SliceRef) -> usize {
        let k = of(r, trace);
        segments(trace, per_track).map(|(t, seg)| seg.partition_point(|&i| key(trace, t, i) < k)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, Engine, GroupKind, OpId, SliceDomain, TraceBuilder, TrackKind, TrackRole};

    fn trace() -> Trace {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let sp = b.add_track(g, "Sync", TrackKind::Stream, "4");
        b.set_track_role(sp, TrackRole::Engine(Engine::Sync));
        let layer = b.add_operator(OpId::NONE, OpLevel::Layer, "encoder");
        let op = b.add_operator(layer, OpLevel::Framework, "aten::linear");
        let hlo = b.add_operator(op, OpLevel::Hlo, "dot.7");
        let src = b.add_source("/home/u/model/layers.py", 42);
        let mm = b.intern("MATMULT");
        let dr = b.intern("DRAIN");
        let cat = b.intern("instruction");
        let key = b.intern("queue");
        let qv = b.intern("qSync");
        let args = b.add_args([(key, ArgValue::Str(qv))]);
        for k in 0..10 {
            let h = b.add_slice(pe, k * 100, 10 + k, mm, cat, ArgsId::NONE);
            b.set_slice_domain(
                h,
                SliceDomain {
                    opcode: mm,
                    operator: hlo,
                    instruction: k as u32,
                    source: src,
                    ..Default::default()
                },
            );
        }
        for k in 0..4 {
            let h = b.add_slice(sp, k * 100 + 50, 20_000, dr, cat, args);
            b.set_slice_domain(h, SliceDomain { opcode: dr, bytes: 4096, ..Default::default() });
        }
        b.finish()
    }

    fn count(t: &Trace, q: &str) -> usize {
        Search::run(t, Query::parse(q).unwrap()).hit_count()
    }

    #[test]
    fn parses_words_fields_numbers_and_quotes() {
        let q = Query::parse(r#"mat opcode:MATMULT dur>10us -track:"Sync engine" bytes>=4KiB"#).unwrap();
        assert_eq!(q.terms[0], Term::Word("mat".into()));
        assert_eq!(q.terms[1], Term::Is(Field::Opcode, "MATMULT".into()));
        assert_eq!(q.terms[2], Term::Num(NumField::Dur, Cmp::Gt, 10_000));
        assert_eq!(q.terms[3], Term::Not(Box::new(Term::Is(Field::Track, "Sync engine".into()))));
        assert_eq!(q.terms[4], Term::Num(NumField::Bytes, Cmp::Ge, 4096));
        assert_eq!(Query::parse("dur>1.5ms").unwrap().terms[0], Term::Num(NumField::Dur, Cmp::Gt, 1_500_000));
        assert!(matches!(Query::parse("dur>10parsecs"), Err(QueryError::BadNumber(_))));
        assert!(matches!(Query::parse("\"open"), Err(QueryError::UnclosedQuote)));
        assert!(matches!(Query::parse("opcode:"), Err(QueryError::EmptyValue(_))));
        assert!(Query::parse("   ").unwrap().is_empty());
    }

    #[test]
    fn matches_typed_fields_and_args() {
        let t = trace();
        assert_eq!(count(&t, "matmul"), 10);
        assert_eq!(count(&t, "MAT"), 10);
        assert_eq!(count(&t, "opcode:drain"), 4);
        assert_eq!(count(&t, "opcode:DRAIN engine:Tensor"), 0);
        assert_eq!(count(&t, "engine:Sync"), 4);
        assert_eq!(count(&t, "track:Tensor"), 10);
        assert_eq!(count(&t, "group:\"NeuronCore 0\""), 14);
        // operator matches any level of the path; layer/hlo only their level
        assert_eq!(count(&t, "operator:aten::linear"), 10);
        assert_eq!(count(&t, "operator:encoder"), 10);
        assert_eq!(count(&t, "layer:encoder"), 10);
        assert_eq!(count(&t, "layer:aten::linear"), 0);
        assert_eq!(count(&t, "hlo:dot.7"), 10);
        assert_eq!(count(&t, "source:layers.py:42"), 10);
        assert_eq!(count(&t, "source:model/layers.py"), 10);
        assert_eq!(count(&t, "source:ayers.py"), 0, "path suffix at a separator");
        assert_eq!(count(&t, "queue:qSync"), 4);
        assert_eq!(count(&t, "nosuchkey:x"), 0);
        // numbers: durations 10..19 ns on Tensor, 20 µs on Sync
        assert_eq!(count(&t, "dur>=15"), 5 + 4);
        assert_eq!(count(&t, "dur>10us"), 4);
        assert_eq!(count(&t, "matmul dur<12ns"), 2);
        assert_eq!(count(&t, "bytes=4KiB"), 4);
        assert_eq!(count(&t, "start<100"), 2);
        assert_eq!(count(&t, "-matmul"), 4);
        assert_eq!(count(&t, "cat:instruction"), 14);
    }

    #[test]
    fn chunked_search_equals_one_pass_and_pages_by_time() {
        let t = trace();
        let q = Query::parse("dur>0").unwrap();
        let full = Search::run(&t, q.clone());
        let mut s = Search::new(&t, q);
        let mut steps = 0;
        while !s.step(&t, 3) {
            steps += 1;
        }
        assert!(steps >= 4);
        assert_eq!(s.hit_count(), full.hit_count());
        assert_eq!(s.hits_by_time(&t), full.hits_by_time(&t));
        let starts: Vec<i64> =
            s.hits_by_time(&t).iter().map(|r| t.track(r.track).slices.start_ns[r.index as usize]).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(s.progress(), (14, 14));
    }

    #[test]
    fn paging_agrees_with_the_sorted_hit_list() {
        let t = trace();
        for q in ["dur>0", "opcode:DRAIN", "dur>=15", "matmul start>300"] {
            let s = Search::run(&t, Query::parse(q).unwrap());
            let sorted = s.hits_by_time(&t);
            let pt = s.per_track();
            assert_eq!(paging::next(&t, pt, None), sorted.first().copied(), "{q}");
            assert_eq!(paging::prev(&t, pt, None), sorted.last().copied(), "{q}");
            for (k, &r) in sorted.iter().enumerate() {
                assert_eq!(paging::rank(&t, pt, r), k, "{q}");
                let want_next = sorted.get(k + 1).or(sorted.first()).copied();
                assert_eq!(paging::next(&t, pt, Some(r)), want_next, "{q} next of {k}");
                let want_prev = if k == 0 { sorted.last() } else { sorted.get(k - 1) }.copied();
                assert_eq!(paging::prev(&t, pt, Some(r)), want_prev, "{q} prev of {k}");
            }
        }
    }

    #[test]
    fn empty_query_matches_nothing_and_is_done() {
        let t = trace();
        let s = Search::new(&t, Query::parse("").unwrap());
        assert!(s.is_done());
        assert_eq!(s.hit_count(), 0);
    }
}
