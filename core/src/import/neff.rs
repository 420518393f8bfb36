//! NEFF alone: the program view (no timeline). A NEFF dropped together with an NTFF is used by
//! the NTFF importer for correlation instead (see `import_files`).

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::TraceBuilder;
use crate::neuron::{neff, program::program_from_neff};

pub struct Neff;

impl Importer for Neff {
    fn name(&self) -> &'static str {
        "neff"
    }
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        if neff::sniff(prefix) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }
    fn import(&self, file: &InputFile<'_>, b: &mut TraceBuilder, _progress: &mut dyn Progress) -> Result<(), ImportError> {
        let n = neff::parse(file.bytes).map_err(|e| ImportError::Malformed { format: "NEFF", offset: 0, message: e.to_string() })?;
        add_neff(&n, b);
        Ok(())
    }
}

/// Attach a parsed NEFF to the builder: program, metadata, warnings.
pub fn add_neff(n: &neff::Neff, b: &mut TraceBuilder) {
    for w in &n.warnings {
        let w = w.clone();
        b.warn("neff", || w);
    }
    let p = program_from_neff(n);
    for (k, v) in &p.header {
        b.add_metadata(format!("neff.{k}"), v.clone());
    }
    b.program = Some(p);
}
