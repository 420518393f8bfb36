//! Golden tests over every shared SQLite sample (`../shared/samples/nsight-systems-sqlite/*.sqlite`,
//! `../shared/samples/dlprof/*.sqlite`): the counts, first/last times, flows and a few exact
//! values agree with an independent count by `count_sqlite.py` (Python's own sqlite3), and every
//! damaged or truncated variant gives a typed error or a valid partial load. Skips with a message
//! when the samples or python3 are absent.

use loupe_core::import::NoProgress;
use loupe_core::model::{ArgValue, TableKind, Trace};
use std::path::{Path, PathBuf};
use std::process::Command;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/samples");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/count_sqlite.py");

fn samples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["nsight-systems-sqlite", "dlprof"] {
        let Ok(rd) = std::fs::read_dir(Path::new(SAMPLES).join(dir)) else { continue };
        for e in rd.flatten() {
            if e.path().extension().is_some_and(|x| x == "sqlite") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn python_count(p: &Path) -> Option<serde_json::Value> {
    let out = match Command::new("python3").arg(SCRIPT).arg(p).output() {
        Ok(o) => o,
        Err(e) => {
            panic!("python3 is required for the independent count: {e}");
        }
    };
    assert!(out.status.success(), "count_sqlite.py failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn slices(t: &Trace) -> impl Iterator<Item = (usize, usize)> + '_ {
    t.tracks.iter().enumerate().flat_map(|(ti, tr)| (0..tr.slices.len()).map(move |i| (ti, i)))
}

fn arg(t: &Trace, ti: usize, i: usize, key: &str) -> Option<ArgValue> {
    t.args.get(t.tracks[ti].slices.args[i]).find(|(k, _)| t.str(*k) == key).map(|(_, v)| v)
}

#[test]
fn every_sqlite_sample_matches_an_independent_count() {
    let files = samples();
    if files.is_empty() {
        panic!("no SQLite samples under {SAMPLES} (the shared samples beside the repository are required)");
    }
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let t = loupe_sqlite::import_bytes(&name, &bytes, &mut NoProgress).unwrap();
        t.validate().unwrap();
        let s = loupe_core::query::summary(&t);
        println!(
            "{name}: {} slices, {} flows, {} tracks, warnings {:?}",
            s.slices, s.flows, s.tracks, t.warnings.entries
        );
        let Some(want) = python_count(&p) else { return };
        assert_eq!(s.format, want["format"].as_str().unwrap(), "{name}");
        assert_eq!(s.slices as u64, want["slices"].as_u64().unwrap(), "{name}: slices");
        let first = slices(&t).map(|(ti, i)| t.tracks[ti].slices.start_ns[i]).min().unwrap();
        let last = slices(&t)
            .map(|(ti, i)| t.tracks[ti].slices.start_ns[i] + t.tracks[ti].slices.dur_ns.at(i))
            .max()
            .unwrap();
        assert_eq!(first, want["first_start_ns"].as_i64().unwrap(), "{name}: first start");
        assert_eq!(last, want["last_end_ns"].as_i64().unwrap(), "{name}: last end");
        // memcpy bytes from the typed column
        let bytes_sum: u64 = slices(&t)
            .filter(|&(ti, i)| t.str(t.tracks[ti].slices.category[i]) == "gpu_memcpy")
            .map(|(ti, i)| t.tracks[ti].slices.domain.as_ref().unwrap().bytes[i])
            .sum();
        assert_eq!(bytes_sum, want["memcpy_bytes"].as_u64().unwrap(), "{name}: memcpy bytes");
        let kernels: Vec<(usize, usize)> =
            slices(&t).filter(|&(ti, i)| t.str(t.tracks[ti].slices.category[i]) == "kernel").collect();
        if let Some(k) = want["first_kernel"].as_object() {
            let &(ti, i) = kernels.iter().min_by_key(|&&(ti, i)| t.tracks[ti].slices.start_ns[i]).unwrap();
            assert_eq!(t.str(t.tracks[ti].slices.name[i]), k["name"].as_str().unwrap(), "{name}");
            assert_eq!(t.tracks[ti].slices.dur_ns.at(i), k["dur_ns"].as_i64().unwrap(), "{name}");
            if let Some(g) = k.get("grid_x") {
                let grid = match arg(&t, ti, i, "grid") {
                    Some(ArgValue::Json(s)) => t.str(s).to_string(),
                    other => panic!("grid arg {other:?}"),
                };
                assert!(grid.starts_with(&format!("[{}, ", g.as_i64().unwrap())), "{grid}");
                assert_eq!(
                    arg(&t, ti, i, "registers per thread"),
                    Some(ArgValue::Int(k["registers"].as_i64().unwrap()))
                );
            }
        }
        match s.format.as_str() {
            "nsys-sqlite" => {
                assert_eq!(s.flows as u64, want["flows"].as_u64().unwrap(), "{name}: launch flows");
                assert!(t
                    .metadata
                    .entries
                    .iter()
                    .any(|(k, v)| k == "nsys EXPORT_SCHEMA_VERSION" && !v.is_empty()));
                assert!(t.groups.iter().any(|g| t.str(g.name).starts_with("GPU 0 — NVIDIA")));
            }
            "dlprof-sqlite" => {
                let ops = t.tables.iter().find(|x| x.kind == TableKind::DlprofOps).unwrap();
                assert_eq!(ops.rows.len() as u64, want["op_nodes"].as_u64().unwrap(), "{name}: op table");
                let gpu = want["gpu_name"].as_str().unwrap();
                assert!(t.metadata.entries.iter().any(|(_, v)| v == gpu), "{name}: GPU name in metadata");
                assert_eq!(t.iterations.len(), 1);
                // the DLProf-style dashboard sees the kernels and binds them to ops
                let d = loupe_core::analysis::dlprof::DlprofIndex::build(&t).dashboard(None);
                assert_eq!(d.kernel_count as usize, kernels.len(), "{name}: dashboard kernels");
                if !kernels.is_empty() {
                    assert!(
                        d.ops.iter().any(|o| o.kernels > 0 && o.name.starts_with("/module")),
                        "{name}: ops with kernels"
                    );
                }
            }
            f => panic!("format {f}"),
        }
    }
}

#[test]
fn damaged_and_truncated_samples_fail_typed_or_load_partly() {
    let files = samples();
    if files.is_empty() {
        panic!("no SQLite samples under {SAMPLES} (the shared samples beside the repository are required)");
    }
    let (mut errors, mut partial) = (0, 0);
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let n = bytes.len();
        let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
        for cut in [100, 1024, 4096, n / 4, n / 2, n - 1] {
            variants.push((format!("truncated at {cut}"), bytes[..cut].to_vec()));
        }
        for (k, at) in [n / 3, n / 2, 2 * n / 3, 5000, 100].into_iter().enumerate() {
            let mut v = bytes.clone();
            for b in &mut v[at..(at + 64).min(n)] {
                *b = b.wrapping_mul(31).wrapping_add(k as u8 + 7);
            }
            variants.push((format!("64 bytes damaged at {at}"), v));
        }
        for (what, v) in variants {
            match loupe_sqlite::import_bytes("x.sqlite", &v, &mut NoProgress) {
                Ok(t) => {
                    t.validate().unwrap_or_else(|e| panic!("{}: {what}: {e:?}", p.display()));
                    partial += 1;
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    errors += 1;
                }
            }
        }
    }
    println!("damaged variants: {errors} typed errors, {partial} loads");
}
