//! Shared by every fuzz target (included with `#[path]`): import the bytes and, when a trace comes
//! back, check every model invariant ([`loupe_core::Trace::validate`]). A panic, a broken
//! invariant, a hang (libFuzzer `-timeout`) or an allocation above `-rss_limit_mb` is a finding.

use loupe_core::import::chrome::StreamOptions;
use loupe_core::import::{import_bytes, import_chrome_stream, NoProgress};

pub fn import_and_validate(file_name: &str, data: &[u8]) {
    if let Ok(trace) = import_bytes(file_name, data, &mut NoProgress) {
        if let Err(e) = trace.validate() {
            panic!("{file_name}: imported trace breaks an invariant: {e}");
        }
    }
}

/// The streamed Chrome JSON import with lazy arguments (the browser worker's path for big files:
/// the event parser walks each args object for Kineto's ids), in `chunk`-byte reads.
#[allow(dead_code)] // only the Chrome target uses it
pub fn stream_lazy_and_validate(file_name: &str, data: &[u8], chunk: usize) {
    let opts = StreamOptions { chunk_bytes: chunk, lazy_args: Some(0), max_peak_bytes: None };
    let mut r = data;
    if let Ok(trace) = import_chrome_stream(file_name, data.len() as u64, &mut r, opts, &mut NoProgress) {
        if let Err(e) = trace.validate() {
            panic!("{file_name} (streamed, lazy args): imported trace breaks an invariant: {e}");
        }
    }
}
