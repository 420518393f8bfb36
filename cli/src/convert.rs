//! `loupe convert` and `loupe diff` over `loupe_core::export`, `loupe_file` and
//! `analysis::compare`.

use loupe_core::analysis::compare::{self, Comparison};
use loupe_core::export::{chrome_json, csv, parquet as pq};
use loupe_core::loupe_file::{self, FileMeta, SourceFile};
use loupe_core::Trace;
use std::io::Write;

/// Write `t` as `to` (parquet | json | csv | loupe) into `out` (a folder for parquet; `-` =
/// stdout for json and csv). Returns a one-line report.
pub fn convert(t: &Trace, sources: &[(String, u64)], to: &str, out: &str) -> Result<String, String> {
    let file = |p: &str| -> Result<Box<dyn Write>, String> {
        if p == "-" {
            return Ok(Box::new(std::io::BufWriter::new(std::io::stdout())));
        }
        let f = std::fs::File::create(p).map_err(|e| format!("{p}: {e}"))?;
        Ok(Box::new(std::io::BufWriter::with_capacity(1 << 20, f)))
    };
    match to {
        "parquet" => {
            std::fs::create_dir_all(out).map_err(|e| format!("{out}: {e}"))?;
            let mut sizes = Vec::new();
            for table in pq::TABLES {
                let p = std::path::Path::new(out).join(format!("{table}.parquet"));
                let f = std::fs::File::create(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                pq::write_table(t, table, std::io::BufWriter::with_capacity(1 << 20, f))
                    .map_err(|e| e.to_string())?;
                sizes.push(format!("{table} {}", std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0)));
            }
            Ok(format!("wrote {out}/{{{}}}.parquet (bytes: {})", pq::TABLES.join(","), sizes.join(", ")))
        }
        "json" => {
            let mut w = file(out)?;
            let st = chrome_json::write(t, &mut w).map_err(|e| e.to_string())?;
            w.flush().map_err(|e| e.to_string())?;
            Ok(format!(
                "wrote {out}: {} slices, {} instants, {} counter samples, {} flows on {} threads{}",
                st.slices,
                st.instants,
                st.counter_samples,
                st.flows,
                st.threads,
                if st.skipped_counter_samples > 0 {
                    format!(" ({} non-finite counter samples skipped)", st.skipped_counter_samples)
                } else {
                    String::new()
                }
            ))
        }
        "csv" => {
            let mut w = file(out)?;
            let n = csv::write_slices(t, &csv::Slices::All, &mut w).map_err(|e| e.to_string())?;
            w.flush().map_err(|e| e.to_string())?;
            Ok(format!("wrote {out}: {n} slices"))
        }
        "loupe" => {
            let meta = FileMeta {
                written_by: format!("loupe-cli {}", env!("CARGO_PKG_VERSION")),
                sources: sources
                    .iter()
                    .map(|(n, s)| SourceFile { name: n.clone(), size_bytes: *s })
                    .collect(),
            };
            let mut w = file(out)?;
            let n = loupe_file::write(&mut w, t, "", &meta).map_err(|e| e.to_string())?;
            w.flush().map_err(|e| e.to_string())?;
            Ok(format!("wrote {out}: {n} bytes"))
        }
        x => Err(format!("unknown --to {x} (parquet, json, csv, loupe)")),
    }
}

/// `loupe diff A B --json`: the comparison as one JSON object; instruction rows and kernel pairs
/// are cut to `top` each (the counts say how many there were).
pub fn diff_json(a: &str, b: &str, c: &Comparison, top: usize) -> Result<String, String> {
    let mut v = serde_json::to_value(c).map_err(|e| e.to_string())?;
    v["a"] = a.into();
    v["b"] = b.into();
    if let Some(n) =
        v.get_mut("neuron").and_then(|n| n.get_mut("instructions")).and_then(|i| i.as_array_mut())
    {
        n.truncate(top);
    }
    if let Some(its) =
        v.get_mut("iterations").and_then(|i| i.get_mut("iterations")).and_then(|i| i.as_array_mut())
    {
        for it in its {
            if let Some(p) = it.get_mut("pairs").and_then(|p| p.as_array_mut()) {
                p.sort_by_key(|k| std::cmp::Reverse(k["delta_ns"].as_i64().unwrap_or(0).unsigned_abs()));
                p.truncate(top);
            }
        }
    }
    Ok(v.to_string())
}

/// The comparison as text: the table (top rows), then the Neuron and iteration alignments.
pub fn diff_text(w: &mut dyn Write, a: &str, b: &str, c: &Comparison, top: usize) -> std::io::Result<()> {
    use crate::safe::text;
    let ms = |ns: i64| ns as f64 / 1e6;
    writeln!(w, "A = {}\nB = {}", text(a), text(b))?;
    writeln!(
        w,
        "by {:?}: total {:.3} ms → {:.3} ms ({:+.3} ms)",
        c.level,
        ms(c.total_a_ns),
        ms(c.total_b_ns),
        ms(c.total_b_ns - c.total_a_ns)
    )?;
    writeln!(
        w,
        "  {:>12} {:>12} {:>12} {:>8} {:>8} {:>7}  key",
        "A ms", "B ms", "delta ms", "n A", "n B", "ratio"
    )?;
    for r in c.rows.iter().take(top) {
        let ratio = r.ratio.map_or("-".to_string(), |x| format!("{x:.3}"));
        writeln!(
            w,
            "  {:>12.3} {:>12.3} {:>+12.3} {:>8} {:>8} {:>7}  {} [{}]",
            ms(r.time_a_ns),
            ms(r.time_b_ns),
            ms(r.delta_ns),
            r.count_a,
            r.count_b,
            ratio,
            text(&r.key),
            r.side
        )?;
    }
    if c.rows.len() > top {
        writeln!(w, "  … {} more rows (--top N)", c.rows.len() - top)?;
    }
    if let Some(n) = &c.neuron {
        writeln!(w, "Neuron: {}", text(&n.why))?;
        for e in &n.engines {
            writeln!(
                w,
                "  engine {:<8} {:>12} ns → {:>12} ns ({:+} ns)",
                e.engine.name(),
                e.time_a_ns,
                e.time_b_ns,
                e.delta_ns
            )?;
        }
        for r in n.instructions.iter().take(top) {
            writeln!(
                w,
                "  {:<8} pc {:>6} {:<16} {:>4}× {:>10} ns → {:>4}× {:>10} ns ({:+} ns)",
                r.engine.name(),
                r.pc,
                text(&r.opcode),
                r.count_a,
                r.time_a_ns,
                r.count_b,
                r.time_b_ns,
                r.delta_ns
            )?;
        }
    }
    if let Some(it) = &c.iterations {
        writeln!(w, "iterations paired by {}:", it.paired_by)?;
        for p in &it.iterations {
            writeln!(
                w,
                "  {:?} ↔ {:?}: {} ns → {} ns ({:+} ns); kernels {} → {}, {} paired, edit distance {} ({:?})",
                p.number_a,
                p.number_b,
                p.dur_a_ns,
                p.dur_b_ns,
                p.delta_ns,
                p.kernels_a,
                p.kernels_b,
                p.pairs.len(),
                p.edit_distance,
                p.method
            )?;
        }
    }
    Ok(())
}

pub fn compare(a: &Trace, b: &Trace) -> Comparison {
    compare::compare(a, b)
}
