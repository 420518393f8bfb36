//! A damaged `StringIds` table (issue 37 §4): names that cannot be resolved are placeholders, and
//! that is said — a counted warning — never a silent "(unnamed kernel)" with 0 warnings. The
//! damage is made with Python's sqlite3 on a copy of the shared Nsight sample.

use loupe_core::import::NoProgress;
use loupe_core::model::WarningKind;
use std::path::Path;
use std::process::Command;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/samples/nsight-systems-sqlite/odema_nsys_profile.sqlite"
);

fn damaged(sql: &str, tag: &str) -> Vec<u8> {
    assert!(Path::new(SAMPLE).exists(), "{SAMPLE} is missing");
    let p = std::env::temp_dir().join(format!("loupe-damaged-{tag}-{}.sqlite", std::process::id()));
    std::fs::copy(SAMPLE, &p).unwrap();
    let py =
        format!("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript({sql:?}); c.commit()");
    let out = Command::new("python3").arg("-c").arg(&py).arg(&p).output().expect("python3 is needed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&p).unwrap();
    let _ = std::fs::remove_file(&p);
    bytes
}

#[test]
fn the_healthy_sample_resolves_every_name() {
    let t =
        loupe_sqlite::import_bytes("ok.sqlite", &std::fs::read(SAMPLE).unwrap(), &mut NoProgress).unwrap();
    assert_eq!(t.warnings.count_of(WarningKind::NsysUnresolvedName), 0, "{:?}", t.warnings.entries);
}

#[test]
fn names_lost_from_string_ids_are_counted_not_silent() {
    // half the strings gone
    let bytes = damaged("DELETE FROM StringIds WHERE id % 2 = 0", "half");
    let t = loupe_sqlite::import_bytes("half.sqlite", &bytes, &mut NoProgress).unwrap();
    let n = t.warnings.count_of(WarningKind::NsysUnresolvedName);
    assert!(n > 0, "no warning for unresolved names: {:?}", t.warnings.entries);
    // all of them gone: every name is a placeholder, and the warning says how many
    let bytes = damaged("DELETE FROM StringIds", "all");
    let t = loupe_sqlite::import_bytes("all.sqlite", &bytes, &mut NoProgress).unwrap();
    let all = t.warnings.count_of(WarningKind::NsysUnresolvedName);
    assert!(all > n, "{all} vs {n}");
    // a StringIds table that cannot be read at all (its value column renamed away)
    let bytes = damaged("ALTER TABLE StringIds RENAME COLUMN value TO v", "renamed");
    let t = loupe_sqlite::import_bytes("renamed.sqlite", &bytes, &mut NoProgress).unwrap();
    assert!(
        t.warnings.total() > 0 && t.warnings.count_of(WarningKind::NsysUnresolvedName) > 0,
        "{:?}",
        t.warnings.entries
    );
}
