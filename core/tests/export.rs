//! Exports read back: Parquet tables with the `parquet` crate's reader (row counts and column sums
//! equal the model's), Chrome JSON re-imported by Loupe (same slice, instant, counter-sample and
//! flow counts), on the demo trace and on shared samples (required: the test fails when they are absent).

use loupe_core::export::{chrome_json, parquet as pq};
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::Trace;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::RowAccessor;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");

fn sample(rel: &str) -> Option<(String, Vec<u8>)> {
    let p = format!("{ROOT}/{rel}");
    match std::fs::read(&p) {
        Ok(b) => Some((p, b)),
        Err(_) => {
            panic!("{p} absent (the shared samples beside the repository are required)");
        }
    }
}

fn reader(bytes: Vec<u8>) -> SerializedFileReader<bytes::Bytes> {
    SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap()
}

fn check_parquet(t: &Trace) {
    let tables = pq::parquet_tables(t).unwrap();
    assert_eq!(tables.len(), pq::TABLES.len());
    let args_rows: usize = t.args.ids().map(|a| t.args.get(a).count()).sum();
    for (name, bytes) in tables {
        let r = reader(bytes);
        let rows = r.metadata().file_metadata().num_rows() as usize;
        let expect = match name {
            "tracks" => t.tracks.len(),
            "slices" => t.slice_count(),
            "instants" => t.instant_count(),
            "counters" => t.counter_sample_count(),
            "flows" => t.flows.len(),
            "args" => args_rows,
            "operators" => t.operators.len(),
            _ => unreachable!(),
        };
        assert_eq!(rows, expect, "{name}: rows");
        if name == "slices" && rows > 0 {
            // column 4 is dur_ns, column 0 track_id, 1 slice_index: check every row against the model
            let mut sum = 0i64;
            for row in r.get_row_iter(None).unwrap() {
                let row = row.unwrap();
                let (ti, i, dur) =
                    (row.get_int(0).unwrap(), row.get_int(1).unwrap(), row.get_long(4).unwrap());
                let c = &t.tracks[ti as usize].slices;
                assert_eq!(c.dur_ns.at(i as usize), dur);
                assert_eq!(row.get_long(3).unwrap(), c.start_ns[i as usize]);
                assert_eq!(row.get_string(6).unwrap(), t.str(c.name[i as usize]));
                sum += dur;
            }
            let model: i64 = t.tracks.iter().flat_map(|tr| tr.slices.dur_ns.iter()).sum();
            assert_eq!(sum, model);
        }
    }
}

fn check_chrome(t: &Trace, label: &str) {
    let mut out = Vec::new();
    let st = chrome_json::write(t, &mut out).unwrap();
    serde_json::from_slice::<serde_json::Value>(&out).expect("valid JSON");
    let back = import_bytes("export.json", &out, &mut NoProgress).unwrap();
    back.validate().unwrap();
    assert_eq!(back.slice_count(), t.slice_count(), "{label}: slices");
    assert_eq!(back.instant_count(), t.instant_count(), "{label}: instants");
    assert_eq!(back.counter_sample_count() as u64, st.counter_samples, "{label}: counter samples");
    assert_eq!(st.counter_samples + st.skipped_counter_samples, t.counter_sample_count() as u64);
    assert_eq!(back.flows.len(), t.flows.len(), "{label}: flows");
    assert_eq!(back.start_ns, t.start_ns, "{label}: start");
    assert_eq!(back.end_ns, t.end_ns, "{label}: end");
    assert!(
        back.warnings.entries.iter().all(|w| w.kind != loupe_core::model::WarningKind::OverlappingSlices),
        "{label}: re-import spilled overlaps: {:?}",
        back.warnings.entries
    );
    let total = |t: &Trace| -> i64 { t.tracks.iter().flat_map(|tr| tr.slices.dur_ns.iter()).sum() };
    assert_eq!(total(&back), total(t), "{label}: total slice time");
    println!(
        "{label}: {} slices, {} flows, {} counter samples, {} → {} tracks, {} bytes of JSON",
        t.slice_count(),
        t.flows.len(),
        t.counter_sample_count(),
        t.tracks.len(),
        back.tracks.len(),
        out.len()
    );
}

#[test]
fn demo_exports_read_back() {
    let t = loupe_core::demo::demo_trace();
    check_parquet(&t);
    check_chrome(&t, "demo");
}

#[test]
fn synthetic_exports_read_back() {
    let t = loupe_core::model::synth::nested_trace(3000, 3, 9);
    check_parquet(&t);
    check_chrome(&t, "synthetic");
}

#[test]
fn samples_export_and_reimport_with_the_same_counts() {
    for rel in [
        "pytorch-kineto/hta__trace_filter_sampled_rank-0.json.gz",
        "chrome-trace-json/catapult_flow.json",
        "chrome-trace-json/catapult_nestable_async.json",
        "chrome-trace-json/catapult_instance_counters.json",
        "neuron/profile_128x128x1024.ntff",
    ] {
        let Some((p, b)) = sample(rel) else { continue };
        let t = import_bytes(&p, &b, &mut NoProgress).unwrap();
        check_parquet(&t);
        check_chrome(&t, rel);
    }
}
