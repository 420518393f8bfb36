//! Inputs the SQLite fuzz targets (`core/fuzz/fuzz_targets/import_{nsys,dlprof}_sqlite.rs`) crashed
//! on, fed exactly as the targets feed them (raw, and as damage to the small fixture database):
//! each gives a typed error or a valid trace, never a panic. Also runs a fixed sweep of damage so
//! the damaged-page paths are exercised in CI.

use loupe_core::import::NoProgress;
use loupe_sqlite::testing::{damage, database, DLPROF_SQL, NSYS_SQL};
use std::path::Path;

fn feed(name: &str, sql: &str, data: &[u8]) {
    let base = database(sql).unwrap();
    for bytes in [data.to_vec(), damage(&base, data)] {
        match loupe_sqlite::import_bytes(name, &bytes, &mut NoProgress) {
            Ok(t) => t.validate().unwrap(),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn fuzz_regressions_and_a_damage_sweep() {
    let mut n = 0;
    for (target, name, sql) in [
        ("import_nsys_sqlite", "fuzz.sqlite", NSYS_SQL),
        ("import_dlprof_sqlite", "dlprof_dldb.sqlite", DLPROF_SQL),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "bin") {
                feed(name, sql, &std::fs::read(e.path()).unwrap());
                n += 1;
            }
        }
        // every 97th byte set to 0xFF, then to 0x00, then one byte per page in the schema and data pages
        let len = database(sql).unwrap().len();
        for v in [0xFFu8, 0x00, 0x7F] {
            for start in [0usize, 13, 100] {
                let data: Vec<u8> =
                    (start..len).step_by(97).flat_map(|at| [(at >> 8) as u8, at as u8, v]).collect();
                feed(name, sql, &data);
            }
        }
    }
    eprintln!("sqlite fuzz regressions: {n} inputs");
}
