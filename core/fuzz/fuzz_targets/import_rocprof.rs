//! `cargo +nightly fuzz run import_rocprof` (from core/): any bytes give a valid trace or a typed
//! error. Inputs are offered raw and inside the `rocprofiler-sdk-tool` root, so that the fuzzer
//! reaches the node and record readers quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.json", data);
    let mut framed = b"{\"rocprofiler-sdk-tool\": [".to_vec();
    framed.extend_from_slice(data);
    check::import_and_validate("fuzz.json", &framed);
});
