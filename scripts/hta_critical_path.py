#!/usr/bin/env python3
"""Reference numbers for `loupe critical-path` from Holistic Trace Analysis itself.

Runs HTA 0.5.0's `critical_path_analysis(rank, annotation, instance_id)` and `summary()` on the
shared critical-path samples (the traces HTA's own tests use, with the annotation / instance its
tests pass, and a few more shared Kineto traces) and prints, per sample, the path length (sum of the critical edges' weights, µs), the
number of nodes and edges on the path, and `summary()` (percent of the path by bound type).
`core/tests/critical_path.rs` holds these numbers as golden values.

Environment (HTA's critical path breaks with newer pandas):
    python3 -m venv /work/venv-hta
    /work/venv-hta/bin/pip install holistictraceanalysis==0.5.0 "pandas<2.3" "numpy<2.3"
    /work/venv-hta/bin/python scripts/hta_critical_path.py [../shared/samples/pytorch-kineto]
    /work/venv-hta/bin/python scripts/hta_critical_path.py --case FILE ANNOTATION INSTANCE
        (any one trace; ANNOTATION "" = the whole rank, INSTANCE "None" = HTA's default)

HTA's environment knobs are left at their defaults (no zero-weight launch edges, negative
weights of −1 zeroed).
"""

import contextlib
import io
import json
import warnings
import logging
import os
import shutil
import sys
import tempfile

from hta.analyzers.critical_path_analysis import CPEdgeType
from hta.trace_analysis import TraceAnalysis

ALEX = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
# (sample file, annotation, instance id) — as in HTA's tests/test_critical_path_analysis.py
CASES = [
    ("hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz", ALEX, 1),
    ("hta__critical_path_end_to_end_simple_add_output_overlaid_critical_path_trace.json.gz", ALEX, 1),
    ("hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", "", None),
    # ns-resolution timestamps (HTA's test_ns_resolution_trace: ProfilerStep, instance 1)
    ("hta__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "ProfilerStep", 1),
    # two more shared Kineto traces, one iteration each (not from HTA's critical-path tests)
    ("hta__trace_filter_sampled_rank-0.json.gz", "ProfilerStep", 0),
    ("hta__nccl_parser_config_nccl_data.json.gz", "ProfilerStep", 1),
    # a rank-1 file (distributedInfo) of 216k events
    ("hta__df_index_resolver_df_index_resolver.json.gz", "ProfilerStep", 0),
]


def run(path, annotation, instance):
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(path, tmp)
        ta = TraceAnalysis(trace_dir=tmp)
        rank = ta.t.get_ranks()[0]  # the one file's rank (distributedInfo)
        cp, ok = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=instance)
        edges = list(cp.critical_path_edges_set)
        with contextlib.redirect_stdout(io.StringIO()):  # summary() prints a title
            summary = cp.summary()
        by_type = {}
        for e in edges:
            by_type[e.type.value] = by_type.get(e.type.value, 0) + 1
        # the path's length as the longest-path search saw it (graph weights, −1 zeroed) and as
        # summary() sums it (the edges' own weights)
        graph_len = sum(cp.edges[e.begin, e.end]["weight"] for e in edges)
        edf = cp.get_critical_path_breakdown()
        top = edf.sort_values("duration", ascending=False).head(5)
        return {
            "ok": bool(ok),
            "path_us": int(graph_len),
            "summary_total_us": int(edf.duration.sum()),
            "nodes": len(cp.critical_path_nodes),
            "edges": len(edges),
            "graph_nodes": cp.number_of_nodes(),
            "graph_edges": cp.number_of_edges(),
            "edge_types": by_type,
            "summary_percent": {str(k): round(float(v), 4) for k, v in summary.items()},
            "summary_us": {str(k): int(v) for k, v in edf.groupby("bound_by").duration.sum().items()},
            "longest": [[str(r.s_name), str(r.bound_by), int(r.duration)] for r in top.itertuples()],
            "start_ts_us": int(cp.node_list[cp.critical_path_nodes[0]].ts),
            "end_ts_us": int(cp.node_list[cp.critical_path_nodes[-1]].ts),
        }
    finally:
        shutil.rmtree(tmp)


def main():
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    if len(sys.argv) == 5 and sys.argv[1] == "--case":
        inst = None if sys.argv[4] == "None" else int(sys.argv[4])
        json.dump(run(sys.argv[2], sys.argv[3], inst), sys.stdout, indent=1)
        print()
        return
    root = sys.argv[1] if len(sys.argv) > 1 else "../shared/samples/pytorch-kineto"
    out = {}
    for name, ann, inst in CASES:
        out[name] = run(os.path.join(root, name), ann, inst)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
