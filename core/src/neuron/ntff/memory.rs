//! **SBUF and PSUM occupancy over time** from the executed instruction words, as neuron-profile
//! computes its JSON export's `instruction_usage` rows (`{type: sb|psum, timestamp, usage_avg,
//! partition_{0,32,64,96}_usage, bank_k_usage}`; Explorer Parquet's `SbufUsage` / `PsumUsage`).
//!
//! **The definition** (read off the 92 NTFF/JSON pairs of the corpus, `ntff-v5.md`; it gives
//! every row of every pair, 1,243 rows in 93 files with `samples/neuron/profile_128x128x1024`,
//! `core/tests/neuron_memory_oracle.rs`):
//!
//! - An instruction's data operand covers the per-partition byte range of its access pattern:
//!   start address `a`, element size `e`, steps `s_i` and counts `c_i` (elements) →
//!   `last = a + Σ (c_i − 1)·s_i·e + e − 1`, the range the bytes from `min(a, last)` to
//!   `max(a, last)`, both included. With a negative step this leaves out the start's own element
//!   but one byte and the lowest element but one byte (neuron-profile's arithmetic, kept: an
//!   `LDWEIGHTS src=fp16@0x40fe[-1,0,-32][32,1,4]` covers `0x4001..=0x40fe`, 254 bytes, which is
//!   why the export shows 254 B of a 256 B tile still live after its writer ended).
//! - A **write** makes its bytes live from the writer's start; each later **read** of them keeps
//!   them live until that reader's end; the next write of the same bytes starts a new life. Bytes
//!   never read die at their writer's end. Reads of bytes no counted writer wrote count nothing.
//! - Writers: the compute engines' destination operands (`MATMUL` → PSUM, `ACTIVATE` → SBUF or
//!   PSUM) and the static DMA blocks of the NEFF's data queues (their SBUF destination). Readers:
//!   source operands (`MATMUL`, `LDWEIGHTS`, `ACTIVATE`). GpSimd's software DMA
//!   (`DMA_DIRECT2D`) and the dynamic queues count neither way.
//! - SBUF usage at a time = live bytes / the partition size (192 KiB = 196,608 B on trn1/inf2).
//!   PSUM: 8 banks of 2 KiB per partition; a bank is in use (1) while any of its bytes is live,
//!   `usage_avg` = banks in use / 8; the export lists banks 0 to the highest one used.
//! - A row at every time an interval starts or ends (ns = `floor(ps / 1000)`), with the value
//!   from that time on.
//!
//! **What the NTFF does not carry**: the static DMA blocks' SBUF destination address is in the
//! NEFF's DMA descriptors, not in the capture. From an NTFF alone those writes are left out
//! (callers that know the destination add them with [`MemoryTimeline::write`]: the NTFF
//! importer does when the capture's own JSON export, whose aggregated `dma` rows state it, is
//! dropped with it); in the corpus
//! that is the first weight tile (256 B per partition) from the block's start until the first
//! `MATMUL` that reads it ends. The partition fields of the words are not pinned down either
//! (every access of the corpus spans partitions 0–127), so the four partition groups get the
//! same value, the whole of the partition range.

use super::metadata::Metadata;
use super::opcodes::{opcode_name, NO_DATA_OPERAND};
use super::Ntff;
use crate::strings::FxHashMap;
use std::collections::BTreeMap;

/// SBUF bytes per partition on trn1 / inf2 (24 MiB over 128 partitions).
pub const SBUF_PARTITION_BYTES: u64 = 196_608;
/// PSUM address window (device addresses of the instruction words).
pub const PSUM_BASE: u64 = 0x200_0000;
const PSUM_END: u64 = 0x300_0000;
/// PSUM bank size per partition and bank count (16 KiB per partition on trn1 / inf2).
pub const PSUM_BANK_BYTES: u64 = 0x800;
pub const PSUM_BANKS: u32 = 8;
/// More instructions with data operands than this and the occupancy is not computed (memory
/// for the sort).
pub const MAX_ACCESSES: usize = 50_000_000;

