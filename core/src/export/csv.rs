//! CSV (RFC 4180) of slices — all, a time range, or a chosen set — and of tables (report tables,
//! analysis tables as rows of text). A cell that would start a spreadsheet formula (`=`, `+`, `-`,
//! `@`, tab, CR) is prefixed with `'` unless it is a number Loupe wrote itself.

use super::ExportError;
use crate::model::{Cell, DataTable, SliceRef, Trace};
use std::io::Write;

/// Which slices to write.
#[derive(Debug, Clone)]
pub enum Slices<'a> {
    All,
    /// Slices overlapping `[t0_ns, t1_ns)` (the visible range).
    Range {
        t0_ns: i64,
        t1_ns: i64,
    },
    /// These slices, in this order (a selection, search hits, a table row's events).
    Refs(&'a [SliceRef]),
}

/// The header of [`write_slices`].
pub const SLICE_COLUMNS: &str = "group,track,depth,start_ns,dur_ns,end_ns,name,category,opcode,instruction";

/// One text cell, quoted when needed and formula-neutralised.
pub fn field(s: &str) -> String {
    let mut cell = String::with_capacity(s.len() + 2);
    if matches!(s.chars().next(), Some('=' | '+' | '-' | '@' | '\t' | '\r')) {
        cell.push('\'');
    }
    cell.push_str(s);
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

/// Write slices as CSV ([`SLICE_COLUMNS`]); returns the number of rows.
pub fn write_slices(trace: &Trace, which: &Slices<'_>, w: &mut dyn Write) -> Result<u64, ExportError> {
    writeln!(w, "{SLICE_COLUMNS}")?;
    let mut n = 0u64;
    let mut row = |w: &mut dyn Write, r: SliceRef| -> Result<(), ExportError> {
        let Some(t) = trace.tracks.get(r.track.idx()) else { return Ok(()) };
        let c = &t.slices;
        let i = r.index as usize;
        if i >= c.len() {
            return Ok(());
        }
        let g = trace.groups.get(t.group.idx()).map_or("", |g| trace.str(g.name));
        let d = c.domain_of(i);
        let op = if d.opcode == crate::StrId::EMPTY { String::new() } else { field(trace.str(d.opcode)) };
        let pc = if d.instruction == u32::MAX { String::new() } else { d.instruction.to_string() };
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{op},{pc}",
            field(g),
            field(trace.str(t.name)),
            c.depth_of(i),
            c.start_ns[i],
            c.dur_ns.at(i),
            c.end_ns(i),
            field(trace.str(c.name[i])),
            field(trace.str(c.category[i])),
        )?;
        n += 1;
        Ok(())
    };
    match which {
        Slices::Refs(refs) => {
            for &r in refs.iter() {
                row(w, r)?;
            }
        }
        Slices::All | Slices::Range { .. } => {
            let (t0, t1) = match which {
                Slices::Range { t0_ns, t1_ns } => (*t0_ns, *t1_ns),
                _ => (i64::MIN, i64::MAX),
            };
            for (ti, t) in trace.tracks.iter().enumerate() {
                for depth in 0..t.slices.depth_count() {
                    for i in t.slices.range_at_depth(depth, t0, t1) {
                        row(w, SliceRef { track: crate::model::TrackId(ti as u32), index: i as u32 })?;
                    }
                }
            }
        }
    }
    Ok(n)
}

/// A report table ([`DataTable`]) as CSV: its column names, then its typed cells.
pub fn write_data_table(t: &DataTable, w: &mut dyn Write) -> Result<(), ExportError> {
    let head: Vec<String> = t.columns.iter().map(|c| field(&c.name)).collect();
    writeln!(w, "{}", head.join(","))?;
    for r in &t.rows {
        let cells: Vec<String> = r
            .iter()
            .map(|c| match c {
                Cell::Empty => String::new(),
                Cell::Int(i) => i.to_string(),
                Cell::Float(x) => x.to_string(),
                Cell::Text(s) => field(s),
            })
            .collect();
        writeln!(w, "{}", cells.join(","))?;
    }
    Ok(())
}

/// Any table as CSV: a header and rows of already formatted cells (an analysis table, the
/// comparison table). Every cell goes through [`field`] except those that parse as numbers.
pub fn write_rows<R, C>(header: &[&str], rows: R, w: &mut dyn Write) -> Result<(), ExportError>
where
    R: IntoIterator<Item = C>,
    C: IntoIterator<Item = String>,
{
    let head: Vec<String> = header.iter().map(|h| field(h)).collect();
    writeln!(w, "{}", head.join(","))?;
    for r in rows {
        let cells: Vec<String> =
            r.into_iter().map(|c| if c.parse::<f64>().is_ok() { c } else { field(&c) }).collect();
        writeln!(w, "{}", cells.join(","))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_and_neutralised() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("=1+1"), "'=1+1");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn a_range_writes_exactly_the_overlapping_slices() {
        let t = crate::model::synth::nested_trace(500, 2, 3);
        let (t0, t1) = (t.start_ns + t.duration_ns() / 3, t.start_ns + t.duration_ns() / 2);
        let expect = t
            .tracks
            .iter()
            .flat_map(|tr| (0..tr.slices.len()).map(move |i| (tr.slices.start_ns[i], tr.slices.end_ns(i))))
            .filter(|&(s, e)| s < t1 && (e > t0 || (s == e && s == t0)))
            .count() as u64;
        let mut out = Vec::new();
        let n = write_slices(&t, &Slices::Range { t0_ns: t0, t1_ns: t1 }, &mut out).unwrap();
        assert_eq!(n, expect);
        assert!(n > 0 && n < 500);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count() as u64, n + 1);
        let mut all = Vec::new();
        assert_eq!(write_slices(&t, &Slices::All, &mut all).unwrap(), 500);
        let refs = [SliceRef { track: crate::model::TrackId(1), index: 0 }];
        let mut one = Vec::new();
        assert_eq!(write_slices(&t, &Slices::Refs(&refs), &mut one).unwrap(), 1);
        assert!(String::from_utf8(one).unwrap().contains("thread 1"));
    }

    #[test]
    fn rows_keep_numbers_and_quote_text() {
        let mut out = Vec::new();
        write_rows(&["name", "delta_ns"], vec![vec!["-a,b".to_string(), "-5".to_string()]], &mut out)
            .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "name,delta_ns\n\"'-a,b\",-5\n");
    }
}
