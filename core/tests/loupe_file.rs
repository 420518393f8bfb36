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
            println!("skipping: {p} absent");
            continue;
        };
        round_trip(&import_bytes(&p, &b, &mut NoProgress).unwrap(), rel);
    }
}

/// (Version 1 was first released with the lazy-argument model; no older file exists. Version 2
/// added the argument sets' bases, `ArgStore::bases`; version 3 packed the argument values into
/// columns, `ArgStore::tags` / `vals` / `wide`; version 4 keeps the slices' domain fields as
/// shapes (`DomainColumns::shape` / `shapes`); version 5 added row sets (`ArgStore::form_*`,
/// `rows`): older files are refused with the message to re-open the original files.)
/// When this fails, the model's bincode layout changed: bump `FORMAT_VERSION` in
/// `core/src/loupe_file.rs` (and write a migration if old files matter), then update both numbers.
#[test]
fn the_model_layout_is_pinned_to_the_format_version() {
    let mut h = loupe_core::strings::FxHasher::default();
    h.write(&model(&loupe_core::demo::demo_trace()));
    assert_eq!(
        (FORMAT_VERSION, h.finish()),
        (5, 15490885813954700723),
        "model layout changed: bump FORMAT_VERSION"
    );
}
