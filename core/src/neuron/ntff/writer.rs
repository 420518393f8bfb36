//! In-memory NTFF v5 writer for tests, fixtures and benchmarks.
//!
//! Describe a capture with [`Capture`] (programs, instruction executions, DMA packets,
//! semaphore updates, throttle records; times in picoseconds on the common timeline) and call
//! [`write()`]. The output follows the byte layout of ntff-v5.md: header, metadata protobuf
//! (built with `protowire::Writer`, proto3-style: zero scalars omitted), and the record area
//! with blocks of type 0, 1, 2 (empty), 4 and 5 in that order.
//!
//! Raw timestamps are chosen as the smallest counter value `t` with
//! `floor((t - S) * M / D) >= ps`, so any clock with `M <= D` (≤ 1 ps per tick; the default
//! for every domain) round-trips picosecond values exactly.

use super::metadata::{Patch, PatchKind, PatchList};
use super::opcodes::NOTIFY_HINT_OFFSET;
use super::{SemaphoreOp, HEADER_CONSTANT, HEADER_LEN, SUPPORTED_VERSION};
use crate::neuron::protowire::Writer;

/// One clock-sync entry: `ps = floor((t - counter_at_sync) * multiplier / divisor)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub counter_at_sync: u64,
    pub divisor: u64,
    pub multiplier: u64,
}

impl Clock {
    /// NeuronCore engine/event counters as seen on inf2 (≈1 ps per tick).
    pub const ENGINE: Clock =
        Clock { counter_at_sync: 464_077_143_846_287, divisor: 731_428, multiplier: 731_408 };
    /// DVE instruction counter as seen on inf2.
    pub const DVE: Clock =
        Clock { counter_at_sync: 464_077_143_831_578, divisor: 914_286, multiplier: 914_260 };
    /// A 1 ps/tick clock (exact round trips for any ps value).
    pub const PS: Clock = Clock { counter_at_sync: 155_450_825_605_160, divisor: 1024, multiplier: 1024 };
    /// The real inf2 DMA clock (≈1176 ps per tick; times are quantised).
    pub const DMA_INF2: Clock =
        Clock { counter_at_sync: 155_450_825_605_160, divisor: 1024, multiplier: 1_204_672 };

    /// Smallest raw counter value that converts to at least `ps`.
    pub fn raw(&self, ps: i64) -> u64 {
        let (d, m) = (self.divisor.max(1) as i128, self.multiplier.max(1) as i128);
        let num = ps as i128 * d;
        let ticks = num.div_euclid(m) + if num.rem_euclid(m) != 0 { 1 } else { 0 };
        (self.counter_at_sync as i128 + ticks).clamp(0, u64::MAX as i128) as u64
    }
}

/// An engine program: one 64-byte instruction word per runtime pc.
#[derive(Debug, Clone)]
pub struct Program {
    pub engine: u8,
    pub device_address: u64,
    pub slots: Vec<[u8; 64]>,
}

impl Program {
    /// A program whose slot `i` has opcode byte `opcodes[i]` (byte 1 = 0x10 as in real words).
    /// The device address follows the inf2 layout (`0x3C0208000 + ...`).
    pub fn new(engine: u8, opcodes: &[u8]) -> Program {
        let base = [0x3_C022_8000u64, 0x3_C021_8000, 0x3_C023_0000, 0x3_C022_0000, 0x3_C023_8000];
        let device_address =
            base.get(engine as usize).copied().unwrap_or(0x3_C024_0000 + engine as u64 * 0x8000);
        let slots = opcodes
            .iter()
            .map(|&op| {
                let mut s = [0u8; 64];
                s[0] = op;
                s[1] = 0x10;
                s
            })
            .collect();
        Program { engine, device_address, slots }
    }
    /// Make slot `pc` a NOTIFY (0xA6) with hint `hint` (hint 2 marks the profile start).
    pub fn notify(mut self, pc: usize, hint: u8) -> Program {
        if let Some(s) = self.slots.get_mut(pc) {
            s[0] = 0xA6;
            s[NOTIFY_HINT_OFFSET] = hint;
        }
        self
    }
}

/// One instruction execution (a start and an end record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstrEvent {
    pub engine: u8,
    pub pc: u32,
    pub start_ps: i64,
    pub end_ps: i64,
    pub wait_cycles: u16,
    pub crc_in: u16,
    pub crc_out: u16,
    pub flags: u8,
}

