//! Byte-level JSON scanning for the Chrome importer: no value tree, no allocation per value.
//!
//! The scanner walks the input once. Strings come back as raw byte slices of the input (still
//! escaped; `escaped` says whether a backslash occurred), numbers as their text, nested values
//! are skipped by bracket counting. Callers unescape only what they keep.
//!
//! The one module allowed `unsafe` (the workspace denies it): 16-byte SIMD loads (SSE2 on
//! x86_64, simd128 on wasm32) in the string and structural-character scans, each block behind a
//! bounds check in its loop condition and a SAFETY comment.
#![allow(unsafe_code)]

/// A JSON string as it appears in the input, without the quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawStr<'a> {
    pub raw: &'a [u8],
    pub escaped: bool,
}

/// Why scanning stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// The input ended inside a value.
    Eof,
    /// A byte that cannot start or continue the expected construct.
    Unexpected { at: usize, expected: &'static str },
}

pub struct Scan<'a> {
    pub b: &'a [u8],
    pub pos: usize,
    /// More input may follow `b` (a chunk of a streamed file): a token that touches the end of
    /// `b` may be incomplete.
    pub more: bool,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn has_byte(w: u64, c: u8) -> u64 {
    let x = w ^ (LO * c as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// Index of the first `"` or `\` at or after `i`. 16 bytes a step with SSE2 (x86_64) or
/// simd128 (wasm32 built with `+simd128`), else 8 bytes a step (SWAR).
#[inline]
pub fn find_quote_or_backslash(b: &[u8], i: usize) -> Option<usize> {
    match find_simd(b, i) {
        Ok(hit) => Some(hit),
        Err(tail) => find_swar(b, tail),
    }
}

/// Scan whole 16-byte blocks: `Ok(first hit)`, or `Err(where the scalar tail has to go on)`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn find_simd(b: &[u8], mut i: usize) -> Result<usize, usize> {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; every load reads b[i..i + 16] with
    // i + 16 <= b.len(), checked by the loop condition.
    unsafe {
        let q = _mm_set1_epi8(b'"' as i8);
        let bs = _mm_set1_epi8(b'\\' as i8);
        while i + 16 <= b.len() {
            let v = _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i);
            let m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
            if m != 0 {
                return Ok(i + m.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    Err(i)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
fn find_simd(b: &[u8], mut i: usize) -> Result<usize, usize> {
    use core::arch::wasm32::*;
    let q = u8x16_splat(b'"');
    let bs = u8x16_splat(b'\\');
    while i + 16 <= b.len() {
        // SAFETY: reads b[i..i + 16], in bounds by the loop condition; v128_load allows
        // unaligned addresses.
        let v = unsafe { v128_load(b.as_ptr().add(i) as *const v128) };
        let m = u8x16_bitmask(v128_or(u8x16_eq(v, q), u8x16_eq(v, bs)));
        if m != 0 {
            return Ok(i + m.trailing_zeros() as usize);
        }
        i += 16;
    }
    Err(i)
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
#[inline(always)]
fn find_simd(_b: &[u8], i: usize) -> Result<usize, usize> {
    Err(i)
}

/// 8 bytes a step (SWAR) from `i` to the end.
#[inline]
fn find_swar(b: &[u8], mut i: usize) -> Option<usize> {
    while i + 8 <= b.len() {
        let w =
            u64::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7]]);
        let t = has_byte(w, b'"') | has_byte(w, b'\\');
        if t != 0 {
            return Some(i + (t.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\\' {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Bytes that can occur in a JSON number.
static NUMBER_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    t[b'.' as usize] = true;
    t[b'-' as usize] = true;
    t[b'+' as usize] = true;
    t[b'e' as usize] = true;
    t[b'E' as usize] = true;
    t
};

#[inline(always)]
pub fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\n' || c == b'\r' || c == b'\t'
}

impl<'a> Scan<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Scan { b, pos: 0, more: false }
    }

    #[inline(always)]
    pub fn ws(&mut self) {
        // common cases first: no blank, or exactly one space (`"key": value, `)
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' => return,
            Some(b' ') => {
                self.pos += 1;
                if matches!(self.b.get(self.pos), Some(&c) if c > b' ') {
                    return;
                }
            }
            None => return,
            _ => {}
        }
        while let Some(&c) = self.b.get(self.pos) {
            if is_ws(c) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline(always)]
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skip whitespace and return the next byte without consuming it.
    #[inline(always)]
    pub fn peek_ws(&mut self) -> Option<u8> {
        self.ws();
        self.peek()
    }

    #[inline]
    pub fn unexpected(&self, expected: &'static str) -> ScanError {
        if self.pos >= self.b.len() {
            ScanError::Eof
        } else {
            ScanError::Unexpected { at: self.pos, expected }
        }
    }

    /// Consume `c` (after whitespace) or fail.
    #[inline]
    pub fn expect(&mut self, c: u8, expected: &'static str) -> Result<(), ScanError> {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// A string starting at the current position (which must be `"`).
    #[inline]
    pub fn string(&mut self) -> Result<RawStr<'a>, ScanError> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            match find_quote_or_backslash(self.b, i) {
                None => {
                    self.pos = self.b.len();
                    return Err(ScanError::Eof);
                }
                Some(j) if self.b[j] == b'"' => {
                    self.pos = j + 1;
                    return Ok(RawStr { raw: &self.b[start..j], escaped });
                }
                Some(j) => {
                    escaped = true;
                    i = j + 2;
                    if i > self.b.len() {
                        self.pos = self.b.len();
                        return Err(ScanError::Eof);
                    }
                }
            }
        }
    }

    /// The text of a number starting at the current position.
    #[inline]
    pub fn number(&mut self) -> &'a [u8] {
        let start = self.pos;
        let b = self.b;
        let mut i = start;
        while i < b.len() && NUMBER_CHAR[b[i] as usize] {
            i += 1;
        }
        self.pos = i;
        &b[start..i]
    }

    /// A bare word (`true`, `false`, `null`, or garbage) at the current position.
    #[inline]
    pub fn word(&mut self) -> &'a [u8] {
        let start = self.pos;
        let b = self.b;
        let mut i = start;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        self.pos = i;
        &b[start..i]
    }

    /// Skip one value of any kind; returns its span.
    pub fn skip_value(&mut self) -> Result<(usize, usize), ScanError> {
        self.ws();
        let start = self.pos;
        match self.peek() {
            None => return Err(ScanError::Eof),
            Some(b'"') => {
                self.string()?;
            }
            Some(b'{') | Some(b'[') => self.skip_container()?,
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                self.number();
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let w = self.word();
                if !matches!(w, b"true" | b"false" | b"null") {
                    if self.pos >= self.b.len()
                        && (b"true".starts_with(w) || b"false".starts_with(w) || b"null".starts_with(w))
                    {
                        return Err(ScanError::Eof);
                    }
                    return Err(ScanError::Unexpected { at: start, expected: "a JSON value" });
                }
            }
            Some(_) => return Err(ScanError::Unexpected { at: start, expected: "a JSON value" }),
        }
        Ok((start, self.pos))
    }

    /// Skip an object or array by bracket counting (strings honoured). Brackets of the wrong
    /// kind are accepted (the content is only kept as text), commas and colons are not checked.
    fn skip_container(&mut self) -> Result<(), ScanError> {
        let b = self.b;
        let mut depth = 0usize;
        let mut i = self.pos;
        while let Some(j) = find_structural(b, i) {
            match b[j] {
                b'"' => {
                    self.pos = j;
                    self.string()?;
                    i = self.pos;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                _ => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = j + 1;
                        return Ok(());
                    }
                }
            }
            i = j + 1;
        }
        self.pos = b.len();
        Err(ScanError::Eof)
    }
}

