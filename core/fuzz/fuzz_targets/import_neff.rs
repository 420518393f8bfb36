//! `cargo +nightly fuzz run import_neff` (from core/): any bytes give a valid trace or a typed
//! error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    let _ = loupe_core::neuron::neff::parse(data);
    check::import_and_validate("fuzz.neff", data);
});