/// One DMA packet (start, data-done and type-6 records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaEvent {
    pub dma_engine: u8,
    pub queue: u8,
    pub start_ps: i64,
    pub end_ps: i64,
    pub size_bytes: u32,
    pub crc: u16,
}

/// One semaphore update record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemEvent {
    /// 0..4 engines, 5 queue.
    pub source: u8,
    pub op: SemaphoreOp,
    pub semaphore: u8,
    pub value: u32,
    pub ts_ps: i64,
}

/// One raw throttle record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleEvent {
    pub ts_ps: i64,
    pub w0: u32,
    pub w1: u32,
}

/// DMA queue descriptor (`/4/4/1/7`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSpec {
    pub dma_engine: u64,
    pub queue: u64,
    pub queue_type: u64,
    pub name: String,
}

/// Everything a synthetic capture contains.
#[derive(Debug, Clone)]
pub struct Capture {
    pub version: u8,
    pub neff_path: String,
    pub uuid: Vec<u8>,
    pub instance_type: String,
    pub runtime_version: (u64, u64, u64, String),
    pub driver_version: (u64, u64, u64),
    pub collectives_version: (u64, u64, u64),
    pub execution_time_ps: u64,
    pub programs: Vec<Program>,
    pub patches: Vec<PatchList>,
    pub dma_queues: Vec<QueueSpec>,
    pub memory: Vec<(String, u64)>,
    /// Indexed by engine (PE, ACT, POOL, DVE, SP); written to `/10/1..5` in the file's order.
    pub engine_clocks: [Clock; 5],
    pub event_clock: Clock,
    pub throttle_clock: Clock,
    /// One per DMA engine (`/10/8` occurrences).
    pub dma_clocks: Vec<Clock>,
    pub instructions: Vec<InstrEvent>,
    pub dma: Vec<DmaEvent>,
    pub semaphores: Vec<SemEvent>,
    /// Extra block-1 records `(w0, w1, ps)` (events, unknown kinds).
    pub raw_events: Vec<(u32, u32, i64)>,
    pub throttles: Vec<ThrottleEvent>,
    /// Extra block descriptors `(type, offset, size)` written after the real ones (damaged or
    /// hostile captures in tests: overlapping, out of range).
    pub extra_blocks: Vec<(u64, u64, u64)>,
}

impl Default for Capture {
    fn default() -> Self {
        Capture {
            version: SUPPORTED_VERSION,
            neff_path: "/tmp/synthetic/graph.neff".into(),
            uuid: (1..=22).collect(),
            instance_type: "inf2.xlarge".into(),
            runtime_version: (2, 29, 40, "f954cd7a56b9a57af09c821cf39dc8be45946e12".into()),
            driver_version: (2, 25, 0),
            collectives_version: (2, 29, 41),
            execution_time_ps: 0,
            programs: Vec::new(),
            patches: Vec::new(),
            dma_queues: Vec::new(),
            memory: vec![("pe".into(), 5952), ("spill".into(), 0)],
            engine_clocks: [Clock::ENGINE, Clock::ENGINE, Clock::ENGINE, Clock::DVE, Clock::ENGINE],
            event_clock: Clock::ENGINE,
            throttle_clock: Clock::PS,
            dma_clocks: vec![Clock::PS; 16],
            instructions: Vec::new(),
            dma: Vec::new(),
            semaphores: Vec::new(),
            raw_events: Vec::new(),
            throttles: Vec::new(),
            extra_blocks: Vec::new(),
        }
    }
}

fn nz(w: &mut Writer, field: u32, v: u64) {
    if v != 0 {
        w.varint(field, v);
    }
}

fn clock_msg(c: &Clock) -> Writer {
    let mut m = Writer::new();
    nz(&mut m, 1, c.counter_at_sync);
    nz(&mut m, 2, c.divisor);
    nz(&mut m, 3, c.multiplier);
    m
}

fn version_msg(a: u64, b: u64, c: u64, hash: &str) -> Writer {
    let mut m = Writer::new();
    nz(&mut m, 1, a);
    nz(&mut m, 2, b);
    nz(&mut m, 3, c);
    if !hash.is_empty() {
        m.string(5, hash);
    }
    m
}

fn rec(out: &mut Vec<u8>, w0: u32, w1: u32, t: u64) {
    out.extend_from_slice(&w0.to_le_bytes());
    out.extend_from_slice(&w1.to_le_bytes());
    out.extend_from_slice(&t.to_le_bytes());
}

