//! The worker's refusal of NTFF captures too big for its memory (`import::check_peak`) must err
//! on the side of refusing: its estimate (`neuron::binary::estimate_peak_bytes`) stays above the
//! import's real peak. A generated NEFF + NTFF pair (as `gen_neuron_pair` writes them) is imported
//! as the parser worker does (`import_owned`: the files freed once read) under a counting global
//! allocator; its peak, the files included, must not pass the estimate. One test in this binary,
//! so that nothing else allocates meanwhile.

use loupe_core::import::{import_owned, neuron::binary as neuron_binary, NoProgress};
use loupe_core::neuron::{neff, ntff};
use std::sync::atomic::Ordering::Relaxed;

#[path = "../examples/common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{NOW, PEAK};

#[test]
fn the_ntff_peak_estimate_stays_above_the_measured_peak() {
    // 3 instructions of 2 records an iteration, 96 bytes: a 9.6 MB capture
    let iterations = 100_000;
    let neff = neff::writer::minimal_neff();
    let mut capture = ntff::writer::minimal_pair_capture(iterations);
    ntff::writer::vary_executions(&mut capture);
    let ntff = ntff::writer::write(&capture);
    drop(capture);
    let ntff_len = ntff.len() as u64;
    let files = vec![("model.neff".to_string(), neff), ("model.ntff".to_string(), ntff)];
    // everything the process holds from here on counts, the files included (the estimate covers
    // the file as the worker holds it)
    PEAK.store(NOW.load(Relaxed), Relaxed);
    let t = import_owned(files, &mut NoProgress).expect("import");
    assert!(t.slice_count() >= 3 * iterations as usize, "{} slices", t.slice_count());
    let peak = PEAK.load(Relaxed) as u64;
    let est = neuron_binary::estimate_peak_bytes(ntff_len);
    assert!(
        peak <= est,
        "measured peak {peak} bytes ({:.2} per NTFF byte) is above the estimate {est} ({} per byte)",
        peak as f64 / ntff_len as f64,
        neuron_binary::PEAK_BYTES_PER_NTFF_BYTE
    );
    eprintln!(
        "ntff {ntff_len} bytes: peak {peak} ({:.2} per byte), estimate {est} ({} per byte)",
        peak as f64 / ntff_len as f64,
        neuron_binary::PEAK_BYTES_PER_NTFF_BYTE
    );
}
