//! The XProf profile plugin's JSON tool outputs, shown as report tables (`TableKind::XprofTool`)
//! where their structure is tabular; nothing is drawn on the timeline (they have no times), and
//! no meaning is guessed from key names:
//!
//! - **Google-Charts DataTables** (overview page, input pipeline analyzer: a JSON array of
//!   `{cols: [{id, label, type}], rows: [{c: [{v}]}], p: {…}}`): one table per DataTable, columns
//!   named by `label` (else `id`), cells typed by their JSON value; its `p` properties become a
//!   two-column `property`/`value` table.
//! - **op profile** (`{byCategory|byProgram: node}`, node = `{name, metrics{…}, xla{…},
//!   children[]}`): one table per root, one row per node in depth-first order with a `depth`
//!   column, `name`, every `metrics.*` key and every scalar `xla.*` key met (first-seen order).
//! - **every other object** (memory viewer, pod viewer, …): each array of objects found in it
//!   becomes a table named by its JSON path (keys as columns, nested values as JSON text), each
//!   object whose values are all flat objects likewise (its keys in a `key` column, e.g.
//!   `podStatsPerCore`), and the scalars of every other object a `property`/`value` table.
//!
//! What is not shown is said in one `xprof_tool_not_drawn` warning per file: the tool's charts
//! (the memory viewer's heap-over-time chart, the pod viewer's topology, the op profile's
//! treemap) are not drawn, only the tables above.

use crate::model::WarningKind;
use serde_json::Value;

use super::super::{ImportError, InputFile, Sniff};
use crate::limits::Item;
use crate::model::{Cell, Column, ColumnUnit, DataTable, TableKind, TraceBuilder};

pub const FORMAT: &str = "xprof-tools";

/// Tables kept per file at most, columns per table at most, JSON nesting walked at most.
const MAX_TABLES: usize = 64;
const MAX_COLUMNS: usize = 128;
const MAX_DEPTH: usize = 8;
/// Text kept of a nested value shown in a cell.
const MAX_CELL_TEXT: usize = 2000;

const TOOLS: [&str; 5] = ["overview_page", "input_pipeline", "op_profile", "memory_viewer", "pod_viewer"];

/// The tool a file name names (`….op_profile.json`), if any.
fn tool_of_name(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    if !n.ends_with(".json") {
        return None;
    }
    TOOLS.into_iter().find(|t| n.contains(&format!("{t}.")) || n.contains(&format!("{t}_")))
}

/// `Some` when the file is a tool output: by name (`Yes`), or by its first key (`byCategory`,
/// `byProgram`, `hloModule` with `bufferAssignment`, `podStatsSequence`, or an array whose
/// first object starts with `cols`).
pub fn sniff(file_name: &str, prefix: &[u8]) -> Option<Sniff> {
    let text = String::from_utf8_lossy(prefix);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    if tool_of_name(file_name).is_some() {
        return Some(Sniff::Yes);
    }
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).take(64).collect();
    let known = [
        "{\"byCategory\":",
        "{\"byProgram\":",
        "{\"hloInfoMap\":",
        "{\"podStatsSequence\":",
        "[{\"cols\":[{\"id\"",
    ];
    if known.iter().any(|k| compact.starts_with(k))
        || (compact.starts_with("{\"hloModule\":") && t.contains("bufferAssignment"))
    {
        return Some(Sniff::Yes);
    }
    None
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
        other => {
            let mut s = other.to_string();
            if s.len() > MAX_CELL_TEXT {
                let mut end = MAX_CELL_TEXT;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.truncate(end);
                s.push('…');
            }
            Cell::Text(s)
        }
    }
}

fn column(name: &str) -> Column {
    Column { name: name.to_string(), unit: ColumnUnit::from_header(name) }
}

struct Tables<'a> {
    tool: &'a str,
    file: &'a str,
    out: Vec<DataTable>,
    dropped: usize,
    /// The import's budget: every table's cells are charged before its rows are made.
    b: &'a mut TraceBuilder,
    /// The first charge that did not fit: no table is made after it.
    over: Option<ImportError>,
}

