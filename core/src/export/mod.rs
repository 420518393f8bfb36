//! Getting data out of a [`Trace`](crate::Trace): Parquet tables ([`parquet`], one table per event kind, schema in
//! `docs/export.md`), Perfetto-compatible Chrome trace JSON ([`chrome_json`]) and CSV ([`csv`]:
//! slices of a range or a set of events, report and analysis tables).
//!
//! Pure functions over `&Trace` that write into any `std::io::Write` (a `Vec<u8>` in the app, a
//! buffered file in the CLI): nothing here opens files, and nothing holds a second copy of the
//! output. Names and units are the model's (`_ns` times on the file's own clock).

pub mod chrome_json;
pub mod csv;
pub mod parquet;

use crate::model::{GroupKind, TrackKind, TrackRole};

/// Why an export failed (the writer failed, or the Parquet encoder refused).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("write failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("Parquet: {0}")]
    Parquet(String),
    #[error("unknown table {0:?} (known: {1})")]
    UnknownTable(String, String),
}

/// Stable snake_case name of a track role (`engine` tracks also carry the engine's name).
pub fn role_name(r: TrackRole) -> &'static str {
    match r {
        TrackRole::Generic => "generic",
        TrackRole::CpuThread => "cpu_thread",
        TrackRole::GpuStream => "gpu_stream",
        TrackRole::Engine(_) => "engine",
        TrackRole::DmaQueue => "dma_queue",
        TrackRole::DmaTransfers => "dma_transfers",
        TrackRole::Throttle => "throttle",
        TrackRole::CollectiveOps => "collective_ops",
        TrackRole::OperatorSpans(crate::model::WorkKind::Compute) => "operator_spans_compute",
        TrackRole::OperatorSpans(crate::model::WorkKind::Control) => "operator_spans_control",
        TrackRole::OperatorSpans(crate::model::WorkKind::DataTransfer) => "operator_spans_data_transfer",
    }
}

pub fn track_kind_name(k: TrackKind) -> &'static str {
    match k {
        TrackKind::Thread => "thread",
        TrackKind::Stream => "stream",
        TrackKind::Dma => "dma",
        TrackKind::Async => "async",
        TrackKind::Overlap => "overlap",
    }
}

pub fn group_kind_name(k: GroupKind) -> &'static str {
    match k {
        GroupKind::Process => "process",
        GroupKind::Device => "device",
        GroupKind::Other => "other",
    }
}
