//! Streaming import and lazy arguments.
//!
//! [`import_stream`] reads a Chrome JSON file from any [`std::io::Read`] in chunks (the browser's
//! worker reads the dropped `File` with `Blob.slice`), so the file is never resident as a whole:
//! the parser ([`super::parse::StreamParser`]) consumes whole events and carries a cut event over
//! to the next chunk. The model is the same as from the whole buffer (tested at chunk sizes down
//! to 7 bytes).
//!
//! With [`StreamOptions::lazy_args`], the `args` of complete (`X`) and instant (`i`/`I`) events
//! are not parsed into memory: the model keeps their byte range in the file
//! ([`crate::model::LazyArgs`], 8 bytes) plus the typed ids analyses need at once
//! ([`crate::model::GpuIds`]: Kineto's `stream` and `correlation`, 16 bytes), and the viewer
//! re-reads the range when an event is inspected ([`args_from_text`]). Args of other phases
//! (B/E pairs are merged, counters and metadata are used at load) and args objects of 64 KiB or
//! more are parsed as before. What lazy args cannot do: the search's `arg:` terms and the
//! eager-args fallback of the GPU analyses see nothing in a lazy set.

use std::io::Read;

use super::args::ArgBuf;
use super::intern::RawInterner;
use super::keys::Dialect;
use super::parse::StreamParser;
use super::scan::Scan;
use crate::import::{ImportError, Progress};
use crate::model::{ArgValue, TraceBuilder};

/// How [`import_stream`] reads and what it keeps.
#[derive(Debug, Clone, Copy)]
pub struct StreamOptions {
    /// Bytes asked of the reader per read (grown while one event is longer than this); the
    /// least a [`StreamImport`] parses at once (but for the last piece).
    pub chunk_bytes: usize,
    /// Keep args as byte ranges of input file number `file` (see the module doc).
    pub lazy_args: Option<u8>,
    /// Refuse the file early ([`ImportError::TooLarge`]) when the model it would build is
    /// estimated above this many bytes at its peak (see [`estimate_peak_bytes`]).
    pub max_peak_bytes: Option<u64>,
}

/// Peak bytes per input event while streaming (chunk, builder columns, then the finished
/// columns and the LOD next to them), measured on a 200 MB Kineto-like trace with
/// `bench_stream` (peak RSS growth / events): ≈ 89 with lazy args, ≈ 165 with args in memory.
/// Rounded up: the estimate must err on the side of refusing a file before the tab dies.
pub const PEAK_BYTES_PER_EVENT_LAZY: u64 = 96;
pub const PEAK_BYTES_PER_EVENT_EAGER: u64 = 200;

/// The estimated peak memory of importing a `total`-byte file of which the first `read` bytes
/// held `events` events.
pub fn estimate_peak_bytes(total: u64, read: u64, events: u64, lazy: bool) -> u64 {
    let per_event = if lazy { PEAK_BYTES_PER_EVENT_LAZY } else { PEAK_BYTES_PER_EVENT_EAGER };
    let est_events = (events as f64 * total as f64 / read.max(1) as f64) as u64;
    est_events.saturating_mul(per_event)
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions { chunk_bytes: 16 << 20, lazy_args: None, max_peak_bytes: None }
    }
}

