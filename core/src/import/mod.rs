//! Importers: one module per format, a cheap `sniff`, one registry ([`IMPORTERS`]).
//!
//! Flow: [`import_files`] unwraps containers (gzip, zip: [`container`]), offers each file to the
//! registry in order, and the first importer whose sniff says `Yes` (else the first `Maybe`)
//! converts it into the model through a [`TraceBuilder`]. An importer that finds, on a closer
//! look, that the file is not its own returns [`ImportError::NotMine`] quickly and **before
//! writing anything to the builder**; the file then falls through to the next candidate (the
//! other `Yes` importers in registry order, then the `Maybe` ones: [`candidates`]). When no
//! importer takes a file, [`diagnose_unknown`] says what it looks like and lists what Loupe reads.
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

/// What Loupe reads, for the "unrecognised file format" message.
pub const SUPPORTED_FORMATS: &str =
    "Loupe reads: Chrome/Perfetto JSON trace events (incl. PyTorch profiler/Kineto, \
TensorFlow, Furiosa), neuron-profile JSON exports, Neuron Explorer Parquet tables, NEFF and NTFF v5 \
files; each may be gzip- or zip-compressed";

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

/// Which importer would take this file (after container unwrapping): the first [`candidates`].
pub fn detect(file_name: &str, bytes: &[u8]) -> Option<&'static dyn Importer> {
    candidates(file_name, bytes).into_iter().next()
}

/// Every importer whose sniff accepts this file, in the order they are tried: those that say
/// `Yes` in registry order, then those that say `Maybe` in registry order.
pub fn candidates(file_name: &str, bytes: &[u8]) -> Vec<&'static dyn Importer> {
    let prefix = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let mut yes = Vec::new();
    let mut maybe = Vec::new();
    for imp in importers() {
        match imp.sniff(file_name, prefix) {
            Sniff::Yes => yes.push(imp),
            Sniff::Maybe => maybe.push(imp),
            Sniff::No => {}
        }
    }
    yes.extend(maybe);
    yes
}

/// Import one file (gzip/zip containers are unwrapped first).
pub fn import_bytes(
    file_name: &str,
    bytes: &[u8],
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    import_files(&[InputFile { name: file_name, bytes }], progress)
}

/// One unwrapped file and the importers that may take it, in order.
struct Pending<'a> {
    file: InputFile<'a>,
    candidates: Vec<&'static dyn Importer>,
}

