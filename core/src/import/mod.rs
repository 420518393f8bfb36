//! Importers: one module per format, a cheap `sniff`, one registry ([`IMPORTERS`]).
//!
//! Flow: [`import_files`] unwraps containers (gzip, zip: [`container`]), offers each file to the
//! registry in order, and the first importer whose sniff says `Yes` (else the first `Maybe`)
//! converts it into the model through a [`TraceBuilder`]. An importer that is handed a file that
//! is not its own returns [`ImportError::NotMine`] quickly.
//!
//! Multi-file formats (one Parquet file per table): `import_files` groups the files by the
//! importer that claimed them and first offers each importer its whole group through
//! [`Importer::import_group`]; an importer that does not implement it gets its files one by one.

pub mod chrome;
pub mod container;
pub mod neff;
pub mod neuron_binary;
pub mod neuron_device;
pub mod neuron_json;
pub mod neuron_parquet;

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
    /// The input, or what it expands to, is more than Loupe can hold ([`crate::limits`]).
    #[error("{what} more than {} (the most Loupe can hold in memory)", crate::limits::human_bytes(*.limit))]
    TooLarge { what: String, limit: u64 },
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
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError>;
    /// Optional: convert all the files this importer claimed in one `import_files` call together
    /// (e.g. the `<Table>.parquet` files of one Neuron Explorer profile). `None` (the default)
    /// means "not a multi-file format": the files are then passed to [`Importer::import`] one by one.
    fn import_group(
        &self,
        _files: &[InputFile<'_>],
        _b: &mut TraceBuilder,
        _progress: &mut dyn Progress,
    ) -> Option<Result<(), ImportError>> {
        None
    }
}

/// How many bytes a sniff gets to see.
pub const SNIFF_BYTES: usize = 4096;

/// The registry, in sniff order (the first `Yes` wins). Binary formats with structure checks
/// first, JSON dialects last (their sniff is the most permissive).
pub fn importers() -> Vec<&'static dyn Importer> {
    vec![
        &neuron_binary::NeuronBinary,
        &neuron_parquet::NeuronParquet,
        &neuron_json::NeuronJson,
        &chrome::ChromeJson,
    ]
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
pub fn import_bytes(
    file_name: &str,
    bytes: &[u8],
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    import_files(&[InputFile { name: file_name, bytes }], progress)
}

/// Import several files into one trace (e.g. a NEFF and its NTFF, or several Parquet tables).
pub fn import_files(files: &[InputFile<'_>], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    let mut unwrapped: Vec<(String, std::borrow::Cow<'_, [u8]>)> = Vec::new();
    let mut budget = container::Budget::default();
    for f in files {
        if f.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        unwrapped.extend(container::unwrap_within(f.name, f.bytes, &mut budget)?);
    }
    // group the files by the importer that claims them (first-appearance order of importers,
    // file order within a group), so a multi-file format sees all its files at once
    let mut groups: Vec<(&'static dyn Importer, Vec<InputFile<'_>>)> = Vec::new();
    for (name, bytes) in &unwrapped {
        crate::limits::check_json_size(bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
        let Some(imp) = detect(name, bytes) else {
            return Err(ImportError::UnknownFormat(describe_unknown(name, bytes)));
        };
        let file = InputFile { name, bytes };
        match groups.iter_mut().find(|(i, _)| i.name() == imp.name()) {
            Some((_, fs)) => fs.push(file),
            None => groups.push((imp, vec![file])),
        }
    }
    let mut b = TraceBuilder::new("");
    let mut formats: Vec<String> = Vec::new();
    for (imp, files) in &groups {
        match imp.import_group(files, &mut b, progress) {
            Some(r) => r?,
            None => {
                for f in files {
                    imp.import(f, &mut b, progress)?;
                }
            }
        }
        // an importer may name the dialect it found (e.g. "ntff+neff", "pytorch-kineto")
        let name = if b.format().is_empty() { imp.name().to_string() } else { b.format().to_string() };
        b.set_format("");
        formats.push(name);
    }
    b.set_format(&formats.join("+"));
    Ok(b.finish())
}

/// A short, safe description of an unrecognised file for the error message.
fn describe_unknown(name: &str, bytes: &[u8]) -> String {
    let head: String =
        bytes.iter().take(16).map(|&c| if (0x20..0x7f).contains(&c) { c as char } else { '.' }).collect();
    let name: String = name.chars().filter(|c| !c.is_control()).take(120).collect();
    format!(" in '{name}' ({} bytes, starts with \"{head}\")", bytes.len())
}
