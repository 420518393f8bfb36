//! The file's outer structure: array form `[ev, ev, …]` or object form
//! `{"traceEvents": [...], <other keys>}`, with the damage real files have (other-formats.md §1.6):
//! a missing `]` (spec-allowed), trailing / leading / doubled commas, `{}` events, truncation.
//! Policy: load what can be loaded and say what was skipped; an error only when nothing usable
//! was found, naming the problem and its byte offset.

use super::convert::{Conv, Dialect};
use super::events::{parse_event, Ev};
use super::kineto;
use super::scan::{Scan, ScanError};
use crate::import::{ImportError, Progress};
use crate::model::TraceBuilder;

const FORMAT: &str = "chrome-json";
const PROGRESS_EVERY: usize = 4 << 20;
/// Top-level values longer than this are summarised in the trace metadata, not copied.
const MAX_META_VALUE: usize = 64 << 10;

enum ArrayEnd {
    /// `]` seen.
    Closed,
    /// Input ended between events.
    Eof,
    /// Input ended inside the event that starts at this offset.
    EofInEvent(usize),
    /// A syntax error after some events were loaded: the rest was skipped.
    Stopped,
}

fn malformed(offset: usize, message: impl Into<String>) -> ImportError {
    ImportError::Malformed { format: FORMAT, offset: offset as u64, message: message.into() }
}

fn describe_byte(b: &[u8], at: usize) -> String {
    match b.get(at) {
        Some(&c) if (0x21..0x7f).contains(&c) => format!("'{}'", c as char),
        Some(&c) => format!("byte 0x{c:02x}"),
        None => "end of file".into(),
    }
}

struct Driver<'p> {
    progress: &'p mut dyn Progress,
    next_report: usize,
    total: u64,
}

impl Driver<'_> {
    #[inline]
    fn tick(&mut self, pos: usize) -> Result<(), ImportError> {
        if pos >= self.next_report {
            self.next_report = pos + PROGRESS_EVERY;
            if !self.progress.report(pos as u64, self.total) {
                return Err(ImportError::Cancelled);
            }
        }
        Ok(())
    }
}

/// Parse the whole file into the builder. Returns the dialect the content revealed.
pub fn run(bytes: &[u8], b: &mut TraceBuilder, progress: &mut dyn Progress) -> Result<Dialect, ImportError> {
    let mut s = Scan::new(bytes);
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        s.pos = 3;
    }
    let mut d = Driver { progress, next_report: PROGRESS_EVERY, total: bytes.len() as u64 };
    let mut conv = Conv::new(b);
    let mut kineto_keys = false;
    match s.peek_ws() {
        Some(b'[') => {
            let end = events_array(&mut s, &mut conv, &mut d)?;
            match end {
                ArrayEnd::Closed => {
                    if s.peek_ws().is_some() {
                        let at = s.pos;
                        conv.b.warn("trailing_data", || {
                            format!("data after the closing ']' at byte {at} ignored")
                        });
                    }
                }
                // the spec allows the closing ']' to be missing
                ArrayEnd::Eof | ArrayEnd::Stopped => {}
                ArrayEnd::EofInEvent(at) if conv.events == 0 => {
                    return Err(malformed(at, "the file ends inside its first event (truncated?)"));
                }
                ArrayEnd::EofInEvent(at) => {
                    conv.b.warn("truncated_event", || {
                        format!("the file ends inside the event starting at byte {at}; that partial event was skipped")
                    });
                }
            }
        }
        Some(b'{') => kineto_keys = object_form(&mut s, &mut conv, &mut d)?,
        None => return Err(ImportError::Empty),
        Some(_) => {
            return Err(malformed(
                s.pos,
                format!("not JSON trace data: expected '[' or '{{', found {}", describe_byte(bytes, s.pos)),
            ));
        }
    }
    d.progress.report(bytes.len() as u64, bytes.len() as u64);
    if conv.events == 0 {
        conv.b.warn("no_events", || "the file holds no trace events".to_string());
    }
    let mut dialect = conv.finish();
    dialect.kineto |= kineto_keys;
    Ok(dialect)
}

