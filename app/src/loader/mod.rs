//! Loading files without freezing the page.
//!
//! ```text
//! page                                   parser worker (bin `worker`, trunk data-type="worker")
//! files the model cache's hints list: read the entry, decode it while fingerprinting the files,
//!   show it if they match (crate::model_cache); others go to the worker at once (their key is
//!   computed, and the model stored, after it is shown)
//! new Worker(threads/worker_loader.js,    wasm starts (the threaded one: its rayon pool first),
//!   {type:"module"}) when isolated, else  posts {ready, threads}
//!   new Worker("worker_loader.js") ──────▶
//! {load, files, lazyArgsAbove} ─────────▶ reads the Files itself (each File's stream, BYOB):
//!   (File handles, no bytes copied)        one Chrome JSON is streamed, else read whole; import
//!                                        with progress ──────────────────▶ {progress}…
//!                                        encode the Trace (model::wire) ──▶ {done, trace} (transferred)
//!                                          isolated page: into a SharedArrayBuffer ──▶ {encoding},
//!   decoded while written (Stream)             {encoded, bytes} every 4 MiB…, then {done}
//! terminate the worker; decode the Trace in slices of ≤ 8 ms between frames (decode.rs),
//! build the page's indexes the same way (state::TraceData::build), install it
//! ```
//!
//! One worker per load, terminated afterwards (its wasm memory grows to the parse's peak and
//! never shrinks, so reusing it would keep that memory). Cancel = `terminate()`.
//! [`LoaderMode::InThread`] runs the same [`worker_side::parse_sources`] → encode → decode path on
//! the page's thread, from the files read whole (`Blob.arrayBuffer()`); it exists for
//! the browser tests, where no worker script is served.

pub mod decode;
pub mod protocol;
pub mod worker_side;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use loupe_core::Trace;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::platform::{js_err, now_ms, record_stage};
use crate::state::LoadProgress;
use protocol::Message;

/// Where parsing runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoaderMode {
    /// In a Web Worker started from this script URL (relative to the page).
    Worker { script_url: String },
    /// On the page's thread (tests only: freezes the page for big files).
    InThread,
}

impl Default for LoaderMode {
    fn default() -> Self {
        LoaderMode::Worker { script_url: CLASSIC_WORKER.into() }
    }
}

/// What a load reports back.
pub enum LoadEvent {
    Progress(LoadProgress),
    /// `cached`: re-opened from the model cache ([`crate::model_cache`]) without parsing.
    Done {
        trace: Box<Trace>,
        total_ms: f64,
        parse_ms: f64,
        decode_ms: f64,
        cached: bool,
    },
    Failed(String),
}

struct Job {
    finished: Cell<bool>,
    worker: RefCell<Option<Worker>>,
    on_event: Box<dyn Fn(LoadEvent)>,
    // keeps the worker callbacks alive for the job's lifetime
    closures: RefCell<Vec<Closure<dyn FnMut(JsValue)>>>,
    started_ms: f64,
    total_bytes: u64,
    /// start the next load's worker ahead when this one ends ([`prewarm`])
    prewarm_next: Option<LoaderMode>,
    /// where to keep the parsed model in [`crate::model_cache`] (none: not kept)
    store_as: RefCell<Option<StoreAs>>,
    /// the model the worker is writing into shared memory, decoded as it comes
    stream: RefCell<Option<Rc<Stream>>>,
    /// what is loaded, for messages: `'a.json'`, `'a.json' + 'b.json'`, `the demo`
    what: String,
}

/// Whether a model read from the cache may be shown (see [`Job::decode_view`]).
type Gate = std::pin::Pin<Box<dyn std::future::Future<Output = bool>>>;

/// A model the worker writes into shared memory ([`Message::Encoding`]) while the page decodes it.
struct Stream {
    view: js_sys::Uint8Array,
    /// bytes written so far ([`Message::Encoded`]; all of them once `{done}` came)
    available: Cell<u32>,
    /// the worker's parse time, from `{done}`
    parse_ms: Cell<f64>,
}

/// A parsed model's place in [`crate::model_cache`].
struct StoreAs {
    /// the files' content fingerprint when the lookup computed it; else it is computed after
    /// the model is shown (sampling the files while the worker reads them slowed the parse)
    content: Option<String>,
    files: Vec<web_sys::File>,
    /// appended to the fingerprint ([`crate::model_cache::fingerprint`])
    knob: String,
    quick: String,
    label: String,
}

