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
//! Runs after both files are parsed; importers never guess joins. The result is a
//! [`Correlation`] (a lineage per event, shared per (engine, compiler_pc)) plus a
//! [`CorrelationReport`] that says how many events reached each level and why the rest stopped.

use super::neff::{Engine, Lineage, Neff};
use super::ntff::{Instruction, Metadata, Ntff};
use crate::model::CorrelationReport;
use crate::strings::FxHashMap;

/// What correlation found for every instruction event: each distinct lineage once (a loop's
/// millions of executions of one (engine, compiler_pc) share it) and, per event, the index of
/// its lineage (a plain index: no reference count to touch per event when it is built or dropped).
#[derive(Debug, Clone, Default)]
pub struct Correlation {
    lineages: Vec<Lineage>,
    /// per event: index into `lineages`, [`Correlation::NONE`] when the event has none
    of: Vec<u32>,
}

impl Correlation {
    const NONE: u32 = u32::MAX;
    /// The lineage of instruction event `i` (`ntff.instructions[i]`), if it was resolved.
    pub fn get(&self, i: usize) -> Option<&Lineage> {
        let k = *self.of.get(i)?;
        self.lineages.get(k as usize)
    }
    /// The number of events (resolved or not).
    pub fn len(&self) -> usize {
        self.of.len()
    }
    pub fn is_empty(&self) -> bool {
        self.of.is_empty()
    }
    /// The distinct lineages.
    pub fn lineages(&self) -> &[Lineage] {
        &self.lineages
    }
}

pub const LEVELS: [&str; 8] =
    ["event", "compiler_pc", "neff_slot", "bir", "penguin", "hlo", "framework", "source_line"];

/// Compare the NTFF's (possibly truncated) UUID with the NEFF's. Returns notes for the report.
pub fn uuid_notes(ntff: &Ntff, neff: &Neff) -> (bool, Vec<String>) {
    uuid_notes_of(&ntff.metadata, neff)
}

/// [`uuid_notes`] from the NTFF's metadata.
pub fn uuid_notes_of(meta: &Metadata, neff: &Neff) -> (bool, Vec<String>) {
    let t = meta.uuid_hex();
    let n = &neff.header.uuid;
    let mut notes = Vec::new();
    let matches = if meta.uuid_truncated {
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
    uuid_mismatch_of(&ntff.metadata, neff)
}

/// [`uuid_mismatch`] from the NTFF's metadata.
pub fn uuid_mismatch_of(meta: &Metadata, neff: &Neff) -> Option<String> {
    let (matches, notes) = uuid_notes_of(meta, neff);
    if matches {
        return None;
    }
    notes.into_iter().find(|n| n.starts_with("UUID mismatch"))
}

/// Why an event's correlation stopped, in the order of the checks: before its NEFF slot is found
/// (0–3), then at the first level past the slot that is missing (4–7; the last level, the source
/// line, is [`NO_SOURCE_LINE`]).
const REASONS: [&str; 8] = [
    "no compiler_pc: instruction inserted by the runtime",
    "no NEFF loaded",
    "unknown engine",
    "compiler_pc outside the NEFF instruction stream",
    "no assembly/BIR debug entry for the slot",
    "BIR entry without a penguin parent",
    "penguin entry without an HLO parent",
    "HLO entry without a framework parent",
];
const NO_SOURCE_LINE: &str = "no source line recorded (compile with NEURON_FRAMEWORK_DEBUG=1)";

/// Correlate every instruction of `ntff` with `neff`. `out.get(i)` belongs to `ntff.instructions[i]`.
pub fn correlate(ntff: &Ntff, neff: Option<&Neff>) -> (Correlation, CorrelationReport) {
    let mut c = Correlator::new(&ntff.metadata, neff);
    let mut of = Vec::with_capacity(ntff.instructions.len());
    for ins in &ntff.instructions {
        let o = c.resolve(ins);
        c.count(o);
        of.push(match o {
            Outcome::Resolved { lineage, .. } => lineage,
            Outcome::Missed(_) => Correlation::NONE,
        });
    }
    let (lineages, report) = c.finish();
    (Correlation { lineages, of }, report)
}

/// Where one instruction's correlation ended: its lineage and how many of the five levels past
/// the NEFF slot it reaches, or why it stopped before the slot (a [`REASONS`] index, 0–3).
/// The same for every execution of one (engine, compiler_pc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Missed(u8),
    /// `lineage`: [`Correlation::NONE`] when the pc is outside the NEFF's instruction stream.
    Resolved {
        lineage: u32,
        depth: u8,
    },
}

