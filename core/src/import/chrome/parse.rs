//! The file's outer structure: array form `[ev, ev, …]` or object form
//! `{"traceEvents": [...], <other keys>}`, with the damage real files have (other-formats.md §1.6):
//! a missing `]` (spec-allowed), trailing / leading / doubled commas, `{}` events, truncation.
//! Policy: load what can be loaded and say what was skipped; an error only when nothing usable
//! was found, naming the problem and its byte offset.

use super::convert::Conv;
use super::events::{parse_event, Ev};
use super::keys::Dialect;
use super::kineto;
use super::scan::{Scan, ScanError};
use crate::model::WarningKind;

use crate::import::{ImportError, Progress};
use crate::model::TraceBuilder;

const FORMAT: &str = "chrome-json";
const PROGRESS_EVERY: u64 = 4 << 20;
/// The pipelined path ([`StreamParser::pipeline`]) runs when at least this much of the buffer
/// is left, in batches of this many events.
const PIPELINE_MIN_BYTES: usize = 256 << 10;
const PIPELINE_BATCH: usize = 4096;

/// Delimit up to [`PIPELINE_BATCH`] events of a plain run `{…}, {…}, …` from `at` (a `{`) into
/// `out` as (start, event). Stops before anything else, and before an event that does not parse
/// whole (that one is left to the serial loop). Returns the position after the last event taken.
fn delimit<'a>(b: &'a [u8], at: usize, more: bool, lazy: bool, out: &mut Vec<(usize, Ev<'a>)>) -> usize {
    let mut s = Scan { b, pos: at, more };
    let mut end = at;
    while out.len() < PIPELINE_BATCH {
        let start = s.pos;
        let mut ev = Ev::default();
        if parse_event(&mut s, &mut ev, None::<&mut Conv<'_>>, lazy).is_err() {
            break;
        }
        out.push((start, ev));
        end = s.pos;
        match next_event_at(b, end) {
            Some(p) => s.pos = p,
            None => break,
        }
    }
    end
}

/// After an event ending at `at`: the position of the next event's `{` when `,` and `{` follow
/// (blanks allowed), else None.
fn next_event_at(b: &[u8], at: usize) -> Option<usize> {
    let mut s = Scan { b, pos: at, more: false };
    if s.peek_ws() != Some(b',') {
        return None;
    }
    s.pos += 1;
    (s.peek_ws() == Some(b'{')).then_some(s.pos)
}

/// Top-level values longer than this are summarised in the trace metadata, not copied.
const MAX_META_VALUE: usize = 64 << 10;

enum ArrayEnd {
    /// `]` seen.
    Closed,
    /// Input ended between events.
    Eof,
    /// Input ended inside the event that starts at this (absolute) offset.
    EofInEvent(u64),
    /// A syntax error after some events were loaded: the rest was skipped.
    Stopped,
    /// The buffer ended and more input follows: feed again from this buffer position.
    NeedMore(usize),
}

fn malformed(offset: u64, message: impl Into<String>) -> ImportError {
    ImportError::Malformed { format: FORMAT, offset, message: message.into() }
}

fn describe_byte(b: &[u8], at: usize) -> String {
    match b.get(at) {
        Some(&c) if (0x21..0x7f).contains(&c) => format!("'{}'", c as char),
        Some(&c) => format!("byte 0x{c:02x}"),
        None => "end of file".into(),
    }
}

/// Where the outer structure is between two buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first non-blank byte.
    Start,
    /// Inside the events array (the array form, or `traceEvents` of the object form).
    Array { in_object: bool, expect_value: bool },
    /// The array form's `]` was seen: only trailing data may follow.
    ArrayClosed,
    /// Object form: a key, `,` or `}` comes next.
    ObjKey,
    /// Object form: `,` or `}` after a value.
    ObjSep,
    /// Nothing more is read (closed, truncated or stopped by a syntax error).
    Done,
}

