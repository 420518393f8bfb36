//! Record-area decoding (ntff-v5.md §3-§7). Hot loops: no per-record allocation, pre-sized
//! outputs, FIFO pairing through intrusive linked lists over pooled slots.

use super::metadata::{compiler_pc_map, Metadata, SyncEntry};
use super::opcodes::{NOTIFY_HINT_OFFSET, OP_MATMUL, OP_NOTIFY};
use super::{
    DmaPacket, EngineCounts, Instruction, Profile, RecordStats, SemaphoreOp, SemaphoreUpdate, T0Source,
    Throttle, WarningKind, Warnings, DMA_SYNC_SLOT, ENGINE_COUNT, ENGINE_SUBGROUPS, ENGINE_SYNC_SLOT,
    EVENT_SYNC_SLOT, RECORD_LEN, THROTTLE_SYNC_SLOT,
};

/// What the decoder found besides the instructions and DMA packets (those go to an
/// [`EventSink`]).
pub(crate) struct Decoded {
    pub profile: Profile,
    pub semaphore_updates: Vec<SemaphoreUpdate>,
    pub throttles: Vec<Throttle>,
    pub stats: RecordStats,
}

/// Upper bounds of the events the decoder is about to hand an [`EventSink`], told once before
/// the first one (for sizing its outputs).
#[derive(Debug, Clone, Default)]
pub struct Expected {
    /// Instruction rows: at most half the instruction records.
    pub instructions: usize,
    /// DMA packet rows: at most a third of the DMA records.
    pub dma_packets: usize,
    /// Instruction start records per [`Instruction::label`] key `engine * 2 + matmul` (matmul:
    /// [`Instruction::is_tensor_matrix`]): an upper bound of each label's rows.
    pub starts_per_label: [usize; 2 * ENGINE_COUNT],
}

/// Where the decoder puts the instruction and DMA-packet rows as it pairs them, in the order
/// of [`super::Ntff::instructions`] / [`super::Ntff::dma_packets`], with their final times
/// (relative to T0): an importer can build its model from them without holding them.
pub trait EventSink {
    /// Called once, before any row.
    fn expect(&mut self, _e: &Expected) {}
    fn instruction(&mut self, ins: Instruction);
    fn dma_packet(&mut self, p: DmaPacket);
}

/// The sink that keeps every row ([`super::parse`]).
#[derive(Default)]
pub(crate) struct Collect {
    pub instructions: Vec<Instruction>,
    pub dma_packets: Vec<DmaPacket>,
}

impl EventSink for Collect {
    fn expect(&mut self, e: &Expected) {
        self.instructions.reserve_exact(e.instructions);
        self.dma_packets.reserve_exact(e.dma_packets);
    }
    #[inline]
    fn instruction(&mut self, ins: Instruction) {
        self.instructions.push(ins);
    }
    #[inline]
    fn dma_packet(&mut self, p: DmaPacket) {
        self.dma_packets.push(p);
    }
}

const NONE: u32 = u32::MAX;

/// `ps = floor((t - S) * M / D)` on the common timeline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    s: u64,
    m: u64,
    d: u64,
    /// `u64::MAX / d`: `mulhi(p, inv)` is `floor(p / d)` or one less (fixed up below).
    inv: u64,
}

impl Clock {
    pub(crate) fn new(e: &SyncEntry) -> Option<Clock> {
        (e.divisor != 0).then(|| Clock {
            s: e.counter_at_sync,
            m: e.multiplier,
            d: e.divisor,
            inv: u64::MAX / e.divisor,
        })
    }

    #[inline(always)]
    pub(crate) fn ps(self, t: u64) -> Option<i64> {
        if t >= self.s {
            if let Some(p) = (t - self.s).checked_mul(self.m) {
                // floor(p / d) without a hardware divide: inv <= 2^64/d, so the estimate is
                // q or q - 1 (p < 2^64).
                let mut q = ((p as u128 * self.inv as u128) >> 64) as u64;
                if p - q * self.d >= self.d {
                    q += 1;
                }
                if q <= i64::MAX as u64 {
                    return Some(q as i64);
                }
                return None;
            }
        }
        self.ps_wide(t)
    }

