//! `loupe analyze` and `loupe summary` on profiles whose timestamps sit at the edges of i64
//! (issue 37 §3): a start at i64::MAX, starts spread over the whole i64 range, negative
//! timestamps. Each run must end with an answer or a clear error — never a panic ("internal
//! error", exit 101), and never work or memory sized from the time span (the analyses are
//! O(n log n) in events). A file whose events span more than i64 ns (≈ 292 years: starts at both
//! ends of the range) is refused at import with one clear message (`import::checked_span`). Inputs are generated
//! for every importer whose timestamps are free integers (Kineto / Chrome JSON, rocprof JSON) and
//! made from the shared Nsight SQLite sample by moving its kernels with Python's sqlite3.

use std::path::{Path, PathBuf};
use std::process::Command;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!("loupe-extremes-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the CLI; returns (exit code, stdout, stderr). Fails the test on a panic.
fn run(args: &[&str], file: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).arg(file).arg("--json").output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        code != 101 && !se.contains("internal error") && !se.contains("panicked"),
        "loupe {args:?} {} panicked (exit {code}): {se}",
        file.display()
    );
    assert!(code == 0 || !se.trim().is_empty(), "loupe {args:?} {} failed without a message", file.display());
    (code, so, se)
}

/// Both commands on one file; `analyze` must answer (these files load).
fn check(file: &Path) -> serde_json::Value {
    let (code, _, se) = run(&["summary"], file);
    assert_eq!(code, 0, "summary {}: {se}", file.display());
    let (code, so, se) = run(&["analyze"], file);
    assert_eq!(code, 0, "analyze {}: {se}", file.display());
    serde_json::from_str(&so).unwrap()
}

/// A file whose events span more than i64 nanoseconds (starts at both ends of the range): both
/// commands refuse it with the one clear message (`import::checked_span`).
fn refused(file: &Path) {
    for cmd in ["summary", "analyze"] {
        let (code, _, se) = run(&[cmd], file);
        assert_ne!(code, 0, "{cmd} {} accepted a span over 292 years", file.display());
        assert!(se.contains("more than 292 years"), "{cmd} {}: {se}", file.display());
    }
}

/// A Kineto trace: one kernel + memcpy per `ts` (µs) on stream 7 with its launch on the host
/// thread and an `ac2g` flow, one ProfilerStep around each launch.
fn kineto(ts_us: &[i64]) -> String {
    let mut ev = Vec::new();
    for (i, &ts) in ts_us.iter().enumerate() {
        let corr = i + 1;
        ev.push(format!(
            r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{i}","pid":100,"tid":100,"ts":{ts},"dur":5}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":{ts},"dur":2,"args":{{"correlation":{corr}}}}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"s","cat":"ac2g","name":"ac2g","id":{corr},"pid":100,"tid":100,"ts":{ts}}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":7,"ts":{ts},"dur":3,"args":{{"stream":7,"correlation":{corr},"device":0}}}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"f","cat":"ac2g","name":"ac2g","id":{corr},"pid":0,"tid":7,"ts":{ts},"bp":"e"}}"#
        ));
        ev.push(format!(
            r#"{{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":8,"ts":{ts},"dur":1,"args":{{"stream":8,"correlation":{corr}}}}}"#
        ));
    }
    format!(r#"{{"schemaVersion":1,"distributedInfo":{{"rank":0}},"traceEvents":[{}]}}"#, ev.join(",\n"))
}

