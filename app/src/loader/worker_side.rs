//! The parser worker: receives file bytes, runs `loupe_core::import::import_files`, reports
//! progress, and sends the finished trace back bincode-encoded in a transferred `ArrayBuffer`.
//! [`parse_and_encode`] is shared with the in-thread loader used by the browser tests.

use loupe_core::import::{import_files, InputFile};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::protocol::{self, bincode_config, Message};

/// Result of a parse: the encoded trace and timings.
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub parse_ms: f64,
    pub encode_ms: f64,
}

/// Import `files` together and encode the trace. `now_ms` is a clock; `progress(stage, done, total)`
/// is called at most every ~100 ms of `now_ms`.
pub fn parse_and_encode(
    files: &[(String, Vec<u8>)],
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Encoded, String> {
    let t0 = now_ms();
    let inputs: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
    let mut last_ms = f64::NEG_INFINITY;
    let mut sink = |done: u64, total: u64| {
        let t = now_ms();
        if t - last_ms >= 100.0 || done >= total {
            last_ms = t;
            progress("parsing", done, total);
        }
        true
    };
    let trace = import_files(&inputs, &mut sink).map_err(|e| e.to_string())?;
    encode(&trace, t0, now_ms, progress)
}

/// Build the `?demo=N` profile (`loupe_core::demo::large_demo`, capped there) and encode it like a
/// parsed file; progress stage "generating" counts slices.
pub fn demo_and_encode(
    slices: u64,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Encoded, String> {
    let t0 = now_ms();
    let mut last_ms = f64::NEG_INFINITY;
    let mut sink = |done: u64, total: u64| {
        let t = now_ms();
        if t - last_ms >= 100.0 || done >= total {
            last_ms = t;
            progress("generating", done, total);
        }
    };
    let n = usize::try_from(slices).unwrap_or(usize::MAX);
    let trace = loupe_core::demo::large_demo(n, &mut sink);
    encode(&trace, t0, now_ms, progress)
}

fn encode(
    trace: &loupe_core::Trace,
    t0: f64,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Encoded, String> {
    let t1 = now_ms();
    progress("encoding", 1, 1);
    let bytes = bincode::encode_to_vec(trace, bincode_config())
        .map_err(|e| format!("could not encode the trace: {e}"))?;
    let t2 = now_ms();
    Ok(Encoded { bytes, parse_ms: t1 - t0, encode_ms: t2 - t1 })
}

fn post(scope: &DedicatedWorkerGlobalScope, msg: &Message) {
    let (v, transfer) = protocol::encode(msg);
    if let Err(e) = scope.post_message_with_transfer(&v, &transfer) {
        web_sys::console::error_2(&"loupe worker: postMessage failed".into(), &e);
    }
}

fn handle(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    let perf = scope.performance();
    let now_ms = move || perf.as_ref().map_or_else(js_sys::Date::now, |p| p.now());
    let mut progress = |stage: &str, done: u64, total: u64| {
        post(scope, &Message::Progress { stage: stage.to_string(), done, total })
    };
    let result = match protocol::decode(data) {
        Some(Message::Load { names, buffers }) => {
            let files: Vec<(String, Vec<u8>)> =
                names.into_iter().zip(buffers.iter().map(protocol::buffer_to_vec)).collect();
            drop(buffers);
            parse_and_encode(&files, &now_ms, &mut progress)
        }
        Some(Message::Demo { slices }) => demo_and_encode(slices, &now_ms, &mut progress),
        _ => {
            post(
                scope,
                &Message::Error { message: "internal: malformed request to the parser worker".into() },
            );
            return;
        }
    };
    match result {
        Ok(enc) => {
            let buf = protocol::vec_to_buffer(&enc.bytes);
            drop(enc.bytes);
            post(scope, &Message::Done { trace: buf, parse_ms: enc.parse_ms, encode_ms: enc.encode_ms });
        }
        Err(message) => post(scope, &Message::Error { message }),
    }
}

/// Entry point of the worker binary.
pub fn run() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let s = scope.clone();
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| handle(&s, &ev.data()));
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // the worker lives until the page terminates it
    onmessage.forget();
    // messages posted before this point would have been dropped: the page waits for "ready"
    post(&scope, &Message::Ready);
}
