//! Debug aid: the core parts of the page's index steps (`app/src/state.rs`, `IndexBuild`) timed
//! natively, step by step, with the longest step of each kind — to find a step whose work grows
//! with the trace instead of being bounded (goal 5: no long task while a profile installs).
//! `cargo run --release -p loupe-core --example index_steps -- FILE...`
use loupe_core::analysis::{annotations, busy, device_summary::DeviceSummaryBuilder, summary};
use loupe_core::import::{import_files, InputFile, NoProgress};
use std::time::Instant;

/// (kind, steps, total ms, longest ms)
struct Steps(Vec<(&'static str, usize, f64, f64)>);

impl Steps {
    fn time<T>(&mut self, kind: &'static str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let v = f();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match self.0.iter_mut().find(|s| s.0 == kind) {
            Some(s) => {
                s.1 += 1;
                s.2 += ms;
                s.3 = s.3.max(ms);
            }
            None => self.0.push((kind, 1, ms, ms)),
        }
        v
    }
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<(String, Vec<u8>)> =
        paths.iter().map(|p| (p.clone(), std::fs::read(p).expect("read"))).collect();
    let inputs: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
    let t = import_files(&inputs, &mut NoProgress).expect("import");
    drop(files);
    println!("{} slices, {} counters", t.slice_count(), t.counters.len());
    let mut s = Steps(Vec::new());
    // the decoded model's check (`app/src/loader/decode.rs`), before the index steps
    let mut check = loupe_core::model::validate::Validation::default();
    while s.time("validate (100 k)", || check.step(&t, 100_000).expect("valid")) {}
    let mut window = summary::WindowIndexBuilder::default();
    loop {
        let ti = window.tracks_done();
        let t0 = Instant::now();
        let more = s.time("window index (a track)", || window.add_next(&t));
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if ms > 10.0 {
            let tr = t.tracks.get(ti);
            let (n, d) = tr.map_or((0, 0), |tr| (tr.slices.len(), tr.slices.depth_count()));
            println!(
                "  window index step of {ms:.1} ms: track {ti} ({n} slices, {d} depths, done after: {})",
                window.tracks_done() > ti
            );
        }
        if !more {
            break;
        }
    }
    let mut names = loupe_core::query::NameAggregation::new(t.start_ns, t.end_ns);
    while s.time("names (100 k slices)", || names.add_next(&t, 100_000)) {}
    let mut device = DeviceSummaryBuilder::new(&t);
    while s.time("device summary (100 k)", || device.add_next(&t, 100_000)) {}
    for c in &t.counters {
        let mut b = loupe_core::counter_lod::CounterLodBuilder::default();
        while s.time("counter LOD (1 M samples)", || b.add_next(&c.value, 1 << 20)) {}
        s.time("finish: counter LOD", || b.finish());
    }
    s.time("zero counters", || loupe_core::rows::zero_counters(&t));
    let mut sampler = busy::RunSampler::new(&t);
    while s.time("busy: sample a run", || sampler.next_run(&t)) {}
    let mut runs = sampler.finish();
    for r in &mut runs {
        s.time("busy: sort a run", || busy::sort_run(r));
    }
    while s.time("busy: merge two runs", || busy::merge_step(&mut runs)) {}
    let merged = runs.pop().unwrap_or_default();
    s.time("finish: busy of sorted", || busy::busy_of_sorted(&merged));
    s.time("finish: device summary", || device.finish(&t));
    s.time("finish: names", || names.finish(&t));
    s.time("finish: fingerprint", || annotations::fingerprint(&t));
    s.time("finish: heap bytes", || t.heap_bytes());
    let ix = s.time("finish: window index", || window.finish());
    println!(
        "window index {:.1} MB, model {:.1} MB",
        ix.heap_bytes() as f64 / 1e6,
        t.heap_bytes() as f64 / 1e6
    );
    println!("{:<26} {:>6} {:>10} {:>10}", "step", "steps", "total ms", "longest");
    for (k, n, total, longest) in s.0 {
        println!("{k:<26} {n:>6} {total:>10.1} {longest:>10.1}");
    }
}
