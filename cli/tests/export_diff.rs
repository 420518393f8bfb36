//! `loupe convert` (parquet, json, csv, loupe) and `loupe diff` on files the test writes, and
//! `loupe diff` on two shared Kineto samples (required: the test fails when they are absent).

use std::path::PathBuf;
use std::process::Command;

fn loupe(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).output().expect("run loupe");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("loupe-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> String {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// `a` lasts `a_us` µs, `b` 1 µs, on one thread.
fn trace(a_us: u32) -> String {
    format!(
        r#"{{"traceEvents":[{{"ph":"X","pid":1,"tid":1,"ts":0,"dur":{a_us},"name":"a"}},{{"ph":"X","pid":1,"tid":1,"ts":100,"dur":1,"name":"b"}},{{"ph":"i","pid":1,"tid":1,"ts":50,"name":"m","s":"t"}}]}}"#
    )
}

fn counts(summary_json: &str) -> (u64, u64, u64) {
    let v: serde_json::Value = serde_json::from_str(summary_json.lines().next().unwrap()).unwrap();
    (v["slices"].as_u64().unwrap(), v["instants"].as_u64().unwrap(), v["tracks"].as_u64().unwrap())
}

#[test]
fn convert_to_every_format_and_back() {
    let src = write("a.json", &trace(5));
    let (ok, s0, e) = loupe(&["summary", &src, "--json"]);
    assert!(ok, "{e}");
    let d = dir();
    let lf = d.join("a.loupe").to_string_lossy().into_owned();
    let (ok, out, e) = loupe(&["convert", &src, "--to", "loupe", &lf]);
    assert!(ok && out.contains("bytes"), "{e}");
    let (ok, s1, e) = loupe(&["summary", &lf, "--json"]);
    assert!(ok, "{e}");
    assert_eq!(counts(&s1), counts(&s0));
    assert_eq!(counts(&s0), (2, 1, 1));

    let js = d.join("a.export.json").to_string_lossy().into_owned();
    assert!(loupe(&["convert", &lf, "--to", "json", &js]).0);
    let (ok, s2, _) = loupe(&["summary", &js, "--json"]);
    assert!(ok);
    assert_eq!(counts(&s2), counts(&s0));

    let pq = d.join("pq").to_string_lossy().into_owned();
    let (ok, out, e) = loupe(&["convert", &src, "--to", "parquet", &pq]);
    assert!(ok, "{e}");
    assert!(out.contains("slices"));
    for t in ["tracks", "slices", "instants", "counters", "flows", "args", "operators"] {
        let b = std::fs::read(d.join("pq").join(format!("{t}.parquet"))).unwrap();
        assert!(b.starts_with(b"PAR1") && b.ends_with(b"PAR1"), "{t}");
    }

    let (ok, csv, _) = loupe(&["convert", &src, "--to", "csv", "-"]);
    assert!(ok);
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.lines().any(|l| l.contains(",0,5000,5000,a,")), "{csv}");

    let (ok, _, e) = loupe(&["convert", &src, "--to", "xml", "x"]);
    assert!(!ok && e.contains("unknown --to"), "{e}");
    // a .loupe file opens alone
    let (ok, _, e) = loupe(&["summary", &lf, &src]);
    assert!(ok, "{e}"); // two inputs = two summaries
}

#[test]
fn diff_json_reports_known_deltas() {
    let a = write("da.json", &trace(5));
    let b = write("db.json", &trace(8));
    let (ok, out, e) = loupe(&["diff", &a, &b, "--json"]);
    assert!(ok, "{e}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["level"], "name");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["key"], "a");
    assert_eq!(rows[0]["delta_ns"], 3000);
    assert_eq!(rows[0]["ratio"], 1.6);
    assert_eq!(rows[1]["delta_ns"], 0);
    let (ok, text, _) = loupe(&["diff", &a, &b]);
    assert!(ok && text.contains("+0.003"), "{text}");
    let (ok, _, e) = loupe(&["diff", &a]);
    assert!(!ok && e.contains("two profiles"), "{e}");
}

#[test]
fn diff_two_kineto_samples() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");
    let (a, b) = (
        format!("{root}/hta__trace_filter_sampled_rank-0.json.gz"),
        format!("{root}/hta__trace_filter_sampled_rank-1.json.gz"),
    );
    if !std::path::Path::new(&a).exists() {
        panic!("{a} absent (the shared samples beside the repository are required)");
    }
    let (ok, out, e) = loupe(&["diff", &a, &b, "--json", "--top", "5"]);
    assert!(ok, "{e}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() > 10);
    let impact: Vec<u64> = rows.iter().map(|r| r["delta_ns"].as_i64().unwrap().unsigned_abs()).collect();
    assert!(impact.windows(2).all(|w| w[0] >= w[1]), "sorted by impact");
    let its = v["iterations"]["iterations"].as_array().expect("GPU traces get an iteration alignment");
    assert!(!its.is_empty());
    for it in its {
        assert!(it["pairs"].as_array().unwrap().len() <= 5);
        assert!(it["kernels_a"].as_u64().unwrap() > 0);
    }
    println!(
        "{} rows, {} iteration pairs, paired by {}",
        rows.len(),
        its.len(),
        v["iterations"]["paired_by"]
    );
}
