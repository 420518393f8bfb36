//! `.loupe` round trips (model equality: the bincode of every field, LOD included, is identical)
//! on the demo, a synthetic trace and shared samples; and a pin of the model's layout, so that a
//! change of `Trace` that forgets to bump `loupe_file::FORMAT_VERSION` fails here.

use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::loupe_file::{read, to_bytes, FileMeta, FORMAT_VERSION};
use loupe_core::Trace;
use std::hash::Hasher;

fn model(t: &Trace) -> Vec<u8> {
    bincode::encode_to_vec(t, bincode::config::standard().with_fixed_int_encoding()).unwrap()
}

fn round_trip(t: &Trace, label: &str) {
    let f = read(&to_bytes(t, "{\"view\":1}", &FileMeta::default()).unwrap()).unwrap();
    assert!(model(&f.trace) == model(t), "{label}: model differs after the round trip");
    assert_eq!(f.trace.slice_count(), t.slice_count());
    assert_eq!(f.state_json, "{\"view\":1}");
    println!("{label}: model {} B, file {} B", f.payload_bytes, f.file_bytes);
}

#[test]
fn round_trips_keep_the_model() {
    round_trip(&loupe_core::demo::demo_trace(), "demo");
    round_trip(&loupe_core::model::synth::nested_trace(5000, 4, 2), "synthetic");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");
    for rel in [
        "pytorch-kineto/hta__trace_filter_sampled_rank-0.json.gz",
        "neuron/profile_128x128x1024.ntff",
        "neuron/profile_128x128x1024.json",
    ] {
        let p = format!("{root}/{rel}");
        let Ok(b) = std::fs::read(&p) else {
            panic!("{p} absent (the shared samples beside the repository are required)");
        };
        round_trip(&import_bytes(&p, &b, &mut NoProgress).unwrap(), rel);
    }
}

/// (Version 1 was first released with the lazy-argument model; no older file exists. Version 2
/// added the argument sets' bases, `ArgStore::bases`; version 3 packed the argument values into
/// columns, `ArgStore::tags` / `vals` / `wide`; version 4 keeps the slices' domain fields as
/// shapes (`DomainColumns::shape` / `shapes`); version 5 added row sets (`ArgStore::form_*`,
/// `rows`); version 6 added the slices' GPU work class (`DomainShapes::gpu_work`), the device
/// facts' operator attribution and incomplete-capture flags (`DeviceInfo::attribution` /
/// `incomplete`) and the NTFF's summary facts (versions, memory, throttling, DMA blocks, traffic):
/// older files are refused with the message to re-open the original files; version 7 added a
/// device group's per-instruction Tensor FLOPs, `Group::tensor_flops`, for the device summary
/// over a time window; version 8 added the device facts' NEFF UUID and NeuronCore
/// (`DeviceInfo::neff_uuid` / `neff_uuid_truncated` / `neuron_core`, the ranks of a Neuron job)
/// and the collective-operations track role (`TrackRole::CollectiveOps`); version 9 typed the
/// program (`ProgramKind`, `ProgramHeader`, instruction counts per `Engine`, `ProgramTableKind`,
/// `ProgramLevel`) and added the slices' runtime program counter (`SliceDomain::pc`) and the
/// counters' number (`CounterTrack::number`, a semaphore's id), and keeps the lazy argument sets
/// as narrow columns (`model::LazyStore`: 11 bytes a set, was 24), the slices' names and
/// categories as indexes into each track's distinct values (`model::IdColumn`) and their
/// durations as u32 with the wider ones aside (`model::DurColumn`).)
/// When this fails, the model's bincode layout changed: bump `FORMAT_VERSION` in
/// `core/src/loupe_file.rs` (and write a migration if old files matter), then update both numbers.
#[test]
fn the_model_layout_is_pinned_to_the_format_version() {
    let mut h = loupe_core::strings::FxHasher::default();
    h.write(&model(&loupe_core::demo::demo_trace()));
    assert_eq!(
        (FORMAT_VERSION, h.finish()),
        (10, 5259344064520868687),
        "model layout changed: bump FORMAT_VERSION"
    );
}

