//! Peak heap of importing files whole and encoding the model for the page, as the parser worker
//! does (`app/src/loader/worker_side.rs`: read, `import_files`, `model::wire::encode`), phase by
//! phase, counted by a global allocator. Sizes the worker's refusal of captures too big for it
//! (`neuron_binary::PEAK_BYTES_PER_NTFF_BYTE`).
//!
//! `cargo run -p loupe-core --release --example import_peak -- <file>...`

use loupe_core::import::{import_files, InputFile, NoProgress};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(n, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let n = NOW.fetch_add(new - l.size(), Relaxed) + new - l.size();
            PEAK.fetch_max(n, Relaxed);
        } else {
            NOW.fetch_sub(l.size() - new, Relaxed);
        }
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn mb(n: usize) -> String {
    format!("{:.1} MB", n as f64 / 1e6)
}

thread_local! {
    static LAST: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

fn phase(name: &str, input: usize) {
    let (now, peak) = (NOW.load(Relaxed), PEAK.load(Relaxed));
    let t = std::time::Instant::now();
    let ms = LAST.with(|l| l.replace(Some(t))).map_or(0.0, |p| (t - p).as_secs_f64() * 1e3);
    println!(
        "{name:<28} now {:>10}  peak {:>10}  ({:.2} / {:.2} bytes per input byte)  {ms:>7.0} ms",
        mb(now),
        mb(peak),
        now as f64 / input as f64,
        peak as f64 / input as f64
    );
    PEAK.store(now, Relaxed);
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<(String, Vec<u8>)> =
        paths.iter().map(|p| (p.clone(), std::fs::read(p).expect("read"))).collect();
    let input: usize = files.iter().map(|f| f.1.len()).sum();
    phase("files read", input);
    if let Some((_, b)) = files.iter().find(|f| f.0.ends_with(".ntff")) {
        let t = loupe_core::neuron::ntff::parse(b).expect("ntff");
        phase("  (ntff::parse alone)", input);
        let (c, _) = loupe_core::neuron::correlate::correlate(&t, None);
        println!(
            "  {} instructions ({} B each), {} correlations (4 B each, {} distinct lineages)",
            t.instructions.len(),
            std::mem::size_of_val(&t.instructions[0]),
            c.len(),
            c.lineages().len()
        );
        phase("  (+ correlate, no NEFF)", input);
        drop((t, c));
        phase("  (dropped)", input);
        let pair: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
        let mut b = loupe_core::model::TraceBuilder::new("");
        use loupe_core::import::Importer;
        loupe_core::import::neuron_binary::NeuronBinary.import_group(&pair, &mut b, &mut NoProgress);
        phase("  (builder filled)", input);
        b.add_operator_timeline();
        phase("  (operator timeline)", input);
        let t = b.finish();
        phase("  (finished)", input);
        drop(t);
    }
    let inputs: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
    let trace = import_files(&inputs, &mut NoProgress).expect("import");
    println!("{} slices, model {} as the core counts it", trace.slice_count(), mb(trace.heap_bytes()));
    phase("imported", input);
    drop(inputs);
    drop(files);
    phase("files dropped", input);
    // as the worker's BufferSink: each piece through a scratch Vec, copied out of the heap
    struct Scratch(Vec<u8>, usize);
    impl loupe_core::model::wire::Sink for Scratch {
        fn begin(&mut self, _: usize) {}
        fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
            write(&mut self.0);
            self.1 += self.0.len();
            self.0.clear();
        }
    }
    let mut sink = Scratch(Vec::new(), 0);
    loupe_core::model::wire::encode_to(trace, &mut sink).expect("encode");
    println!("encoding: {}", mb(sink.1));
    drop(sink);
    phase("encoded to a sink", input);
}