/// A rocprofv3 JSON: one dispatch and one HIP call per `(start, end)` (ns).
fn rocprof(spans: &[(i64, i64)]) -> String {
    let mut hip = Vec::new();
    let mut disp = Vec::new();
    for (i, &(s, e)) in spans.iter().enumerate() {
        let c = i + 1;
        hip.push(format!(
            r#"{{"size": 64, "kind": 1, "operation": 1, "correlation_id": {{"internal": {c}, "external": 0}}, "start_timestamp": {s}, "end_timestamp": {e}, "thread_id": 4242}}"#
        ));
        disp.push(format!(
            r#"{{"size": 128, "kind": 3, "operation": 1, "correlation_id": {{"internal": {c}}}, "start_timestamp": {s}, "end_timestamp": {e}, "thread_id": 4242,
               "dispatch_info": {{"agent_id": {{"handle": 200}}, "queue_id": {{"handle": 7}}, "kernel_id": 1, "dispatch_id": {c}}}}}"#
        ));
    }
    format!(
        r#"{{"rocprofiler-sdk-tool": [{{
  "metadata": {{"pid": 4242}},
  "agents": [
    {{"id": {{"handle": 100}}, "type": 1, "node_id": 0, "name": "AMD EPYC"}},
    {{"id": {{"handle": 200}}, "type": 2, "node_id": 1, "logical_node_type_id": 0, "name": "gfx942", "product_name": "AMD Instinct MI300X"}}
  ],
  "kernel_symbols": [{{"kernel_id": 1, "formatted_kernel_name": "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1"}}],
  "strings": {{"buffer_records": [
    {{"kind": "NONE", "operations": []}},
    {{"kind": "HIP_RUNTIME_API", "operations": ["hipNone", "hipLaunchKernel"]}},
    {{"kind": "HSA_CORE_API", "operations": []}},
    {{"kind": "KERNEL_DISPATCH", "operations": ["NONE", "KERNEL_DISPATCH_COMPLETE"]}}
  ]}},
  "buffer_records": {{"hip_api": [{}], "kernel_dispatch": [{}]}}
}}]}}"#,
        hip.join(",\n"),
        disp.join(",\n")
    )
}

// i64::MAX ns in whole µs, and a little less: the largest Kineto timestamps that fit
const MAX_US: i64 = i64::MAX / 1000 - 10;

#[test]
fn kineto_at_the_edges_of_i64() {
    let d = tmp();
    let cases: &[(&str, Vec<i64>)] = &[
        ("at-max", vec![MAX_US - 40, MAX_US - 20, MAX_US]),
        ("spread", vec![-MAX_US, -MAX_US / 2, 0, MAX_US / 2, MAX_US]),
        ("negative", vec![-5_000_000, -4_000_000, -10]),
        ("two-far-apart", vec![0, MAX_US]),
    ];
    for (name, ts) in cases {
        let p = d.join(format!("kineto-{name}.json"));
        std::fs::write(&p, kineto(ts)).unwrap();
        if *name == "spread" {
            refused(&p);
            continue;
        }
        let v = check(&p);
        assert_eq!(v["format"], "pytorch-kineto", "{name}");
    }
}

#[test]
fn rocprof_with_negative_and_extreme_timestamps() {
    let d = tmp();
    let cases: &[(&str, Vec<(i64, i64)>)] = &[
        ("negative", vec![(-5_000_000_000, -4_999_000_000), (-3_000, -1_000)]),
        ("spread", vec![(i64::MIN + 10, i64::MIN + 1_000), (0, 50), (i64::MAX - 1_000, i64::MAX - 10)]),
        ("at-max", vec![(i64::MAX - 3_000, i64::MAX - 2_000), (i64::MAX - 1_000, i64::MAX)]),
    ];
    for (name, spans) in cases {
        let p = d.join(format!("rocprof-{name}.json"));
        std::fs::write(&p, rocprof(spans)).unwrap();
        if *name == "spread" {
            refused(&p);
            continue;
        }
        let v = check(&p);
        assert_eq!(v["format"], "rocprof", "{name}");
    }
}

#[test]
fn nsight_sqlite_with_a_kernel_at_i64_max() {
    let src = Path::new(SAMPLES).join("nsight-systems-sqlite/odema_nsys_profile.sqlite");
    assert!(src.exists(), "{} is missing", src.display());
    let d = tmp();
    // (name, SQL run on a copy of the sample)
    let cases = [
        (
            "kernel-at-max",
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 9223372036854775000, [end] = 9223372036854775807 \
             WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
        ),
        (
            "spread",
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775000, [end] = -9223372036854774000 \
             WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL); \
             UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 9223372036854774000, [end] = 9223372036854775000 \
             WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
        ),
    ];
    for (name, sql) in cases {
        let p = d.join(format!("nsys-{name}.sqlite"));
        std::fs::copy(&src, &p).unwrap();
        let py = format!(
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript({sql:?}); c.commit()"
        );
        let out = Command::new("python3").arg("-c").arg(&py).arg(&p).output().expect("python3 is needed");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        if name == "spread" {
            refused(&p);
            continue;
        }
        let v = check(&p);
        assert_eq!(v["format"], "nsys-sqlite", "{name}");
    }
}