impl Job {
    fn emit(&self, ev: LoadEvent) {
        if self.finished.get() {
            return;
        }
        if matches!(ev, LoadEvent::Done { .. } | LoadEvent::Failed(_)) {
            self.finish();
        }
        (self.on_event)(ev);
    }
    fn finish(&self) {
        if !self.finished.replace(true) {
            ACTIVE_JOBS.with(|n| n.set(n.get().saturating_sub(1)));
        }
        if let Some(w) = self.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
        if let Some(mode) = &self.prewarm_next {
            prewarm(mode, PREWARM_AFTER_LOAD_MS);
        }
        // The callbacks hold the job (a cycle, so a running load needs no owner). Break it, but
        // not synchronously: finish() may run inside one of those callbacks.
        let closures = std::mem::take(&mut *self.closures.borrow_mut());
        if !closures.is_empty() {
            wasm_bindgen_futures::spawn_local(async move { drop(closures) });
        }
    }
    /// The worker's `{done}`: its model decoded and shown, then kept in the cache. A model
    /// streamed into shared memory is being decoded already: `{done}` says it is all written.
    fn parsed(self: &Rc<Self>, trace: js_sys::ArrayBuffer, parse_ms: f64) {
        record_stage("modelStreamed", if self.stream.borrow().is_some() { 1.0 } else { 0.0 });
        if let Some(stream) = self.stream.borrow().as_ref() {
            stream.parse_ms.set(parse_ms);
            stream.available.set(stream.view.length());
            return;
        }
        let job = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if job.decode_buffer(&trace, parse_ms, None).await {
                job.keep(&js_sys::Uint8Array::new(&trace)).await;
            }
        });
    }
    /// `{encoding}`: decode the model while the worker writes it.
    fn stream_from(self: &Rc<Self>, buffer: js_sys::SharedArrayBuffer) {
        let stream = Rc::new(Stream {
            view: js_sys::Uint8Array::new(&buffer),
            available: Cell::new(0),
            parse_ms: Cell::new(0.0),
        });
        *self.stream.borrow_mut() = Some(stream.clone());
        let job = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let ok = job
                .decode_view(&stream.view, &|| stream.available.get(), &|| stream.parse_ms.get(), None)
                .await;
            if ok {
                job.keep(&stream.view).await;
            }
        });
    }
    /// After the model is shown: keep its encoding for the next open of the same files. It
    /// waits for the install and its first frames (sampling the files and copying the encoding
    /// for the cache took 20–50 ms of the page's thread, which the index steps needed).
    async fn keep(&self, encoding: &js_sys::Uint8Array) {
        if self.store_as.borrow().is_none() {
            return;
        }
        until_installed(KEEP_WAIT_MS).await;
        crate::platform::next_frame().await;
        crate::platform::next_frame().await;
        let Some(to) = self.store_as.borrow_mut().take() else { return };
        let content = match to.content {
            Some(c) => Some(c),
            None => crate::model_cache::fingerprint(&to.files, &to.knob).await,
        };
        if let Some(content) = content {
            crate::model_cache::store(to.quick, content, encoding, to.label).await;
        }
    }
    fn progress(&self, stage: &str, done: u64, total: u64, since_ms: f64) {
        let secs = ((now_ms() - since_ms) / 1000.0).max(1e-3);
        let mb_per_s = done as f64 / 1e6 / secs;
        self.emit(LoadEvent::Progress(LoadProgress {
            stage: stage.to_string(),
            done_bytes: done,
            total_bytes: total,
            mb_per_s,
        }));
    }
    fn done(&self, trace: Trace, parse_ms: f64, decode_ms: f64, cached: bool) {
        self.emit(LoadEvent::Done {
            trace: Box::new(trace),
            total_ms: now_ms() - self.started_ms,
            parse_ms,
            decode_ms,
            cached,
        })
    }
    /// Decode at once (the in-thread loader: its page is frozen by the parse anyway).
    #[cfg(feature = "in-thread-loader")]
    fn decode(&self, bytes: &[u8], parse_ms: f64, cached: bool) {
        let t = now_ms();
        match decode::decode_now(bytes) {
            Ok(trace) => self.done(trace, parse_ms, now_ms() - t, cached),
            Err(e) => self.emit(LoadEvent::Failed(e)),
        }
    }

    /// Decode a transferred model in slices between frames ([`decode::decode_view`]).
    async fn decode_buffer(&self, buf: &js_sys::ArrayBuffer, parse_ms: f64, cached: Option<Gate>) -> bool {
        let all = js_sys::Uint8Array::new(buf);
        let total = all.length();
        self.decode_view(&all, &|| total, &|| parse_ms, cached).await
    }

    /// [`Job::decode_buffer`] over a model of which the first `available()` bytes are written
    /// ([`decode::decode_view`]); `parse_ms()` is read once it is decoded. `cached`: a model
    /// from [`crate::model_cache`], shown only if its gate (are these the files it was made
    /// from?) says so once it is decoded; else nothing is shown or reported and it is `false`.
    async fn decode_view(
        &self,
        all: &js_sys::Uint8Array,
        available: &dyn Fn() -> u32,
        parse_ms: &dyn Fn() -> f64,
        cached: Option<Gate>,
    ) -> bool {
        let t = now_ms();
        let total = self.total_bytes;
        let stage = if cached.is_some() { "decoding the cached model" } else { "decoding" };
        let progress = |done: u64, all: u64| {
            // the bytes of the file, scaled: the bar ends where parsing ended
            let frac = done as f64 / (all.max(1)) as f64;
            self.emit(LoadEvent::Progress(LoadProgress {
                stage: stage.to_string(),
                done_bytes: (frac * total as f64) as u64,
                total_bytes: total,
                mb_per_s: done as f64 / 1e6 / ((now_ms() - t) / 1000.0).max(1e-3),
            }))
        };
        match decode::decode_view(all, available, &progress, &|| self.finished.get()).await {
            Ok(trace) => {
                let decode_ms = now_ms() - t;
                record_stage("decodeMs", decode_ms);
                let from_cache = cached.is_some();
                if let Some(gate) = cached {
                    let t = now_ms();
                    let open = gate.await;
                    record_stage("cacheGateWaitMs", now_ms() - t);
                    if !open || self.finished.get() {
                        return false;
                    }
                }
                self.done(trace, parse_ms(), decode_ms, from_cache);
                true
            }
            Err(e) if e.is_empty() => false,
            Err(e) => {
                if cached.is_none() {
                    self.emit(LoadEvent::Failed(e));
                }
                false
            }
        }
    }
}

