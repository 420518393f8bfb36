//! Decoding the parser worker's model (or the model cache's copy) on the page **in slices of a
//! few milliseconds**, yielding to the browser between them, so a load never freezes the page
//! (issue 10, goal 5: no main-thread stall over 50 ms). The transfer is
//! [`loupe_core::model::wire`]: a small bincode skeleton, then raw little-endian columns that are
//! copied out of the transferred `ArrayBuffer` 1 MiB at a time (no whole-model `Vec` copy first)
//! and appended to the model's vectors.
//!
//! The model is still copied from the worker's memory into the page's (two wasm instances do
//! not share memory without threads); what changed is that the copy is cut into pieces, and on a
//! cross-origin isolated page that it starts while the worker is still writing the encoding into
//! shared memory ([`decode_view`]'s `available`).

use js_sys::Uint8Array;
use loupe_core::model::wire::{self, Decoder};
use loupe_core::Trace;

use crate::platform::{now_ms, record_stage, timeout, yield_now, SLICE_MS};

/// Bytes copied out of the `ArrayBuffer` per step.
const STEP_BYTES: u32 = 1 << 20;
/// Slices (or argument sets) checked per step of the model's validation (≈ 1 ms in wasm).
const VALIDATE_PER_STEP: usize = 100_000;

fn read(all: &Uint8Array, start: u32, len: usize) -> Result<Vec<u8>, String> {
    let end = u64::from(start) + len as u64;
    if end > u64::from(all.length()) {
        return Err(format!("internal: the model transfer is cut short ({} bytes)", all.length()));
    }
    Ok(all.subarray(start, end as u32).to_vec())
}

/// Wait until `available()` reaches `need` bytes (a model still being written by the worker:
/// [`super::protocol::BufferSink`] in shared memory); `false` when cancelled meanwhile.
async fn wait_for(need: u64, available: &dyn Fn() -> u32, cancelled: &dyn Fn() -> bool) -> bool {
    while u64::from(available()) < need {
        if cancelled() {
            return false;
        }
        timeout(WAIT_MS).await;
    }
    true
}

/// How long to wait for more of a model the worker is still writing (ms).
const WAIT_MS: i32 = 3;

/// Decode and check a transferred model, yielding every [`SLICE_MS`]; `progress(done, total)`
/// after each slice. `cancelled()` stops it between slices (`Err` with an empty message). Only
/// the first `available()` bytes of `all` may be written yet (the worker writes the rest
/// meanwhile, in shared memory): it waits for what it needs.
pub async fn decode_view(
    all: &Uint8Array,
    available: &dyn Fn() -> u32,
    progress: &dyn Fn(u64, u64),
    cancelled: &dyn Fn() -> bool,
) -> Result<Trace, String> {
    let damaged = |e: wire::WireError| format!("internal: could not decode the parsed trace: {e}");
    let total = all.length();
    let t = now_ms();
    let stop = || Err(String::new());
    if !wait_for(wire::PREFIX_BYTES as u64, available, cancelled).await {
        return stop();
    }
    let prefix = read(all, 0, wire::PREFIX_BYTES)?;
    let skel_end = wire::skeleton_end(&prefix).map_err(damaged)?;
    let skel_end_u32 =
        u32::try_from(skel_end).map_err(|_| "internal: model transfer header too large".to_string())?;
    if !wait_for(skel_end as u64 + 8, available, cancelled).await {
        return stop();
    }
    let table = Decoder::table_bytes(&read(all, skel_end_u32, 8)?).map_err(damaged)?;
    if !wait_for(skel_end.saturating_add(table) as u64, available, cancelled).await {
        return stop();
    }
    let header = read(all, 0, skel_end.saturating_add(table))?;
    let mut dec = Decoder::new(&header, u64::from(total)).map_err(damaged)?;
    let mut off = header.len() as u32;
    drop(header);
    record_stage("skeletonMs", now_ms() - t);
    let mut scratch = vec![0u8; STEP_BYTES as usize];
    let (mut slices, mut longest, mut busy) = (0u32, 0f64, 0f64);
    let t_all = now_ms();
    while off < total {
        yield_now().await;
        if cancelled() {
            return Err(String::new());
        }
        if !wait_for(u64::from(off.saturating_add(STEP_BYTES).min(total)), available, cancelled).await {
            return stop();
        }
        let t0 = now_ms();
        while off < total && now_ms() - t0 < SLICE_MS {
            let n = STEP_BYTES.min(total - off).min(available().saturating_sub(off));
            if n == 0 {
                break;
            }
            let dst = &mut scratch[..n as usize];
            all.subarray(off, off + n).copy_to(dst);
            dec.feed(dst).map_err(damaged)?;
            off += n;
        }
        slices += 1;
        let step_ms = now_ms() - t0;
        longest = longest.max(step_ms);
        busy += step_ms;
        progress(u64::from(off), u64::from(total));
    }
    record_stage("columnsMs", now_ms() - t_all);
    // the steps' own time: the rest of columnsMs went to the browser (frames, input, idle)
    record_stage("columnsBusyMs", busy);
    record_stage("columnSlices", f64::from(slices));
    record_stage("longestSliceMs", longest);
    let trace = dec.finish().map_err(damaged)?;
    // the model's invariants, checked in steps of a few milliseconds too
    let t = now_ms();
    let mut check = loupe_core::model::validate::Validation::default();
    let mut longest_check = 0f64;
    loop {
        yield_now().await;
        if cancelled() {
            return Err(String::new());
        }
        let t0 = now_ms();
        let mut more = true;
        while more && now_ms() - t0 < SLICE_MS {
            more = check
                .step(&trace, VALIDATE_PER_STEP)
                .map_err(|e| format!("internal: the parsed trace is inconsistent ({e})"))?;
        }
        longest_check = longest_check.max(now_ms() - t0);
        if !more {
            break;
        }
    }
    record_stage("validateMs", now_ms() - t);
    record_stage("longestValidateSliceMs", longest_check);
    Ok(trace)
}

/// The same, all at once (the in-thread loader of the browser tests).
pub fn decode_now(bytes: &[u8]) -> Result<Trace, String> {
    let trace =
        wire::decode(bytes).map_err(|e| format!("internal: could not decode the parsed trace: {e}"))?;
    trace.validate().map_err(|e| format!("internal: the parsed trace is inconsistent ({e})"))?;
    Ok(trace)
}
