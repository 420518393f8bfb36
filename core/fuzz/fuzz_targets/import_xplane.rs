//! `cargo +nightly fuzz run import_xplane` (from core/): any bytes, read as an `.xplane.pb` and
//! as an XProf tool JSON, give a valid trace or a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("fuzz.xplane.pb", data);
    check::import_and_validate("fuzz.op_profile.json", data);
});
