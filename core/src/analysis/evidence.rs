//! What the evidence of a profile supports: the gate callers put in front of summaries that
//! would report numbers about data the file does not hold.
//!
//! A capture cut short ([`crate::model::Incomplete`] on a device group) still carries the
//! runtime's totals for the whole execution (`total_time`, `event_count`, …) while only the events
//! before the cut are in the model: a device summary over it would report the runtime's 1.87 ms
//! next to the few events that are there. So it is withheld, with the reason, at the call sites
//! (CLI `summary`, the app's device summary).

use crate::model::Trace;

/// Why the device summary of `trace` must not be shown (`None`: nothing stops it): the first
/// incomplete capture, in plain words ("the NTFF ends at byte N: the capture is incomplete …").
pub fn device_summary_withheld(trace: &Trace) -> Option<String> {
    let (g, inc) = trace.incomplete_capture()?;
    let file = g.source_file.map(|f| format!("'{}': ", trace.str(f))).unwrap_or_default();
    Some(format!(
        "{file}{}; no device summary: the runtime's totals describe events that are not in the file",
        inc.message("NTFF")
    ))
}