    #[cold]
    #[inline(never)]
    fn ps_wide(self, t: u64) -> Option<i64> {
        let delta = t as i128 - self.s as i128;
        let p = delta.checked_mul(self.m as i128)?;
        i64::try_from(p.div_euclid(self.d as i128)).ok()
    }
}

#[inline(always)]
fn words(r: &[u8; 16]) -> (u32, u32, u64) {
    (
        u32::from_le_bytes([r[0], r[1], r[2], r[3]]),
        u32::from_le_bytes([r[4], r[5], r[6], r[7]]),
        u64::from_le_bytes([r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]]),
    )
}

/// FIFO queues keyed by a dense index, sharing one pool of nodes (freed nodes are reused).
struct Fifos<T: Copy> {
    head: Vec<u32>,
    tail: Vec<u32>,
    nodes: Vec<(T, u32)>,
    free: u32,
}

impl<T: Copy> Fifos<T> {
    fn new(keys: usize) -> Self {
        Fifos { head: vec![NONE; keys], tail: vec![NONE; keys], nodes: Vec::new(), free: NONE }
    }
    #[inline(always)]
    fn push(&mut self, key: usize, v: T) {
        let idx = if self.free != NONE {
            let i = self.free;
            let n = &mut self.nodes[i as usize];
            self.free = n.1;
            *n = (v, NONE);
            i
        } else {
            self.nodes.push((v, NONE));
            (self.nodes.len() - 1) as u32
        };
        let t = self.tail[key];
        if t == NONE {
            self.head[key] = idx;
        } else {
            self.nodes[t as usize].1 = idx;
        }
        self.tail[key] = idx;
    }
    #[inline(always)]
    fn pop(&mut self, key: usize) -> Option<T> {
        let h = self.head[key];
        if h == NONE {
            return None;
        }
        let (v, next) = self.nodes[h as usize];
        self.head[key] = next;
        if next == NONE {
            self.tail[key] = NONE;
        }
        self.nodes[h as usize].1 = self.free;
        self.free = h;
        Some(v)
    }
    fn len_outstanding(&self) -> u64 {
        let mut n = 0u64;
        for &h in &self.head {
            let mut i = h;
            while i != NONE {
                n += 1;
                i = self.nodes[i as usize].1;
            }
        }
        n
    }
}

/// Split the record area into per-type block lists (types 0..=5), checking the tiling.
///
/// Descriptors are validated against the file: each is clamped to the record area, and bytes
/// that an earlier descriptor (in file order) already claimed are not handed out again: a block
/// overlapping earlier ones keeps only its unclaimed pieces (whole records of its own), a block
/// inside claimed bytes is dropped. So every byte is decoded at most once and the output tables
/// are sized by what the file holds, whatever the descriptors claim (issue 7 §2).
fn blocks<'a>(area: &'a [u8], meta: &Metadata, w: &mut Warnings) -> [Vec<&'a [u8]>; 6] {
    let mut out: [Vec<&[u8]>; 6] = Default::default();
    let len = area.len() as u64;
    let rec = RECORD_LEN as u64;
    // claimed byte ranges, disjoint: start -> end
    let mut claimed: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let mut overlap = 0u64;
    for d in &meta.blocks {
        let start = d.offset_bytes.min(len);
        let want_end = d.offset_bytes.saturating_add(d.size_bytes);
        let end = want_end.min(len);
        if want_end > len {
            w.add(WarningKind::BlockOutOfRange, || {
                format!(
                    "block type {} wants bytes {}..{} of a {len}-byte record area",
                    d.notification_type, d.offset_bytes, want_end
                )
            });
        }
        if !(end - start).is_multiple_of(rec) {
            w.add(WarningKind::BlockMisaligned, || {
                format!("block type {} has {} bytes (not a multiple of 16)", d.notification_type, end - start)
            });
        }
        if start >= end {
            continue;
        }
        let Some(list) = out.get_mut(d.notification_type as usize).filter(|_| d.notification_type != 3)
        else {
            w.add(WarningKind::UnknownBlockType, || {
                format!("block type {} ({} bytes) ignored", d.notification_type, end - start)
            });
            continue;
        };
        // claimed ranges touching [start, end): the one starting at or before `start`, then the rest
        let mut touching: Vec<(u64, u64)> = Vec::new();
        if let Some((&s0, &e0)) = claimed.range(..=start).next_back() {
            if e0 > start {
                touching.push((s0, e0));
            }
        }
        touching.extend(claimed.range(start.saturating_add(1)..end).map(|(&a, &b)| (a, b)));
        // unclaimed pieces, cut to whole records of this block
        let mut at = start;
        let piece = |from: u64, to: u64, list: &mut Vec<&'a [u8]>| {
            let from = start + (from - start).div_ceil(rec) * rec;
            let to = if to == end { end } else { start + (to - start) / rec * rec };
            if from < to {
                list.push(&area[from as usize..to as usize]);
            }
        };
        for &(cs, ce) in &touching {
            if cs > at {
                piece(at, cs, list);
            }
            overlap += ce.min(end) - cs.max(start);
            at = at.max(ce);
        }
        if at < end {
            piece(at, end, list);
        }
        // merge [start, end) with what it touches
        let (mut ms, mut me) = (start, end);
        for (cs, ce) in touching {
            claimed.remove(&cs);
            ms = ms.min(cs);
            me = me.max(ce);
        }
        claimed.insert(ms, me);
    }
    let covered: u64 = claimed.iter().map(|(s, e)| e - s).sum();
    let gaps = len - covered.min(len);
    if gaps > 0 || overlap > 0 {
        w.add(WarningKind::BlockTiling, || {
            format!("record area: {gaps} bytes in no block, {overlap} bytes claimed again (decoded once)")
        });
    }
    out
}