/// Which on-chip memory an operand is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnChip {
    Sbuf,
    Psum,
}

/// One data operand: the per-partition byte range `[lo, hi)` it covers (PSUM ranges relative
/// to [`PSUM_BASE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    pub mem: OnChip,
    pub write: bool,
    pub lo: u64,
    pub hi: u64,
}

/// A word's data operands: up to one read and one write. `None` from [`word_accesses`] = the
/// opcode or a field is outside the known layout (`cost.rs`).
pub type WordAccesses = [Option<Access>; 2];

fn u16_at(w: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*w.get(o)?, *w.get(o + 1)?]))
}
fn u32_at(w: &[u8], o: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes([*w.get(o)?, *w.get(o + 1)?, *w.get(o + 2)?, *w.get(o + 3)?])))
}
fn elem_size(t: u8) -> Option<i64> {
    match t {
        0x7 => Some(2),
        0xA => Some(4),
        _ => None,
    }
}

/// The operand at `o` (address u32, steps i16 at `o+4..o+10`, counts u16 at `o+10..o+16`)
/// with element size `e`: `None` outside the layout, `Some(None)` for an empty pattern or one
/// outside the SBUF / PSUM windows.
fn operand(w: &[u8], o: usize, e: i64, write: bool) -> Option<Option<Access>> {
    let a = u32_at(w, o)?;
    let mut span: i64 = 0;
    for i in 0..3 {
        let step = i64::from(u16_at(w, o + 4 + 2 * i)? as i16);
        let count = i64::from(u16_at(w, o + 10 + 2 * i)?);
        if count == 0 {
            return Some(None);
        }
        span += (count - 1) * step;
    }
    let (mem, base, end) = match a {
        0..PSUM_BASE => (OnChip::Sbuf, 0, PSUM_BASE),
        PSUM_BASE..PSUM_END => (OnChip::Psum, PSUM_BASE, PSUM_END),
        _ => return Some(None),
    };
    let a = a as i64;
    let last = a + span * e + e - 1;
    let lo = a.min(last).clamp(base as i64, end as i64) as u64;
    let hi = (a.max(last) + 1).clamp(base as i64, end as i64) as u64;
    Some((lo < hi).then_some(Access { mem, write, lo: lo - base, hi: hi - base }))
}

/// The data operands of one instruction word (layout in `cost.rs`; the steps are the i16s
/// before each operand's counts). Opcodes without on-chip operands (and `DMA_DIRECT2D`, which
/// neuron-profile does not count here) give none.
pub fn word_accesses(w: &[u8]) -> Option<WordAccesses> {
    let op = *w.first()?;
    Some(match opcode_name(op) {
        "MATMUL" => {
            // neuron-profile sizes the PSUM destination with the source's type
            let e = elem_size(*w.get(32)?)?;
            [operand(w, 16, e, false)?, operand(w, 48, e, true)?]
        }
        "LDWEIGHTS" => [operand(w, 16, elem_size(*w.get(32)?)?, false)?, None],
        "ACTIVATE" => {
            let (es, ed) = (elem_size(*w.get(32)? & 0x0F)?, elem_size(*w.get(33)?)?);
            [operand(w, 16, es, false)?, operand(w, 48, ed, true)?]
        }
        // GpSimd's DMA counts neither way (module doc)
        "DMA_DIRECT2D" => [None, None],
        op if NO_DATA_OPERAND.contains(&op) => [None, None],
        _ => return None,
    })
}

/// The operands of the word at `pc` of `engine`'s runtime program.
pub fn slot_accesses(meta: &Metadata, engine: u8, pc: u32) -> Option<WordAccesses> {
    word_accesses(meta.program(engine)?.slot(pc)?)
}

/// Occupancy series: SBUF live bytes per partition and PSUM banks in use, each a step function
/// `(time ns, value from then on)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemorySeries {
    pub sbuf: Vec<(i64, u64)>,
    /// bit k = bank k in use
    pub psum: Vec<(i64, u32)>,
    /// the highest PSUM bank any access touched (the export's bank columns are 0..=it)
    pub psum_max_bank: Option<u32>,
}

