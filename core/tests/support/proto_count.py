#!/usr/bin/env python3
"""Independent counts of Perfetto protobuf traces and XProf XSpace files, for the golden tests.

A pure-Python protobuf wire-format walker (no `protobuf` package, no generated code): field
numbers written out from perfetto's trace_packet.proto / track_event.proto / track_descriptor.proto
and tsl's xplane.proto. It shares no code with Loupe's importers.

    proto_count.py FILE...   -> one JSON object per line:
    {"file", "format": "perfetto"|"xplane", "slices", "instants", "counter_samples",
     "start_ns", "end_ns", "error"}

Definitions (issue 12 §5):
- Perfetto: slices = TYPE_SLICE_BEGIN/END pairs matched per track in time order (legacy B/E,
  async b/e and S/F keyed by id + category) + legacy complete 'X' events + gpu_render_stage_events
  whose hardware queue is known; instants = TYPE_INSTANT, untyped events and legacy I/i/R/n;
  counter_samples = TYPE_COUNTER on a counter track + every extra counter value with a counter
  track. Packets flagged SEQ_NEEDS_INCREMENTAL_STATE on a sequence without valid state are dropped.
- XProf: every XEvent of every line of every plane is a slice.
"""
import json
import sys
import zlib


def varint(b, i):
    r = 0
    s = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i
        if s > 70:
            raise ValueError("varint too long")


def fields(b):
    """Yield (field, wire_type, value) of one message: ints for varint/fixed, bytes for LEN."""
    i = 0
    n = len(b)
    while i < n:
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            if i + 8 > n:
                raise ValueError("truncated fixed64")
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 5:
            if i + 4 > n:
                raise ValueError("truncated fixed32")
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        elif w == 2:
            ln, i = varint(b, i)
            if i + ln > n:
                raise ValueError("truncated length-delimited field")
            v = b[i:i + ln]
            i += ln
        else:
            raise ValueError("unsupported wire type %d" % w)
        yield f, w, v


def msg(b):
    """Field number -> list of values."""
    out = {}
    for f, _w, v in fields(b):
        out.setdefault(f, []).append(v)
    return out


def first(m, f, default=None):
    v = m.get(f)
    return v[-1] if v else default


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def packets(data):
    for f, w, v in fields(data):
        if f == 1 and w == 2:
            yield v


# ---------------------------------------------------------------- Perfetto

