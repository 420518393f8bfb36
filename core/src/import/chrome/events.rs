//! One trace event object → [`Ev`]: the known keys as raw slices, everything else skipped.

use super::ids::walk_ids;
use super::scan::{parse_int, RawStr, Scan, ScanError};
use crate::model::GpuIds;

/// A scalar field that may be a number or a string (pid, tid, id, bind_id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Val<'a> {
    #[default]
    None,
    Int(i64),
    Str(RawStr<'a>),
    /// Any other non-null value, as text (a float id, `true`, an object…).
    Text(&'a [u8]),
}

impl Val<'_> {
    pub fn is_none(&self) -> bool {
        matches!(self, Val::None)
    }
}

/// The fields of one event the importer understands. Slices borrow the input.
#[derive(Debug, Default)]
pub struct Ev<'a> {
    /// First byte of `ph`; 0 when absent.
    pub ph: u8,
    pub name: Option<RawStr<'a>>,
    pub cat: Option<RawStr<'a>>,
    /// Text of `ts` (a number, the content of a string, or `null`).
    pub ts: Option<&'a [u8]>,
    pub dur: Option<&'a [u8]>,
    pub pid: Val<'a>,
    pub tid: Val<'a>,
    pub id: Val<'a>,
    pub id2: Val<'a>,
    pub id2_global: bool,
    pub scope: Option<RawStr<'a>>,
    pub bind_id: Val<'a>,
    pub flow_in: bool,
    pub flow_out: bool,
    /// First byte of `s` (instant scope), 0 when absent.
    pub s: u8,
    /// First byte of `bp` (flow binding point), 0 when absent.
    pub bp: u8,
    /// The `args` object text (only when it is an object).
    pub args: Option<&'a [u8]>,
    /// Position of the `args` object in the buffer the event was parsed from.
    pub args_at: usize,
    /// The args were already parsed into the converter's argument buffer during the scan.
    pub args_ready: bool,
    /// `ph` as it was when the `args` key was reached (0 when `args` came before `ph`): whether
    /// the scan parses the args decides the order their strings are interned in, so a deferred
    /// parse ([`Conv::prescan_args`](super::convert::Conv::prescan_args)) must decide the same way.
    pub args_ph: u8,
    /// Number of keys seen (0 = `{}`).
    pub keys: u32,
    /// Kineto's ids of the `args` object, read while skipping it when the args are kept lazily
    /// (`None`: not read, e.g. a malformed object; the converter then reads them from the text).
    pub ids: Option<GpuIds>,
}

/// The keys the importer reads.
#[derive(Clone, Copy)]
enum K {
    Ph,
    Name,
    Ts,
    Pid,
    Tid,
    Dur,
    Cat,
    Args,
    Id,
    S,
    Bp,
    Id2,
    Scope,
    BindId,
    FlowIn,
    FlowOut,
    Other,
}

/// Dispatch on length first, then bytes (one or two comparisons per key).
#[inline(always)]
fn key_of(k: &[u8]) -> K {
    match k.len() {
        1 if k[0] == b's' => K::S,
        2 => match k {
            b"ph" => K::Ph,
            b"ts" => K::Ts,
            b"id" => K::Id,
            b"bp" => K::Bp,
            _ => K::Other,
        },
        3 => match k {
            b"pid" => K::Pid,
            b"tid" => K::Tid,
            b"dur" => K::Dur,
            b"cat" => K::Cat,
            b"id2" => K::Id2,
            _ => K::Other,
        },
        4 => match k {
            b"name" => K::Name,
            b"args" => K::Args,
            _ => K::Other,
        },
        5 if k == b"scope" => K::Scope,
        7 => match k {
            b"bind_id" => K::BindId,
            b"flow_in" => K::FlowIn,
            _ => K::Other,
        },
        8 if k == b"flow_out" => K::FlowOut,
        _ => K::Other,
    }
}

/// Phases whose `args` are used (parsed during the scan when `ph` comes before `args`).
#[inline]
pub fn uses_args(ph: u8) -> bool {
    matches!(
        ph,
        b'X' | b'B'
            | b'E'
            | b'i'
            | b'I'
            | b'C'
            | b'M'
            | b'b'
            | b'e'
            | b'n'
            | b'S'
            | b'F'
            | b'T'
            | b'p'
            | b'R'
            | b'P'
    )
}

