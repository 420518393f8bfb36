//! Golden test over every Perfetto protobuf sample (`../shared/samples/perfetto-proto`, incl.
//! `encoded_from_perfetto_difftests/`) and every XProf sample (`../shared/samples/xprof`):
//! - slice / instant / counter-sample counts (what `loupe summary --json` prints, through
//!   `query::summary`) equal an independent count by `tests/support/proto_count.py`, a pure-Python
//!   protobuf wire walker sharing no code with the importers (skipped with a message when python3
//!   is absent); for XSpaces also the first start and last end in ns;
//! - a few exact values read from the samples' textproto sources by hand;
//! - damaged variants of every sample (cuts, flipped bytes) load in part or fail with a typed
//!   error, never a panic; every loaded model passes `Trace::validate`.
//!
//! Skips with a message when the samples are absent.

use loupe_core::model::WarningKind;
use std::path::{Path, PathBuf};
use std::process::Command;

use loupe_core::import::{import_bytes, ImportError, NoProgress};
use loupe_core::model::TableKind;
use loupe_core::query;
use loupe_core::Trace;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");
const COUNTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/proto_count.py");

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

fn samples(sub: &str, ext: &str) -> Option<Vec<PathBuf>> {
    let dir = Path::new(SAMPLES).join(sub);
    if !dir.is_dir() {
        panic!("no samples at {} (the shared samples beside the repository are required)", dir.display());
    }
    let mut v = Vec::new();
    files(&dir, ext, &mut v);
    Some(v)
}