thread_local! {
    /// resolved by [`installed`]
    static ON_INSTALL: RefCell<Vec<js_sys::Function>> = const { RefCell::new(Vec::new()) };
}

/// How long [`Job::keep`] waits for its model to be installed (a newer load may have made it
/// moot; it is kept anyway, its files being the same).
const KEEP_WAIT_MS: i32 = 10_000;

/// The app installed a loaded model (it is shown): work that waited for it goes on.
pub fn installed() {
    for resolve in ON_INSTALL.with(|v| std::mem::take(&mut *v.borrow_mut())) {
        let _ = resolve.call0(&JsValue::UNDEFINED);
    }
}

/// Resolves at the next [`installed`], or after `max_ms`.
async fn until_installed(max_ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, max_ms);
        }
        ON_INSTALL.with(|v| v.borrow_mut().push(resolve));
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// A running load; dropping the handle does not cancel it, [`LoadHandle::cancel`] does.
#[derive(Clone)]
pub struct LoadHandle(Rc<Job>);

impl LoadHandle {
    pub fn cancel(&self) {
        self.0.finish();
    }
    pub fn is_finished(&self) -> bool {
        self.0.finished.get()
    }
}

/// Start loading `files` (all imported together). Events arrive on `on_event`; exactly one
/// `Done` or `Failed` ends a load unless it is cancelled.
pub fn start(
    files: Vec<web_sys::File>,
    mode: LoaderMode,
    on_event: impl Fn(LoadEvent) + 'static,
) -> LoadHandle {
    let total_bytes: u64 = files.iter().map(|f| f.size() as u64).sum();
    let what = files.iter().map(|f| format!("'{}'", f.name())).collect::<Vec<_>>().join(" + ");
    let job = Rc::new(Job {
        finished: Cell::new(false),
        worker: RefCell::new(None),
        on_event: Box::new(on_event),
        closures: RefCell::new(Vec::new()),
        started_ms: now_ms(),
        total_bytes,
        prewarm_next: Some(mode.clone()),
        store_as: RefCell::new(None),
        stream: RefCell::new(None),
        what,
    });
    ACTIVE_JOBS.with(|n| n.set(n.get() + 1));
    let handle = LoadHandle(job.clone());
    wasm_bindgen_futures::spawn_local(async move {
        if files.is_empty() {
            job.emit(LoadEvent::Failed("no file was given".into()));
            return;
        }
        let label = files.iter().map(|f| f.name()).collect::<Vec<_>>().join(" + ");
        let lazy_above = lazy_args_above();
        let trap_on = test_worker_trap();
        let load =
            || Message::Load { files: files.clone(), lazy_args_above: lazy_above, trap_on: trap_on.clone() };
        let LoaderMode::Worker { script_url } = &mode else {
            #[cfg(feature = "in-thread-loader")]
            return in_thread(&job, files, lazy_above).await;
            #[cfg(not(feature = "in-thread-loader"))]
            return job.emit(LoadEvent::Failed(
                "this build has no in-thread loader (feature `in-thread-loader`)".into(),
            ));
        };
        if !crate::model_cache::enabled() {
            return start_worker(&job, script_url, load());
        }
        // 0. opened before? Only files the cache's hints list can be in it: those are looked up
        // first (the key samples their content); any others are parsed at once, and the key to
        // keep their model under is computed after it is shown.
        // A model built with another lazy-args setting is another model.
        let knob = if lazy_args_above() != LAZY_ARGS_ABOVE_BYTES {
            format!("+lazy{}", lazy_args_above())
        } else {
            String::new()
        };
        let quick = crate::model_cache::quick_key(&files, &knob);
        let look_up = crate::model_cache::may_hold(&quick);
        record_stage("cacheLookedUp", if look_up { 1.0 } else { 0.0 });
        let store_as = |content: Option<String>| StoreAs {
            content,
            files: files.clone(),
            knob: knob.clone(),
            quick: quick.clone(),
            label: label.clone(),
        };
        // parse at once; the key to keep the model under is computed after it is shown
        let parse_now = || {
            *job.store_as.borrow_mut() = Some(store_as(None));
            start_worker(&job, script_url, load())
        };
        if !look_up {
            return parse_now();
        }
        job.progress("checking the cache", 0, total_bytes, job.started_ms);
        let t = now_ms();
        let entry = crate::model_cache::read(&quick).await;
        record_stage("cacheLookupMs", now_ms() - t);
        if job.finished.get() {
            return;
        }
        // not there (a stale hint): as for files without a hint
        let Some((stored, buf)) = entry else { return parse_now() };
        // The files are sampled once the entry is read, while it decodes: sampled while it was
        // read, their reads held the read back (a 13.6 MB entry took 60 ms instead of 35,
        // tests/bench/cache-read.mjs). The model is shown once both are done and the
        // fingerprints agree.
        let sampled = {
            let (files, knob, started) = (files.clone(), knob.clone(), job.started_ms);
            // a promise: started now, awaited by the gate and, on a mismatch, by the store
            wasm_bindgen_futures::future_to_promise(async move {
                let content = crate::model_cache::fingerprint(&files, &knob).await;
                record_stage("cacheKeyMs", now_ms() - started);
                Ok(content.map_or(JsValue::NULL, JsValue::from))
            })
        };
        let content = move || {
            let p = sampled.clone();
            async move { wasm_bindgen_futures::JsFuture::from(p).await.ok().and_then(|v| v.as_string()) }
        };
        let same = content();
        let want = stored.clone();
        let gate: Gate = Box::pin(async move { same.await.is_some_and(|c| c == want) });
        if job.decode_buffer(&buf, 0.0, Some(gate)).await || job.finished.get() {
            return;
        }
        // other content (stale: forget it), or these files' own entry that does not decode
        // (damaged: kept aside, the user told); then parse
        let now = content().await;
        if now.as_deref() == Some(stored.as_str()) {
            crate::model_cache::set_aside(&quick).await;
        } else {
            crate::model_cache::remove(&quick).await;
        }
        if let Some(content) = now {
            *job.store_as.borrow_mut() = Some(store_as(Some(content)));
        }
        start_worker(&job, script_url, load());
    });
    handle
}

