//! The argument buffer of the Chrome importer: one event's `args` object parsed into
//! (key, value) pairs without building a JSON tree, ready for `TraceBuilder::add_args_slice`.

use super::intern::RawInterner;
use super::scan::{self, RawStr, Scan};
use crate::model::{ArgValue, ArgsId, TraceBuilder};
use crate::strings::StrId;

/// The (key, value) pairs of the args object parsed last; reused from event to event.
#[derive(Default)]
pub struct ArgBuf {
    items: Vec<(StrId, ArgValue)>,
}

impl ArgBuf {
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// The pairs parsed last.
    #[inline]
    pub fn items(&self) -> &[(StrId, ArgValue)] {
        &self.items
    }

    /// Parse the `args` object at `s.pos` into the buffer; `s.pos` ends after its `}`.
    /// Returns false on a syntax error (what was parsed before it is kept).
    pub fn scan(&mut self, s: &mut Scan<'_>, strs: &mut RawInterner, b: &mut TraceBuilder) -> bool {
        self.items.clear();
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
                    Ok(r) => ArgValue::Str(strs.intern(b, r)),
                    Err(_) => return false,
                },
                Some(c) if c.is_ascii_digit() || c == b'-' => {
                    let n = s.number();
                    if s.pos == s.b.len() && s.more {
                        // the number may go on in the next chunk: let the caller retry
                        return false;
                    }
                    num_arg(n, strs, b)
                }
                Some(b'{') | Some(b'[') => match s.skip_value() {
                    Ok((x, y)) => ArgValue::Json(strs.intern_json(b, &s.b[x..y])),
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
            let k = strs.intern_key(b, self.items.len(), k);
            self.items.push((k, v));
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
}

/// `{}` with only whitespace inside (or shorter).
pub fn is_empty_object(t: &[u8]) -> bool {
    t.len() <= 2 || t[1..t.len() - 1].iter().all(|&c| scan::is_ws(c))
}

/// The two argument sets of a B/E (or b/e) pair as one: keys of `second` override.
pub fn merge_args(b: &mut TraceBuilder, first: ArgsId, second: ArgsId) -> ArgsId {
    if second == ArgsId::NONE {
        return first;
    }
    if first == ArgsId::NONE {
        return second;
    }
    let mut a = b.args_of(first);
    for (k, v) in b.args_of(second) {
        match a.iter_mut().find(|e| e.0 == k) {
            Some(e) => e.1 = v,
            None => a.push((k, v)),
        }
    }
    b.add_args(a)
}

fn num_arg(t: &[u8], strs: &mut RawInterner, b: &mut TraceBuilder) -> ArgValue {
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
        None => ArgValue::Str(strs.intern(b, RawStr { raw: t, escaped: false })),
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

#[cfg(test)]
pub fn simple_decimal_for_tests(t: &[u8]) -> Option<f64> {
    simple_decimal(t)
}
