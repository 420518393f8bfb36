//! The TensorBoard-Neuron plugin's operator files, `neuron_framework_op.json` and
//! `neuron_hlo_op.json` (docs/formats/other-formats.md §3): `{"ops": [<op>, …],
//! "total_time": <u64>}`, each `<op>` the JSON text (a string) of one plane stat whose name starts
//! with `op_`. The keys inside `<op>` are not public, so nothing is guessed about them: every op
//! object becomes one row of a report table whose columns are the keys met, in first-seen order
//! (numbers typed, nested values kept as JSON text), plus `total_time` in the table's title. The
//! profile has no timeline; the Dashboard shows the table.
//!
//! Damage is counted, not fatal: an `<op>` that is not JSON text of an object is skipped with a
//! `tb_neuron_bad_op` warning.

use crate::limits::Item;
use crate::model::WarningKind;
use serde_json::Value;

use crate::import::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::{Cell, Column, ColumnUnit, DataTable, TableKind, TraceBuilder};

pub struct NeuronTbOps;

pub const NAME: &str = "tensorboard-neuron-ops";

/// Columns kept at most (a hostile file could name a million keys).
const MAX_COLUMNS: usize = 256;

fn kind_of(file_name: &str) -> TableKind {
    if file_name.to_ascii_lowercase().contains("hlo") {
        TableKind::NeuronHloOps
    } else {
        TableKind::NeuronFrameworkOps
    }
}

fn cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Empty,
        Value::Bool(b) => Cell::Text(b.to_string()),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Cell::Int(i),
            (None, Some(f)) if f.is_finite() => Cell::Float(f),
            _ => Cell::Text(n.to_string()),
        },
        Value::String(s) => Cell::Text(s.clone()),
        other => Cell::Text(other.to_string()),
    }
}

