//! Golden test: every DLProf `--reports` CSV in `../shared/samples/dlprof` loads as report tables
//! with the row counts of an independent count (a quote-aware record splitter written here, not
//! the importer's CSV reader), the expected kind per file name, and no timeline. Skips when the
//! samples are absent.

use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::model::{Cell, TableKind};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/dlprof");

/// Records of a CSV text: split at newlines outside double quotes; blank records dropped.
fn records(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            '\n' if !quoted => {
                let r = cur.trim_end_matches('\r').to_string();
                if !r.trim().is_empty() {
                    out.push(r);
                }
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn expected_kind(name: &str) -> TableKind {
    let stem = name.trim_end_matches(".csv");
    for (suffix, kind) in [
        ("_summary", TableKind::DlprofSummary),
        ("_detailed", TableKind::DlprofOps),
        ("_kernel", TableKind::DlprofKernels),
        ("_iteration", TableKind::DlprofIterations),
        ("_op_type", TableKind::DlprofOpTypes),
        ("_group_op", TableKind::DlprofGroupOps),
        ("_tensor_core", TableKind::DlprofTensorCore),
        ("_expert_systems", TableKind::DlprofRecommendations),
    ] {
        if stem.ends_with(suffix) {
            return kind;
        }
    }
    panic!("unexpected sample {name}");
}

#[test]
fn every_dlprof_csv_sample_loads_its_tables() {
    let Ok(dir) = std::fs::read_dir(DIR) else {
        panic!("{DIR} not found (the shared samples beside the repository are required)");
    };
    let mut names: Vec<String> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "expected the DLProf CSV samples, found {names:?}");
    for name in &names {
        let bytes = std::fs::read(format!("{DIR}/{name}")).unwrap();
        let t = import_bytes(name, &bytes, &mut NoProgress).unwrap_or_else(|e| panic!("{name}: {e}"));
        t.validate().unwrap();
        assert_eq!(t.format, "dlprof-csv", "{name}");
        assert_eq!(t.slice_count(), 0, "{name}: no timeline");
        let kind = expected_kind(name);
        assert!(t.tables.iter().all(|x| x.kind == kind), "{name}");
        let recs = records(std::str::from_utf8(&bytes).unwrap());
        if kind == TableKind::DlprofSummary {
            // sections: records with one field (no comma outside quotes); rows: the others,
            // less one header line per matrix section (its first line starts with a comma)
            let titles: Vec<&String> = recs.iter().filter(|r| !r.contains(',')).collect();
            let headers = recs.iter().filter(|r| r.starts_with(',')).count();
            let rows = recs.len() - titles.len() - headers;
            let got: usize = t.tables.iter().map(|x| x.rows.len()).sum();
            assert_eq!(t.tables.len(), titles.len(), "{name}: sections");
            assert_eq!(got, rows, "{name}: rows");
            let sections: Vec<&str> = t.tables.iter().map(|x| x.section.as_str()).collect();
            assert_eq!(sections, ["System Config", "Summary Report", "Iterations", "All Ops", "All Kernels"]);
            println!("{name}: {} sections, {got} rows", t.tables.len());
        } else {
            assert_eq!(t.tables.len(), 1, "{name}");
            let tab = &t.tables[0];
            // title line + header line
            assert_eq!(tab.rows.len(), recs.len() - 2, "{name}: rows");
            let header_fields = recs[1].split(',').count();
            assert_eq!(tab.columns.len(), header_fields, "{name}: columns");
            assert_eq!(t.warnings.total(), 0, "{name}: {:?}", t.warnings);
            println!("{name}: {:?} {} rows × {} columns", tab.kind, tab.rows.len(), tab.columns.len());
        }
    }
}

#[test]
fn dlprof_sample_values_are_typed() {
    let path = format!("{DIR}/odema_w_Relu_dlprof_summary.csv");
    let Ok(bytes) = std::fs::read(&path) else {
        panic!("{path} not found (the shared samples beside the repository are required)");
    };
    let t = import_bytes(&path, &bytes, &mut NoProgress).unwrap();
    let kernels = t.tables.iter().find(|x| x.section == "All Kernels").unwrap();
    assert_eq!(kernels.cell(0, "GPU Time (ns)"), Some(&Cell::Int(655837)));
    assert_eq!(kernels.cell(0, "# Kernels"), Some(&Cell::Int(30)));
    let summary = t.tables.iter().find(|x| x.section == "Summary Report").unwrap();
    assert_eq!(summary.rows[0], vec![Cell::Text("Wall Clock Time (ns)".into()), Cell::Int(2840562182)]);
    let a100 = format!("{DIR}/chelseajohn_a100x4_dlprof_summary.csv");
    if let Ok(bytes) = std::fs::read(&a100) {
        let t = import_bytes(&a100, &bytes, &mut NoProgress).unwrap();
        let cfg = &t.tables[0];
        let names = cfg.cell(1, "Value").and_then(Cell::as_str).unwrap();
        assert_eq!(names.matches("A100").count(), 4, "{names}");
    }
}
