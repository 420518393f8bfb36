//! Import throughput: Chrome/Kineto JSON (`import_bytes`) and NTFF decode (`ntff::parse`) on
//! generated inputs. Criterion's Throughput::Bytes prints MiB/s (2^20 bytes/s; × 1.048576 for
//! MB/s); the examples bench_chrome / bench_ntff print MB/s (10^6).
//!
//! `cargo bench -p loupe-core --bench import`
//! Env: `LOUPE_BENCH_JSON_MB` (default 64), `LOUPE_BENCH_NTFF_MB` (MB of records, default 512).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use loupe_core::import::chrome::synth;
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::neuron::ntff::{self, writer};
use std::hint::black_box;
use std::time::Duration;

fn env_mb(key: &str, default: usize) -> usize {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn chrome_json(c: &mut Criterion) {
    let mb = env_mb("LOUPE_BENCH_JSON_MB", 64);
    let bytes = synth::chrome_trace_json(mb << 20, 42);
    let slices = import_bytes("synthetic.json", &bytes, &mut NoProgress).expect("import").slice_count();
    eprintln!("chrome json: {:.1} MB, {slices} slices", bytes.len() as f64 / 1e6);
    let mut g = c.benchmark_group("import");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function(format!("chrome_json_{mb}MiB"), |b| {
        b.iter(|| import_bytes("synthetic.json", black_box(&bytes), &mut NoProgress).expect("import"))
    });
    g.finish();
}

fn ntff_decode(c: &mut Criterion) {
    let mb = env_mb("LOUPE_BENCH_NTFF_MB", 512) as u64;
    let bytes = writer::write(&writer::synthetic_capture(mb));
    let area = ntff::parse(&bytes).expect("parse").stats.record_area_bytes;
    eprintln!("ntff: {:.1} MB file, {:.1} MB of records", bytes.len() as f64 / 1e6, area as f64 / 1e6);
    let mut g = c.benchmark_group("import");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(12));
    // throughput over the record area (the metadata is a few KB)
    g.throughput(Throughput::Bytes(area));
    g.bench_function(format!("ntff_parse_{mb}MB_records"), |b| {
        b.iter(|| ntff::parse(black_box(&bytes)).expect("parse"))
    });
    g.finish();
}

criterion_group!(benches, chrome_json, ntff_decode);
criterion_main!(benches);