/// Serialize `c` as an NTFF file.
///
/// # Panics
/// When the metadata exceeds the 24-bit length field (16 MiB).
pub fn write(c: &Capture) -> Vec<u8> {
    // ---- record blocks
    let mut b0 = Vec::with_capacity(c.instructions.len() * 32);
    for i in &c.instructions {
        let prog = c.programs.iter().find(|p| p.engine == i.engine);
        let base16 = prog.map(|p| (p.device_address >> 6) as u16).unwrap_or(0);
        let addr = base16.wrapping_add(i.pc as u16) as u32;
        let class = 0x80u32 | ((i.engine as u32 + 1) << 2);
        let clock = c.engine_clocks.get(i.engine as usize).copied().unwrap_or(Clock::ENGINE);
        let flags = (i.flags as u32) << 16;
        rec(&mut b0, (class << 24) | flags | addr, (i.wait_cycles as u32) << 16, clock.raw(i.start_ps));
        rec(
            &mut b0,
            ((class | 1) << 24) | flags | addr,
            ((i.crc_out as u32) << 16) | i.crc_in as u32,
            clock.raw(i.end_ps),
        );
    }
    let mut b1 = Vec::with_capacity((c.semaphores.len() + c.raw_events.len()) * 16);
    for s in &c.semaphores {
        let class = 0x80u32 | ((s.source as u32 + 1) << 2) | 3;
        let kind = match s.op {
            SemaphoreOp::Increment => 0xF3u32,
            SemaphoreOp::Set => 0xF9,
        };
        rec(
            &mut b1,
            (class << 24) | (kind << 16) | (1 << 8) | s.semaphore as u32,
            s.value,
            c.event_clock.raw(s.ts_ps),
        );
    }
    for &(w0, w1, ps) in &c.raw_events {
        rec(&mut b1, w0, w1, c.event_clock.raw(ps));
    }
    let mut b4 = Vec::with_capacity(c.dma.len() * 48);
    for d in &c.dma {
        let clock = c.dma_clocks.get(d.dma_engine as usize).copied().unwrap_or(Clock::PS);
        let w0 = (0x80u32 | (d.dma_engine as u32 & 0x7F)) << 24;
        let q = (d.queue as u32 & 0xF) << 4;
        rec(&mut b4, w0, q | 1, clock.raw(d.start_ps));
        rec(&mut b4, w0 | (d.size_bytes & 0x00FF_FFFF), ((d.crc as u32) << 16) | q | 5, clock.raw(d.end_ps));
        rec(&mut b4, w0, q | 6, clock.raw(d.end_ps));
    }
    let mut b5 = Vec::with_capacity(c.throttles.len() * 16);
    for t in &c.throttles {
        rec(&mut b5, t.w0, t.w1, c.throttle_clock.raw(t.ts_ps));
    }

    // ---- subgraph record /4/4/1
    let mut sg = Writer::new();
    sg.string(1, "sg00");
    for p in &c.programs {
        let mut m = Writer::new();
        nz(&mut m, 1, p.engine as u64);
        nz(&mut m, 2, p.device_address);
        let code: Vec<u8> = p.slots.iter().flatten().copied().collect();
        m.bytes(3, &code);
        sg.message(4, &m);
    }
    for l in &c.patches {
        let mut m = Writer::new();
        nz(&mut m, 1, l.engine as u64);
        for p in &l.patches {
            let mut e = Writer::new();
            nz(&mut e, 1, p.offset_bytes);
            nz(&mut e, 2, p.count);
            nz(
                &mut e,
                3,
                match p.kind {
                    PatchKind::Insert => 0,
                    PatchKind::Modify => 1,
                    PatchKind::Delete => 2,
                    PatchKind::Other(o) => o,
                },
            );
            m.message(2, &e);
        }
        sg.message(5, &m);
    }
    let mut off = 0u64;
    for (ty, blk) in [(0u64, &b0), (1, &b1), (2, &Vec::new()), (4, &b4), (5, &b5)] {
        let mut m = Writer::new();
        nz(&mut m, 1, ty);
        nz(&mut m, 3, (ty == 4) as u64);
        nz(&mut m, 5, off);
        nz(&mut m, 6, blk.len() as u64);
        sg.message(6, &m);
        off += blk.len() as u64;
    }
    for &(ty, offset, size) in &c.extra_blocks {
        let mut m = Writer::new();
        nz(&mut m, 1, ty);
        nz(&mut m, 5, offset);
        nz(&mut m, 6, size);
        sg.message(6, &m);
    }
    for q in &c.dma_queues {
        let mut m = Writer::new();
        nz(&mut m, 1, q.dma_engine);
        nz(&mut m, 2, q.queue);
        nz(&mut m, 3, q.queue_type);
        m.string(4, &q.name);
        m.varint(5, u64::MAX);
        sg.message(7, &m);
    }
    let mut cs = Writer::new();
    let ec = &c.engine_clocks;
    // /10/1..5 = PE, ACT, DVE, POOL, SP (entries 3 and 4 swap POOL and DVE).
    for (slot, clock) in [
        (1u32, ec[0]),
        (2, ec[1]),
        (3, ec[3]),
        (4, ec[2]),
        (5, ec[4]),
        (6, c.event_clock),
        (7, c.throttle_clock),
    ] {
        cs.message(slot, &clock_msg(&clock));
    }
    for d in &c.dma_clocks {
        cs.message(8, &clock_msg(d));
    }
    cs.message(9, &clock_msg(&Clock::PS));
    sg.message(10, &cs);
    for (cat, size) in &c.memory {
        let mut m = Writer::new();
        nz(&mut m, 2, *size);
        m.string(3, cat);
        sg.message(11, &m);
    }
    nz(&mut sg, 14, c.execution_time_ps);

    // ---- root
    let mut l1 = Writer::new();
    l1.message(1, &sg);
    let mut l0 = Writer::new();
    l0.message(4, &l1);
    let mut root = Writer::new();
    root.string(1, &c.neff_path);
    // The UUID is stored like a C string: cut at the first NUL.
    let uuid_end = c.uuid.iter().position(|&b| b == 0).unwrap_or(c.uuid.len());
    root.bytes(2, &c.uuid[..uuid_end]);
    root.varint(3, 10001);
    root.message(4, &l0);
    root.varint(5, 1);
    let (a, b, cc, h) = &c.runtime_version;
    root.message(8, &version_msg(*a, *b, *cc, h));
    root.string(9, &c.instance_type);
    root.varint(10, 2);
    let (a, b, cc) = c.driver_version;
    root.message(11, &version_msg(a, b, cc, ""));
    let (a, b, cc) = c.collectives_version;
    root.message(12, &version_msg(a, b, cc, ""));
    let meta = root.finish();
    assert!(meta.len() < 1 << 24, "NTFF metadata exceeds 16 MiB");

    // ---- file
    let mut out = Vec::with_capacity(HEADER_LEN + meta.len() + b0.len() + b1.len() + b4.len() + b5.len());
    out.push(c.version);
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes()[..3]);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&HEADER_CONSTANT.to_le_bytes());
    out.resize(HEADER_LEN, 0);
    out.extend_from_slice(&meta);
    for b in [&b0, &b1, &b4, &b5] {
        out.extend_from_slice(b);
    }
    out
}