fn records(blocks: &[&[u8]]) -> usize {
    blocks.iter().map(|b| b.len() / RECORD_LEN).sum()
}

struct EngineCtx<'a> {
    clock: Option<Clock>,
    base16: u16,
    slots: u32,
    key_off: usize,
    code: &'a [u8],
    cpc: Vec<u32>,
    /// Runtime pcs of NOTIFY instructions with hint 2 (profile start markers).
    hint2_pcs: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Open {
    ps: i64,
    w1: u32,
    flags: u8,
}

/// What pass 0 found: per engine the earliest NOTIFY(hint 2) end and the number of such pairs,
/// and the start records per label key ([`Expected::starts_per_label`]).
struct Pass0 {
    ends: [Option<i64>; ENGINE_COUNT],
    counts: [u32; ENGINE_COUNT],
    starts_per_label: [usize; 2 * ENGINE_COUNT],
}

/// Pass 0 over block 0: pair only the records of NOTIFY(hint 2) slots and return, per engine,
/// the earliest end and the number of such pairs; count the start records per label. Cheap (a
/// few compares per record), and it lets the main passes cut the window and make times
/// relative, and a sink size its outputs, without a second pass over the rows.
fn notify_hint2_ends(blk0: &[&[u8]], engines: &[EngineCtx]) -> Pass0 {
    let mut ends = [None; ENGINE_COUNT];
    let mut counts = [0u32; ENGINE_COUNT];
    let mut starts = [0usize; 2 * ENGINE_COUNT];
    // Dense keys: (engine, ordinal of the hint-2 slot within that engine).
    let mut offs = [0usize; ENGINE_COUNT];
    let mut total = 0usize;
    let idx: Vec<Vec<u32>> = engines
        .iter()
        .enumerate()
        .map(|(e, eng)| {
            offs[e] = total;
            let mut v = vec![NONE; if eng.hint2_pcs.is_empty() { 0 } else { eng.slots as usize }];
            for (k, &pc) in eng.hint2_pcs.iter().enumerate() {
                if let Some(x) = v.get_mut(pc as usize) {
                    *x = k as u32;
                }
            }
            total += eng.hint2_pcs.len();
            v
        })
        .collect();
    let mut fifo: Fifos<i64> = Fifos::new(total);
    for b in blk0 {
        let (recs, _) = b.as_chunks::<16>();
        for r in recs {
            let (w0, _, t) = words(r);
            let cls = (w0 >> 24) as u8;
            let e = ((cls & 0x7C) >> 2).wrapping_sub(1) as usize;
            let kind = cls & 3;
            if cls & 0x80 == 0 || e >= ENGINE_COUNT || kind > 1 {
                continue;
            }
            let eng = &engines[e];
            let pc = (w0 as u16).wrapping_sub(eng.base16) as usize;
            if kind == 0 && pc < eng.slots as usize {
                let matmul = e == 0 && eng.code.get(pc * 64) == Some(&OP_MATMUL);
                starts[e * 2 + usize::from(matmul)] += 1;
            }
            let Some(&k) = idx[e].get(pc) else { continue };
            if k == NONE {
                continue;
            }
            let Some(ps) = eng.clock.and_then(|c| c.ps(t)) else { continue };
            let key = offs[e] + k as usize;
            if kind == 0 {
                fifo.push(key, ps);
            } else if fifo.pop(key).is_some() {
                counts[e] += 1;
                ends[e] = Some(ends[e].map_or(ps, |x: i64| x.min(ps)));
            }
        }
    }
    Pass0 { ends, counts, starts_per_label: starts }
}