impl MemorySeries {
    pub fn is_empty(&self) -> bool {
        self.sbuf.is_empty() && self.psum.is_empty()
    }
}

/// Accesses collected in any order, turned into [`MemorySeries`] by [`MemoryTimeline::finish`].
/// Kept compact for captures of millions of instructions: 24 bytes per instruction with data
/// operands (its times and the index of its distinct operand set).
#[derive(Debug, Default, Clone)]
pub struct MemoryTimeline {
    ops: Vec<WordAccesses>,
    index: FxHashMap<WordAccesses, u32>,
    events: Vec<(i64, i64, u32)>,
    overflow: bool,
}

impl MemoryTimeline {
    /// An access from `start_ns` to `end_ns` (a write makes its bytes live from `start_ns`, a read
    /// keeps live bytes live until `end_ns`).
    pub fn add(&mut self, start_ns: i64, end_ns: i64, a: Access) {
        self.add_word(start_ns, end_ns, &[Some(a), None]);
    }
    /// A write by something other than an instruction word (a static DMA block with its NEFF
    /// destination).
    pub fn write(&mut self, start_ns: i64, end_ns: i64, mem: OnChip, lo: u64, hi: u64) {
        if lo < hi {
            self.add(start_ns, end_ns, Access { mem, write: true, lo, hi });
        }
    }
    /// The instruction's operands (from [`slot_accesses`]).
    pub fn add_word(&mut self, start_ns: i64, end_ns: i64, ops: &WordAccesses) {
        if ops.iter().all(Option::is_none) {
            return;
        }
        if self.events.len() >= MAX_ACCESSES {
            self.overflow = true;
            return;
        }
        let k = match self.index.get(ops) {
            Some(&k) => k,
            None => {
                let Ok(k) = u32::try_from(self.ops.len()) else {
                    self.overflow = true;
                    return;
                };
                self.ops.push(*ops);
                self.index.insert(*ops, k);
                k
            }
        };
        self.events.push((start_ns, end_ns.max(start_ns), k));
    }
    /// `None` when more than [`MAX_ACCESSES`] were added.
    pub fn finish(mut self) -> Option<MemorySeries> {
        if self.overflow {
            return None;
        }
        // by start, else in the order added; at one start the writes go before the reads
        self.events.sort_by_key(|e| e.0);
        let mut out = MemorySeries::default();
        for mem in [OnChip::Sbuf, OnChip::Psum] {
            let mut live = Live::default();
            let ev = &self.events;
            let mut i = 0;
            while i < ev.len() {
                let s = ev[i].0;
                let j = i + ev[i..].iter().take_while(|x| x.0 == s).count();
                for write in [true, false] {
                    for &(_, e, k) in &ev[i..j] {
                        let Some(ops) = self.ops.get(k as usize) else { continue };
                        for a in ops.iter().flatten().filter(|a| a.mem == mem && a.write == write) {
                            if write {
                                live.write(a.lo, a.hi, s, e);
                            } else {
                                live.read(a.lo, a.hi, e);
                            }
                        }
                    }
                }
                i = j;
            }
            let lives = live.finish();
            match mem {
                OnChip::Sbuf => out.sbuf = sbuf_steps(&lives),
                OnChip::Psum => {
                    out.psum_max_bank =
                        lives.iter().map(|l| ((l.3 - 1) / PSUM_BANK_BYTES).min(31) as u32).max();
                    out.psum = psum_steps(&lives);
                }
            }
        }
        Some(out)
    }
}

/// Live byte ranges: `lo → (hi, since, until)`, disjoint.
#[derive(Default)]
struct Live {
    map: BTreeMap<u64, (u64, i64, i64)>,
    done: Vec<(i64, i64, u64, u64)>,
}

