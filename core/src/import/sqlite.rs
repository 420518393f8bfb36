//! SQLite databases and Nsight Systems reports, recognised by core.
//!
//! The SQLite importers themselves (Nsight Systems `nsys export --type sqlite`, DLProf's
//! `dlprof_dldb.sqlite`) live in the workspace crate `loupe-sqlite` (`core/sqlite/`): they run a
//! real SQLite, which on wasm32 links `sqlite-wasm-rs` and with it wasm-bindgen/js-sys, which
//! loupe-core must not depend on. Callers that can read SQLite (the CLI, the app's worker) pass
//! those importers to [`super::import_files_with`]; they are tried before this registry.
//!
//! What is here: [`SqliteDb`] names a file with the SQLite header and, when it reaches it (no
//! SQLite importer was given, or none took the file), says what it is instead of "unrecognised";
//! [`NsysRep`] recognises the undocumented binary Nsight Systems report (`.nsys-rep`, `.qdrep`)
//! and answers with the command that exports it.

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::TraceBuilder;

/// The 16-byte header every SQLite 3 database file starts with.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether the bytes start like a SQLite 3 database.
pub fn is_sqlite(prefix: &[u8]) -> bool {
    prefix.starts_with(SQLITE_MAGIC)
}

/// A SQLite database reached without a SQLite importer that takes it.
pub struct SqliteDb;

pub const SQLITE_NAME: &str = "sqlite";

impl Importer for SqliteDb {
    fn name(&self) -> &'static str {
        SQLITE_NAME
    }
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        if is_sqlite(prefix) {
            Sniff::Maybe
        } else {
            Sniff::No
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        _b: &mut TraceBuilder,
        _p: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        Err(ImportError::Unsupported {
            format: "SQLite",
            message: format!(
                "'{}' is a SQLite database but not one Loupe reads here: Loupe reads Nsight Systems \
                 exports (`nsys export --type sqlite`) and DLProf's dlprof_dldb.sqlite, through its \
                 SQLite reader (the app and the `loupe` CLI have it; plain loupe-core does not)",
                super::container::printable(file.name)
            ),
        })
    }
}

/// The binary Nsight Systems report (`.nsys-rep`, older `.qdrep`): not documented, not read.
pub struct NsysRep;

pub const NSYS_REP_NAME: &str = "nsys-rep";

/// The message for a binary Nsight Systems report.
pub const NSYS_REP_HINT: &str = "this is a binary Nsight Systems report, which is not documented: \
export it with `nsys export --type sqlite <report>.nsys-rep` and open the .sqlite file";

fn nsys_rep_magic(prefix: &[u8]) -> bool {
    // observed: "NVIDIA Tegra Profiler Report 1." (Nsight Systems 2022.1)
    let head = &prefix[..prefix.len().min(64)];
    head.starts_with(b"NVIDIA ") && head.windows(15).any(|w| w == b"Profiler Report")
}

impl Importer for NsysRep {
    fn name(&self) -> &'static str {
        NSYS_REP_NAME
    }
    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff {
        let lower = file_name.to_ascii_lowercase();
        if nsys_rep_magic(prefix) {
            Sniff::Yes
        } else if (lower.ends_with(".nsys-rep") || lower.ends_with(".qdrep")) && !is_sqlite(prefix) {
            Sniff::Maybe
        } else {
            Sniff::No
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        _b: &mut TraceBuilder,
        _p: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        Err(ImportError::Unsupported {
            format: "Nsight Systems report",
            message: format!("'{}': {NSYS_REP_HINT}", super::container::printable(file.name)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_bytes, NoProgress};

    #[test]
    fn nsys_rep_is_answered_with_the_export_command() {
        let mut bytes = b"NVIDIA Tegra Profiler Report 1.\n\x0bLocal (CLI)".to_vec();
        bytes.extend_from_slice(&[0u8; 200]);
        let e = import_bytes("x.nsys-rep", &bytes, &mut NoProgress).unwrap_err();
        assert!(e.to_string().contains("nsys export --type sqlite"), "{e}");
        // by name alone, whatever the bytes
        let e = import_bytes("x.qdrep", &[7u8; 300], &mut NoProgress).unwrap_err();
        assert!(e.to_string().contains("nsys export --type sqlite"), "{e}");
    }

    #[test]
    fn sqlite_without_a_reader_is_named() {
        let mut bytes = SQLITE_MAGIC.to_vec();
        bytes.extend_from_slice(&[0u8; 200]);
        let e = import_bytes("x.sqlite", &bytes, &mut NoProgress).unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { format: "SQLite", .. }), "{e}");
    }
}
