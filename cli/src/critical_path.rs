//! `loupe critical-path`: HTA 0.5.0's critical path of one rank's window
//! (`loupe_core::analysis::critical_path`), as JSON or text.

use loupe_core::analysis::critical_path::{critical_path, CriticalPath, CriticalPathOptions};
use loupe_core::Trace;

/// Edges listed under "longest".
const LONGEST: usize = 10;

pub fn compute(t: &Trace, o: &CriticalPathOptions) -> Result<CriticalPath, String> {
    critical_path(t, o).map_err(|e| e.to_string())
}

fn name_of(t: &Trace, cp: &loupe_core::analysis::critical_path::PathEdge) -> String {
    // the edge's own event, else (launch / sync edges) the event it leads to
    let s = cp.event.unwrap_or(cp.to);
    let tr = t.track(s.track);
    tr.slices.name.get(s.index as usize).map(|&n| t.str(n).to_string()).unwrap_or_default()
}

pub fn json(file: &str, t: &Trace, cp: &CriticalPath) -> serde_json::Value {
    let bound: serde_json::Map<String, serde_json::Value> =
        cp.bound_by.iter().map(|b| (b.bound_by.key().to_string(), serde_json::json!(b.percent))).collect();
    let longest: Vec<serde_json::Value> = cp
        .longest_edges(LONGEST)
        .into_iter()
        .map(|e| {
            serde_json::json!({
                "name": name_of(t, e),
                "type": e.kind.hta_name(),
                "bound_by": e.bound_by.key(),
                "dur_ns": e.weight_ns,
            })
        })
        .collect();
    serde_json::json!({
        "file": file,
        "rank": cp.rank,
        "window_start_ns": cp.window_start_ns,
        "window_end_ns": cp.window_end_ns,
        "total_ns": cp.total_ns,
        "nodes": cp.nodes,
        "edges": cp.edges.len(),
        "graph_nodes": cp.graph_nodes,
        "graph_edges": cp.graph_edges,
        "bound_by": bound,
        "longest": longest,
    })
}

pub fn text_report(t: &Trace, cp: &CriticalPath) -> Vec<String> {
    let mut v = vec![
        format!(
            "rank {}: critical path {:.3} ms over {} nodes / {} edges (graph: {} nodes, {} edges)",
            cp.rank,
            cp.total_ns as f64 / 1e6,
            cp.nodes,
            cp.edges.len(),
            cp.graph_nodes,
            cp.graph_edges
        ),
        "bound by:".to_string(),
    ];
    for b in &cp.bound_by {
        v.push(format!("  {:<28} {:>8.3} %  {:>12} ns", b.bound_by.key(), b.percent, b.ns));
    }
    v.push("longest edges:".to_string());
    for e in cp.longest_edges(LONGEST) {
        v.push(format!("  {:>12} ns  {:<34} {}", e.weight_ns, e.kind.hta_name(), name_of(t, e)));
    }
    v
}
