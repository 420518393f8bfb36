//! GPU breakdowns (HTA definitions) and the latency summary at scale: prints ms, asserts nothing.
//! `cargo run --release -p loupe-core --example bench_gpu [-- <events>]` (default 1 000 000).
//!
//! The input is a synthetic Kineto trace (`import::chrome::synth`: ProfilerSteps, nested CPU ops,
//! launches, kernels and memcpys on GPU streams with `stream`/`correlation` args and `ac2g`
//! flows), imported once; only the analyses are timed.

use loupe_core::analysis::gpu::{gpu_analysis, GpuOptions};
use loupe_core::analysis::latency::latency_summary;
use loupe_core::import::chrome::synth::chrome_trace_json;
use loupe_core::import::{import_files, InputFile, NoProgress};
use std::time::Instant;

fn main() {
    let events: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    // the generator is sized in bytes: calibrate on a small trace, then scale
    let probe = chrome_trace_json(2 << 20, 7);
    let probe_slices = import(&probe).slice_count().max(1);
    let bytes = (probe.len() as f64 * events as f64 / probe_slices as f64) as usize;
    let json = chrome_trace_json(bytes, 7);
    let t0 = Instant::now();
    let trace = import(&json);
    println!(
        "imported {} slices ({} on GPU streams), {} flows, {} MB JSON in {:.2} s",
        trace.slice_count(),
        trace
            .tracks
            .iter()
            .filter(|t| t.role == loupe_core::model::TrackRole::GpuStream)
            .map(|t| t.slices.len())
            .sum::<usize>(),
        trace.flows.len(),
        json.len() >> 20,
        t0.elapsed().as_secs_f64()
    );
    for (label, opts) in [
        ("gpu analyses (HTA: whole µs, last step dropped)", GpuOptions::default()),
        (
            "gpu analyses (exact ns, all steps)",
            GpuOptions { hta_rounding: false, drop_last_step: false, ..GpuOptions::default() },
        ),
    ] {
        let mut ms = Vec::new();
        let mut summary = String::new();
        for _ in 0..3 {
            let t = Instant::now();
            let g = gpu_analysis(&trace, &opts);
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            summary = match g {
                Ok(g) => format!(
                    "{} ranks, {} activities, idle {:.2} %",
                    g.temporal_breakdown.ranks.len(),
                    g.temporal_breakdown.ranks.iter().map(|r| r.activities).sum::<u64>(),
                    g.temporal_breakdown.total.idle_pct
                ),
                Err(e) => e,
            };
        }
        println!("{label}: min {:.1} ms, median {:.1} ms ({summary})", min(&ms), median(&mut ms));
    }
    let mut ms = Vec::new();
    let mut names = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let l = latency_summary(&trace);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        names = l.operators.len();
    }
    println!(
        "latency summary ({names} names, device/host split, histograms): min {:.1} ms, median {:.1} ms",
        min(&ms),
        median(&mut ms)
    );
}

fn import(json: &[u8]) -> loupe_core::Trace {
    import_files(&[InputFile { name: "synthetic.json", bytes: json }], &mut NoProgress)
        .expect("synthetic trace imports")
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}
