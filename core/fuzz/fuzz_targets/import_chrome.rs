//! `cargo +nightly fuzz run import_chrome` (from core/): any bytes must give a trace or an
//! error, never a panic. Inputs are offered both raw and behind a Chrome JSON array prefix so
//! that the fuzzer reaches the event parser quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loupe_core::import::{import_bytes, NoProgress};

fuzz_target!(|data: &[u8]| {
    let _ = import_bytes("fuzz.json", data, &mut NoProgress);
    let mut framed = b"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},".to_vec();
    framed.extend_from_slice(data);
    let _ = import_bytes("fuzz.json", &framed, &mut NoProgress);
});
