//! Browser benchmarks of loupe-core, compiled to wasm32 and driven from headless Chromium by
//! `tests/bench/browser-bench.mjs`. Every function runs synchronously on the calling (page) thread,
//! times itself with `performance.now()` and returns its numbers as a JSON string.
//!
//! Inputs are generated inside wasm memory (wasm32 has at most 4 GiB): generate, time, drop.

use loupe_core::import::chrome::synth;
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::lod::{self, LodItem};
use loupe_core::model::synth::nested_trace;
use loupe_core::neuron::ntff::{self, writer};
use loupe_core::Trace;
use serde_json::json;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

thread_local! {
    /// The trace the frame benchmark paints (built by `lod_build` or imported by `import_file`).
    static CURRENT: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

fn now() -> f64 {
    // the global's performance: the page's (window) or a worker's
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap_or(JsValue::UNDEFINED);
    perf.unchecked_into::<web_sys::Performance>().now()
}

fn median(v: &[f64]) -> f64 {
    percentile(v, 50.0)
}

/// Nearest-rank percentile.
fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Bytes of wasm linear memory (its high-water mark: wasm memory never shrinks).
#[wasm_bindgen]
pub fn memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64
}

fn bytes_per_slice(tr: &Trace) -> (f64, f64) {
    let n = tr.slice_count().max(1) as f64;
    let columns: usize = tr.tracks.iter().map(|t| t.slices.heap_bytes()).sum();
    (tr.heap_bytes() as f64 / n, columns as f64 / n)
}

/// Generate a Kineto-like Chrome JSON of about `mb` MB (10^6 bytes) and time `import_bytes` on it
/// `runs` times.
#[wasm_bindgen]
pub fn json_import(mb: u32, runs: u32) -> String {
    let t = now();
    let bytes = synth::chrome_trace_json(mb as usize * 1_000_000, 42);
    let gen_ms = now() - t;
    let events = bytes.windows(5).filter(|w| w == b"\"ph\":").count();
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        drop(last.take());
        let t = now();
        let tr = import_bytes("synthetic.json", &bytes, &mut NoProgress).expect("import");
        times.push(now() - t);
        last = Some(tr);
    }
    let tr = last.expect("one run");
    let (heap, cols) = bytes_per_slice(&tr);
    let mbytes = bytes.len() as f64 / 1e6;
    json!({
        "mb": mbytes, "events": events, "slices": tr.slice_count(), "gen_ms": gen_ms,
        "times_ms": times, "min_ms": min(&times), "median_ms": median(&times),
        "mbps_best": mbytes / min(&times) * 1e3, "mbps_median": mbytes / median(&times) * 1e3,
        "events_per_s_best": events as f64 / min(&times) * 1e3,
        "bytes_per_slice": heap, "column_bytes_per_slice": cols,
        "wasm_memory_mb": memory_bytes() / 1e6,
    })
    .to_string()
}

/// Generate an NTFF v5 capture with about `mb` MB of records and time `ntff::parse` `runs` times.
#[wasm_bindgen]
pub fn ntff_decode(mb: u32, runs: u32) -> String {
    let t = now();
    let bytes = writer::write(&writer::synthetic_capture(mb as u64));
    let gen_ms = now() - t;
    let mut times = Vec::new();
    let mut stats = None;
    for _ in 0..runs.max(1) {
        let t = now();
        let n = ntff::parse(&bytes).expect("parse");
        times.push(now() - t);
        stats = Some((
            n.stats.record_area_bytes,
            n.instructions.len(),
            n.dma_packets.len(),
            n.semaphore_updates.len(),
        ));
    }
    let (area, instr, dma, sem) = stats.expect("one run");
    let mbytes = area as f64 / 1e6;
    json!({
        "file_mb": bytes.len() as f64 / 1e6, "records_mb": mbytes, "records": area / 16, "gen_ms": gen_ms,
        "instructions": instr, "dma_packets": dma, "semaphore_updates": sem,
        "times_ms": times, "min_ms": min(&times), "median_ms": median(&times),
        "mbps_best": mbytes / min(&times) * 1e3, "mbps_median": mbytes / median(&times) * 1e3,
        "wasm_memory_mb": memory_bytes() / 1e6,
    })
    .to_string()
}

