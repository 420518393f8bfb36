//! Oracle test of the Neuron device summary ([`loupe_core::analysis::device_summary`]): for every
//! NTFF sample with its official `neuron-profile view --output-format json` export, compute the
//! summary from the NTFF and compare every key Loupe computes with the export's `summary` table
//! (counts equal; times, bytes, cycles and fractions within 0.5 %). Then the same from the JSON
//! export itself (imported like any other input) against its own `summary` table, and from
//! Neuron Explorer Parquet folders when there are any.
//!
//! Samples live outside the repository (unlicensed): `../shared/samples/neuron/ntff-v5/*.ntff`
//! (+ `.json`), relative to the workspace root. Skips with a message when they are absent. Run
//! with `--nocapture` to see the per-key table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use loupe_core::analysis::device_summary::{device_summary, DeviceSummary, Unit, Value};
use loupe_core::import::{import_files, InputFile, NoProgress};
use serde_json::Value as Json;

fn samples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples/neuron")
}

fn sample_pairs() -> Vec<(PathBuf, PathBuf)> {
    let root = samples_root();
    let mut out = Vec::new();
    for dir in [root.join("ntff-v5"), root.clone()] {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut v: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ntff"))
            .filter_map(|p| {
                let j = p.with_extension("json");
                j.exists().then_some((p, j))
            })
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// Explorer Parquet profiles: folders holding a `Summary*.parquet` file.
fn parquet_dirs() -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut has_summary = false;
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() && depth < 4 {
                walk(&p, depth + 1, out);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("Summary") && n.ends_with(".parquet"))
            {
                has_summary = true;
            }
        }
        if has_summary {
            out.push(dir.to_path_buf());
        }
    }
    let mut out = Vec::new();
    walk(&samples_root(), 0, &mut out);
    out.sort();
    out
}

fn import(files: &[(String, Vec<u8>)]) -> loupe_core::Trace {
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&inputs, &mut NoProgress).expect("import")
}

fn read(p: &Path) -> (String, Vec<u8>) {
    (p.to_string_lossy().into_owned(), std::fs::read(p).expect("read sample"))
}

/// Per key: (passed, compared, worst relative error, an example of a failure).
#[derive(Default)]
struct Tally(BTreeMap<&'static str, (usize, usize, f64, String)>);

impl Tally {
    fn compare(&mut self, file: &str, ours: &DeviceSummary, oracle: &serde_json::Map<String, Json>) {
        for m in ours.rows() {
            let Some(want) = oracle.get(m.key).and_then(Json::as_f64) else {
                continue; // the export does not have this key
            };
            let got = m.value.as_f64();
            let exact = matches!((m.unit, m.value), (Unit::Count, Value::Count(_)));
            let rel = if want == 0.0 { got.abs() } else { ((got - want) / want).abs() };
            let ok = if exact { got == want } else { rel <= 0.005 };
            let e = self.0.entry(m.key).or_default();
            e.1 += 1;
            if ok {
                e.0 += 1;
            } else if e.3.is_empty() {
                e.3 = format!("{file}: got {got}, export {want}");
            }
            if rel.is_finite() && rel > e.2 {
                e.2 = rel;
            }
        }
    }
    fn print(&self, title: &str) {
        println!("\n{title}\n{:<45} {:>9}  {:>10}  first failure", "key", "pass", "worst rel");
        for (k, (p, n, w, ex)) in &self.0 {
            println!("{k:<45} {p:>4}/{n:<4}  {w:>10.2e}  {ex}");
        }
    }
    fn failing(&self) -> Vec<&'static str> {
        self.0.iter().filter(|(_, v)| v.0 != v.1).map(|(k, _)| *k).collect()
    }
}

fn oracle_summary(json: &Json) -> Option<&serde_json::Map<String, Json>> {
    json.get("summary")?.as_array()?.first()?.as_object()
}

#[test]
fn device_summary_matches_official_export() {
    let pairs = sample_pairs();
    if pairs.is_empty() {
        eprintln!("SKIP device_summary_oracle: no NTFF/JSON pairs under {}", samples_root().display());
        return;
    }
    let (mut from_ntff, mut from_json) = (Tally::default(), Tally::default());
    for (ntff, json) in &pairs {
        let name = ntff.file_name().unwrap().to_string_lossy().into_owned();
        let j = read(json);
        let export: Json = serde_json::from_slice(&j.1).expect("export JSON");
        let Some(oracle) = oracle_summary(&export) else { continue };

        let t = import(&[read(ntff)]);
        let s = device_summary(&t).unwrap_or_else(|| panic!("{name}: no device summary from the NTFF"));
        from_ntff.compare(&name, &s, oracle);

        let t = import(&[j]);
        let s = device_summary(&t).unwrap_or_else(|| panic!("{name}: no device summary from the export"));
        from_json.compare(&name, &s, oracle);
    }
    from_ntff
        .print(&format!("device summary from the NTFF vs the export's summary ({} captures)", pairs.len()));
    from_json.print(&format!(
        "device summary from the JSON export's rows vs its summary ({} captures)",
        pairs.len()
    ));

    // The NTFF path carries picosecond times: every key must match on every capture.
    assert!(from_ntff.failing().is_empty(), "NTFF keys off the oracle: {:?}", from_ntff.failing());
    // The JSON export floors times to ns: counts and bytes must match; times are reported above.
    let json_must: Vec<_> = from_json
        .failing()
        .into_iter()
        .filter(|k| !k.ends_with("_time") && !k.ends_with("_percent") && !k.ends_with("_cycles"))
        .collect();
    assert!(json_must.is_empty(), "JSON-export counts/bytes off the oracle: {json_must:?}");

    let dirs = parquet_dirs();
    if dirs.is_empty() {
        eprintln!("SKIP device_summary_oracle (Parquet): no Explorer Parquet profile under the samples");
    }
    let mut from_parquet = Tally::default();
    for d in &dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let files: Vec<_> = files.iter().map(|p| read(p)).collect();
        let t = import(&files);
        // the oracle is the Summary table, which the importer keeps as metadata `summary.<key>`
        let oracle: serde_json::Map<String, Json> = t
            .metadata
            .entries
            .iter()
            .filter_map(|(k, v)| {
                let k = k.strip_prefix("summary.")?;
                Some((k.to_string(), Json::from(v.parse::<f64>().ok()?)))
            })
            .collect();
        if let Some(s) = device_summary(&t) {
            from_parquet.compare(&d.display().to_string(), &s, &oracle);
        }
    }
    if !dirs.is_empty() {
        from_parquet
            .print(&format!("device summary from Parquet vs its Summary table ({} profiles)", dirs.len()));
    }
}
