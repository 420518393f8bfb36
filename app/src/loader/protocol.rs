//! The messages between the page and the parser worker. Plain JS objects with a `kind` field, so
//! they can be inspected in devtools; bulk data travels as transferred `ArrayBuffer`s. The page sends the `File`s themselves (a
//! structured clone of a `File` is a handle, not a copy of its bytes), so a file is never read
//! whole on the page, and a big Chrome JSON never whole anywhere (see [`super::worker_side`]).
//!
//! ```text
//! page → worker   {kind:"load", files:[File], lazyArgsAbove}               Files are cloned handles:
//!                                                                          the worker reads them itself
//!                 {kind:"demo", slices}                    generate `?demo=N` (loupe_core::demo::large_demo)
//! worker → page   {kind:"ready", threads}            once, at start-up; threads = the rayon pool's
//!                                                    size (threaded worker), else 1
//!                 {kind:"warm", warmUpMs}            a worker started ahead finished its warm-up
//!                                                    (steps after "ready"; a request stops them)
//!                 {kind:"progress", stage, done, total}                    every ~100 ms
//!                 {kind:"done", trace:ArrayBuffer, parseMs, encodeMs}      wire encoding, transferred
//!                 {kind:"encoding", buffer:SharedArrayBuffer}   on a cross-origin isolated page: the
//!                                                    encoding is written into shared memory instead,
//!                 {kind:"encoded", bytes}            its first `bytes` written (every few MiB), so the
//!                                                    page decodes while the worker encodes; `done`
//!                                                    then carries an empty `trace`
//!                 {kind:"error", message}
//! ```
//!
//! The trace travels in [`loupe_core::model::wire`]'s encoding: a bincode skeleton plus raw
//! little-endian columns, which the page decodes in slices between frames
//! ([`super::decode`]).

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// The name (`new Worker(url, {name})`, the worker's `self.name`) of a parser worker started
/// because a load waits for it: it skips its warm-up (whose few hundred ms would only delay the
/// load it exists to speed up).
pub const WORKER_FOR_A_LOAD: &str = "loupe-parser-for-a-load";
/// The name of a parser worker started ahead of the next load ([`super::prewarm`]): after
/// `{ready}` it warms up in steps, stops at the first request, and says `{warm}` if it finished.
pub const WORKER_AHEAD: &str = "loupe-parser-ahead";

/// A message as received.
#[derive(Debug)]
pub enum Message {
    /// `threads`: the threads that run the import's parallel stages (the wasm-bindgen-rayon
    /// pool's size in the threaded worker, else 1: rayon then runs on the worker's own thread).
    Ready {
        threads: u32,
    },
    /// A worker started ahead finished its warm-up (it ran no request meanwhile).
    Warm {
        /// how long the warm-up's steps took
        warm_up_ms: f64,
    },
    /// `lazy_args_above`: keep the args of a streamed file of more than this many bytes lazily
    /// (see [`super::lazy_args_above`]).
    Load {
        files: Vec<web_sys::File>,
        lazy_args_above: f64,
        /// Tests only (`?test-worker-trap=<file name>`, [`super::test_worker_trap`]): a load of a
        /// file of this name ends in a wasm trap in the worker after its first progress report.
        trap_on: String,
    },
    /// Build the large synthetic demo of this many slices instead of reading files.
    Demo {
        slices: u64,
    },
    Progress {
        stage: String,
        done: u64,
        total: u64,
    },
    Done {
        trace: js_sys::ArrayBuffer,
        parse_ms: f64,
        encode_ms: f64,
        /// of `parse_ms`, reading whole files before the import (0 when streamed)
        read_ms: f64,
    },
    /// The encoding will be written into this `SharedArrayBuffer` (its length is the
    /// encoding's); [`Message::Encoded`] says how much of it is written.
    Encoding {
        buffer: js_sys::SharedArrayBuffer,
    },
    Encoded {
        bytes: u32,
    },
    Error {
        message: String,
    },
}

