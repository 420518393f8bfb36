//! End-to-end tests of the `loupe` binary on files the test writes itself.

use std::process::Command;

fn loupe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_loupe"))
}

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("loupe-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

const TRACE: &str = r#"{"traceEvents":[
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main, \"quoted\""}},
 {"ph":"X","name":"outer","pid":1,"tid":2,"ts":12.345,"dur":100},
 {"ph":"X","name":"inner,comma","pid":1,"tid":2,"ts":20,"dur":10.5},
 {"ph":"i","name":"mark","pid":1,"tid":2,"ts":30,"s":"t"},
 {"ph":"C","name":"mem","pid":1,"ts":10,"args":{"bytes":5}},
 {"ph":"C","name":"mem","pid":1,"ts":50,"args":{"bytes":7}}
]}"#;

#[test]
fn summary_json() {
    let p = temp_file("t.json", TRACE.as_bytes());
    let out = loupe().args(["summary", p.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["slices"], 2);
    assert_eq!(v["instants"], 1);
    assert_eq!(v["counter_samples"], 2);
    assert_eq!(v["start_ns"], 10_000);
    assert_eq!(v["end_ns"], 112_345);
    assert_eq!(v["top"][0]["name"], "outer");
    assert_eq!(v["top"][0]["total_ns"], 100_000);
    for k in ["format", "tracks", "flows", "warnings"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert!(v.get("device_summary").is_none(), "a Chrome trace is not a Neuron device profile");
}

/// `summary --json` on an NTFF and on its JSON export adds `device_summary` with neuron-profile's
/// keys; the counts equal the export's own summary table (full check: core's
/// device_summary_oracle test).
#[test]
fn device_summary_json() {
    let base = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/neuron/profile_128x128x1024");
    let (ntff, json) = (format!("{base}.ntff"), format!("{base}.json"));
    if !std::path::Path::new(&ntff).exists() || !std::path::Path::new(&json).exists() {
        eprintln!("SKIP device_summary_json: {ntff} absent");
        return;
    }
    let export: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let oracle = &export["summary"][0];
    for input in [&ntff, &json] {
        let out = loupe().args(["summary", input, "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = &v["device_summary"];
        for k in [
            "tensor_engine_instruction_count",
            "vector_engine_instruction_count",
            "scalar_engine_instruction_count",
            "gpsimd_engine_instruction_count",
            "sync_engine_instruction_count",
            "static_dma_packet_count",
            "software_dynamic_dma_size",
        ] {
            assert_eq!(d[k], oracle[k], "{input}: {k}");
        }
        let t = d["total_time"].as_f64().unwrap();
        assert!((t - oracle["total_time"].as_f64().unwrap()).abs() < 1e-12, "{input}: total_time {t}");
    }
}

#[test]
fn events_csv_exact_ns_and_quoting() {
    let p = temp_file("t2.json", TRACE.as_bytes());
    let out = loupe().args(["events", p.to_str().unwrap(), "--csv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "track,name,start_ns,dur_ns");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].ends_with(",outer,12345,100000"), "{}", lines[1]);
    assert!(lines[2].ends_with(",\"inner,comma\",20000,10500"), "{}", lines[2]);
    assert!(lines[1].starts_with('"') && lines[1].contains("\"\"quoted\"\""), "{}", lines[1]);
}

#[test]
fn unreadable_input_fails_with_one_line() {
    let p = temp_file("garbage.bin", b"\x00\x01\x02 definitely not a profile");
    for args in [vec!["summary", p.to_str().unwrap()], vec!["events", "/nonexistent/file.json", "--csv"]] {
        let out = loupe().args(&args).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("loupe: "), "{err}");
    }
}

/// The NTFF decoder and the JSON-export importer must give identical instruction, DMA and
/// semaphore rows (the export is the official decoding of the same capture).
#[test]
fn ntff_and_json_export_give_the_same_rows() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/neuron/ntff-v5");
    let rd =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e} (the shared samples are required)"));
    let mut ntffs: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ntff"))
        .collect();
    ntffs.sort();
    let mut checked = 0;
    for ntff in ntffs.iter().step_by(8) {
        let json = ntff.with_extension("json");
        for kind in ["instruction", "dma", "semaphore"] {
            let run = |p: &std::path::Path| {
                let o =
                    loupe().args(["events", p.to_str().unwrap(), "--kind", kind, "--csv"]).output().unwrap();
                assert!(o.status.success(), "{}: {}", p.display(), String::from_utf8_lossy(&o.stderr));
                String::from_utf8(o.stdout).unwrap()
            };
            let (a, b) = (run(ntff), run(&json));
            assert!(a.lines().count() > 1, "{} {kind}: no rows", ntff.display());
            assert_eq!(a, b, "{} --kind {kind}: NTFF and JSON export differ", ntff.display());
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} NTFF/JSON pairs in {dir}");
    println!("compared {checked} NTFF/JSON pairs on instruction, dma and semaphore rows");
}

/// Names from the file never reach the terminal as control sequences, nor a spreadsheet as
/// formulas (issue 7 §4).
#[test]
fn hostile_text_is_escaped_and_inert() {
    let trace = r#"{"traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"=cmd|' /C calc'!A0"}},
 {"ph":"X","name":"\u001b]0;pwned\u0007title","pid":1,"tid":2,"ts":1,"dur":100},
 {"ph":"X","name":"=HYPERLINK(\"http://evil\",\"x\")","pid":1,"tid":2,"ts":2,"dur":10},
 {"ph":"X","name":"@SUM(1)","pid":1,"tid":2,"ts":3,"dur":1},
 {"ph":"X","name":"\tline\r\nbreak\u202e","pid":1,"tid":2,"ts":4,"dur":1},
 {"ph":"X","name":"-5","pid":1,"tid":2,"ts":5,"dur":1}
]}"#;
    let p = temp_file("hostile.json", trace.as_bytes());
    let out = loupe().args(["events", p.to_str().unwrap(), "--csv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(!csv.chars().any(|c| c.is_control() && c != '\n'), "{csv:?}");
    assert!(!csv.contains('\u{202e}'));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6, "{csv}");
    let cells = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    // every row's track cell is neutralised (it starts with '=')
    for l in &lines[1..] {
        assert!(l.starts_with("'=cmd|' /C calc'!A0"), "{l}");
        assert!(!cells(l).iter().any(|c| c.starts_with(['=', '+', '-', '@']) || c.starts_with("\"=")), "{l}");
    }
    assert!(csv.contains(",\\u{1b}]0;pwned\\u{7}title,1000,100000"), "{csv}");
    assert!(csv.contains(",\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",2000,10000"), "{csv}");
    assert!(csv.contains(",'@SUM(1),3000,1000"), "{csv}");
    assert!(csv.contains(",'\\u{9}line\\u{d}\\u{a}break\\u{202e},4000,1000"), "{csv}");
    assert!(csv.contains(",'-5,5000,1000"), "{csv}");
    // text output: the names, escaped
    let out = loupe().args(["summary", p.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success());
    let txt = String::from_utf8(out.stdout).unwrap();
    assert!(!txt.chars().any(|c| c.is_control() && c != '\n'), "{txt:?}");
    assert!(txt.contains("\\u{1b}]0;pwned\\u{7}title"), "{txt}");
    // error messages quote the file's text: escaped too
    let p = temp_file("keys.json", "{\"\u{1b}[2J\u{1b}[H\":1}".as_bytes());
    let out = loupe().args(["summary", p.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    assert!(err.contains("\\u{1b}[2J"), "{err}");
}

/// A Kineto trace with two streams: compute [0,10) and [20,25) µs, NCCL [5,30), a memcpy [40,42).
const KINETO: &str = r#"{"schemaVersion":1,"distributedInfo":{"rank":2},"traceEvents":[
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":2}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":8,"ts":5,"dur":25,"args":{"stream":8,"correlation":3}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":8,"ts":40,"dur":2,"args":{"stream":8,"correlation":4}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":0,"dur":3}
]}"#;

#[test]
fn analyze_json_gpu_and_latency() {
    let p = temp_file("kineto.json", KINETO.as_bytes());
    let out = loupe().args(["analyze", p.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tb = &v["temporal_breakdown"];
    assert_eq!(tb["kernel_ns"], 42_000);
    assert_eq!(tb["idle_ns"], 10_000);
    assert_eq!(tb["compute_ns"], 15_000);
    assert_eq!(tb["non_compute_ns"], 17_000);
    assert_eq!(tb["ranks"][0]["rank"], 2);
    assert_eq!(tb["ranks"][0]["idle_pct"], 23.81);
    let kt = v["kernel_types"].as_array().unwrap();
    let find = |t: &str| kt.iter().find(|k| k["type"] == t).map(|k| k["total_ns"].as_i64().unwrap());
    assert_eq!(find("COMMUNICATION"), Some(15_000));
    assert_eq!(find("COMPUTATION"), Some(5_000));
    assert_eq!(find("MEMORY"), Some(2_000));
    assert_eq!(find("COMPUTATION overlapping COMMUNICATION"), Some(10_000));
    for k in [
        "top_kernels",
        "idle_breakdown",
        "comm_comp_overlap",
        "launch_delay",
        "gpu_utilisation",
        "exposed_time",
        "method",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let ops = v["latency"]["operators"].as_array().unwrap();
    let gemm = ops.iter().find(|o| o["name"] == "gemm").unwrap();
    for (k, want) in [
        ("count", 2),
        ("total_ns", 15_000),
        ("min_ns", 5_000),
        ("max_ns", 10_000),
        ("mean_ns", 7_500),
        ("median_ns", 5_000),
        ("p90_ns", 10_000),
        ("p95_ns", 10_000),
        ("p99_ns", 10_000),
        ("p999_ns", 10_000),
    ] {
        assert_eq!(gemm[k], want, "{k}");
    }
    assert_eq!(v["latency"]["by_device"]["host"][0]["name"], "aten::mm");
    assert_eq!(v["latency"]["by_device"]["device"].as_array().unwrap().len(), 3);
}

#[test]
fn analyze_without_gpu_says_why() {
    let p = temp_file("cpu.json", TRACE.as_bytes());
    let out = loupe().args(["analyze", p.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["gpu_unavailable"].as_str().unwrap().contains("no GPU stream"));
    assert!(v.get("temporal_breakdown").is_none());
    assert_eq!(v["latency"]["operators"][0]["name"], "outer");
    let out = loupe().args(["analyze", p.to_str().unwrap()]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("GPU breakdowns: not applicable"), "{s}");
    assert!(s.contains("nearest-rank"), "{s}");
}

#[test]
fn analyze_text_and_several_ranks() {
    let a = temp_file("rank2.json", KINETO.as_bytes());
    let b = temp_file("rank4.json", KINETO.replace("\"rank\":2", "\"rank\":4").as_bytes());
    let out = loupe().args(["analyze", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranks: Vec<i64> = v["temporal_breakdown"]["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rank"].as_i64().unwrap())
        .collect();
    assert_eq!(ranks, vec![2, 4]);
    assert_eq!(v["temporal_breakdown"]["kernel_ns"], 84_000);
    let out = loupe().args(["analyze", a.to_str().unwrap()]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    for want in
        ["GPU temporal breakdown", "COMPUTATION overlapping COMMUNICATION", "Top kernels", "Latency by name"]
    {
        assert!(s.contains(want), "missing {want} in\n{s}");
    }
}

/// A Kineto-like trace: one step, a GEMM launched by aten::mm, a memcpy without a flow.
const GPU_TRACE: &str = r#"{"schemaVersion":1,"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":5,"args":{"correlation":7}},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":1,"ts":12},
 {"ph":"X","cat":"kernel","name":"ampere_fp16_s16816gemm","pid":0,"tid":7,"ts":40,"dur":30,"args":{"correlation":7}},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":0,"tid":7,"ts":40,"bp":"e"},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH","pid":0,"tid":7,"ts":80,"dur":10}
]}"#;

#[test]
fn dashboard_json() {
    let p = temp_file("gpu.json", GPU_TRACE.as_bytes());
    let out =
        loupe().args(["dashboard", p.to_str().unwrap(), "--json", "--iterations", "3:3"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &v["dlprof"]["gpu"];
    assert_eq!(g["range"], serde_json::json!([3, 3]));
    assert_eq!(g["window_ns"], 100_000);
    assert_eq!(g["gpu_busy_ns"], 40_000);
    assert_eq!(g["kernel_count"], 1);
    assert_eq!(g["memory_count"], 1);
    assert_eq!(g["resources"]["tensor_core_ns"], 30_000);
    assert_eq!(g["top_ops"][0]["name"], "aten::mm");
    assert_eq!(g["top_ops"][0]["tensor_core_ns"], 30_000);
    assert_eq!(g["recommendations"][0]["key"], "gpu_idle");
    assert_eq!(v["dlprof"]["tables"], serde_json::json!([]));

    let csv = "Expert Systems Feedback\nProblem,Recommendation\n\"p1\",\"r1\"\n";
    let p = temp_file("dlprof_expert_systems.csv", csv.as_bytes());
    let out = loupe().args(["dashboard", p.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dlprof"]["gpu"], serde_json::Value::Null);
    assert_eq!(v["dlprof"]["tables"][0]["kind"], "DlprofRecommendations");
    assert_eq!(v["dlprof"]["tables"][0]["rows"][0][1], "r1");

    let out = loupe().args(["dashboard", p.to_str().unwrap(), "--iterations", "x"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--iterations wants A:B"));
}

#[test]
fn help_prints_the_usage_as_text_and_errors_escape_only_the_message() {
    let out = loupe().arg("--help").output().unwrap();
    assert!(out.status.success());
    let usage = String::from_utf8(out.stdout).unwrap();
    assert!(usage.starts_with("usage:\n") && usage.contains("\n  loupe summary FILE"), "{usage}");
    assert!(!usage.contains("\\u{"), "the usage is escaped: {usage}");
    // an unknown command with a control character: the command escaped, the usage as text
    let out = loupe().arg("bogus\x1b[31m").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\x1b'), "{err}");
    assert!(err.starts_with("loupe: unknown command bogus") && err.contains("\nusage:\n"), "{err}");
    assert!(!err.contains("\\u{a}"), "{err}");
}
