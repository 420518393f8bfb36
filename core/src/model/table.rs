//! Report tables: typed, generic tables that a profiler wrote as reports (DLProf's `--reports`
//! CSV exports) and that have no timeline of their own. A [`DataTable`] has a [`TableKind`] (what
//! the table is, so widgets know where it belongs), column names with a [`ColumnUnit`] (read from
//! the header, e.g. `Total GPU Time (ns)` → ns) and typed [`Cell`]s. Importers add them with
//! [`crate::model::TraceBuilder::add_table`]; `Trace::validate` checks every row has one cell per
//! column.

/// What a report table is (DLProf `--reports` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum TableKind {
    /// `dlprof_summary.csv`: one table per section (System Config, Summary Report, Iterations,
    /// All Ops, All Kernels); the table's `section` says which.
    DlprofSummary,
    /// `dlprof_detailed.csv`: one row per op (calls, CPU/GPU time, tensor-core use).
    DlprofOps,
    /// `dlprof_kernel.csv`: one row per kernel × op.
    DlprofKernels,
    /// `dlprof_iteration.csv`: one row per kernel launch per iteration.
    DlprofIterations,
    /// `dlprof_op_type.csv`: aggregates per op type.
    DlprofOpTypes,
    /// `dlprof_group_op.csv`: aggregates per module path.
    DlprofGroupOps,
    /// `dlprof_tensor_core.csv`: tensor-core use per op.
    DlprofTensorCore,
    /// `dlprof_expert_systems.csv`: problem → recommendation.
    DlprofRecommendations,
    /// TensorBoard-Neuron `neuron_framework_op.json`: one row per framework operator (the keys
    /// of its op objects as columns).
    NeuronFrameworkOps,
    /// TensorBoard-Neuron `neuron_hlo_op.json`: one row per HLO operator.
    NeuronHloOps,
    /// An XProf / TensorBoard profile plugin tool output (overview page, input pipeline, op
    /// profile, memory viewer, pod viewer): one table per Google-Charts DataTable, per array of
    /// objects, or per flattened tree; the section names the tool and the JSON path.
    XprofTool,
}

impl TableKind {
    /// A short stable key (`ops`, `kernels`, …) for tests, JSON and `data-` attributes.
    pub fn key(self) -> &'static str {
        match self {
            TableKind::DlprofSummary => "summary",
            TableKind::DlprofOps => "ops",
            TableKind::DlprofKernels => "kernels",
            TableKind::DlprofIterations => "iterations",
            TableKind::DlprofOpTypes => "op_types",
            TableKind::DlprofGroupOps => "group_ops",
            TableKind::DlprofTensorCore => "tensor_core",
            TableKind::DlprofRecommendations => "recommendations",
            TableKind::NeuronFrameworkOps => "neuron_framework_ops",
            TableKind::NeuronHloOps => "neuron_hlo_ops",
            TableKind::XprofTool => "xprof_tool",
        }
    }
}

/// How a column's numbers read (from its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum ColumnUnit {
    /// Nanoseconds (`… (ns)`).
    Ns,
    /// A percentage (`… %` or `… (%)`).
    Percent,
    /// Anything else (counts, names, flags).
    Plain,
}

impl ColumnUnit {
    /// The unit a header names: `(ns)` → ns, `%` → percent, else plain.
    pub fn from_header(h: &str) -> ColumnUnit {
        let h = h.trim();
        if h.ends_with("(ns)") {
            ColumnUnit::Ns
        } else if h.ends_with('%') || h.ends_with("(%)") {
            ColumnUnit::Percent
        } else {
            ColumnUnit::Plain
        }
    }
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Column {
    pub name: String,
    pub unit: ColumnUnit,
}

/// One typed cell.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
#[serde(untagged)]
pub enum Cell {
    Empty,
    Int(i64),
    Float(f64),
    Text(String),
}

impl Cell {
    /// The typed value of a text field: empty, an integer, a finite float, else text.
    pub fn parse(s: &str) -> Cell {
        let t = s.trim();
        if t.is_empty() {
            return Cell::Empty;
        }
        let numeric = t.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'));
        if numeric && t.bytes().any(|c| c.is_ascii_digit()) {
            if let Ok(i) = t.parse::<i64>() {
                return Cell::Int(i);
            }
            if let Ok(f) = t.parse::<f64>() {
                if f.is_finite() {
                    return Cell::Float(f);
                }
            }
        }
        Cell::Text(s.to_string())
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Cell::Int(i) => Some(*i),
            Cell::Float(f) if f.is_finite() => Some(f.round() as i64),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }
    /// The cell as text (numbers as written by `to_string`; empty for `Empty`).
    pub fn display(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => f.to_string(),
            Cell::Text(s) => s.clone(),
        }
    }
}

/// A report table.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct DataTable {
    pub kind: TableKind,
    /// The section or title the file gave it (`Kernel Report`, `All Ops`, …).
    pub section: String,
    /// The file it was read from.
    pub source_file: String,
    pub columns: Vec<Column>,
    /// Each row has exactly `columns.len()` cells.
    pub rows: Vec<Vec<Cell>>,
}

impl DataTable {
    /// Index of the column named `name` (exact).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
    /// The cell at (`row`, column `name`).
    pub fn cell(&self, row: usize, name: &str) -> Option<&Cell> {
        let c = self.column(name)?;
        self.rows.get(row)?.get(c)
    }
    pub fn heap_bytes(&self) -> usize {
        let cells: usize = self
            .rows
            .iter()
            .flatten()
            .map(|c| std::mem::size_of::<Cell>() + if let Cell::Text(s) = c { s.capacity() } else { 0 })
            .sum();
        cells + self.columns.iter().map(|c| c.name.capacity() + 16).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_typed_from_text() {
        assert_eq!(Cell::parse(""), Cell::Empty);
        assert_eq!(Cell::parse(" 42 "), Cell::Int(42));
        assert_eq!(Cell::parse("-7"), Cell::Int(-7));
        assert_eq!(Cell::parse("13555.2"), Cell::Float(13555.2));
        assert_eq!(Cell::parse("CONV2D_1"), Cell::Text("CONV2D_1".into()));
        assert_eq!(Cell::parse("e"), Cell::Text("e".into()));
        assert_eq!(Cell::parse("1e999"), Cell::Text("1e999".into()));
        assert_eq!(Cell::parse("nan"), Cell::Text("nan".into()));
        assert_eq!(ColumnUnit::from_header("Total GPU Time (ns)"), ColumnUnit::Ns);
        assert_eq!(ColumnUnit::from_header("GPU Utilization %"), ColumnUnit::Percent);
        assert_eq!(ColumnUnit::from_header("TC Utilization (%)"), ColumnUnit::Percent);
        assert_eq!(ColumnUnit::from_header("No. Calls"), ColumnUnit::Plain);
    }
}
