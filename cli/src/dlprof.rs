//! `loupe dashboard`: the DLProf-style dashboard's numbers ([`loupe_core::analysis::dlprof`])
//! and any DLProf report tables the profile holds, as one JSON value (`to_json`, the `"dlprof"`
//! key of an analysis report) or as a short text report.

use loupe_core::analysis::dlprof::DlprofIndex;
use loupe_core::Trace;
use serde_json::{json, Value};

/// `{"gpu": <dashboard or null>, "tables": [<report tables>]}`; `range` = iteration numbers
/// (inclusive) to aggregate, `None` = the whole trace.
pub fn to_json(t: &Trace, range: Option<(i64, i64)>) -> Result<Value, String> {
    let gpu = if DlprofIndex::applies(t) {
        serde_json::to_value(DlprofIndex::build(t).dashboard(range)).map_err(|e| e.to_string())?
    } else {
        Value::Null
    };
    let tables = serde_json::to_value(&t.tables).map_err(|e| e.to_string())?;
    Ok(json!({ "gpu": gpu, "tables": tables }))
}

/// `A:B` (or `A`) → iteration numbers `(A, B)`.
pub fn parse_range(s: &str) -> Result<(i64, i64), String> {
    let bad = || format!("--iterations wants A:B (iteration numbers), not '{s}'");
    let (a, b) = s.split_once(':').unwrap_or((s, s));
    let a: i64 = a.trim().parse().map_err(|_| bad())?;
    let b: i64 = b.trim().parse().map_err(|_| bad())?;
    Ok((a.min(b), a.max(b)))
}

/// A few lines for people.
pub fn text_report(t: &Trace, range: Option<(i64, i64)>) -> Vec<String> {
    let mut out = Vec::new();
    if DlprofIndex::applies(t) {
        let d = DlprofIndex::build(t).dashboard(range);
        out.push(format!(
            "GPU utilisation {:.1} % over {} ns on {} device(s); {} kernels, {} memory ops",
            d.gpu_utilisation_percent,
            d.window_ns,
            d.devices.len(),
            d.kernel_count,
            d.memory_count
        ));
        for (label, _, v) in d.resources.parts() {
            out.push(format!("  {label:<24} {v:>14} ns"));
        }
        for o in &d.top_ops {
            out.push(format!("  top op {:>14} ns  {}", o.gpu_total_ns, o.name));
        }
        for r in &d.recommendations {
            out.push(format!(
                "  recommendation [{}] {} {} (evidence: {})",
                r.key, r.problem, r.advice, r.evidence
            ));
        }
    }
    for tab in &t.tables {
        out.push(format!(
            "table {} ({}): {} rows × {} columns",
            tab.section,
            tab.kind.key(),
            tab.rows.len(),
            tab.columns.len()
        ));
    }
    if out.is_empty() {
        out.push("no GPU streams and no DLProf tables: the dashboard does not apply".into());
    }
    out
}
