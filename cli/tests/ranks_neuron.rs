//! `loupe ranks a.ntff b.ntff … --json` on Neuron ranks: copies of the shared capture
//! (`../shared/samples/neuron/profile_128x128x1024.ntff`, written to a temporary folder under
//! rank names, never committed) are one job of Neuron ranks numbered by their names; a copy whose
//! NEFF UUID differs is a typed warning. The shared sample is required: missing, the test fails.

use std::path::PathBuf;
use std::process::Command;

const NTFF: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/neuron/profile_128x128x1024.ntff");

fn run(args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).output().unwrap()
}

/// The capture written as `<dir>/job_rank_<r>.ntff` for each r (in that order); `patch` changes
/// the last byte of rank `patch`'s NEFF UUID.
fn job(tag: &str, ranks: &[i64], patch: Option<i64>) -> Vec<String> {
    let bytes = std::fs::read(NTFF).unwrap_or_else(|e| panic!("{NTFF} must exist: {e}"));
    let dir: PathBuf = std::env::temp_dir().join(format!("loupe-ranks-neuron-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    ranks
        .iter()
        .map(|&r| {
            let mut b = bytes.clone();
            if patch == Some(r) {
                // the UUID of the export beside the capture (neff_header.uuid), in the metadata
                let uuid = [
                    0x5e, 0xe2, 0x40, 0xec, 0x1e, 0x13, 0x4d, 0x12, 0xb7, 0xb0, 0xcc, 0xdf, 0x8e, 0xff, 0x1e,
                    0x5e,
                ];
                let at = b.windows(16).position(|w| w == uuid).expect("the UUID is in the metadata");
                b[at + 15] = 0x5f;
            }
            let p = dir.join(format!("job_rank_{r}.ntff"));
            std::fs::write(&p, b).unwrap();
            p.to_string_lossy().into_owned()
        })
        .collect()
}

#[test]
fn ntff_ranks_json() {
    let mut args = vec!["ranks".to_string()];
    args.extend(job("json", &[1, 3, 0, 2], None));
    args.extend(["--json".to_string(), "--align".to_string(), "iteration:0".to_string()]);
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(r["rank"], i as i64, "ranks by their names, ascending");
        assert!(r["file"].as_str().unwrap().ends_with(&format!("job_rank_{i}.ntff")));
        assert_eq!(r["kind"], "neuron");
        assert_eq!(r["numbered_by"], "file_name");
        assert_eq!(r["iterations"], 1);
        assert_eq!(r["neff_uuid"], "5ee240ec1e134d12b7b0ccdf8eff1e5e");
        assert_eq!(r["neuron_core"], serde_json::Value::Null, "an NTFF does not carry it");
        let sum =
            ["idle_ns", "compute_ns", "non_compute_ns"].iter().map(|k| r[*k].as_i64().unwrap()).sum::<i64>();
        assert_eq!(sum, r["kernel_ns"].as_i64().unwrap());
        assert!(r["compute_ns"].as_i64().unwrap() > 0);
        // no memory for collectives in this program: none can run
        assert_eq!(r["exposed_comm_ns"], 0);
        assert_eq!(r["step_ns"][0]["step"], 0);
        assert_eq!(r["step_ns"][0]["dur_ns"], r["kernel_ns"]);
    }
    assert_eq!(v["align"], serde_json::json!({"iteration": 0}));
    assert!(v["offsets"].as_array().unwrap().iter().all(|o| o["offset_ns"] == 0));
    assert_eq!(v["warnings"], serde_json::json!([]));
    assert_eq!(v["collectives"], serde_json::json!([]));
}

#[test]
fn ntff_of_another_neff_is_a_warning() {
    let mut args = vec!["ranks".to_string()];
    args.extend(job("mismatch", &[0, 1], Some(1)));
    let json = [args.clone(), vec!["--json".to_string()]].concat();
    let out = run(&json);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = &v["warnings"][0];
    assert_eq!(w["kind"], "neff_mismatch");
    assert_eq!(w["neffs"][0]["ranks"], serde_json::json!([0]));
    assert_eq!(w["neffs"][1]["ranks"], serde_json::json!([1]));
    assert_eq!(w["neffs"][1]["uuid"], "5ee240ec1e134d12b7b0ccdf8eff1e5f");
    let out = run(&args);
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("warning: the Neuron ranks were captured from 2 different NEFFs"), "{t}");
    assert!(t.contains("(Neuron, NEFF 5ee240ec1e134d12b7b0ccdf8eff1e5e)"), "{t}");
}