/// A synthetic capture with about `record_mb` MB (10^6 bytes) of records, for benchmarks: five
/// engines walking 4096-slot programs (round-robin, every 7th instruction overlapping the one
/// before), semaphore updates spread over the run, DMA packets grouped by DMA engine (16 engines,
/// 4 queues) and 1000 throttle records. The record mix follows the real corpus: ≈ 35 % instruction,
/// ≈ 20 % event, ≈ 45 % DMA records. Deterministic.
pub fn synthetic_capture(record_mb: u64) -> Capture {
    let records = record_mb * 1_000_000 / 16;
    let (n_instr, n_sem, n_dma) = (records * 35 / 100 / 2, records * 20 / 100, records * 45 / 100 / 3);
    let mut c = Capture::default();
    const SLOTS: usize = 4096;
    let ops = [0x01u8, 0x02, 0x21, 0xA0, 0xA2, 0xA4, 0xA5, 0xA9, 0xB1, 0xB8];
    for e in 0..5u8 {
        let code: Vec<u8> = (0..SLOTS).map(|i| ops[(i * 7 + e as usize) % ops.len()]).collect();
        c.programs.push(Program::new(e, &code).notify(40, 2));
    }
    let t0: i64 = 1_000_000;
    // the NOTIFY(hint 2) that marks the profile start, on every engine
    for e in 0..5u8 {
        c.instructions.push(InstrEvent {
            engine: e,
            pc: 40,
            start_ps: t0 - 5_000,
            end_ps: t0,
            wait_cycles: 0,
            crc_in: 0xFFFF,
            crc_out: 0xFFFF,
            flags: 0,
        });
    }
    let mut clock = [t0; 5];
    let mut pc = [41u32; 5];
    c.instructions.reserve(n_instr as usize);
    for k in 0..n_instr {
        let e = (k % 5) as usize;
        let start = if k % 7 == 0 { clock[e] - 300 } else { clock[e] + 50 };
        let end = start + 1_000 + (k as i64 * 37) % 5_000;
        clock[e] = end;
        c.instructions.push(InstrEvent {
            engine: e as u8,
            pc: pc[e],
            start_ps: start,
            end_ps: end,
            wait_cycles: (k % 64) as u16,
            crc_in: k as u16,
            crc_out: (k >> 16) as u16,
            flags: 0,
        });
        pc[e] = if pc[e] + 1 >= SLOTS as u32 { 41 } else { pc[e] + 1 };
    }
    let span = (clock.iter().max().copied().unwrap_or(t0) - t0).max(1);
    c.semaphores.reserve(n_sem as usize);
    for k in 0..n_sem {
        c.semaphores.push(SemEvent {
            source: (k % 6) as u8,
            op: if k % 3 == 0 { SemaphoreOp::Set } else { SemaphoreOp::Increment },
            semaphore: (k % 32) as u8,
            value: (k % 100) as u32,
            ts_ps: t0 + (k as i64 * span) / n_sem.max(1) as i64,
        });
    }
    let per_engine = n_dma / 16;
    c.dma.reserve(n_dma as usize);
    for eng in 0..16u8 {
        for k in 0..per_engine {
            let start = t0 + (k as i64 * span) / per_engine as i64;
            c.dma.push(DmaEvent {
                dma_engine: eng,
                queue: (k % 4) as u8,
                start_ps: start,
                end_ps: start + 7_000 + (k as i64 % 90_000),
                size_bytes: 2048,
                crc: k as u16,
            });
        }
    }
    for k in 0..1000i64 {
        c.throttles.push(ThrottleEvent { ts_ps: t0 + k * span / 1000, w0: 0x9E08_0006, w1: 7 });
    }
    c
}