/// The Python counts, one JSON object per file; None when python3 is absent.
fn python_counts(paths: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let out = match Command::new("python3").arg(COUNTER).args(paths).output() {
        Ok(o) => o,
        Err(e) => {
            panic!("python3 is required for the independent count: {e}");
        }
    };
    assert!(out.status.success(), "proto_count.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    Some(text.lines().map(|l| serde_json::from_str(l).expect("json line")).collect())
}

fn load(p: &Path) -> Result<Trace, ImportError> {
    let bytes = std::fs::read(p).expect("read sample");
    let name = p.file_name().expect("name").to_string_lossy().to_string();
    let r = import_bytes(&name, &bytes, &mut NoProgress);
    if let Ok(t) = &r {
        t.validate().unwrap_or_else(|e| panic!("{}: invalid model: {e:?}", p.display()));
    }
    r
}

fn check_counts(paths: &[PathBuf], format: &str) {
    let Some(counts) = python_counts(paths) else { return };
    assert_eq!(counts.len(), paths.len());
    for (p, c) in paths.iter().zip(&counts) {
        if let Some(err) = c.get("error") {
            let r = load(p);
            assert!(r.is_err(), "{}: Python cannot walk it ({err}) but Loupe loaded it", p.display());
            eprintln!(
                "{}: damaged as stored → {}",
                p.display(),
                r.err().map(|e| e.to_string()).unwrap_or_default()
            );
            continue;
        }
        let t = load(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let s = query::summary(&t);
        assert_eq!(s.format, format, "{}", p.display());
        let got = (s.slices as u64, s.instants as u64, s.counter_samples as u64);
        let want = (
            c["slices"].as_u64().expect("slices"),
            c["instants"].as_u64().expect("instants"),
            c["counter_samples"].as_u64().expect("counter_samples"),
        );
        assert_eq!(got, want, "{}: (slices, instants, counter samples)", p.display());
        if let (Some(start), Some(end)) = (c["start_ns"].as_i64(), c["end_ns"].as_i64()) {
            assert_eq!((s.start_ns, s.end_ns), (start, end), "{}: first start / last end", p.display());
        }
        eprintln!("{}: {got:?} = Python", p.file_name().expect("name").to_string_lossy());
    }
}

/// Cuts and flipped bytes of a sample: a partial load or a typed error, never a panic.
fn damaged_variants(p: &Path) {
    let bytes = std::fs::read(p).expect("read sample");
    let name = p.file_name().expect("name").to_string_lossy().to_string();
    let n = bytes.len();
    let mut cuts: Vec<usize> = (1..16).map(|k| n * k / 16).collect();
    cuts.extend([1, 2, 3, n.saturating_sub(1)]);
    for cut in cuts {
        if cut == 0 || cut >= n {
            continue;
        }
        if let Ok(t) = import_bytes(&name, &bytes[..cut], &mut NoProgress) {
            t.validate().unwrap_or_else(|e| panic!("{name} cut at {cut}: {e:?}"));
        }
    }
    let step = (n / 64).max(1);
    for (k, i) in (0..n).step_by(step).enumerate() {
        let mut b = bytes.clone();
        b[i] ^= [0xFF, 0x80, 0x01, 0x7F][k % 4];
        if let Ok(t) = import_bytes(&name, &b, &mut NoProgress) {
            t.validate().unwrap_or_else(|e| panic!("{name} with byte {i} flipped: {e:?}"));
        }
    }
}

#[test]
fn perfetto_samples_match_the_independent_count() {
    let Some(paths) = samples("perfetto-proto", ".pftrace") else { return };
    assert!(paths.len() >= 14, "expected every .pftrace sample, found {}", paths.len());
    check_counts(&paths, "perfetto");
    for p in &paths {
        damaged_variants(p);
    }
}

#[test]
fn perfetto_exact_values() {
    let dir = Path::new(SAMPLES).join("perfetto-proto/encoded_from_perfetto_difftests");
    if !dir.is_dir() {
        panic!("no samples at {} (the shared samples beside the repository are required)", dir.display());
    }
    // gpu_compute_kernel.textproto: kernels at 100 (50 ns), 200 (100 ns), 400 (50 ns) on "Compute Queue"
    let t = load(&dir.join("gpu_compute_kernel.pftrace")).expect("loads");
    let tr = &t.tracks[0];
    assert_eq!(t.str(tr.name), "Compute Queue");
    let got: Vec<(i64, i64, &str)> = (0..tr.slices.len())
        .map(|i| (tr.slices.start_ns[i], tr.slices.dur_ns.at(i), t.str(tr.slices.name[i])))
        .collect();
    assert_eq!(
        got,
        vec![
            (100, 50, "vectorAdd(float*, float*, float*, int)"),
            (200, 100, "matMul(float*, float*, float*, int, int)"),
            (400, 50, "vectorAdd(float*, float*, float*, int)"),
        ]
    );
    // track_event_tracks.textproto: "event1_on_async2" begins on sequence 1 at 5100 and ends on
    // sequence 2 at 5200, on track uuid 12 ("async2") under process p1 (pid 5)
    let t = load(&dir.join("track_event_tracks.pftrace")).expect("loads");
    let tr = t.tracks.iter().find(|tr| tr.slices.len() == 1).expect("the one slice");
    assert_eq!((tr.slices.start_ns[0], tr.slices.dur_ns.at(0)), (5100, 100));
    assert_eq!(t.str(tr.slices.name[0]), "event1_on_async2");
    assert_eq!(t.str(tr.name), "async2");
    assert_eq!(t.str(t.groups[tr.group.idx()].name), "p1 (pid 5)");
    // flow_events_proto_v2.textproto: 4 slices, flows 1→2, 2→3 (chain) and 3→4 (terminating)
    let t = load(&dir.join("flow_events_proto_v2.pftrace")).expect("loads");
    assert_eq!((t.slice_count(), t.flows.len()), (4, 3));
}

#[test]
fn xplane_samples_match_the_independent_count() {
    let Some(paths) = samples("xprof", ".xplane.pb") else { return };
    assert!(paths.len() >= 3, "expected every .xplane.pb sample, found {}", paths.len());
    check_counts(&paths, "xplane");
    // the TPU sample was mangled by a text pipeline (U+FFFD for invalid bytes): a typed error
    let tpu = paths.iter().find(|p| p.to_string_lossy().contains("tpu_inference")).expect("tpu sample");
    match load(tpu) {
        Err(ImportError::Malformed { format: "xplane", .. }) => {}
        other => panic!("{}: {:?}", tpu.display(), other.map(|t| t.slice_count())),
    }
    // tracelens_jax: device planes are device groups; one line is one track
    let jax = paths.iter().find(|p| p.to_string_lossy().contains("te_fused_attn")).expect("jax sample");
    let t = load(jax).expect("loads");
    assert!(
        t.groups
            .iter()
            .any(|g| t.str(g.name).starts_with("/device:GPU:")
                && g.kind == loupe_core::model::GroupKind::Device)
    );
    for p in &paths {
        if std::fs::metadata(p).map(|m| m.len()).unwrap_or(0) < 400_000 {
            damaged_variants(p);
        }
    }
}

#[test]
fn xprof_tool_json_samples_are_tables() {
    let Some(paths) = samples("xprof", ".json") else { return };
    assert!(paths.len() >= 5);
    for p in &paths {
        let t = load(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(t.format, "xprof-tools");
        assert_eq!(t.slice_count(), 0);
        assert!(!t.tables.is_empty(), "{}", p.display());
        assert!(t.tables.iter().all(|tb| tb.kind == TableKind::XprofTool));
        assert_eq!(t.warnings.count_of(WarningKind::XprofToolNotDrawn), 1);
        let text = std::fs::read_to_string(p).expect("text");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        // DataTables: one table per element with exactly its rows
        if let Some(a) = v.as_array() {
            for (i, dt) in a.iter().enumerate().filter(|(_, dt)| dt.get("cols").is_some()) {
                let rows = dt["rows"].as_array().map_or(0, Vec::len);
                let tb = t
                    .tables
                    .iter()
                    .find(|tb| tb.section.ends_with(&format!(": table {}", i + 1)))
                    .expect("table");
                assert_eq!(tb.rows.len(), rows, "{} table {}", p.display(), i + 1);
            }
        }
        eprintln!(
            "{}: {} tables ({})",
            p.file_name().expect("name").to_string_lossy(),
            t.tables.len(),
            t.tables
                .iter()
                .map(|tb| format!("{} ×{}", tb.section, tb.rows.len()))
                .collect::<Vec<_>>()
                .join("; ")
        );
        damaged_variants(p);
    }
}
