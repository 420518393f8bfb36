//! `cargo +nightly fuzz run import_chrome` (from core/): any bytes must give a valid trace or an
//! error, never a panic. Inputs are offered both raw (so gzip/zip seeds reach the containers) and
//! behind a Chrome JSON array prefix so that the fuzzer reaches the event parser quickly; the
//! framed input is also streamed with lazy arguments (the browser worker's path for big files).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.json", data);
    let mut framed = b"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},".to_vec();
    framed.extend_from_slice(data);
    check::import_and_validate("fuzz.json", &framed);
    // the worker's path for big files: streamed in small reads, args kept lazily
    check::stream_lazy_and_validate("fuzz.json", &framed, 61);
});
