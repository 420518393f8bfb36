//! String interning: every name, category and string argument is stored once and referred to by
//! a `StrId` (u32). Id 0 is always the empty string.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash (rustc's hasher): fast for short keys, not DoS-resistant (fine for local files).
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64)
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i)
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64)
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// FNV-1a, 64 bit: stable across builds and platforms, for keys that are stored (annotation
/// fingerprints, link profile keys, the app's model-cache keys). FxHash is not: it may change.
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;

/// Index into a [`StringTable`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    bincode::Encode,
    bincode::Decode,
    serde::Serialize,
)]
pub struct StrId(pub u32);

impl StrId {
    pub const EMPTY: StrId = StrId(0);
}

/// Frozen, read-only string table (part of the model).
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct StringTable {
    /// All strings concatenated.
    bytes: String,
    /// `offsets[i]..offsets[i+1]` is string i.
    offsets: Vec<u32>,
}

impl StringTable {
    pub fn get(&self, id: StrId) -> &str {
        let i = id.0 as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.bytes.get(a as usize..b as usize).unwrap_or(""),
            _ => "",
        }
    }
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.offsets.capacity() * 4
    }
    /// Linear search (for tests and small look-ups; the builder has the hash map).
    pub fn find(&self, s: &str) -> Option<StrId> {
        (0..self.len()).map(|i| StrId(i as u32)).find(|&id| self.get(id) == s)
    }
}

/// The builder-side interner.
#[derive(Debug, Default)]
pub struct Interner {
    map: FxHashMap<Box<str>, StrId>,
    table: StringTable,
}

impl Interner {
    pub fn new() -> Self {
        let mut s = Interner::default();
        s.table.offsets.push(0);
        s.intern("");
        s
    }
    #[inline]
    /// How many distinct strings were interned.
    pub fn len(&self) -> usize {
        self.table.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = StrId(self.table.len() as u32);
        self.table.bytes.push_str(s);
        self.table.offsets.push(self.table.bytes.len() as u32);
        self.map.insert(s.into(), id);
        id
    }
    pub fn get(&self, id: StrId) -> &str {
        self.table.get(id)
    }
    pub fn finish(mut self) -> StringTable {
        self.table.bytes.shrink_to_fit();
        self.table.offsets.shrink_to_fit();
        self.table
    }
}
