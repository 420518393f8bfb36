//! `cargo +nightly fuzz run import_neuron_json` (from core/): any bytes give a valid trace or a
//! typed error, never a panic or a hang. A whole neuron-profile JSON export (input starting with
//! `{`, as the seeds do) is imported as is; anything else is framed as the body of an
//! `instruction` array so that the fuzzer reaches the row decoder quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        check::import_and_validate("fuzz.json", data);
    } else {
        let mut framed = b"{\"metadata\":{\"ntff_version\":5},\"instruction\":[".to_vec();
        framed.extend_from_slice(data);
        check::import_and_validate("fuzz.json", &framed);
    }
});
