//! `loupe analyze FILE... [--json] [--definitions loupe|hta] [--exact] [--keep-last-step]`: the
//! GPU breakdowns (Loupe's definitions by default, HTA's and TraceLens' with `--definitions hta`,
//! `loupe_core::analysis::gpu`) and the latency summary
//! (`loupe_core::analysis::latency`) of one profile. Several FILEs are one profile (one rank
//! per file).

use crate::safe::text;
use loupe_core::analysis::gpu::{gpu_analysis, Definitions, GpuAnalysis, GpuOptions};
use loupe_core::analysis::latency::{latency_summary, LatencySummary, OpLatency};
use loupe_core::analysis::operator_views;
use loupe_core::time::format_duration_ns as format_duration;
use loupe_core::Trace;
use std::io::Write;

pub struct Options {
    pub exact: bool,
    pub keep_last_step: bool,
    pub definitions: Definitions,
}

impl Options {
    /// The analysis options: HTA's preprocessing knobs apply to HTA's definitions only.
    pub(crate) fn gpu(&self) -> GpuOptions {
        match self.definitions {
            Definitions::Loupe => GpuOptions::default(),
            Definitions::Hta => GpuOptions {
                hta_rounding: !self.exact,
                drop_last_step: !self.keep_last_step,
                ..GpuOptions::hta()
            },
        }
    }
}

/// The one JSON object of `analyze --json`.
pub fn json(files: &[String], t: &Trace, o: &Options) -> Result<serde_json::Value, String> {
    let opts = o.gpu();
    let mut v = serde_json::json!({
        "files": files,
        "format": t.format,
    });
    match gpu_analysis(t, &opts) {
        Ok(g) => {
            if let serde_json::Value::Object(m) = serde_json::to_value(&g).map_err(|e| e.to_string())? {
                for (k, x) in m {
                    v[k] = x;
                }
            }
        }
        Err(why) => v["gpu_unavailable"] = serde_json::Value::String(why),
    }
    v["latency"] = serde_json::to_value(latency_summary(t)).map_err(|e| e.to_string())?;
    v["operator_views"] = operator_views_json(t)?;
    v["dlprof"] = crate::dlprof::to_json(t, None)?;
    Ok(v)
}

/// TensorBoard-Neuron's operator views per level the profile has (`{"framework": {...}, "hlo": …}`),
/// or `{"unavailable": why}`.
fn operator_views_json(t: &Trace) -> Result<serde_json::Value, String> {
    if !operator_views::applies(t) {
        return Ok(
            serde_json::json!({ "unavailable": "no device instructions with operators (a Neuron device profile with its NEFF, the JSON export or Parquet)" }),
        );
    }
    let mut m = serde_json::Map::new();
    for level in operator_views::levels(t) {
        let view = operator_views::operator_view(t, level);
        m.insert(level.name().to_string(), serde_json::to_value(&view).map_err(|e| e.to_string())?);
    }
    Ok(serde_json::Value::Object(m))
}

fn d(ns: i64) -> String {
    format_duration(ns)
}

/// The readable form.
pub fn write_text(out: &mut dyn Write, files: &[String], t: &Trace, o: &Options) -> std::io::Result<()> {
    let opts = o.gpu();
    let names: Vec<String> = files.iter().map(|f| text(f).into_owned()).collect();
    writeln!(out, "{} ({})", names.join(" + "), text(&t.format))?;
    match gpu_analysis(t, &opts) {
        Ok(g) => gpu_text(out, &g)?,
        Err(why) => writeln!(out, "\nGPU breakdowns: not applicable: {}", text(&why))?,
    }
    latency_text(out, &latency_summary(t))?;
    operator_views_text(out, t)
}

fn operator_views_text(out: &mut dyn Write, t: &Trace) -> std::io::Result<()> {
    if !operator_views::applies(t) {
        return Ok(());
    }
    for level in operator_views::levels(t) {
        let v = operator_views::operator_view(t, level);
        writeln!(
            out,
            "\nOperator view: {} ({} operators, device time {}, {} without one)",
            level.name(),
            v.rows.len(),
            d(v.total_ns),
            d(v.unattributed_ns)
        )?;
        for r in v.rows.iter().take(20) {
            writeln!(
                out,
                "  {:>12} {:>7.2} %  {:>6}×  {}",
                d(r.total_ns),
                r.percent,
                r.occurrences,
                text(&r.name)
            )?;
        }
    }
    Ok(())
}

