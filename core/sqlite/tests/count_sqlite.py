#!/usr/bin/env python3
"""Independent count of what Loupe should show for an Nsight Systems SQLite export or a DLProf
database, with Python's own sqlite3 (not Loupe's SQLite reader), by the definitions of issue 12:

- nsys: one slice per kernel, memcpy, memset, CUDA API call (runtime + driver), OS runtime call,
  NVTX range that has an end, synchronization row and profiler-overhead row.
- dlprof: one slice per op instance, kernel, memcpy, memset and iteration.

Prints one JSON object: format, slices, flows (GPU rows whose correlation/api start has a
launch), first_start_ns, last_end_ns, and a few exact values.
Usage: count_sqlite.py FILE
"""
import json
import sqlite3
import sys


def tables(c):
    return {r[0].lower(): r[0] for r in c.execute("select name from sqlite_master where type='table'")}


def count(c, t, where=""):
    return c.execute(f'select count(*) from "{t}" {where}').fetchone()[0]


def nsys(c, T):
    out = {"format": "nsys-sqlite"}
    rows = [  # (table, where)
        ("cupti_activity_kind_kernel", ""),
        ("cupti_activity_kind_memcpy", ""),
        ("cupti_activity_kind_memset", ""),
        ("cupti_activity_kind_runtime", ""),
        ("osrt_api", ""),
        ("nvtx_events", "where end is not null"),
        ("cupti_activity_kind_synchronization", ""),
        ("profiler_overhead", ""),
    ]
    n, starts, ends = 0, [], []
    for t, w in rows:
        if t in T:
            n += count(c, T[t], w)
            s, e = c.execute(f'select min(start), max(end) from "{T[t]}" {w}').fetchone()
            if s is not None:
                starts.append(s)
                ends.append(e)
    out["slices"] = n
    out["first_start_ns"] = min(starts)
    out["last_end_ns"] = max(ends)
    # launches: GPU rows with a runtime row of the same correlationId in the same process
    flows = 0
    for t in ("cupti_activity_kind_kernel", "cupti_activity_kind_memcpy", "cupti_activity_kind_memset"):
        if t in T and "cupti_activity_kind_runtime" in T:
            flows += c.execute(
                f'select count(*) from "{T[t]}" g where exists (select 1 from "{T["cupti_activity_kind_runtime"]}" r '
                "where r.correlationId = g.correlationId and (r.globalTid >> 24) = (g.globalPid >> 24))"
            ).fetchone()[0]
    out["flows"] = flows
    k = c.execute(
        f'select s.value, k.end - k.start, k.gridX, k.blockX, k.registersPerThread from "{T["cupti_activity_kind_kernel"]}" k '
        "join StringIds s on s.id = k.demangledName order by k.start limit 1"
    ).fetchone()
    out["first_kernel"] = {"name": k[0], "dur_ns": k[1], "grid_x": k[2], "block_x": k[3], "registers": k[4]}
    out["memcpy_bytes"] = c.execute(f'select coalesce(sum(bytes), 0) from "{T["cupti_activity_kind_memcpy"]}"').fetchone()[0]
    return out


def dlprof(c, T):
    out = {"format": "dlprof-sqlite"}
    n = count(c, T["read_only_op_instances"])
    starts = [c.execute('select min(cpu_start), max(cpu_stop) from read_only_op_instances').fetchone()]
    for t in ("read_only_kernels", "read_only_memcpys", "read_only_memsets"):
        n += count(c, T[t])
        starts.append(c.execute(f"select min(gpu_start), max(gpu_stop) from {t}").fetchone())
    n += count(c, T["iteration_list"])
    starts.append(c.execute("select min(start_time), max(stop_time) from iteration_list").fetchone())
    out["slices"] = n
    out["first_start_ns"] = min(s for s, _ in starts if s is not None)
    out["last_end_ns"] = max(e for _, e in starts if e is not None)
    k = c.execute(
        "select d.string, k.gpu_stop - k.gpu_start from read_only_kernels k join dictionary d on d.id = k.name_id "
        "order by k.gpu_start limit 1"
    ).fetchone()
    out["first_kernel"] = None if k is None else {"name": k[0], "dur_ns": k[1]}
    out["memcpy_bytes"] = c.execute("select coalesce(sum(num_bytes), 0) from read_only_memcpys").fetchone()[0]
    out["op_nodes"] = count(c, T["op_nodes"])
    out["gpu_name"] = c.execute("select gpu_name from read_only_gpu_infos").fetchone()[0]
    return out


def main():
    c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    T = tables(c)
    if "read_only_ops" in T:
        print(json.dumps(dlprof(c, T)))
    else:
        print(json.dumps(nsys(c, T)))


if __name__ == "__main__":
    main()
