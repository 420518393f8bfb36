//! `cargo +nightly fuzz run import_parquet` (from core/): any bytes give a valid trace or a typed
//! error, never a panic or a hang. Inputs that do not start with the `PAR1` magic get it prepended.
//! The file name alternates (by input length) between a table name (`Instruction.parquet`: the
//! table is chosen by name) and an unknown one (the table is chosen by its columns).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    let name = if data.len() % 2 == 0 { "Instruction.parquet" } else { "fuzz.parquet" };
    if data.starts_with(b"PAR1") {
        check::import_and_validate(name, data);
    } else {
        let mut framed = b"PAR1".to_vec();
        framed.extend_from_slice(data);
        check::import_and_validate(name, &framed);
    }
});
