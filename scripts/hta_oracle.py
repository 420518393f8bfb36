#!/usr/bin/env python3
"""HTA parity check: Holistic Trace Analysis (the oracle) against `loupe analyze --json`.

For every Kineto sample HTA can read (../shared/samples/pytorch-kineto, plus the multi-rank pair
trace_filter_sampled_rank-{0,1} loaded together), runs HTA's `get_temporal_breakdown` and
`get_gpu_kernel_breakdown(include_memory_kernels=True)`, `get_comm_comp_overlap` and
`get_idle_time_breakdown` and compares, rank by rank:
  - idle / compute / non-compute %  within 1 percentage point, comm/comp overlap % within 1 pp,
  - idle time per category (host wait / kernel wait / other, summed over streams) within 5 %,
  - kernel-type totals (COMPUTATION / MEMORY / COMMUNICATION) within 5 % (or 1 µs when tiny).
Prints the table and the files HTA itself fails on (or finds no GPU kernels in). Exit status 1 when
a file HTA reads disagrees, 0 otherwise.

  python3 -m venv /work/venv-hta && /work/venv-hta/bin/pip install holistictraceanalysis
  cargo build --release -p loupe-cli
  /work/venv-hta/bin/python scripts/hta_oracle.py [--loupe target/release/loupe] [FILE ...]
"""

import argparse
import glob
import json
import logging
import os
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SAMPLES = os.environ.get("LOUPE_SAMPLES", os.path.join(REPO, "..", "shared", "samples"))
PCT_TOL = 1.0
TYPE_TOL = 0.05


def hta(files):
    """HTA's numbers for one job (files = {rank: path}) or raises."""
    from hta.configs.config import logger as hta_logger
    from hta.trace_analysis import TraceAnalysis

    hta_logger.setLevel(logging.ERROR)
    ta = TraceAnalysis(trace_files=files, trace_dir="/")
    tb = ta.get_temporal_breakdown(visualize=False)
    kt, _ = ta.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
    ranks = {}
    for _, r in tb.iterrows():
        ranks[int(r["rank"])] = {
            "idle_pct": float(r["idle_time_pctg"]),
            "compute_pct": float(r["compute_time_pctg"]),
            "non_compute_pct": float(r["non_compute_time_pctg"]),
            "kernel_us": float(r["kernel_time(us)"]),
        }
    types = {str(r["kernel_type"]): float(r["sum"]) for _, r in kt.iterrows()}
    for _, r in ta.get_comm_comp_overlap(visualize=False).iterrows():
        ranks[int(r["rank"])]["overlap_pct"] = float(r["comp_comm_overlap_pctg"])
    for rank in ranks:
        idle, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
        cats = idle.groupby("idle_category")["idle_time"].sum()
        ranks[rank]["idle_us"] = {k: float(cats.get(k, 0.0)) for k in ("host_wait", "kernel_wait", "other")}
    return ranks, types


def loupe(binary, paths):
    out = subprocess.run([binary, "analyze", *paths, "--json", "--definitions", "hta"], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"exit {out.returncode}")
    return json.loads(out.stdout)


