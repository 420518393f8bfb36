//! Events → model: one handler per phase (`ph`), per-thread B/E stacks, async trees, flows,
//! counters and the `M` metadata that names processes and threads.
//!
//! Events arrive in file order, which is not time order across threads (Kineto writes device
//! events and flow ends wherever it likes). B/E and b/e are matched in file order per thread /
//! per async id (writers emit those in order); flow events are collected and chained after the
//! whole file is read, sorted by time per flow id.
//!
//! [`Conv`] holds the builder, the dialect and the position of the event being converted, and
//! delegates its state to one part per concern: the raw-string interner ([`RawInterner`]), the
//! argument buffer ([`ArgBuf`]), the process/thread table ([`ThreadTable`]), the async table
//! ([`AsyncTable`]) and the flow collector ([`FlowCollector`]). Each part takes the builder as
//! an argument, so a handler borrows its fields disjointly (`self.strs.intern(self.b, raw)`).

use super::args::{self, ArgBuf};
use super::async_table::{AsyncKey, AsyncTable, OpenAsync};
use super::events::{uses_args, ArgsSink, Ev, Val};
use super::flows::{flow_dir, FlowCollector, FlowDir};
use super::intern::RawInterner;
use super::keys::{Dialect, IdKey, Key};
use super::kineto::{self, CatClass};
use super::scan::{self, RawStr, Scan};
use super::threads::{OpenSlice, ThreadTable};
use crate::model::WarningKind;
use crate::model::{ArgValue, ArgsId, CounterId, FlowEnd, GroupKind, TraceBuilder, TrackId, TrackKind};
use crate::strings::{FxHashMap, StrId};

const CLASS_UNKNOWN: u8 = 0xFF;

/// The [`CatClass`] of each category seen, by `StrId` (classified once per category; the first
/// Kineto or Furiosa category sets the dialect).
#[derive(Default)]
struct CatClasses {
    classes: Vec<u8>,
}

impl CatClasses {
    #[inline]
    fn get(&mut self, b: &TraceBuilder, dialect: &mut Dialect, cat: StrId) -> CatClass {
        let i = cat.0 as usize;
        if i >= self.classes.len() {
            self.classes.resize(i + 1, CLASS_UNKNOWN);
        }
        let c = match self.classes[i] {
            CLASS_UNKNOWN => {
                let c = kineto::classify(b.string(cat));
                self.classes[i] = c as u8;
                match c {
                    CatClass::KinetoHost | CatClass::KinetoDevice | CatClass::KinetoFlow => {
                        dialect.kineto = true
                    }
                    CatClass::FuriosaHost | CatClass::FuriosaDevice => dialect.furiosa = true,
                    CatClass::Plain => {}
                }
                c as u8
            }
            c => c,
        };
        match c {
            1 => CatClass::KinetoHost,
            2 => CatClass::KinetoDevice,
            3 => CatClass::KinetoFlow,
            4 => CatClass::FuriosaHost,
            5 => CatClass::FuriosaDevice,
            _ => CatClass::Plain,
        }
    }
}

/// The converter: one parsed event at a time into builder calls, then [`Conv::finish`].
pub struct Conv<'b> {
    pub b: &'b mut TraceBuilder,
    strs: RawInterner,
    argbuf: ArgBuf,
    threads: ThreadTable,
    asyncs: AsyncTable,
    flows: FlowCollector,
    counters: FxHashMap<(u32, StrId, IdKey, StrId), CounterId>,
    global: Option<TrackId>,
    classes: CatClasses,
    pub dialect: Dialect,
    max_ts: i64,
    /// Byte offset of the event being converted (for warnings).
    pub at: u64,
    /// Absolute offset of the buffer the event was parsed from (for lazy argument ranges).
    pub base: u64,
    /// Keep the args of complete and instant events as byte ranges into this input file
    /// (its index in the load) instead of parsing them; see [`super::lazy`].
    pub lazy_file: Option<u8>,
    pub events: u64,
}