/// The event array at `s.pos` (which is `[`).
fn events_array<'a>(
    s: &mut Scan<'a>,
    conv: &mut Conv<'a, '_>,
    d: &mut Driver<'_>,
) -> Result<ArrayEnd, ImportError> {
    s.pos += 1;
    let mut expect_value = true;
    loop {
        d.tick(s.pos)?;
        match s.peek_ws() {
            None => return Ok(ArrayEnd::Eof),
            Some(b']') => {
                s.pos += 1;
                return Ok(ArrayEnd::Closed);
            }
            Some(b',') => {
                if expect_value {
                    let at = s.pos;
                    conv.b.warn("stray_comma", || {
                        format!("a comma with no event before it at byte {at} was skipped")
                    });
                }
                s.pos += 1;
                expect_value = true;
            }
            Some(b'{') => {
                if !expect_value {
                    let at = s.pos;
                    conv.b.warn("missing_comma", || format!("no comma between events before byte {at}"));
                }
                let start = s.pos;
                let mut ev = Ev::default();
                match parse_event(s, &mut ev, conv) {
                    Ok(()) => {
                        conv.at = start;
                        conv.event(&ev);
                    }
                    Err(ScanError::Eof) => return Ok(ArrayEnd::EofInEvent(start)),
                    Err(ScanError::Unexpected { at, expected }) => {
                        return syntax_error(s.b, conv, at, expected)
                    }
                }
                expect_value = false;
            }
            Some(c) => {
                let at = s.pos;
                if conv.events == 0 {
                    if c == b'[' {
                        let message = if memory_timeline_row(&s.b[at..]) {
                            "a JSON array of arrays, not of trace event objects: this looks like a PyTorch memory \
                             timeline (export_memory_timeline .raw rows [ts, action, bytes, category]), not a Chrome trace"
                                .to_string()
                        } else {
                            format!("a JSON array of arrays (from byte {at}), not of trace event objects")
                        };
                        return Err(ImportError::Unsupported { format: FORMAT, message });
                    }
                    return Err(ImportError::Unsupported {
                        format: FORMAT,
                        message: format!(
                            "the JSON array holds {} at byte {at}, not trace event objects",
                            describe_byte(s.b, at)
                        ),
                    });
                }
                match s.skip_value() {
                    Ok(_) => conv.b.warn("non_object_event", || {
                        format!("array element at byte {at} is not an event object; skipped")
                    }),
                    Err(ScanError::Eof) => return Ok(ArrayEnd::EofInEvent(at)),
                    Err(ScanError::Unexpected { at, expected }) => {
                        return syntax_error(s.b, conv, at, expected)
                    }
                }
                expect_value = false;
            }
        }
    }
}

fn syntax_error(
    b: &[u8],
    conv: &mut Conv<'_, '_>,
    at: usize,
    expected: &'static str,
) -> Result<ArrayEnd, ImportError> {
    let found = describe_byte(b, at);
    if conv.events == 0 {
        return Err(malformed(at, format!("JSON syntax error: expected {expected}, found {found}")));
    }
    let rest = b.len() - at;
    let n = conv.events;
    conv.b.warn("syntax_error", || {
        format!("JSON syntax error at byte {at}: expected {expected}, found {found}; loaded the {n} events before it, skipped the last {rest} bytes")
    });
    Ok(ArrayEnd::Stopped)
}

