//! `cargo +nightly fuzz run import_parquet` (from core/): any bytes give a trace or a typed error,
//! never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loupe_core::import::{import_bytes, NoProgress};

fuzz_target!(|data: &[u8]| {
    let mut framed = b"PAR1".to_vec();
    framed.extend_from_slice(data);
    let _ = import_bytes("Instruction.parquet", &framed, &mut NoProgress);
});
