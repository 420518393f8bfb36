//! Resident bytes per slice of the finished model.
//! `cargo run --release -p loupe-core --example bench_memory [-- <slices> <json MB>]`
//! (defaults: 10 000 000 slices built through TraceBuilder, 200 MB generated Kineto-like JSON).
//! `... --example bench_memory -- lazy <file.json>` streams a file with lazy arguments, as the
//! page's worker does above 64 MB, and prints where the bytes per slice go, part by part.
//!
//! Prints `Trace::heap_bytes() / slices` (everything the model keeps: slice columns, LOD index,
//! instants, counters, flows, args, strings) and the slice-columns-only figure (start, dur, name,
//! category, args id + depth offsets), plus the process RSS growth as a cross-check.

use loupe_core::import::chrome::{synth, StreamOptions};
use loupe_core::import::{import_bytes, import_chrome_stream, NoProgress};
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

/// `Trace::heap_bytes` part by part, per slice (the parts add up to it).
fn breakdown(tr: &Trace) {
    let n = tr.slice_count().max(1) as f64;
    let sum = |f: &dyn Fn(&loupe_core::model::Track) -> usize| tr.tracks.iter().map(f).sum::<usize>();
    let a = &tr.args;
    let parts: Vec<(&str, usize)> = vec![
        ("slices.start_ns", sum(&|t| t.slices.start_ns.capacity() * 8)),
        ("slices.dur_ns", sum(&|t| t.slices.dur_ns.heap_bytes())),
        ("slices.name", sum(&|t| t.slices.name.heap_bytes())),
        ("slices.category", sum(&|t| t.slices.category.heap_bytes())),
        ("slices.args", sum(&|t| t.slices.args.capacity() * 4)),
        ("slices.depth_starts", sum(&|t| t.slices.depth_starts.capacity() * 4)),
        ("slices.domain", sum(&|t| t.slices.domain.as_ref().map_or(0, |d| d.heap_bytes()))),
        ("lod", sum(&|t| t.lod.heap_bytes())),
        ("instants", sum(&|t| t.instants.ts_ns.capacity() * 8 + t.instants.name.capacity() * 12)),
        ("track structs", tr.tracks.len() * std::mem::size_of::<loupe_core::model::Track>()),
        ("counters", tr.counters.iter().map(|c| c.ts_ns.capacity() * 16).sum()),
        ("strings", tr.strings.heap_bytes()),
        ("flows", tr.flows.capacity() * std::mem::size_of::<loupe_core::model::Flow>()),
        ("args.offsets", a.offsets.capacity() * 4),
        (
            "args.entries (keys, tags, vals, wide)",
            a.keys.capacity() * 4 + a.tags.capacity() + a.vals.capacity() * 4 + a.wide.capacity() * 8,
        ),
        (
            "args.lazy ranges",
            a.lazy.lo.capacity() * 4 + a.lazy.len.capacity() * 2 + a.lazy.runs.capacity() * 8,
        ),
        (
            "args.lazy ids",
            a.lazy.heap_bytes()
                - (a.lazy.lo.capacity() * 4 + a.lazy.len.capacity() * 2 + a.lazy.runs.capacity() * 8),
        ),
        (
            "args.bases, forms, rows",
            a.bases.capacity() * 4
                + (a.form_base.capacity() + a.form_off.capacity() + a.form_keys.capacity()) * 4
                + a.form_tags.capacity()
                + a.rows.capacity() * 4,
        ),
        (
            "tables, tensor flops",
            tr.tables.iter().map(|t| t.heap_bytes()).sum::<usize>()
                + tr.groups.iter().map(|g| g.tensor_flops.capacity() * 24).sum::<usize>(),
        ),
    ];
    let total: usize = parts.iter().map(|p| p.1).sum();
    println!(
        "  {} slices, {} instants, {} flows, {} argument sets in memory, {} lazy sets",
        tr.slice_count(),
        tr.instant_count(),
        tr.flows.len(),
        a.len(),
        a.lazy.len()
    );
    for (name, b) in &parts {
        println!("  {name:<40} {:>12} B  {:>7.2} B/slice", b, *b as f64 / n);
    }
    println!(
        "  {:<40} {:>12} B  {:>7.2} B/slice (heap_bytes {})",
        "sum",
        total,
        total as f64 / n,
        tr.heap_bytes()
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("lazy") {
        let path = std::env::args().nth(2).expect("usage: bench_memory lazy <file.json>");
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut f = std::fs::File::open(&path).expect("open");
        let opts = StreamOptions { chunk_bytes: 16 << 20, lazy_args: Some(0), max_peak_bytes: None };
        let t = Instant::now();
        let tr = import_chrome_stream(&path, size, &mut f, opts, &mut NoProgress).expect("import");
        println!("streamed {:.1} MB with lazy args in {:.2?}", size as f64 / 1e6, t.elapsed());
        report(&path, &tr, None);
        breakdown(&tr);
        return;
    }
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