/// Parse the event object at `s.pos` (which is `{`). On success `s.pos` is after the `}`.
/// When `ph` precedes `args` (Kineto writes it first), the args go straight into `conv`'s
/// argument buffer in the same pass; otherwise only their span is kept.
///
/// Where [`parse_event`] hands an event's args object on the serial path: the converter
/// ([`super::convert::Conv`]). A trait, so that the event parser does not depend on the converter.
pub trait ArgsSink {
    /// Whether args of events of phase `ph` are kept lazily (not parsed during the scan).
    fn lazy_phase(&self, ph: u8) -> bool;
    /// Parse the args object at `s` into the sink's buffer; `false` if it could not.
    fn scan_args(&mut self, s: &mut Scan<'_>) -> bool;
}

/// `conv`: parse the args into its argument buffer during the scan (the serial path); `None`
/// only delimits them (the pipelined path, which may run on another thread: the converter then
/// parses them with [`Conv::prescan_args`](super::convert::Conv::prescan_args) just before the event, with the same result).
/// `lazy`: args are kept lazily ([`Conv::lazy_file`](super::convert::Conv::lazy_file)): an args object that is not parsed is
/// walked key by key instead of skipped, for its [`Ev::ids`] (one pass over it, not two).
pub fn parse_event<'a, C: ArgsSink + ?Sized>(
    s: &mut Scan<'a>,
    ev: &mut Ev<'a>,
    mut conv: Option<&mut C>,
    lazy: bool,
) -> Result<(), ScanError> {
    s.pos += 1;
    loop {
        match s.peek_ws() {
            Some(b'"') => {}
            Some(b'}') => {
                s.pos += 1;
                return Ok(());
            }
            _ => return Err(s.unexpected("a key or '}' in an event")),
        }
        let key = s.string()?;
        s.expect(b':', "':' after a key")?;
        s.ws();
        ev.keys += 1;
        match key_of(key.raw) {
            K::Ph => ev.ph = first_byte(s)?,
            K::Name => ev.name = str_val(s)?,
            K::Ts => ev.ts = num_text(s)?,
            K::Pid => ev.pid = id_val(s)?,
            K::Tid => ev.tid = id_val(s)?,
            K::Dur => ev.dur = num_text(s)?,
            K::Cat => ev.cat = str_val(s)?,
            K::Args => {
                let start = s.pos;
                if s.peek() == Some(b'{') {
                    ev.args_at = start;
                    ev.args_ph = ev.ph;
                    ev.args_ready = match conv.as_deref_mut() {
                        Some(conv) => uses_args(ev.ph) && !conv.lazy_phase(ev.ph) && conv.scan_args(s),
                        None => false,
                    };
                    if !ev.args_ready {
                        s.pos = start;
                        ev.ids = if lazy { walk_ids(s) } else { None };
                        if ev.ids.is_none() {
                            s.pos = start;
                            s.skip_value()?;
                        }
                    }
                    ev.args = Some(&s.b[start..s.pos]);
                } else {
                    s.skip_value()?;
                }
            }
            K::Id => ev.id = id_val(s)?,
            K::S => ev.s = first_byte(s)?,
            K::Bp => ev.bp = first_byte(s)?,
            K::Id2 => id2_val(s, ev)?,
            K::Scope => ev.scope = str_val(s)?,
            K::BindId => ev.bind_id = id_val(s)?,
            K::FlowIn => ev.flow_in = bool_val(s)?,
            K::FlowOut => ev.flow_out = bool_val(s)?,
            K::Other => {
                s.skip_value()?;
            }
        }
        match s.peek_ws() {
            Some(b',') => s.pos += 1,
            Some(b'}') => {
                s.pos += 1;
                return Ok(());
            }
            _ => return Err(s.unexpected("',' or '}' after a value in an event")),
        }
    }
}

#[inline]
fn first_byte(s: &mut Scan<'_>) -> Result<u8, ScanError> {
    if s.peek() == Some(b'"') {
        let r = s.string()?;
        Ok(r.raw.first().copied().unwrap_or(0))
    } else {
        s.skip_value()?;
        Ok(0)
    }
}

#[inline]
fn str_val<'a>(s: &mut Scan<'a>) -> Result<Option<RawStr<'a>>, ScanError> {
    if s.peek() == Some(b'"') {
        return Ok(Some(s.string()?));
    }
    let (a, b) = s.skip_value()?;
    let t = &s.b[a..b];
    Ok(if t == b"null" { None } else { Some(RawStr { raw: t, escaped: false }) })
}

/// Text of a numeric field: a number, a string holding one, or anything else (kept as text so
/// that the caller can report it).
#[inline]
fn num_text<'a>(s: &mut Scan<'a>) -> Result<Option<&'a [u8]>, ScanError> {
    match s.peek() {
        Some(c) if c.is_ascii_digit() || c == b'-' => Ok(Some(s.number())),
        Some(b'"') => {
            let r = s.string()?;
            let t = r.raw;
            // tolerate surrounding blanks in a string number
            let a = t.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(t.len());
            let b = t.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(a, |p| p + 1);
            Ok(Some(&t[a..b]))
        }
        _ => {
            let (a, b) = s.skip_value()?;
            Ok(Some(&s.b[a..b]))
        }
    }
}

