//! `cargo +nightly fuzz run import_tb_neuron_ops` (from core/): any bytes give a valid trace
//! (report tables only) or a typed error, never a panic. Inputs are offered raw and behind an
//! `{"ops": [` prefix, so that the fuzzer reaches the op-object parsing quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::import_and_validate("neuron_framework_op.json", data);
    let mut framed = b"{\"ops\": [".to_vec();
    framed.extend_from_slice(data);
    check::import_and_validate("neuron_hlo_op.json", &framed);
});