fn set(o: &Object, k: &str, v: &JsValue) {
    // Reflect.set on a fresh plain object cannot fail
    let _ = Reflect::set(o, &JsValue::from_str(k), v);
}

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn get_str(o: &JsValue, k: &str) -> String {
    get(o, k).as_string().unwrap_or_default()
}

fn get_f64(o: &JsValue, k: &str) -> f64 {
    get(o, k).as_f64().unwrap_or(0.0)
}

fn with_kind(kind: &str) -> Object {
    let o = Object::new();
    set(&o, "kind", &JsValue::from_str(kind));
    o
}

/// Build a message; returns the object and its transfer list.
pub fn encode(msg: &Message) -> (JsValue, Array) {
    let transfer = Array::new();
    let o = match msg {
        Message::Ready { threads } => {
            let o = with_kind("ready");
            set(&o, "threads", &JsValue::from_f64(f64::from(*threads)));
            o
        }
        Message::Warm { warm_up_ms } => {
            let o = with_kind("warm");
            set(&o, "warmUpMs", &JsValue::from_f64(*warm_up_ms));
            o
        }
        Message::Load { files, lazy_args_above, trap_on } => {
            let o = with_kind("load");
            let f = Array::new();
            for file in files {
                f.push(file);
            }
            set(&o, "files", &f);
            set(&o, "lazyArgsAbove", &JsValue::from_f64(*lazy_args_above));
            set(&o, "trapOn", &JsValue::from_str(trap_on));
            o
        }
        Message::Demo { slices } => {
            let o = with_kind("demo");
            set(&o, "slices", &JsValue::from_f64(*slices as f64));
            o
        }
        Message::Progress { stage, done, total } => {
            let o = with_kind("progress");
            set(&o, "stage", &JsValue::from_str(stage));
            set(&o, "done", &JsValue::from_f64(*done as f64));
            set(&o, "total", &JsValue::from_f64(*total as f64));
            o
        }
        Message::Done { trace, parse_ms, encode_ms, read_ms } => {
            let o = with_kind("done");
            set(&o, "trace", trace);
            set(&o, "parseMs", &JsValue::from_f64(*parse_ms));
            set(&o, "encodeMs", &JsValue::from_f64(*encode_ms));
            set(&o, "readMs", &JsValue::from_f64(*read_ms));
            transfer.push(trace);
            o
        }
        Message::Encoding { buffer } => {
            let o = with_kind("encoding");
            set(&o, "buffer", buffer);
            o
        }
        Message::Encoded { bytes } => {
            let o = with_kind("encoded");
            set(&o, "bytes", &JsValue::from_f64(f64::from(*bytes)));
            o
        }
        Message::Error { message } => {
            let o = with_kind("error");
            set(&o, "message", &JsValue::from_str(message));
            o
        }
    };
    (o.into(), transfer)
}

/// Parse a received message; `None` for anything malformed.
pub fn decode(v: &JsValue) -> Option<Message> {
    match get_str(v, "kind").as_str() {
        "ready" => Some(Message::Ready { threads: (get_f64(v, "threads") as u32).max(1) }),
        "warm" => Some(Message::Warm { warm_up_ms: get_f64(v, "warmUpMs") }),
        "load" => {
            let all = Array::from(&get(v, "files"));
            let files: Vec<web_sys::File> =
                all.iter().filter_map(|f| f.dyn_into::<web_sys::File>().ok()).collect();
            let lazy_args_above = get(v, "lazyArgsAbove").as_f64().unwrap_or(f64::INFINITY);
            let trap_on = get_str(v, "trapOn");
            (files.len() == all.length() as usize && !files.is_empty()).then_some(Message::Load {
                files,
                lazy_args_above,
                trap_on,
            })
        }
        "demo" => Some(Message::Demo { slices: get_f64(v, "slices").max(0.0) as u64 }),
        "progress" => Some(Message::Progress {
            stage: get_str(v, "stage"),
            done: get_f64(v, "done").max(0.0) as u64,
            total: get_f64(v, "total").max(0.0) as u64,
        }),
        "done" => Some(Message::Done {
            trace: get(v, "trace").dyn_into().ok()?,
            parse_ms: get_f64(v, "parseMs"),
            encode_ms: get_f64(v, "encodeMs"),
            read_ms: get_f64(v, "readMs"),
        }),
        "encoding" => Some(Message::Encoding { buffer: get(v, "buffer").dyn_into().ok()? }),
        "encoded" => Some(Message::Encoded { bytes: get_f64(v, "bytes").max(0.0) as u32 }),
        "error" => Some(Message::Error { message: get_str(v, "message") }),
        _ => None,
    }
}