/// Correlation an event at a time ([`correlate`] over a table of rows; an importer building
/// its model from decoded rows as they come resolves each distinct instruction once and counts
/// every event): the lineages, a cache per (engine, compiler_pc) and the report's counts.
pub struct Correlator<'a> {
    neff: Option<&'a Neff>,
    sg: String,
    cache: FxHashMap<(u8, u32), (u32, u8)>,
    lineages: Vec<Lineage>,
    reached: [u64; LEVELS.len()],
    /// per reason (REASONS, then NO_SOURCE_LINE): events, and the reasons in first-seen order
    missed: [u64; REASONS.len() + 1],
    order: Vec<usize>,
    notes: Vec<String>,
    events: u64,
}

impl<'a> Correlator<'a> {
    /// For the capture of `meta` and the NEFF it is paired with (the report's notes say whether
    /// the UUIDs agree and whether the NEFF has the capture's subgraph).
    pub fn new(meta: &Metadata, neff: Option<&'a Neff>) -> Self {
        let mut notes = Vec::new();
        if let Some(neff) = neff {
            notes.extend(uuid_notes_of(meta, neff).1);
        }
        let sg = if meta.subgraph_name.is_empty() { "sg00".to_string() } else { meta.subgraph_name.clone() };
        if let Some(neff) = neff {
            if neff.subgraph(&sg).is_none() {
                notes.push(format!(
                    "the NEFF has no subgraph '{sg}' (it has {})",
                    neff.subgraphs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        Correlator {
            neff,
            sg,
            cache: FxHashMap::default(),
            lineages: Vec::new(),
            reached: [0; LEVELS.len()],
            missed: [0; REASONS.len() + 1],
            order: Vec::new(),
            notes,
            events: 0,
        }
    }

    /// Where `ins`'s correlation ends (resolved once per (engine, compiler_pc); counts nothing).
    pub fn resolve(&mut self, ins: &Instruction) -> Outcome {
        let Some(cpc) = ins.compiler_pc else { return Outcome::Missed(0) };
        let Some(neff) = self.neff else { return Outcome::Missed(1) };
        let Some(engine) = Engine::from_ntff_index(ins.engine) else { return Outcome::Missed(2) };
        let (sg, lineages) = (&self.sg, &mut self.lineages);
        let (lineage, depth) = *self.cache.entry((ins.engine, cpc)).or_insert_with(|| {
            match neff.resolve(sg, engine, cpc as u64) {
                None => (Correlation::NONE, 0),
                Some(l) => {
                    let steps = [
                        l.bir.is_some(),
                        l.penguin.is_some(),
                        l.hlo.is_some(),
                        l.framework.is_some(),
                        l.source_line.is_some(),
                    ];
                    let depth = steps.iter().take_while(|&&ok| ok).count() as u8;
                    lineages.push(l);
                    ((lineages.len() - 1) as u32, depth)
                }
            }
        });
        Outcome::Resolved { lineage, depth }
    }

    /// The lineage `o` names, if any.
    pub fn lineage(&self, o: Outcome) -> Option<&Lineage> {
        match o {
            Outcome::Resolved { lineage, .. } => self.lineages.get(lineage as usize),
            Outcome::Missed(_) => None,
        }
    }

    fn miss(&mut self, r: usize) {
        if self.missed[r] == 0 {
            self.order.push(r);
        }
        self.missed[r] += 1;
    }

    /// Count one event whose correlation ended at `o`.
    #[inline]
    pub fn count(&mut self, o: Outcome) {
        self.events += 1;
        self.reached[0] += 1;
        match o {
            Outcome::Missed(0) => self.miss(0),
            Outcome::Missed(r) => {
                self.reached[1] += 1;
                self.miss(usize::from(r));
            }
            Outcome::Resolved { lineage, depth } => {
                self.reached[1] += 1;
                if lineage == Correlation::NONE {
                    self.miss(3);
                    return;
                }
                self.reached[2] += 1;
                for r in &mut self.reached[3..3 + usize::from(depth)] {
                    *r += 1;
                }
                if depth < 5 {
                    self.miss(4 + usize::from(depth));
                }
            }
        }
    }

    /// The distinct lineages (indexed by [`Outcome::Resolved`]'s `lineage`) and the report.
    pub fn finish(self) -> (Vec<Lineage>, CorrelationReport) {
        let unmatched = self
            .order
            .iter()
            .map(|&r| (REASONS.get(r).copied().unwrap_or(NO_SOURCE_LINE).to_string(), self.missed[r]))
            .collect();
        let report = CorrelationReport {
            events: self.events,
            levels: LEVELS.iter().zip(self.reached).map(|(l, n)| (l.to_string(), n)).collect(),
            unmatched,
            notes: self.notes,
        };
        (self.lineages, report)
    }
}