/// Decode the record area: instruction and DMA-packet rows go to `out` as they are paired (with
/// their final times), the rest is returned. Without a profile start (no NOTIFY(hint 2) pair)
/// the times are made relative to the earliest decoded one, known only at the end: then the rows
/// are held, shifted, and handed over after.
pub(crate) fn decode<E: EventSink>(area: &[u8], meta: &Metadata, w: &mut Warnings, out: &mut E) -> Decoded {
    let blk = blocks(area, meta, w);
    let st = RecordStats::default();

    let mut key_total = 0usize;
    let engines: Vec<EngineCtx> = (0..ENGINE_COUNT as u8)
        .map(|e| {
            let prog = meta.program(e);
            let slots = prog.map(|p| p.slot_count.min(65536)).unwrap_or(0);
            let code = prog.map(|p| p.code.as_slice()).unwrap_or(&[]);
            let hint2_pcs = (0..slots)
                .filter(|&pc| {
                    let o = pc as usize * 64;
                    code.get(o) == Some(&OP_NOTIFY) && code.get(o + NOTIFY_HINT_OFFSET) == Some(&2)
                })
                .collect();
            let ctx = EngineCtx {
                clock: meta.clock_sync.get(ENGINE_SYNC_SLOT[e as usize], 0).and_then(Clock::new),
                base16: prog.map(|p| p.base16()).unwrap_or(0),
                slots,
                key_off: key_total,
                code,
                cpc: compiler_pc_map(slots, meta.patch_lists.iter().find(|l| l.engine == e)),
                hint2_pcs,
            };
            key_total += slots as usize;
            ctx
        })
        .collect();

    // ------------------------------------------------------------------ T0 (pass 0)
    let pass0 = notify_hint2_ends(&blk[0], &engines);
    let (hint2_end, hint2_count) = (pass0.ends, pass0.counts);
    let mut best: Option<(i64, u8)> = None;
    for e in 0..ENGINE_COUNT {
        if let Some(end) = hint2_end[e] {
            if best.is_none_or(|(b, _)| end > b) {
                best = Some((end, e as u8));
            }
        }
        if hint2_count[e] > 1 {
            w.add(WarningKind::MultipleProfileStarts, || {
                format!(
                    "engine {} has {} NOTIFY(hint 2) instructions; T0 uses the earliest",
                    ENGINE_SUBGROUPS[e], hint2_count[e]
                )
            });
        }
    }
    // `cut`: rows starting before it are pre-window. `base`: subtracted from every time.
    // Without a NOTIFY(hint 2) pair, keep everything and shift by the earliest time afterwards.
    let (cut, base) = match best {
        Some((t0, _)) => (t0, t0),
        None => (i64::MIN, 0),
    };
    let expected = Expected {
        instructions: records(&blk[0]) / 2 + 1,
        dma_packets: records(&blk[4]) / 3 + 1,
        starts_per_label: pass0.starts_per_label,
    };
    if best.is_some() {
        out.expect(&expected);
        return decode_rows(&blk, &engines, meta, w, best, cut, base, st, out).0;
    }
    // no profile start: the rows are held until the earliest time is known
    let mut held = Collect::default();
    held.expect(&expected);
    let (mut d, max_end) = decode_rows(&blk, &engines, meta, w, best, cut, base, st, &mut held);
    // T0 fallback
    let earliest = held
        .instructions
        .iter()
        .map(|i| i.start_ps)
        .chain(held.dma_packets.iter().map(|p| p.start_ps))
        .chain(d.semaphore_updates.iter().map(|s| s.ts_ps))
        .chain(d.throttles.iter().map(|t| t.start_ps))
        .min();
    if let Some(t0) = earliest {
        w.add(WarningKind::ProfileStartNotFound, || {
            "no NOTIFY(hint 2) instruction pair: T0 = earliest decoded timestamp".into()
        });
        shift(t0, &mut held.instructions, &mut held.dma_packets, &mut d.semaphore_updates, &mut d.throttles);
        let end_ps = max_end.map(|m| m.saturating_sub(t0)).unwrap_or(0);
        d.profile.t0_ps = t0;
        d.profile.t0_source = T0Source::EarliestRecord;
        d.profile.end_ps = end_ps;
        d.profile.last_hw_timestamp_ns = end_ps.div_euclid(1000);
    }
    out.expect(&Expected {
        instructions: held.instructions.len(),
        dma_packets: held.dma_packets.len(),
        starts_per_label: pass0.starts_per_label,
    });
    for i in held.instructions {
        out.instruction(i);
    }
    for p in held.dma_packets {
        out.dma_packet(p);
    }
    d
}

