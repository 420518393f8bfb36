//! Events → model: one handler per phase (`ph`), per-thread B/E stacks, async trees, flows,
//! counters and the `M` metadata that names processes and threads.
//!
//! Events arrive in file order, which is not time order across threads (Kineto writes device
//! events and flow ends wherever it likes). B/E and b/e are matched in file order per thread /
//! per async id (writers emit those in order); flow events are collected and chained after the
//! whole file is read, sorted by time per flow id.

use super::events::{Ev, Val};
use super::kineto::{self, CatClass};
use super::scan::{self, RawStr, Scan};
use crate::model::{
    ArgValue, ArgsId, CounterId, FlowEnd, GroupId, GroupKind, SliceHandle, TraceBuilder, TrackId, TrackKind,
};
use crate::strings::{FxHashMap, StrId};

/// A pid or tid: a number or (Kineto "Spans", TP feature) a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Int(i64),
    Str(StrId),
}

/// An async / flow id: number and string ids are distinct, as in TP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IdKey {
    None,
    Int(i64),
    Str(StrId),
}

struct Proc {
    key: Key,
    group: GroupId,
    device: bool,
    instant_track: Option<TrackId>,
}

struct Thread {
    proc: u32,
    key: Key,
    track: TrackId,
    device: bool,
    stack: Vec<OpenSlice>,
    /// The last X slice added on this thread and its start (Kineto flows bind to it).
    last: Option<(SliceHandle, i64)>,
}

struct OpenSlice {
    ts: i64,
    name: StrId,
    cat: StrId,
    args: ArgsId,
    /// v2 flow binding of a `B`: (bind id, direction).
    bind: Option<(IdKey, FlowDir)>,
}

#[derive(Default)]
struct ProcMeta {
    name: Option<StrId>,
    labels: Option<StrId>,
    sort: Option<i64>,
}

