//! HTA's critical path (`analysis::critical_path`) against HTA 0.5.0 itself on the traces HTA's own
//! tests use (the `hta__critical_path_*` shared samples, with the annotation / instance of HTA's
//! `tests/test_critical_path_analysis.py`).
//!
//! Golden values: printed by `scripts/hta_critical_path.py` (holistictraceanalysis 0.5.0,
//! pandas 2.2.3, networkx 3.6.1, default HTA environment): path length, nodes and edges on the
//! path, the whole graph's size, and `summary()` in percent (to 0.1 pp here).

use std::path::Path;

use loupe_core::analysis::critical_path::{critical_path, BoundBy, CriticalPathOptions, EdgeKind};
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::Trace;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");
const ALEX: &str = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

fn sample(name: &str) -> Trace {
    let path = Path::new(SAMPLES).join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{} must exist: {e}", path.display()));
    import_bytes(name, &bytes, &mut NoProgress).expect("sample loads")
}

struct Golden {
    total_us: i64,
    nodes: usize,
    edges: usize,
    graph_nodes: usize,
    graph_edges: usize,
    /// (edge type, count on the path)
    kinds: &'static [(EdgeKind, usize)],
    /// (class, µs, percent)
    bound: &'static [(BoundBy, i64, f64)],
}

fn check(file: &str, annotation: Option<&str>, instance: usize, g: &Golden) {
    let t = sample(file);
    let opts = CriticalPathOptions { rank: None, annotation: annotation.map(str::to_string), instance };
    let cp = critical_path(&t, &opts).expect("critical path");
    let kinds: Vec<(EdgeKind, usize)> =
        g.kinds.iter().map(|&(k, _)| (k, cp.edges.iter().filter(|e| e.kind == k).count())).collect();
    let bound: Vec<(BoundBy, i64, f64)> =
        cp.bound_by.iter().map(|b| (b.bound_by, b.ns / 1000, b.percent)).collect();
    println!(
        "{file}: total {} ns, nodes {}, edges {}, graph {} / {}, kinds {kinds:?}, bound {bound:?}",
        cp.total_ns,
        cp.nodes,
        cp.edges.len(),
        cp.graph_nodes,
        cp.graph_edges
    );
    assert_eq!(cp.total_ns, g.total_us * 1000, "path length");
    assert_eq!((cp.graph_nodes, cp.graph_edges), (g.graph_nodes, g.graph_edges), "graph size");
    assert_eq!((cp.nodes, cp.edges.len()), (g.nodes, g.edges), "path size");
    assert_eq!(kinds, g.kinds.to_vec(), "edge types on the path");
    assert_eq!(kinds.iter().map(|k| k.1).sum::<usize>(), cp.edges.len(), "no other edge types");
    assert_eq!(bound.len(), g.bound.len(), "classes: {bound:?}");
    for (&(b, us, pct), &(gb, gus, gpct)) in bound.iter().zip(g.bound) {
        assert_eq!(b, gb);
        assert!((pct - gpct).abs() < 0.1, "{b:?}: {pct} % vs HTA {gpct} %");
        assert_eq!(us, gus, "{b:?} µs");
    }
    // the path's parts add up to its length
    let sum: i64 = cp.edges.iter().map(|e| e.weight_ns.max(0)).sum();
    assert_eq!(sum, cp.total_ns);
}

const SIMPLE_ADD: Golden = Golden {
    total_us: 241_724,
    nodes: 315,
    edges: 314,
    graph_nodes: 414,
    graph_edges: 415,
    kinds: &[
        (EdgeKind::Operator, 288),
        (EdgeKind::Dependency, 20),
        (EdgeKind::KernelKernelDelay, 5),
        (EdgeKind::KernelLaunchDelay, 1),
    ],
    bound: &[
        (BoundBy::CpuBound, 241_190, 99.7791),
        (BoundBy::GpuComputeBound, 508, 0.2102),
        (BoundBy::GpuKernelLaunchOverhead, 17, 0.007),
        (BoundBy::GpuKernelKernelOverhead, 9, 0.0037),
    ],
};

#[test]
fn simple_add_matches_hta() {
    check(
        "hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz",
        Some(ALEX),
        1,
        &SIMPLE_ADD,
    );
}

/// The same trace as written back by HTA's overlay (its `critical_path` flow events added): the
/// extra flows must not change anything.
#[test]
fn overlaid_trace_matches_hta() {
    check(
        "hta__critical_path_end_to_end_simple_add_output_overlaid_critical_path_trace.json.gz",
        Some(ALEX),
        1,
        &SIMPLE_ADD,
    );
}

