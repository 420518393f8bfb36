//! Shared by every fuzz target (included with `#[path]`): import the bytes and, when a trace comes
//! back, check every model invariant ([`loupe_core::Trace::validate`]). A panic, a broken
//! invariant, a hang (libFuzzer `-timeout`) or an allocation above `-rss_limit_mb` is a finding.

use loupe_core::import::{import_bytes, NoProgress};

pub fn import_and_validate(file_name: &str, data: &[u8]) {
    if let Ok(trace) = import_bytes(file_name, data, &mut NoProgress) {
        if let Err(e) = trace.validate() {
            panic!("{file_name}: imported trace breaks an invariant: {e}");
        }
    }
}