#[derive(Default)]
struct ThreadMeta {
    name: Option<StrId>,
    sort: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct AsyncKey {
    proc: u32,
    cat: StrId,
    id: IdKey,
    scope: StrId,
    legacy: bool,
}

struct OpenAsync {
    ts: i64,
    name: StrId,
    cat: StrId,
    args: ArgsId,
    track: TrackId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum FlowDir {
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

/// Which producer wrote the file, as far as the content tells.
#[derive(Debug, Default, Clone, Copy)]
pub struct Dialect {
    pub kineto: bool,
    pub furiosa: bool,
}

const CLASS_UNKNOWN: u8 = 0xFF;

/// Hashes a byte string by its length and at most 40 of its bytes (head, middle, tail).
/// Interning keys are often long C++ kernel signatures that repeat millions of times; hashing
/// all of their bytes costs more than the occasional extra equality check on a collision.
#[derive(Default, Clone, Copy)]
struct RawHasher(u64);

#[inline(always)]
fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

impl std::hash::Hasher for RawHasher {
    #[inline]
    fn write(&mut self, b: &[u8]) {
        let n = b.len();
        #[inline(always)]
        fn rd(b: &[u8], o: usize) -> u64 {
            match b.get(o..o + 8) {
                Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
                None => 0,
            }
        }
        let mut h = mix(self.0, n as u64);
        if n >= 16 {
            h = mix(h, rd(b, 0));
            h = mix(h, rd(b, 8));
            if n >= 32 {
                h = mix(h, rd(b, n / 2 - 4));
            }
            h = mix(h, rd(b, n - 16));
            h = mix(h, rd(b, n - 8));
        } else if n >= 8 {
            h = mix(h, rd(b, 0));
            h = mix(h, rd(b, n - 8));
        } else {
            let mut x = 0u64;
            for (i, &c) in b.iter().enumerate() {
                x |= (c as u64) << (8 * i);
            }
            h = mix(h, x);
        }
        self.0 = h;
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = mix(self.0, i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `123.456` (optional `-`, at most 15 digits, no exponent) as f64, correctly rounded: the
/// digits as an integer and the power of ten are both exact in f64, so one division rounds
/// once (Clinger's fast path). Anything else → None (the general parser takes it).
#[inline]
fn simple_decimal(t: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] =
        [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let (neg, d) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    let mut mant: u64 = 0;
    let mut digits = 0;
    let mut frac: Option<usize> = None;
    for (i, &c) in d.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 15 {
                return None;
            }
            mant = mant * 10 + (c - b'0') as u64;
            digits += 1;
        } else if c == b'.' && frac.is_none() && i > 0 {
            frac = Some(i);
        } else {
            return None;
        }
    }
    let frac_digits = d.len() - frac? - 1;
    if frac_digits == 0 {
        return None;
    }
    let v = mant as f64 / POW10[frac_digits];
    Some(if neg { -v } else { v })
}

/// 8 bytes at `o` (which must be ≤ len − 8), little-endian.
#[inline(always)]
fn read8(s: &[u8], o: usize) -> u64 {
    match s.get(o..o + 8) {
        Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
        None => 0,
    }
}

/// Slice equality without a library call for short strings (most keys and names).
#[inline(always)]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n > 16 {
        return a == b;
    }
    if n >= 8 {
        return read8(a, 0) == read8(b, 0) && read8(a, n - 8) == read8(b, n - 8);
    }
    small_word(a) == small_word(b)
}

/// The bytes of a string shorter than 8 as one word, without a loop (overlapping reads).
#[inline(always)]
fn small_word(s: &[u8]) -> u64 {
    let n = s.len();
    if n >= 4 {
        let r4 = |o: usize| u32::from_le_bytes([s[o], s[o + 1], s[o + 2], s[o + 3]]) as u64;
        r4(0) | (r4(n - 4) << 32)
    } else if n > 0 {
        s[0] as u64 | (s[n / 2] as u64) << 8 | (s[n - 1] as u64) << 16
    } else {
        0
    }
}

/// Slot in the direct-mapped cache of recently interned raw strings.
#[inline(always)]
fn quick_hash(b: &[u8]) -> usize {
    let n = b.len();
    let w = if n >= 8 { read8(b, 0) ^ read8(b, n - 8).rotate_left(29) } else { small_word(b) };
    ((w ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RECENT_BITS)) as usize
}

const RECENT_BITS: u32 = 11;
const JSON_RECENT: usize = 256;
const KEY_PRED: usize = 32;

type RawMap<'a> = std::collections::HashMap<&'a [u8], StrId, std::hash::BuildHasherDefault<RawHasher>>;

pub struct Conv<'a, 'b> {
    pub b: &'b mut TraceBuilder,
    /// Raw (still escaped) input bytes → interned string.
    strs: RawMap<'a>,
    /// Direct-mapped cache in front of `strs` (most strings repeat event after event).
    recent: Box<[(&'a [u8], StrId)]>,
    /// Raw JSON text of nested argument values → interned compact text.
    jsons: RawMap<'a>,
    recent_json: Box<[(&'a [u8], StrId)]>,
    /// Argument key seen at each position of the previous args object.
    key_pred: [(&'a [u8], StrId); KEY_PRED],
    buf: Vec<u8>,
    argbuf: Vec<(StrId, ArgValue)>,
    procs: Vec<Proc>,
    proc_map: FxHashMap<Key, u32>,
    threads: Vec<Thread>,
    thread_map: FxHashMap<(Key, Key), u32>,
    /// Direct-mapped cache in front of `thread_map` (events hop between a few threads).
    thread_cache: [Option<(Key, Key, u32)>; 16],
    proc_meta: FxHashMap<Key, ProcMeta>,
    thread_meta: FxHashMap<(Key, Key), ThreadMeta>,
    counters: FxHashMap<(u32, StrId, IdKey, StrId), CounterId>,
    async_open: FxHashMap<AsyncKey, Vec<OpenAsync>>,
    async_tracks: FxHashMap<(u32, StrId), TrackId>,
    async_track_list: Vec<TrackId>,
    flows: Vec<FlowEv>,
    global: Option<TrackId>,
    classes: Vec<u8>,
    pub dialect: Dialect,
    max_ts: i64,
    /// Byte offset of the event being converted (for warnings).
    pub at: usize,
    pub events: u64,
}

fn is_empty_object(t: &[u8]) -> bool {
    t.len() <= 2 || t[1..t.len() - 1].iter().all(|&c| scan::is_ws(c))
}

#[inline(always)]
fn thread_slot(pid: Key, tid: Key) -> usize {
    let v = |k: Key| match k {
        Key::Int(i) => i as u64,
        Key::Str(s) => s.0 as u64 ^ 0xABCD_0000_0000,
    };
    ((v(pid).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ v(tid)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) >> 60)
        as usize
}

fn key_text(b: &TraceBuilder, k: Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => b.string(s).to_string(),
    }
}

impl<'a, 'b> Conv<'a, 'b> {
    pub fn new(b: &'b mut TraceBuilder) -> Self {
        Conv {
            b,
            strs: RawMap::default(),
            recent: vec![(&b""[..], StrId::EMPTY); 1 << RECENT_BITS].into_boxed_slice(),
            jsons: RawMap::default(),
            // an empty slice never matches a JSON value (those start with '[' or '{')
            key_pred: [(&b""[..], StrId::EMPTY); KEY_PRED],
            recent_json: vec![(&b""[..], StrId::EMPTY); JSON_RECENT].into_boxed_slice(),
            buf: Vec::new(),
            argbuf: Vec::new(),
            procs: Vec::new(),
            proc_map: FxHashMap::default(),
            threads: Vec::new(),
            thread_map: FxHashMap::default(),
            thread_cache: [None; 16],
            proc_meta: FxHashMap::default(),
            thread_meta: FxHashMap::default(),
            counters: FxHashMap::default(),
            async_open: FxHashMap::default(),
            async_tracks: FxHashMap::default(),
            async_track_list: Vec::new(),
            flows: Vec::new(),
            global: None,
            classes: Vec::new(),
            dialect: Dialect::default(),
            max_ts: i64::MIN,
            at: 0,
            events: 0,
        }
    }

    // ---- strings and values ----

    /// Intern a string as it appears in the input (unescaped only on first sight).
    #[inline(always)]
    pub fn intern_raw(&mut self, r: RawStr<'a>) -> StrId {
        let slot = quick_hash(r.raw);
        let (cached, id) = self.recent[slot];
        if bytes_eq(cached, r.raw) {
            return id;
        }
        let id = self.intern_raw_slow(r);
        self.recent[slot] = (r.raw, id);
        id
    }

    #[cold]
    #[inline(never)]
    fn intern_raw_slow(&mut self, r: RawStr<'a>) -> StrId {
        if let Some(&id) = self.strs.get(r.raw) {
            return id;
        }
        let id = if !r.escaped {
            match std::str::from_utf8(r.raw) {
                Ok(s) => self.b.intern(s),
                Err(_) => self.b.intern(&String::from_utf8_lossy(r.raw)),
            }
        } else {
            self.buf.clear();
            scan::unescape_into(r.raw, &mut self.buf);
            let s = String::from_utf8_lossy(&self.buf).into_owned();
            self.b.intern(&s)
        };
        self.strs.insert(r.raw, id);
        id
    }

    /// Intern nested JSON text in compact form.
    fn intern_json(&mut self, t: &'a [u8]) -> StrId {
        let slot = quick_hash(t) & (JSON_RECENT - 1);
        let (cached, id) = self.recent_json[slot];
        if bytes_eq(cached, t) {
            return id;
        }
        let id = self.intern_json_slow(t);
        self.recent_json[slot] = (t, id);
        id
    }

    #[cold]
    #[inline(never)]
    fn intern_json_slow(&mut self, t: &'a [u8]) -> StrId {
        if let Some(&id) = self.jsons.get(t) {
            return id;
        }
        self.buf.clear();
        scan::compact_into(t, &mut self.buf);
        let id = self.b.intern(&String::from_utf8_lossy(&self.buf));
        self.jsons.insert(t, id);
        id
    }

    fn num_arg(&mut self, t: &'a [u8]) -> ArgValue {
        // plain integers (most Kineto args) in one pass
        let (neg, digits) = match t.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, t),
        };
        if !digits.is_empty() && digits.len() <= 18 {
            let mut v: i64 = 0;
            let mut plain = true;
            for &c in digits {
                if !c.is_ascii_digit() {
                    plain = false;
                    break;
                }
                v = v * 10 + (c - b'0') as i64;
            }
            if plain {
                return ArgValue::Int(if neg { -v } else { v });
            }
        }
        if let Some(f) = simple_decimal(t) {
            return ArgValue::Float(f);
        }
        if !t.iter().any(|&c| c == b'.' || c == b'e' || c == b'E') {
            if let Some(i) = scan::parse_int(t) {
                return ArgValue::Int(i);
            }
            if let Some(u) = std::str::from_utf8(t).ok().and_then(|s| s.parse::<u64>().ok()) {
                return ArgValue::UInt(u);
            }
        }
        match std::str::from_utf8(t).ok().and_then(|s| s.parse::<f64>().ok()) {
            Some(f) => ArgValue::Float(f),
            None => ArgValue::Str(self.intern_raw(RawStr { raw: t, escaped: false })),
        }
    }

    /// Parse the `args` object at `s.pos` into `self.argbuf`; `s.pos` ends after its `}`.
    /// Returns false on a syntax error (what was parsed before it is kept in `argbuf`).
    pub fn scan_args(&mut self, s: &mut Scan<'a>) -> bool {
        self.argbuf.clear();
        s.pos += 1;
        loop {
            match s.peek_ws() {
                Some(b'"') => {}
                Some(b'}') => {
                    s.pos += 1;
                    return true;
                }
                _ => return false,
            }
            let Ok(k) = s.string() else { return false };
            if s.expect(b':', "':'").is_err() {
                return false;
            }
            let v = match s.peek_ws() {
                Some(b'"') => match s.string() {
                    Ok(r) => ArgValue::Str(self.intern_raw(r)),
                    Err(_) => return false,
                },
                Some(c) if c.is_ascii_digit() || c == b'-' => {
                    let n = s.number();
                    self.num_arg(n)
                }
                Some(b'{') | Some(b'[') => match s.skip_value() {
                    Ok((x, y)) => ArgValue::Json(self.intern_json(&s.b[x..y])),
                    Err(_) => return false,
                },
                Some(_) => match s.word() {
                    b"true" => ArgValue::Bool(true),
                    b"false" => ArgValue::Bool(false),
                    b"null" => ArgValue::Null,
                    _ => return false,
                },
                None => return false,
            };
            // writers repeat the same keys in the same order: try the key seen at this
            // position last time before hashing
            let pos = self.argbuf.len() & (KEY_PRED - 1);
            let (pk, pid) = self.key_pred[pos];
            let k = if bytes_eq(pk, k.raw) {
                pid
            } else {
                let id = self.intern_raw(k);
                self.key_pred[pos] = (k.raw, id);
                id
            };
            self.argbuf.push((k, v));
            match s.peek_ws() {
                Some(b',') => s.pos += 1,
                Some(b'}') => {
                    s.pos += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }

    /// Make `self.argbuf` hold the event's args (parsed during the scan, or now).
    fn load_args(&mut self, ev: &Ev<'a>) -> bool {
        let Some(t) = ev.args else {
            self.argbuf.clear();
            return false;
        };
        if ev.args_ready {
            return true;
        }
        if is_empty_object(t) {
            self.argbuf.clear();
            return true;
        }
        let ok = self.scan_args(&mut Scan::new(t));
        if !ok {
            let at = self.at;
            self.b.warn("bad_args", || {
                format!(
                    "event at byte {at}: malformed args object; the arguments after the error were dropped"
                )
            });
        }
        ok
    }

    /// The `args` of an event as an argument set.
    #[inline]
    fn args(&mut self, ev: &Ev<'a>) -> ArgsId {
        if ev.args.is_none() {
            return ArgsId::NONE;
        }
        self.load_args(ev);
        self.b.add_args_slice(&self.argbuf)
    }

    fn merge_args(&mut self, first: ArgsId, second: ArgsId) -> ArgsId {
        if second == ArgsId::NONE {
            return first;
        }
        if first == ArgsId::NONE {
            return second;
        }
        let mut a = self.b.args_of(first);
        for (k, v) in self.b.args_of(second) {
            match a.iter_mut().find(|e| e.0 == k) {
                Some(e) => e.1 = v,
                None => a.push((k, v)),
            }
        }
        self.b.add_args(a)
    }

    fn key(&mut self, v: Val<'a>) -> Option<Key> {
        match v {
            Val::None => None,
            Val::Int(i) => Some(Key::Int(i)),
            Val::Str(r) => Some(Key::Str(self.intern_raw(r))),
            Val::Text(t) => Some(Key::Str(self.intern_raw(RawStr { raw: t, escaped: false }))),
        }
    }

    fn id_key(&mut self, v: Val<'a>) -> IdKey {
        match self.key(v) {
            None => IdKey::None,
            Some(Key::Int(i)) => IdKey::Int(i),
            Some(Key::Str(s)) => IdKey::Str(s),
        }
    }

    fn str_opt(&mut self, r: Option<RawStr<'a>>) -> StrId {
        match r {
            Some(r) => self.intern_raw(r),
            None => StrId::EMPTY,
        }
    }

    #[inline]
    fn class_of(&mut self, cat: StrId) -> CatClass {
        let i = cat.0 as usize;
        if i >= self.classes.len() {
            self.classes.resize(i + 1, CLASS_UNKNOWN);
        }
        let c = match self.classes[i] {
            CLASS_UNKNOWN => {
                let c = kineto::classify(self.b.string(cat));
                self.classes[i] = c as u8;
                match c {
                    CatClass::KinetoHost | CatClass::KinetoDevice | CatClass::KinetoFlow => {
                        self.dialect.kineto = true
                    }
                    CatClass::FuriosaHost | CatClass::FuriosaDevice => self.dialect.furiosa = true,
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

    // ---- processes, threads, tracks ----

    fn proc(&mut self, pid: Key) -> u32 {
        if let Some(&p) = self.proc_map.get(&pid) {
            return p;
        }
        let group = self.b.add_group("", GroupKind::Process);
        let p = self.procs.len() as u32;
        self.procs.push(Proc { key: pid, group, device: false, instant_track: None });
        self.proc_map.insert(pid, p);
        p
    }

    fn pid_tid(&mut self, ev: &Ev<'a>) -> (Key, Key) {
        let pid = self.key(ev.pid).unwrap_or(Key::Int(0));
        let tid = self.key(ev.tid).unwrap_or(pid);
        (pid, tid)
    }

    /// The thread of an event (created on first sight).
    #[inline]
    fn thread(&mut self, ev: &Ev<'a>) -> u32 {
        let (pid, tid) = self.pid_tid(ev);
        let slot = thread_slot(pid, tid);
        if let Some((p, t, i)) = self.thread_cache[slot] {
            if p == pid && t == tid {
                return i;
            }
        }
        let i = match self.thread_map.get(&(pid, tid)) {
            Some(&i) => i,
            None => {
                let p = self.proc(pid);
                let group = self.procs[p as usize].group;
                let src = key_text(self.b, tid);
                let track = self.b.add_track(group, "", TrackKind::Thread, &src);
                let i = self.threads.len() as u32;
                self.threads.push(Thread {
                    proc: p,
                    key: tid,
                    track,
                    device: false,
                    stack: Vec::new(),
                    last: None,
                });
                self.thread_map.insert((pid, tid), i);
                i
            }
        };
        self.thread_cache[slot] = Some((pid, tid, i));
        i
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

    fn proc_instant_track(&mut self, p: u32) -> TrackId {
        if let Some(t) = self.procs[p as usize].instant_track {
            return t;
        }
        let group = self.procs[p as usize].group;
        let t = self.b.add_track(group, "Process events", TrackKind::Thread, "process");
        self.procs[p as usize].instant_track = Some(t);
        t
    }

    fn async_track(&mut self, p: u32, name: StrId) -> TrackId {
        if let Some(&t) = self.async_tracks.get(&(p, name)) {
            return t;
        }
        let group = self.procs[p as usize].group;
        let label = match self.b.string(name) {
            "" => "async".to_string(),
            s => s.to_string(),
        };
        let t = self.b.add_track(group, &label, TrackKind::Async, "async");
        self.async_tracks.insert((p, name), t);
        self.async_track_list.push(t);
        t
    }

    // ---- time ----

    #[inline]
    fn ts(&mut self, ev: &Ev<'a>) -> Option<i64> {
        match ev.ts {
            Some(t) => match scan::parse_us(t) {
                Some(v) => Some(v),
                None => {
                    let at = self.at;
                    let text = String::from_utf8_lossy(&t[..t.len().min(40)]).into_owned();
                    self.b.warn("bad_ts", || {
                        format!("event at byte {at}: ts {text} is not a number; event skipped")
                    });
                    None
                }
            },
            None => {
                let at = self.at;
                self.b.warn("missing_ts", || format!("event at byte {at} has no ts; event skipped"));
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
    pub fn event(&mut self, ev: &Ev<'a>) {
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
                self.b.warn("object_events_ignored", || {
                    "object instance events (N/O/D: created/snapshot/destroyed) are not shown".to_string()
                });
            }
            b'v' | b'V' | b'c' | b'(' | b')' => {
                let ph = ev.ph as char;
                self.b.warn("unsupported_phase", || {
                    format!("events with ph '{ph}' (memory dumps, clock sync, context) are not shown")
                });
            }
            0 if ev.keys == 0 => self.b.warn("empty_event", || "empty event object {} skipped".to_string()),
            0 => {
                let at = self.at;
                self.b.warn("missing_phase", || format!("event at byte {at} has no ph; skipped"));
            }
            ph => {
                let at = self.at;
                let ph = ph as char;
                self.b.warn("unknown_phase", || format!("event at byte {at} has unknown ph '{ph}'; skipped"));
            }
        }
    }

    fn complete(&mut self, ev: &Ev<'a>) {
        let Some(ts) = self.ts(ev) else { return };
        let dur = match ev.dur {
            Some(t) => match scan::parse_us(t) {
                Some(d) => d,
                None => {
                    let at = self.at;
                    self.b
                        .warn("bad_dur", || format!("X event at byte {at}: dur is not a number; taken as 0"));
                    0
                }
            },
            None => {
                let at = self.at;
                self.b.warn("missing_dur", || format!("X event at byte {at} has no dur; taken as 0"));
                0
            }
        };
        let th = self.thread(ev) as usize;
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let class = self.class_of(cat);
        if class.is_device() {
            self.threads[th].device = true;
        }
        let args = self.args(ev);
        let track = self.threads[th].track;
        let h = self.b.add_slice(track, ts, dur, name, cat, args);
        self.threads[th].last = Some((h, ts));
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
            self.push_v2(bind, ts, FlowEnd::Slice(h), cat);
        }
    }

    fn begin(&mut self, ev: &Ev<'a>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev) as usize;
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        if self.class_of(cat).is_device() {
            self.threads[th].device = true;
        }
        let args = self.args(ev);
        let bind = if ev.bind_id.is_none() { None } else { Some((self.id_key(ev.bind_id), flow_dir(ev))) };
        self.bump(ts);
        self.threads[th].stack.push(OpenSlice { ts, name, cat, args, bind });
    }

    fn end(&mut self, ev: &Ev<'a>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev) as usize;
        self.bump(ts);
        let Some(open) = self.threads[th].stack.pop() else {
            let at = self.at;
            self.b.warn("unmatched_end", || {
                format!("E event at byte {at} has no open B on its thread; skipped")
            });
            return;
        };
        let extra = self.args(ev);
        let args = self.merge_args(open.args, extra);
        let track = self.threads[th].track;
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
            self.push_v2(bind, open.ts, FlowEnd::Slice(h), open.cat);
        }
    }

    fn instant(&mut self, ev: &Ev<'a>) {
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
                self.proc_instant_track(p)
            }
            _ => {
                let th = self.thread(ev) as usize;
                if self.class_of(cat).is_device() {
                    self.threads[th].device = true;
                }
                self.threads[th].track
            }
        };
        self.b.add_instant(track, ts, name, cat, args);
        self.bump(ts);
        if !ev.bind_id.is_none() {
            let bind = (self.id_key(ev.bind_id), flow_dir(ev));
            self.push_v2(bind, ts, FlowEnd::Enclosing { track, ts_ns: ts }, cat);
        }
    }

    fn counter(&mut self, ev: &Ev<'a>) {
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
        for i in 0..self.argbuf.len() {
            let (k, v) = self.argbuf[i];
            let value = match v {
                ArgValue::Int(i) => i as f64,
                ArgValue::UInt(u) => u as f64,
                ArgValue::Float(f) => f,
                ArgValue::Bool(b) => b as u8 as f64,
                ArgValue::Str(s) => match self.b.string(s).trim().parse::<f64>() {
                    Ok(f) => f,
                    Err(_) => {
                        let at = self.at;
                        self.b.warn("counter_not_numeric", || {
                            format!("counter at byte {at}: a series value is not a number; skipped")
                        });
                        continue;
                    }
                },
                ArgValue::Null | ArgValue::Json(_) => {
                    let at = self.at;
                    self.b.warn("counter_not_numeric", || {
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
                    let group = self.procs[p as usize].group;
                    let c = self.b.add_counter(group, &label, "");
                    self.counters.insert((p, name, id, k), c);
                    c
                }
            };
            self.b.add_counter_sample(c, ts, value);
        }
    }

    fn metadata(&mut self, ev: &Ev<'a>) {
        let which = ev.name.map_or(&b""[..], |n| n.raw);
        let field: &[u8] = match which {
            b"process_name" | b"thread_name" => b"name",
            b"process_labels" => b"labels",
            b"process_sort_index" | b"thread_sort_index" => b"sort_index",
            _ => {
                let name = String::from_utf8_lossy(&which[..which.len().min(60)]).into_owned();
                self.b.warn("metadata_ignored", || format!("metadata event '{name}' is not used"));
                return;
            }
        };
        if ev.args.is_none() {
            return;
        }
        self.load_args(ev);
        let Some(&(_, v)) = self.argbuf.iter().find(|(k, _)| self.b.string(*k).as_bytes() == field) else {
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
                    b"process_name" => self.proc_meta.entry(pid).or_default().name = Some(s),
                    b"process_labels" => self.proc_meta.entry(pid).or_default().labels = Some(s),
                    _ => self.thread_meta.entry((pid, tid)).or_default().name = Some(s),
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
                    self.proc_meta.entry(pid).or_default().sort = sort;
                } else {
                    self.thread_meta.entry((pid, tid)).or_default().sort = sort;
                }
            }
        }
    }

    fn async_key(&mut self, ev: &Ev<'a>, p: u32, cat: StrId, legacy: bool) -> AsyncKey {
        let (id, global) =
            if !ev.id.is_none() { (self.id_key(ev.id), false) } else { (self.id_key(ev.id2), ev.id2_global) };
        let scope = self.str_opt(ev.scope);
        AsyncKey { proc: if global { u32::MAX } else { p }, cat, id, scope, legacy }
    }

    fn async_begin(&mut self, ev: &Ev<'a>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        self.class_of(cat);
        let args = self.args(ev);
        let key = self.async_key(ev, p, cat, legacy);
        let track = match self.async_open.get(&key).and_then(|s| s.first()) {
            Some(o) => o.track,
            None => self.async_track(p, name),
        };
        self.bump(ts);
        self.async_open.entry(key).or_default().push(OpenAsync { ts, name, cat, args, track });
    }

    fn async_end(&mut self, ev: &Ev<'a>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let cat = self.str_opt(ev.cat);
        let key = self.async_key(ev, p, cat, legacy);
        self.bump(ts);
        let open = match self.async_open.get_mut(&key) {
            Some(stack) => {
                let o = stack.pop();
                if stack.is_empty() {
                    self.async_open.remove(&key);
                }
                o
            }
            None => None,
        };
        let Some(o) = open else {
            let at = self.at;
            let ph = ev.ph as char;
            self.b.warn("unmatched_async_end", || {
                format!("'{ph}' event at byte {at} has no open async begin with its category and id; skipped")
            });
            return;
        };
        let extra = self.args(ev);
        let args = self.merge_args(o.args, extra);
        self.b.add_slice(o.track, o.ts, ts.saturating_sub(o.ts), o.name, o.cat, args);
    }

    fn async_instant(&mut self, ev: &Ev<'a>, legacy: bool) {
        let Some(ts) = self.ts(ev) else { return };
        let (pid, _) = self.pid_tid(ev);
        let p = self.proc(pid);
        let name = self.str_opt(ev.name);
        let cat = self.str_opt(ev.cat);
        let args = self.args(ev);
        let key = self.async_key(ev, p, cat, legacy);
        let track = match self.async_open.get(&key).and_then(|s| s.first()) {
            Some(o) => o.track,
            None => self.async_track(p, name),
        };
        self.bump(ts);
        self.b.add_instant(track, ts, name, cat, args);
    }

    fn flow_v1(&mut self, ev: &Ev<'a>) {
        let Some(ts) = self.ts(ev) else { return };
        let th = self.thread(ev) as usize;
        let track = self.threads[th].track;
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
            if let Some((h, start)) = self.threads[th].last {
                if start == ts {
                    end = FlowEnd::Slice(h);
                }
            }
        }
        let seq = self.flows.len() as u32;
        self.flows.push(FlowEv { key: FlowKey { v2: false, cat, name, id }, ts, dir, seq, end, name, cat });
    }

    fn push_v2(&mut self, bind: (IdKey, FlowDir), ts: i64, end: FlowEnd, cat: StrId) {
        let seq = self.flows.len() as u32;
        let key = FlowKey { v2: true, cat: StrId::EMPTY, name: StrId::EMPTY, id: bind.0 };
        self.flows.push(FlowEv { key, ts, dir: bind.1, seq, end, name: StrId::EMPTY, cat });
    }

    // ---- end of file ----

    /// Close what is still open, chain flows, name and sort groups and tracks.
    pub fn finish(mut self) -> Dialect {
        let end_ts = if self.max_ts == i64::MIN { 0 } else { self.max_ts };
        // unclosed B
        let mut unclosed = 0u64;
        for th in 0..self.threads.len() {
            let track = self.threads[th].track;
            while let Some(open) = self.threads[th].stack.pop() {
                unclosed += 1;
                let args = open.args;
                self.close_slice(track, open, end_ts.max(0), args);
            }
        }
        self.b.warnings.add_n("unclosed_begin", unclosed, || {
            "B event(s) without a matching E; closed at the end of the trace".to_string()
        });
        // unclosed async
        let mut open_async: Vec<OpenAsync> = self.async_open.drain().flat_map(|(_, v)| v).collect();
        open_async.sort_by_key(|o| (o.track, o.ts));
        let n = open_async.len() as u64;
        for o in open_async {
            let dur = end_ts.saturating_sub(o.ts).max(0);
            self.b.add_slice(o.track, o.ts, dur, o.name, o.cat, o.args);
        }
        self.b.warnings.add_n("unclosed_async", n, || {
            "async begin(s) (b/S) without an end; closed at the end of the trace".to_string()
        });

        self.chain_flows();
        self.apply_names();
        self.dialect
    }

    fn chain_flows(&mut self) {
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
            let kineto_flow = self.class_of(first.cat) == CatClass::KinetoFlow;
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
                            self.b.add_flow(from, f.end, f.name, f.cat);
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
                            Some(from) => self.b.add_flow(from, f.end, f.name, f.cat),
                            None if kineto_flow => {}
                            None => unmatched += 1,
                        }
                    }
                }
            }
        }
        self.b.warnings.add_n("flow_without_start", unmatched, || {
            "flow step/end event(s) without a preceding start with the same id; dropped".to_string()
        });
    }

    fn apply_names(&mut self) {
        let kineto = self.dialect.kineto;
        let furiosa = self.dialect.furiosa && !kineto;
        for th in 0..self.threads.len() {
            let t = &self.threads[th];
            let (p, tid, track, device) = (t.proc, t.key, t.track, t.device);
            let pid = self.procs[p as usize].key;
            if device {
                self.procs[p as usize].device = true;
                self.b.set_track_kind(track, TrackKind::Stream);
            }
            let meta = self.thread_meta.get(&(pid, tid));
            let (name, sort) = (meta.and_then(|m| m.name), meta.and_then(|m| m.sort));
            let label = match name {
                Some(n) if !self.b.string(n).trim().is_empty() => self.b.string(n).trim().to_string(),
                _ => match (tid, device) {
                    (Key::Int(i), true) if furiosa => format!("NPU queue {i}"),
                    (Key::Int(i), true) => format!("stream {i}"),
                    (Key::Int(i), false) => format!("thread {i}"),
                    (Key::Str(s), _) if !self.b.string(s).is_empty() => self.b.string(s).to_string(),
                    _ => "(no thread)".to_string(),
                },
            };
            self.b.set_track_name(track, &label);
            self.b.set_track_sort(track, sort.unwrap_or(0));
        }
        for p in 0..self.procs.len() {
            let pr = &self.procs[p];
            let (pid, group, instant_track) = (pr.key, pr.group, pr.instant_track);
            let meta = self.proc_meta.get(&pid);
            let name = meta
                .and_then(|m| m.name)
                .map(|s| self.b.string(s).trim().to_string())
                .filter(|s| !s.is_empty());
            let labels = meta
                .and_then(|m| m.labels)
                .map(|s| self.b.string(s).trim().to_string())
                .filter(|s| !s.is_empty());
            let sort = meta.and_then(|m| m.sort);
            let device = pr.device || labels.as_deref().is_some_and(|l| kineto && kineto::is_device_label(l));
            if device {
                self.procs[p].device = true;
                self.b.set_group_kind(group, GroupKind::Device);
            }
            let pid_text = key_text(self.b, pid);
            let label = match (&name, &labels, pid) {
                // Kineto: devices are "GPU 0" (process_name is the host program's name)
                (_, Some(l), _) if device && kineto => l.clone(),
                (_, None, Key::Int(i)) if device && kineto => format!("GPU {i}"),
                (Some(n), l, Key::Int(i)) => match l {
                    Some(l) => format!("{n} (pid {i}) [{l}]"),
                    None => format!("{n} (pid {i})"),
                },
                (Some(n), _, Key::Str(_)) => n.clone(),
                (None, Some(l), Key::Int(i)) => format!("{l} (pid {i})"),
                (None, _, Key::Int(i)) if device && furiosa => format!("NPU {i}"),
                (None, _, Key::Int(i)) if device => format!("Device {i}"),
                (None, _, Key::Int(i)) => format!("Process {i}"),
                (None, _, Key::Str(_)) if pid_text.is_empty() => "(no process)".to_string(),
                (None, _, Key::Str(_)) => pid_text,
            };
            self.b.set_group_name(group, &label);
            self.b.set_group_sort(group, sort.unwrap_or(0));
            if let Some(t) = instant_track {
                self.b.set_track_sort(t, i64::MIN / 2);
            }
        }
        for (k, &t) in self.async_track_list.iter().enumerate() {
            self.b.set_track_sort(t, i64::MAX / 2 + k as i64);
        }
    }
}

fn flow_dir(ev: &Ev<'_>) -> FlowDir {
    match (ev.flow_in, ev.flow_out) {
        (true, true) => FlowDir::Step,
        (true, false) => FlowDir::In,
        // TP records "flow without direction"; treating it as a source keeps the link
        _ => FlowDir::Out,
    }
}

#[cfg(test)]
pub fn simple_decimal_for_tests(t: &[u8]) -> Option<f64> {
    simple_decimal(t)
}
