//! Time: i64 nanoseconds, parsed exactly from decimal text (no f64 drift on absolute timestamps).

/// Why decimal text could not become nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalError {
    /// Not a JSON-style number.
    NotANumber,
    /// A number, but outside the i64 nanosecond range (about ±292 years).
    OutOfRange,
}

impl std::fmt::Display for DecimalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DecimalError::NotANumber => "not a number",
            DecimalError::OutOfRange => "outside the i64 nanosecond range",
        })
    }
}

/// Largest decimal scale that can still matter: `10^38` is the largest power of ten in i128.
const MAX_SCALE: i64 = 38;

/// Parse a JSON number (decimal text, optional sign, fraction and exponent) given in a unit of
/// `ns_per_unit` nanoseconds, into integer nanoseconds. Exact: the digits are scaled with integer
/// arithmetic; digits finer than 1 ns are floored (towards negative infinity).
/// Returns `None` for text that is not a number or does not fit in i64 (see
/// [`parse_decimal_ns_checked`] to tell the two apart).
pub fn parse_decimal_ns(text: &[u8], ns_per_unit: i64) -> Option<i64> {
    parse_decimal_ns_checked(text, ns_per_unit).ok()
}

/// [`parse_decimal_ns`] with the reason for a failure. Runs in time linear in the text whatever
/// the exponent (`0e999999999` is 0, `1e999999999` is [`DecimalError::OutOfRange`], both at once).
pub fn parse_decimal_ns_checked(text: &[u8], ns_per_unit: i64) -> Result<i64, DecimalError> {
    use DecimalError::{NotANumber, OutOfRange};
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
    let mut frac_digits: i64 = 0;
    let mut seen_dot = false;
    let mut dropped_nonzero = false;
    let mut too_many_int_digits = false;
    while i < text.len() {
        let c = text[i];
        if c.is_ascii_digit() {
            if digits < 36 {
                mantissa = mantissa * 10 + (c - b'0') as i128;
                if mantissa != 0 {
                    digits += 1;
                }
                if seen_dot {
                    frac_digits = frac_digits.saturating_add(1);
                }
            } else {
                // beyond i128 precision: integer digits scale, fraction digits are dropped
                if !seen_dot {
                    too_many_int_digits = true;
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
        return Err(NotANumber);
    }
    // the exponent saturates far beyond any scale that matters (no overflow, no loop)
    let mut exp: i64 = 0;
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
            exp = exp.saturating_mul(10).saturating_add((text[i] - b'0') as i64).min(i64::from(i32::MAX));
            i += 1;
        }
        if i == start {
            return Err(NotANumber);
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != text.len() {
        return Err(NotANumber);
    }
    if mantissa == 0 {
        return Ok(0); // zero times any power of ten, however large
    }
    // value = mantissa * 10^(exp - frac_digits) * ns_per_unit
    let mut v = mantissa.checked_mul(ns_per_unit as i128).ok_or(OutOfRange)?;
    if v == 0 {
        return Ok(0);
    }
    if too_many_int_digits {
        return Err(OutOfRange); // more than 36 integer digits (and a non-zero value)
    }
    let scale = exp.saturating_sub(frac_digits);
    if scale >= 0 {
        if scale > MAX_SCALE {
            return Err(OutOfRange);
        }
        v = v.checked_mul(10i128.pow(scale as u32)).ok_or(OutOfRange)?;
    } else if -scale > MAX_SCALE {
        // |v| < 10^38 (i128), so the quotient is 0 (or -1 after flooring a negative)
        v = i128::from(neg);
    } else {
        let d = 10i128.pow((-scale) as u32);
        let q = v / d;
        let r = v % d;
        v = q;
        if neg && (r != 0 || dropped_nonzero) {
            v += 1; // floor of a negative number: round away from zero after negation
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).map_err(|_| OutOfRange)
}

/// `x.checked_mul(k)` for a positive `k` (a constant at the call sites), without the overflow
/// intrinsic: in wasm32 an overflow-checked 64-bit multiply is a 128-bit library call
/// (`__multi3`), which made the device summary's per-span ns → ps scaling most of its time.
#[inline(always)]
pub fn checked_scale(x: i64, k: i64) -> Option<i64> {
    debug_assert!(k > 0);
    (x >= i64::MIN / k && x <= i64::MAX / k).then(|| x * k)
}

/// `x.saturating_mul(k)` for a positive `k`, as [`checked_scale`].
#[inline(always)]
pub fn saturating_scale(x: i64, k: i64) -> i64 {
    checked_scale(x, k).unwrap_or(if x > 0 { i64::MAX } else { i64::MIN })
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
    fn scale_is_the_checked_and_saturating_product() {
        for k in [1, 2, 10, 1000, 1_000_000, 999_983, i64::MAX / 3, i64::MAX] {
            let (lo, hi) = (i64::MIN / k, i64::MAX / k);
            for x in [
                0,
                1,
                -1,
                7,
                -7,
                lo,
                lo.saturating_sub(1),
                lo + 1,
                hi,
                hi - 1,
                hi.saturating_add(1),
                i64::MIN,
                i64::MAX,
            ] {
                assert_eq!(checked_scale(x, k), x.checked_mul(k), "{x} × {k}");
                assert_eq!(saturating_scale(x, k), x.saturating_mul(k), "{x} × {k}");
            }
        }
    }

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
    fn huge_exponents_are_bounded() {
        // zero with any exponent is zero, at once
        assert_eq!(parse_decimal_ns(b"0e999999999", 1000), Some(0));
        assert_eq!(parse_decimal_ns(b"0.000e-999999999999999999999", 1000), Some(0));
        assert_eq!(parse_decimal_ns(b"-0E+2147483647", 1000), Some(0));
        // non-zero: out of range, or floored to 0 / -1
        assert_eq!(parse_decimal_ns_checked(b"1e999999999", 1000), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns_checked(b"1e2147483647", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns_checked(b"1e99999999999999999999999", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns(b"1e-999999999", 1000), Some(0));
        assert_eq!(parse_decimal_ns(b"-1e-999999999", 1000), Some(-1));
        // an exponent near i32::MIN with fraction digits: no overflow in exp - frac_digits
        assert_eq!(parse_decimal_ns(b"1.5e-2147483648", 1000), Some(0));
        assert_eq!(parse_decimal_ns(b"-1.5e-2147483648", 1000), Some(-1));
        assert_eq!(parse_decimal_ns(b"1.5e-99999999999999999999", 1000), Some(0));
        // edges of i64 and of the scale
        assert_eq!(parse_decimal_ns(b"9223372036854775807", 1), Some(i64::MAX));
        assert_eq!(parse_decimal_ns(b"-9223372036854775808", 1), Some(i64::MIN));
        assert_eq!(parse_decimal_ns_checked(b"9223372036854775808", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns(b"9.223372036854775807e18", 1), Some(i64::MAX));
        assert_eq!(parse_decimal_ns(b"1e18", 1), Some(1_000_000_000_000_000_000));
        assert_eq!(parse_decimal_ns_checked(b"1e19", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns_checked(b"1e38", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns_checked(b"1e39", 1), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal_ns(b"1e-38", 1), Some(0));
        assert_eq!(parse_decimal_ns(b"1e-39", 1), Some(0));
        assert_eq!(parse_decimal_ns(b"-1e-39", 1), Some(-1));
        // many fraction digits (more than i128 holds)
        let long = format!("1.{}", "0".repeat(100_000));
        assert_eq!(parse_decimal_ns(long.as_bytes(), 1000), Some(1000));
        let long = format!("-0.{}1", "0".repeat(100_000));
        assert_eq!(parse_decimal_ns(long.as_bytes(), 1000), Some(-1));
        // garbage stays garbage
        assert_eq!(parse_decimal_ns_checked(b"1e", 1), Err(DecimalError::NotANumber));
        assert_eq!(parse_decimal_ns_checked(b"e5", 1), Err(DecimalError::NotANumber));
    }

    #[test]
    fn huge_exponents_are_fast() {
        // 10 000 hostile numbers: with a loop per exponent step this would take hours
        for k in 0..10_000u32 {
            let t = format!("{}e{}", k % 7, 999_999_000 + k);
            let r = parse_decimal_ns_checked(t.as_bytes(), 1000);
            assert!(r == Ok(0) || r == Err(DecimalError::OutOfRange), "{t}: {r:?}");
            let t = format!("3.25e-{}", 2_147_483_000 + k);
            assert_eq!(parse_decimal_ns(t.as_bytes(), 1000), Some(0));
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