fn gpu_text(out: &mut dyn Write, g: &GpuAnalysis) -> std::io::Result<()> {
    let (defs, span) = match g.definitions {
        Definitions::Loupe => ("Loupe definitions", "GPU span"),
        Definitions::Hta => ("HTA definitions", "kernel time"),
    };
    writeln!(
        out,
        "\nGPU temporal breakdown ({defs}; {}; {}; activities: {})",
        g.method.time_rounding,
        text(&g.method.last_step),
        g.method.activities
    )?;
    writeln!(
        out,
        "  {:>6} {:>12} {:>12} {:>16} {:>16} {:>16}",
        "rank", span, "busy", "idle in span", "compute", "non-compute"
    )?;
    for r in &g.temporal_breakdown.ranks {
        let x = &r.temporal;
        writeln!(
            out,
            "  {:>6} {:>12} {:>12} {:>9} {:>5.1}% {:>9} {:>5.1}% {:>9} {:>5.1}%",
            r.rank,
            d(x.kernel_ns),
            d(x.busy_ns),
            d(x.idle_ns),
            x.idle_pct,
            d(x.compute_ns),
            x.compute_pct,
            d(x.non_compute_ns),
            x.non_compute_pct
        )?;
    }
    writeln!(out, "\nKernel types (time covered, all ranks)")?;
    for k in &g.kernel_types {
        writeln!(out, "  {:>12} {:>5.1}%  {}", d(k.total_ns), k.percent, k.kind)?;
    }
    writeln!(out, "\nTop kernels")?;
    for tk in g.top_kernels.iter().filter(|k| !k.kernels.is_empty()) {
        writeln!(out, "  rank {} {} ({})", tk.rank, tk.kind.label(), d(tk.total_ns))?;
        for k in &tk.kernels {
            writeln!(
                out,
                "    {:>12} {:>5.1}% {:>8}×  {}",
                d(k.total_ns),
                k.percent,
                k.count,
                text(&k.name)
            )?;
        }
    }
    writeln!(out, "\nIdle time per stream (host wait / kernel wait / other)")?;
    for s in &g.idle_breakdown {
        writeln!(
            out,
            "  rank {} {:<24} idle {:>10}: {:>10} / {:>10} / {:>10}",
            s.rank,
            text(&s.stream),
            d(s.idle_ns),
            d(s.host_wait_ns),
            d(s.kernel_wait_ns),
            d(s.other_ns)
        )?;
    }
    writeln!(out, "\nCommunication–computation overlap")?;
    for o in &g.comm_comp_overlap {
        match o.overlap_pct {
            Some(p) => writeln!(out, "  rank {}: {p:.2}% of {} communication", o.rank, d(o.comm_ns))?,
            None => writeln!(out, "  rank {}: no communication kernels", o.rank)?,
        }
    }
    writeln!(out, "\nKernel launch delay (CPU launch end → kernel start)")?;
    for l in &g.launch_delay {
        writeln!(
            out,
            "  rank {}: {} launches, median {}, p90 {}, p99 {}, max {}; {} over {}",
            l.rank,
            l.count,
            d(l.median_ns),
            d(l.p90_ns),
            d(l.p99_ns),
            d(l.max_ns),
            l.outliers,
            d(l.outlier_threshold_ns)
        )?;
    }
    writeln!(out, "\nTensor cores (union of kernels, by name family)")?;
    for t in &g.tensor_cores {
        let prec: Vec<String> = t.by_precision.iter().map(|(p, ns)| format!("{p} {}", d(*ns))).collect();
        writeln!(
            out,
            "  rank {}: tensor core {}, not {}, unknown {}{}",
            t.rank,
            d(t.tensor_core_ns),
            d(t.not_tensor_core_ns),
            d(t.unknown_ns),
            if prec.is_empty() { String::new() } else { format!(" ({})", prec.join(", ")) }
        )?;
    }
    writeln!(out, "\nExposed time (TraceLens)")?;
    for e in &g.exposed_time {
        writeln!(
            out,
            "  rank {}: busy {}, idle {}, computation {}, exposed comm {} of {}, exposed memcpy {} of {}",
            e.rank,
            d(e.busy_ns),
            d(e.idle_ns),
            d(e.computation_ns),
            d(e.exposed_comm_ns),
            d(e.comm_ns),
            d(e.exposed_memcpy_ns),
            d(e.memcpy_ns)
        )?;
    }
    Ok(())
}

fn latency_rows(out: &mut dyn Write, rows: &[OpLatency], limit: usize) -> std::io::Result<()> {
    writeln!(
        out,
        "  {:>8} {:>11} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  name",
        "count", "total", "%", "min", "mean", "median", "p90", "p99", "p99.9", "max"
    )?;
    for o in rows.iter().take(limit) {
        writeln!(
            out,
            "  {:>8} {:>11} {:>5.1}% {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}",
            o.count,
            d(o.total_ns),
            o.percent,
            d(o.min_ns),
            d(o.mean_ns),
            d(o.median_ns),
            d(o.p90_ns),
            d(o.p99_ns),
            d(o.p999_ns),
            d(o.max_ns),
            text(&o.name)
        )?;
    }
    if rows.len() > limit {
        writeln!(out, "  … {} more (--json lists all)", rows.len() - limit)?;
    }
    Ok(())
}

fn latency_text(out: &mut dyn Write, l: &LatencySummary) -> std::io::Result<()> {
    writeln!(out, "\nLatency by name (percentiles {})", l.percentile_rule)?;
    latency_rows(out, &l.operators, 20)?;
    writeln!(out, "\n  on device tracks")?;
    latency_rows(out, &l.by_device.device, 10)?;
    writeln!(out, "\n  on host tracks")?;
    latency_rows(out, &l.by_device.host, 10)
}
