//! `cargo +nightly fuzz run import_dlprof_sqlite` (from core/): the input is imported raw (rarely a
//! database SQLite opens) and as damage to a small valid database
//! (`loupe_sqlite::testing::damage`: 3-byte chunks = offset, value), so that the fuzzer reaches
//! damaged pages, schema drift and the importer's own code. A panic or an invalid trace is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loupe_core::import::NoProgress;
use loupe_sqlite::testing;
use std::sync::OnceLock;

static BASE: OnceLock<Vec<u8>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let base = BASE.get_or_init(|| testing::database(testing::DLPROF_SQL).expect("fixture database"));
    for bytes in [data.to_vec(), testing::damage(base, data)] {
        if let Ok(t) = loupe_sqlite::import_bytes("dlprof_dldb.sqlite", &bytes, &mut NoProgress) {
            if let Err(e) = t.validate() {
                panic!("imported trace breaks an invariant: {e}");
            }
        }
    }
});
