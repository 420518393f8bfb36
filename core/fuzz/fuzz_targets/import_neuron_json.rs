//! `cargo +nightly fuzz run import_neuron_json` (from core/): any bytes give a trace or a typed error,
//! never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loupe_core::import::{import_bytes, NoProgress};

fuzz_target!(|data: &[u8]| {
    let mut framed = b"{\"metadata\":{\"ntff_version\":5},\"instruction\":[".to_vec();
    framed.extend_from_slice(data);
    let _ = import_bytes("fuzz.json", &framed, &mut NoProgress);
});
