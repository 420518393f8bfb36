//! Record-area decoding (ntff-v5.md §3-§7). Hot loops: no per-record allocation, pre-sized
//! outputs, FIFO pairing through intrusive linked lists over pooled slots.

use super::metadata::{compiler_pc_map, Metadata, SyncEntry};
use super::opcodes::{NOTIFY_HINT_OFFSET, OP_NOTIFY};
use super::{
    DmaPacket, EngineCounts, Instruction, Profile, RecordStats, SemaphoreOp, SemaphoreUpdate,
    T0Source, Throttle, WarningKind, Warnings, DMA_SYNC_SLOT, ENGINE_COUNT, ENGINE_SUBGROUPS,
    ENGINE_SYNC_SLOT, EVENT_SYNC_SLOT, RECORD_LEN, THROTTLE_SYNC_SLOT,
};

pub(crate) struct Decoded {
    pub profile: Profile,
    pub instructions: Vec<Instruction>,
    pub dma_packets: Vec<DmaPacket>,
    pub semaphore_updates: Vec<SemaphoreUpdate>,
    pub throttles: Vec<Throttle>,
    pub stats: RecordStats,
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
fn blocks<'a>(area: &'a [u8], meta: &Metadata, w: &mut Warnings) -> [Vec<&'a [u8]>; 6] {
    let mut out: [Vec<&[u8]>; 6] = Default::default();
    let len = area.len() as u64;
    let mut spans: Vec<(u64, u64)> = Vec::with_capacity(meta.blocks.len());
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
        let slice = &area[start as usize..end as usize];
        if slice.len() % RECORD_LEN != 0 {
            w.add(WarningKind::BlockMisaligned, || {
                format!("block type {} has {} bytes (not a multiple of 16)", d.notification_type, slice.len())
            });
        }
        if start < end {
            spans.push((start, end));
        }
        match out.get_mut(d.notification_type as usize) {
            Some(v) if d.notification_type != 3 => v.push(slice),
            _ => {
                if !slice.is_empty() {
                    w.add(WarningKind::UnknownBlockType, || {
                        format!("block type {} ({} bytes) ignored", d.notification_type, slice.len())
                    });
                }
            }
        }
    }
    spans.sort_unstable();
    let (mut covered_to, mut gaps, mut overlap) = (0u64, 0u64, 0u64);
    for &(s, e) in &spans {
        if s > covered_to {
            gaps += s - covered_to;
        } else {
            overlap += covered_to.min(e) - s;
        }
        covered_to = covered_to.max(e);
    }
    gaps += len - covered_to.min(len);
    if gaps > 0 || overlap > 0 {
        w.add(WarningKind::BlockTiling, || {
            format!("record area: {gaps} bytes in no block, {overlap} bytes in more than one")
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
}

#[derive(Clone, Copy)]
struct Open {
    ps: i64,
    w1: u32,
    flags: u8,
}

pub(crate) fn decode(area: &[u8], meta: &Metadata, w: &mut Warnings) -> Decoded {
    let blk = blocks(area, meta, w);
    let mut st = RecordStats::default();

    // ------------------------------------------------------------------ instructions (block 0)
    let mut key_total = 0usize;
    let engines: Vec<EngineCtx> = (0..ENGINE_COUNT as u8)
        .map(|e| {
            let prog = meta.program(e);
            let slots = prog.map(|p| p.slot_count.min(65536)).unwrap_or(0);
            let ctx = EngineCtx {
                clock: meta.clock_sync.get(ENGINE_SYNC_SLOT[e as usize], 0).and_then(Clock::new),
                base16: prog.map(|p| p.base16()).unwrap_or(0),
                slots,
                key_off: key_total,
                code: prog.map(|p| p.code.as_slice()).unwrap_or(&[]),
                cpc: compiler_pc_map(slots, meta.patch_lists.iter().find(|l| l.engine == e)),
            };
            key_total += slots as usize;
            ctx
        })
        .collect();

    let n0 = records(&blk[0]);
    let mut instructions: Vec<Instruction> = Vec::with_capacity(n0 / 2 + 1);
    let mut fifo: Fifos<Open> = Fifos::new(key_total);
    let mut hint2_end: [Option<i64>; ENGINE_COUNT] = [None; ENGINE_COUNT];
    let mut hint2_count = [0u32; ENGINE_COUNT];
    let (mut bad_class, mut no_prog, mut no_clock, mut overflow) = (0u64, [0u64; ENGINE_COUNT], [0u64; ENGINE_COUNT], 0u64);
    let mut first_bad_class = 0u32;
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
            let slot = pc as usize * 64;
            let op = eng.code.get(slot).copied().unwrap_or(0);
            if op == OP_NOTIFY && eng.code.get(slot + NOTIFY_HINT_OFFSET) == Some(&2) {
                hint2_count[e] += 1;
                hint2_end[e] = Some(hint2_end[e].map_or(ps, |x: i64| x.min(ps)));
            }
            let cpc = eng.cpc.get(pc as usize).copied().unwrap_or(NONE);
            let wait = (open.w1 >> 16) as u16;
            instructions.push(Instruction {
                engine: e as u8,
                pc,
                compiler_pc: (cpc != NONE).then_some(cpc),
                start_ps: open.ps,
                end_ps: ps,
                start_ns: 0,
                dur_ns: 0,
                wait_cycles: wait,
                evt_wait_time_ns: (wait as u32 * 5) / 7,
                crc_in: w1 as u16,
                crc_out: (w1 >> 16) as u16,
                opcode_byte: op,
                flags: open.flags,
            });
        }
    }
    st.instruction_pairs = instructions.len() as u64;
    st.unpaired_instruction_starts = fifo.len_outstanding();
    drop(fifo);
    if bad_class > 0 {
        w.add_n(WarningKind::UnexpectedRecordClass, bad_class, || {
            format!("instruction block: record w0 {first_bad_class:#010x} has no engine start/end class")
        });
    }
    for e in 0..ENGINE_COUNT {
        w.add_n(WarningKind::MissingProgram, no_prog[e], || {
            format!("no program for engine {e} ({}): its instruction records were skipped", ENGINE_SUBGROUPS[e])
        });
        w.add_n(WarningKind::MissingClock, no_clock[e], || {
            format!("no clock-sync entry /10/{} for engine {e}", ENGINE_SYNC_SLOT[e])
        });
    }

    // ------------------------------------------------------------------ DMA (block 4)
    let dma_clocks: Vec<Option<Clock>> =
        (0..128u32).map(|k| meta.clock_sync.get(DMA_SYNC_SLOT, k).and_then(Clock::new)).collect();
    let n4 = records(&blk[4]);
    let mut dma_packets: Vec<DmaPacket> = Vec::with_capacity(n4 / 3 + 1);
    let mut dfifo: Fifos<i64> = Fifos::new(128 * 16);
    let mut counters = vec![0u32; 128 * 16];
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
            let idx = counters[key];
            counters[key] = idx.wrapping_add(1);
            dma_packets.push(DmaPacket {
                dma_engine: k as u8,
                queue: q as u8,
                start_ps: start,
                end_ps: ps,
                start_ns: 0,
                dur_ns: 0,
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
    w.add_n(WarningKind::MissingClock, dma_no_clock, || "DMA record for an engine without /10/8 entry".into());

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
            let source = ((cls & 0x3C) >> 2).wrapping_sub(1);
            semaphore_updates.push(SemaphoreUpdate {
                ts_ps: ps,
                ts_ns: 0,
                semaphore: w0 as u8,
                value: w1,
                source,
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
    w.add_n(WarningKind::MissingClock, th_no_clock, || "no clock-sync entry /10/7 for throttle records".into());
    w.add_n(WarningKind::TimestampOverflow, overflow, || {
        "a raw timestamp converts to more than 64-bit picoseconds; record skipped".into()
    });
    st.skipped_records = bad_class
        + no_prog.iter().sum::<u64>()
        + no_clock.iter().sum::<u64>()
        + dma_bad
        + dma_no_clock
        + ev_no_clock
        + th_no_clock
        + overflow;

    // ------------------------------------------------------------------ T0 and the window
    let (t0, t0_source) = profile_start(&hint2_end, &hint2_count, &instructions, &dma_packets, &semaphore_updates, &throttles, w);

    let mut window_overflow = 0u64;
    let mut counts = EngineCounts::default();
    let mut max_end: Option<i64> = None;
    instructions.retain_mut(|i| {
        if i.start_ps < t0 {
            return false;
        }
        let (Some(s), Some(e)) = (i.start_ps.checked_sub(t0), i.end_ps.checked_sub(t0)) else {
            window_overflow += 1;
            return false;
        };
        let Some(d) = e.checked_sub(s) else {
            window_overflow += 1;
            return false;
        };
        i.start_ps = s;
        i.end_ps = e;
        i.start_ns = s / 1000;
        i.dur_ns = d.div_euclid(1000);
        max_end = Some(max_end.map_or(i.end_ps, |m: i64| m.max(i.end_ps)));
        match i.engine {
            0 => counts.tensor += 1,
            1 => counts.scalar += 1,
            2 => counts.gpsimd += 1,
            3 => counts.vector += 1,
            _ => counts.sync += 1,
        }
        true
    });
    st.pre_window_instructions = st.instruction_pairs - instructions.len() as u64 - window_overflow;

    let before = dma_packets.len();
    dma_packets.retain_mut(|p| {
        if p.start_ps < t0 {
            return false;
        }
        let (Some(s), Some(e)) = (p.start_ps.checked_sub(t0), p.end_ps.checked_sub(t0)) else {
            window_overflow += 1;
            return false;
        };
        let Some(d) = e.checked_sub(s) else {
            window_overflow += 1;
            return false;
        };
        p.start_ps = s;
        p.end_ps = e;
        p.start_ns = s / 1000;
        p.dur_ns = d.div_euclid(1000);
        true
    });
    st.pre_window_dma_packets = (before - dma_packets.len()) as u64;

    let before = semaphore_updates.len();
    semaphore_updates.retain_mut(|s| {
        if s.ts_ps < t0 {
            return false;
        }
        let Some(p) = s.ts_ps.checked_sub(t0) else {
            window_overflow += 1;
            return false;
        };
        s.ts_ps = p;
        s.ts_ns = p / 1000;
        true
    });
    st.pre_window_semaphore_updates = (before - semaphore_updates.len()) as u64;

    // Throttle durations run to the next record; the last one to the last instruction end.
    let end_abs = max_end.and_then(|m| m.checked_add(t0));
    for i in 0..throttles.len() {
        let next = throttles.get(i + 1).map(|n| n.start_ps).or(end_abs);
        let cur = throttles[i].start_ps;
        throttles[i].dur_ns = next.and_then(|n| n.checked_sub(cur)).map_or(0, |d| d.max(0) / 1000);
    }
    let before = throttles.len();
    throttles.retain_mut(|t| {
        if t.start_ps < t0 {
            return false;
        }
        let Some(p) = t.start_ps.checked_sub(t0) else {
            window_overflow += 1;
            return false;
        };
        t.start_ps = p;
        t.start_ns = p / 1000;
        true
    });
    st.pre_window_throttle_records = (before - throttles.len()) as u64;
    w.add_n(WarningKind::TimestampOverflow, window_overflow, || {
        "a time relative to T0 overflows 64-bit picoseconds; record skipped".into()
    });
    st.skipped_records += window_overflow;

    let end_ps = max_end.unwrap_or(0);
    let profile = Profile {
        t0_ps: t0,
        t0_source,
        end_ps,
        last_hw_timestamp_ns: end_ps.div_euclid(1000),
        event_count: st.event_records,
        trace_count: instructions.len() as u64 + dma_packets.len() as u64 + st.event_records,
        instruction_counts: counts,
    };
    Decoded { profile, instructions, dma_packets, semaphore_updates, throttles, stats: st }
}

fn profile_start(
    hint2_end: &[Option<i64>; ENGINE_COUNT],
    hint2_count: &[u32; ENGINE_COUNT],
    instructions: &[Instruction],
    dma: &[DmaPacket],
    sems: &[SemaphoreUpdate],
    throttles: &[Throttle],
    w: &mut Warnings,
) -> (i64, T0Source) {
    let mut best: Option<(i64, u8)> = None;
    for (e, end) in hint2_end.iter().enumerate() {
        if let Some(end) = *end {
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
    if let Some((t0, engine)) = best {
        return (t0, T0Source::NotifyHint2 { engine });
    }
    let earliest = instructions
        .iter()
        .map(|i| i.start_ps)
        .chain(dma.iter().map(|p| p.start_ps))
        .chain(sems.iter().map(|s| s.ts_ps))
        .chain(throttles.iter().map(|t| t.start_ps))
        .min();
    match earliest {
        Some(t0) => {
            w.add(WarningKind::ProfileStartNotFound, || {
                "no NOTIFY(hint 2) instruction pair: T0 = earliest decoded timestamp".into()
            });
            (t0, T0Source::EarliestRecord)
        }
        None => (0, T0Source::None),
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
                let e = SyncEntry { slot: 1, index: 0, counter_at_sync: next() >> (next() % 64), divisor: d, multiplier: next() >> (next() % 64) };
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
