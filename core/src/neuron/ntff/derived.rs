//! Derived tables (ntff-v5.md §7): engine active time, pending DMA count, DMA throughput.

use serde::Serialize;

use super::opcodes::OP_EVENT_SEMAPHORE;
use super::{DmaPacket, Instruction, ENGINE_ACTIVE_NAMES, ENGINE_COUNT};

/// One merged busy interval of an engine (JSON `active_time` row; serialized with `engine_name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "ActiveTimeRow")]
pub struct ActiveTime {
    pub engine: u8,
    pub start_ns: i64,
    pub end_ns: i64,
    pub dur_ns: i64,
}

impl ActiveTime {
    /// `tensor`, `scalar`, `gpsimd`, `vector`, `sync` (JSON `engine`).
    pub fn engine_name(&self) -> &'static str {
        ENGINE_ACTIVE_NAMES.get(self.engine as usize).copied().unwrap_or("unknown")
    }
}

#[derive(Serialize)]
struct ActiveTimeRow {
    engine: u8,
    engine_name: &'static str,
    start_ns: i64,
    end_ns: i64,
    dur_ns: i64,
}

impl From<ActiveTime> for ActiveTimeRow {
    fn from(a: ActiveTime) -> Self {
        ActiveTimeRow {
            engine: a.engine,
            engine_name: a.engine_name(),
            start_ns: a.start_ns,
            end_ns: a.end_ns,
            dur_ns: a.dur_ns,
        }
    }
}

/// A step-counter sample: the counter has `value` from `ts_ns` on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CounterPoint {
    pub ts_ns: i64,
    pub value: i64,
}

/// DMA throughput step sample (from `ts_ps` on).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThroughputPoint {
    pub ts_ps: i64,
    pub ts_ns: i64,
    /// Sum of `size / duration` over the packets in flight.
    pub rate_bytes_per_s: f64,
    /// Bytes of all packets started so far.
    pub total_bytes: u64,
}

/// How far back an out-of-order interval may land before we give up on incremental merging
/// and sort that engine's intervals instead (keeps hostile input O(n log n)).
const MAX_BACKTRACK: usize = 256;

/// Disjoint, non-touching merged intervals sorted by start, built incrementally. Linear for the
/// nearly start-ordered streams a trace produces (instructions come in end-record order).
#[derive(Default)]
struct Merger {
    blocks: Vec<(i64, i64)>,
    failed: bool,
}

impl Merger {
    #[inline]
    fn add(&mut self, s: i64, e: i64) {
        let e = e.max(s);
        if let Some(last) = self.blocks.last_mut() {
            if s >= last.0 {
                if s <= last.1 {
                    last.1 = last.1.max(e);
                } else {
                    self.blocks.push((s, e));
                }
                return;
            }
        } else {
            self.blocks.push((s, e));
            return;
        }
        self.add_out_of_order(s, e);
    }

    #[cold]
    fn add_out_of_order(&mut self, s: i64, e: i64) {
        if self.failed {
            return;
        }
        let b = &mut self.blocks;
        let n = b.len();
        // hi_end: one past the last block with start <= e.
        let mut hi_end = n;
        let mut steps = 0;
        while hi_end > 0 && b[hi_end - 1].0 > e {
            hi_end -= 1;
            steps += 1;
            if steps > MAX_BACKTRACK {
                self.failed = true;
                return;
            }
        }
        // lo: first block with end >= s.
        let mut lo = hi_end;
        while lo > 0 && b[lo - 1].1 >= s {
            lo -= 1;
            steps += 1;
            if steps > MAX_BACKTRACK {
                self.failed = true;
                return;
            }
        }
        if lo == hi_end {
            b.insert(lo, (s, e));
        } else {
            let merged = (s.min(b[lo].0), e.max(b[hi_end - 1].1));
            b[lo] = merged;
            b.drain(lo + 1..hi_end);
        }
    }
}

/// Per engine: in-window instruction intervals except EVENT_SEMAPHORE, merged when
/// `start <= current end` (in ps), then floored to ns. Verified 10,062/10,062 in the corpus.
pub(crate) fn active_time(instructions: &[Instruction], per_engine: [u64; ENGINE_COUNT]) -> Vec<ActiveTime> {
    let mut m: [Merger; ENGINE_COUNT] = Default::default();
    // Upper bound per engine: no reallocation while merging.
    for (mm, &n) in m.iter_mut().zip(&per_engine) {
        mm.blocks.reserve(n as usize);
    }
    for i in instructions {
        if i.opcode_byte != OP_EVENT_SEMAPHORE {
            if let Some(mm) = m.get_mut(i.engine as usize) {
                mm.add(i.start_ps, i.end_ps);
            }
        }
    }
    let mut out = Vec::with_capacity(m.iter().map(|x| x.blocks.len()).sum());
    for (e, mm) in m.iter_mut().enumerate() {
        if mm.failed {
            // Fallback: plain sort-and-merge of this engine's intervals.
            let mut iv: Vec<(i64, i64)> = instructions
                .iter()
                .filter(|i| i.engine as usize == e && i.opcode_byte != OP_EVENT_SEMAPHORE)
                .map(|i| (i.start_ps, i.end_ps.max(i.start_ps)))
                .collect();
            iv.sort_unstable();
            mm.blocks.clear();
            for (s, en) in iv {
                match mm.blocks.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(en),
                    _ => mm.blocks.push((s, en)),
                }
            }
        }
        out.extend(mm.blocks.iter().map(|&(s, en)| ActiveTime {
            engine: e as u8,
            start_ns: s.div_euclid(1000),
            end_ns: en.div_euclid(1000),
            dur_ns: en.saturating_sub(s).div_euclid(1000),
        }));
    }
    out
}

pub(crate) fn dma_throughput(packets: &[DmaPacket]) -> Vec<ThroughputPoint> {
    let mut t = Throughput(Vec::with_capacity(packets.len() * 2));
    for p in packets {
        t.add(p);
    }
    t.finish()
}

/// [`super::Ntff::dma_throughput`] built a packet at a time (for a sink of decoded rows): each
/// packet's start and end (24 bytes each) until [`Throughput::finish`].
#[derive(Debug, Default, Clone)]
pub struct Throughput(Vec<(i64, f64, u64)>);

impl Throughput {
    pub fn add(&mut self, p: &DmaPacket) {
        let dur = (p.end_ps - p.start_ps).max(1) as f64;
        let rate = p.size_bytes as f64 * 1e12 / dur;
        self.0.push((p.start_ps, rate, p.size_bytes as u64));
        self.0.push((p.end_ps, -rate, 0));
    }
    pub fn finish(self) -> Vec<ThroughputPoint> {
        throughput_of(self.0)
    }
}

fn throughput_of(mut ev: Vec<(i64, f64, u64)>) -> Vec<ThroughputPoint> {
    ev.sort_by_key(|e| e.0);
    let mut out: Vec<ThroughputPoint> = Vec::new();
    let (mut rate, mut total) = (0f64, 0u64);
    for (t, dr, db) in ev {
        rate += dr;
        total += db;
        let r = if rate.abs() < 1e-3 { 0.0 } else { rate };
        match out.last_mut() {
            Some(last) if last.ts_ps == t => {
                last.rate_bytes_per_s = r;
                last.total_bytes = total;
            }
            _ => out.push(ThroughputPoint {
                ts_ps: t,
                ts_ns: t.div_euclid(1000),
                rate_bytes_per_s: r,
                total_bytes: total,
            }),
        }
    }
    out
}
