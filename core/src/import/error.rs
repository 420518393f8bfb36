//! The importers' error and progress types: the part of the importer contract that the low
//! layers (resource limits, parallel reading) need, with no dependency on the model.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ImportError {
    /// "Not mine" after a closer look than the sniff: the next candidate importer is tried.
    #[error("not a {0} file")]
    NotMine(&'static str),
    /// No importer took the file: a description of it (ends with what Loupe reads).
    #[error("unrecognised file format{0}. {SUPPORTED_FORMATS}")]
    UnknownFormat(String),
    /// Damage at a known byte offset.
    #[error("{format}: {message} (at byte {offset})")]
    Malformed { format: &'static str, offset: u64, message: String },
    /// Damage without a byte offset to point at (the message says where, if it knows).
    #[error("{format}: {message}")]
    Invalid { format: &'static str, message: String },
    #[error("{format}: {message}")]
    Unsupported { format: &'static str, message: String },
    /// A versioned input written under another MAJOR version of its schema than Loupe reads
    /// (an incompatible change): the file that states the version, and both versions.
    #[error(
        "{format}: '{file}' says schema version {found}; Loupe reads schema {supported} and a \
         different MAJOR version is an incompatible change (re-export with a Neuron Explorer that \
         writes schema {supported_major}.x, or open the NTFF and NEFF instead)"
    )]
    SchemaVersion {
        format: &'static str,
        file: String,
        found: String,
        supported: &'static str,
        supported_major: u64,
    },
    #[error("the file is empty")]
    Empty,
    #[error("{0}")]
    Container(String),
    #[error("cancelled")]
    Cancelled,
    /// The input, or what it expands to, is more than Loupe can hold ([`crate::limits`]).
    #[error("{what} more than {} (the most Loupe can hold in memory)", crate::units::human_bytes(*.limit))]
    TooLarge { what: String, limit: u64 },
    /// What was built from the input crossed the import's memory budget
    /// ([`crate::limits::Budget`]) or a count limit: `count` of `what` exceed `limit`.
    #[error("{} {what} exceed the limit of {limit}", crate::units::thousands(*.count))]
    OverBudget { count: u64, what: String, limit: String },
}

/// Progress sink: importers call `report` every few MB; returning `false` cancels the import.
pub trait Progress {
    fn report(&mut self, done_bytes: u64, total_bytes: u64) -> bool;
}

/// A no-op progress sink.
pub struct NoProgress;
impl Progress for NoProgress {
    fn report(&mut self, _: u64, _: u64) -> bool {
        true
    }
}

impl<F: FnMut(u64, u64) -> bool> Progress for F {
    fn report(&mut self, done: u64, total: u64) -> bool {
        self(done, total)
    }
}

/// What Loupe reads, for the "unrecognised file format" message.
pub const SUPPORTED_FORMATS: &str =
    "Loupe reads: Chrome/Perfetto JSON trace events (incl. PyTorch profiler/Kineto, \
TensorFlow, Furiosa), neuron-profile JSON exports, Neuron Explorer Parquet tables, NEFF and NTFF v5 \
files, DLProf report CSVs, TensorBoard-Neuron operator files, saved .loupe files, Perfetto protobuf traces (.pftrace), \
XProf/TensorBoard profile XSpace files (.xplane.pb) and XProf tool JSON, Nsight Systems SQLite exports, DLProf databases (dlprof_dldb.sqlite), rocprofv3 JSON; each may be gzip- or zip-compressed";
