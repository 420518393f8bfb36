//! The parser worker: receives the `File`s, reads them itself (asynchronous reads of each
//! `File`'s stream, [`StreamReader`]), runs the import, reports progress, and sends the finished
//! trace back in a transferred `ArrayBuffer` ([`loupe_core::model::wire`]: skeleton + raw
//! columns, so the page can decode it in slices). [`parse_sources`], the same steps over
//! blocking readers, is shared with the in-thread loader used by the browser tests (which feeds
//! it in-memory readers) and the worker's warm-up.
//!
//! * **One Chrome JSON file** ([`loupe_core::import::streamable`] on its first bytes) is
//!   streamed: parsed as the reads deliver it (the classic worker a 1 MiB chunk at a time, the
//!   threaded one hands 16 MiB chunks to its pool), so it is never resident as a whole. Above
//!   the page's `lazy_args_above` ([`super::lazy_args_above`], 64 MB by default) its arguments
//!   stay in the file as byte ranges (the details panel re-reads them from the `File`, see
//!   [`crate::lazy_args`]), and [`MAX_PEAK_BYTES`] refuses a file whose model cannot fit.
//! * **Anything else** (other formats, several files, gzip/zip) is read whole, in the worker,
//!   and imported together as before.

use std::io::Read;

use loupe_core::import::chrome::StreamOptions;
#[cfg(not(feature = "sqlite"))]
use loupe_core::import::import_owned;
use loupe_core::import::{import_chrome_stream, streamable, InputFile, SNIFF_BYTES};
use loupe_core::model::wire::Sink;
use loupe_core::Trace;
// every format, the SQLite ones (loupe-sqlite: a real SQLite, compiled to wasm32) included: the
// worker binary is built with the `sqlite` feature (index.html)
#[cfg(feature = "sqlite")]
use loupe_sqlite::import_owned;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, File, MessageEvent};

use super::protocol::{self, Message};

/// Bytes [`parse_sources`] reads at a time from a streamed file's reader (and the threaded
/// worker hands its pool at once).
pub const READ_CHUNK_BYTES: usize = 16 << 20;

/// The largest estimated import peak of a streamed Chrome JSON the worker accepts (see
/// `loupe_core::import::chrome::estimate_peak_bytes`; an NTFF imported whole has
/// [`MAX_NTFF_PEAK_BYTES`]). wasm32 memory ends at 4 GiB and never shrinks; after the peak, the worker encodes the model into a JavaScript buffer a column at a
/// time ([`protocol::BufferSink`]), and the page then decodes those bytes into its own 4 GiB.
/// 2.5 GiB of peak leaves room for fragmentation and the estimate's error; a bigger
/// file gets [`loupe_core::import::ImportError::TooLarge`] after its first chunk, before memory
/// is in danger.
pub const MAX_PEAK_BYTES: u64 = 2560 << 20;

/// The largest estimated peak of an NTFF capture imported whole (`loupe_core::import::check_peak`,
/// [`parse_and_encode`]). That estimate is counted, not guessed: the worker's heap phase by phase
/// (`core/examples/import_peak.rs`: 3.13–3.26 bytes per byte of capture from 100 MB to 2 GB, at
/// the end of the builder's fill; the file is freed before the operator timeline and `finish`,
/// and the encoding after them goes to a JavaScript buffer 4 MiB at a time), rounded up to 3.7.
/// The limit is set by the page, not the worker: with 3 GiB (captures up to ≈ 870 MB accepted)
/// a generated 870 MB pair imported in the worker and the page decoded and indexed its model
/// (1.4 GB, 27 M slices), then ran out of its own 4 GiB in the warning bands' idle-engine rule
/// (`analysis::warning_bands`, a copy of every engine interval and their unions) and stopped
/// without a message (2026-12-07, bench/RESULTS.md); a 750 MB pair opens. 2.6 GiB accepts
/// captures up to ≈ 754 MB (≈ 660 MB before, at 4.85 bytes per byte).
pub const MAX_NTFF_PEAK_BYTES: u64 = 2662 << 20;

