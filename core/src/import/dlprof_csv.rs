//! NVIDIA DLProf `--reports` CSV exports (`dlprof_summary.csv`, `dlprof_detailed.csv`,
//! `dlprof_kernel.csv`, `dlprof_iteration.csv`, `dlprof_op_type.csv`, `dlprof_group_op.csv`,
//! `dlprof_tensor_core.csv`, `dlprof_expert_systems.csv`) into report tables
//! ([`crate::model::DataTable`]). They carry no timeline: the profile has tables only.
//!
//! Layout (from the shared samples, DLProf v1.7/v1.8): a title line (`Kernel Report`), a header
//! line, then one record per row; quoted fields may span lines (the `Stack Trace` column). The
//! summary is different: sections (`System Config`, `Summary Report`, `Iterations`, `All Ops`,
//! `All Kernels`), each a one-field title line followed by `key,value` lines or by a small matrix
//! whose header starts with an empty cell; each section becomes its own table. Its `GPU Name(s)`
//! value is a comma-separated list written without quotes: the extra fields are joined back.
//!
//! The table's kind comes from its header (robust to a title the file may word differently);
//! cells are typed (`Cell::parse`: integer, float, text), columns get their unit from the header
//! (`(ns)`, `%`). Damage is counted: rows with more fields than the header are cut
//! (`dlprof_extra_fields`), shorter rows padded (`dlprof_short_row`), invalid UTF-8 replaced.

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::limits::Item;
use crate::model::WarningKind;
use crate::model::{Cell, Column, ColumnUnit, DataTable, TableKind, TraceBuilder};

pub struct DlprofCsv;

pub const NAME: &str = "dlprof-csv";

/// Section titles of `dlprof_summary.csv`.
const SUMMARY_SECTIONS: &[&str] =
    &["System Config", "Summary Report", "Iterations", "All Ops", "All Kernels"];

/// Title lines of the other reports.
const TITLES: &[&str] = &[
    "All Iterations",
    "Expert Systems Feedback",
    "Group Op Report",
    "Iteration Report",
    "Kernel Report",
    "Op Type Summary Report",
    "Tensor Core Report",
];

/// The kind of a report table from its header fields, or `None` when it is no DLProf header.
pub fn kind_of_header(h: &[String]) -> Option<TableKind> {
    let has = |n: &str| h.iter().any(|x| x.trim() == n);
    let first = h.first().map(|s| s.trim()).unwrap_or("");
    if first == "Iteration" && has("Kernel Name") && has("GPU Start Time (ns)") {
        Some(TableKind::DlprofIterations)
    } else if first == "Kernel Name" && has("Total GPU Time (ns)") {
        Some(TableKind::DlprofKernels)
    } else if has("TC Kernel Names") && has("Op Name") {
        Some(TableKind::DlprofTensorCore)
    } else if first == "Op Type" && has("# Ops") {
        Some(TableKind::DlprofOpTypes)
    } else if first == "Name" && has("Num Calls Aggregated") {
        Some(TableKind::DlprofGroupOps)
    } else if has("Op Name") && has("No. Calls") {
        Some(TableKind::DlprofOps)
    } else if h.len() == 2 && first == "Problem" && h[1].trim() == "Recommendation" {
        Some(TableKind::DlprofRecommendations)
    } else {
        None
    }
}

/// The first line of `prefix` (after a byte-order mark), without its line ending.
fn first_line(prefix: &[u8]) -> &[u8] {
    let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let end = p.iter().position(|&c| c == b'\n').unwrap_or(p.len());
    let l = &p[..end];
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Split one line of plain CSV (no quotes spanning lines) for the sniff.
fn split_simple(line: &[u8]) -> Vec<String> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line);
    let mut rec = csv::ByteRecord::new();
    match r.read_byte_record(&mut rec) {
        Ok(true) => rec.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect(),
        _ => Vec::new(),
    }
}