impl<'b> Conv<'b> {
    pub fn new(b: &'b mut TraceBuilder) -> Self {
        Conv {
            b,
            strs: RawInterner::new(),
            argbuf: ArgBuf::default(),
            threads: ThreadTable::default(),
            asyncs: AsyncTable::default(),
            flows: FlowCollector::default(),
            counters: FxHashMap::default(),
            global: None,
            classes: CatClasses::default(),
            dialect: Dialect::default(),
            max_ts: i64::MIN,
            at: 0,
            base: 0,
            lazy_file: None,
            events: 0,
        }
    }

    // ---- strings and values ----

    /// Parse the `args` object at `s.pos` into the argument buffer; `s.pos` ends after its `}`.
    /// Returns false on a syntax error (what was parsed before it is kept in the buffer).
    #[inline]
    pub fn scan_args(&mut self, s: &mut Scan<'_>) -> bool {
        self.argbuf.scan(s, &mut self.strs, self.b)
    }

    /// For an event delimited without the converter (`parse_event(.., None)`): parse its args
    /// now exactly as the serial scan would have at its `args` key (same decision, same
    /// interning order), so both paths build the same model.
    pub fn prescan_args(&mut self, ev: &mut Ev<'_>) {
        if let Some(text) = ev.args {
            if uses_args(ev.args_ph) && !self.lazy_phase(ev.args_ph) {
                ev.args_ready = self.scan_args(&mut Scan { b: text, pos: 0, more: false });
            }
        }
    }

    /// Make the argument buffer hold the event's args (parsed during the scan, or now).
    fn load_args(&mut self, ev: &Ev<'_>) -> bool {
        let Some(t) = ev.args else {
            self.argbuf.clear();
            return false;
        };
        if ev.args_ready {
            return true;
        }
        if args::is_empty_object(t) {
            self.argbuf.clear();
            return true;
        }
        let ok = self.scan_args(&mut Scan::new(t));
        if !ok {
            let at = self.at;
            self.b.warn(WarningKind::BadArgs, || {
                format!(
                    "event at byte {at}: malformed args object; the arguments after the error were dropped"
                )
            });
        }
        ok
    }

    /// Whether events of phase `ph` keep their args lazily (as a byte range of the file).
    #[inline]
    pub fn lazy_phase(&self, ph: u8) -> bool {
        self.lazy_file.is_some() && matches!(ph, b'X' | b'i' | b'I')
    }

    /// The `args` of an event as an argument set.
    #[inline]
    fn args(&mut self, ev: &Ev<'_>) -> ArgsId {
        let Some(text) = ev.args else { return ArgsId::NONE };
        if let (Some(file), true) = (self.lazy_file, self.lazy_phase(ev.ph)) {
            if args::is_empty_object(text) {
                return ArgsId::NONE;
            }
            let ids = ev.ids.unwrap_or_else(|| super::ids::kineto_ids(text));
            let at = self.base + ev.args_at as u64;
            let id = self.b.add_lazy_args(file, at, text.len(), ids);
            if id != ArgsId::NONE {
                return id;
            }
            // too long for a lazy reference: parsed now like any other
        }
        self.load_args(ev);
        self.b.add_args_slice(self.argbuf.items())
    }

    fn key(&mut self, v: Val<'_>) -> Option<Key> {
        match v {
            Val::None => None,
            Val::Int(i) => Some(Key::Int(i)),
            Val::Str(r) => Some(Key::Str(self.strs.intern(self.b, r))),
            Val::Text(t) => Some(Key::Str(self.strs.intern(self.b, RawStr { raw: t, escaped: false }))),
        }
    }

    fn id_key(&mut self, v: Val<'_>) -> IdKey {
        match self.key(v) {
            None => IdKey::None,
            Some(Key::Int(i)) => IdKey::Int(i),
            Some(Key::Str(s)) => IdKey::Str(s),
        }
    }

    fn str_opt(&mut self, r: Option<RawStr<'_>>) -> StrId {
        match r {
            Some(r) => self.strs.intern(self.b, r),
            None => StrId::EMPTY,
        }
    }

    #[inline]
    fn class_of(&mut self, cat: StrId) -> CatClass {
        self.classes.get(self.b, &mut self.dialect, cat)
    }

    // ---- processes, threads, tracks ----

    fn proc(&mut self, pid: Key) -> u32 {
        self.threads.proc(self.b, pid)
    }

