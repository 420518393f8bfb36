//! NTFF decode throughput. Builds a synthetic capture with >= 500 MB of records in memory
//! (`writer::synthetic_capture`: record mix like the real corpus, ~35 % instruction, ~20 % event,
//! ~45 % DMA records),
//! then times `ntff::parse` (rows held in tables) and `ntff::parse_into` (rows handed to a sink
//! that drops them, as the importer builds its model from them). Then the import of a generated
//! NEFF + NTFF pair (`gen_neuron_pair`'s: instruction records, each execution with its own wait
//! and CRCs) of `<pair MB>` as the parser worker does it (`import_files`): MB/s, the peak heap
//! (the file included, counted by a global allocator), and bytes per event.
//!
//! `cargo run -p loupe-core --release --example bench_ntff [-- <MB of records> [<pair MB>]]`

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::neuron::ntff::writer;
use loupe_core::neuron::{neff, ntff};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{NOW, PEAK};

/// Heap bytes now, and the peak since the last call (then reset to now).
fn heap() -> (usize, usize) {
    let now = NOW.load(Relaxed);
    (now, PEAK.swap(now, Relaxed))
}

/// Rows dropped as they come: the decoder alone.
struct Drop0;
impl ntff::EventSink for Drop0 {
    fn instruction(&mut self, i: ntff::Instruction) {
        std::hint::black_box(i);
    }
    fn dma_packet(&mut self, p: ntff::DmaPacket) {
        std::hint::black_box(p);
    }
}

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
    let mut best_sink = f64::MAX;
    let (base, _) = heap();
    let mut sink_peak = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let n = ntff::parse_into(&bytes, &mut Drop0).expect("parse");
        best_sink = best_sink.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&n);
        drop(n);
        sink_peak = sink_peak.max(heap().1 - base);
    }
    println!(
        "parse_into a sink (no rows held): best {:.3} s over {runs} runs -> {:.0} MB/s of records; heap beyond the file {:.1} MB",
        best_sink,
        area as f64 / 1e6 / best_sink,
        sink_peak as f64 / 1e6
    );
    drop(bytes);
    pair(std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(100));
}

/// The import of a generated NEFF + NTFF pair of `mb` MB (issue 42 goal 2's input).
fn pair(mb: u64) {
    // 96 bytes of records per iteration (3 instructions of 2 records), as tests/bench/open-ntff.mjs
    let iterations = ((mb * 1_000_000) / 96).max(1) as u32;
    let mut c = writer::minimal_pair_capture(iterations);
    writer::vary_executions(&mut c);
    let ntff_bytes = writer::write(&c);
    drop(c);
    let neff_bytes = neff::writer::minimal_neff();
    let input = ntff_bytes.len() + neff_bytes.len();
    let pair = [
        InputFile { name: "model.neff", bytes: &neff_bytes },
        InputFile { name: "model.ntff", bytes: &ntff_bytes },
    ];
    let mut times = Vec::new();
    let mut peak = 0;
    let mut model = (0, 0);
    for _ in 0..3 {
        let (base, _) = heap();
        let t = Instant::now();
        let tr = import_files(&pair, &mut NoProgress).expect("import");
        times.push(t.elapsed().as_secs_f64());
        peak = peak.max(heap().1 - base);
        model = (tr.heap_bytes(), tr.slice_count());
        drop(tr);
    }
    times.sort_by(f64::total_cmp);
    let (best, median) = (times[0], times[times.len() / 2]);
    // the files are held by the caller while it imports: the peak counts them, as the worker's
    let peak_all = peak + input;
    let events = model.1.max(1) as f64;
    println!(
        "NEFF + NTFF pair import (import_files, 3 runs): {:.1} MB in, {} events; best {:.3} s ({:.0} MB/s), median {:.3} s ({:.0} MB/s)",
        input as f64 / 1e6,
        model.1,
        best,
        input as f64 / 1e6 / best,
        median,
        input as f64 / 1e6 / median
    );
    println!(
        "pair import memory: peak {:.1} MB with the files ({:.2} bytes per input byte, {:.0} bytes per event); model {:.1} MB ({:.1} bytes per event)",
        peak_all as f64 / 1e6,
        peak_all as f64 / input as f64,
        peak_all as f64 / events,
        model.0 as f64 / 1e6,
        model.0 as f64 / events
    );
}
