//! Viewport and panel queries on a 10-million-slice track: `lod::query` for a 1920 px wide
//! viewport at several zoom levels (one "query" = every depth of the track, as one frame of that
//! track needs), and `query::aggregate_by_name` over the whole trace and over 1 % of it.
//!
//! `cargo bench -p loupe-core --bench view`   (env `LOUPE_BENCH_SLICES`, default 10000000)

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use loupe_core::lod::{self, LodItem};
use loupe_core::model::synth::nested_trace;
use loupe_core::query::aggregate_by_name;
use std::hint::black_box;
use std::time::{Duration, Instant};

const WIDTH_PX: f64 = 1920.0;

fn slices() -> usize {
    std::env::var("LOUPE_BENCH_SLICES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000)
}

fn bench(c: &mut Criterion) {
    let n = slices();
    let t = Instant::now();
    let tr = nested_trace(n, 1, 42);
    let track = &tr.tracks[0];
    eprintln!(
        "built {} slices on one track ({} depths) in {:.2?}; {:.1} bytes/slice resident",
        tr.slice_count(),
        track.slices.depth_count(),
        t.elapsed(),
        tr.heap_bytes() as f64 / tr.slice_count() as f64
    );
    let (t0, t1) = (tr.start_ns, tr.end_ns);
    let span = (t1 - t0) as f64;

    let mut g = c.benchmark_group("lod_query_1920px");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(1));
    let mut out: Vec<LodItem> = Vec::with_capacity(1 << 16);
    for zoom in [1u64, 10, 100, 1_000, 10_000, 100_000] {
        let w = span / zoom as f64;
        let ns_per_px = w / WIDTH_PX;
        // window in the middle of the trace; each iteration pans by 1/8 of a width
        let mid = t0 as f64 + span / 2.0 - w / 2.0;
        out.clear();
        for d in 0..track.slices.depth_count() {
            lod::query(&track.slices, &track.lod, d, mid as i64, (mid + w) as i64, ns_per_px, 1.0, &mut out);
        }
        eprintln!("zoom 1/{zoom}: {:.3} ms wide, {:.0} ns/px, {} items", w / 1e6, ns_per_px, out.len());
        let mut k = 0u64;
        g.bench_with_input(BenchmarkId::new("zoom", format!("1/{zoom}")), &zoom, |b, _| {
            b.iter(|| {
                k += 1;
                let a = (mid + w * ((k % 16) as f64 - 8.0) / 8.0).max(t0 as f64) as i64;
                let e = a + w as i64;
                out.clear();
                for d in 0..track.slices.depth_count() {
                    lod::query(&track.slices, &track.lod, d, a, e, ns_per_px, 1.0, &mut out);
                }
                black_box(out.len())
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("aggregate_by_name");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("all", |b| b.iter(|| aggregate_by_name(black_box(&tr), i64::MIN, i64::MAX)));
    let a = t0 + (span * 0.5) as i64;
    let e = a + (span * 0.01) as i64;
    g.throughput(Throughput::Elements(n as u64 / 100));
    g.bench_function("1_percent", |b| b.iter(|| aggregate_by_name(black_box(&tr), a, e)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
