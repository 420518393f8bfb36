//! Peak heap of importing files whole and encoding the model for the page, as the parser worker
//! does (`app/src/loader/worker_side.rs`: read, `import_owned`, `model::wire::encode`), phase by
//! phase, counted by a global allocator. Sizes the worker's refusal of captures too big for it
//! (`neuron_binary::PEAK_BYTES_PER_NTFF_BYTE`).
//!
//! `cargo run -p loupe-core --release --example import_peak -- <file>...`

use loupe_core::import::{import_owned_with, InputFile, NoProgress};
use std::sync::atomic::Ordering::Relaxed;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{NOW, PEAK};

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
        use loupe_core::neuron::{correlate, ntff};
        // the import's phases apart: the decoder alone (rows dropped as they come), the decoder
        // with the correlation of every instruction (as the importer resolves it: once per
        // distinct instruction, counted per event), then the whole fill of the builder
        struct Drop0(u64);
        impl ntff::EventSink for Drop0 {
            fn instruction(&mut self, i: ntff::Instruction) {
                self.0 += 1;
                std::hint::black_box(i);
            }
            fn dma_packet(&mut self, p: ntff::DmaPacket) {
                self.0 += 1;
                std::hint::black_box(p);
            }
        }
        let mut sink = Drop0(0);
        let t = ntff::parse_into(b, &mut sink).expect("ntff");
        let rows = sink.0;
        phase("  (decode alone)", input);
        let neff = files
            .iter()
            .find(|f| f.0.ends_with(".neff"))
            .map(|f| loupe_core::neuron::neff::parse(&f.1).expect("neff"));
        struct Correlating<'a> {
            c: correlate::Correlator<'a>,
            seen: loupe_core::strings::FxHashMap<(u8, u32, Option<u32>, u8), correlate::Outcome>,
        }
        impl ntff::EventSink for Correlating<'_> {
            fn instruction(&mut self, i: ntff::Instruction) {
                let key = (i.engine, i.pc, i.compiler_pc, i.opcode_byte);
                let o = match self.seen.get(&key) {
                    Some(&o) => o,
                    None => {
                        let o = self.c.resolve(&i);
                        self.seen.insert(key, o);
                        o
                    }
                };
                self.c.count(o);
            }
            fn dma_packet(&mut self, p: ntff::DmaPacket) {
                std::hint::black_box(p);
            }
        }
        let mut sink = Correlating {
            c: correlate::Correlator::new(&t.ntff.metadata, neff.as_ref()),
            seen: Default::default(),
        };
        ntff::parse_into(b, &mut sink).expect("ntff");
        let (lineages, report) = sink.c.finish();
        phase("  (decode + correlate)", input);
        println!(
            "  {} rows, {} bytes each as a decoded instruction (none held), {} correlated events, {} distinct lineages",
            rows,
            std::mem::size_of::<ntff::Instruction>(),
            report.events,
            lineages.len()
        );
        drop((t, lineages, report, neff));
        let pair: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
        let mut b = loupe_core::model::TraceBuilder::new("");
        use loupe_core::import::Importer;
        loupe_core::import::neuron::binary::NeuronBinary.import_group(&pair, &mut b, &mut NoProgress);
        phase("  (decode + correlate + fill)", input);
        let limit = loupe_core::limits::Budget::for_input(input as u64).limit();
        println!(
            "  memory budget charged {} ({:.2} per input byte; this import's limit: {}, {} per input byte above its floor)",
            mb(b.budget().used() as usize),
            b.budget().used() as f64 / input as f64,
            mb(limit as usize),
            loupe_core::limits::BUDGET_BYTES_PER_INPUT_BYTE
        );
        b.add_operator_timeline();
        phase("  (operator timeline)", input);
        let t = b.finish();
        phase("  (finished)", input);
        println!(
            "  model {} for {} slices ({:.1} bytes per slice), {:.1} bytes per NTFF byte",
            mb(t.heap_bytes()),
            t.slice_count(),
            t.heap_bytes() as f64 / t.slice_count().max(1) as f64,
            t.heap_bytes() as f64 / input as f64
        );
        drop(t);
    }
    // as the worker: the files handed over, freed once the importers have read them (before the
    // operator timeline and `finish`)
    let trace = import_owned_with(&[], files, &mut NoProgress).expect("import");
    println!("{} slices, model {} as the core counts it", trace.slice_count(), mb(trace.heap_bytes()));
    phase("imported (files freed)", input);
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