impl Live {
    /// Take the parts of live ranges inside `[lo, hi)` out of the map (the parts outside stay).
    fn carve(&mut self, lo: u64, hi: u64) -> Vec<(u64, u64, i64, i64)> {
        let mut keys: Vec<u64> = Vec::new();
        if let Some((&k, v)) = self.map.range(..lo).next_back() {
            if v.0 > lo {
                keys.push(k);
            }
        }
        keys.extend(self.map.range(lo..hi).map(|(&k, _)| k));
        let mut inside = Vec::with_capacity(keys.len());
        for k in keys {
            let Some((h, s, u)) = self.map.remove(&k) else { continue };
            if k < lo {
                self.map.insert(k, (lo, s, u));
            }
            if h > hi {
                self.map.insert(hi, (h, s, u));
            }
            inside.push((k.max(lo), h.min(hi), s, u));
        }
        inside
    }
    fn write(&mut self, lo: u64, hi: u64, start: i64, end: i64) {
        for (l, h, s, u) in self.carve(lo, hi) {
            self.done.push((s, u, l, h));
        }
        self.map.insert(lo, (hi, start, end));
    }
    fn read(&mut self, lo: u64, hi: u64, end: i64) {
        for (l, h, s, u) in self.carve(lo, hi) {
            self.map.insert(l, (h, s, u.max(end)));
        }
    }
    /// `(since, until, lo, hi)` of every life.
    fn finish(mut self) -> Vec<(i64, i64, u64, u64)> {
        self.done.extend(self.map.into_iter().map(|(l, (h, s, u))| (s, u, l, h)));
        self.done
    }
}

fn sbuf_steps(lives: &[(i64, i64, u64, u64)]) -> Vec<(i64, u64)> {
    let mut ev: Vec<(i64, i64)> = Vec::with_capacity(lives.len() * 2);
    for &(s, u, l, h) in lives {
        let b = (h - l) as i64;
        ev.push((s, b));
        ev.push((u, -b));
    }
    ev.sort_unstable();
    let mut out: Vec<(i64, u64)> = Vec::new();
    let mut cur: i64 = 0;
    for (i, &(t, d)) in ev.iter().enumerate() {
        cur += d;
        if ev.get(i + 1).is_none_or(|n| n.0 != t) {
            out.push((t, cur.max(0) as u64));
        }
    }
    out
}

fn psum_steps(lives: &[(i64, i64, u64, u64)]) -> Vec<(i64, u32)> {
    // per bank: +1 / −1 of the lives touching it
    let mut ev: Vec<(i64, u32, i32)> = Vec::new();
    for &(s, u, l, h) in lives {
        let (b0, b1) = ((l / PSUM_BANK_BYTES).min(31) as u32, ((h - 1) / PSUM_BANK_BYTES).min(31) as u32);
        for b in b0..=b1 {
            ev.push((s, b, 1));
            ev.push((u, b, -1));
        }
    }
    ev.sort_unstable_by_key(|e| (e.0, e.2));
    let mut count = [0i64; 32];
    let mut out: Vec<(i64, u32)> = Vec::new();
    for (i, &(t, b, d)) in ev.iter().enumerate() {
        count[b as usize] += i64::from(d);
        if ev.get(i + 1).is_none_or(|n| n.0 != t) {
            let mask = (0..32).filter(|&k| count[k] > 0).fold(0u32, |m, k| m | 1 << k);
            out.push((t, mask));
        }
    }
    out
}