/// The Chrome JSON parser over a file that arrives in buffers (a whole file is one buffer).
///
/// [`StreamParser::feed`] parses whole units — one event, one top-level key and value — and
/// says how many bytes of the buffer it consumed; the caller passes the rest again, followed by
/// the next bytes. A unit cut by the end of a buffer is parsed again from its start, so nothing
/// it did is kept: parsing a prefix of an event has no effect on the model except interning the
/// strings it completed, which the full parse interns again in the same order. The model is
/// therefore the same for any split of the input (tested with 7-byte chunks).
pub struct StreamParser<'b> {
    conv: Conv<'b>,
    state: State,
    /// Absolute offset of the next buffer's first byte.
    base: u64,
    total: u64,
    next_report: u64,
    object_form: bool,
    open_at: u64,
    saw_events: bool,
    kineto_keys: bool,
    keys: Vec<String>,
    /// Delimit events ahead of the converter ([`StreamParser::pipeline`]) when at least this
    /// much of the buffer is left: [`PIPELINE_MIN_BYTES`] with feature `rayon`, never without.
    /// Either way the model is the same (tests set 0 to take it everywhere).
    pub(crate) pipeline_min_bytes: usize,
}

impl<'b> StreamParser<'b> {
    /// `total` is the file's size in bytes (for progress and messages).
    pub fn new(b: &'b mut TraceBuilder, total: u64) -> Self {
        StreamParser {
            conv: Conv::new(b),
            state: State::Start,
            base: 0,
            total,
            next_report: PROGRESS_EVERY,
            object_form: false,
            open_at: 0,
            saw_events: false,
            kineto_keys: false,
            keys: Vec::new(),
            pipeline_min_bytes: if cfg!(feature = "rayon") { PIPELINE_MIN_BYTES } else { usize::MAX },
        }
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> u64 {
        self.base
    }

    /// Events converted so far.
    pub fn events(&self) -> u64 {
        self.conv.events
    }

    /// The converter (lazy-argument settings are made on it before the first feed).
    pub fn conv(&mut self) -> &mut Conv<'b> {
        &mut self.conv
    }

    /// Parse `buf` (whose first byte is at the absolute offset where the last call stopped);
    /// `last` = no input follows. Returns the number of bytes consumed: the caller keeps
    /// `buf[consumed..]` and passes it again before the next bytes.
    pub fn feed(
        &mut self,
        buf: &[u8],
        last: bool,
        progress: &mut dyn Progress,
    ) -> Result<usize, ImportError> {
        let mut s = Scan { b: buf, pos: 0, more: !last };
        let consumed = self.run(&mut s, progress)?;
        self.base += consumed as u64;
        Ok(consumed)
    }

    #[inline]
    fn abs(&self, pos: usize) -> u64 {
        self.base + pos as u64
    }

    #[inline]
    fn tick(&mut self, pos: usize, progress: &mut dyn Progress) -> Result<(), ImportError> {
        let at = self.abs(pos);
        if at >= self.next_report {
            self.next_report = at + PROGRESS_EVERY;
            if !progress.report(at, self.total) {
                return Err(ImportError::Cancelled);
            }
        }
        Ok(())
    }

    fn truncated(&mut self, what: String) {
        self.conv.b.warn(WarningKind::TruncatedFile, || what);
    }

