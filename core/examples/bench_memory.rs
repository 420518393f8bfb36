//! Resident bytes per slice of the finished model.
//! `cargo run --release -p loupe-core --example bench_memory [-- <slices> <json MB>]`
//! (defaults: 10 000 000 slices built through TraceBuilder, 200 MB generated Kineto-like JSON).
//!
//! Prints `Trace::heap_bytes() / slices` (everything the model keeps: slice columns, LOD index,
//! instants, counters, flows, args, strings) and the slice-columns-only figure (start, dur, name,
//! category, args id + depth offsets), plus the process RSS growth as a cross-check.

use loupe_core::import::chrome::synth;
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::model::synth::nested_trace;
use loupe_core::Trace;
use std::time::Instant;

fn rss_bytes() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    Some(l.split_whitespace().nth(1)?.parse::<usize>().ok()? * 1024)
}

fn report(label: &str, tr: &Trace, rss_growth: Option<isize>) {
    let n = tr.slice_count().max(1) as f64;
    let columns: usize = tr.tracks.iter().map(|t| t.slices.heap_bytes()).sum();
    let lod: usize = tr.tracks.iter().map(|t| t.lod.heap_bytes()).sum();
    println!(
        "{label}: {} slices, {} tracks; heap {:.1} MB = {:.2} bytes/slice; slice columns {:.2} bytes/slice; LOD {:.2} bytes/slice; args {:.1} MB ({:.2} bytes/slice); strings {:.2} MB{}",
        tr.slice_count(),
        tr.tracks.len(),
        tr.heap_bytes() as f64 / 1e6,
        tr.heap_bytes() as f64 / n,
        columns as f64 / n,
        lod as f64 / n,
        tr.args.heap_bytes() as f64 / 1e6,
        tr.args.heap_bytes() as f64 / n,
        tr.strings.heap_bytes() as f64 / 1e6,
        match rss_growth {
            Some(g) => format!("; RSS growth {:.2} bytes/slice", g as f64 / n),
            None => String::new(),
        }
    );
}

fn main() {
    let slices: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000_000);
    let mb: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(200);

    let r0 = rss_bytes();
    let t = Instant::now();
    let tr = nested_trace(slices, 8, 42);
    let r1 = rss_bytes();
    println!("built {slices} slices through TraceBuilder in {:.2?}", t.elapsed());
    report(
        "TraceBuilder 10M-class (8 tracks, no args)",
        &tr,
        r0.zip(r1).map(|(a, b)| b as isize - a as isize),
    );
    drop(tr);

    // bytes are generated first so the RSS growth below is the model's only
    let bytes = synth::chrome_trace_json(mb * 1_000_000, 42);
    let r0 = rss_bytes();
    let t = Instant::now();
    let tr = import_bytes("synthetic.json", &bytes, &mut NoProgress).expect("import");
    let r1 = rss_bytes();
    println!("imported {:.1} MB JSON in {:.2?}", bytes.len() as f64 / 1e6, t.elapsed());
    report(
        &format!("Kineto-like JSON {:.0} MB", bytes.len() as f64 / 1e6),
        &tr,
        r0.zip(r1).map(|(a, b)| b as isize - a as isize),
    );
}
