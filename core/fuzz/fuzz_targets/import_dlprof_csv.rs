//! `cargo +nightly fuzz run import_dlprof_csv` (from core/): any bytes give a valid trace (report
//! tables only) or a typed error, never a panic. Inputs are offered raw (the seeds are whole
//! DLProf report CSVs) and behind a `Kernel Report` title and header, so that the fuzzer reaches
//! the record and cell parsers quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.csv", data);
    let mut framed = b"Kernel Report\nKernel Name,Op ID,Uses TC,Total GPU Time (ns)\n".to_vec();
    framed.extend_from_slice(data);
    check::import_and_validate("fuzz.csv", &framed);
});