/// Parse on this thread (browser tests): the files read whole (async), then the same
/// parse → encode → decode path as the worker.
#[cfg(feature = "in-thread-loader")]
async fn in_thread(job: &Rc<Job>, files: Vec<web_sys::File>, lazy_above: f64) {
    let total = job.total_bytes;
    let mut read = 0u64;
    let mut sources = Vec::with_capacity(files.len());
    job.progress("reading", 0, total, job.started_ms);
    for f in &files {
        match wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await {
            Ok(b) => {
                let bytes = protocol::buffer_to_vec(&b.unchecked_into());
                read += bytes.len() as u64;
                sources.push(worker_side::Source {
                    name: f.name(),
                    size: bytes.len() as u64,
                    reader: Box::new(std::io::Cursor::new(bytes)),
                });
            }
            Err(e) => {
                job.emit(LoadEvent::Failed(format!("could not read '{}': {}", f.name(), js_err(&e))));
                return;
            }
        }
        if job.finished.get() {
            return;
        }
        job.progress("reading", read, total, job.started_ms);
    }
    // yield once so the progress bar paints
    let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    }))
    .await;
    if job.finished.get() {
        return;
    }
    let parse_start = now_ms();
    let mut progress = |stage: &str, done: u64, total: u64| job.progress(stage, done, total, parse_start);
    let mut bytes = Vec::new();
    match worker_side::parse_sources(sources, lazy_above, &now_ms, &mut progress, &mut bytes) {
        Ok(enc) => job.decode(&bytes, enc.parse_ms, false),
        Err(message) => job.emit(LoadEvent::Failed(message)),
    }
}

/// Arguments of a streamed Chrome JSON file larger than this many bytes stay in the file
/// (`loupe_core::import::chrome::StreamOptions::lazy_args`). Below it, args in memory cost
/// ≈ 150 B per event (≈ 40 MB at 64 MB of Kineto JSON: affordable) and keep everything working
/// without the file (`arg:` search, a profile re-opened from the cache); above it, memory is what
/// limits the size of a profile, and lazy args cut the model to ≈ 37 B per event. `?lazyargs=1`
/// in the page URL forces lazy args for any size (tests), `?lazyargs=0` turns them off.
pub const LAZY_ARGS_ABOVE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// [`LAZY_ARGS_ABOVE_BYTES`] or the page's `?lazyargs=` knob.
pub fn lazy_args_above() -> f64 {
    let knob = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("lazyargs"));
    match knob.as_deref() {
        Some("1" | "on") => 0.0,
        Some("0" | "off") => f64::INFINITY,
        _ => LAZY_ARGS_ABOVE_BYTES,
    }
}

