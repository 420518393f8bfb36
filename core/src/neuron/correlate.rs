//! Correlation pass: NTFF instruction events → NEFF program → operator and source.
//!
//! ```text
//! instruction event (engine, runtime pc)            NTFF block 0
//!   └─ compiler_pc                                  NTFF patch lists (/4/4/1/5); None = runtime-inserted
//!       └─ NEFF slot  sgXX/<engine>.bin[compiler_pc] NEFF (64-byte slots)
//!           └─ assembly debug entry                 debug_info_asm_<ENG>.dbg, same order as the .bin
//!               └─ BIR → penguin → HLO → framework   debug_info_{backend,penguin,hlo,pttf}.dbg
//!                   └─ source_file:source_line, kernel_file:kernel_line
//! ```
//!
//! Runs after both files are parsed; importers never guess joins. The result is one
//! [`Correlated`] per event (shared per (engine, compiler_pc)) plus a [`CorrelationReport`] that
//! says how many events reached each level and why the rest stopped.

use super::neff::{Engine, Lineage, Neff};
use super::ntff::Ntff;
use crate::model::CorrelationReport;
use std::collections::HashMap;
use std::sync::Arc;

/// What correlation found for one instruction event. The lineage is shared by every event of
/// the same (engine, compiler_pc): a loop's millions of executions hold one copy.
#[derive(Debug, Clone, Default)]
pub struct Correlated {
    pub lineage: Option<Arc<Lineage>>,
}

pub const LEVELS: [&str; 8] =
    ["event", "compiler_pc", "neff_slot", "bir", "penguin", "hlo", "framework", "source_line"];

/// Compare the NTFF's (possibly truncated) UUID with the NEFF's. Returns notes for the report.
pub fn uuid_notes(ntff: &Ntff, neff: &Neff) -> (bool, Vec<String>) {
    let t = ntff.metadata.uuid_hex();
    let n = &neff.header.uuid;
    let mut notes = Vec::new();
    let matches = if ntff.metadata.uuid_truncated {
        notes.push(format!(
            "the NTFF holds a truncated NEFF UUID ({} of 16 bytes: {t}); pairing checked on that prefix only",
            t.len() / 2
        ));
        !t.is_empty() && n.starts_with(&t)
    } else {
        &t == n
    };
    if !matches {
        notes.push(format!("UUID mismatch: the NTFF was captured from NEFF {t}, the loaded NEFF is {n}; correlation may be wrong"));
    }
    (matches, notes)
}

/// The mismatch message when the NTFF was captured from another NEFF than `neff` (None when the
/// UUIDs agree, on the recoverable prefix when the NTFF's copy is truncated). The same text is a
/// note of the correlation report and the example of the `neff_uuid_mismatch` trace warning.
pub fn uuid_mismatch(ntff: &Ntff, neff: &Neff) -> Option<String> {
    let (matches, notes) = uuid_notes(ntff, neff);
    if matches {
        return None;
    }
    notes.into_iter().find(|n| n.starts_with("UUID mismatch"))
}

/// Correlate every instruction of `ntff` with `neff`. `out[i]` belongs to `ntff.instructions[i]`.
pub fn correlate(ntff: &Ntff, neff: Option<&Neff>) -> (Vec<Correlated>, CorrelationReport) {
    let mut reached = [0u64; LEVELS.len()];
    let mut unmatched: Vec<(String, u64)> = Vec::new();
    let miss = |reason: &str, unmatched: &mut Vec<(String, u64)>| match unmatched
        .iter_mut()
        .find(|(r, _)| r == reason)
    {
        Some(e) => e.1 += 1,
        None => unmatched.push((reason.to_string(), 1)),
    };
    let mut notes = Vec::new();
    if let Some(neff) = neff {
        notes.extend(uuid_notes(ntff, neff).1);
    }
    let sg = if ntff.metadata.subgraph_name.is_empty() {
        "sg00".to_string()
    } else {
        ntff.metadata.subgraph_name.clone()
    };
    if let Some(neff) = neff {
        if neff.subgraph(&sg).is_none() {
            notes.push(format!(
                "the NEFF has no subgraph '{sg}' (it has {})",
                neff.subgraphs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let mut cache: HashMap<(u8, u32), Option<Arc<Lineage>>> = HashMap::new();
    let mut out = Vec::with_capacity(ntff.instructions.len());
    for ins in &ntff.instructions {
        reached[0] += 1;
        let Some(cpc) = ins.compiler_pc else {
            miss("no compiler_pc: instruction inserted by the runtime", &mut unmatched);
            out.push(Correlated::default());
            continue;
        };
        reached[1] += 1;
        let Some(neff) = neff else {
            miss("no NEFF loaded", &mut unmatched);
            out.push(Correlated::default());
            continue;
        };
        let Some(engine) = Engine::from_ntff_index(ins.engine) else {
            miss("unknown engine", &mut unmatched);
            out.push(Correlated::default());
            continue;
        };
        let lineage = cache
            .entry((ins.engine, cpc))
            .or_insert_with(|| neff.resolve(&sg, engine, cpc as u64).map(Arc::new))
            .clone();
        let Some(l) = lineage else {
            miss("compiler_pc outside the NEFF instruction stream", &mut unmatched);
            out.push(Correlated::default());
            continue;
        };
        reached[2] += 1;
        let steps = [
            l.bir.is_some(),
            l.penguin.is_some(),
            l.hlo.is_some(),
            l.framework.is_some(),
            l.source_line.is_some(),
        ];
        let reasons = [
            "no assembly/BIR debug entry for the slot",
            "BIR entry without a penguin parent",
            "penguin entry without an HLO parent",
            "HLO entry without a framework parent",
            "no source line recorded (compile with NEURON_FRAMEWORK_DEBUG=1)",
        ];
        for (k, ok) in steps.iter().enumerate() {
            if *ok {
                reached[3 + k] += 1;
            } else {
                miss(reasons[k], &mut unmatched);
                break;
            }
        }
        out.push(Correlated { lineage: Some(l) });
    }
    let report = CorrelationReport {
        events: ntff.instructions.len() as u64,
        levels: LEVELS.iter().zip(reached).map(|(l, n)| (l.to_string(), n)).collect(),
        unmatched,
        notes,
    };
    (out, report)
}