/// The main passes over the blocks (see [`decode`]).
#[allow(clippy::too_many_arguments)]
fn decode_rows<E: EventSink>(
    blk: &[Vec<&[u8]>; 6],
    engines: &[EngineCtx],
    meta: &Metadata,
    w: &mut Warnings,
    best: Option<(i64, u8)>,
    cut: i64,
    base: i64,
    mut st: RecordStats,
    out: &mut E,
) -> (Decoded, Option<i64>) {
    let mut overflow = 0u64;
    let mut window_overflow = 0u64;
    let mut instructions = 0u64;
    let mut dma_packets = 0u64;

    // ------------------------------------------------------------------ instructions (block 0)
    let key_total = engines.iter().map(|e| e.slots as usize).sum();
    let mut fifo: Fifos<Open> = Fifos::new(key_total);
    let (mut bad_class, mut no_prog, mut no_clock) = (0u64, [0u64; ENGINE_COUNT], [0u64; ENGINE_COUNT]);
    let mut first_bad_class = 0u32;
    let mut counts = EngineCounts::default();
    let mut max_end: Option<i64> = None;
    let mut pairs = 0u64;
    for b in &blk[0] {
        let (recs, _) = b.as_chunks::<16>();
        st.instruction_records += recs.len() as u64;
        for r in recs {
            let (w0, w1, t) = words(r);
            let cls = (w0 >> 24) as u8;
            let e = ((cls & 0x7C) >> 2).wrapping_sub(1) as usize;
            let kind = cls & 3;
            if cls & 0x80 == 0 || e >= ENGINE_COUNT || kind > 1 {
                if bad_class == 0 {
                    first_bad_class = w0;
                }
                bad_class += 1;
                continue;
            }
            let eng = &engines[e];
            let pc = (w0 as u16).wrapping_sub(eng.base16) as u32;
            if pc >= eng.slots {
                if eng.slots == 0 {
                    no_prog[e] += 1;
                } else {
                    st.instruction_records_outside_program += 1;
                }
                continue;
            }
            let Some(clock) = eng.clock else {
                no_clock[e] += 1;
                continue;
            };
            let Some(ps) = clock.ps(t) else {
                overflow += 1;
                continue;
            };
            let key = eng.key_off + pc as usize;
            if kind == 0 {
                fifo.push(key, Open { ps, w1, flags: (w0 >> 16) as u8 });
                continue;
            }
            let Some(open) = fifo.pop(key) else {
                st.unpaired_instruction_ends += 1;
                continue;
            };
            pairs += 1;
            if open.ps < cut {
                st.pre_window_instructions += 1;
                continue;
            }
            let (Some(s), Some(en)) = (open.ps.checked_sub(base), ps.checked_sub(base)) else {
                window_overflow += 1;
                continue;
            };
            if en.checked_sub(s).is_none() {
                window_overflow += 1;
                continue;
            }
            let op = eng.code.get(pc as usize * 64).copied().unwrap_or(0);
            let cpc = eng.cpc.get(pc as usize).copied().unwrap_or(NONE);
            let wait = (open.w1 >> 16) as u16;
            max_end = Some(max_end.map_or(en, |m: i64| m.max(en)));
            match e {
                0 => counts.tensor += 1,
                1 => counts.scalar += 1,
                2 => counts.gpsimd += 1,
                3 => counts.vector += 1,
                _ => counts.sync += 1,
            }
            instructions += 1;
            out.instruction(Instruction {
                engine: e as u8,
                pc,
                compiler_pc: (cpc != NONE).then_some(cpc),
                start_ps: s,
                end_ps: en,
                wait_cycles: wait,
                evt_wait_time_ns: ((wait as u32 * 5) / 7) as u16, // <= 46,810
                crc_in: w1 as u16,
                crc_out: (w1 >> 16) as u16,
                opcode_byte: op,
                flags: open.flags,
            });
        }
    }
    st.instruction_pairs = pairs;
    st.unpaired_instruction_starts = fifo.len_outstanding();
    drop(fifo);
    if bad_class > 0 {
        w.add_n(WarningKind::UnexpectedRecordClass, bad_class, || {
            format!("instruction block: record w0 {first_bad_class:#010x} has no engine start/end class")
        });
    }
    for e in 0..ENGINE_COUNT {
        w.add_n(WarningKind::MissingProgram, no_prog[e], || {
            format!(
                "no program for engine {e} ({}): its instruction records were skipped",
                ENGINE_SUBGROUPS[e]
            )
        });
        w.add_n(WarningKind::MissingClock, no_clock[e], || {
            format!("no clock-sync entry /10/{} for engine {e}", ENGINE_SYNC_SLOT[e])
        });
    }

    // ------------------------------------------------------------------ DMA (block 4)
    let dma_clocks: Vec<Option<Clock>> =
        (0..128u32).map(|k| meta.clock_sync.get(DMA_SYNC_SLOT, k).and_then(Clock::new)).collect();
    let mut dfifo: Fifos<i64> = Fifos::new(128 * 16);
    let mut dcounters = vec![0u32; 128 * 16];
    let (mut dma_bad, mut dma_no_clock, mut first_dma_bad) = (0u64, 0u64, 0u32);
    for b in &blk[4] {
        let (recs, _) = b.as_chunks::<16>();
        st.dma_records += recs.len() as u64;
        for r in recs {
            let (w0, w1, t) = words(r);
            if w0 & 0x8000_0000 == 0 {
                if dma_bad == 0 {
                    first_dma_bad = w0;
                }
                dma_bad += 1;
                continue;
            }
            let k = ((w0 >> 24) & 0x7F) as usize;
            let q = ((w1 >> 4) & 0xF) as usize;
            let typ = w1 & 0xF;
            if typ != 1 && typ != 5 {
                if typ == 6 {
                    st.dma_type6_records += 1;
                } else {
                    st.dma_other_records += 1;
                }
                continue;
            }
            let Some(clock) = dma_clocks[k] else {
                dma_no_clock += 1;
                continue;
            };
            let Some(ps) = clock.ps(t) else {
                overflow += 1;
                continue;
            };
            let key = k * 16 + q;
            if typ == 1 {
                st.dma_start_records += 1;
                dfifo.push(key, ps);
                continue;
            }
            st.dma_data_records += 1;
            let Some(start) = dfifo.pop(key) else {
                st.unpaired_dma_data += 1;
                continue;
            };
            let idx = dcounters[key];
            dcounters[key] = idx.wrapping_add(1);
            if start < cut {
                st.pre_window_dma_packets += 1;
                continue;
            }
            let (Some(s), Some(en)) = (start.checked_sub(base), ps.checked_sub(base)) else {
                window_overflow += 1;
                continue;
            };
            let Some(d) = en.checked_sub(s) else {
                window_overflow += 1;
                continue;
            };
            dma_packets += 1;
            out.dma_packet(DmaPacket {
                dma_engine: k as u8,
                queue: q as u8,
                start_ps: s,
                end_ps: en,
                start_ns: s.div_euclid(1000),
                dur_ns: d.div_euclid(1000),
                size_bytes: w0 & 0x00FF_FFFF,
                crc: (w1 >> 16) as u16,
                packet_idx: idx,
            });
        }
    }
    st.unpaired_dma_starts = dfifo.len_outstanding();
    drop(dfifo);
    w.add_n(WarningKind::UnexpectedRecordClass, dma_bad, || {
        format!("DMA block: record w0 {first_dma_bad:#010x} lacks the 0x80 class bit")
    });
    w.add_n(WarningKind::MissingClock, dma_no_clock, || {
        "DMA record for an engine without /10/8 entry".into()
    });

    // ------------------------------------------------------------------ semaphores (block 1)
    let ev_clock = meta.clock_sync.get(EVENT_SYNC_SLOT, 0).and_then(Clock::new);
    let n1 = records(&blk[1]);
    let mut semaphore_updates: Vec<SemaphoreUpdate> = Vec::with_capacity(n1);
    let (mut ev_no_clock, mut ev_bad, mut first_ev_bad) = (0u64, 0u64, 0u32);
    for b in &blk[1] {
        let (recs, _) = b.as_chunks::<16>();
        st.event_records += recs.len() as u64;
        for r in recs {
            let (w0, w1, t) = words(r);
            let kind = (w0 >> 16) as u8;
            if !((kind == 0xF3 || kind == 0xF9) && (w0 >> 8) as u8 == 1) {
                st.other_event_records += 1;
                continue;
            }
            let cls = (w0 >> 24) as u8;
            if cls & 0x83 != 0x83 {
                if ev_bad == 0 {
                    first_ev_bad = w0;
                }
                ev_bad += 1;
            }
            let Some(clock) = ev_clock else {
                ev_no_clock += 1;
                continue;
            };
            let Some(ps) = clock.ps(t) else {
                overflow += 1;
                continue;
            };
            if ps < cut {
                st.pre_window_semaphore_updates += 1;
                continue;
            }
            let Some(p) = ps.checked_sub(base) else {
                window_overflow += 1;
                continue;
            };
            semaphore_updates.push(SemaphoreUpdate {
                ts_ps: p,
                ts_ns: p.div_euclid(1000),
                semaphore: w0 as u8,
                value: w1,
                source: ((cls & 0x3C) >> 2).wrapping_sub(1),
                op: if kind == 0xF3 { SemaphoreOp::Increment } else { SemaphoreOp::Set },
                flag_0x40: cls & 0x40 != 0,
            });
        }
    }
    w.add_n(WarningKind::UnexpectedRecordClass, ev_bad, || {
        format!("event block: record w0 {first_ev_bad:#010x} has an unexpected class byte")
    });
    w.add_n(WarningKind::MissingClock, ev_no_clock, || "no clock-sync entry /10/6 for event records".into());

    // ------------------------------------------------------------------ throttle (block 5)
    // Durations run to the next record (in file order, pre-window ones included); the last one
    // to the last instruction end. Few records: decode absolute, then cut and shift.
    let th_clock = meta.clock_sync.get(THROTTLE_SYNC_SLOT, 0).and_then(Clock::new);
    let mut throttles: Vec<Throttle> = Vec::with_capacity(records(&blk[5]));
    let mut th_no_clock = 0u64;
    for b in &blk[5] {
        let (recs, _) = b.as_chunks::<16>();
        st.throttle_records += recs.len() as u64;
        for r in recs {
            let (w0, w1, t) = words(r);
            let Some(clock) = th_clock else {
                th_no_clock += 1;
                continue;
            };
            let Some(ps) = clock.ps(t) else {
                overflow += 1;
                continue;
            };
            let none = w1 & 0x80 != 0;
            throttles.push(Throttle {
                start_ps: ps,
                start_ns: 0,
                dur_ns: 0,
                throttle_type: if none { 99 } else { 0 },
                k: if none { 1 } else { w1 & 0x7F },
                n: if none { 1 } else { (w0 >> 16) & 0xFF },
                raw_w0: w0,
                raw_w1: w1,
            });
        }
    }
    let end_abs = max_end.and_then(|m| m.checked_add(base));
    for i in 0..throttles.len() {
        let next = throttles.get(i + 1).map(|n| n.start_ps).or(end_abs);
        let cur = throttles[i].start_ps;
        throttles[i].dur_ns = next.and_then(|n| n.checked_sub(cur)).map_or(0, |d| d.max(0) / 1000);
    }
    let before = throttles.len();
    throttles.retain_mut(|t| {
        if t.start_ps < cut {
            return false;
        }
        let Some(p) = t.start_ps.checked_sub(base) else {
            window_overflow += 1;
            return false;
        };
        t.start_ps = p;
        t.start_ns = p.div_euclid(1000);
        true
    });
    st.pre_window_throttle_records = (before - throttles.len()) as u64;

    w.add_n(WarningKind::MissingClock, th_no_clock, || {
        "no clock-sync entry /10/7 for throttle records".into()
    });
    w.add_n(WarningKind::TimestampOverflow, overflow, || {
        "a raw timestamp converts to more than 64-bit picoseconds; record skipped".into()
    });
    w.add_n(WarningKind::TimestampOverflow, window_overflow, || {
        "a time relative to T0 overflows 64-bit picoseconds; record skipped".into()
    });
    st.skipped_records = bad_class
        + no_prog.iter().sum::<u64>()
        + no_clock.iter().sum::<u64>()
        + dma_bad
        + dma_no_clock
        + ev_no_clock
        + th_no_clock
        + overflow
        + window_overflow;

    let (t0, t0_source) = match best {
        Some((t0, engine)) => (t0, T0Source::NotifyHint2 { engine }),
        // made relative to the earliest time by [`decode`]
        None => (0, T0Source::None),
    };
    let end_ps = max_end.unwrap_or(0);
    let profile = Profile {
        t0_ps: t0,
        t0_source,
        end_ps,
        last_hw_timestamp_ns: end_ps.div_euclid(1000),
        event_count: st.event_records,
        trace_count: instructions + dma_packets + st.event_records,
        instruction_counts: counts,
    };
    (Decoded { profile, semaphore_updates, throttles, stats: st }, max_end)
}