def rank_of(path):
    """The rank HTA gives a file: `"rank": N` in its text, else 0."""
    import gzip
    import re

    opener = gzip.open if path.endswith("gz") else open
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            m = re.search(r'"rank":\s+(\d+)', line)
            if m:
                return int(m.group(1))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "loupe"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(a.loupe):
        print(f"skipping: no loupe binary at {a.loupe} (cargo build --release -p loupe-cli)")
        return 0
    if a.files:
        jobs = [[f] for f in a.files]
    else:
        d = os.path.join(SAMPLES, "pytorch-kineto")
        if not os.path.isdir(d):
            print(f"skipping: {d} absent")
            return 0
        files = sorted(glob.glob(os.path.join(d, "*.json.gz")))
        jobs = [[f] for f in files]
        pair = [os.path.join(d, f"hta__trace_filter_sampled_rank-{r}.json.gz") for r in (0, 1)]
        if all(os.path.exists(p) for p in pair):
            jobs.append(pair)

    rows, failures, bad = [], [], 0
    for job in jobs:
        label = " + ".join(os.path.basename(p) for p in job)
        try:
            h_ranks, h_types = hta({rank_of(p): p for p in job})
        except Exception as e:  # HTA's own failure: listed, not a loupe failure
            failures.append((label, f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}"))
            continue
        try:
            l = loupe(a.loupe, job)
        except Exception as e:
            rows.append((label, "-", "loupe failed: " + str(e)[:120], False))
            bad += 1
            continue
        tb = l.get("temporal_breakdown")
        if not isinstance(tb, dict) or "ranks" not in tb:
            rows.append((label, "-", f"loupe: no temporal breakdown ({l.get('temporal_breakdown_unavailable')})", False))
            bad += 1
            continue
        l_ranks = {r["rank"]: r for r in tb["ranks"]}
        for rank, h in sorted(h_ranks.items()):
            r = l_ranks.get(rank)
            if r is None:
                rows.append((label, rank, "rank missing in loupe", False))
                bad += 1
                continue
            d = [abs(r[k] - h[k]) for k in ("idle_pct", "compute_pct", "non_compute_pct")]
            ok = all(x <= PCT_TOL for x in d)
            txt = (
                f"idle {r['idle_pct']:6.2f}/{h['idle_pct']:6.2f}  compute {r['compute_pct']:6.2f}/{h['compute_pct']:6.2f}"
                f"  non-compute {r['non_compute_pct']:6.2f}/{h['non_compute_pct']:6.2f}  span µs {r['kernel_ns'] / 1000:.0f}/{h['kernel_us']:.0f}"
            )
            rows.append((label, rank, txt, ok))
            bad += not ok
            # communication-computation overlap (NaN in HTA = no communication = null here)
            lo = next((o for o in l.get("comm_comp_overlap", []) if o["rank"] == rank), None)
            ho = h.get("overlap_pct")
            if lo is not None and ho is not None:
                both_none = lo["overlap_pct"] is None and ho != ho
                ok = both_none or (lo["overlap_pct"] is not None and abs(lo["overlap_pct"] - ho) <= PCT_TOL)
                rows.append((label, rank, f"comm/comp overlap % {lo['overlap_pct']}/{ho:.2f}", ok))
                bad += not ok
            # idle breakdown per category, summed over streams
            li = [s for s in l.get("idle_breakdown", []) if s["rank"] == rank]
            if "idle_us" in h:
                parts, ok = [], True
                for cat in ("host_wait", "kernel_wait", "other"):
                    lv, hv = sum(s[cat + "_ns"] for s in li) / 1000, h["idle_us"][cat]
                    good = abs(lv - hv) <= max(TYPE_TOL * abs(hv), 1.0)
                    ok &= good
                    parts.append(f"{cat} {lv:.0f}/{hv:.0f}{'' if good else ' !'}")
                rows.append((label, rank, "idle µs " + "  ".join(parts), ok))
                bad += not ok
        l_types = {t["type"]: t["total_ns"] / 1000 for t in l.get("kernel_types", [])}
        parts, ok = [], True
        for k in ("COMPUTATION", "MEMORY", "COMMUNICATION"):
            hv, lv = h_types.get(k, 0.0), l_types.get(k, 0.0)
            good = abs(lv - hv) <= max(TYPE_TOL * hv, 1.0)
            ok &= good
            parts.append(f"{k[:4]} {lv:.0f}/{hv:.0f}{'' if good else ' !'}")
        rows.append((label, "all", "kernel types µs (loupe/HTA): " + "  ".join(parts), ok))
        bad += not ok

    print(f"{'file':<78} {'rank':>4}  loupe/HTA")
    for label, rank, txt, ok in rows:
        print(f"{label[:78]:<78} {str(rank):>4}  {'ok ' if ok else 'BAD'} {txt}")
    if failures:
        print("\nHTA fails on (not compared):")
        for label, why in failures:
            print(f"  {label}: {why}")
    print(f"\n{len(rows) - bad} of {len(rows)} comparisons within tolerance (±{PCT_TOL} pp, ±{TYPE_TOL:.0%})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
