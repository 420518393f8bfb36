//! Search and window-summary speed at scale (prints numbers; asserts nothing about time).
//! `cargo run --release -p loupe-core --example bench_analysis [-- <slices>]` (default 10 000 000).
//!
//! - search: a substring query, a numeric filter and a field query over every slice, as one
//!   pass and as the app runs it (chunks of 200k slices): slices/s and the worst chunk time;
//! - window summary (the Current Selection widget, once per frame): build cost of the prefix
//!   sums, then per-window time at zooms from the whole trace down to 1/10 000 of it;
//! - once per load: the busy range ("Zoom to data", the first view), the all-zero counter scan and
//!   the timeline's row plan.

use loupe_core::analysis::search::{Query, Search};
use loupe_core::analysis::summary::WindowIndex;
use loupe_core::model::synth::nested_trace;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000_000);
    let t0 = Instant::now();
    let trace = nested_trace(n, 64, 7);
    println!(
        "built {} slices on {} tracks in {:.2} s",
        trace.slice_count(),
        trace.tracks.len(),
        t0.elapsed().as_secs_f64()
    );

    for q in ["a", "dur>100us", "name:fn_3 dur<1us", "-b track:T7"] {
        let query = Query::parse(q).expect("query");
        let t = Instant::now();
        let s = Search::run(&trace, query.clone());
        let one = t.elapsed().as_secs_f64();
        // chunked, as the page runs it
        let mut s2 = Search::new(&trace, query);
        let mut worst = 0f64;
        let mut chunks = 0;
        loop {
            let c = Instant::now();
            let done = s2.step(&trace, 200_000);
            worst = worst.max(c.elapsed().as_secs_f64());
            chunks += 1;
            if done {
                break;
            }
        }
        let t = Instant::now();
        let paged = s.hits_by_time(&trace).len();
        let sort = t.elapsed().as_secs_f64();
        println!(
            "search {q:<22} {:>9} hits  one pass {:>7.1} ms = {:>6.1} M slices/s; {chunks} chunks of 200k, worst {:.2} ms; time-ordering the hits {:.1} ms ({paged})",
            s.hit_count(),
            one * 1e3,
            trace.slice_count() as f64 / one / 1e6,
            worst * 1e3,
            sort * 1e3
        );
    }

    let t = Instant::now();
    let ix = WindowIndex::build(&trace);
    println!(
        "window index: built in {:.1} ms, {:.2} bytes/slice",
        t.elapsed().as_secs_f64() * 1e3,
        ix.heap_bytes() as f64 / trace.slice_count().max(1) as f64
    );
    let span = trace.duration_ns().max(1);
    for div in [1i64, 10, 100, 1_000, 10_000] {
        let w = span / div;
        let frames = 200;
        let mut times: Vec<f64> = Vec::with_capacity(frames);
        for f in 0..frames as i64 {
            let a = trace.start_ns + (span - w) * f / frames as i64;
            let t = Instant::now();
            let s = ix.window(&trace, a, a + w, None);
            std::hint::black_box(s.slices);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "window summary at 1/{div:<6} of the trace: p50 {:.3} ms, p95 {:.3} ms per frame",
            times[frames / 2],
            times[frames * 95 / 100]
        );
    }

    let t = Instant::now();
    let busy = loupe_core::analysis::busy::busy_range(&trace);
    println!("busy range {busy:?} in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let zero = loupe_core::rows::zero_counters(&trace);
    let plan = loupe_core::rows::plan_rows(&trace, &zero, &Default::default());
    println!(
        "row plan ({} rows) with the zero-counter scan in {:.2} ms",
        plan.rows.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
}