/// Copy an `ArrayBuffer` into wasm memory.
pub fn buffer_to_vec(b: &js_sys::ArrayBuffer) -> Vec<u8> {
    js_sys::Uint8Array::new(b).to_vec()
}

/// A [`loupe_core::model::wire::Sink`] that writes the encoding into a JavaScript buffer (outside
/// wasm memory) a piece at a time through a scratch `Vec`: the worker's memory holds the model and
/// a piece of at most 4 MiB, not the model and its whole encoding (which doubled the
/// encoding phase's peak).
///
/// [`BufferSink::streaming`]: where shared memory is available (a cross-origin isolated page)
/// the buffer is a `SharedArrayBuffer`, announced with [`Message::Encoding`] before the first
/// byte and followed by [`Message::Encoded`] every [`STREAM_EVERY_BYTES`], so the page decodes
/// while the worker still encodes.
#[derive(Default)]
pub struct BufferSink {
    buffer: Option<js_sys::Uint8Array>,
    at: u32,
    scratch: Vec<u8>,
    /// posts the streaming messages (set by [`BufferSink::streaming`])
    post: Option<Box<dyn Fn(&Message)>>,
    shared: bool,
    told: u32,
}

/// How often a streaming [`BufferSink`] tells the page how far it has written.
pub const STREAM_EVERY_BYTES: u32 = 4 << 20;

impl BufferSink {
    /// A sink that writes into shared memory and tells the page as it goes, when this worker
    /// has shared memory (`crossOriginIsolated`); else a plain one.
    pub fn streaming(post: Box<dyn Fn(&Message)>) -> BufferSink {
        let global = js_sys::global();
        let isolated = Reflect::get(&global, &JsValue::from_str("crossOriginIsolated"))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        if !isolated {
            return BufferSink::default();
        }
        BufferSink { post: Some(post), ..BufferSink::default() }
    }
    /// Whether the page already has the buffer ([`Message::Encoding`]): `done` then carries an
    /// empty one.
    pub fn is_shared(&self) -> bool {
        self.shared
    }
    /// The filled buffer (empty when nothing was encoded), to transfer to the page.
    pub fn into_buffer(self) -> js_sys::ArrayBuffer {
        if self.shared {
            return js_sys::ArrayBuffer::new(0);
        }
        self.buffer.unwrap_or_else(|| js_sys::Uint8Array::new_with_length(0)).buffer()
    }
}

impl loupe_core::model::wire::Sink for BufferSink {
    fn begin(&mut self, total_bytes: usize) {
        self.at = 0;
        self.told = 0;
        // wasm32: usize is 32 bits
        if let Some(post) = &self.post {
            let sab = js_sys::SharedArrayBuffer::new(total_bytes as u32);
            self.buffer = Some(js_sys::Uint8Array::new(&sab));
            self.shared = true;
            post(&Message::Encoding { buffer: sab });
            return;
        }
        self.buffer = Some(js_sys::Uint8Array::new_with_length(total_bytes as u32));
    }
    fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
        write(&mut self.scratch);
        if let Some(b) = &self.buffer {
            let end = self.at.saturating_add(self.scratch.len() as u32).min(b.length());
            b.subarray(self.at, end).copy_from(&self.scratch[..(end - self.at) as usize]);
            self.at = end;
            // the last bytes are announced by `{done}` (which carries the parse time)
            if let Some(post) = &self.post {
                if self.at - self.told >= STREAM_EVERY_BYTES && self.at < b.length() {
                    self.told = self.at;
                    post(&Message::Encoded { bytes: self.at });
                }
            }
        }
        self.scratch.clear();
    }
}
