//! The raw-string interner of the Chrome importer: strings as they appear in the input (still
//! escaped) → `StrId`, unescaped and interned in the builder only on first sight.
//!
//! Most strings repeat event after event (names, categories, argument keys), so each map has a
//! direct-mapped cache of recent raw slices in front of it, and argument keys are first compared
//! with the key seen at the same position of the previous args object.

use super::scan::{self, RawStr};
use crate::model::TraceBuilder;
use crate::strings::StrId;

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

type RawMap = std::collections::HashMap<Box<[u8]>, StrId, std::hash::BuildHasherDefault<RawHasher>>;

/// Raw input bytes → interned string, for plain strings and for nested JSON argument values.
/// It owns copies of what it remembers (each distinct raw string once in a map, and the recent
/// ones in reused cache slots), so the input may arrive in chunks that are dropped after use
/// (streaming import). The builder is passed in by the caller so that its other fields stay
/// free to borrow.
pub struct RawInterner {
    /// Raw (still escaped) input bytes → interned string.
    strs: RawMap,
    /// Direct-mapped cache in front of `strs` (most strings repeat event after event); each
    /// slot's buffer is reused, so a miss costs a copy, not an allocation, once warm.
    recent: Box<[(Vec<u8>, StrId)]>,
    /// Raw JSON text of nested argument values → interned compact text.
    jsons: RawMap,
    recent_json: Box<[(Vec<u8>, StrId)]>,
    /// Argument key seen at each position of the previous args object.
    key_pred: Box<[(Vec<u8>, StrId)]>,
    /// Scratch for unescaping and compacting.
    buf: Vec<u8>,
}

#[inline(always)]
fn remember(slot: &mut (Vec<u8>, StrId), raw: &[u8], id: StrId) {
    slot.0.clear();
    slot.0.extend_from_slice(raw);
    slot.1 = id;
}

impl RawInterner {
    pub fn new() -> Self {
        RawInterner {
            strs: RawMap::default(),
            recent: vec![(Vec::new(), StrId::EMPTY); 1 << RECENT_BITS].into_boxed_slice(),
            jsons: RawMap::default(),
            // an empty slice never matches a JSON value (those start with '[' or '{')
            recent_json: vec![(Vec::new(), StrId::EMPTY); JSON_RECENT].into_boxed_slice(),
            key_pred: vec![(Vec::new(), StrId::EMPTY); KEY_PRED].into_boxed_slice(),
            buf: Vec::new(),
        }
    }

    /// Intern a string as it appears in the input (unescaped only on first sight).
    #[inline(always)]
    pub fn intern(&mut self, b: &mut TraceBuilder, r: RawStr<'_>) -> StrId {
        let slot = quick_hash(r.raw);
        let (cached, id) = &self.recent[slot];
        if bytes_eq(cached, r.raw) {
            return *id;
        }
        let id = self.intern_slow(b, r);
        remember(&mut self.recent[slot], r.raw, id);
        id
    }

    #[cold]
    #[inline(never)]
    fn intern_slow(&mut self, b: &mut TraceBuilder, r: RawStr<'_>) -> StrId {
        if let Some(&id) = self.strs.get(r.raw) {
            return id;
        }
        let id = if !r.escaped {
            match std::str::from_utf8(r.raw) {
                Ok(s) => b.intern(s),
                Err(_) => b.intern(&String::from_utf8_lossy(r.raw)),
            }
        } else {
            self.buf.clear();
            scan::unescape_into(r.raw, &mut self.buf);
            let s = String::from_utf8_lossy(&self.buf).into_owned();
            b.intern(&s)
        };
        self.strs.insert(r.raw.into(), id);
        id
    }

    /// Intern the argument key at position `pos` of an args object. Writers repeat the same
    /// keys in the same order: try the key seen at this position last time before hashing.
    #[inline(always)]
    pub fn intern_key(&mut self, b: &mut TraceBuilder, pos: usize, k: RawStr<'_>) -> StrId {
        let pos = pos & (KEY_PRED - 1);
        let (pk, pid) = &self.key_pred[pos];
        if bytes_eq(pk, k.raw) {
            *pid
        } else {
            let id = self.intern(b, k);
            remember(&mut self.key_pred[pos], k.raw, id);
            id
        }
    }

    /// Intern nested JSON text in compact form.
    pub fn intern_json(&mut self, b: &mut TraceBuilder, t: &[u8]) -> StrId {
        let slot = quick_hash(t) & (JSON_RECENT - 1);
        let (cached, id) = &self.recent_json[slot];
        if bytes_eq(cached, t) {
            return *id;
        }
        let id = self.intern_json_slow(b, t);
        remember(&mut self.recent_json[slot], t, id);
        id
    }

    #[cold]
    #[inline(never)]
    fn intern_json_slow(&mut self, b: &mut TraceBuilder, t: &[u8]) -> StrId {
        if let Some(&id) = self.jsons.get(t) {
            return id;
        }
        self.buf.clear();
        scan::compact_into(t, &mut self.buf);
        let id = b.intern(&String::from_utf8_lossy(&self.buf));
        self.jsons.insert(t.into(), id);
        id
    }
}
