//! The parser worker: receives file bytes, runs `loupe_core::import::import_files`, reports
//! progress, and sends the finished trace back bincode-encoded in a transferred `ArrayBuffer`.
//! [`parse_and_encode`] is shared with the in-thread loader used by the browser tests.

#[cfg(not(feature = "sqlite"))]
use loupe_core::import::import_files;
use loupe_core::import::InputFile;
// every format, the SQLite ones (loupe-sqlite: a real SQLite, compiled to wasm32) included: the
// worker binary is built with the `sqlite` feature (index.html)
#[cfg(feature = "sqlite")]
use loupe_sqlite::import_files;
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
    let t1 = now_ms();
    progress("encoding", 1, 1);
    let bytes = bincode::encode_to_vec(&trace, bincode_config())
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
    let Some(Message::Load { names, buffers }) = protocol::decode(data) else {
        post(scope, &Message::Error { message: "internal: malformed request to the parser worker".into() });
        return;
    };
    let files: Vec<(String, Vec<u8>)> =
        names.into_iter().zip(buffers.iter().map(protocol::buffer_to_vec)).collect();
    drop(buffers);
    let perf = scope.performance();
    let now_ms = move || perf.as_ref().map_or_else(js_sys::Date::now, |p| p.now());
    let mut progress = |stage: &str, done: u64, total: u64| {
        post(scope, &Message::Progress { stage: stage.to_string(), done, total })
    };
    match parse_and_encode(&files, &now_ms, &mut progress) {
        Ok(enc) => {
            drop(files);
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
