//! The importer contract: what a format plugs in ([`Importer`]) and what it is handed. The
//! registry ([`super`]) imports every importer; the importers import only this contract (and
//! [`super::error`]), never the registry.

use super::error::{ImportError, Progress};
use crate::model::TraceBuilder;

/// Result of a cheap look at the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sniff {
    No,
    Maybe,
    Yes,
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
