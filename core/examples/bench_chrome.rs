//! Chrome JSON import throughput on a synthetic Kineto-like trace.
//! `cargo run --release --example bench_chrome -- [MB] [repeats]` (default 256 MB, 3 runs).
//! Env: `BENCH_FILE=path` imports that file (generated there first if missing), `BENCH_SPLIT=1`
//! times parse and `finish` separately, `BENCH_NOCOUNT=1` skips counting events (for
//! instruction-count profiling with callgrind). Throughput is per CPU second of the importing
//! thread (other processes may share the cores); wall time is printed too.

use loupe_core::import::chrome::synth;
use loupe_core::import::{import_bytes, Importer, NoProgress};
use std::time::Instant;

/// CPU time of this thread in seconds (Linux; other processes share the cores, so wall time
/// alone over-states the cost). None elsewhere.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

fn main() {
    let mb: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let runs: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let t = Instant::now();
    // BENCH_FILE=path: import that file instead (written there first if missing)
    let bytes = match std::env::var("BENCH_FILE") {
        Ok(p) => match std::fs::read(&p) {
            Ok(b) => b,
            Err(_) => {
                let b = synth::chrome_trace_json(mb << 20, 42);
                std::fs::write(&p, &b).expect("write BENCH_FILE");
                b
            }
        },
        Err(_) => synth::chrome_trace_json(mb << 20, 42),
    };
    let events = if std::env::var("BENCH_NOCOUNT").is_ok() {
        0
    } else {
        bytes.windows(5).filter(|w| w == b"\"ph\":").count()
    };
    println!("generated {:.1} MB, {events} events in {:.2?}", bytes.len() as f64 / 1e6, t.elapsed());
    let mut best = f64::MAX;
    let mut trace = None;
    for _ in 0..runs {
        drop(trace.take());
        let t = Instant::now();
        let c0 = cpu_secs();
        let tr = if std::env::var("BENCH_SPLIT").is_ok() {
            // parse and finish timed separately
            let mut b = loupe_core::TraceBuilder::new("chrome-json");
            let file = loupe_core::import::InputFile { name: "synthetic.json", bytes: &bytes };
            loupe_core::import::chrome::ChromeJson.import(&file, &mut b, &mut NoProgress).expect("import");
            let p = t.elapsed().as_secs_f64();
            let tr = b.finish();
            println!("  parse {:.3} s, finish {:.3} s", p, t.elapsed().as_secs_f64() - p);
            tr
        } else {
            import_bytes("synthetic.json", &bytes, &mut NoProgress).expect("import")
        };
        let wall = t.elapsed().as_secs_f64();
        let s = match (c0, cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        println!("  import {:.3} s CPU ({:.3} s wall) = {:.0} MB/s", s, wall, bytes.len() as f64 / 1e6 / s);
        best = best.min(s);
        trace = Some(tr);
    }
    let tr = trace.expect("at least one run");
    let slices = tr.slice_count();
    let heap = tr.heap_bytes();
    let columns: usize = tr.tracks.iter().map(|t| t.slices.heap_bytes()).sum();
    println!(
        "best {:.3} s: {:.0} MB/s, {:.2} M events/s; {} slices, {} instants, {} counter samples, {} flows, {} iterations, {} warnings",
        best,
        bytes.len() as f64 / 1e6 / best,
        events as f64 / 1e6 / best,
        slices,
        tr.instant_count(),
        tr.counter_sample_count(),
        tr.flows.len(),
        tr.iterations.len(),
        tr.warnings.total()
    );
    println!(
        "memory: model {:.1} MB = {:.1} bytes/slice (columns only {:.1} bytes/slice; args {:.1} MB, strings {:.1} MB); input {:.1} bytes/slice",
        heap as f64 / 1e6,
        heap as f64 / slices as f64,
        columns as f64 / slices as f64,
        tr.args.heap_bytes() as f64 / 1e6,
        tr.strings.heap_bytes() as f64 / 1e6,
        bytes.len() as f64 / slices as f64
    );
}