/// Build a nested synthetic trace of `slices` slices over `tracks` thread tracks through the
/// TraceBuilder and keep it for [`frames`].
#[wasm_bindgen]
pub fn lod_build(slices: u32, tracks: u32) -> String {
    CURRENT.with(|c| c.borrow_mut().take());
    let t = now();
    let tr = nested_trace(slices as usize, tracks as usize, 42);
    let ms = now() - t;
    let (heap, cols) = bytes_per_slice(&tr);
    let rows: usize = tr.tracks.iter().map(|t| t.slices.depth_count()).sum();
    let out = json!({
        "slices": tr.slice_count(), "tracks": tr.tracks.len(), "rows": rows, "build_ms": ms,
        "bytes_per_slice": heap, "column_bytes_per_slice": cols, "wasm_memory_mb": memory_bytes() / 1e6,
    });
    CURRENT.with(|c| *c.borrow_mut() = Some(tr));
    out.to_string()
}

/// Import one file (e.g. fetched by the page) and keep the trace for [`frames`]. Times the import
/// only (the copy of `bytes` into wasm memory happens before the call).
#[wasm_bindgen]
pub fn import_file(name: &str, bytes: &[u8]) -> String {
    CURRENT.with(|c| c.borrow_mut().take());
    let t = now();
    let r = import_bytes(name, bytes, &mut NoProgress);
    let ms = now() - t;
    match r {
        Ok(tr) => {
            let out = json!({ "ok": true, "import_ms": ms, "mb": bytes.len() as f64 / 1e6, "slices": tr.slice_count(), "tracks": tr.tracks.len() });
            CURRENT.with(|c| *c.borrow_mut() = Some(tr));
            out.to_string()
        }
        Err(e) => json!({ "ok": false, "error": e.to_string() }).to_string(),
    }
}

/// Free the kept trace.
#[wasm_bindgen]
pub fn drop_trace() {
    CURRENT.with(|c| c.borrow_mut().take());
}

const ROW_H: f64 = 20.0;
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac", "#6b6ecf", "#d37295",
];

struct Row {
    track: usize,
    depth: usize,
    y: f64,
}

/// One frame of the timeline: LOD queries for every visible row of [t0, t1) over `width` px, then
/// a canvas paint (a fillRect per item, colour by name, merged blocks in their longest slice's
/// colour, drawn in colour buckets; a clipped fillText label where a slice is ≥ 30 px wide). Returns (query ms, paint ms, items).
#[allow(clippy::too_many_arguments)]
fn frame(
    tr: &Trace,
    rows: &[Row],
    ctx: &CanvasRenderingContext2d,
    t0: i64,
    t1: i64,
    width: f64,
    height: f64,
    merge_px: f64,
    buf: &mut Vec<(u32, LodItem)>,
    buckets: &mut [Vec<[f64; 3]>; PALETTE.len()],
    label: &mut String,
) -> (f64, f64, usize) {
    let npp = (t1 - t0) as f64 / width;
    let q0 = now();
    buf.clear();
    let mut items = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        if r.y >= height {
            break;
        }
        let t = &tr.tracks[r.track];
        items.clear();
        lod::query(&t.slices, &t.lod, r.depth, t0, t1, npp, merge_px, &mut items);
        buf.extend(items.iter().map(|&it| (k as u32, it)));
    }
    let q1 = now();
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, width, height);
    let x_of = |ns: i64| ((ns - t0) as f64 / npp).clamp(-1.0, width + 1.0);
    let geom = |r: &Row, it: &LodItem| {
        let cols = &tr.tracks[r.track].slices;
        let (s, e, name_of) = match *it {
            LodItem::Slice(i) => (cols.start_ns[i as usize], cols.end_ns(i as usize), i as usize),
            LodItem::Merged { start_ns, end_ns, longest, .. } => (start_ns, end_ns, longest as usize),
        };
        let x = x_of(s);
        (x, (x_of(e) - x).max(1.0), cols.name[name_of])
    };
    // rects bucketed by colour: one fillStyle change per colour per frame (parsing a CSS colour
    // per item would cost more than the rect)
    for b in buckets.iter_mut() {
        b.clear();
    }
    for (k, it) in buf.iter() {
        let r = &rows[*k as usize];
        let (x, w, name) = geom(r, it);
        buckets[name.0 as usize % PALETTE.len()].push([x, r.y + 1.0, w]);
    }
    for (c, b) in buckets.iter().enumerate() {
        if b.is_empty() {
            continue;
        }
        ctx.set_fill_style_str(PALETTE[c]);
        for &[x, y, w] in b {
            ctx.fill_rect(x, y, w, ROW_H - 2.0);
        }
    }
    ctx.set_fill_style_str("#000000");
    for (k, it) in buf.iter() {
        let LodItem::Slice(_) = it else { continue };
        let r = &rows[*k as usize];
        let (x, w, name) = geom(r, it);
        if w < 30.0 {
            continue;
        }
        let text = tr.str(name);
        let fit = ((w - 6.0) / 7.0) as usize; // ≈ 7 px per character at 12 px
        label.clear();
        if text.chars().count() <= fit {
            label.push_str(text);
        } else {
            label.extend(text.chars().take(fit.saturating_sub(1)));
            label.push('…');
        }
        let _ = ctx.fill_text(label, x.max(0.0) + 3.0, r.y + 14.0);
    }
    (q1 - q0, now() - q1, buf.len())
}