/// Timings of a parse whose trace went to a [`Sink`] (a `Vec<u8>` in the page's in-thread
/// loader, a [`protocol::BufferSink`] in the worker).
pub struct Encoded {
    pub parse_ms: f64,
    pub encode_ms: f64,
    /// Of `parse_ms`, the time spent reading whole files before the import (the worker reports
    /// the time in its `File` reads instead, a streamed file's included).
    pub read_ms: f64,
}

/// One input: its name, size and bytes from the start.
pub struct Source {
    pub name: String,
    pub size: u64,
    pub reader: Box<dyn Read>,
}

thread_local! {
    /// Milliseconds this thread spent waiting for its `File` reads since the load began.
    static READING_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// The worker's clock (ms).
fn clock_ms() -> f64 {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.performance().map_or_else(js_sys::Date::now, |p| p.now())
}

/// `progress(stage, done, total)` at most every ~100 ms of `now_ms` (and at the end).
fn throttled<'a>(
    stage: &'a str,
    now_ms: &'a dyn Fn() -> f64,
    progress: &'a mut dyn FnMut(&str, u64, u64),
) -> impl FnMut(u64, u64) -> bool + 'a {
    let mut last_ms = f64::NEG_INFINITY;
    move |done: u64, total: u64| {
        let t = now_ms();
        if t - last_ms >= 100.0 || done >= total {
            last_ms = t;
            progress(stage, done, total);
        }
        true
    }
}

fn encode(
    trace: Trace,
    t0: f64,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
    out: &mut dyn Sink,
) -> Result<Encoded, String> {
    let t1 = now_ms();
    progress("encoding", 1, 1);
    loupe_core::model::wire::encode_to(trace, out).map_err(|e| format!("could not encode the trace: {e}"))?;
    Ok(Encoded { parse_ms: t1 - t0, encode_ms: now_ms() - t1, read_ms: 0.0 })
}

/// Import `files` (whole, in memory) together and encode the trace into `out`. `now_ms` is a
/// clock; `progress(stage, done, total)` is called at most every ~100 ms of `now_ms`. The files
/// are freed once the importers have read them (`import_owned`), before the derived tracks and
/// `finish`: the worker never holds them and the finished model at once.
pub fn parse_and_encode(
    files: Vec<(String, Vec<u8>)>,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
    out: &mut dyn Sink,
) -> Result<Encoded, String> {
    let t0 = now_ms();
    {
        let inputs: Vec<InputFile<'_>> =
            files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
        // a capture too big for this worker's memory: a clear message now, not an abort later
        loupe_core::import::check_peak(&inputs, MAX_NTFF_PEAK_BYTES).map_err(|e| e.to_string())?;
    }
    // the files are freed as soon as the importers have read them, before `finish`
    let trace =
        import_owned(files, &mut throttled("parsing", now_ms, progress)).map_err(|e| e.to_string())?;
    encode(trace, t0, now_ms, progress, out)
}

/// Build the `?demo=N` profile (`loupe_core::demo::large_demo`, capped there) and encode it like a
/// parsed file; progress stage "generating" counts slices.
pub fn demo_and_encode(
    slices: u64,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
    out: &mut dyn Sink,
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
    encode(trace, t0, now_ms, progress, out)
}

fn read_err(name: &str, e: std::io::Error) -> String {
    format!("could not read '{name}': {e}")
}

/// Up to `n` bytes from the start of `r`.
fn read_prefix(r: &mut dyn Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut v)?;
    Ok(v)
}

