//! `loupe summary --json` on every shared SQLite sample (Nsight Systems export, DLProf database)
//! names the format and prints the slice count, first/last times and (Nsight) launch flows of an
//! independent count by `core/sqlite/tests/count_sqlite.py` (Python's sqlite3). The binary
//! `.nsys-rep` is answered with the export command. Skips without samples or python3.

use std::path::Path;
use std::process::Command;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/sqlite/tests/count_sqlite.py");

#[test]
fn summary_counts_equal_the_independent_count() {
    let mut files = Vec::new();
    for dir in ["nsight-systems-sqlite", "dlprof"] {
        let Ok(rd) = std::fs::read_dir(Path::new(SAMPLES).join(dir)) else { continue };
        files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sqlite")));
    }
    if files.is_empty() {
        panic!("no SQLite samples under {SAMPLES} (the shared samples beside the repository are required)");
    }
    for p in files {
        let want = match Command::new("python3").arg(SCRIPT).arg(&p).output() {
            Ok(o) if o.status.success() => serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(),
            Ok(o) => panic!("count_sqlite.py: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => {
                panic!("python3 is required for the independent count: {e}");
            }
        };
        let out =
            Command::new(env!("CARGO_BIN_EXE_loupe")).arg("summary").arg(&p).arg("--json").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        println!("{}: loupe {} slices, python {}", p.display(), got["slices"], want["slices"]);
        assert_eq!(got["format"], want["format"], "{}", p.display());
        assert_eq!(got["slices"], want["slices"], "{}", p.display());
        assert_eq!(got["start_ns"], want["first_start_ns"], "{}", p.display());
        assert_eq!(got["end_ns"], want["last_end_ns"], "{}", p.display());
        if want["format"] == "nsys-sqlite" {
            assert_eq!(got["flows"], want["flows"], "{}", p.display());
        }
    }
    let rep = Path::new(SAMPLES).join("nsight-systems-sqlite/odema_nsys_profile.nsys-rep");
    if rep.exists() {
        let out = Command::new(env!("CARGO_BIN_EXE_loupe")).arg("summary").arg(&rep).output().unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("nsys export --type sqlite"));
    }
}