/// The `import_loupe` fuzz target's seeds (`core/fuzz/seeds/import_loupe/`): a `.loupe` file and
/// its bare payload (the target also frames inputs behind a valid header) for a generated NEFF +
/// NTFF pair (row sets, domain columns, devices) and a small Kineto-like JSON (a flow, a counter,
/// arguments). Seeds of an older format only reach the version check, so this fails when the
/// committed ones no longer read; `LOUPE_BLESS_SEEDS=1 cargo test -p loupe-core --test loupe_file`
/// rewrites them.
#[test]
fn the_import_loupe_fuzz_seeds_are_of_this_format() {
    use loupe_core::import::{import_files, InputFile};
    use loupe_core::loupe_file::frame_uncompressed;
    use loupe_core::neuron::{neff, ntff};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/seeds/import_loupe");
    let neff_bytes = neff::writer::minimal_neff();
    let ntff_bytes = ntff::writer::write(&ntff::writer::minimal_pair_capture(2));
    let pair = import_files(
        &[
            InputFile { name: "model.neff", bytes: &neff_bytes },
            InputFile { name: "model.ntff", bytes: &ntff_bytes },
        ],
        &mut NoProgress,
    )
    .unwrap();
    let json = br#"{"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":2,"ts":0,"dur":100,"args":{"step":1}},
{"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":2,"ts":10,"dur":30,"args":{"Input Dims":[[2,3],[3,4]],"External id":7}},
{"ph":"X","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":2,"ts":15,"dur":5,"args":{"correlation":9}},
{"ph":"X","name":"gemm_kernel","cat":"kernel","pid":0,"tid":7,"ts":25,"dur":40,"args":{"correlation":9,"grid":[4,1,1]}},
{"ph":"s","id":9,"name":"ac2g","cat":"ac2g","pid":1,"tid":2,"ts":15},
{"ph":"f","id":9,"name":"ac2g","cat":"ac2g","pid":0,"tid":7,"ts":25,"bp":"e"},
{"ph":"C","name":"memory","pid":1,"ts":0,"args":{"bytes":100}},
{"ph":"C","name":"memory","pid":1,"ts":50,"args":{"bytes":300}},
{"ph":"i","name":"marker","pid":1,"tid":2,"ts":60,"s":"t"}]}"#;
    let chrome = import_bytes("trace.json", json, &mut NoProgress).unwrap();
    assert!(
        chrome.slice_count() >= 4 && !chrome.counters.is_empty(),
        "the JSON seed has slices and a counter"
    );
    let meta = FileMeta { written_by: "seed".into(), sources: Vec::new() };
    let bless = std::env::var_os("LOUPE_BLESS_SEEDS").is_some();
    if bless {
        for f in std::fs::read_dir(dir).unwrap() {
            std::fs::remove_file(f.unwrap().path()).unwrap();
        }
    }
    for (name, t) in [("ntff-pair", &pair), ("kineto", &chrome)] {
        let file = to_bytes(t, "{\"view\":1}", &meta).unwrap();
        // the payload: the file's bytes after its 24-byte header, inflated when compressed
        let raw = if read(&file).unwrap().compressed {
            let mut v = Vec::new();
            use std::io::Read;
            flate2::read::ZlibDecoder::new(&file[24..]).read_to_end(&mut v).unwrap();
            v
        } else {
            file[24..].to_vec()
        };
        assert!(
            read(&frame_uncompressed(&raw)).is_ok(),
            "{name}: the bare payload frames into a readable file"
        );
        let (pf, pp) = (format!("{dir}/{name}.loupe"), format!("{dir}/{name}.payload"));
        if bless {
            std::fs::write(&pf, &file).unwrap();
            std::fs::write(&pp, &raw).unwrap();
            println!("wrote {pf} ({} B) and {pp} ({} B)", file.len(), raw.len());
        }
        let msg =
            "run `LOUPE_BLESS_SEEDS=1 cargo test -p loupe-core --test loupe_file` to rewrite the fuzz seeds";
        let committed = std::fs::read(&pf).unwrap_or_else(|e| panic!("{pf}: {e}; {msg}"));
        assert!(read(&committed).is_ok(), "{pf} does not read with this format ({FORMAT_VERSION}); {msg}");
        let committed = std::fs::read(&pp).unwrap_or_else(|e| panic!("{pp}: {e}; {msg}"));
        assert!(
            read(&frame_uncompressed(&committed)).is_ok(),
            "{pp} does not decode with this format; {msg}"
        );
    }
}