    fn pid_tid(&mut self, ev: &Ev<'_>) -> (Key, Key) {
        let pid = self.key(ev.pid).unwrap_or(Key::Int(0));
        let tid = self.key(ev.tid).unwrap_or(pid);
        (pid, tid)
    }

    /// The thread of an event (created on first sight).
    #[inline]
    fn thread(&mut self, ev: &Ev<'_>) -> u32 {
        let (pid, tid) = self.pid_tid(ev);
        self.threads.thread(self.b, pid, tid)
    }

    fn global_track(&mut self) -> TrackId {
        if let Some(t) = self.global {
            return t;
        }
        let g = self.b.add_group("Global", GroupKind::Other);
        self.b.set_group_sort(g, i64::MIN / 2);
        let t = self.b.add_track(g, "Global events", TrackKind::Thread, "global");
        self.global = Some(t);
        t
    }

    // ---- time ----

    #[inline]
    fn ts(&mut self, ev: &Ev<'_>) -> Option<i64> {
        match ev.ts {
            Some(t) => match scan::parse_us(t) {
                Some(v) => Some(v),
                None => {
                    let at = self.at;
                    let text = String::from_utf8_lossy(&t[..t.len().min(40)]).into_owned();
                    self.b.warn(WarningKind::BadTs, || {
                        format!("event at byte {at}: ts {text} is not a number; event skipped")
                    });
                    None
                }
            },
            None => {
                let at = self.at;
                self.b
                    .warn(WarningKind::MissingTs, || format!("event at byte {at} has no ts; event skipped"));
                None
            }
        }
    }

    #[inline]
    fn bump(&mut self, t: i64) {
        if t > self.max_ts {
            self.max_ts = t;
        }
    }

    // ---- phases ----

    /// Convert one parsed event.
    pub fn event(&mut self, ev: &Ev<'_>) {
        self.events += 1;
        match ev.ph {
            b'X' => self.complete(ev),
            b'B' => self.begin(ev),
            b'E' => self.end(ev),
            b'i' | b'I' | b'R' | b'P' => self.instant(ev),
            b'C' => self.counter(ev),
            b'M' => self.metadata(ev),
            b'b' => self.async_begin(ev, false),
            b'e' => self.async_end(ev, false),
            b'n' => self.async_instant(ev, false),
            b'S' => self.async_begin(ev, true),
            b'F' => self.async_end(ev, true),
            b'T' | b'p' => self.async_instant(ev, true),
            b's' | b't' | b'f' => self.flow_v1(ev),
            b'N' | b'O' | b'D' => {
                self.b.warn(WarningKind::ObjectEventsIgnored, || {
                    "object instance events (N/O/D: created/snapshot/destroyed) are not shown".to_string()
                });
            }
            b'v' | b'V' | b'c' | b'(' | b')' => {
                let ph = ev.ph as char;
                self.b.warn(WarningKind::UnsupportedPhase, || {
                    format!("events with ph '{ph}' (memory dumps, clock sync, context) are not shown")
                });
            }
            0 if ev.keys == 0 => {
                self.b.warn(WarningKind::EmptyEvent, || "empty event object {} skipped".to_string())
            }
            0 => {
                let at = self.at;
                self.b.warn(WarningKind::MissingPhase, || format!("event at byte {at} has no ph; skipped"));
            }
            ph => {
                let at = self.at;
                let ph = ph as char;
                self.b.warn(WarningKind::UnknownPhase, || {
                    format!("event at byte {at} has unknown ph '{ph}'; skipped")
                });
            }
        }
    }