/// Import a Chrome JSON file of `total` bytes from `reader` into `b`, chunk by chunk. Returns
/// whether the content was Kineto (and sets the builder's format like the importer does).
pub fn import_stream(
    reader: &mut dyn Read,
    total: u64,
    b: &mut TraceBuilder,
    opts: StreamOptions,
    progress: &mut dyn Progress,
) -> Result<(), ImportError> {
    let chunk = opts.chunk_bytes.max(1);
    let mut imp = StreamImport::new(b, total, opts);
    let mut eof = false;
    while !eof {
        // read at least a chunk, and as much as is carried over: an event longer than a chunk
        // is re-parsed at most a few times, not once per chunk
        let want = chunk.max(imp.buffered());
        imp.push_with(
            want,
            |out| {
                let mut got = 0;
                while got < out.len() {
                    match reader.read(&mut out[got..]) {
                        Ok(0) => return Ok((got, true)),
                        Ok(n) => got += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok((got, false))
            },
            progress,
        )?;
        eof = imp.ended();
    }
    let dialect = imp.finish(progress)?;
    set_format(b, dialect);
    Ok(())
}

/// The builder's format from the dialect the content revealed (as the whole-file importer sets it).
pub fn set_format(b: &mut TraceBuilder, dialect: Dialect) {
    if dialect.kineto {
        b.set_format("pytorch-kineto");
    } else if dialect.furiosa {
        b.set_format("furiosa");
    }
}

/// A Chrome JSON import that is handed its bytes in pieces as they arrive ([`import_stream`]
/// pulls them from a reader; the browser's worker pushes what its asynchronous reads of the
/// `File`'s stream deliver). The pieces may have any sizes: they are gathered until a chunk
/// ([`StreamOptions::chunk_bytes`]) is buffered, an event cut by the end of what is buffered is
/// carried over, and while the carried bytes are more than half of what is buffered (an event
/// longer than a chunk) nothing is parsed, so a long event is parsed again at most a few times.
pub struct StreamImport<'b> {
    p: StreamParser<'b>,
    /// The bytes carried over, then the piece being pushed: `buf[..filled]`. The rest of `buf`
    /// is stale bytes kept initialised, so a piece is copied in without zeroing its room first
    /// (a `resize` per piece was a memset of the whole file).
    buf: Vec<u8>,
    filled: usize,
    /// Of `buf`, the bytes carried over from the last parse.
    carried: usize,
    opts: StreamOptions,
    total: u64,
    checked: bool,
    ended: bool,
}

impl<'b> StreamImport<'b> {
    /// `total` is the file's size in bytes.
    pub fn new(b: &'b mut TraceBuilder, total: u64, opts: StreamOptions) -> Self {
        let mut p = StreamParser::new(b, total);
        p.conv().lazy_file = opts.lazy_args;
        let chunk = opts.chunk_bytes.max(1);
        StreamImport {
            p,
            // room for a chunk and the cut event carried over from the last one: a buffer of
            // one chunk grew (a copy into fresh memory) at the second chunk, ≈ 14 ms of a 50 MB
            // import in the browser's worker
            buf: Vec::with_capacity(chunk.saturating_add(chunk / 8)),
            filled: 0,
            carried: 0,
            opts,
            total,
            checked: false,
            ended: false,
        }
    }

    /// Bytes pushed and not parsed yet (the start of a cut event, or pieces being gathered).
    pub fn buffered(&self) -> usize {
        self.filled
    }

    /// Whether the last piece has been pushed.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Push the next piece: `fill` writes up to `n` bytes into the slice it is given and returns
    /// how many it wrote and whether the file ends there. Parses every complete unit.
    pub fn push_with(
        &mut self,
        n: usize,
        fill: impl FnOnce(&mut [u8]) -> std::io::Result<(usize, bool)>,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        let old = self.filled;
        let need = old.checked_add(n).ok_or_else(|| ImportError::Invalid {
            format: "chrome-json",
            message: "a piece larger than memory".into(),
        })?;
        if self.buf.len() < need {
            // zeroed once, when the buffer grows (the allocation's own capacity first)
            self.buf.resize(need.max(self.buf.capacity()), 0);
        }
        let (got, eof) = fill(&mut self.buf[old..need]).map_err(|e| ImportError::Invalid {
            format: "chrome-json",
            message: format!("could not read the file: {e}"),
        })?;
        self.filled = old + got.min(n);
        self.ended = eof;
        // parse at least a chunk at once (small pieces are gathered first) and, while an event
        // is longer than that, wait until the buffer has doubled
        if !eof && self.filled < self.opts.chunk_bytes.max(2 * self.carried) {
            return Ok(());
        }
        let used = self.p.feed(&self.buf[..self.filled], eof, progress)?.min(self.filled);
        self.buf.copy_within(used..self.filled, 0);
        self.filled -= used;
        self.carried = self.filled;
        self.check_size()
    }

    /// Push the next piece, copied from `piece`.
    pub fn push(&mut self, piece: &[u8], eof: bool, progress: &mut dyn Progress) -> Result<(), ImportError> {
        self.push_with(
            piece.len(),
            |out| {
                out.copy_from_slice(piece);
                Ok((piece.len(), eof))
            },
            progress,
        )
    }

    /// Refuse the file ([`ImportError::TooLarge`]) when the first fair sample of its events
    /// says its model would not fit [`StreamOptions::max_peak_bytes`].
    fn check_size(&mut self) -> Result<(), ImportError> {
        let (Some(limit), false) = (self.opts.max_peak_bytes, self.checked) else {
            return Ok(());
        };
        let (read, events) = (self.p.consumed(), self.p.events());
        // judge from the first chunk that held a fair sample of events
        if events < 1000 && !self.ended {
            return Ok(());
        }
        self.checked = true;
        let lazy = self.opts.lazy_args.is_some();
        let est = estimate_peak_bytes(self.total, read, events, lazy);
        if est <= limit {
            return Ok(());
        }
        let est_events = est / if lazy { PEAK_BYTES_PER_EVENT_LAZY } else { PEAK_BYTES_PER_EVENT_EAGER };
        Err(ImportError::TooLarge {
            what: format!(
                "this file ({}) holds about {} million events (judging from its first {}); building its model would take about {},",
                crate::limits::human_bytes(self.total),
                est_events / 1_000_000,
                crate::limits::human_bytes(read),
                crate::limits::human_bytes(est)
            ),
            limit,
        })
    }

    /// After the last piece: close what is open and return the dialect the content revealed
    /// (for [`set_format`]).
    pub fn finish(self, progress: &mut dyn Progress) -> Result<Dialect, ImportError> {
        if !self.ended {
            return Err(ImportError::Invalid {
                format: "chrome-json",
                message: "internal: the stream was finished before its last piece".into(),
            });
        }
        self.p.finish(progress)
    }
}

/// The (key, display value) pairs of an args object's text, exactly as
/// [`crate::model::Trace::args_display`] shows the same object imported eagerly.
pub fn args_from_text(text: &[u8]) -> Vec<(String, String)> {
    let mut b = TraceBuilder::new("");
    let mut strs = RawInterner::new();
    let mut buf = ArgBuf::default();
    let mut s = Scan::new(text);
    if s.peek_ws() != Some(b'{') {
        return Vec::new();
    }
    buf.scan(&mut s, &mut strs, &mut b);
    buf.items()
        .iter()
        .map(|&(k, v)| {
            let v = match v {
                ArgValue::Null => "null".into(),
                ArgValue::Bool(x) => x.to_string(),
                ArgValue::Int(i) => i.to_string(),
                ArgValue::UInt(i) => i.to_string(),
                ArgValue::Float(f) => f.to_string(),
                ArgValue::Str(s) | ArgValue::Json(s) => b.string(s).to_string(),
            };
            (b.string(k).to_string(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::ids::{kineto_ids, walk_ids};
    use super::*;
    use crate::model::GpuIds;

    /// The parser's walk reads the ids [`kineto_ids`] reads from the same text, and ends where
    /// the lenient skip ends; it gives up (None) exactly on objects that are not well formed.
    #[test]
    fn walk_ids_agrees_with_kineto_ids() {
        let cases: &[(&str, bool)] = &[
            (r#"{}"#, true),
            (r#"{ }"#, true),
            (r#"{"stream": 7, "correlation": 12}"#, true),
            (r#"{"a": [1, {"stream": 3}], "b": "x\"}", "correlation": "41"}"#, true),
            (r#"{"stream": 1, "stream": 2}"#, true),
            (r#"{"correlation": 1.9, "stream": null, "grid": [4, 1, 1]}"#, true),
            (r#"{"str\u0065am": 5}"#, true),
            (r#"{"stream" 5}"#, false),
            (r#"{"stream": 5 "correlation": 6}"#, false),
            (r#"{"stream": 5, }"#, false),
            (r#"{"stream": tru}"#, false),
            (r#"{"correlation": 9, "x": [1, 2}"#, false),
            (r#"{"stream": 5"#, false),
        ];
        for &(text, well_formed) in cases {
            let b = text.as_bytes();
            let mut s = Scan::new(b);
            let walked = walk_ids(&mut s);
            assert_eq!(walked.is_some(), well_formed, "{text}");
            if let Some(ids) = walked {
                assert_eq!(ids, kineto_ids(b), "{text}");
                let mut skip = Scan::new(b);
                let end = skip.skip_value().map(|(_, e)| e);
                assert_eq!(Ok(s.pos), end, "{text}");
            }
        }
        let ids = kineto_ids(br#"{"stream": 1, "stream": 2, "correlation": "41"}"#);
        assert_eq!(ids, GpuIds { stream: Some(2), correlation: Some(41) });
    }
}
