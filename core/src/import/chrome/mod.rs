//! Chrome Trace Event Format (JSON), including the PyTorch profiler (Kineto), Furiosa and
//! TensorFlow timeline dialects. Facts: docs/formats/other-formats.md §1, §2, §5.
//!
//! Single pass over the bytes, no JSON tree: [`scan`] tokenizes, [`events`] picks the known keys
//! of one event as raw slices, [`convert`] turns each event into builder calls, [`parse`] walks the
//! outer array/object and handles damaged files. Strings are interned once per distinct raw text.
//! The converter's state lives in one part per concern: [`intern`] (raw strings), [`args`] (the
//! argument buffer), [`threads`] (processes, threads, B/E stacks, metadata), [`async_table`]
//! (open async slices and async tracks) and [`flows`] (flow events, chained at the end).

mod args;
mod async_table;
mod convert;
mod events;
mod flows;
mod ids;
mod intern;
mod keys;
pub mod kineto;
mod lazy;
mod parse;
mod scan;
pub mod synth;
mod threads;

pub use ids::kineto_ids;
pub use keys::Dialect;
pub use lazy::{
    args_from_text, estimate_peak_bytes, import_stream, set_format, StreamImport, StreamOptions,
    PEAK_BYTES_PER_EVENT_EAGER, PEAK_BYTES_PER_EVENT_LAZY,
};

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::TraceBuilder;

/// The Chrome JSON importer ("chrome-json"; reports "pytorch-kineto" or "furiosa" when the
/// content shows that dialect).
pub struct ChromeJson;

impl Importer for ChromeJson {
    fn name(&self) -> &'static str {
        "chrome-json"
    }

    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        sniff(prefix)
    }

    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        let dialect = parse::run(file.bytes, b, progress)?;
        if dialect.kineto {
            b.set_format("pytorch-kineto");
        } else if dialect.furiosa {
            b.set_format("furiosa");
        }
        Ok(())
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `Yes` for `{"…` / `[{"…` with trace-like keys in the prefix, `Maybe` for other JSON that
/// starts like an object or array (the importer then says clearly what it is), `No` otherwise.
pub fn sniff(prefix: &[u8]) -> Sniff {
    let mut p = prefix;
    if p.starts_with(&[0xEF, 0xBB, 0xBF]) {
        p = &p[3..];
    }
    let skip_ws = |p: &[u8], i: usize| -> usize {
        let mut i = i;
        while i < p.len() && scan::is_ws(p[i]) {
            i += 1;
        }
        i
    };
    let i = skip_ws(p, 0);
    let Some(&first) = p.get(i) else { return Sniff::No };
    let j = skip_ws(p, i + 1);
    let next = p.get(j).copied();
    let tracey = [&b"\"traceEvents\""[..], b"\"ph\"", b"\"schemaVersion\"", b"\"deviceProperties\""]
        .iter()
        .any(|k| contains(p, k));
    match (first, next) {
        (b'{', Some(b'"')) if tracey => Sniff::Yes,
        (b'{', Some(b'"')) | (b'{', None) | (b'{', Some(b'}')) => Sniff::Maybe,
        (b'[', Some(b'{')) if tracey || contains(p, b"\"name\"") => Sniff::Yes,
        (b'[', Some(b'{')) | (b'[', Some(b']')) | (b'[', Some(b',')) | (b'[', Some(b'[')) | (b'[', None) => {
            Sniff::Maybe
        }
        _ => Sniff::No,
    }
}

#[cfg(test)]
mod tests;
