//! `cargo +nightly fuzz run import_perfetto` (from core/): any bytes, read as a `.pftrace`, give
//! a valid trace or a typed error, never a panic. Inputs are offered raw and behind one valid
//! framing byte pair (`0x0A` + a length covering the rest), so that the fuzzer reaches packet
//! decoding quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.pftrace", data);
    if data.len() < 128 {
        let mut framed = vec![0x0A, data.len() as u8];
        framed.extend_from_slice(data);
        check::import_and_validate("fuzz.pftrace", &framed);
    }
});
