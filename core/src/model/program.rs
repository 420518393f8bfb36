//! A compiled program attached to a trace (a Neuron NEFF): typed header, subgraphs with
//! per-engine instruction counts, typed tables (tensors, DMA queues, …) and the
//! operator hierarchy. Plus the report of the correlation pass that joined trace events to it.

use super::domain::Engine;

/// The level of a node of the program's operator hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode)]
pub enum ProgramLevel {
    /// A framework operator (the NEFF debug info's `framework` name).
    Framework,
    Hlo,
    /// A penguin (tensorizer) node.
    Penguin,
    Bir,
    /// One instruction (small programs only).
    Instruction,
    /// Instructions without debug info, one node per subgraph.
    Unattributed,
}

impl ProgramLevel {
    /// Outermost first.
    pub const ALL: [ProgramLevel; 6] = [
        ProgramLevel::Framework,
        ProgramLevel::Hlo,
        ProgramLevel::Penguin,
        ProgramLevel::Bir,
        ProgramLevel::Instruction,
        ProgramLevel::Unattributed,
    ];
    /// Its name in the program view and JSON (`framework`, `hlo`, …).
    pub fn name(self) -> &'static str {
        match self {
            ProgramLevel::Framework => "framework",
            ProgramLevel::Hlo => "hlo",
            ProgramLevel::Penguin => "penguin",
            ProgramLevel::Bir => "bir",
            ProgramLevel::Instruction => "instruction",
            ProgramLevel::Unattributed => "unattributed",
        }
    }
}

impl serde::Serialize for ProgramLevel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One node of the operator hierarchy (framework op → HLO → penguin → BIR → instruction).
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct OpNode {
    pub level: ProgramLevel,
    pub name: String,
    /// Index of the parent node in [`Program::hierarchy`].
    pub parent: Option<u32>,
    /// "file:line" when known.
    pub source: String,
    /// Instructions (or trace events) attributed to this node, including descendants.
    pub instructions: u64,
    /// Extra attributes (op_type, kernel location, …).
    pub attrs: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct ProgramSubgraph {
    pub name: String,
    /// Instruction count per instruction stream, in [`Engine::STREAMS`] order.
    pub engines: Vec<(Engine, u64)>,
}

impl ProgramSubgraph {
    /// Instructions of `engine`'s stream (0 when the subgraph has none).
    pub fn instructions(&self, engine: Engine) -> u64 {
        self.engines.iter().find(|(e, _)| *e == engine).map_or(0, |(_, n)| *n)
    }
}

/// What a program table holds: analyses find a table by this, never by its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum ProgramTableKind {
    /// Columns `subgraph`, `name`, `kind`, `dtype`, `shape`, and `size` (bytes) when stated.
    Tensors,
    DmaQueues,
    Variables,
    /// The NEFF archive's members.
    Members,
    #[default]
    Other,
}

/// A table of the program view (tensors, DMA queues, variables, members …).
#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Table {
    pub kind: ProgramTableKind,
    /// Title shown in the program view.
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Where a program came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bincode::Encode, bincode::Decode)]
pub enum ProgramKind {
    /// A NEFF file.
    #[default]
    Neff,
    /// The NEFF's header and tensor tables as Neuron Explorer copied them into its Parquet
    /// output (no instructions, no debug info).
    NeffExplorerTables,
}

impl ProgramKind {
    /// Its title in the program view.
    pub fn label(self) -> &'static str {
        match self {
            ProgramKind::Neff => "NEFF",
            ProgramKind::NeffExplorerTables => "NEFF (Explorer tables)",
        }
    }
}

impl serde::Serialize for ProgramKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// The program's header: the fields analyses use, typed, and every field as the file states it
/// (the program view's header table).
#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct ProgramHeader {
    /// The NEFF UUID (32 hex digits as the file writes it), empty when not stated.
    pub uuid: String,
    pub network_name: String,
    /// Logical NeuronCores the program was compiled for, when stated.
    pub lnc_size: Option<u32>,
    /// (field, value) in file order, for display.
    pub fields: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Program {
    pub kind: ProgramKind,
    pub name: String,
    pub header: ProgramHeader,
    pub subgraphs: Vec<ProgramSubgraph>,
    pub tables: Vec<Table>,
    pub hierarchy: Vec<OpNode>,
}

impl Program {
    /// The first table of `kind`.
    pub fn table(&self, kind: ProgramTableKind) -> Option<&Table> {
        self.tables.iter().find(|t| t.kind == kind)
    }
}

/// How far the correlation pass got: for each level, how many events reached it, and for the
/// rest, why not.
#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct CorrelationReport {
    /// Events considered.
    pub events: u64,
    /// (level, events that reached it), in chain order.
    pub levels: Vec<(String, u64)>,
    /// (reason, events stopped by it).
    pub unmatched: Vec<(String, u64)>,
    /// Notes such as UUID mismatch or truncation.
    pub notes: Vec<String>,
}
