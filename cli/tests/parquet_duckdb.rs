//! The Parquet export read back by DuckDB (an independent reader): `loupe convert --to parquet` on
//! shared samples and a generated trace, then DuckDB counts the rows of every table and sums the
//! slice durations; they must equal `loupe summary --json` and the model. DuckDB comes from PyPI
//! into `target/venv-duckdb` (scripts/setup.sh); without it the test says so and skips.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> Option<PathBuf> {
    let p = std::env::var_os("LOUPE_DUCKDB_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/venv-duckdb/bin/python"));
    let ok = Command::new(&p).args(["-c", "import duckdb"]).output().is_ok_and(|o| o.status.success());
    ok.then_some(p)
}

fn loupe(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).output().expect("run loupe");
    assert!(o.status.success(), "loupe {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const QUERY: &str = r#"
import duckdb, json, sys
d = sys.argv[1]
q = lambda s: duckdb.sql(s.replace("@", d)).fetchall()[0]
out = {
  "slices": q("SELECT count(*) FROM '@/slices.parquet'")[0],
  "instants": q("SELECT count(*) FROM '@/instants.parquet'")[0],
  "tracks": q("SELECT count(*) FROM '@/tracks.parquet'")[0],
  "counter_samples": q("SELECT count(*) FROM '@/counters.parquet'")[0],
  "dur_ns": int(q("SELECT coalesce(sum(dur_ns), 0) FROM '@/slices.parquet'")[0]),
  "joined": q("SELECT count(*) FROM '@/slices.parquet' s JOIN '@/tracks.parquet' t USING (track_id)")[0],
}
print(json.dumps(out))
"#;

fn check(input: &str, py: &Path, tag: &str) {
    let summary: serde_json::Value =
        serde_json::from_str(loupe(&["summary", input, "--json"]).lines().next().unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("loupe-duckdb-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().into_owned();
    loupe(&["convert", input, "--to", "parquet", &d]);
    let o = Command::new(py).args(["-c", QUERY, &d]).output().expect("run python");
    assert!(o.status.success(), "duckdb: {}", String::from_utf8_lossy(&o.stderr));
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in ["slices", "instants", "counter_samples"] {
        assert_eq!(got[k], summary[k], "{tag}: {k} (DuckDB vs loupe summary)");
    }
    // every slice row joins its track; the tracks table has one row per track (counter tracks too)
    assert_eq!(got["joined"], got["slices"], "{tag}: slices whose track is missing");
    assert!(got["tracks"].as_u64().unwrap() >= summary["tracks"].as_u64().unwrap(), "{tag}: tracks");
    println!("{tag}: DuckDB reads {got}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn duckdb_reads_the_parquet_export() {
    let Some(py) = python() else {
        panic!("no DuckDB: bash scripts/setup.sh installs it (python -m venv target/venv-duckdb && target/venv-duckdb/bin/pip install duckdb)");
    };
    // a generated trace: always
    let dir = std::env::temp_dir().join(format!("loupe-duckdb-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ev = Vec::new();
    for i in 0..500 {
        ev.push(format!(
            r#"{{"ph":"X","pid":1,"tid":{},"ts":{},"dur":7,"name":"k{}"}}"#,
            i % 3,
            i * 10,
            i % 5
        ));
    }
    ev.push(r#"{"ph":"C","pid":1,"ts":5,"name":"mem","args":{"v":3}}"#.into());
    ev.push(r#"{"ph":"i","pid":1,"tid":1,"ts":6,"name":"mark","s":"t"}"#.into());
    let src = dir.join("gen.json");
    std::fs::write(&src, format!(r#"{{"traceEvents":[{}]}}"#, ev.join(","))).unwrap();
    check(&src.to_string_lossy(), &py, "generated");
    // shared samples when present: a Kineto trace and a Neuron device profile
    let samples = root().join("../shared/samples");
    for rel in ["pytorch-kineto/hta__trace_filter_sampled_rank-0.json.gz", "neuron/profile_128x128x1024.json"]
    {
        let p = samples.join(rel);
        if p.exists() {
            check(&p.to_string_lossy(), &py, rel.split('/').next().unwrap_or("sample"));
        } else {
            panic!("{rel} is absent (the shared samples beside the repository are required)");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