/// Pan over the kept trace at zoom `zoom` (visible width = duration / zoom) for `frames` frames,
/// `pan` of a width per frame, on `canvas` (its own size is the viewport); slices narrower than
/// `merge_px` pixels are merged (`lod::query`). Per frame: query, paint,
/// then a 1×1 `getImageData` that forces the pending 2D commands to be rasterised (flush).
#[wasm_bindgen]
pub fn frames(canvas: &HtmlCanvasElement, zoom: f64, frames: u32, pan: f64, merge_px: f64) -> String {
    CURRENT.with(|c| {
        let c = c.borrow();
        let Some(tr) = c.as_ref() else { return json!({"error": "no trace"}).to_string() };
        let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok().flatten().expect("2d context").unchecked_into();
        ctx.set_font("12px sans-serif");
        let (width, height) = (canvas.width() as f64, canvas.height() as f64);
        let mut rows = Vec::new();
        let mut y = 0.0;
        for (ti, t) in tr.tracks.iter().enumerate() {
            for d in 0..t.slices.depth_count() {
                rows.push(Row { track: ti, depth: d, y });
                y += ROW_H;
            }
            y += 6.0; // track gap
        }
        let span = (tr.end_ns - tr.start_ns).max(1) as f64;
        let w = span / zoom.max(1.0);
        let (mut q, mut p, mut fl, mut total, mut items) = (vec![], vec![], vec![], vec![], vec![]);
        let mut buf = Vec::new();
        let mut label = String::new();
        let mut buckets: [Vec<[f64; 3]>; PALETTE.len()] = Default::default();
        // start a little left of the middle and pan right (wrapping inside the trace)
        let room = (span - w).max(0.0);
        let mut a = room * 0.3;
        for _ in 0..frames {
            let t0 = tr.start_ns + a as i64;
            let t1 = t0 + w as i64;
            let f0 = now();
            let (qm, pm, n) = frame(tr, &rows, &ctx, t0, t1, width, height, merge_px, &mut buf, &mut buckets, &mut label);
            let fl0 = now();
            let _ = ctx.get_image_data(0.0, 0.0, 1.0, 1.0);
            let end = now();
            q.push(qm);
            p.push(pm);
            fl.push(end - fl0);
            total.push(end - f0);
            items.push(n as f64);
            a += w * pan;
            if a > room {
                a = 0.0;
            }
        }
        let stat = |v: &[f64]| json!({"p50": percentile(v, 50.0), "p95": percentile(v, 95.0), "max": percentile(v, 100.0)});
        json!({
            "zoom": zoom, "merge_px": merge_px, "visible_ms": w / 1e6, "ns_per_px": w / width, "frames": frames, "rows": rows.len(),
            "items_median": median(&items), "items_max": percentile(&items, 100.0),
            "query_ms": stat(&q), "paint_ms": stat(&p), "flush_ms": stat(&fl), "frame_ms": stat(&total),
        })
        .to_string()
    })
}