/// Import `sources`: one streamable Chrome JSON is streamed (lazy args when it is larger than
/// `lazy_args_above` bytes), anything else read whole and imported together. Then encode.
pub fn parse_sources(
    mut sources: Vec<Source>,
    lazy_args_above: f64,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(&str, u64, u64),
    out: &mut dyn Sink,
) -> Result<Encoded, String> {
    let t0 = now_ms();
    if let [one] = sources.as_mut_slice() {
        let prefix = read_prefix(&mut one.reader, SNIFF_BYTES).map_err(|e| read_err(&one.name, e))?;
        if streamable(&one.name, &prefix) {
            let opts = StreamOptions {
                chunk_bytes: READ_CHUNK_BYTES,
                lazy_args: (one.size as f64 > lazy_args_above).then_some(0),
                max_peak_bytes: Some(MAX_PEAK_BYTES),
            };
            let mut r = std::io::Cursor::new(prefix).chain(&mut one.reader);
            let trace = {
                let mut sink = throttled("reading and parsing", now_ms, progress);
                let (name, size) = (one.name.clone(), one.size);
                // threaded worker: this thread reads while the pool parses (loupe_core::par;
                // the classic worker reads and parses in turn)
                loupe_core::par::with_read_ahead(&mut r, READ_CHUNK_BYTES, &mut sink, move |r, p| {
                    import_chrome_stream(&name, size, r, opts, p).map_err(|e| e.to_string())
                })?
            };
            return encode(trace, t0, now_ms, progress, out);
        }
        // not streamable: put the sniffed bytes back in front
        let rest = std::mem::replace(&mut one.reader, Box::new(std::io::empty()));
        one.reader = Box::new(std::io::Cursor::new(prefix).chain(rest));
    }
    let total: u64 = sources.iter().map(|s| s.size).sum();
    let mut done = 0u64;
    let mut files = Vec::with_capacity(sources.len());
    {
        let mut sink = throttled("reading", now_ms, progress);
        for s in &mut sources {
            // read straight into the file's buffer (no chunk buffer copied from)
            let size = usize::try_from(s.size).map_err(|_| {
                read_err(&s.name, std::io::Error::other("larger than this worker can address"))
            })?;
            let mut bytes = vec![0u8; size];
            let mut got = 0;
            while got < size {
                let n = s.reader.read(&mut bytes[got..]).map_err(|e| read_err(&s.name, e))?;
                if n == 0 {
                    break;
                }
                got += n;
                done += n as u64;
                sink(done, total);
            }
            // a file that shrank since it was picked: what was read
            bytes.truncate(got);
            files.push((std::mem::take(&mut s.name), bytes));
        }
    }
    drop(sources);
    let read_ms = now_ms() - t0;
    let mut enc = parse_and_encode(files, now_ms, progress, out)?;
    enc.parse_ms = now_ms() - t0 - enc.encode_ms;
    enc.read_ms = read_ms;
    Ok(enc)
}

/// A wasm trap, as a failed allocation or a bug ends in (`?test-worker-trap=`, tests only:
/// [`super::test_worker_trap`]).
fn test_trap() -> ! {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
    #[cfg(not(target_arch = "wasm32"))]
    std::process::abort();
}

fn post(scope: &DedicatedWorkerGlobalScope, msg: &Message) {
    let (v, transfer) = protocol::encode(msg);
    if let Err(e) = scope.post_message_with_transfer(&v, &transfer) {
        web_sys::console::error_2(&"loupe worker: postMessage failed".into(), &e);
    }
}

/// The sink the encoding goes to: shared memory the page decodes from while it is written, where
/// there is shared memory ([`protocol::BufferSink::streaming`]).
fn streaming_sink(scope: &DedicatedWorkerGlobalScope) -> protocol::BufferSink {
    let scope = scope.clone();
    protocol::BufferSink::streaming(Box::new(move |m| post(&scope, m)))
}

