//! NTFF decode throughput. Builds a synthetic capture with >= 500 MB of records in memory
//! (record mix like the real corpus: ~35 % instruction, ~20 % event, ~44 % DMA records),
//! then times `ntff::parse`.
//!
//! `cargo run -p loupe-core --release --example bench_ntff [-- <MB of records>]`

use std::time::Instant;

use loupe_core::neuron::ntff::writer::{self, Capture, DmaEvent, InstrEvent, Program, SemEvent, ThrottleEvent};
use loupe_core::neuron::ntff::{self, SemaphoreOp};

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), if available.
/// The machine may be shared, so wall-clock rates can understate the decoder.
fn cpu_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// (user, system) CPU seconds of this thread from `/proc/thread-self/stat` (10 ms ticks).
fn user_sys() -> Option<(f64, f64)> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? / 100.0, f.get(12)?.parse::<f64>().ok()? / 100.0))
}

fn main() {
    let target_mb: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(512);
    let records = target_mb * 1_000_000 / 16;
    let (n_instr, n_sem, n_dma) = (records * 35 / 100 / 2, records * 20 / 100, records * 45 / 100 / 3);

    let t = Instant::now();
    let mut c = Capture::default();
    const SLOTS: usize = 4096;
    let ops = [0x01u8, 0x02, 0x21, 0xA0, 0xA2, 0xA4, 0xA5, 0xA9, 0xB1, 0xB8];
    for e in 0..5u8 {
        let code: Vec<u8> = (0..SLOTS).map(|i| ops[(i * 7 + e as usize) % ops.len()]).collect();
        c.programs.push(Program::new(e, &code).notify(40, 2));
    }
    let t0: i64 = 1_000_000;
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
    // Engines interleaved round-robin, each walking its program; every 7th overlaps the previous.
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
    let span = clock.iter().max().unwrap() - t0;
    c.semaphores.reserve(n_sem as usize);
    for k in 0..n_sem {
        c.semaphores.push(SemEvent {
            source: (k % 6) as u8,
            op: if k % 3 == 0 { SemaphoreOp::Set } else { SemaphoreOp::Increment },
            semaphore: (k % 32) as u8,
            value: (k % 100) as u32,
            ts_ps: t0 + (k as i64 * span) / n_sem as i64,
        });
    }
    // DMA records grouped by DMA engine, as in real files.
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
    let bytes = writer::write(&c);
    drop(c);
    let gen = t.elapsed();

    let first = ntff::parse(&bytes).expect("parse");
    let area = first.stats.record_area_bytes;
    let recs = area / 16;
    println!(
        "generated {:.1} MB file ({:.1} MB records, {} records) in {:.2?}",
        bytes.len() as f64 / 1e6,
        area as f64 / 1e6,
        recs,
        gen
    );
    println!(
        "decoded: {} instructions, {} DMA packets, {} semaphore updates, {} throttles, {} active intervals, {} warnings",
        first.instructions.len(),
        first.dma_packets.len(),
        first.semaphore_updates.len(),
        first.throttles.len(),
        first.active_time.len(),
        first.warnings.len()
    );
    println!(
        "row sizes: Instruction {} B, DmaPacket {} B, SemaphoreUpdate {} B",
        std::mem::size_of::<ntff::Instruction>(),
        std::mem::size_of::<ntff::DmaPacket>(),
        std::mem::size_of::<ntff::SemaphoreUpdate>()
    );
    drop(first);

    let us0 = user_sys();
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut sum = 0.0;
    let runs = 5;
    for _ in 0..runs {
        let c0 = cpu_time();
        let t = Instant::now();
        let n = ntff::parse(&bytes).expect("parse");
        let s = t.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (c0, cpu_time()) {
            best_cpu = best_cpu.min(b - a);
        }
        std::hint::black_box(&n);
        drop(n);
        best = best.min(s);
        sum += s;
    }
    let mean = sum / runs as f64;
    if let (Some(a), Some(b)) = (us0, user_sys()) {
        println!(
            "parse CPU split per run: user {:.3} s, system {:.3} s (system = page faults for the output tables)",
            (b.0 - a.0) / runs as f64,
            (b.1 - a.1) / runs as f64
        );
    }
    println!(
        "parse: best {:.3} s, mean {:.3} s over {runs} runs -> {:.0} MB/s of records (best), {:.0} MB/s (mean), {:.1} M records/s (best)",
        best,
        mean,
        area as f64 / 1e6 / best,
        area as f64 / 1e6 / mean,
        recs as f64 / 1e6 / best
    );
    if best_cpu < f64::MAX {
        println!("parse CPU time (best): {:.3} s -> {:.0} MB/s of records", best_cpu, area as f64 / 1e6 / best_cpu);
    }
}
