#!/usr/bin/env python3
"""Independent slice count of Chrome trace JSON files (the golden counts of
core/tests/chrome_samples.rs), sharing no code with Loupe's importer.

A slice, by the Trace Event Format: every complete event (ph X), every duration begin (ph B: closed
by its E, or by the end of the trace), every async begin (ph b nestable, ph S legacy), each counted
once. An event without a numeric `ts` is not an event. Files may be gzip or zip (first member), and
may be damaged the ways the samples are (a missing closing bracket, a trailing or leading comma, a
cut mid-event): the events are read one at a time with `raw_decode`, and a cut event is dropped.

Usage: chrome_count.py FILE...  →  one JSON object per file: {"file", "slices", "events"}
"""
import io
import json
import sys
import zipfile
import zlib

SLICE_PHASES = {"X", "B", "b", "S"}


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        # everything that decompresses, also from a truncated gzip (zlib's streaming decoder
        # returns what it has instead of raising at the cut)
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = d.decompress(raw)
        while d.eof and d.unused_data[:2] == b"\x1f\x8b":  # concatenated members
            rest = d.unused_data
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += d.decompress(rest)
        raw = out
    elif raw[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            raw = z.read(z.namelist()[0])
    return raw.decode("utf-8", errors="replace")


def events_array(text):
    """The text of the events array: a top-level array, or the `traceEvents` value."""
    s = text.lstrip()
    if s.startswith("["):
        return s
    i = s.find('"traceEvents"')
    if i < 0:
        return ""
    j = s.find("[", i)
    return s[j:] if j >= 0 else ""


def iter_events(arr):
    dec = json.JSONDecoder()
    i, n = 1, len(arr)
    while i < n:
        while i < n and arr[i] in " \t\r\n,":
            i += 1
        if i >= n or arr[i] == "]":
            return
        try:
            v, i = dec.raw_decode(arr, i)
        except json.JSONDecodeError:
            return  # cut mid-event: the rest is gone
        yield v


def count(path):
    slices = events = 0
    for e in iter_events(events_array(read(path))):
        if not isinstance(e, dict):
            continue
        events += 1
        ts = e.get("ts")
        if e.get("ph") in SLICE_PHASES and isinstance(ts, (int, float)) and not isinstance(ts, bool):
            slices += 1
    return {"file": path, "slices": slices, "events": events}


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(count(p)))