fn handle(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    // the warm-up, if it still runs, stops at its next step
    REQUESTED.with(|r| r.set(true));
    let (files, lazy_args_above, trap_on) = match protocol::decode(data) {
        Some(Message::Load { files, lazy_args_above, trap_on }) => (files, lazy_args_above, trap_on),
        Some(Message::Demo { slices }) => {
            let mut progress = |stage: &str, done: u64, total: u64| {
                post(scope, &Message::Progress { stage: stage.to_string(), done, total })
            };
            let mut out = streaming_sink(scope);
            let r = demo_and_encode(slices, &clock_ms, &mut progress, &mut out);
            post_done(scope, out, r);
            return;
        }
        _ => {
            post(
                scope,
                &Message::Error { message: "internal: malformed request to the parser worker".into() },
            );
            return;
        }
    };
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        READING_MS.with(|c| c.set(0.0));
        let mut out = streaming_sink(&scope);
        let r = load(&scope, files, lazy_args_above, &trap_on, &mut out).await;
        post_done(&scope, out, r);
    });
}

/// Post `{done}` with the encoded trace, or `{error}`.
fn post_done(scope: &DedicatedWorkerGlobalScope, out: protocol::BufferSink, r: Result<Encoded, String>) {
    match r {
        Ok(enc) => {
            let buf = out.into_buffer();
            post(
                scope,
                &Message::Done {
                    trace: buf,
                    parse_ms: enc.parse_ms,
                    encode_ms: enc.encode_ms,
                    read_ms: enc.read_ms,
                },
            );
        }
        Err(message) => post(scope, &Message::Error { message }),
    }
}

/// Read `files` and parse them as [`parse_sources`] does (one Chrome JSON streamed, anything else
/// read whole and imported together), reading with asynchronous reads of each `File`'s stream
/// ([`StreamReader`]); then encode into `out`.
async fn load(
    scope: &DedicatedWorkerGlobalScope,
    files: Vec<File>,
    lazy_args_above: f64,
    trap_on: &str,
    out: &mut protocol::BufferSink,
) -> Result<Encoded, String> {
    let t0 = clock_ms();
    let trap = !trap_on.is_empty() && files.iter().any(|f| f.name() == trap_on);
    let mut progress = |stage: &str, done: u64, total: u64| {
        post(scope, &Message::Progress { stage: stage.to_string(), done, total });
        if trap {
            test_trap();
        }
    };
    let finish = |r: Result<Encoded, String>| {
        r.map(|mut enc| {
            // the time waiting for the File reads (they overlap the parse when streamed)
            enc.read_ms = READING_MS.with(|c| c.get());
            enc
        })
    };
    if let [file] = files.as_slice() {
        let (name, size) = (file.name(), file.size() as u64);
        let prefix =
            read_range(file, 0, size.min(SNIFF_BYTES as u64)).await.map_err(|e| read_js_err(&name, e))?;
        if size > 0 && streamable(&name, &prefix) {
            let opts = StreamOptions {
                chunk_bytes: STREAM_CHUNK_BYTES,
                lazy_args: (size as f64 > lazy_args_above).then_some(0),
                max_peak_bytes: Some(MAX_PEAK_BYTES),
            };
            let trace = {
                let mut sink = throttled("reading and parsing", &clock_ms, &mut progress);
                stream(file, prefix, opts, &mut sink).await?
            };
            return finish(encode(trace, t0, &clock_ms, &mut progress, out));
        }
    }
    let total: u64 = files.iter().map(|f| f.size() as u64).sum();
    let mut whole = Vec::with_capacity(files.len());
    {
        let mut sink = throttled("reading", &clock_ms, &mut progress);
        let mut done = 0u64;
        for f in &files {
            let name = f.name();
            // read straight into the file's buffer
            let size = usize::try_from(f.size() as u64)
                .map_err(|_| read_err(&name, std::io::Error::other("larger than this worker can address")))?;
            let mut bytes = vec![0u8; size];
            let mut at = 0;
            for_each_piece(f, 0, |piece, _| {
                let n = piece.length() as usize;
                let to = bytes.get_mut(at..at + n).ok_or_else(|| changed(&name))?;
                piece.copy_to(to);
                at += n;
                done += n as u64;
                sink(done, total);
                Ok(())
            })
            .await?;
            whole.push((name, bytes));
        }
    }
    drop(files);
    let mut enc = parse_and_encode(whole, &clock_ms, &mut progress, out)?;
    enc.parse_ms = clock_ms() - t0 - enc.encode_ms;
    finish(Ok(enc))
}