/// Index of the next `"`, `{`, `}`, `[` or `]` at or after `i`.
#[inline]
fn find_structural(b: &[u8], mut i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is baseline on x86_64; loads read b[i..i + 16] with i + 16 <= b.len().
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let (o1, c1) = (_mm_set1_epi8(b'{' as i8), _mm_set1_epi8(b'}' as i8));
            let (o2, c2) = (_mm_set1_epi8(b'[' as i8), _mm_set1_epi8(b']' as i8));
            while i + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i);
                let braces = _mm_or_si128(_mm_cmpeq_epi8(v, o1), _mm_cmpeq_epi8(v, c1));
                let brackets = _mm_or_si128(_mm_cmpeq_epi8(v, o2), _mm_cmpeq_epi8(v, c2));
                let hit = _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_or_si128(braces, brackets));
                let m = _mm_movemask_epi8(hit);
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let (q, o1, c1, o2, c2) =
            (u8x16_splat(b'"'), u8x16_splat(b'{'), u8x16_splat(b'}'), u8x16_splat(b'['), u8x16_splat(b']'));
        while i + 16 <= b.len() {
            // SAFETY: reads b[i..i + 16], in bounds by the loop condition; unaligned is allowed.
            let v = unsafe { v128_load(b.as_ptr().add(i) as *const v128) };
            let hit = v128_or(
                u8x16_eq(v, q),
                v128_or(v128_or(u8x16_eq(v, o1), u8x16_eq(v, c1)), v128_or(u8x16_eq(v, o2), u8x16_eq(v, c2))),
            );
            let m = u8x16_bitmask(hit);
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    while i < b.len() {
        if matches!(b[i], b'"' | b'{' | b'}' | b'[' | b']') {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Decode JSON string escapes into `out` (appended). Invalid escapes are kept literally, lone
/// surrogates become U+FFFD. The result may still be invalid UTF-8 if the input was.
pub fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            // copy a run
            let j = raw[i..].iter().position(|&c| c == b'\\').map_or(raw.len(), |p| i + p);
            out.extend_from_slice(&raw[i..j]);
            i = j;
            continue;
        }
        let Some(&e) = raw.get(i + 1) else {
            out.push(b'\\');
            break;
        };
        i += 2;
        match e {
            b'"' => out.push(b'"'),
            b'\\' => out.push(b'\\'),
            b'/' => out.push(b'/'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let Some(hi) = hex4(raw, i) else {
                    out.extend_from_slice(b"\\u");
                    continue;
                };
                i += 4;
                let cp = if (0xD800..0xDC00).contains(&hi) {
                    match (raw.get(i), raw.get(i + 1), hex4(raw, i + 2)) {
                        (Some(b'\\'), Some(b'u'), Some(lo)) if (0xDC00..0xE000).contains(&lo) => {
                            i += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        _ => 0xFFFD,
                    }
                } else if (0xDC00..0xE000).contains(&hi) {
                    0xFFFD
                } else {
                    hi
                };
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut tmp = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(i..i + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Copy a JSON value's text without insignificant whitespace (strings are copied verbatim).
pub fn compact_into(text: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if c == b'"' {
            let end = match find_quote_or_backslash_end(text, i + 1) {
                Some(e) => e,
                None => text.len(),
            };
            out.extend_from_slice(&text[i..end]);
            i = end;
        } else {
            if !is_ws(c) {
                out.push(c);
            }
            i += 1;
        }
    }
}

/// End (exclusive, after the closing quote) of a string whose content starts at `i`.
fn find_quote_or_backslash_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let j = find_quote_or_backslash(b, i)?;
        if b[j] == b'"' {
            return Some(j + 1);
        }
        i = j + 2;
        if i > b.len() {
            return None;
        }
    }
}

/// Parse microseconds text into nanoseconds. Fast path for plain non-negative decimals with up to
/// 16 integer digits (absolute µs timestamps); everything else goes through the exact general
/// parser.
#[inline]
pub fn parse_us(text: &[u8]) -> Option<i64> {
    let mut v: i64 = 0;
    let mut i = 0;
    let n = text.len();
    while i < n {
        let c = text[i];
        if c.is_ascii_digit() {
            v = v * 10 + (c - b'0') as i64;
            i += 1;
            if i > 16 {
                return crate::time::parse_decimal_ns(text, 1000);
            }
        } else {
            break;
        }
    }
    if i == 0 {
        return crate::time::parse_decimal_ns(text, 1000);
    }
    let mut frac = 0i64;
    let mut fd = 0;
    if i < n {
        if text[i] != b'.' {
            return crate::time::parse_decimal_ns(text, 1000);
        }
        i += 1;
        let fs = i;
        while i < n {
            let c = text[i];
            if !c.is_ascii_digit() {
                return crate::time::parse_decimal_ns(text, 1000);
            }
            if fd < 3 {
                frac = frac * 10 + (c - b'0') as i64;
                fd += 1;
            }
            i += 1;
        }
        if i == fs {
            return crate::time::parse_decimal_ns(text, 1000);
        }
    }
    while fd < 3 {
        frac *= 10;
        fd += 1;
    }
    crate::time::checked_scale(v, 1000)?.checked_add(frac)
}

/// Parse an integer (optionally negative) that fits in i64.
#[inline]
pub fn parse_int(text: &[u8]) -> Option<i64> {
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    // at most 19 digits: no u64 overflow (and no per-digit checked multiply, a 128-bit library
    // call in wasm32)
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u64;
    }
    let v = i64::try_from(v).ok()?;
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_quotes() {
        let s = b"abcdefghijklmnop\"q";
        assert_eq!(find_quote_or_backslash(s, 0), Some(16));
        assert_eq!(find_quote_or_backslash(b"ab\\c\"", 0), Some(2));
        assert_eq!(find_quote_or_backslash(b"abc", 0), None);
        for n in 0..40 {
            let mut v = vec![b'x'; n];
            v.push(b'"');
            assert_eq!(find_quote_or_backslash(&v, 0), Some(n));
            assert_eq!(find_swar(&v, 0), Some(n));
            v.extend_from_slice(b"yyyyyyyyyyyyyyyyyyyy");
            assert_eq!(find_quote_or_backslash(&v, 0), Some(n));
            v[n] = b'y';
            assert_eq!(find_quote_or_backslash(&v, 0), None);
            for start in 0..v.len() {
                assert_eq!(find_quote_or_backslash(&v, start), None);
            }
        }
    }

    #[test]
    fn strings_and_skips() {
        let mut s = Scan::new(br#""a\"b" rest"#);
        let r = s.string().unwrap();
        assert_eq!(r.raw, br#"a\"b"#);
        assert!(r.escaped);
        let mut s = Scan::new(br#" {"a": [1, {"b": "]"}], "c": null} x"#);
        assert_eq!(s.skip_value().unwrap(), (1, 34));
        let mut s = Scan::new(br#"{"a": [1, 2"#);
        assert_eq!(s.skip_value(), Err(ScanError::Eof));
        let mut s = Scan::new(b"tru");
        assert_eq!(s.skip_value(), Err(ScanError::Eof));
        let mut s = Scan::new(b"xyz");
        assert!(matches!(s.skip_value(), Err(ScanError::Unexpected { .. })));
    }

    #[test]
    fn structural() {
        let text = b"abcdefghijklmnopqrstuvwxyzYZ_^\\{xyzabcdefghijklmnop]";
        assert_eq!(find_structural(text, 0), Some(31));
        assert_eq!(find_structural(text, 32), Some(text.len() - 1));
        for c in [b'"', b'{', b'}', b'[', b']'] {
            for n in 0..40 {
                let mut v = vec![b'Y'; n];
                v.extend_from_slice(b"_\\Z");
                v.push(c);
                v.extend_from_slice(&[b'x'; 20]);
                assert_eq!(find_structural(&v, 0), Some(n + 3));
            }
        }
    }

    #[test]
    fn unescapes() {
        let mut o = Vec::new();
        unescape_into(br#"a\n\"\u00e9\ud83d\ude00\u12"#, &mut o);
        assert_eq!(String::from_utf8_lossy(&o), "a\n\"é😀\\u12");
        let mut o = Vec::new();
        compact_into(b"[ 1, { \"a b\" : 2 } ]", &mut o);
        assert_eq!(o, b"[1,{\"a b\":2}]");
    }

    #[test]
    fn micros() {
        assert_eq!(parse_us(b"12.345"), Some(12345));
        assert_eq!(parse_us(b"12"), Some(12000));
        assert_eq!(parse_us(b"12.3456"), Some(12345));
        assert_eq!(parse_us(b"1.5"), Some(1500));
        assert_eq!(parse_us(b"-1.5"), Some(-1500));
        assert_eq!(parse_us(b"1e3"), Some(1_000_000));
        assert_eq!(parse_us(b"1694039959123456.789"), Some(1_694_039_959_123_456_789));
        assert_eq!(parse_us(b"9223372036854775.807"), Some(i64::MAX));
        assert_eq!(parse_us(b"9223372036854775.808"), None);
        assert_eq!(parse_us(b"9999999999999999"), None);
        assert_eq!(parse_us(b"12345678901234567"), None);
        assert_eq!(parse_us(b"null"), None);
        assert_eq!(parse_int(b"-12"), Some(-12));
        assert_eq!(parse_int(b"1.2"), None);
    }
}