#[inline]
fn id_val<'a>(s: &mut Scan<'a>) -> Result<Val<'a>, ScanError> {
    match s.peek() {
        Some(c) if c.is_ascii_digit() || c == b'-' => {
            // fast path: a short plain integer, parsed while scanning
            let b = s.b;
            let start = s.pos;
            let neg = c == b'-';
            let mut i = start + neg as usize;
            let mut v: i64 = 0;
            while i < b.len() && b[i].is_ascii_digit() && i - start < 18 {
                v = v * 10 + (b[i] - b'0') as i64;
                i += 1;
            }
            let end_ok = i > start + neg as usize
                && !matches!(b.get(i), Some(c) if c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'));
            if end_ok {
                s.pos = i;
                return Ok(Val::Int(if neg { -v } else { v }));
            }
            let t = s.number();
            Ok(match parse_int(t) {
                Some(i) => Val::Int(i),
                None => Val::Text(t),
            })
        }
        Some(b'"') => Ok(Val::Str(s.string()?)),
        _ => {
            let (a, b) = s.skip_value()?;
            let t = &s.b[a..b];
            Ok(if t == b"null" { Val::None } else { Val::Text(t) })
        }
    }
}

fn bool_val(s: &mut Scan<'_>) -> Result<bool, ScanError> {
    let (a, b) = s.skip_value()?;
    Ok(&s.b[a..b] == b"true")
}

/// `"id2": {"local": X}` or `{"global": X}`.
fn id2_val<'a>(s: &mut Scan<'a>, ev: &mut Ev<'a>) -> Result<(), ScanError> {
    if s.peek() != Some(b'{') {
        s.skip_value()?;
        return Ok(());
    }
    s.pos += 1;
    loop {
        match s.peek_ws() {
            Some(b'"') => {}
            Some(b'}') => {
                s.pos += 1;
                return Ok(());
            }
            _ => return Err(s.unexpected("a key or '}' in id2")),
        }
        let key = s.string()?;
        s.expect(b':', "':' after a key")?;
        s.ws();
        match key.raw {
            b"local" => {
                ev.id2 = id_val(s)?;
                ev.id2_global = false;
            }
            b"global" => {
                ev.id2 = id_val(s)?;
                ev.id2_global = true;
            }
            _ => {
                s.skip_value()?;
            }
        }
        match s.peek_ws() {
            Some(b',') => s.pos += 1,
            Some(b'}') => {
                s.pos += 1;
                return Ok(());
            }
            _ => return Err(s.unexpected("',' or '}' in id2")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::convert::Conv;
    use super::*;

    #[test]
    fn parses_known_keys() {
        let mut b = crate::model::TraceBuilder::new("t");
        let mut conv = Conv::new(&mut b);
        let text = br#"{"name":"a\"b","ph":"X","ts":"12.5","dur":3,"pid":"Spans","tid":-1,"args":{"x":[1]},"id2":{"global":"0x1"},"flow_in":true,"other":{"z":"}"}}"#;
        let mut s = Scan::new(text);
        let mut ev = Ev::default();
        parse_event(&mut s, &mut ev, Some(&mut conv), false).unwrap();
        assert_eq!(s.pos, text.len());
        assert_eq!(ev.ph, b'X');
        assert_eq!(ev.name.unwrap().raw, br#"a\"b"#);
        assert_eq!(ev.ts, Some(&b"12.5"[..]));
        assert_eq!(ev.dur, Some(&b"3"[..]));
        assert!(matches!(ev.pid, Val::Str(r) if r.raw == b"Spans"));
        assert_eq!(ev.tid, Val::Int(-1));
        assert_eq!(ev.args, Some(&br#"{"x":[1]}"#[..]));
        assert!(ev.id2_global);
        assert!(ev.flow_in);
        assert_eq!(ev.keys, 10);
    }

    #[test]
    fn errors() {
        let mut b = crate::model::TraceBuilder::new("t");
        let mut conv = Conv::new(&mut b);
        for t in [&br#"{"ph" "X"}"#[..], br#"{"ph":"X" "ts":1}"#, br#"{"ph":"X""#, br#"{"ph":"#] {
            let mut s = Scan::new(t);
            assert!(parse_event(&mut s, &mut Ev::default(), Some(&mut conv), false).is_err());
        }
        let mut s = Scan::new(b"{}");
        let mut ev = Ev::default();
        parse_event(&mut s, &mut ev, Some(&mut conv), false).unwrap();
        assert_eq!(ev.keys, 0);
        // trailing comma inside an event is tolerated
        let mut s = Scan::new(br#"{"ph":"i",}"#);
        parse_event(&mut s, &mut Ev::default(), Some(&mut conv), false).unwrap();
    }
}
