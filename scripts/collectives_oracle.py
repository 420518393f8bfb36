#!/usr/bin/env python3
"""An independent count of the collectives of a multi-rank Kineto job, for `core/tests/ranks.rs`.

Reads the trace JSON itself (no Loupe, no HTA): a rank per file (`distributedInfo.rank`, else the
file's position); its collective kernels are the events with `cat` "kernel" whose name matches
`^nccl.*Kernel` (HTA's communication rule; every kernel Loupe's default rules call communication
in the shared pair matches it too). An instance is (process group — the `Process Group Name`
argument or none —, name, k): the k-th such kernel of that group and name on a rank in `ts` order
across streams. Times are read from the decimal text (exact ns). Per instance: the ranks that have
it, start skew = latest start − earliest start, duration min / median (the middle one, or the floor
of the mean of the two middle ones) / max, the rank that started last (lowest among equals; none
when the skew is 0). Stragglers over the instances every rank with that key has (two or more
ranks): times last, mean lateness (start − earliest start) to the nearest ns.

  python3 scripts/collectives_oracle.py RANK0.json.gz RANK1.json.gz [...]
"""

import gzip
import json
import re
import sys
from decimal import Decimal

NCCL = re.compile(r"^nccl.*Kernel")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal, parse_int=Decimal)


def ns(x):
    return int(Decimal(x) * 1000)


def main(paths):
    docs = [load(p) for p in paths]
    infos = [d.get("distributedInfo", {}).get("rank") for d in docs]
    ranks = [int(r) for r in infos] if all(r is not None for r in infos) and len(set(infos)) == len(infos) else list(range(len(docs)))
    per_key = {}  # (pg, name) -> {rank: [(start, dur)]}
    for rank, d in zip(ranks, docs):
        for e in d["traceEvents"]:
            if e.get("cat") != "kernel" or e.get("ph") != "X" or not NCCL.match(e.get("name", "")):
                continue
            pg = (e.get("args") or {}).get("Process Group Name")
            per_key.setdefault((pg, e["name"]), {}).setdefault(rank, []).append((ns(e["ts"]), ns(e.get("dur", 0))))
    instances = []
    for (pg, name), by_rank in per_key.items():
        for v in by_rank.values():
            v.sort()
        expected = sorted(by_rank)
        for k in range(max(len(v) for v in by_rank.values())):
            arr = [(r, by_rank[r][k]) for r in expected if k < len(by_rank[r])]
            starts = [s for _, (s, _) in arr]
            durs = sorted(d for _, (_, d) in arr)
            n = len(durs)
            median = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) // 2
            skew = max(starts) - min(starts)
            last = min(r for r, (s, _) in arr if s == max(starts)) if skew > 0 else None
            instances.append({
                "name": name, "process_group": pg, "seq": k, "ranks": [r for r, _ in arr],
                "complete": len(arr) == len(expected) and len(arr) >= 2,
                "first_start_ns": min(starts), "start_skew_ns": skew,
                "dur_min_ns": durs[0], "dur_median_ns": median, "dur_max_ns": durs[-1], "last_rank": last,
                "lateness": {r: s - min(starts) for r, (s, _) in arr},
            })
    instances.sort(key=lambda c: (c["first_start_ns"], c["name"], c["seq"]))
    stragglers = []
    for r in sorted(ranks):
        done = [c for c in instances if c["complete"] and r in c["ranks"]]
        total = sum(c["lateness"][r] for c in done)
        mean = (2 * total + len(done)) // (2 * len(done)) if done else 0
        stragglers.append({"rank": r, "last_count": sum(c["last_rank"] == r for c in done), "mean_lateness_ns": mean})
    print(f"collectives: {len(instances)}")
    for c in instances:
        print(f'({c["seq"]}, {c["start_skew_ns"]}, {c["dur_min_ns"]}, {c["dur_median_ns"]}, {c["dur_max_ns"]}, {c["last_rank"]}),  # {c["name"][:40]} ranks {c["ranks"]}')
    for s in stragglers:
        print(f'straggler rank {s["rank"]}: last {s["last_count"]}, mean lateness {s["mean_lateness_ns"]} ns')


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