/// Tests only: `?test-worker-trap=<file name>` in the page URL makes a load of a file of that name
/// end in a wasm trap (`unreachable`, what a failed allocation ends in) in the parser worker,
/// right after its first progress report (tests/e2e/worker-death.test.mjs). Empty: none.
pub fn test_worker_trap() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("test-worker-trap"))
        .unwrap_or_default()
}

/// Build the `?demo=N` profile of `slices` slices in the worker (like a file load: progress, then
/// the encoded model comes back). The size is capped by `loupe_core::demo::large_demo`, which says
/// so in a `demo_capped` warning.
pub fn start_demo(slices: u64, mode: LoaderMode, on_event: impl Fn(LoadEvent) + 'static) -> LoadHandle {
    let job = Rc::new(Job {
        finished: Cell::new(false),
        worker: RefCell::new(None),
        on_event: Box::new(on_event),
        closures: RefCell::new(Vec::new()),
        started_ms: now_ms(),
        // progress of a demo counts slices, not bytes
        total_bytes: slices,
        prewarm_next: Some(mode.clone()),
        store_as: RefCell::new(None),
        stream: RefCell::new(None),
        what: "the demo".into(),
    });
    ACTIVE_JOBS.with(|n| n.set(n.get() + 1));
    let handle = LoadHandle(job.clone());
    job.progress("generating", 0, slices, job.started_ms);
    match mode {
        LoaderMode::Worker { script_url } => start_worker(&job, &script_url, Message::Demo { slices }),
        #[cfg(feature = "in-thread-loader")]
        LoaderMode::InThread => {
            let start = now_ms();
            let mut progress = |stage: &str, done: u64, total: u64| job.progress(stage, done, total, start);
            let mut bytes = Vec::new();
            match worker_side::demo_and_encode(slices, &now_ms, &mut progress, &mut bytes) {
                Ok(enc) => job.decode(&bytes, enc.parse_ms, false),
                Err(message) => job.emit(LoadEvent::Failed(message)),
            }
        }
        #[cfg(not(feature = "in-thread-loader"))]
        LoaderMode::InThread => job.emit(LoadEvent::Failed(
            "this build has no in-thread loader (feature `in-thread-loader`)".into(),
        )),
    }
    handle
}

/// The classic (single-threaded) parser worker: trunk's loader shim, [`LoaderMode::default`].
pub const CLASSIC_WORKER: &str = "./worker_loader.js";
/// The threaded parser worker, a module worker (`scripts/build-threads.sh` writes it).
pub const THREADED_WORKER: &str = "./threads/worker_loader.js";

thread_local! {
    /// Threads the last load's worker used ([`last_threads`]).
    static LAST_THREADS: Cell<u32> = const { Cell::new(0) };
}

/// Threads the parser worker of the last load used for the import's parallel stages (the
/// threaded worker's pool size; 1 for the classic worker; 0 before the first load that started a
/// worker). Also `window.__loupe.threads`.
pub fn last_threads() -> u32 {
    LAST_THREADS.with(Cell::get)
}

fn set_last_threads(n: u32) {
    LAST_THREADS.with(|c| c.set(n));
    record_stage("threads", f64::from(n));
    set_loupe_field("threads", &JsValue::from_f64(f64::from(n)));
}

/// `window.__loupeWorkerWarm`: a started-ahead parser worker is ready ([`prewarm`]; benchmarks
/// wait for it, as a user picking a file would).
fn set_worker_warm(warm: bool) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("__loupeWorkerWarm"), &JsValue::from_bool(warm));
    }
}

/// `window.__loupe[name] = value` (when the app has made `window.__loupe`).
fn set_loupe_field(name: &str, value: &JsValue) {
    if let Some(w) = web_sys::window() {
        if let Ok(o) = js_sys::Reflect::get(&w, &JsValue::from_str("__loupe")) {
            if o.is_object() {
                let _ = js_sys::Reflect::set(&o, &JsValue::from_str(name), value);
            }
        }
    }
}

/// Start the threaded worker? Only when the build has one (`LOUPE_THREADS=1`: build-threads.sh
/// then writes `<meta name="loupe-threads">` into index.html; without it the page asks for no
/// file of `threads/`), on a cross-origin isolated page (its shared memory needs it), and not
/// with `?threads=0` in the URL.
fn threads_wanted() -> bool {
    let Some(w) = web_sys::window() else { return false };
    let built =
        w.document().and_then(|d| d.query_selector("meta[name=\"loupe-threads\"]").ok().flatten()).is_some();
    if !built {
        return false;
    }
    let isolated = js_sys::Reflect::get(&w, &JsValue::from_str("crossOriginIsolated"))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let off = w
        .location()
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("threads"))
        .is_some_and(|v| v == "0" || v == "off");
    isolated && !off
}

