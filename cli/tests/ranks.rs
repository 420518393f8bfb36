//! `loupe ranks FILE... --json` on the shared two-rank pair: the JSON contract of issue 41
//! (`ranks`, `collectives`, `stragglers`), the alignment option and the text form.

use std::process::Command;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");

fn pair() -> Vec<String> {
    (0..2)
        .map(|r| {
            let p = std::path::Path::new(SAMPLES).join(format!("hta__trace_filter_sampled_rank-{r}.json.gz"));
            assert!(p.exists(), "{} must exist", p.display());
            p.to_string_lossy().into_owned()
        })
        .collect()
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_loupe")).args(args).output().unwrap()
}

fn keys(v: &serde_json::Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn ranks_json_shape() {
    let files = pair();
    let out = run(&["ranks", &files[0], &files[1], "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in ["ranks", "collectives", "stragglers", "offsets", "mismatches", "align", "files"] {
        assert!(v.get(k).is_some(), "no {k}");
    }
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    for (i, r) in ranks.iter().enumerate() {
        for k in [
            "rank",
            "file",
            "iterations",
            "idle_ns",
            "compute_ns",
            "non_compute_ns",
            "kernel_ns",
            "exposed_comm_ns",
        ] {
            assert!(r.get(k).is_some(), "rank row without {k}: {r}");
        }
        assert_eq!(r["rank"], i as i64);
        assert_eq!(r["iterations"], 2);
        let sum =
            ["idle_ns", "compute_ns", "non_compute_ns"].iter().map(|k| r[*k].as_i64().unwrap()).sum::<i64>();
        assert_eq!(sum, r["kernel_ns"].as_i64().unwrap());
        assert_eq!(r["step_ns"].as_array().unwrap().len(), 2);
    }
    let cs = v["collectives"].as_array().unwrap();
    assert_eq!(cs.len(), 10, "scripts/collectives_oracle.py counts 10 instances");
    for c in cs {
        for k in [
            "name",
            "seq",
            "ranks",
            "start_skew_ns",
            "dur_min_ns",
            "dur_median_ns",
            "dur_max_ns",
            "last_rank",
            "missing",
            "bytes",
            "algbw_gbps",
            "process_group",
        ] {
            assert!(c.get(k).is_some(), "collective without {k}: {c}");
        }
        assert_eq!(c["ranks"], serde_json::json!([0, 1]));
        assert!(c["name"].as_str().unwrap().starts_with("ncclKernel_SendRecv"));
    }
    // the largest skew: instance 3, 164.191 ms, rank 1 last (the independent script)
    let worst = cs.iter().max_by_key(|c| c["start_skew_ns"].as_i64().unwrap()).unwrap();
    assert_eq!((worst["seq"].as_i64(), worst["start_skew_ns"].as_i64()), (Some(3), Some(164_191_000)));
    assert_eq!(worst["last_rank"], 1);
    let s = v["stragglers"].as_array().unwrap();
    assert_eq!(keys(&s[0]), ["instances", "last_count", "max_lateness_ns", "mean_lateness_ns", "rank"]);
    assert_eq!((s[0]["rank"].as_i64(), s[0]["last_count"].as_i64()), (Some(1), Some(8)));
    assert_eq!(v["offsets"], serde_json::json!([{"rank": 0, "offset_ns": 0}, {"rank": 1, "offset_ns": 0}]));
}

#[test]
fn ranks_align_and_text() {
    let files = pair();
    let out = run(&["ranks", &files[0], &files[1], "--json", "--align", "iteration:551"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // ProfilerStep#551 starts at 1682725898079292 µs on rank 0 and …079484 on rank 1
    assert_eq!(v["offsets"][1]["offset_ns"], -192_000);
    let out = run(&["ranks", &files[0], &files[1], "--align", "iteration:9"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ProfilerStep#9"));
    let out = run(&["ranks", &files[0], "--align", "sideways"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["ranks", &files[0], &files[1]]);
    assert!(out.status.success());
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("collectives: 10 instances") && t.contains("stragglers"), "{t}");
}
