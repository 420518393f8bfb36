//! Kineto's GPU ids (`stream`, `correlation`) read from an args object's text without parsing
//! it: the lazy path ([`super::lazy`]) and the event parser ([`super::events`]) both need them.

use super::scan::{parse_int, Scan};
use crate::model::GpuIds;

/// Kineto's `stream` and `correlation` from an args object's text (top-level keys only).
pub fn kineto_ids(text: &[u8]) -> GpuIds {
    let mut ids = GpuIds::default();
    // One walk over the top-level keys (string and value skips are SIMD searches). A substring
    // pre-check for the two keys cost more than the walk: two byte-by-byte passes over every
    // object, a quarter of a lazy import's instructions. The event parser usually walks the
    // object itself ([`walk_ids`]) and this runs only on the objects it could not walk.
    let mut s = Scan::new(text);
    if s.peek_ws() != Some(b'{') {
        return ids;
    }
    top_level_ids(&mut s, &mut ids);
    ids
}

/// The event parser's skip of a lazily kept args object at `s.pos` (a `{`): the ids of
/// [`kineto_ids`] read on the way, with `s.pos` after the closing `}`. `None` (and `s.pos`
/// undefined) when the object is not well formed at its top level: the caller then skips it
/// the lenient way and leaves the ids to [`kineto_ids`], whose result it would not match.
#[inline]
pub(super) fn walk_ids(s: &mut Scan<'_>) -> Option<GpuIds> {
    let mut ids = GpuIds::default();
    top_level_ids(s, &mut ids).then_some(ids)
}

/// Walk the object whose `{` is at `s.pos`, filling `ids` from its top-level `stream` and
/// `correlation` (the last of a repeated key wins). True when it ended well formed, at its `}`;
/// on anything else `ids` holds what was read before it.
fn top_level_ids(s: &mut Scan<'_>, ids: &mut GpuIds) -> bool {
    s.pos += 1;
    if s.peek_ws() == Some(b'}') {
        s.pos += 1;
        return true;
    }
    loop {
        if s.peek_ws() != Some(b'"') {
            return false;
        }
        let Ok(k) = s.string() else { return false };
        if s.expect(b':', "':'").is_err() {
            return false;
        }
        let slot = match k.raw {
            b"stream" => Some(&mut ids.stream),
            b"correlation" => Some(&mut ids.correlation),
            _ => None,
        };
        s.ws();
        let v_at = s.pos;
        let Ok((a, e)) = s.skip_value() else { return false };
        if let Some(slot) = slot {
            *slot = int_value(&s.b[a.max(v_at)..e]);
        }
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

/// A JSON value's text as an integer the way the GPU analyses read args: an integer, a finite
/// float truncated, or a string holding an integer.
fn int_value(t: &[u8]) -> Option<i64> {
    match t.first()? {
        b'"' => {
            let inner = t.get(1..t.len().saturating_sub(1))?;
            std::str::from_utf8(inner).ok()?.trim().parse().ok()
        }
        c if c.is_ascii_digit() || *c == b'-' => parse_int(t)
            .or_else(|| std::str::from_utf8(t).ok()?.parse::<u64>().ok().and_then(|u| i64::try_from(u).ok()))
            .or_else(|| {
                let f: f64 = std::str::from_utf8(t).ok()?.parse().ok()?;
                f.is_finite().then(|| f.trunc() as i64)
            }),
        _ => None,
    }
}
