//! Time: i64 nanoseconds, parsed exactly from decimal text (no f64 drift on absolute timestamps).

/// Parse a JSON number (decimal text, optional sign, fraction and exponent) given in a unit of
/// `ns_per_unit` nanoseconds, into integer nanoseconds. Exact: the digits are scaled with integer
/// arithmetic; digits finer than 1 ns are floored (towards negative infinity).
/// Returns `None` for text that is not a number or does not fit in i64.
pub fn parse_decimal_ns(text: &[u8], ns_per_unit: i64) -> Option<i64> {
    let mut i = 0;
    let neg = match text.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut mantissa: i128 = 0;
    let mut digits = 0u32;
    let mut frac_digits: i32 = 0;
    let mut seen_dot = false;
    let mut dropped_nonzero = false;
    while i < text.len() {
        let c = text[i];
        if c.is_ascii_digit() {
            if digits < 36 {
                mantissa = mantissa * 10 + (c - b'0') as i128;
                if mantissa != 0 {
                    digits += 1;
                }
                if seen_dot {
                    frac_digits += 1;
                }
            } else {
                // beyond i128 precision: integer digits scale, fraction digits are dropped
                if !seen_dot {
                    return None;
                }
                if c != b'0' {
                    dropped_nonzero = true;
                }
            }
        } else if c == b'.' && !seen_dot {
            seen_dot = true;
        } else {
            break;
        }
        i += 1;
    }
    let had_digits = i > usize::from(neg || text.first() == Some(&b'+')) + usize::from(seen_dot);
    if !had_digits {
        return None;
    }
    let mut exp: i32 = 0;
    if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
        i += 1;
        let eneg = match text.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add((text[i] - b'0') as i32);
            i += 1;
        }
        if i == start {
            return None;
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != text.len() {
        return None;
    }
    // value = mantissa * 10^(exp - frac_digits) * ns_per_unit
    let mut v = mantissa.checked_mul(ns_per_unit as i128)?;
    let scale = exp - frac_digits;
    if scale >= 0 {
        for _ in 0..scale {
            v = v.checked_mul(10)?;
            if v > i64::MAX as i128 * 10 {
                return None;
            }
        }
    } else {
        let div = 10i128.checked_pow((-scale) as u32);
        match div {
            Some(d) => {
                let q = v / d;
                let r = v % d;
                v = q;
                if neg && (r != 0 || dropped_nonzero) {
                    v += 1; // floor of a negative number: round away from zero after negation
                }
            }
            None => v = if neg && mantissa != 0 { 1 } else { 0 },
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// Format a duration in nanoseconds with a readable unit ("1.25 ms", "340 ns").
pub fn format_duration_ns(ns: i64) -> String {
    let a = ns.unsigned_abs() as f64;
    let sign = if ns < 0 { "-" } else { "" };
    let (v, unit) = if a >= 1e9 {
        (a / 1e9, "s")
    } else if a >= 1e6 {
        (a / 1e6, "ms")
    } else if a >= 1e3 {
        (a / 1e3, "µs")
    } else {
        return format!("{sign}{} ns", ns.unsigned_abs());
    };
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{sign}{s} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_micros() {
        assert_eq!(parse_decimal_ns(b"12.345", 1000), Some(12345));
        assert_eq!(parse_decimal_ns(b"0", 1000), Some(0));
        assert_eq!(parse_decimal_ns(b"1e3", 1000), Some(1_000_000));
        assert_eq!(parse_decimal_ns(b"1.5E-3", 1000), Some(1));
        assert_eq!(parse_decimal_ns(b"-2.5", 1000), Some(-2500));
        assert_eq!(parse_decimal_ns(b"12.3456", 1000), Some(12345));
        assert_eq!(parse_decimal_ns(b"-0.0001", 1000), Some(-1));
        // 19 significant digits: f64 would drift, we do not
        assert_eq!(parse_decimal_ns(b"1694039959123456.789", 1000), Some(1_694_039_959_123_456_789));
        assert_eq!(parse_decimal_ns(b"123", 1), Some(123));
    }

    #[test]
    fn rejects_garbage() {
        for t in [&b""[..], b"-", b".", b"1.2.3", b"abc", b"1e", b"12x", b"1e400", b"99999999999999999999"] {
            assert_eq!(parse_decimal_ns(t, 1000), None, "{:?}", std::str::from_utf8(t));
        }
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration_ns(340), "340 ns");
        assert_eq!(format_duration_ns(1_250_000), "1.25 ms");
        assert_eq!(format_duration_ns(2_000_000_000), "2 s");
        assert_eq!(format_duration_ns(15_300), "15.3 µs");
    }
}