/// Import several files into one trace (e.g. a NEFF and its NTFF, or several Parquet tables).
pub fn import_files(files: &[InputFile<'_>], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    let mut unwrapped: Vec<(String, std::borrow::Cow<'_, [u8]>)> = Vec::new();
    let mut budget = container::Budget::default();
    let mut notes = Vec::new();
    for f in files {
        if f.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        unwrapped.extend(container::unwrap_noting(f.name, f.bytes, &mut budget, &mut notes)?);
    }
    // group the files by the importer that claims them first (first-appearance order of
    // importers, file order within a group), so a multi-file format sees all its files at once
    let mut groups: Vec<(&'static dyn Importer, Vec<Pending<'_>>)> = Vec::new();
    for (name, bytes) in &unwrapped {
        crate::limits::check_json_size(bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
        let candidates = candidates(name, bytes);
        let Some(&imp) = candidates.first() else {
            return Err(diagnose_unknown(name, bytes, &notes));
        };
        let p = Pending { file: InputFile { name, bytes }, candidates };
        match groups.iter_mut().find(|(i, _)| i.name() == imp.name()) {
            Some((_, ps)) => ps.push(p),
            None => groups.push((imp, vec![p])),
        }
    }
    let mut b = TraceBuilder::new("");
    for n in &notes {
        b.warn(n.kind, || n.message.clone());
    }
    let mut formats: Vec<String> = Vec::new();
    for (imp, pending) in &groups {
        let files: Vec<InputFile<'_>> =
            pending.iter().map(|p| InputFile { name: p.file.name, bytes: p.file.bytes }).collect();
        let grouped = match imp.import_group(&files, &mut b, progress) {
            Some(Err(ImportError::NotMine(_))) => false,
            Some(r) => {
                r?;
                push_format(&mut b, &mut formats, *imp);
                true
            }
            None => false,
        };
        if grouped {
            continue;
        }
        // one by one: a file its first importer refuses falls through to the next candidate
        for p in pending {
            let mut refused = None;
            for imp in &p.candidates {
                match imp.import(&p.file, &mut b, progress) {
                    Ok(()) => {
                        push_format(&mut b, &mut formats, *imp);
                        refused = None;
                        break;
                    }
                    Err(ImportError::NotMine(n)) => refused = Some(n),
                    Err(e) => return Err(e),
                }
            }
            if refused.is_some() {
                return Err(diagnose_unknown(p.file.name, p.file.bytes, &notes));
            }
        }
    }
    formats.dedup();
    b.set_format(&formats.join("+"));
    Ok(b.finish())
}

/// Record the format an importer produced: it may name the dialect it found (e.g. "ntff+neff",
/// "pytorch-kineto"), else its own name.
fn push_format(b: &mut TraceBuilder, formats: &mut Vec<String>, imp: &dyn Importer) {
    let name = if b.format().is_empty() { imp.name().to_string() } else { b.format().to_string() };
    b.set_format("");
    formats.push(name);
}

/// The error for a file no importer takes: specific when the bytes say what went wrong (UTF-16
/// text, an NTFF of another version, a NEFF with one bad header field, a truncated gzip, only
/// zero bytes), else [`ImportError::UnknownFormat`] with a safe description of the file.
pub fn diagnose_unknown(name: &str, bytes: &[u8], notes: &[container::Note]) -> ImportError {
    let shown = container::printable(name);
    if let Some(e) = utf16_text(bytes) {
        return ImportError::Unsupported {
            format: "text",
            message: format!(
                "'{shown}' is UTF-16 text ({e}); Loupe reads JSON in UTF-8: convert it first \
                 (e.g. `iconv -f UTF-16 -t UTF-8`)"
            ),
        };
    }
    if let Some(version) = ntff_other_version(bytes) {
        return ImportError::Unsupported {
            format: "NTFF",
            message: neuron_binary::ntff_version_message(version),
        };
    }
    if let Some(problem) = neff_bad_header(bytes) {
        return ImportError::Invalid {
            format: "NEFF",
            message: format!("'{shown}' has a NEFF payload but its header is damaged: {problem}"),
        };
    }
    let mut hint = String::new();
    if let Some(n) = notes.iter().find(|n| n.file == name && n.kind == "container_truncated") {
        hint.push_str(&format!("; {}", n.message));
    }
    if bytes.iter().all(|&c| c == 0) {
        hint.push_str("; the data is all zero bytes");
    }
    ImportError::UnknownFormat(format!("{}{hint}", describe_unknown(name, bytes)))
}

/// UTF-16 text by its byte-order mark, or ASCII with every other byte NUL (no mark).
fn utf16_text(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(&[0xFF, 0xFE]) {
        return Some("little-endian, byte-order mark FF FE");
    }
    if b.starts_with(&[0xFE, 0xFF]) {
        return Some("big-endian, byte-order mark FE FF");
    }
    let head = &b[..b.len().min(64)];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.chunks_exact(2);
    let le = pairs.clone().all(|p| p[1] == 0 && p[0] != 0 && p[0] < 0x80);
    let be = pairs.clone().all(|p| p[0] == 0 && p[1] != 0 && p[1] < 0x80);
    let jsonish = |c: u8| matches!(c, b'{' | b'[' | b' ' | b'\t' | b'\r' | b'\n');
    if le && jsonish(head[0]) {
        return Some("little-endian, no byte-order mark");
    }
    if be && jsonish(head[1]) {
        return Some("big-endian, no byte-order mark");
    }
    None
}

/// The version byte of a file with the NTFF header structure whose version is not one the
/// binary importer claims (0 or above 63).
fn ntff_other_version(b: &[u8]) -> Option<u8> {
    if b.len() < 0x81 {
        return None;
    }
    let v = b[0];
    let structure = b[1..4] != [0, 0, 0]
        && b[4..8].iter().all(|&c| c == 0)
        && b[0x10..0x80].iter().all(|&c| c == 0)
        && b[0x80] == 0x0a;
    (structure && v != crate::neuron::ntff::SUPPORTED_VERSION).then_some(v)
}

/// What is wrong with the header of a file that carries a NEFF payload (gzip or tar at byte
/// 1024) but was not recognised because of its header.
fn neff_bad_header(b: &[u8]) -> Option<String> {
    use crate::neuron::neff::{NeffHeader, HEADER_SIZE};
    let p = b.get(HEADER_SIZE..)?;
    let gzip = p.len() >= 3 && p[..3] == [0x1f, 0x8b, 8];
    let tar = p.len() >= 512 && &p[257..262] == b"ustar";
    if !(gzip || tar) {
        return None;
    }
    NeffHeader::decode(b).problem()
}

/// A short, safe description of an unrecognised file for the error message.
fn describe_unknown(name: &str, bytes: &[u8]) -> String {
    let head: String =
        bytes.iter().take(16).map(|&c| if (0x20..0x7f).contains(&c) { c as char } else { '.' }).collect();
    let name = container::printable(name);
    format!(" in '{name}' ({} bytes, starts with \"{head}\")", bytes.len())
}