/// How long after a load ends the next load's worker is started ([`prewarm`]): after the page
/// decoded and installed the model, in most cases.
pub const PREWARM_AFTER_LOAD_MS: u32 = 1500;
/// How long after the app starts the first worker is started ([`prewarm`]): at once (its script
/// and wasm load and compile beside the page's first frames; it answers `{ready}` before its
/// warm-up, so a file picked at once waits only for its start). Was 300 ms, when a worker
/// warmed up before `{ready}`.
pub const PREWARM_AT_START_MS: u32 = 0;

/// The finished model is kept in [`crate::model_cache`] as the job's `store_as` says. The
/// default script ([`CLASSIC_WORKER`]) is replaced by [`THREADED_WORKER`] when
/// [`threads_wanted`]; if that one fails before it is ready (its files missing from the folder, or
/// refused by the browser), the load goes on once in the classic worker, silently, and later
/// loads start the classic one.
/// A worker started ahead of time ([`prewarm`]) is used when there is one.
fn start_worker(job: &Rc<Job>, script_url: &str, request: Message) {
    if script_url == CLASSIC_WORKER {
        if let Some(spare) = take_spare() {
            return attach_worker(job, spare.worker, spare.threaded, spare.ready.get(), request);
        }
    }
    if script_url == CLASSIC_WORKER && threads_wanted() {
        spawn_worker(job, THREADED_WORKER, true, request)
    } else {
        spawn_worker(job, script_url, false, request)
    }
}

/// A parser worker started before it is needed ([`prewarm`]): starting one (script, wasm
/// compile, and the threaded worker's rayon pool) takes 0.2–0.5 s, which would otherwise be part
/// of every open.
struct Spare {
    worker: Worker,
    threaded: bool,
    /// `Some(threads)` once its `{ready}` arrived
    ready: Rc<Cell<Option<u32>>>,
    /// it failed before `{ready}`: not usable
    failed: Rc<Cell<bool>>,
    // its callbacks until a load adopts it (which replaces them)
    _closures: [Closure<dyn FnMut(JsValue)>; 2],
}

thread_local! {
    static SPARE: RefCell<Option<Spare>> = const { RefCell::new(None) };
    /// the threaded worker failed to start once: later loads start the classic one at once
    static THREADED_BROKEN: Cell<bool> = const { Cell::new(false) };
    /// a [`prewarm`] is scheduled
    static PREWARM_SCHEDULED: Cell<bool> = const { Cell::new(false) };
    /// loads not finished (a prewarm waits for them: each one's end schedules it again)
    static ACTIVE_JOBS: Cell<u32> = const { Cell::new(0) };
}

/// The spare worker, if there is a usable one (a failed one is dropped, and when it was the
/// threaded one, later loads start the classic worker).
fn take_spare() -> Option<Spare> {
    let spare = SPARE.with(|s| s.borrow_mut().take())?;
    set_worker_warm(false);
    spare.worker.set_onmessage(None);
    spare.worker.set_onerror(None);
    if spare.failed.get() {
        spare.worker.terminate();
        if spare.threaded {
            THREADED_BROKEN.with(|b| b.set(true));
        }
        return None;
    }
    Some(spare)
}

thread_local! {
    static PAGE_WARM: Cell<bool> = const { Cell::new(false) };
}

/// Run the page's own steps of a load once, at idle, on the demo model: encode it, decode and
/// validate the encoding, build its indexes and legend in steps, and throw the result away. Once
/// per page.
///
/// Why: the browser compiles the page's wasm function by function on first call, with its
/// baseline compiler, and optimises a function only once it has run hot. A load in a fresh page
/// paid for that in its decode and index steps: a re-open of the 50 MB Kineto-like trace took
/// 203–300 ms from the change event in a fresh page and 112–162 ms when the same page had loaded
/// it before (its 13 KB skeleton alone: 16–23 ms → 0). The steps here are the same core functions
/// the loader's stepped decode calls ([`decode::decode_view`]), each run at once in its own task,
/// then the loader's stepped index build itself ([`crate::state::TraceData::build`]); it stops
/// when a load starts. `window.__loupe.pageWarmUpMs` says how long they took (the index build's frames included).
fn warm_page() {
    if PAGE_WARM.with(|w| w.replace(true)) {
        return;
    }
    // a load started meanwhile: its own steps warm the same code, and must not share the main
    // thread with these
    fn loading() -> bool {
        ACTIVE_JOBS.with(Cell::get) > 0
    }
    // each step in a task of its own; false when a load started meanwhile
    async fn next_step() -> bool {
        crate::platform::yield_now().await;
        !loading()
    }
    wasm_bindgen_futures::spawn_local(async {
        // each step's time, in order: the demo built, encoded, decoded, validated, indexed (the
        // index build's frames included)
        let steps = js_sys::Array::new();
        let took = |since: f64| steps.push(&JsValue::from_f64(now_ms() - since));
        // not in the task that scheduled it (the prewarm's, which builds the cache's model
        // identity and starts a worker)
        if !next_step().await {
            return;
        }
        let t = now_ms();
        let demo = loupe_core::demo::demo_trace();
        took(t);
        if !next_step().await {
            return;
        }
        let t = now_ms();
        let Ok(bytes) = loupe_core::model::wire::encode(demo) else { return };
        took(t);
        if !next_step().await {
            return;
        }
        let t = now_ms();
        let Ok(trace) = loupe_core::model::wire::decode(&bytes) else { return };
        drop(bytes);
        took(t);
        if !next_step().await {
            return;
        }
        let t = now_ms();
        if trace.validate().is_err() {
            return;
        }
        took(t);
        if !next_step().await {
            return;
        }
        // the loader's own stepped build (its legend pass too), so no step is a long task; its
        // stage timings are the next load's to overwrite
        let t = now_ms();
        drop(crate::state::TraceData::build(trace, String::new(), 0.0, &loading).await);
        took(t);
        let busy: f64 = steps.iter().filter_map(|v| v.as_f64()).sum();
        set_loupe_field("pageWarmUpSteps", &steps);
        set_loupe_field("pageWarmUpMs", &JsValue::from_f64(busy));
    });
}

