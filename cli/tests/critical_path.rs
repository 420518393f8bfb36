//! `loupe critical-path` on the shared HTA critical-path samples: the JSON contract and HTA
//! 0.5.0's numbers (`scripts/hta_critical_path.py`).

use std::process::Command;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");

fn sample(name: &str) -> String {
    let p = std::path::Path::new(SAMPLES).join(name);
    assert!(p.exists(), "{} must exist", p.display());
    p.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).output().unwrap()
}

#[test]
fn critical_path_json_equals_hta() {
    let f = sample("hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz");
    let out = run(&[
        "critical-path",
        &f,
        "--annotation",
        "[param|pytorch.model.alex_net|0|0|0|measure|forward]",
        "--instance",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total_ns"], 241_724_000);
    assert_eq!(v["nodes"], 315);
    assert_eq!(v["edges"], 314);
    let b = v["bound_by"].as_object().unwrap();
    let mut keys: Vec<&str> = b.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["cpu_bound", "gpu_compute_bound", "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead"]
    );
    for (k, hta) in [
        ("cpu_bound", 99.7791),
        ("gpu_compute_bound", 0.2102),
        ("gpu_kernel_kernel_overhead", 0.0037),
        ("gpu_kernel_launch_overhead", 0.007),
    ] {
        let p = b[k].as_f64().unwrap();
        assert!((p - hta).abs() < 0.1, "{k}: {p} vs HTA {hta}");
    }
    // longest first: HTA's breakdown sorted by duration starts with cudaMalloc 179324 µs
    let longest = v["longest"].as_array().unwrap();
    assert_eq!(longest[0]["name"], "cudaMalloc");
    assert_eq!(longest[0]["type"], "critical_path_operator");
    assert_eq!(longest[0]["dur_ns"], 179_324_000);
    let durs: Vec<i64> = longest.iter().map(|e| e["dur_ns"].as_i64().unwrap()).collect();
    assert!(durs.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn critical_path_text_and_errors() {
    let f = sample("hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz");
    let out = run(&["critical-path", &f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("critical path 1.178 ms over 59 nodes / 58 edges"), "{s}");
    assert!(s.contains("cpu_bound"), "{s}");

    let out = run(&["critical-path", &f, "--annotation", "NoSuchStep"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no slice named like 'NoSuchStep'"));
    let out = run(&["critical-path", &f, "--rank", "3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no rank 3"));
    let out = run(&["critical-path", &f, "--instance", "x"]);
    assert_eq!(out.status.code(), Some(2));
}