impl Importer for NeuronTbOps {
    fn name(&self) -> &'static str {
        NAME
    }

    /// A JSON object whose first key is `ops` (an array of strings) or `total_time`.
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(prefix);
        let t = text.trim_start_matches('\u{feff}').trim_start();
        let Some(rest) = t.strip_prefix('{') else { return Sniff::No };
        let rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("\"ops\"") {
            let after = after.trim_start().trim_start_matches(':').trim_start();
            if after.strip_prefix('[').is_some_and(|a| a.trim_start().starts_with(['"', ']'])) {
                return Sniff::Yes;
            }
        }
        if rest.starts_with("\"total_time\"") && t.contains("\"ops\"") {
            return Sniff::Yes;
        }
        Sniff::No
    }

    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        if file.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        if file.bytes.len() as u64 > crate::limits::MAX_JSON_INPUT_BYTES {
            return Err(ImportError::TooLarge {
                what: "the JSON file is".into(),
                limit: crate::limits::MAX_JSON_INPUT_BYTES,
            });
        }
        // the file becomes one JSON tree: charged before it is parsed
        b.charge(Item::JsonText, file.bytes.len() as u64)?;
        let root: Value = serde_json::from_slice(file.bytes)
            .map_err(|e| ImportError::Invalid { format: NAME, message: format!("not JSON: {e}") })?;
        let Value::Object(root) = root else { return Err(ImportError::NotMine(NAME)) };
        let Some(Value::Array(ops)) = root.get("ops") else { return Err(ImportError::NotMine(NAME)) };
        let total_time = root.get("total_time").and_then(Value::as_u64);
        let mut columns: Vec<String> = Vec::new();
        let mut rows: Vec<Vec<(usize, Cell)>> = Vec::with_capacity(ops.len());
        if !progress.report(0, file.bytes.len() as u64) {
            return Err(ImportError::Cancelled);
        }
        for (i, op) in ops.iter().enumerate() {
            let parsed = match op {
                Value::String(s) => serde_json::from_str::<Value>(s).ok(),
                Value::Object(_) => Some(op.clone()),
                _ => None,
            };
            let Some(Value::Object(fields)) = parsed else {
                b.warn(WarningKind::TbNeuronBadOp, || {
                    format!("op {i} is not the JSON text of an object; skipped")
                });
                continue;
            };
            // the sparse row now, the dense one below: both charged before they are made
            b.charge(Item::TableCells, fields.len() as u64)?;
            let mut row = Vec::with_capacity(fields.len());
            for (k, v) in &fields {
                let c = match columns.iter().position(|c| c == k) {
                    Some(c) => c,
                    None if columns.len() < MAX_COLUMNS => {
                        columns.push(k.clone());
                        columns.len() - 1
                    }
                    None => {
                        b.warn(WarningKind::TbNeuronManyKeys, || {
                            format!("more than {MAX_COLUMNS} distinct keys; the rest are not shown")
                        });
                        continue;
                    }
                };
                row.push((c, cell(v)));
            }
            rows.push(row);
        }
        let n = columns.len();
        // distinct keys in every op make every row as wide as all of them
        b.charge(Item::TableCells, (rows.len() as u64).saturating_mul(n as u64))?;
        let rows: Vec<Vec<Cell>> = rows
            .into_iter()
            .map(|r| {
                let mut out = vec![Cell::Empty; n];
                for (c, v) in r {
                    out[c] = v;
                }
                out
            })
            .collect();
        let kind = kind_of(file.name);
        let section = match total_time {
            Some(t) => format!("{} ops, total_time {t}", rows.len()),
            None => format!("{} ops", rows.len()),
        };
        b.add_table(DataTable {
            kind,
            section,
            source_file: file.name.to_string(),
            columns: columns
                .into_iter()
                .map(|name| Column { unit: ColumnUnit::from_header(&name), name })
                .collect(),
            rows,
        });
        if let Some(t) = total_time {
            b.add_metadata("total_time", t.to_string());
        }
        progress.report(file.bytes.len() as u64, file.bytes.len() as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_files, InputFile, NoProgress};

    /// A fixture from the documented schema: op objects serialised as strings; their keys are
    /// made up (the real ones are not public) — the importer must not depend on them.
    const FRAMEWORK: &str = r#"{"ops": ["{\"name\": \"aten::matmul\", \"occurrences\": 3, \"time\": 1200.5, \"device\": \"nd0:nc0\", \"fused\": [\"dot.1\", \"add.2\"]}",
 "{\"name\": \"aten::relu\", \"occurrences\": 1, \"time\": 40}",
 "not json", 7], "total_time": 1240}"#;

    #[test]
    fn ops_become_one_typed_row_each() {
        let t = import_files(
            &[InputFile { name: "neuron_framework_op.json", bytes: FRAMEWORK.as_bytes() }],
            &mut NoProgress,
        )
        .expect("imports");
        assert_eq!(t.format, NAME);
        assert_eq!(t.slice_count(), 0);
        assert_eq!(t.tables.len(), 1);
        let tb = &t.tables[0];
        assert_eq!(tb.kind, TableKind::NeuronFrameworkOps);
        let cols: Vec<&str> = tb.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cols, ["device", "fused", "name", "occurrences", "time"]);
        assert_eq!(tb.rows.len(), 2);
        assert_eq!(tb.rows[0][2], Cell::Text("aten::matmul".into()));
        assert_eq!(tb.rows[0][3], Cell::Int(3));
        assert_eq!(tb.rows[0][4], Cell::Float(1200.5));
        assert_eq!(tb.rows[0][1], Cell::Text(r#"["dot.1","add.2"]"#.into()));
        assert_eq!(tb.rows[1][0], Cell::Empty, "a key an op lacks is empty");
        assert_eq!(tb.section, "2 ops, total_time 1240");
        assert_eq!(t.warnings.count_of(WarningKind::TbNeuronBadOp), 2);
        t.validate().expect("valid");
    }

    #[test]
    fn hlo_file_kind_sniff_and_errors() {
        let hlo = r#"{"total_time": 5, "ops": []}"#;
        let t =
            import_files(&[InputFile { name: "neuron_hlo_op.json", bytes: hlo.as_bytes() }], &mut NoProgress)
                .expect("imports");
        assert_eq!(t.tables[0].kind, TableKind::NeuronHloOps);
        assert!(t.tables[0].rows.is_empty());
        let s = NeuronTbOps;
        assert_eq!(s.sniff("x.json", FRAMEWORK.as_bytes()), Sniff::Yes);
        assert_eq!(s.sniff("x.json", b"\xEF\xBB\xBF { \"ops\" : [ ] }"), Sniff::Yes);
        assert_eq!(s.sniff("x.json", br#"{"traceEvents": []}"#), Sniff::No);
        assert_eq!(s.sniff("x.json", br#"{"ops": [{"ph": "X"}]}"#), Sniff::No);
        assert_eq!(s.sniff("x.json", b"[1,2]"), Sniff::No);
        // truncated JSON: a typed error, not a panic
        let cut = &FRAMEWORK.as_bytes()[..40];
        assert!(import_files(&[InputFile { name: "neuron_framework_op.json", bytes: cut }], &mut NoProgress)
            .is_err());
    }
}