def perfetto(data):
    pk = []  # decoded packets in file order (compressed ones expanded in place)

    def expand(buf, depth):
        for raw in packets(buf):
            p = msg(raw)
            if 50 in p and depth < 2:
                for c in p[50]:
                    expand(zlib.decompress(c), depth + 1)
            pk.append(p)

    expand(data, 0)
    # pass 1: descriptors. uuid -> ('thread', pid, tid) | ('counter',) | ('other',)
    desc = {}
    for p in pk:
        if 60 not in p:
            continue
        d = msg(first(p, 60))
        uuid = first(d, 1)
        if uuid is None or uuid in desc:
            continue
        if 4 in d:
            t = msg(first(d, 4))
            desc[uuid] = ("thread", signed(first(t, 1, 0)), signed(first(t, 2, 0)))
        elif 8 in d:
            desc[uuid] = ("counter",)
        else:
            desc[uuid] = ("other",)

    def key_of(uuid):
        d = desc.get(uuid)
        if d and d[0] == "thread":
            return ("thread", d[1], d[2])
        if d and d[0] == "counter":
            return ("counter", uuid)
        return ("uuid", uuid)

    valid = {}
    defaults = {}  # seq -> (track_uuid, [extra int counter uuids], [extra double counter uuids])
    seq_thread = {}
    gpu_specs = {}  # seq -> set of iids
    evs = []  # (ts, order, key, kind)
    order = 0
    for p in pk:
        seq = first(p, 10, 0)
        flags = first(p, 13, 0)
        cleared = (flags & 1) or first(p, 41, 0)
        if first(p, 42, 0):
            valid[seq] = False
        if cleared:
            valid[seq] = True
            defaults.pop(seq, None)
            seq_thread.pop(seq, None)
            gpu_specs[seq] = set()
        if (flags & 2) and not valid.get(seq, False):
            continue
        if 59 in p:
            dm = msg(first(p, 59))
            te = msg(first(dm, 11)) if 11 in dm else {}
            defaults[seq] = (first(te, 11), te.get(31, []), te.get(45, []))
        if 44 in p:
            td = msg(first(p, 44))
            if 1 in td and 2 in td:
                seq_thread[seq] = (signed(first(td, 1)), signed(first(td, 2)))
        if 12 in p:
            idata = msg(first(p, 12))
            for s in idata.get(24, []):
                iid = first(msg(s), 1)
                if iid is not None:
                    gpu_specs.setdefault(seq, set()).add(iid)
        ts = first(p, 8)
        if 53 in p and ts is not None:
            g = msg(first(p, 53))
            q = first(g, 13)
            if q is None or q in gpu_specs.get(seq, set()):
                evs.append((ts, order, None, "complete"))
                order += 1
        if 11 not in p:
            continue
        e = msg(first(p, 11))
        if ts is None:
            if 16 in e or 1 in e:
                ts = 0  # legacy timing: only the order among these matters for the count
            else:
                continue
        dflt = defaults.get(seq, (None, [], []))
        uuid = first(e, 11) or dflt[0]
        legacy = msg(first(e, 6)) if 6 in e else None
        override = None
        if legacy is not None and 18 in legacy and 19 in legacy:
            override = ("thread", signed(first(legacy, 18)), signed(first(legacy, 19)))
        if override:
            key = override
        elif uuid:
            key = key_of(uuid)
        elif seq in seq_thread:
            key = ("thread",) + seq_thread[seq]
        else:
            key = ("seq", seq)
        typ = first(e, 9)
        kind = None
        if typ == 1:
            kind = "begin"
        elif typ == 2:
            kind = "end"
        elif typ == 3:
            kind = "instant"
        elif typ == 4:
            if key[0] == "counter":
                kind = "counter"
        elif typ is not None:
            kind = None
        elif legacy is not None:
            ph = chr(signed(first(legacy, 2, 0)) & 0xFF)
            cats = e.get(22, [])
            aid = first(legacy, 11, first(legacy, 6, first(legacy, 10, 0)))
            scope = key[1] if (10 in legacy and key[0] == "thread") else 0
            akey = ("async", scope, aid, tuple(cats), tuple(e.get(3, [])))
            kind = {"B": "begin", "E": "end", "X": "complete", "I": "instant", "i": "instant",
                    "R": "instant", "b": "begin", "S": "begin", "e": "end", "F": "end",
                    "n": "instant"}.get(ph)
            if ph in "bSeFn":
                key = akey
        else:
            kind = "instant"
        if kind:
            evs.append((ts, order, key, kind))
            order += 1
        # extra counters
        ints = e.get(31) or dflt[1]
        dbls = e.get(45) or dflt[2]
        nvals = len(e.get(12, []))
        ndvals = len(e.get(46, []))
        for i in range(nvals):
            if i < len(ints) and desc.get(ints[i], ("",))[0] == "counter":
                evs.append((ts, order, None, "counter"))
                order += 1
        for i in range(ndvals):
            if i < len(dbls) and desc.get(dbls[i], ("",))[0] == "counter":
                evs.append((ts, order, None, "counter"))
                order += 1
    evs.sort(key=lambda x: (signed(x[0]), x[1]))
    slices = instants = counters = 0
    stacks = {}
    for ts, _o, key, kind in evs:
        if kind == "begin":
            stacks.setdefault(key, []).append(ts)
        elif kind == "end":
            if stacks.get(key):
                stacks[key].pop()
                slices += 1
        elif kind == "complete":
            slices += 1
        elif kind == "instant":
            instants += 1
        elif kind == "counter":
            counters += 1
    return {"format": "perfetto", "slices": slices, "instants": instants, "counter_samples": counters}


# ---------------------------------------------------------------- XProf

def xplane(data):
    slices = 0
    start = None
    end = None
    first_name = None
    for f, w, plane in fields(data):
        if f != 1 or w != 2:
            continue
        p = msg(plane)
        names = {}
        for entry in p.get(4, []):  # map<int64, XEventMetadata>: {key = 1, value = 2}
            m = msg(entry)
            v = msg(first(m, 2, b""))
            names[signed(first(m, 1, 0))] = first(v, 2, b"").decode("utf-8", "replace")
        for line in p.get(3, []):
            ln = msg(line)
            base_ps = signed(first(ln, 3, 0)) * 1000
            for ev in ln.get(4, []):
                e = msg(ev)
                slices += 1
                s_ps = base_ps + signed(first(e, 2, 0))
                e_ps = s_ps + signed(first(e, 3, 0))
                s_ns, e_ns = s_ps // 1000, e_ps // 1000
                if start is None or s_ns < start:
                    start = s_ns
                    first_name = names.get(signed(first(e, 1, 0)))
                end = e_ns if end is None else max(end, e_ns)
    return {"format": "xplane", "slices": slices, "instants": 0, "counter_samples": 0,
            "start_ns": start, "end_ns": end, "first_name": first_name}


def main():
    for path in sys.argv[1:]:
        data = open(path, "rb").read()
        kind = "xplane" if path.endswith(".xplane.pb") else "perfetto"
        try:
            out = xplane(data) if kind == "xplane" else perfetto(data)
        except Exception as e:  # damaged input: say so, the test expects an error from Loupe
            out = {"format": kind, "error": str(e)}
        out["file"] = path
        print(json.dumps(out))


if __name__ == "__main__":
    main()