fn read_js_err(name: &str, e: JsValue) -> String {
    read_err(name, std::io::Error::other(crate::platform::js_err(&e)))
}

fn changed(name: &str) -> String {
    read_err(name, std::io::Error::other("the file changed while it was read"))
}

/// `file[from..to]`, read asynchronously (`Blob.arrayBuffer()`).
async fn read_range(file: &File, from: u64, to: u64) -> Result<Vec<u8>, JsValue> {
    let blob = file.slice_with_f64_and_f64(from as f64, to as f64)?;
    let buf = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Size of the buffer [`StreamReader`] reads a byte stream into.
const STREAM_READ_BYTES: u32 = 1 << 20;

/// The bytes of a `File`'s stream (`Blob.stream()`), read a piece at a time. A byte stream is
/// read into one buffer of [`STREAM_READ_BYTES`] that every read hands back (a "BYOB" reader);
/// other streams (browsers whose `Blob.stream()` is not a byte stream) in the pieces they give.
///
/// Why not `FileReaderSync` or `Blob.arrayBuffer()`: measured on a 200 MB file in a worker,
/// with 2 ms/MiB of simulated parsing after each read, 721–758 ms in all with blocking 16 MiB
/// `FileReaderSync` reads, 695–724 with two 8 MiB `Blob.arrayBuffer()` reads in flight, 510–550
/// with this reader: a fresh 8 or 16 MiB `ArrayBuffer` per read is fresh memory to the kernel
/// (≈ 0.7 ms per MB here), the stream's one buffer is not, and the browser goes on reading into
/// the stream while the worker parses.
enum StreamReader {
    Byob { reader: web_sys::ReadableStreamByobReader, buffer: Option<js_sys::ArrayBuffer> },
    Pieces(web_sys::ReadableStreamDefaultReader),
}

impl StreamReader {
    fn new(blob: &web_sys::Blob) -> Result<StreamReader, JsValue> {
        let stream = blob.stream();
        Ok(match web_sys::ReadableStreamByobReader::new(&stream) {
            Ok(reader) => {
                StreamReader::Byob { reader, buffer: Some(js_sys::ArrayBuffer::new(STREAM_READ_BYTES)) }
            }
            Err(_) => StreamReader::Pieces(web_sys::ReadableStreamDefaultReader::new(&stream)?),
        })
    }

    /// The next piece, `None` at the end. A BYOB piece is valid until the next call.
    async fn next(&mut self) -> Result<Option<js_sys::Uint8Array>, JsValue> {
        let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k));
        let result = match self {
            StreamReader::Byob { reader, buffer } => {
                let buf = buffer.take().ok_or_else(|| JsValue::from_str("read after the end"))?;
                let view = js_sys::Uint8Array::new(&buf);
                wasm_bindgen_futures::JsFuture::from(reader.read_with_array_buffer_view(&view)).await?
            }
            StreamReader::Pieces(reader) => wasm_bindgen_futures::JsFuture::from(reader.read()).await?,
        };
        if get(&result, "done")?.as_bool() == Some(true) {
            return Ok(None);
        }
        let piece: js_sys::Uint8Array = get(&result, "value")?.dyn_into()?;
        if let StreamReader::Byob { buffer, .. } = self {
            // the buffer came back (moved into this view): the next read fills it again
            *buffer = Some(piece.buffer());
        }
        Ok(Some(piece))
    }
}

