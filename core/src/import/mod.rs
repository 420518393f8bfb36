//! Importers: one module per format, a cheap `sniff`, one registry ([`IMPORTERS`]).
//!
//! Flow: [`import_files`] unwraps containers (gzip, zip: [`container`]), offers each file to the
//! registry in order, and the first importer whose sniff says `Yes` (else the first `Maybe`)
//! converts it into the model through a [`TraceBuilder`]. An importer that is handed a file that
//! is not its own returns [`ImportError::NotMine`] quickly.

pub mod chrome;
pub mod container;

use crate::model::{Trace, TraceBuilder};
use thiserror::Error;

/// Result of a cheap look at the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sniff {
    No,
    Maybe,
    Yes,
}

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("not a {0} file")]
    NotMine(&'static str),
    #[error("unrecognised file format{0}")]
    UnknownFormat(String),
    #[error("{format}: {message} (at byte {offset})")]
    Malformed { format: &'static str, offset: u64, message: String },
    #[error("{format}: {message}")]
    Unsupported { format: &'static str, message: String },
    #[error("the file is empty")]
    Empty,
    #[error("{0}")]
    Container(String),
    #[error("cancelled")]
    Cancelled,
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

/// One input file.
pub struct InputFile<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// The plug-in contract for a format.
pub trait Importer: Sync {
    /// Stable name, reported as the trace's `format`.
    fn name(&self) -> &'static str;
    /// Look at the first bytes (at most [`SNIFF_BYTES`]) and the file name; must be cheap.
    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff;
    /// Convert one file into the builder.
    fn import(&self, file: &InputFile<'_>, b: &mut TraceBuilder, progress: &mut dyn Progress) -> Result<(), ImportError>;
}

/// How many bytes a sniff gets to see.
pub const SNIFF_BYTES: usize = 4096;

/// The registry, in sniff order (the first `Yes` wins). Binary formats with structure checks
/// first, JSON dialects last (their sniff is the most permissive).
pub fn importers() -> Vec<&'static dyn Importer> {
    vec![&chrome::ChromeJson]
}

/// Which importer would take this file (after container unwrapping).
pub fn detect(file_name: &str, bytes: &[u8]) -> Option<&'static dyn Importer> {
    let prefix = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let mut maybe = None;
    for imp in importers() {
        match imp.sniff(file_name, prefix) {
            Sniff::Yes => return Some(imp),
            Sniff::Maybe if maybe.is_none() => maybe = Some(imp),
            _ => {}
        }
    }
    maybe
}

/// Import one file (gzip/zip containers are unwrapped first).
pub fn import_bytes(file_name: &str, bytes: &[u8], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    import_files(&[InputFile { name: file_name, bytes }], progress)
}

/// Import several files into one trace (e.g. a NEFF and its NTFF, or several Parquet tables).
pub fn import_files(files: &[InputFile<'_>], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    let mut unwrapped: Vec<(String, std::borrow::Cow<'_, [u8]>)> = Vec::new();
    for f in files {
        if f.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        unwrapped.extend(container::unwrap(f.name, f.bytes)?);
    }
    let mut b = TraceBuilder::new("");
    let mut formats: Vec<String> = Vec::new();
    for (name, bytes) in &unwrapped {
        let Some(imp) = detect(name, bytes) else {
            return Err(ImportError::UnknownFormat(describe_unknown(name, bytes)));
        };
        // an importer may name the dialect it found (e.g. "pytorch-kineto" for chrome-json)
        b.set_format("");
        imp.import(&InputFile { name, bytes }, &mut b, progress)?;
        let format = if b.format().is_empty() { imp.name().to_string() } else { b.format().to_string() };
        if !formats.contains(&format) {
            formats.push(format);
        }
    }
    b.set_format(&formats.join("+"));
    Ok(b.finish())
}

/// A short, safe description of an unrecognised file for the error message.
fn describe_unknown(name: &str, bytes: &[u8]) -> String {
    let head: String = bytes
        .iter()
        .take(16)
        .map(|&c| if (0x20..0x7f).contains(&c) { c as char } else { '.' })
        .collect();
    let name: String = name.chars().filter(|c| !c.is_control()).take(120).collect();
    format!(" in '{name}' ({} bytes, starts with \"{head}\")", bytes.len())
}