/// Start the parser worker the next load will use, after `delay_ms` (so that it does not compete
/// with the page's own start or with the install of a model just loaded). Nothing happens when
/// one is already waiting, or for a [`LoaderMode`] other than the default worker.
pub fn prewarm(mode: &LoaderMode, delay_ms: u32) {
    if !matches!(mode, LoaderMode::Worker { script_url } if script_url == CLASSIC_WORKER) {
        return;
    }
    if PREWARM_SCHEDULED.with(|p| p.replace(true)) {
        return;
    }
    gloo_timers::callback::Timeout::new(delay_ms, || {
        PREWARM_SCHEDULED.with(|p| p.set(false));
        // not while a load runs: the prewarm after it comes back here
        if SPARE.with(|s| s.borrow().is_none()) && ACTIVE_JOBS.with(Cell::get) == 0 {
            // first the worker (its script and wasm load and compile beside the page), then the
            // page's own work
            start_spare();
        }
        // the model cache's key needs this once per page (it builds and encodes the demo): now,
        // not when a file is opened
        if crate::model_cache::enabled() {
            crate::model_cache::model_identity();
            crate::model_cache::open_ahead();
        }
        if ACTIVE_JOBS.with(Cell::get) == 0 {
            warm_page();
        }
    })
    .forget();
}

/// Start the parser worker the next load takes ([`Spare`]).
fn start_spare() {
    {
        let threaded = threads_wanted() && !THREADED_BROKEN.with(Cell::get);
        let script = if threaded { THREADED_WORKER } else { CLASSIC_WORKER };
        let Ok(worker) = new_worker(script, threaded, protocol::WORKER_AHEAD) else {
            return;
        };
        let ready = Rc::new(Cell::new(None));
        let failed = Rc::new(Cell::new(false));
        let r = ready.clone();
        let onmessage = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            let ev: MessageEvent = ev.unchecked_into();
            match protocol::decode(&ev.data()) {
                // usable from now on (a request stops its warm-up)
                Some(Message::Ready { threads }) => r.set(Some(threads)),
                Some(Message::Warm { warm_up_ms }) => {
                    // for the benchmarks and tests: the worker's warm-up after it was ready
                    set_loupe_field("workerWarmUpMs", &JsValue::from_f64(warm_up_ms));
                    set_worker_warm(true);
                }
                _ => {}
            }
        });
        let f = failed.clone();
        let onerror = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            // reported when a load would have used it (see take_spare); not an error of the page
            if let Some(e) = ev.dyn_ref::<web_sys::Event>() {
                e.prevent_default();
            }
            f.set(true);
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        SPARE.with(|s| {
            *s.borrow_mut() = Some(Spare { worker, threaded, ready, failed, _closures: [onmessage, onerror] })
        });
    }
}

/// Start a parser worker. `name` (the worker's `self.name`) tells it whether a load is waiting
/// for it ([`protocol::WORKER_FOR_A_LOAD`]: it then skips its warm-up) or it is started ahead
/// ([`protocol::WORKER_AHEAD`]).
fn new_worker(script_url: &str, module: bool, name: &str) -> Result<Worker, JsValue> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_name(name);
    if module {
        opts.set_type(web_sys::WorkerType::Module);
    }
    Worker::new_with_options(script_url, &opts)
}

/// `threaded`: a module worker, and fall back to [`CLASSIC_WORKER`] when it fails before `{ready}`.
fn spawn_worker(job: &Rc<Job>, script_url: &str, threaded: bool, request: Message) {
    let threaded = threaded && !THREADED_BROKEN.with(Cell::get);
    let script_url = if threaded || script_url != THREADED_WORKER { script_url } else { CLASSIC_WORKER };
    match new_worker(script_url, threaded, protocol::WORKER_FOR_A_LOAD) {
        Ok(w) => attach_worker(job, w, threaded, None, request),
        Err(_) if threaded => {
            THREADED_BROKEN.with(|b| b.set(true));
            spawn_worker(job, CLASSIC_WORKER, false, request)
        }
        Err(e) => job.emit(LoadEvent::Failed(format!("could not start the parser worker: {}", js_err(&e)))),
    }
}