impl Ntff {
    /// SBUF / PSUM occupancy of the executed NEFF-program instructions (module doc), without
    /// the static DMA blocks (their destination is in the NEFF). `None` when an executed
    /// program word is outside the known layout or there are too many accesses.
    pub fn instruction_memory(&self) -> Option<MemoryTimeline> {
        let mut t = MemoryTimeline::default();
        let mut cache: FxHashMap<(u8, u32), WordAccesses> = FxHashMap::default();
        for ins in &self.instructions {
            if ins.compiler_pc.is_none() {
                continue;
            }
            let ops = match cache.get(&(ins.engine, ins.pc)) {
                Some(o) => *o,
                None => {
                    let o = slot_accesses(&self.metadata, ins.engine, ins.pc)?;
                    cache.insert((ins.engine, ins.pc), o);
                    o
                }
            };
            t.add_word(ins.start_ns(), ins.end_ps.div_euclid(1000), &ops);
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cost::tests::word;
    use super::*;

    #[test]
    fn corpus_words_ranges() {
        // profile_128x128x1000: MATMUL src=fp16@0x2f730[1,0,0][512,1,1] dst=0x2000000[..][512,1,1]
        let mm = word("02100000 00001305 00000000 00000000 30f70200 01000000 00000002 01000100 07000000 00008080 00000003 0f0f1000 00000002 01000000 00000002 01000100");
        let [r, w] = word_accesses(&mm).unwrap();
        assert_eq!(r, Some(Access { mem: OnChip::Sbuf, write: false, lo: 0x2f730, hi: 0x2f730 + 1024 }));
        assert_eq!(w, Some(Access { mem: OnChip::Psum, write: true, lo: 0, hi: 1024 }));
        // LDWEIGHTS src=fp16@0x40fe[-1,0,-32][32,1,4]: 0x4001..=0x40fe
        let ldw = word("01100000 05040000 01000000 00000000 fe400000 ffff0000 e0ff2000 01000400 07000000 00008080 00000000 0f0f0f00 00000000 00000000 00000000 00000000");
        let [r, w] = word_accesses(&ldw).unwrap();
        assert_eq!(r, Some(Access { mem: OnChip::Sbuf, write: false, lo: 0x4001, hi: 0x40ff }));
        assert_eq!(w, None);
        // ACTIVATE src=fp32@0x2000800[..][488] dst=fp16@0x4500[..][488]
        let act = word("21100000 05051304 03000000 01000001 00080002 01000100 0100e801 01000100 aa078080 0000803f 00000000 00000000 00450000 01000100 0100e801 01000100");
        let [r, w] = word_accesses(&act).unwrap();
        assert_eq!(r, Some(Access { mem: OnChip::Psum, write: false, lo: 0x800, hi: 0x800 + 1952 }));
        assert_eq!(w, Some(Access { mem: OnChip::Sbuf, write: true, lo: 0x4500, hi: 0x4500 + 976 }));
        let mut other = mm;
        other[0] = 0x3f;
        assert!(word_accesses(&other).is_none());
    }

    /// The x1000 capture's second half, by hand: two ACTIVATEs overlapping, a tile read later.
    #[test]
    fn lives_and_steps() {
        let sb = |lo, hi, write| Access { mem: OnChip::Sbuf, write, lo, hi };
        let ps = |lo, hi, write| Access { mem: OnChip::Psum, write, lo, hi };
        let mut t = MemoryTimeline::default();
        t.write(10, 20, OnChip::Sbuf, 0x100, 0x200); // static block: 256 B
        t.add(30, 40, sb(0x100, 0x200, false)); // read → lives until 40
        t.add(50, 60, sb(0x4000, 0x4100, true)); // 256 B
        t.add(70, 80, sb(0x4001, 0x40ff, false)); // 254 B kept until 80
        t.add(90, 100, ps(0, 1024, true)); // bank 0
        t.add(95, 110, ps(0x800, 0x900, true)); // bank 1
        t.add(101, 120, ps(0, 1024, false)); // bank 0 until 120
        let s = t.finish().unwrap();
        assert_eq!(s.sbuf, vec![(10, 256), (40, 0), (50, 256), (60, 254), (80, 0)]);
        assert_eq!(s.psum, vec![(90, 1), (95, 3), (110, 1), (120, 0)]);
        assert_eq!(s.psum_max_bank, Some(1));
        // a later write of the same bytes ends the first life at its own end
        let mut t = MemoryTimeline::default();
        t.add(0, 5, sb(0, 100, true));
        t.add(10, 15, sb(0, 100, true));
        t.add(20, 30, sb(50, 100, false));
        assert_eq!(t.finish().unwrap().sbuf, vec![(0, 100), (5, 0), (10, 100), (15, 50), (30, 0)]);
    }
}