impl Importer for DlprofCsv {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        let line = first_line(prefix);
        let Ok(text) = std::str::from_utf8(line) else { return Sniff::No };
        let t = text.trim().trim_end_matches(',');
        if SUMMARY_SECTIONS[..2].contains(&t) || TITLES.contains(&t) {
            return Sniff::Yes;
        }
        // a report without its title line: the header alone
        if text.contains(',') && kind_of_header(&split_simple(line)).is_some() {
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
        let total = file.bytes.len() as u64;
        let bytes = file.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file.bytes);
        let records = read_records(bytes, b)?;
        let Some(first) = records.first() else { return Err(ImportError::Empty) };
        let title = first.first().map(|s| s.trim().to_string()).unwrap_or_default();
        let source = file.name.to_string();
        let before = b.table_count();
        if first.iter().skip(1).all(|f| f.trim().is_empty()) && SUMMARY_SECTIONS.contains(&title.as_str()) {
            summary_tables(&records, &source, b);
        } else {
            // title line (one field) then header, or the header alone
            let (section, header_at) = if first.len() == 1 { (title.clone(), 1) } else { (String::new(), 0) };
            let header = records.get(header_at).cloned().unwrap_or_default();
            let Some(kind) = kind_of_header(&header) else {
                if before == 0 && !TITLES.contains(&title.as_str()) {
                    return Err(ImportError::NotMine(NAME));
                }
                return Err(ImportError::Invalid {
                    format: NAME,
                    message: format!(
                        "'{}': the line after the title '{}' is not a DLProf report header \
                         (expected e.g. `Kernel Name,Op ID,…` or `Op ID,Op Name,Direction,…`)",
                        super::container::printable(file.name),
                        super::container::printable(&section)
                    ),
                });
            };
            let section = if section.is_empty() { default_title(kind).to_string() } else { section };
            let columns: Vec<Column> = header
                .iter()
                .map(|h| Column { name: h.trim().to_string(), unit: ColumnUnit::from_header(h) })
                .collect();
            let n = columns.len();
            let mut rows = Vec::with_capacity(records.len().saturating_sub(header_at + 1));
            // the typed cells are charged as they are made, next to the text they come from
            b.charge(
                Item::TableCells,
                (records.len().saturating_sub(header_at + 1) as u64).saturating_mul(n as u64),
            )?;
            for (i, r) in records.iter().enumerate().skip(header_at + 1) {
                if r.len() > n {
                    let extra = r.len() - n;
                    b.warn(WarningKind::DlprofExtraFields, || {
                        format!("{section}: record {i} has {extra} field(s) more than the header; cut")
                    });
                } else if r.len() < n {
                    let have = r.len();
                    b.warn(WarningKind::DlprofShortRow, || {
                        format!("{section}: record {i} has {have} of {n} fields; the rest left empty")
                    });
                }
                rows.push(r.iter().take(n).map(|f| Cell::parse(f)).collect());
            }
            b.add_table(DataTable { kind, section, source_file: source, columns, rows });
        }
        if b.table_count() == before {
            return Err(ImportError::Invalid {
                format: NAME,
                message: format!("'{}' holds no DLProf report table", super::container::printable(file.name)),
            });
        }
        b.add_metadata("dlprof.report", title);
        progress.report(total, total);
        Ok(())
    }
}

fn default_title(kind: TableKind) -> &'static str {
    match kind {
        TableKind::DlprofSummary => "Summary",
        TableKind::DlprofOps => "All Iterations",
        TableKind::DlprofKernels => "Kernel Report",
        TableKind::DlprofIterations => "Iteration Report",
        TableKind::DlprofOpTypes => "Op Type Summary Report",
        TableKind::DlprofGroupOps => "Group Op Report",
        TableKind::DlprofTensorCore => "Tensor Core Report",
        TableKind::DlprofRecommendations => "Expert Systems Feedback",
        TableKind::NeuronFrameworkOps | TableKind::NeuronHloOps | TableKind::XprofTool => "",
    }
}

/// Every record of the file as text fields (quoted multi-line fields joined, blank lines
/// skipped by the CSV reader, invalid UTF-8 replaced with a warning). The fields are charged to
/// the import's budget as they are read: a file of short fields holds ~30 bytes per input byte.
fn read_records(bytes: &[u8], b: &mut TraceBuilder) -> Result<Vec<Vec<String>>, ImportError> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut rec = csv::ByteRecord::new();
    let mut out = Vec::new();
    // an in-memory reader has no I/O errors and byte records no UTF-8 ones: Err ends the loop too
    while let Ok(true) = r.read_byte_record(&mut rec) {
        let mut fields = Vec::with_capacity(rec.len());
        for f in rec.iter() {
            match std::str::from_utf8(f) {
                Ok(s) => fields.push(s.to_string()),
                Err(_) => {
                    let at = rec.position().map_or(0, |p| p.byte());
                    b.warn(WarningKind::DlprofBadUtf8, || {
                        format!("record at byte {at}: invalid UTF-8 replaced")
                    });
                    fields.push(String::from_utf8_lossy(f).into_owned());
                }
            }
        }
        let text: usize = fields.iter().map(String::len).sum();
        let held = (fields.len() * (2 * std::mem::size_of::<String>()) + text) as u64;
        b.charge_bytes(Item::TableCells, fields.len() as u64, held)?;
        out.push(fields);
    }
    Ok(out)
}