/// The object form. Returns whether Kineto-only top-level keys were present.
fn object_form<'a>(
    s: &mut Scan<'a>,
    conv: &mut Conv<'a, '_>,
    d: &mut Driver<'_>,
) -> Result<bool, ImportError> {
    let open_at = s.pos;
    s.pos += 1;
    let mut saw_events = false;
    let mut kineto_keys = false;
    let mut keys: Vec<String> = Vec::new();
    let truncated = |conv: &mut Conv<'_, '_>, what: String| {
        conv.b.warn("truncated_file", || what);
    };
    loop {
        match s.peek_ws() {
            Some(b'"') => {}
            Some(b'}') => {
                s.pos += 1;
                break;
            }
            Some(b',') => {
                // trailing / doubled comma between top-level keys: tolerated
                s.pos += 1;
                continue;
            }
            None if saw_events => {
                truncated(
                    conv,
                    "the file ends before the closing '}' of the top-level object (an unfinished write?)"
                        .into(),
                );
                break;
            }
            None => {
                return Err(malformed(
                    s.pos,
                    "the file ends inside the top-level JSON object before any traceEvents",
                ))
            }
            Some(_) => {
                let at = s.pos;
                if saw_events {
                    let found = describe_byte(s.b, at);
                    conv.b.warn("syntax_error", || format!("JSON syntax error at byte {at} after traceEvents (found {found}); the rest was skipped"));
                    break;
                }
                return Err(malformed(
                    at,
                    format!(
                        "JSON syntax error: expected a key in the top-level object, found {}",
                        describe_byte(s.b, at)
                    ),
                ));
            }
        }
        let key_at = s.pos;
        let key = match s.string() {
            Ok(k) => k,
            Err(_) if saw_events => {
                truncated(conv, format!("the file ends inside a top-level key at byte {key_at}"));
                break;
            }
            Err(_) => {
                return Err(malformed(
                    key_at,
                    "the file ends inside the top-level JSON object before any traceEvents",
                ))
            }
        };
        if let Err(e) = s.expect(b':', "':'") {
            if saw_events {
                truncated(conv, format!("the file ends or breaks after the top-level key at byte {key_at}"));
                break;
            }
            return Err(match e {
                ScanError::Eof => {
                    malformed(s.pos, "the file ends inside the top-level JSON object before any traceEvents")
                }
                ScanError::Unexpected { at, .. } => malformed(
                    at,
                    format!("JSON syntax error: expected ':', found {}", describe_byte(s.b, at)),
                ),
            });
        }
        let key_text = String::from_utf8_lossy(key.raw).into_owned();
        if key.raw == b"traceEvents" && s.peek_ws() == Some(b'[') {
            saw_events = true;
            match events_array(s, conv, d)? {
                ArrayEnd::Closed => {}
                ArrayEnd::EofInEvent(at) if conv.events == 0 => {
                    return Err(malformed(
                        at,
                        "the file ends inside the first event of traceEvents (truncated?)",
                    ));
                }
                ArrayEnd::Eof => {
                    let n = conv.events;
                    truncated(conv, format!("the file ends inside traceEvents (an unfinished write?); loaded the {n} complete events"));
                    break;
                }
                ArrayEnd::EofInEvent(at) => {
                    let n = conv.events;
                    truncated(conv, format!("the file ends inside the event at byte {at} (an unfinished write?); loaded the {n} complete events before it"));
                    break;
                }
                ArrayEnd::Stopped => break,
            }
        } else {
            if kineto::is_kineto_top_key(key.raw) {
                kineto_keys = true;
            }
            let (a, b) = match s.skip_value() {
                Ok(span) => span,
                Err(ScanError::Eof) if saw_events => {
                    truncated(conv, format!("the file ends inside the top-level value '{key_text}'"));
                    break;
                }
                Err(ScanError::Eof) => {
                    return Err(malformed(
                        s.b.len(),
                        format!(
                            "the file ends inside the top-level value '{key_text}' before any traceEvents"
                        ),
                    ));
                }
                Err(ScanError::Unexpected { at, expected }) => {
                    if saw_events {
                        conv.b.warn("syntax_error", || format!("JSON syntax error at byte {at} in top-level '{key_text}'; the rest was skipped"));
                        break;
                    }
                    return Err(malformed(
                        at,
                        format!(
                            "JSON syntax error in top-level '{key_text}': expected {expected}, found {}",
                            describe_byte(s.b, at)
                        ),
                    ));
                }
            };
            if key.raw == b"traceEvents" {
                conv.b.warn("bad_trace_events", || "traceEvents is not an array; ignored".into());
            } else {
                top_level_value(conv, &key_text, &s.b[a..b]);
            }
            keys.push(key_text);
        }
        match s.peek_ws() {
            Some(b',') => s.pos += 1,
            Some(b'}') => {
                s.pos += 1;
                break;
            }
            None if saw_events => {
                truncated(conv, "the file ends before the closing '}' of the top-level object".into());
                break;
            }
            None => {
                return Err(malformed(
                    s.pos,
                    "the file ends inside the top-level JSON object before any traceEvents",
                ))
            }
            Some(_) => {
                let at = s.pos;
                if saw_events {
                    conv.b.warn("syntax_error", || {
                        format!("JSON syntax error at byte {at} between top-level keys; the rest was skipped")
                    });
                    break;
                }
                return Err(malformed(
                    at,
                    format!(
                        "JSON syntax error: expected ',' or '}}' in the top-level object, found {}",
                        describe_byte(s.b, at)
                    ),
                ));
            }
        }
    }
    if !saw_events {
        return Err(not_a_trace(&keys, open_at));
    }
    Ok(kineto_keys)
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
fn not_a_trace(keys: &[String], _at: usize) -> ImportError {
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
fn top_level_value(conv: &mut Conv<'_, '_>, key: &str, text: &[u8]) {
    let big_section = matches!(key, "systemTraceEvents" | "samples" | "stackFrames" | "powerTraceAsString");
    if big_section {
        let n = text.len();
        let empty = n <= 2 || text == b"null";
        if !empty && key != "stackFrames" {
            let k = key.to_string();
            conv.b.warn("section_not_imported", || format!("top-level '{k}' ({n} bytes) is not imported"));
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
