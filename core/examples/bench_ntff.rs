//! NTFF decode throughput. Builds a synthetic capture with >= 500 MB of records in memory
//! (`writer::synthetic_capture`: record mix like the real corpus, ~35 % instruction, ~20 % event,
//! ~45 % DMA records),
//! then times `ntff::parse`.
//!
//! `cargo run -p loupe-core --release --example bench_ntff [-- <MB of records>]`

use std::time::Instant;

use loupe_core::neuron::ntff;
use loupe_core::neuron::ntff::writer;

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
    let t = Instant::now();
    let c = writer::synthetic_capture(target_mb);
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
        println!(
            "parse CPU time (best): {:.3} s -> {:.0} MB/s of records",
            best_cpu,
            area as f64 / 1e6 / best_cpu
        );
    }
}