    fn complete(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let dur = match ev.dur {
            Some(t) => match scan::parse_us(t) {
                Some(d) => d,
                None => {
                    let at = self.at;
                    self.b.warn(WarningKind::BadDur, || {
                        format!("X event at byte {at}: dur is not a number; taken as 0")
                    });
                    0
                }
            },
            None => {
                let at = self.at;
                self.b
                    .warn(WarningKind::MissingDur, || format!("X event at byte {at} has no dur; taken as 0"));
                0
            }
        };
        let th = self.thread(ev);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let class = self.class_of(cat);
        if class.is_device() {
            self.threads.mark_device(th);
        }
        let args = self.args(ev);
        let track = self.threads.get(th).track;
        let h = self.b.add_slice(track, ts, dur, name, cat, args);
        self.threads.get_mut(th).last = Some((h, ts));
        self.bump(ts.saturating_add(dur.max(0)));
        if !class.is_device() {
            if let Some(n) = ev.name {
                if n.raw.starts_with(b"ProfilerStep") {
                    if let Some(k) = kineto::profiler_step(n.raw) {
                        self.b.add_iteration(k, ts, ts.saturating_add(dur.max(0)));
                    }
                }
            }
        }
        if !ev.bind_id.is_none() {
            let bind = (self.id_key(ev.bind_id), flow_dir(ev));
            self.flows.push_v2(bind, ts, FlowEnd::Slice(h), cat);
        }
    }

    fn begin(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        if self.class_of(cat).is_device() {
            self.threads.mark_device(th);
        }
        let args = self.args(ev);
        let bind = if ev.bind_id.is_none() { None } else { Some((self.id_key(ev.bind_id), flow_dir(ev))) };
        self.bump(ts);
        self.threads.push_open(th, OpenSlice { ts, name, cat, args, bind });
    }