/// `f(piece, last)` on each non-empty piece of `file[from..]`, as the reads deliver them
/// ([`StreamReader`]); `last` says the piece ends the file. The time waiting for the reads counts
/// in [`READING_MS`]. Fails when the file is not `file.size()` long (changed since it was picked).
async fn for_each_piece(
    file: &File,
    from: u64,
    mut f: impl FnMut(&js_sys::Uint8Array, bool) -> Result<(), String>,
) -> Result<(), String> {
    let name = file.name();
    let size = file.size() as u64;
    let mut at = from;
    if at < size {
        let rest = file.slice_with_f64(at as f64).map_err(|e| read_js_err(&name, e))?;
        let mut reader = StreamReader::new(&rest).map_err(|e| read_js_err(&name, e))?;
        loop {
            let t = clock_ms();
            let piece = reader.next().await.map_err(|e| read_js_err(&name, e))?;
            READING_MS.with(|c| c.set(c.get() + clock_ms() - t));
            let Some(piece) = piece else { break };
            if piece.length() == 0 {
                continue;
            }
            at += u64::from(piece.length());
            if at > size {
                return Err(changed(&name));
            }
            f(&piece, at == size)?;
        }
    }
    if at != size {
        return Err(changed(&name));
    }
    Ok(())
}

/// Bytes the classic worker parses at once (what its reads deliver is gathered until then).
#[cfg(not(feature = "threads"))]
const STREAM_CHUNK_BYTES: usize = 1 << 20;

/// Stream one Chrome JSON `File` (whose first bytes `prefix` were read to sniff it) into its
/// model: a chunk of [`STREAM_CHUNK_BYTES`] at a time as the reads deliver it
/// ([`loupe_core::import::chrome::StreamImport`]), the browser reading on in the meantime. Same
/// model as [`parse_sources`] (the same parser, other pieces).
#[cfg(not(feature = "threads"))]
async fn stream(
    file: &File,
    prefix: Vec<u8>,
    opts: StreamOptions,
    progress: &mut dyn loupe_core::import::Progress,
) -> Result<Trace, String> {
    use loupe_core::import::chrome::{set_format, StreamImport};
    let (name, size) = (file.name(), file.size() as u64);
    // under the import's budget, as every other import (Budget::for_input)
    let mut b = loupe_core::import::chrome_stream_builder(size);
    {
        let mut imp = StreamImport::new(&mut b, size, opts);
        let first = prefix.len() as u64;
        imp.push(&prefix, first >= size, progress).map_err(|e| e.to_string())?;
        drop(prefix);
        for_each_piece(file, first, |piece, eof| {
            let n = piece.length() as usize;
            imp.push_with(
                n,
                |out| {
                    piece.copy_to(out);
                    Ok((n, eof))
                },
                progress,
            )
            .map_err(|e| e.to_string())
        })
        .await?;
        let dialect = imp.finish(progress).map_err(|e| e.to_string())?;
        set_format(&mut b, dialect);
    }
    loupe_core::import::finish_chrome_stream(&name, b).map_err(|e| e.to_string())
}

/// Bytes the threaded worker sends its pool at once.
#[cfg(feature = "threads")]
const STREAM_CHUNK_BYTES: usize = 2 << 20;

/// Stream one Chrome JSON `File` (whose first bytes `prefix` were read to sniff it) into its
/// model: the pool parses ([`loupe_core::import::import_chrome_stream`] on a
/// [`loupe_core::par::Feed`]) while this thread reads and sends it chunks of
/// [`STREAM_CHUNK_BYTES`] (blocking while two wait). Same model as [`parse_sources`].
#[cfg(feature = "threads")]
async fn stream(
    file: &File,
    prefix: Vec<u8>,
    opts: StreamOptions,
    progress: &mut dyn loupe_core::import::Progress,
) -> Result<Trace, String> {
    let (name, size) = (file.name(), file.size() as u64);
    let first = prefix.len() as u64;
    let mut feed = {
        let name = name.clone();
        loupe_core::par::Feed::spawn(move |r, p| {
            import_chrome_stream(&name, size, r, opts, p).map_err(|e| e.to_string())
        })
    };
    let mut chunk = prefix;
    chunk.reserve(STREAM_CHUNK_BYTES.saturating_sub(chunk.len()));
    let mut stopped = false;
    let read = for_each_piece(file, first, |piece, _| {
        let old = chunk.len();
        chunk.resize(old + piece.length() as usize, 0);
        piece.copy_to(&mut chunk[old..]);
        if chunk.len() >= STREAM_CHUNK_BYTES {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(STREAM_CHUNK_BYTES));
            if !feed.send(Ok(full), progress) {
                // the parser stopped (it refused the file, or failed; its result says why):
                // read no further
                stopped = true;
                return Err(String::new());
            }
        }
        Ok(())
    })
    .await;
    match read {
        _ if stopped => {}
        Ok(()) => {
            if !chunk.is_empty() {
                feed.send(Ok(chunk), progress);
            }
        }
        // the parser ends with the read error
        Err(e) => {
            feed.send(Err(std::io::Error::other(e)), progress);
        }
    }
    feed.finish()
}