/// Make every time relative to `t0` (fallback path only; `t0` is the minimum, so no underflow).
fn shift(
    t0: i64,
    ins: &mut [Instruction],
    dma: &mut [DmaPacket],
    sems: &mut [SemaphoreUpdate],
    th: &mut [Throttle],
) {
    for i in ins {
        i.start_ps = i.start_ps.saturating_sub(t0);
        i.end_ps = i.end_ps.saturating_sub(t0);
    }
    for p in dma {
        p.start_ps = p.start_ps.saturating_sub(t0);
        p.end_ps = p.end_ps.saturating_sub(t0);
        p.start_ns = p.start_ps.div_euclid(1000);
    }
    for s in sems {
        s.ts_ps = s.ts_ps.saturating_sub(t0);
        s.ts_ns = s.ts_ps.div_euclid(1000);
    }
    for t in th {
        t.start_ps = t.start_ps.saturating_sub(t0);
        t.start_ns = t.start_ps.div_euclid(1000);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_matches_wide_floor_division() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let ds = [1u64, 2, 3, 7, 1024, 731_428, 914_286, 1 << 40, u64::MAX / 3, u64::MAX];
        for &d in &ds {
            for _ in 0..20_000 {
                let e = SyncEntry {
                    slot: 1,
                    index: 0,
                    counter_at_sync: next() >> (next() % 64),
                    divisor: d,
                    multiplier: next() >> (next() % 64),
                };
                let c = Clock::new(&e).unwrap();
                let t = next() >> (next() % 64);
                let want = (t as i128 - e.counter_at_sync as i128)
                    .checked_mul(e.multiplier as i128)
                    .and_then(|p| i64::try_from(p.div_euclid(d as i128)).ok());
                assert_eq!(c.ps(t), want, "t={t} S={} M={} D={d}", e.counter_at_sync, e.multiplier);
            }
        }
    }
}