    fn end(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev);
        self.bump(ts);
        let Some(open) = self.threads.pop_open(th) else {
            let at = self.at;
            self.b.warn(WarningKind::UnmatchedEnd, || {
                format!("E event at byte {at} has no open B on its thread; skipped")
            });
            return;
        };
        let extra = self.args(ev);
        let args = args::merge_args(self.b, open.args, extra);
        let track = self.threads.get(th).track;
        self.close_slice(track, open, ts, args);
    }

    fn close_slice(&mut self, track: TrackId, open: OpenSlice, end: i64, args: ArgsId) {
        let dur = end.saturating_sub(open.ts);
        let h = self.b.add_slice(track, open.ts, dur, open.name, open.cat, args);
        let name = self.b.string(open.name);
        if name.starts_with("ProfilerStep") {
            if let Some(k) = kineto::profiler_step(name.as_bytes()) {
                self.b.add_iteration(k, open.ts, end.max(open.ts));
            }
        }
        if let Some(bind) = open.bind {
            self.flows.push_v2(bind, open.ts, FlowEnd::Slice(h), open.cat);
        }
    }

    fn instant(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let args = self.args(ev);
        let scope = if ev.ph == b'i' || ev.ph == b'I' { ev.s } else { b't' };
        let track = match scope {
            b'g' => self.global_track(),
            b'p' => {
                let (pid, _) = self.pid_tid(ev);
                let p = self.proc(pid);
                self.threads.proc_instant_track(self.b, p)
            }
            _ => {
                let th = self.thread(ev);
                if self.class_of(cat).is_device() {
                    self.threads.mark_device(th);
                }
                self.threads.get(th).track
            }
        };
        self.b.add_instant(track, ts, name, cat, args);
        self.bump(ts);
        if !ev.bind_id.is_none() {
            let bind = (self.id_key(ev.bind_id), flow_dir(ev));
            self.flows.push_v2(bind, ts, FlowEnd::Enclosing { track, ts_ns: ts }, cat);
        }
    }

    fn counter(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let name = self.str_opt(ev.name);
        let id = self.id_key(ev.id);
        if ev.args.is_none() {
            return;
        }
        self.load_args(ev);
        self.bump(ts);
        for i in 0..self.argbuf.items().len() {
            let (k, v) = self.argbuf.items()[i];
            let value = match v {
                ArgValue::Int(i) => i as f64,
                ArgValue::UInt(u) => u as f64,
                ArgValue::Float(f) => f,
                ArgValue::Bool(b) => b as u8 as f64,
                ArgValue::Str(s) => match self.b.string(s).trim().parse::<f64>() {
                    Ok(f) => f,
                    Err(_) => {
                        let at = self.at;
                        self.b.warn(WarningKind::CounterNotNumeric, || {
                            format!("counter at byte {at}: a series value is not a number; skipped")
                        });
                        continue;
                    }
                },
                ArgValue::Null | ArgValue::Json(_) => {
                    let at = self.at;
                    self.b.warn(WarningKind::CounterNotNumeric, || {
                        format!("counter at byte {at}: a series value is not a number; skipped")
                    });
                    continue;
                }
            };
            let c = match self.counters.get(&(p, name, id, k)) {
                Some(&c) => c,
                None => {
                    let mut label = self.b.string(name).to_string();
                    match id {
                        IdKey::None => {}
                        IdKey::Int(i) => label.push_str(&format!(" id: {i}")),
                        IdKey::Str(s) => {
                            label.push_str(" id: ");
                            label.push_str(self.b.string(s));
                        }
                    }
                    let key = self.b.string(k);
                    if key != "value" || label.is_empty() {
                        if !label.is_empty() {
                            label.push(' ');
                        }
                        label.push_str(key);
                    }
                    let group = self.threads.group(p);
                    let c = self.b.add_counter(group, &label, "");
                    self.counters.insert((p, name, id, k), c);
                    c
                }
            };
            self.b.add_counter_sample(c, ts, value);
        }
    }

    fn metadata(&mut self, ev: &Ev<'_>) {
        let which = ev.name.map_or(&b""[..], |n| n.raw);
        let field: &[u8] = match which {
            b"process_name" | b"thread_name" => b"name",
            b"process_labels" => b"labels",
            b"process_sort_index" | b"thread_sort_index" => b"sort_index",
            _ => {
                let name = String::from_utf8_lossy(&which[..which.len().min(60)]).into_owned();
                self.b.warn(WarningKind::MetadataIgnored, || format!("metadata event '{name}' is not used"));
                return;
            }
        };
        if ev.args.is_none() {
            return;
        }
        self.load_args(ev);
        let Some(&(_, v)) = self.argbuf.items().iter().find(|(k, _)| self.b.string(*k).as_bytes() == field)
        else {
            return;
        };
        let (pid, tid) = self.pid_tid(ev);
        match which {
            b"process_name" | b"process_labels" | b"thread_name" => {
                let s = match v {
                    ArgValue::Str(s) | ArgValue::Json(s) => s,
                    ArgValue::Null => return,
                    other => {
                        let text = match other {
                            ArgValue::Int(i) => i.to_string(),
                            ArgValue::UInt(u) => u.to_string(),
                            ArgValue::Float(f) => f.to_string(),
                            ArgValue::Bool(b) => b.to_string(),
                            _ => String::new(),
                        };
                        self.b.intern(&text)
                    }
                };
                match which {
                    b"process_name" => self.threads.proc_meta(pid).name = Some(s),
                    b"process_labels" => self.threads.proc_meta(pid).labels = Some(s),
                    _ => self.threads.thread_meta(pid, tid).name = Some(s),
                }
            }
            _ => {
                let sort = match v {
                    ArgValue::Int(i) => Some(i),
                    ArgValue::UInt(u) => Some(u.min(i64::MAX as u64) as i64),
                    ArgValue::Float(f) if f.is_finite() => Some(f as i64),
                    ArgValue::Str(s) => self.b.string(s).trim().parse().ok(),
                    _ => None,
                };
                if which == b"process_sort_index" {
                    self.threads.proc_meta(pid).sort = sort;
                } else {
                    self.threads.thread_meta(pid, tid).sort = sort;
                }
            }
        }
    }

    fn async_key(&mut self, ev: &Ev<'_>, p: u32, cat: StrId, legacy: bool) -> AsyncKey {
        let (id, global) =
            if !ev.id.is_none() { (self.id_key(ev.id), false) } else { (self.id_key(ev.id2), ev.id2_global) };
        let scope = self.str_opt(ev.scope);
        AsyncKey { proc: if global { u32::MAX } else { p }, cat, id, scope, legacy }
    }

    fn async_begin(&mut self, ev: &Ev<'_>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        self.class_of(cat);
        let args = self.args(ev);
        let key = self.async_key(ev, p, cat, legacy);
        let group = self.threads.group(p);
        let track = self.asyncs.track_for(self.b, &key, p, group, name);
        self.bump(ts);
        self.asyncs.open(key, OpenAsync { ts, name, cat, args, track });
    }

    fn async_end(&mut self, ev: &Ev<'_>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let cat = self.str_opt(ev.cat);
        let key = self.async_key(ev, p, cat, legacy);
        self.bump(ts);
        let Some(o) = self.asyncs.close(&key) else {
            let at = self.at;
            let ph = ev.ph as char;
            self.b.warn(WarningKind::UnmatchedAsyncEnd, || {
                format!("'{ph}' event at byte {at} has no open async begin with its category and id; skipped")
            });
            return;
        };
        let extra = self.args(ev);
        let args = args::merge_args(self.b, o.args, extra);
        self.b.add_slice(o.track, o.ts, ts.saturating_sub(o.ts), o.name, o.cat, args);
    }

    fn async_instant(&mut self, ev: &Ev<'_>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let args = self.args(ev);
        let key = self.async_key(ev, p, cat, legacy);
        let group = self.threads.group(p);
        let track = self.asyncs.track_for(self.b, &key, p, group, name);
        self.bump(ts);
        self.b.add_instant(track, ts, name, cat, args);
    }

    fn flow_v1(&mut self, ev: &Ev<'_>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev);
        let track = self.threads.get(th).track;
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let class = self.class_of(cat);
        let id = if !ev.id.is_none() { self.id_key(ev.id) } else { self.id_key(ev.id2) };
        let (dir, mut end) = match ev.ph {
            b's' => (FlowDir::Out, FlowEnd::Enclosing { track, ts_ns: ts }),
            b't' => (FlowDir::Step, FlowEnd::Enclosing { track, ts_ns: ts }),
            _ if ev.bp == b'e' => (FlowDir::In, FlowEnd::Enclosing { track, ts_ns: ts }),
            _ => (FlowDir::In, FlowEnd::EnclosingOrNext { track, ts_ns: ts }),
        };
        // Kineto writes a flow event right after its activity, at the activity's start: bind
        // to exactly that slice (also when a longer one starts at the same time)
        if class == CatClass::KinetoFlow && ev.ph != b't' {
            if let Some((h, start)) = self.threads.get(th).last {
                if start == ts {
                    end = FlowEnd::Slice(h);
                }
            }
        }
        self.flows.push_v1(cat, name, id, ts, dir, end);
    }

    // ---- end of file ----

    /// Close what is still open, chain flows, name and sort groups and tracks.
    pub fn finish(mut self) -> Dialect {
        let end_ts = if self.max_ts == i64::MIN { 0 } else { self.max_ts };
        // unclosed B
        let open = self.threads.drain_open();
        let unclosed = open.len() as u64;
        for (track, open) in open {
            let args = open.args;
            self.close_slice(track, open, end_ts.max(0), args);
        }
        self.b.warnings.add_n(WarningKind::UnclosedBegin, unclosed, || {
            "B event(s) without a matching E; closed at the end of the trace".to_string()
        });
        // unclosed async
        let open_async = self.asyncs.drain_open();
        let n = open_async.len() as u64;
        for o in open_async {
            let dur = end_ts.saturating_sub(o.ts).max(0);
            self.b.add_slice(o.track, o.ts, dur, o.name, o.cat, o.args);
        }
        self.b.warnings.add_n(WarningKind::UnclosedAsync, n, || {
            "async begin(s) (b/S) without an end; closed at the end of the trace".to_string()
        });

        let (classes, dialect) = (&mut self.classes, &mut self.dialect);
        self.flows.chain(self.b, |b, cat| classes.get(b, dialect, cat) == CatClass::KinetoFlow);
        let kineto = self.dialect.kineto;
        let furiosa = self.dialect.furiosa && !kineto;
        self.threads.apply_names(self.b, kineto, furiosa);
        if kineto {
            // the device activities' category is their kind of work: typed once, here
            for track in self.threads.device_tracks() {
                self.b.set_gpu_work_by_category(track, kineto::gpu_work);
            }
        }
        // what the host slices are, from their categories: typed once, here
        self.b.set_host_work_by_category(kineto::host_work);
        self.asyncs.apply_sorts(self.b);
        self.dialect
    }
}

impl ArgsSink for Conv<'_> {
    #[inline]
    fn lazy_phase(&self, ph: u8) -> bool {
        Conv::lazy_phase(self, ph)
    }
    #[inline]
    fn scan_args(&mut self, s: &mut Scan<'_>) -> bool {
        Conv::scan_args(self, s)
    }
}