/// Entry point of the worker binary. The threaded build (feature `threads`) first starts its
/// thread pool ([`start_pool`]); either way the page's messages are handled only after `{ready}`.
pub fn run() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // a load waits for this worker (it was not started ahead): no warm-up
    let warm = scope.name() != protocol::WORKER_FOR_A_LOAD;
    wasm_bindgen_futures::spawn_local(async move {
        #[cfg(feature = "threads")]
        let threads = start_pool(&scope).await;
        #[cfg(not(feature = "threads"))]
        let threads = 1;
        listen(&scope, threads);
        if warm {
            warm_up(&scope).await;
        }
    });
}

thread_local! {
    /// A request arrived: the warm-up takes no further step.
    static REQUESTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Iterations of the warm-up's NEFF + NTFF pair (3 instruction executions each: ≈ 2.9 MB).
const WARM_NTFF_ITERATIONS: u32 = 30_000;
/// Bytes of the warm-up's Kineto-like Chrome JSON (imported twice: arguments kept, arguments lazy).
const WARM_JSON_BYTES: usize = 2_000_000;

/// Run the worker's own import paths once on small generated inputs, after `{ready}`, in steps
/// (a task each: the inputs built, a NEFF + NTFF pair read whole, a Kineto-like Chrome JSON
/// streamed with its arguments kept, then lazy, each encoded into a sink that drops the bytes),
/// and post `{warm}` when all ran. A request that arrives meanwhile waits at most for the step
/// under way, and the steps after it are skipped (the page started this worker ahead of the
/// user's pick, [`super::prewarm`], and a user who picks at once should not wait for it).
///
/// Why: the browser compiles wasm lazily with its baseline tier and optimises a function only
/// once it has run hot, and a function already running (the import's loop over every event, called
/// once) keeps its baseline code until its next call. Measured in the browser benchmark page
/// (`pair_import` of the 100 MB NTFF pair, fresh page): the first import 1.34–1.6 s, the next ones
/// 0.90–0.93 s; with a 1 MB pair imported first, the first 1.0–1.2 s. The results are thrown
/// away; wasm memory keeps what the warm-up grew (its largest step, the 2.9 MB pair, peaks at
/// about 5 bytes per byte of NTFF: ≈ 15 MB).
async fn warm_up(scope: &DedicatedWorkerGlobalScope) {
    use loupe_core::neuron::{neff, ntff};
    struct Drop0;
    impl Sink for Drop0 {
        fn begin(&mut self, _: usize) {}
        fn put(&mut self, write: &mut dyn FnMut(&mut Vec<u8>)) {
            let mut v = Vec::new();
            write(&mut v);
        }
    }
    let mut busy_ms = 0.0;
    // a zero timeout: the worker's event loop runs the tasks queued meanwhile (a request waiting
    // is handled first); false when a request came
    let go_on = || async {
        let p = js_sys::Promise::new(&mut |resolve, _| {
            if scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).is_err() {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
        !REQUESTED.with(std::cell::Cell::get)
    };
    if !go_on().await {
        return;
    }
    let t = clock_ms();
    let now_ms = || 0.0;
    let mut progress = |_: &str, _: u64, _: u64| {};
    let source = |name: &str, bytes: Vec<u8>| Source {
        name: name.to_string(),
        size: bytes.len() as u64,
        reader: Box::new(std::io::Cursor::new(bytes)),
    };
    let mut capture = ntff::writer::minimal_pair_capture(WARM_NTFF_ITERATIONS);
    ntff::writer::vary_executions(&mut capture);
    let pair = vec![
        source("warm-up.neff", neff::writer::minimal_neff()),
        source("warm-up.ntff", ntff::writer::write(&capture)),
    ];
    drop(capture);
    let json = loupe_core::import::chrome::synth::chrome_trace_json(WARM_JSON_BYTES, 7);
    busy_ms += clock_ms() - t;
    let runs = [
        (pair, f64::INFINITY),
        (vec![source("warm-up.json", json.clone())], f64::INFINITY),
        (vec![source("warm-up.json", json)], 0.0),
    ];
    for (sources, lazy_args_above) in runs {
        if !go_on().await {
            return;
        }
        let t = clock_ms();
        if let Err(e) = parse_sources(sources, lazy_args_above, &now_ms, &mut progress, &mut Drop0) {
            // a warm-up only: the worker works without it
            web_sys::console::warn_1(&format!("loupe worker: warm-up: {e}").into());
        }
        busy_ms += clock_ms() - t;
    }
    if go_on().await {
        post(scope, &Message::Warm { warm_up_ms: busy_ms });
    }
}

/// Install the message handler, then post `{ready, threads}`.
fn listen(scope: &DedicatedWorkerGlobalScope, threads: u32) {
    let s = scope.clone();
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| handle(&s, &ev.data()));
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // the worker lives until the page terminates it
    onmessage.forget();
    // messages posted before this point would have been dropped: the page waits for "ready"
    post(scope, &Message::Ready { threads });
}

/// The most threads the pool gets (beyond that, memory per thread outweighs the gain).
#[cfg(feature = "threads")]
pub const MAX_THREADS: u32 = 8;

/// How long the pool may take to start before the worker goes on without it.
#[cfg(feature = "threads")]
const POOL_START_TIMEOUT_MS: i32 = 15_000;

/// Start the wasm-bindgen-rayon pool (`navigator.hardwareConcurrency` threads, 1..=
/// [`MAX_THREADS`]) when this worker is cross-origin isolated (else its shared memory cannot be
/// posted to the pool's workers). Returns the pool's size, or 1 when there is no pool: not
/// isolated, the pool failed, or it did not start within [`POOL_START_TIMEOUT_MS`] (a pool worker
/// that cannot load would otherwise keep the page waiting forever); rayon then runs every
/// parallel stage on this thread.
#[cfg(feature = "threads")]
async fn start_pool(scope: &DedicatedWorkerGlobalScope) -> u32 {
    use js_sys::{Promise, Reflect};
    let get = |o: &JsValue, k: &str| Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    if get(scope, "crossOriginIsolated").as_bool() != Some(true) {
        return 1;
    }
    let cores = get(&get(scope, "navigator"), "hardwareConcurrency").as_f64().unwrap_or(1.0);
    let n = (cores as u32).clamp(1, MAX_THREADS);
    let timeout = Promise::new(&mut |resolve, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_1(
            &resolve,
            POOL_START_TIMEOUT_MS,
            &JsValue::from_str("timeout"),
        );
    });
    let pool = wasm_bindgen_rayon::init_thread_pool(n as usize);
    let race = Promise::race(&js_sys::Array::of2(&pool, &timeout));
    match wasm_bindgen_futures::JsFuture::from(race).await {
        Ok(v) if v.as_string().as_deref() == Some("timeout") => {
            web_sys::console::warn_1(
                &"loupe worker: the thread pool did not start in time; one thread".into(),
            );
            1
        }
        Ok(_) => n,
        Err(e) => {
            web_sys::console::warn_2(&"loupe worker: no thread pool, one thread:".into(), &e);
            1
        }
    }
}