/// `dlprof_summary.csv`: one table per section. A one-field record starts a section; a section
/// whose first line starts with an empty field is a matrix (that line is its header), else it
/// is `key,value` lines (extra fields are the value's own commas, joined back).
fn summary_tables(records: &[Vec<String>], source: &str, b: &mut TraceBuilder) {
    let mut i = 0;
    while i < records.len() {
        let r = &records[i];
        let is_title = |r: &Vec<String>| r.len() == 1 || r.iter().skip(1).all(|f| f.trim().is_empty());
        if !is_title(r) {
            let at = i;
            b.warn(WarningKind::DlprofOrphanRow, || {
                format!("summary record {at} is outside any section; skipped")
            });
            i += 1;
            continue;
        }
        let section = r[0].trim().to_string();
        let mut j = i + 1;
        while j < records.len() && !is_title(&records[j]) {
            j += 1;
        }
        let body = &records[i + 1..j];
        let matrix = body.first().is_some_and(|h| h.first().is_some_and(|f| f.trim().is_empty()));
        let (columns, rows): (Vec<Column>, Vec<Vec<Cell>>) = if matrix {
            let header = &body[0];
            let columns = header
                .iter()
                .enumerate()
                .map(|(k, h)| {
                    let name =
                        if k == 0 && h.trim().is_empty() { "Name".to_string() } else { h.trim().to_string() };
                    Column { unit: ColumnUnit::from_header(&name), name }
                })
                .collect::<Vec<_>>();
            let rows = body[1..].iter().map(|r| r.iter().map(|f| Cell::parse(f)).collect()).collect();
            (columns, rows)
        } else {
            let columns = vec![
                Column { name: "Key".into(), unit: ColumnUnit::Plain },
                Column { name: "Value".into(), unit: ColumnUnit::Plain },
            ];
            let rows = body
                .iter()
                .map(|r| {
                    let key = r.first().map(|s| s.trim().to_string()).unwrap_or_default();
                    let value = r.iter().skip(1).map(|s| s.trim()).collect::<Vec<_>>().join(", ");
                    vec![Cell::Text(key), Cell::parse(&value)]
                })
                .collect();
            (columns, rows)
        };
        if !body.is_empty() {
            let n = columns.len();
            if rows.iter().any(|r: &Vec<Cell>| r.len() != n) {
                b.warn(WarningKind::DlprofShortRow, || {
                    format!("{section}: a row does not match its header; padded or cut")
                });
            }
            b.add_table(DataTable {
                kind: TableKind::DlprofSummary,
                section,
                source_file: source.to_string(),
                columns,
                rows,
            });
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{import_bytes, import_files, InputFile, NoProgress};

    const KERNEL: &str = "Kernel Report\nKernel Name,Op ID,Op Name,Direction,Uses TC,Total GPU Time (ns),Avg GPU Time (ns)\n\"k1\",\"OP_1\",\"/m/conv2d\",fprop,no,2176,2176.0\n\"k2\",\"OP_1\",\"/m/conv2d\",fprop,yes,100,50.5\n";

    #[test]
    fn sniff_takes_titles_and_headers_and_nothing_else() {
        let d = DlprofCsv;
        assert_eq!(d.sniff("x.csv", KERNEL.as_bytes()), Sniff::Yes);
        assert_eq!(d.sniff("x.csv", b"System Config\nGPU Count,1\n"), Sniff::Yes);
        assert_eq!(d.sniff("x.csv", b"\xEF\xBB\xBFTensor Core Report\r\n"), Sniff::Yes);
        assert_eq!(d.sniff("x.csv", b"Op ID,Op Name,Direction,Op Type,No. Calls\n"), Sniff::Yes);
        assert_eq!(d.sniff("x.csv", b"a,b,c\n1,2,3\n"), Sniff::No);
        assert_eq!(d.sniff("x.json", b"{\"traceEvents\":[]}"), Sniff::No);
        assert_eq!(d.sniff("x", b"\xff\xfe\x00"), Sniff::No);
    }

    #[test]
    fn a_kernel_report_becomes_one_typed_table() {
        let t = import_bytes("dlprof_kernel.csv", KERNEL.as_bytes(), &mut NoProgress).unwrap();
        t.validate().unwrap();
        assert_eq!(t.format, NAME);
        assert_eq!(t.slice_count(), 0);
        assert_eq!(t.tables.len(), 1);
        let k = &t.tables[0];
        assert_eq!(k.kind, TableKind::DlprofKernels);
        assert_eq!(k.section, "Kernel Report");
        assert_eq!(k.rows.len(), 2);
        assert_eq!(k.columns[5].unit, ColumnUnit::Ns);
        assert_eq!(k.cell(0, "Total GPU Time (ns)"), Some(&Cell::Int(2176)));
        assert_eq!(k.cell(1, "Avg GPU Time (ns)"), Some(&Cell::Float(50.5)));
        assert_eq!(k.cell(1, "Uses TC"), Some(&Cell::Text("yes".into())));
    }

    #[test]
    fn quoted_multi_line_fields_and_ragged_rows() {
        let csv = "All Iterations\nOp ID,Op Name,No. Calls,Stack Trace\n\"A\",\"x\",1,\"a.py:1\nb.py:2\"\n\"B\",\"y\"\n\"C\",\"z\",3,\"s\",extra\n";
        let t = import_bytes("d.csv", csv.as_bytes(), &mut NoProgress).unwrap();
        t.validate().unwrap();
        let o = &t.tables[0];
        assert_eq!(o.kind, TableKind::DlprofOps);
        assert_eq!(o.rows.len(), 3);
        assert_eq!(o.cell(0, "Stack Trace"), Some(&Cell::Text("a.py:1\nb.py:2".into())));
        assert_eq!(o.cell(1, "No. Calls"), Some(&Cell::Empty));
        assert_eq!(t.warnings.count_of(WarningKind::DlprofShortRow), 1);
        assert_eq!(t.warnings.count_of(WarningKind::DlprofExtraFields), 1);
    }

    #[test]
    fn the_summary_becomes_one_table_per_section() {
        let csv = "System Config\nGPU Count,2\nGPU Name(s),A100, A100\n\nSummary Report\nGPU Utilization %,0.1\n\nAll Ops\n,GPU Time (ns),CPU Time (ns),# Ops\nAll ops,27,43,141\nOps using TC,9,2,7\n";
        let t = import_bytes("s.csv", csv.as_bytes(), &mut NoProgress).unwrap();
        t.validate().unwrap();
        let sections: Vec<&str> = t.tables.iter().map(|t| t.section.as_str()).collect();
        assert_eq!(sections, ["System Config", "Summary Report", "All Ops"]);
        assert!(t.tables.iter().all(|t| t.kind == TableKind::DlprofSummary));
        assert_eq!(
            t.tables[0].rows[1],
            vec![Cell::Text("GPU Name(s)".into()), Cell::Text("A100, A100".into())]
        );
        assert_eq!(t.tables[1].rows[0][1], Cell::Float(0.1));
        let ops = &t.tables[2];
        assert_eq!(ops.columns[0].name, "Name");
        assert_eq!(ops.cell(1, "# Ops"), Some(&Cell::Int(7)));
    }

    #[test]
    fn several_reports_dropped_together_are_one_profile() {
        let rec = "Expert Systems Feedback\nProblem,Recommendation\n\"p\",\"r\"\n";
        let files = [
            InputFile { name: "k.csv", bytes: KERNEL.as_bytes() },
            InputFile { name: "e.csv", bytes: rec.as_bytes() },
        ];
        let t = import_files(&files, &mut NoProgress).unwrap();
        let kinds: Vec<TableKind> = t.tables.iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [TableKind::DlprofKernels, TableKind::DlprofRecommendations]);
        assert_eq!(t.tables[1].source_file, "e.csv");
    }

    #[test]
    fn a_title_without_a_header_is_a_clear_error() {
        let e = import_bytes("k.csv", b"Kernel Report\nfoo,bar\n", &mut NoProgress).unwrap_err();
        assert!(e.to_string().contains("not a DLProf report header"), "{e}");
        let e = import_bytes("k.csv", b"Kernel Report\n", &mut NoProgress).unwrap_err();
        assert!(e.to_string().contains("not a DLProf report header"), "{e}");
        // a title alone of the summary: nothing to show
        let e = import_bytes("s.csv", b"System Config\n", &mut NoProgress).unwrap_err();
        assert!(e.to_string().contains("no DLProf report table"), "{e}");
    }
}
