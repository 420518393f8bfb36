//! loupe-sqlite: Loupe's SQLite importers, over a real SQLite (`rusqlite`; natively the bundled
//! C library, on wasm32 `sqlite-wasm-rs`).
//!
//! They are a separate crate because SQLite on wasm32 brings wasm-bindgen and js-sys, which
//! loupe-core must not depend on (ARCHITECTURE.md). They implement loupe-core's
//! [`Importer`] and write only through its `TraceBuilder`; callers
//! that read SQLite (the CLI, the app's worker) import through [`import_files`], which offers
//! [`IMPORTERS`] each file before loupe-core's registry. loupe-core's own sniff still names a
//! SQLite file (and a binary `.nsys-rep`) when no importer here takes it.
//!
//! - [`nsys`]: Nsight Systems `nsys export --type sqlite` (format `nsys-sqlite`).
//! - [`dlprof_db`]: DLProf's `dlprof_dldb.sqlite` (format `dlprof-sqlite`).
//!
//! The database is opened from the dropped bytes: copied into an in-memory SQLite database
//! (`sqlite3_deserialize`), read-only, `query_only`, untrusted schema, with a progress handler that
//! interrupts a statement past a work budget proportional to the file size (a hostile file's views
//! or schema cannot hang the import). Tables and columns are looked up by name (`PRAGMA
//! table_info`) and only objects of type `table` are read; what is missing is a counted warning.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod db;
pub mod dlprof_db;
pub mod nsys;
pub mod testing;

use loupe_core::import::{ImportError, Importer, InputFile, Progress};
use loupe_core::Trace;

/// The SQLite importers, in the order they are offered a file.
pub static IMPORTERS: [&dyn Importer; 2] = [&nsys::NsysSqlite, &dlprof_db::DlprofDb];

/// [`loupe_core::import::import_files`] with the SQLite importers.
pub fn import_files(files: &[InputFile<'_>], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    loupe_core::import::import_files_with(&IMPORTERS, files, progress)
}

/// [`loupe_core::import::import_owned`] with the SQLite importers: the files are freed once
/// every importer has read them, before the derived tracks and `finish`.
pub fn import_owned(
    files: Vec<(String, Vec<u8>)>,
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    loupe_core::import::import_owned_with(&IMPORTERS, files, progress)
}

/// One file (gzip/zip unwrapped first), with the SQLite importers.
pub fn import_bytes(name: &str, bytes: &[u8], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    import_files(&[InputFile { name, bytes }], progress)
}