#[test]
fn event_sync_multi_stream_matches_hta() {
    check(
        "hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz",
        None,
        0,
        &Golden {
            total_us: 1178,
            nodes: 59,
            edges: 58,
            graph_nodes: 78,
            graph_edges: 82,
            kinds: &[
                (EdgeKind::Operator, 52),
                (EdgeKind::Dependency, 4),
                (EdgeKind::KernelLaunchDelay, 1),
                (EdgeKind::KernelKernelDelay, 1),
            ],
            bound: &[
                (BoundBy::CpuBound, 1025, 87.0119),
                (BoundBy::GpuComputeBound, 124, 10.5263),
                (BoundBy::GpuKernelLaunchOverhead, 14, 1.1885),
                (BoundBy::GpuKernelKernelOverhead, 15, 1.2733),
            ],
        },
    );
}

/// Sub-µs timestamps: HTA rounds them (in float64) to whole µs before anything else.
#[test]
fn ns_resolution_matches_hta() {
    check(
        "hta__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        Some("ProfilerStep"),
        1,
        &Golden {
            total_us: 95_735,
            nodes: 2438,
            edges: 2437,
            graph_nodes: 11_228,
            graph_edges: 11_224,
            kinds: &[(EdgeKind::Operator, 1219), (EdgeKind::KernelKernelDelay, 1218)],
            bound: &[
                (BoundBy::GpuComputeBound, 93_692, 97.866),
                (BoundBy::GpuKernelKernelOverhead, 2043, 2.134),
            ],
        },
    );
}

#[test]
fn sampled_iteration_matches_hta() {
    check("hta__trace_filter_sampled_rank-0.json.gz", Some("ProfilerStep"), 0, &SAMPLED);
}

/// The whole rank: HTA drops the last ProfilerStep (and what the CPU did from its start) when it
/// loads the trace, so this is the same path as the first step's (checked with
/// `scripts/hta_critical_path.py --case … "" None`).
#[test]
fn sampled_whole_rank_matches_hta() {
    check("hta__trace_filter_sampled_rank-0.json.gz", None, 0, &SAMPLED);
}

const SAMPLED: Golden = Golden {
    total_us: 267_581,
    nodes: 1778,
    edges: 1777,
    graph_nodes: 4734,
    graph_edges: 4731,
    kinds: &[
        (EdgeKind::Operator, 1666),
        (EdgeKind::Dependency, 108),
        (EdgeKind::KernelLaunchDelay, 1),
        (EdgeKind::KernelKernelDelay, 2),
    ],
    bound: &[
        (BoundBy::CpuBound, 266_597, 99.6323),
        (BoundBy::GpuComputeBound, 948, 0.3543),
        (BoundBy::GpuKernelLaunchOverhead, 6, 0.0022),
        (BoundBy::GpuKernelKernelOverhead, 30, 0.0112),
    ],
};

#[test]
fn nccl_iteration_matches_hta() {
    check(
        "hta__nccl_parser_config_nccl_data.json.gz",
        Some("ProfilerStep"),
        1,
        &Golden {
            total_us: 101_398,
            nodes: 6146,
            edges: 6145,
            graph_nodes: 15_600,
            graph_edges: 15_597,
            kinds: &[(EdgeKind::Operator, 5730), (EdgeKind::Dependency, 415)],
            bound: &[(BoundBy::CpuBound, 101_398, 100.0)],
        },
    );
}

#[test]
fn window_errors_are_typed() {
    use loupe_core::analysis::critical_path::CriticalPathError;
    let t = sample("hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz");
    let o = |a: &str, i: usize, r: Option<i64>| CriticalPathOptions {
        rank: r,
        annotation: Some(a.to_string()),
        instance: i,
    };
    assert_eq!(
        critical_path(&t, &o("no such name", 0, None)),
        Err(CriticalPathError::NoAnnotation("no such name".into()))
    );
    assert!(matches!(
        critical_path(&t, &o("aten::mm", 99, None)),
        Err(CriticalPathError::NoInstance { count: 3, .. })
    ));
    assert_eq!(critical_path(&t, &o("", 0, Some(7))), Err(CriticalPathError::NoSuchRank(7)));
}

/// A rank-1 file (`distributedInfo.rank`), 216k events.
#[test]
fn rank_one_iteration_matches_hta() {
    check(
        "hta__df_index_resolver_df_index_resolver.json.gz",
        Some("ProfilerStep"),
        0,
        &Golden {
            total_us: 238_893,
            nodes: 24_052,
            edges: 24_051,
            graph_nodes: 45_084,
            graph_edges: 45_081,
            kinds: &[(EdgeKind::Operator, 23_646), (EdgeKind::Dependency, 405)],
            bound: &[(BoundBy::CpuBound, 238_893, 100.0)],
        },
    );
}