impl Tables<'_> {
    /// Charge a table of `rows` × `columns` cells; false (and the error kept) when it does not
    /// fit the budget.
    fn charge(&mut self, rows: usize, columns: usize) -> bool {
        if self.over.is_some() {
            return false;
        }
        let cells = (rows as u64).saturating_mul(columns as u64);
        match self.b.charge(Item::TableCells, cells) {
            Ok(()) => true,
            Err(e) => {
                self.over = Some(e);
                false
            }
        }
    }

    fn push(&mut self, section: String, columns: Vec<Column>, rows: Vec<Vec<Cell>>) {
        if self.out.len() >= MAX_TABLES {
            self.dropped += 1;
            return;
        }
        self.out.push(DataTable {
            kind: TableKind::XprofTool,
            section: format!("{}: {section}", self.tool),
            source_file: self.file.to_string(),
            columns,
            rows,
        });
    }

    /// A Google-Charts DataTable; false when `v` is not one.
    fn data_table(&mut self, section: &str, v: &Value) -> bool {
        let (Some(cols), Some(rows)) =
            (v.get("cols").and_then(Value::as_array), v.get("rows").and_then(Value::as_array))
        else {
            return false;
        };
        let columns: Vec<Column> = cols
            .iter()
            .take(MAX_COLUMNS)
            .enumerate()
            .map(|(i, c)| {
                let label = c.get("label").and_then(Value::as_str).filter(|s| !s.is_empty());
                let id = c.get("id").and_then(Value::as_str);
                column(label.or(id).map_or_else(|| format!("column {}", i + 1), str::to_string).as_str())
            })
            .collect();
        if !self.charge(rows.len(), columns.len()) {
            return true;
        }
        let rows: Vec<Vec<Cell>> = rows
            .iter()
            .map(|r| {
                let cs = r.get("c").and_then(Value::as_array);
                (0..columns.len())
                    .map(|i| cs.and_then(|c| c.get(i)).and_then(|x| x.get("v")).map_or(Cell::Empty, cell))
                    .collect()
            })
            .collect();
        self.push(section.to_string(), columns, rows);
        if let Some(p) = v.get("p").and_then(Value::as_object).filter(|p| !p.is_empty()) {
            let rows = p.iter().map(|(k, v)| vec![Cell::Text(k.clone()), cell(v)]).collect();
            self.push(format!("{section} properties"), vec![column("property"), column("value")], rows);
        }
        true
    }

    /// An array of objects as a table (keys in first-seen order); false when it is not one.
    fn objects(&mut self, section: &str, items: &[(String, &Value)], key_column: Option<&str>) -> bool {
        if items.is_empty() || !items.iter().all(|(_, v)| v.is_object()) {
            return false;
        }
        let mut keys: Vec<&str> = Vec::new();
        for (_, v) in items {
            for k in v.as_object().into_iter().flatten().map(|(k, _)| k.as_str()) {
                if !keys.contains(&k) && keys.len() < MAX_COLUMNS {
                    keys.push(k);
                }
            }
        }
        let mut columns: Vec<Column> = key_column.map(column).into_iter().collect();
        columns.extend(keys.iter().map(|k| column(k)));
        if !self.charge(items.len(), columns.len()) {
            return true;
        }
        let rows = items
            .iter()
            .map(|(key, v)| {
                let mut r: Vec<Cell> = key_column.map(|_| Cell::Text(key.clone())).into_iter().collect();
                r.extend(keys.iter().map(|k| v.get(*k).map_or(Cell::Empty, cell)));
                r
            })
            .collect();
        self.push(section.to_string(), columns, rows);
        true
    }

    /// Walk any JSON value for arrays of objects and objects of objects.
    fn walk(&mut self, path: &str, v: &Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match v {
            Value::Array(a) => {
                let items: Vec<(String, &Value)> = a.iter().map(|x| (String::new(), x)).collect();
                if self.objects(path, &items, None) {
                    // nested arrays inside the rows (e.g. heap simulator events) get their own tables
                    for (i, x) in a.iter().enumerate().take(MAX_TABLES) {
                        for (k, child) in x.as_object().into_iter().flatten() {
                            if child.is_array() || child.is_object() {
                                self.walk(&format!("{path}[{i}].{k}"), child, depth + 1);
                            }
                        }
                    }
                }
            }
            Value::Object(o) => {
                // an object of flat objects (e.g. per-core stats keyed by core id) is one table
                let flat = |v: &Value| {
                    v.as_object().is_some_and(|m| m.values().all(|x| !x.is_object() && !x.is_array()))
                };
                let all_objects = o.len() > 1 && o.values().all(flat);
                if all_objects {
                    let items: Vec<(String, &Value)> = o.iter().map(|(k, x)| (k.clone(), x)).collect();
                    self.objects(path, &items, Some("key"));
                    return;
                }
                let scalars: Vec<Vec<Cell>> = o
                    .iter()
                    .filter(|(_, v)| !v.is_object() && !v.is_array())
                    .map(|(k, v)| vec![Cell::Text(k.clone()), cell(v)])
                    .collect();
                if !path.is_empty() && !scalars.is_empty() {
                    self.push(path.to_string(), vec![column("property"), column("value")], scalars);
                }
                for (k, child) in o {
                    let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    if child.is_array() || child.is_object() {
                        self.walk(&p, child, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// The op profile tree: one row per node, depth-first.
    fn op_tree(&mut self, root_key: &str, root: &Value) {
        let mut metric_keys: Vec<String> = Vec::new();
        let mut xla_keys: Vec<String> = Vec::new();
        let mut stack: Vec<(&Value, i64)> = vec![(root, 0)];
        let mut nodes: Vec<(&Value, i64)> = Vec::new();
        while let Some((n, d)) = stack.pop() {
            nodes.push((n, d));
            for (k, _) in n.get("metrics").and_then(Value::as_object).into_iter().flatten() {
                if !metric_keys.contains(k) && metric_keys.len() < MAX_COLUMNS {
                    metric_keys.push(k.clone());
                }
            }
            for (k, v) in n.get("xla").and_then(Value::as_object).into_iter().flatten() {
                if !v.is_object() && !v.is_array() && !xla_keys.contains(k) && xla_keys.len() < MAX_COLUMNS {
                    xla_keys.push(k.clone());
                }
            }
            if let Some(ch) = n.get("children").and_then(Value::as_array) {
                for c in ch.iter().rev() {
                    stack.push((c, d + 1));
                }
            }
        }
        let mut columns = vec![column("depth"), column("name")];
        columns.extend(metric_keys.iter().map(|k| column(&format!("metrics.{k}"))));
        columns.extend(xla_keys.iter().map(|k| column(&format!("xla.{k}"))));
        if !self.charge(nodes.len(), columns.len()) {
            return;
        }
        let rows = nodes
            .iter()
            .map(|(n, d)| {
                let mut r = vec![Cell::Int(*d), n.get("name").map_or(Cell::Empty, cell)];
                r.extend(
                    metric_keys
                        .iter()
                        .map(|k| n.get("metrics").and_then(|m| m.get(k)).map_or(Cell::Empty, cell)),
                );
                r.extend(
                    xla_keys.iter().map(|k| n.get("xla").and_then(|m| m.get(k)).map_or(Cell::Empty, cell)),
                );
                r
            })
            .collect();
        self.push(root_key.to_string(), columns, rows);
    }
}

pub fn import(file: &InputFile<'_>, b: &mut TraceBuilder) -> Result<(), ImportError> {
    crate::limits::check_json_size(file.bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
    // the file becomes one JSON tree: charged before it is parsed
    b.charge(Item::JsonText, file.bytes.len() as u64)?;
    let v: Value = serde_json::from_slice(file.bytes)
        .map_err(|e| ImportError::Invalid { format: FORMAT, message: format!("not valid JSON: {e}") })?;
    let tool = tool_of_name(file.name).unwrap_or(match &v {
        Value::Object(o) if o.contains_key("byCategory") || o.contains_key("byProgram") => "op_profile",
        Value::Object(o) if o.contains_key("hloModule") => "memory_viewer",
        Value::Object(o) if o.contains_key("podStatsSequence") || o.contains_key("hloInfoMap") => {
            "pod_viewer"
        }
        _ => "tool",
    });
    let mut t = Tables { tool, file: file.name, out: Vec::new(), dropped: 0, b, over: None };
    let mut not_drawn = "";
    match &v {
        Value::Array(a) if a.iter().any(|x| x.get("cols").is_some()) => {
            for (i, x) in a.iter().enumerate() {
                if !t.data_table(&format!("table {}", i + 1), x) {
                    t.walk(&format!("[{i}]"), x, 1);
                }
            }
            not_drawn = "the tool's charts are not drawn; its DataTables are listed as tables";
        }
        Value::Object(o) if o.contains_key("byCategory") || o.contains_key("byProgram") => {
            for k in ["byCategory", "byProgram"] {
                if let Some(root) = o.get(k).filter(|r| r.is_object()) {
                    t.op_tree(k, root);
                }
            }
            not_drawn =
                "the op profile's treemap is not drawn; its tree is listed as rows with a depth column";
        }
        Value::Object(o) => {
            let scalars: Vec<Vec<Cell>> = o
                .iter()
                .filter(|(_, v)| !v.is_object() && !v.is_array())
                .map(|(k, v)| vec![Cell::Text(k.clone()), cell(v)])
                .collect();
            if !scalars.is_empty() {
                t.push("properties".into(), vec![column("property"), column("value")], scalars);
            }
            t.walk("", &v, 0);
            not_drawn = match tool {
                "memory_viewer" => {
                    "the memory viewer's charts (buffers over program order, heap simulator) are not drawn; \
                     the HLO module's and buffer assignment's arrays are listed as tables"
                }
                "pod_viewer" => "the pod viewer's topology and charts are not drawn; its arrays and per-core maps are listed as tables",
                _ => "the tool's charts are not drawn; its arrays are listed as tables",
            };
        }
        _ => {}
    }
    if let Some(e) = t.over {
        return Err(e);
    }
    if t.out.is_empty() {
        return Err(ImportError::Unsupported {
            format: FORMAT,
            message: format!(
                "'{}' is JSON of the XProf {tool} tool but holds no table Loupe can show",
                file.name
            ),
        });
    }
    let (tables, dropped) = (t.out, t.dropped);
    let name = file.name.to_string();
    b.warn(WarningKind::XprofToolNotDrawn, || format!("{name}: {not_drawn}"));
    if dropped > 0 {
        b.warn(WarningKind::XprofToolTablesDropped, || {
            format!("{dropped} more tables were not kept (at most {MAX_TABLES} per file)")
        });
    }
    for table in tables {
        b.add_table(table);
    }
    b.set_format(FORMAT);
    Ok(())
}