/// Give `worker` the job's callbacks and `request`: at once when it is `ready` (a spare that
/// already said `{ready}`), else when its `{ready}` arrives.
fn attach_worker(job: &Rc<Job>, worker: Worker, threaded: bool, ready: Option<u32>, request: Message) {
    // 1: a worker started ahead and ready (window.__loupeLoad.workerWarm; tests, benchmarks)
    record_stage("workerWarm", if ready.is_some() { 1.0 } else { 0.0 });
    // the request, until the worker is ready for it (then the fallback is off)
    let pending: Rc<RefCell<Option<Message>>> = Rc::new(RefCell::new(Some(request)));
    let parse_start = Rc::new(Cell::new(now_ms()));
    let send = {
        let (job, w2, pending, parse_start) =
            (job.clone(), worker.clone(), pending.clone(), parse_start.clone());
        move |threads: u32| {
            if let Some(request) = pending.borrow_mut().take() {
                set_last_threads(threads);
                // worker script + wasm start, and the thread pool's start when there is one
                // (0 for a spare that was ready)
                record_stage("workerStartMs", now_ms() - parse_start.get());
                parse_start.set(now_ms());
                let (msg, transfer) = protocol::encode(&request);
                if let Err(e) = w2.post_message_with_transfer(&msg, &transfer) {
                    job.emit(LoadEvent::Failed(format!(
                        "could not send the files to the parser worker: {}",
                        js_err(&e)
                    )));
                }
            }
        }
    };
    let job1 = job.clone();
    let ps = parse_start.clone();
    let send1 = send.clone();
    let onmessage = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let job = &job1;
        let parse_start = &ps;
        let ev: MessageEvent = ev.unchecked_into();
        match protocol::decode(&ev.data()) {
            Some(Message::Ready { threads }) => send1(threads),
            // a worker started ahead finished its warm-up as the load adopted it: nothing to do
            Some(Message::Warm { .. }) => {}
            Some(Message::Progress { stage, done, total }) => {
                job.progress(&stage, done, total, parse_start.get())
            }
            Some(Message::Done { trace, parse_ms, encode_ms, read_ms }) => {
                // the worker's own steps, for the benchmarks (window.__loupeLoad)
                record_stage("workerParseMs", parse_ms);
                record_stage("workerEncodeMs", encode_ms);
                record_stage("workerReadMs", read_ms);
                record_stage("workerToPageMs", now_ms() - parse_start.get());
                // the worker is done: free its memory now, not after the decode
                if let Some(w) = job.worker.borrow_mut().take() {
                    w.terminate();
                }
                job.parsed(trace, parse_ms);
            }
            Some(Message::Error { message }) => job.emit(LoadEvent::Failed(message)),
            Some(Message::Encoding { buffer }) => job.stream_from(buffer),
            Some(Message::Encoded { bytes }) => {
                if let Some(s) = job.stream.borrow().as_ref() {
                    s.available.set(bytes.min(s.view.length()));
                }
            }
            Some(Message::Load { .. } | Message::Demo { .. }) | None => {
                job.emit(LoadEvent::Failed("internal: unexpected message from the parser worker".into()))
            }
        }
    });
    let job2 = job.clone();
    let onerror = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let job = &job2;
        if threaded && !job.finished.get() {
            let request = pending.borrow_mut().take();
            if let Some(request) = request {
                // the threaded worker did not start: the classic one, once, without a word
                if let Some(e) = ev.dyn_ref::<web_sys::Event>() {
                    e.prevent_default();
                }
                if let Some(w) = job.worker.borrow_mut().take() {
                    w.set_onmessage(None);
                    w.set_onerror(None);
                    w.terminate();
                }
                THREADED_BROKEN.with(|b| b.set(true));
                spawn_worker(job, CLASSIC_WORKER, false, request);
                return;
            }
        }
        let msg = ev
            .dyn_ref::<ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the worker script could not be loaded".into());
        // a wasm trap: an allocation that failed (a worker's memory ends at 4 GB) or a bug
        let hint = if msg.contains("RuntimeError") {
            " — most likely it ran out of memory (a browser worker holds at most 4 GB); \
             try a smaller capture, or the `loupe` command line, which has no such limit"
        } else {
            ""
        };
        job.emit(LoadEvent::Failed(format!(
            "could not load {}: the parser worker failed ({msg}){hint}",
            job.what
        )));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    job.closures.borrow_mut().extend([onmessage, onerror]);
    *job.worker.borrow_mut() = Some(worker);
    if let Some(threads) = ready {
        send(threads);
    }
}
