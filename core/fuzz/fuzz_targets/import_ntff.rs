//! `cargo +nightly fuzz run import_ntff` (from core/): any bytes give a valid trace or a typed
//! error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    let _ = loupe_core::neuron::ntff::parse(data);
    check::import_and_validate("fuzz.ntff", data);
});
