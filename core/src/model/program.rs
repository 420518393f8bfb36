//! A compiled program attached to a trace (e.g. a Neuron NEFF), format-agnostic: header fields,
//! subgraphs with per-engine instruction counts, named tables (tensors, DMA queues, …) and the
//! operator hierarchy. Plus the report of the correlation pass that joined trace events to it.

/// One node of the operator hierarchy (framework op → HLO → penguin → BIR, or any other levels).
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct OpNode {
    /// Level name, e.g. "framework", "hlo", "penguin", "bir".
    pub level: String,
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
    /// (engine name, instruction count), engines in a stable order.
    pub engines: Vec<(String, u64)>,
}

/// A generic table for the program view (tensors, DMA queues, variables, members …).
#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Default, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Program {
    /// e.g. "NEFF".
    pub kind: String,
    pub name: String,
    pub header: Vec<(String, String)>,
    pub subgraphs: Vec<ProgramSubgraph>,
    pub tables: Vec<Table>,
    pub hierarchy: Vec<OpNode>,
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
