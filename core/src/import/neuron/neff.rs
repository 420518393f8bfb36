//! NEFF → model: the program view (program, metadata, warnings). The NEFF importer itself is
//! [`super::binary::NeuronBinary`], which takes NEFFs alone or together with their NTFF.

use crate::model::TraceBuilder;
use crate::model::WarningKind;
use crate::neuron::{neff, program::program_from_neff};

/// Attach a parsed NEFF to the builder: program, metadata, warnings.
pub fn add_neff(n: &neff::Neff, b: &mut TraceBuilder) {
    for w in &n.warnings {
        let w = w.clone();
        b.warn(WarningKind::Neff, || w);
    }
    let p = program_from_neff(n);
    for (k, v) in &p.header.fields {
        b.add_metadata(format!("neff.{k}"), v.clone());
    }
    b.program = Some(p);
}