    fn run(&mut self, s: &mut Scan<'_>, progress: &mut dyn Progress) -> Result<usize, ImportError> {
        loop {
            match self.state {
                State::Start => {
                    if self.base == 0 && s.pos == 0 {
                        if s.b.len() < 3 && s.more {
                            return Ok(0);
                        }
                        if s.b.starts_with(&[0xEF, 0xBB, 0xBF]) {
                            s.pos = 3;
                        }
                    }
                    match s.peek_ws() {
                        Some(b'[') => {
                            s.pos += 1;
                            self.state = State::Array { in_object: false, expect_value: true };
                        }
                        Some(b'{') => {
                            self.open_at = self.abs(s.pos);
                            self.object_form = true;
                            s.pos += 1;
                            self.state = State::ObjKey;
                        }
                        None if s.more => return Ok(s.pos),
                        None => return Err(ImportError::Empty),
                        Some(_) => {
                            return Err(malformed(
                                self.abs(s.pos),
                                format!(
                                    "not JSON trace data: expected '[' or '{{', found {}",
                                    describe_byte(s.b, s.pos)
                                ),
                            ));
                        }
                    }
                }
                State::Array { in_object, mut expect_value } => {
                    let end = self.events_array(s, &mut expect_value, progress);
                    self.state = State::Array { in_object, expect_value };
                    match end? {
                        ArrayEnd::NeedMore(p) => return Ok(p),
                        end if in_object => self.object_array_end(end)?,
                        end => self.array_end(end)?,
                    }
                }
                State::ArrayClosed => match s.peek_ws() {
                    Some(_) => {
                        let at = self.abs(s.pos);
                        self.conv.b.warn(WarningKind::TrailingData, || {
                            format!("data after the closing ']' at byte {at} ignored")
                        });
                        self.state = State::Done;
                    }
                    None => return Ok(s.b.len()),
                },
                State::ObjKey => {
                    if let Some(p) = self.object_key(s, progress)? {
                        return Ok(p);
                    }
                }
                State::ObjSep => match s.peek_ws() {
                    Some(b',') => {
                        s.pos += 1;
                        self.state = State::ObjKey;
                    }
                    Some(b'}') => {
                        s.pos += 1;
                        self.state = State::Done;
                    }
                    None if s.more => return Ok(s.pos),
                    None if self.saw_events => {
                        self.truncated("the file ends before the closing '}' of the top-level object".into());
                        self.state = State::Done;
                    }
                    None => {
                        return Err(malformed(
                            self.abs(s.pos),
                            "the file ends inside the top-level JSON object before any traceEvents",
                        ))
                    }
                    Some(_) => {
                        let at = self.abs(s.pos);
                        if self.saw_events {
                            self.conv.b.warn(WarningKind::SyntaxError, || {
                                format!("JSON syntax error at byte {at} between top-level keys; the rest was skipped")
                            });
                            self.state = State::Done;
                        } else {
                            return Err(malformed(
                                at,
                                format!(
                                    "JSON syntax error: expected ',' or '}}' in the top-level object, found {}",
                                    describe_byte(s.b, s.pos)
                                ),
                            ));
                        }
                    }
                },
                State::Done => return Ok(s.b.len()),
            }
        }
    }

    /// The end of the array form's event array.
    fn array_end(&mut self, end: ArrayEnd) -> Result<(), ImportError> {
        self.state = State::Done;
        match end {
            ArrayEnd::Closed => self.state = State::ArrayClosed,
            // the spec allows the closing ']' to be missing
            ArrayEnd::Eof | ArrayEnd::Stopped | ArrayEnd::NeedMore(_) => {}
            ArrayEnd::EofInEvent(at) if self.conv.events == 0 => {
                return Err(malformed(at, "the file ends inside its first event (truncated?)"));
            }
            ArrayEnd::EofInEvent(at) => {
                self.conv.b.warn(WarningKind::TruncatedEvent, || {
                    format!("the file ends inside the event starting at byte {at}; that partial event was skipped")
                });
            }
        }
        Ok(())
    }

    /// The end of `traceEvents` in the object form.
    fn object_array_end(&mut self, end: ArrayEnd) -> Result<(), ImportError> {
        self.state = State::Done;
        match end {
            ArrayEnd::Closed => self.state = State::ObjSep,
            ArrayEnd::EofInEvent(at) if self.conv.events == 0 => {
                return Err(malformed(
                    at,
                    "the file ends inside the first event of traceEvents (truncated?)",
                ));
            }
            ArrayEnd::Eof => {
                let n = self.conv.events;
                self.truncated(format!(
                    "the file ends inside traceEvents (an unfinished write?); loaded the {n} complete events"
                ));
            }
            ArrayEnd::EofInEvent(at) => {
                let n = self.conv.events;
                self.truncated(format!("the file ends inside the event at byte {at} (an unfinished write?); loaded the {n} complete events before it"));
            }
            ArrayEnd::Stopped | ArrayEnd::NeedMore(_) => {}
        }
        Ok(())
    }