/// Give every instruction execution after the first its own pseudo-random wait and CRCs
/// (deterministic), as on hardware: a capture whose executions all share them would make a
/// smaller model than a real one (the generated benchmark pair, the parser worker's warm-up).
pub fn vary_executions(c: &mut Capture) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for ins in c.instructions.iter_mut().skip(1) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ins.crc_in = x as u16;
        ins.crc_out = (x >> 16) as u16;
        ins.wait_cycles = (x >> 32) as u16 % 64;
    }
}

/// The capture that pairs with [`crate::neuron::neff::writer::minimal_neff`] (same UUID): the
/// runtime program is 2 preamble NOPs, NOTIFY(hint 2) (the profile start), then the NEFF's slots
/// 1..3 on engine 0, executed `iterations` times (1 µs, 3 µs and 1 µs per pass). Slots 1–2
/// resolve through the debug info to `model.py:58`, slot 3 names a missing BIR id. For tests and
/// the browser fixtures (`cargo run -p loupe-core --example gen_neuron_pair`).
pub fn minimal_pair_capture(iterations: u32) -> Capture {
    const NS: i64 = 1000;
    let mut uuid = vec![0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef];
    uuid.extend_from_within(..);
    uuid.extend([0x7f, 0x7f, 0x7f]);
    let mut c = Capture { uuid, ..Capture::default() };
    c.programs.push(Program::new(0, &[0xA4, 0xA4, 0, 0x01, 0x02, 0xA0]).notify(2, 2));
    c.patches.push(PatchList {
        engine: 0,
        patches: vec![Patch { offset_bytes: 0, count: 2, kind: PatchKind::Insert }],
    });
    let t0 = 10_000 * NS;
    let i = |pc, s: i64, e: i64| InstrEvent {
        engine: 0,
        pc,
        start_ps: s,
        end_ps: e,
        wait_cycles: 0,
        crc_in: 0,
        crc_out: 0,
        flags: 0,
    };
    c.instructions.push(i(2, t0 - 7 * NS, t0));
    for k in 0..i64::from(iterations) {
        let base = t0 + k * 6_000 * NS;
        c.instructions.push(i(3, base + 1_000 * NS, base + 2_000 * NS));
        c.instructions.push(i(4, base + 2_000 * NS, base + 5_000 * NS));
        c.instructions.push(i(5, base + 5_000 * NS, base + 6_000 * NS));
    }
    c
}
