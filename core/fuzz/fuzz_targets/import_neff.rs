//! `cargo +nightly fuzz run import_neff` (from core/): any bytes give a trace or a typed error,
//! never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loupe_core::import::{import_bytes, NoProgress};

fuzz_target!(|data: &[u8]| {
    let _ = loupe_core::neuron::neff::parse(data);
    let _ = import_bytes("fuzz.neff", data, &mut NoProgress);
});