/// Time the phases of importing a NEFF + NTFF pair (as `core/examples/import_peak.rs` does
/// natively): `ntff::parse` alone, + `correlate`, the builder filled, the operator timeline,
/// `finish`, then the whole `import_files`. Compares the browser's wasm with the native build
/// phase by phase.
#[wasm_bindgen]
pub fn pair_phases(neff: &[u8], ntff_bytes: &[u8]) -> String {
    use loupe_core::import::{import_files, Importer, InputFile};
    let mut out = serde_json::Map::new();
    let mut t = now();
    let mut lap = |name: &str, out: &mut serde_json::Map<String, serde_json::Value>| {
        let n = now();
        out.insert(name.into(), json!(n - t));
        t = n;
    };
    let p = ntff::parse(ntff_bytes).expect("ntff");
    lap("ntff_parse_ms", &mut out);
    let (c, _) = loupe_core::neuron::correlate::correlate(&p, None);
    lap("correlate_ms", &mut out);
    drop((p, c));
    lap("drop_ms", &mut out);
    let pair =
        [InputFile { name: "model.neff", bytes: neff }, InputFile { name: "model.ntff", bytes: ntff_bytes }];
    let mut b = loupe_core::model::TraceBuilder::new("");
    loupe_core::import::neuron::binary::NeuronBinary.import_group(&pair, &mut b, &mut NoProgress);
    lap("builder_filled_ms", &mut out);
    b.add_operator_timeline();
    lap("operator_timeline_ms", &mut out);
    let tr = b.finish();
    lap("finish_ms", &mut out);
    drop(tr);
    lap("drop2_ms", &mut out);
    let tr = import_files(&pair, &mut NoProgress).expect("import");
    lap("import_files_ms", &mut out);
    out.insert("slices".into(), json!(tr.slice_count()));
    out.insert("wasm_memory_mb".into(), json!(memory_bytes() / 1e6));
    serde_json::Value::Object(out).to_string()
}

/// `import_files` on a NEFF + NTFF pair `runs` times in this page, each time on the memory the
/// last left (the first run on fresh wasm memory, as the parser worker's one import is).
#[wasm_bindgen]
pub fn pair_import(neff: &[u8], ntff_bytes: &[u8], runs: u32) -> String {
    use loupe_core::import::{import_files, InputFile};
    let pair =
        [InputFile { name: "model.neff", bytes: neff }, InputFile { name: "model.ntff", bytes: ntff_bytes }];
    let mut times = Vec::new();
    let mut mem = Vec::new();
    let pre = js_sys::Reflect::get(&js_sys::global(), &"PREGROW".into())
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let t = now();
    if pre > 0.0 {
        let v: Vec<u8> = Vec::with_capacity(pre as usize);
        std::hint::black_box(&v);
    } else if pre < 0.0 {
        let v: Vec<u8> = vec![1u8; -pre as usize];
        std::hint::black_box(&v);
    }
    let pregrow_ms = now() - t;
    for _ in 0..runs.max(1) {
        let t = now();
        let tr = import_files(&pair, &mut NoProgress).expect("import");
        times.push(now() - t);
        mem.push(memory_bytes() / 1e6);
        drop(tr);
    }
    json!({ "pregrow_ms": pregrow_ms, "times_ms": times, "wasm_memory_mb": mem }).to_string()
}

/// [`loupe_core::analysis::device_summary::device_summary`] on an imported NEFF + NTFF pair,
/// `runs` times (ms each): the page builds it with its indexes.
#[wasm_bindgen]
pub fn pair_device_summary(neff: &[u8], ntff_bytes: &[u8], runs: u32) -> String {
    use loupe_core::import::{import_files, InputFile};
    let pair =
        [InputFile { name: "model.neff", bytes: neff }, InputFile { name: "model.ntff", bytes: ntff_bytes }];
    let tr = import_files(&pair, &mut NoProgress).expect("import");
    let mut times = Vec::new();
    let mut metrics = 0;
    for _ in 0..runs.max(1) {
        let t = now();
        let s = loupe_core::analysis::device_summary::device_summary(&tr);
        times.push(now() - t);
        metrics = s.map_or(0, |s| s.metrics.len());
    }
    json!({ "times_ms": times, "metrics": metrics, "slices": tr.slice_count() }).to_string()
}
