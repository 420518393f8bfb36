//! `cargo +nightly fuzz run import_loupe` (from core/): any bytes give a `.loupe` file whose model
//! passes `Trace::validate` or a typed error, never a panic. Inputs are offered raw (the seeds are
//! small `.loupe` files) and as the payload of a valid uncompressed header, so that the fuzzer
//! reaches the bincode decoder and the model checks quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.loupe", data);
    check::import_and_validate("fuzz.loupe", &loupe_core::loupe_file::frame_uncompressed(data));
});