    /// The event array after its `[`.
    fn events_array(
        &mut self,
        s: &mut Scan<'_>,
        expect_value: &mut bool,
        progress: &mut dyn Progress,
    ) -> Result<ArrayEnd, ImportError> {
        loop {
            self.tick(s.pos, progress)?;
            if *expect_value
                && s.peek_ws() == Some(b'{')
                && s.b.len() - s.pos >= self.pipeline_min_bytes
                && self.pipeline(s, progress)?
            {
                *expect_value = false;
                continue;
            }
            match s.peek_ws() {
                None if s.more => return Ok(ArrayEnd::NeedMore(s.pos)),
                None => return Ok(ArrayEnd::Eof),
                Some(b']') => {
                    s.pos += 1;
                    return Ok(ArrayEnd::Closed);
                }
                Some(b',') => {
                    if *expect_value {
                        let at = self.abs(s.pos);
                        self.conv.b.warn(WarningKind::StrayComma, || {
                            format!("a comma with no event before it at byte {at} was skipped")
                        });
                    }
                    s.pos += 1;
                    *expect_value = true;
                }
                Some(b'{') => {
                    let start = s.pos;
                    let mut ev = Ev::default();
                    let lazy = self.conv.lazy_file.is_some();
                    match parse_event(s, &mut ev, Some(&mut self.conv), lazy) {
                        Ok(()) => {
                            if !*expect_value {
                                let at = self.abs(start);
                                self.conv.b.warn(WarningKind::MissingComma, || {
                                    format!("no comma between events before byte {at}")
                                });
                            }
                            self.conv.at = self.abs(start);
                            self.conv.base = self.base;
                            self.conv.event(&ev);
                        }
                        Err(ScanError::Eof) if s.more => return Ok(ArrayEnd::NeedMore(start)),
                        Err(ScanError::Eof) => return Ok(ArrayEnd::EofInEvent(self.abs(start))),
                        Err(ScanError::Unexpected { at, expected }) => {
                            return self.syntax_error(s.b, at, expected)
                        }
                    }
                    *expect_value = false;
                }
                Some(c) => {
                    let at = s.pos;
                    if self.conv.events == 0 {
                        if c == b'[' {
                            if s.more && s.b.len() - at < 256 {
                                return Ok(ArrayEnd::NeedMore(at));
                            }
                            let abs = self.abs(at);
                            let message = if memory_timeline_row(&s.b[at..]) {
                                "a JSON array of arrays, not of trace event objects: this looks like a PyTorch memory \
                                 timeline (export_memory_timeline .raw rows [ts, action, bytes, category]), not a Chrome trace"
                                    .to_string()
                            } else {
                                format!(
                                    "a JSON array of arrays (from byte {abs}), not of trace event objects"
                                )
                            };
                            return Err(ImportError::Unsupported { format: FORMAT, message });
                        }
                        return Err(ImportError::Unsupported {
                            format: FORMAT,
                            message: format!(
                                "the JSON array holds {} at byte {}, not trace event objects",
                                describe_byte(s.b, at),
                                self.abs(at)
                            ),
                        });
                    }
                    match s.skip_value() {
                        Ok(_) if s.more && s.pos == s.b.len() => return Ok(ArrayEnd::NeedMore(at)),
                        Ok(_) => {
                            let at = self.abs(at);
                            self.conv.b.warn(WarningKind::NonObjectEvent, || {
                                format!("array element at byte {at} is not an event object; skipped")
                            })
                        }
                        Err(ScanError::Eof) if s.more => return Ok(ArrayEnd::NeedMore(at)),
                        Err(ScanError::Eof) => return Ok(ArrayEnd::EofInEvent(self.abs(at))),
                        Err(ScanError::Unexpected { at, expected }) => {
                            return self.syntax_error(s.b, at, expected)
                        }
                    }
                    *expect_value = false;
                }
            }
        }
    }

    /// The events array's common case, two stages in step: while the converter builds one batch
    /// of events, the next batch is delimited (`parse_event` without the converter) — on another
    /// thread with feature `rayon` ([`crate::par::join`]). Only the plain run `{…}, {…}, …` is
    /// taken: at anything else (the end of the buffer, `]`, a stray comma, a syntax error) it
    /// stops after the last whole event and the serial loop goes on from there, so every damaged
    /// case is handled by one code path. `s.pos` is at a `{`; on return it is after the last
    /// converted event. Returns whether any event was converted.
    fn pipeline(&mut self, s: &mut Scan<'_>, progress: &mut dyn Progress) -> Result<bool, ImportError> {
        let b = s.b;
        let more = s.more;
        let mut cur: Vec<(usize, Ev<'_>)> = Vec::with_capacity(PIPELINE_BATCH);
        let mut next: Vec<(usize, Ev<'_>)> = Vec::with_capacity(PIPELINE_BATCH);
        let lazy = self.conv.lazy_file.is_some();
        let mut end = delimit(b, s.pos, more, lazy, &mut cur);
        let mut any = false;
        while !cur.is_empty() {
            let follow = next_event_at(b, end);
            let (next_end, ()) = crate::par::join(
                || follow.map(|at| delimit(b, at, more, lazy, &mut next)),
                || self.convert_batch(&mut cur),
            );
            any = true;
            s.pos = end;
            self.tick(s.pos, progress)?;
            std::mem::swap(&mut cur, &mut next);
            next.clear();
            match next_end {
                Some(e) if !cur.is_empty() => end = e,
                _ => break,
            }
        }
        Ok(any)
    }

    fn convert_batch(&mut self, batch: &mut [(usize, Ev<'_>)]) {
        for (start, ev) in batch.iter_mut() {
            self.conv.at = self.base + *start as u64;
            self.conv.base = self.base;
            self.conv.prescan_args(ev);
            self.conv.event(ev);
        }
    }

    fn syntax_error(&mut self, b: &[u8], at: usize, expected: &'static str) -> Result<ArrayEnd, ImportError> {
        let found = describe_byte(b, at);
        let at = self.abs(at);
        if self.conv.events == 0 {
            return Err(malformed(at, format!("JSON syntax error: expected {expected}, found {found}")));
        }
        let rest = self.total.saturating_sub(at);
        let n = self.conv.events;
        self.conv.b.warn(WarningKind::SyntaxError, || {
            format!("JSON syntax error at byte {at}: expected {expected}, found {found}; loaded the {n} events before it, skipped the last {rest} bytes")
        });
        Ok(ArrayEnd::Stopped)
    }

    /// One unit at the top of the object form: `,`, `}`, or a key with its value (or the
    /// opening of `traceEvents`). `Some(p)`: more input is needed from buffer position `p`.
    fn object_key(
        &mut self,
        s: &mut Scan<'_>,
        progress: &mut dyn Progress,
    ) -> Result<Option<usize>, ImportError> {
        self.tick(s.pos, progress)?;
        let saw_events = self.saw_events;
        match s.peek_ws() {
            Some(b'"') => {}
            Some(b'}') => {
                s.pos += 1;
                self.state = State::Done;
                return Ok(None);
            }
            Some(b',') => {
                // trailing / doubled comma between top-level keys: tolerated
                s.pos += 1;
                return Ok(None);
            }
            None if s.more => return Ok(Some(s.pos)),
            None if saw_events => {
                self.truncated(
                    "the file ends before the closing '}' of the top-level object (an unfinished write?)"
                        .into(),
                );
                self.state = State::Done;
                return Ok(None);
            }
            None => {
                return Err(malformed(
                    self.abs(s.pos),
                    "the file ends inside the top-level JSON object before any traceEvents",
                ))
            }
            Some(_) => {
                let at = self.abs(s.pos);
                if saw_events {
                    let found = describe_byte(s.b, s.pos);
                    self.conv.b.warn(WarningKind::SyntaxError, || format!("JSON syntax error at byte {at} after traceEvents (found {found}); the rest was skipped"));
                    self.state = State::Done;
                    return Ok(None);
                }
                return Err(malformed(
                    at,
                    format!(
                        "JSON syntax error: expected a key in the top-level object, found {}",
                        describe_byte(s.b, s.pos)
                    ),
                ));
            }
        }
        let unit = s.pos;
        let key_at = self.abs(s.pos);
        let key = match s.string() {
            Ok(k) => k,
            Err(_) if s.more => return Ok(Some(unit)),
            Err(_) if saw_events => {
                self.truncated(format!("the file ends inside a top-level key at byte {key_at}"));
                self.state = State::Done;
                return Ok(None);
            }
            Err(_) => {
                return Err(malformed(
                    key_at,
                    "the file ends inside the top-level JSON object before any traceEvents",
                ))
            }
        };
        if let Err(e) = s.expect(b':', "':'") {
            if e == ScanError::Eof && s.more {
                return Ok(Some(unit));
            }
            if saw_events {
                self.truncated(format!("the file ends or breaks after the top-level key at byte {key_at}"));
                self.state = State::Done;
                return Ok(None);
            }
            return Err(match e {
                ScanError::Eof => malformed(
                    self.abs(s.pos),
                    "the file ends inside the top-level JSON object before any traceEvents",
                ),
                ScanError::Unexpected { at, .. } => malformed(
                    self.abs(at),
                    format!("JSON syntax error: expected ':', found {}", describe_byte(s.b, at)),
                ),
            });
        }
        let is_events = key.raw == b"traceEvents";
        let next = s.peek_ws();
        if next.is_none() && s.more {
            return Ok(Some(unit));
        }
        if is_events && next == Some(b'[') {
            s.pos += 1;
            self.saw_events = true;
            self.state = State::Array { in_object: true, expect_value: true };
            return Ok(None);
        }
        let key_text = String::from_utf8_lossy(key.raw).into_owned();
        if kineto::is_kineto_top_key(key.raw) {
            self.kineto_keys = true;
        }
        let (a, b) = match s.skip_value() {
            Ok(_) if s.more && s.peek_ws().is_none() => return Ok(Some(unit)),
            Ok(span) => span,
            Err(ScanError::Eof) if s.more => return Ok(Some(unit)),
            Err(ScanError::Eof) if saw_events => {
                self.truncated(format!("the file ends inside the top-level value '{key_text}'"));
                self.state = State::Done;
                return Ok(None);
            }
            Err(ScanError::Eof) => {
                return Err(malformed(
                    self.total,
                    format!("the file ends inside the top-level value '{key_text}' before any traceEvents"),
                ));
            }
            Err(ScanError::Unexpected { at, expected }) => {
                let abs = self.abs(at);
                if saw_events {
                    self.conv.b.warn(WarningKind::SyntaxError, || {
                        format!(
                            "JSON syntax error at byte {abs} in top-level '{key_text}'; the rest was skipped"
                        )
                    });
                    self.state = State::Done;
                    return Ok(None);
                }
                return Err(malformed(
                    abs,
                    format!(
                        "JSON syntax error in top-level '{key_text}': expected {expected}, found {}",
                        describe_byte(s.b, at)
                    ),
                ));
            }
        };
        if is_events {
            self.conv.b.warn(WarningKind::BadTraceEvents, || "traceEvents is not an array; ignored".into());
        } else {
            top_level_value(&mut self.conv, &key_text, &s.b[a..b]);
        }
        self.keys.push(key_text);
        self.state = State::ObjSep;
        Ok(None)
    }

    /// After the last buffer: close what is open and return the dialect.
    pub fn finish(self, progress: &mut dyn Progress) -> Result<Dialect, ImportError> {
        if self.object_form && !self.saw_events {
            return Err(not_a_trace(&self.keys, self.open_at));
        }
        progress.report(self.total, self.total);
        if self.conv.events == 0 {
            self.conv.b.warn(WarningKind::NoEvents, || "the file holds no trace events".to_string());
        }
        let mut dialect = self.conv.finish();
        dialect.kineto |= self.kineto_keys;
        Ok(dialect)
    }
}

/// Parse a whole file into the builder. Returns the dialect the content revealed.
pub fn run(bytes: &[u8], b: &mut TraceBuilder, progress: &mut dyn Progress) -> Result<Dialect, ImportError> {
    let mut p = StreamParser::new(b, bytes.len() as u64);
    p.feed(bytes, true, progress)?;
    p.finish(progress)
}

/// `[int, int, int, int]` at the start of `b`: a row of PyTorch's memory timeline export
/// (`[ts, action, bytes, category]`).
fn memory_timeline_row(b: &[u8]) -> bool {
    let mut i = 1; // after '['
    let ws = |i: &mut usize| {
        while b.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    for k in 0..4 {
        ws(&mut i);
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = b.get(i..).map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count());
        if digits == 0 {
            return false;
        }
        i += digits;
        ws(&mut i);
        let want = if k == 3 { b']' } else { b',' };
        if b.get(i) != Some(&want) {
            return false;
        }
        i += 1;
    }
    true
}

/// The error for a JSON object without `traceEvents`, saying what it looks like.
fn not_a_trace(keys: &[String], _at: u64) -> ImportError {
    let has = |k: &str| keys.iter().any(|x| x == k);
    let message = if has("nodes") {
        "JSON object without traceEvents: this looks like a PyTorch execution trace (a graph of `nodes`, ExecutionTraceObserver), \
         not a timeline; open the Kineto trace recorded with it instead"
            .to_string()
    } else if keys.is_empty() {
        "empty JSON object: no traceEvents".to_string()
    } else {
        let mut list: Vec<&str> = keys.iter().map(|s| s.as_str()).take(8).collect();
        if keys.len() > 8 {
            list.push("…");
        }
        format!("JSON object without traceEvents (top-level keys: {})", list.join(", "))
    };
    ImportError::Unsupported { format: FORMAT, message }
}

/// A top-level key other than traceEvents → a trace metadata entry.
fn top_level_value(conv: &mut Conv<'_>, key: &str, text: &[u8]) {
    let big_section = matches!(key, "systemTraceEvents" | "samples" | "stackFrames" | "powerTraceAsString");
    if big_section {
        let n = text.len();
        let empty = n <= 2 || text == b"null";
        if !empty && key != "stackFrames" {
            let k = key.to_string();
            conv.b.warn(WarningKind::SectionNotImported, || {
                format!("top-level '{k}' ({n} bytes) is not imported")
            });
        }
        conv.b.add_metadata(key, format!("({n} bytes, not imported)"));
        return;
    }
    let value = if text.first() == Some(&b'"') {
        let mut out = Vec::new();
        super::scan::unescape_into(&text[1..text.len().saturating_sub(1).max(1)], &mut out);
        String::from_utf8_lossy(&out).into_owned()
    } else {
        let mut out = Vec::with_capacity(text.len().min(MAX_META_VALUE));
        super::scan::compact_into(text, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    };
    let value = if value.len() > MAX_META_VALUE {
        let mut cut = MAX_META_VALUE;
        while !value.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &value[..cut], value.len())
    } else {
        value
    };
    conv.b.add_metadata(key, value);
}
