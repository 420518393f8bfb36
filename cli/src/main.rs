//! `loupe`: the headless CLI over loupe-core.
//!
//! ```text
//! loupe summary FILE... [--json]     (a FILE may be a folder: its files form one profile)
//! loupe events FILE... [--csv] [--kind slice]
//! loupe analyze FILE... [--json] [--definitions loupe|hta] [--exact] [--keep-last-step]
//! loupe dashboard FILE... [--json] [--iterations A:B]
//! loupe convert FILE... --to parquet|json|csv|loupe OUT
//! loupe diff A B [--json] [--top N]
//! loupe critical-path FILE [--rank R] [--annotation NAME] [--instance K] [--json]
//! loupe ranks FILE... [--json] [--align recorded|iteration:K|collective:N] [--definitions loupe|hta]
//! ```
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use loupe_core::analysis::device_summary::{device_summary, Value};
use loupe_core::import::{InputFile, NoProgress};
// every format, the SQLite ones (loupe-sqlite) included
use loupe_core::query;
use loupe_sqlite::import_files;
use std::io::Write;

mod analyze;
mod convert;
mod critical_path;
mod dlprof;
mod neuron_rows;
mod ranks;
mod safe;
use safe::{csv_field, text};
use std::process::ExitCode;

const USAGE: &str = "usage:
  loupe summary FILE... [--json] [--neff F]   headline numbers of each profile (one JSON object per input with --json);
        Neuron device profiles add `device_summary` (neuron-profile's summary keys and units)
        and `insights` (rule, threshold, outcome: fired / passed / not_evaluated with the reason),
        and, when the input has collective operations (Explorer's Parquet CcOp), `collectives`
        (per device group and operation: count, total, min, quartiles, median, max in ns);
        --window T0:T1 (ns, the model's times) adds `device_summary_window`: the keys defined over
        that part of the timeline, percentages over its length
  loupe events FILE... [--csv] [--kind K] [--neff F]
        every event as CSV; K = slice (default: track,name,start_ns,dur_ns),
        instruction (engine,pc,start_ns,dur_ns,opcode), dma (dma_engine,queue,start_ns,dur_ns,size),
        semaphore (id,start_ns,value) for Neuron NTFF, JSON export and Parquet inputs
  loupe analyze FILE... [--json] [--definitions loupe|hta] [--exact] [--keep-last-step]
        GPU breakdowns (temporal, kernel types, top kernels, idle per stream, comm/compute overlap,
        launch delay, utilisation, exposed comm/memcpy, tensor-core time) and the latency summary
        per name (nearest-rank percentiles, split device/host). The FILEs form ONE profile (one
        rank per file). --definitions: loupe (default: typed kernels/memcpys/memsets, extended
        communication families, exact ns) or hta (Holistic Trace Analysis' rules, for parity);
        with hta, --exact: exact ns instead of HTA's whole µs; --keep-last-step: do not drop the
        last ProfilerStep
  loupe dashboard FILE... [--json] [--iterations A:B]  DLProf-style GPU dashboard (utilisation, resource
        usage, top ops, iterations, ops/kernels tables, recommendations) and DLProf report CSV tables;
        --json prints one object per input: file, and dlprof with gpu (the dashboard) and tables
  loupe correlation FILE.ntff --neff FILE.neff  correlation report (trace events -> NEFF -> operator -> source)
  loupe convert FILE... --to parquet|json|csv|loupe OUT   export one profile: parquet = a folder OUT with one
        table per event kind (schema: docs/export.md); json = Chrome/Perfetto trace JSON; csv = every
        slice; loupe = a .loupe file (the built model; opens with any command and in the app). OUT - = stdout
  loupe diff A B [--json] [--top N]           compare two profiles: per operator (device profiles) or name,
        count and time in A and B, delta, ratio, by impact; Neuron instructions by engine+pc when both
        ran the same program; Kineto iterations then kernels by edit distance (N rows shown, default 30)
  loupe critical-path FILE [--rank R] [--annotation NAME] [--instance K] [--json]
        HTA 0.5.0's critical path of one rank (default: the first) over the K-th (from 0) slice whose
        name contains NAME (default: the whole rank): path length, nodes, edges, percent of the path
        by what bounds it (cpu_bound, gpu_compute_bound, gpu_communication_bound,
        gpu_kernel_launch_overhead, gpu_kernel_kernel_overhead) and the longest edges
  loupe regions FILE... --method framework|layer|hlo|iterations|collectives [--json]
        Neuron Explorer's regions: the profile cut into regions by one method, each
        region's name, start, end, duration, and the durations by name (count, total, min,
        median, max); a method the files cannot support says why
  loupe ranks FILE... [--json] [--align recorded|iteration:K|collective:N] [--definitions loupe|hta]
        one job, one rank per FILE (rank = distributedInfo.rank, else the rank_N / rank-N every
        file name states, else for NTFFs the nc_N / vnc_N they state, else the file's position):
        per rank iterations, GPU span (kernel_ns), idle, compute, non-compute and exposed
        communication (communication kernels not overlapped by compute); an NTFF per NeuronCore is
        a Neuron rank: one iteration (its execution), its device span, engines' busy time, DMA-only
        time, NeuronCore and NEFF UUID (ranks of different NEFFs are a warning); collective kernels
        (Neuron: collective operations) matched across ranks
        (process group, name, occurrence index): start skew, duration min/median/max, last rank,
        bytes and algorithmic bandwidth when the args give them; stragglers (times last, mean
        lateness). --align: the clocks as recorded (default), by the start of ProfilerStep#K (the
        K-th NEFF execution on a Neuron rank), or by
        the end of the N-th complete collective (from 0); the offsets are printed. --definitions,
        --exact, --keep-last-step as for analyze (the breakdown only; collectives use exact ns)
  loupe formats                               list supported formats
A FILE may be a folder (e.g. Neuron Explorer Parquet output): its files are imported as one profile.
--neff F adds a NEFF to each input (correlation of an NTFF with its program).";

struct Args {
    command: String,
    files: Vec<String>,
    json: bool,
    kind: String,
    neff: Option<String>,
    exact: bool,
    keep_last_step: bool,
    definitions: loupe_core::analysis::gpu::Definitions,
    iterations: Option<(i64, i64)>,
    /// `summary --window T0:T1`: the device summary over that time window (model ns).
    window: Option<(i64, i64)>,
    to: Option<String>,
    top: usize,
    rank: Option<i64>,
    annotation: Option<String>,
    instance: usize,
    method: Option<String>,
    align: loupe_core::analysis::ranks::Align,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or_else(|| USAGE.to_string())?;
    let mut a = Args {
        command,
        files: Vec::new(),
        json: false,
        kind: "slice".into(),
        neff: None,
        exact: false,
        keep_last_step: false,
        definitions: Default::default(),
        iterations: None,
        window: None,
        to: None,
        top: 30,
        rank: None,
        annotation: None,
        instance: 0,
        method: None,
        align: Default::default(),
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = true,
            "--csv" => {}
            "--exact" => a.exact = true,
            "--keep-last-step" => a.keep_last_step = true,
            "--definitions" => {
                let v = it.next().ok_or("--definitions needs loupe or hta")?;
                a.definitions = loupe_core::analysis::gpu::Definitions::from_name(&v)
                    .ok_or_else(|| format!("--definitions: {v}: expected loupe or hta"))?;
            }
            "--kind" => a.kind = it.next().ok_or("--kind needs a value")?,
            "--to" => a.to = Some(it.next().ok_or("--to needs parquet, json, csv or loupe")?),
            "--top" => a.top = it.next().and_then(|n| n.parse().ok()).ok_or("--top needs a number")?,
            "--rank" => a.rank = Some(it.next().and_then(|n| n.parse().ok()).ok_or("--rank needs a number")?),
            "--annotation" => a.annotation = Some(it.next().ok_or("--annotation needs a name")?),
            "--instance" => {
                a.instance = it.next().and_then(|n| n.parse().ok()).ok_or("--instance needs a number")?
            }
            "--method" => a.method = Some(it.next().ok_or("--method needs a region method")?),
            "--align" => {
                let v = it.next().ok_or("--align needs recorded, iteration:K or collective:N")?;
                a.align = loupe_core::analysis::ranks::Align::parse(&v)
                    .ok_or_else(|| format!("--align: {v}: expected recorded, iteration:K or collective:N"))?;
            }
            "--neff" => a.neff = Some(it.next().ok_or("--neff needs a path")?),
            "--window" => {
                let v = it.next().ok_or("--window needs T0:T1 (ns)")?;
                let (x, y) =
                    v.split_once(':').ok_or_else(|| format!("--window: {v}: expected T0:T1 (ns)"))?;
                let n = |s: &str| {
                    s.trim().parse::<i64>().map_err(|_| format!("--window: {v}: expected T0:T1 (ns)"))
                };
                a.window = Some((n(x)?, n(y)?));
            }
            "--iterations" => {
                a.iterations = Some(dlprof::parse_range(&it.next().ok_or("--iterations needs A:B")?)?)
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{USAGE}")),
            _ => a.files.push(arg),
        }
    }
    Ok(a)
}

/// An error on stderr: the message may name a hostile file or option, so it is escaped; the
/// usage that ends some messages is ours and printed as it is.
fn print_error(m: &str) {
    match m.strip_suffix(USAGE) {
        Some("") => eprint!("{USAGE}"),
        Some(head) => eprintln!("loupe: {}\n{USAGE}", text(head.trim_end_matches('\n'))),
        None => eprintln!("loupe: {}", text(m)),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            print_error(&m);
            return ExitCode::from(2);
        }
    };
    // a panic the core catches (e.g. inside the Parquet decoder) is a typed error already: its
    // text is kept from the user; one that is not caught ends with a one-line message
    let last_panic = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let keep = last_panic.clone();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut m) = keep.lock() {
            *m = info.to_string();
        }
    }));
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(m)) => {
            print_error(&m);
            ExitCode::FAILURE
        }
        Err(_) => {
            let m = last_panic.lock().map(|m| m.clone()).unwrap_or_default();
            let m = m.lines().next().unwrap_or("").to_string();
            eprintln!("loupe: internal error (please report it): {}", text(&m));
            ExitCode::from(101)
        }
    }
}

/// Read a path: a file, or a folder whose files form one profile.
fn read_input(path: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    if std::path::Path::new(path).is_dir() {
        // a folder (e.g. a Neuron Explorer Parquet profile: one file per table) is one profile:
        // its profile files as the page takes them from a folder, the rest named as skipped
        let (mut names, skipped): (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) =
            std::fs::read_dir(path)
                .map_err(|e| format!("{path}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .partition(|p| {
                    let ext =
                        p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
                    loupe_core::import::FOLDER_PROFILE_EXTENSIONS.contains(&ext.as_str())
                });
        names.sort();
        if !skipped.is_empty() {
            let mut s: Vec<String> = skipped
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            s.sort();
            eprintln!(
                "loupe: {path}: skipped {} other file{} in the folder (from a folder only {} files are read): {}",
                s.len(),
                if s.len() == 1 { "" } else { "s" },
                loupe_core::import::FOLDER_PROFILE_EXTENSIONS.join(", ."),
                s.join(", ")
            );
        }
        if names.is_empty() {
            return Err(format!(
                "{path}: no profile file in this folder (from a folder Loupe reads .{} files)",
                loupe_core::import::FOLDER_PROFILE_EXTENSIONS.join(", .")
            ));
        }
        return names
            .iter()
            .map(|p| {
                Ok((
                    p.to_string_lossy().into_owned(),
                    std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?,
                ))
            })
            .collect();
    }
    Ok(vec![(path.to_string(), std::fs::read(path).map_err(|e| format!("{path}: {e}"))?)])
}

fn load(path: &str, neff: Option<&str>) -> Result<loupe_core::Trace, String> {
    let mut data = read_input(path)?;
    if let Some(n) = neff {
        data.extend(read_input(n)?);
    }
    let files: Vec<InputFile> = data.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&files, &mut NoProgress).map_err(|e| format!("{path}: {e}"))
}

/// Several paths as one profile (e.g. one Kineto file per rank).
fn load_all(paths: &[String], neff: Option<&str>) -> Result<loupe_core::Trace, String> {
    let mut data = Vec::new();
    for p in paths {
        data.extend(read_input(p)?);
    }
    if let Some(n) = neff {
        data.extend(read_input(n)?);
    }
    let files: Vec<InputFile> = data.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&files, &mut NoProgress).map_err(|e| format!("{}: {e}", paths.join(", ")))
}

fn run(a: &Args) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| e.to_string();
    match a.command.as_str() {
        "summary" => {
            if a.files.is_empty() {
                return Err(format!("summary needs at least one FILE\n{USAGE}"));
            }
            for f in &a.files {
                let t = load(f, a.neff.as_deref())?;
                let s = query::summary(&t);
                // a capture cut short: the runtime's totals describe events that are not there
                let withheld = loupe_core::analysis::evidence::device_summary_withheld(&t);
                let ds = if withheld.is_some() { None } else { device_summary(&t) };
                if a.json {
                    let mut v = serde_json::to_value(&s).map_err(|e| e.to_string())?;
                    v["file"] = serde_json::Value::String(f.clone());
                    if let Some(ds) = &ds {
                        v["device_summary"] = serde_json::to_value(ds).map_err(|e| e.to_string())?;
                        let insights = loupe_core::analysis::neuron_insights::neuron_insights(&t, ds);
                        v["insights"] = serde_json::to_value(&insights).map_err(|e| e.to_string())?;
                        let cc = loupe_core::analysis::device_collectives::collective_durations(&t);
                        if !cc.is_empty() {
                            v["collectives"] = serde_json::to_value(&cc).map_err(|e| e.to_string())?;
                        }
                        if let Some((t0, t1)) = a.window {
                            let w = loupe_core::analysis::device_summary::device_summary_over(&t, t0, t1);
                            v["device_summary_window"] = serde_json::json!({
                                "t0_ns": t0, "t1_ns": t1,
                                "summary": serde_json::to_value(&w).map_err(|e| e.to_string())?,
                            });
                        }
                    }
                    if let Some(why) = &withheld {
                        v["device_summary_withheld"] = serde_json::Value::String(why.clone());
                    }
                    writeln!(out, "{v}").map_err(io)?;
                } else {
                    writeln!(out, "{}: {} — {} tracks, {} slices, {} instants, {} counter samples, {} flows, {} .. {} ns, {} warnings", text(f), text(&s.format), s.tracks, s.slices, s.instants, s.counter_samples, s.flows, s.start_ns, s.end_ns, s.warnings).map_err(io)?;
                    for w in &t.warnings.entries {
                        writeln!(out, "  warning {} ×{}: {}", w.kind.code(), w.count, text(&w.example))
                            .map_err(io)?;
                    }
                    for n in &s.top {
                        writeln!(out, "  {:>12} ns  {:>8}×  {}", n.total_ns, n.count, text(&n.name))
                            .map_err(io)?;
                    }
                    if let Some(ds) = &ds {
                        writeln!(out, "  device summary (neuron-profile keys):").map_err(io)?;
                        for m in ds.rows() {
                            let v = match &m.value {
                                Value::Count(n) => n.to_string(),
                                Value::Number(x) => format!("{x:.9e}"),
                                Value::Text(t) => text(t).into_owned(),
                            };
                            let (g, k) = (text(m.group), text(m.key));
                            writeln!(out, "    {g:<22} {k:<45} {v} {}", text(m.unit.label())).map_err(io)?;
                        }
                    }
                    if let Some(why) = &withheld {
                        writeln!(out, "  {}", text(why)).map_err(io)?;
                    }
                }
            }
        }
        "events" => {
            if a.files.is_empty() {
                return Err(format!("events needs at least one FILE\n{USAGE}"));
            }
            match a.kind.as_str() {
                "slice" | "slices" => {
                    writeln!(out, "track,name,start_ns,dur_ns").map_err(io)?;
                    for f in &a.files {
                        let t = load(f, a.neff.as_deref())?;
                        let mut labels: Vec<Option<String>> = vec![None; t.tracks.len()];
                        for r in query::slices_in_display_order(&t) {
                            let label = labels[r.track.idx()]
                                .get_or_insert_with(|| csv_field(&t.track_label(r.track)))
                                .clone();
                            let c = &t.track(r.track).slices;
                            let i = r.index as usize;
                            writeln!(
                                out,
                                "{label},{},{},{}",
                                csv_field(t.str(c.name[i])),
                                c.start_ns[i],
                                c.dur_ns.at(i)
                            )
                            .map_err(io)?;
                        }
                    }
                }
                "instruction" | "instructions" => {
                    writeln!(out, "engine,pc,start_ns,dur_ns,opcode").map_err(io)?;
                    for f in &a.files {
                        for r in neuron_rows::instructions(&load(f, a.neff.as_deref())?) {
                            writeln!(
                                out,
                                "{},{},{},{},{}",
                                csv_field(&r.engine),
                                csv_field(&r.pc),
                                r.start_ns,
                                r.dur_ns,
                                csv_field(&r.opcode)
                            )
                            .map_err(io)?;
                        }
                    }
                }
                "dma" => {
                    writeln!(out, "dma_engine,queue,start_ns,dur_ns,size").map_err(io)?;
                    for f in &a.files {
                        for r in neuron_rows::dma(&load(f, a.neff.as_deref())?) {
                            writeln!(
                                out,
                                "{},{},{},{},{}",
                                csv_field(&r.engine),
                                csv_field(&r.queue),
                                r.start_ns,
                                r.dur_ns,
                                csv_field(&r.size)
                            )
                            .map_err(io)?;
                        }
                    }
                }
                "semaphore" | "semaphores" => {
                    writeln!(out, "id,start_ns,value").map_err(io)?;
                    for f in &a.files {
                        for r in neuron_rows::semaphores(&load(f, a.neff.as_deref())?) {
                            writeln!(out, "{},{},{}", r.id, r.ts_ns, csv_field(&r.value)).map_err(io)?;
                        }
                    }
                }
                k => return Err(format!("unknown --kind {k}")),
            }
        }
        "correlation" => {
            for f in &a.files {
                let t = load(f, a.neff.as_deref())?;
                let Some(r) = &t.correlation else {
                    return Err(format!("{f}: no correlation ran (give an NTFF, and --neff for operators)"));
                };
                if a.json {
                    writeln!(out, "{}", serde_json::to_string(r).map_err(|e| e.to_string())?).map_err(io)?;
                } else {
                    writeln!(out, "{}: {} instruction events", text(f), r.events).map_err(io)?;
                    for (l, n) in &r.levels {
                        writeln!(
                            out,
                            "  reached {:<12} {n:>10} ({:.1} %)",
                            text(l),
                            100.0 * *n as f64 / r.events.max(1) as f64
                        )
                        .map_err(io)?;
                    }
                    for (why, n) in &r.unmatched {
                        writeln!(out, "  stopped {n:>10}: {}", text(why)).map_err(io)?;
                    }
                    for note in &r.notes {
                        writeln!(out, "  note: {}", text(note)).map_err(io)?;
                    }
                }
            }
        }
        "analyze" => {
            if a.files.is_empty() {
                return Err(format!("analyze needs at least one FILE\n{USAGE}"));
            }
            let t = load_all(&a.files, a.neff.as_deref())?;
            let o = analyze::Options {
                exact: a.exact,
                keep_last_step: a.keep_last_step,
                definitions: a.definitions,
            };
            if a.json {
                writeln!(out, "{}", analyze::json(&a.files, &t, &o)?).map_err(io)?;
            } else {
                analyze::write_text(&mut out, &a.files, &t, &o).map_err(io)?;
            }
        }
        "dashboard" => {
            if a.files.is_empty() {
                return Err(format!("dashboard needs at least one FILE\n{USAGE}"));
            }
            for f in &a.files {
                let t = load(f, a.neff.as_deref())?;
                if a.json {
                    let v = serde_json::json!({ "file": f, "dlprof": dlprof::to_json(&t, a.iterations)? });
                    writeln!(out, "{v}").map_err(io)?;
                } else {
                    writeln!(out, "{}:", text(f)).map_err(io)?;
                    for l in dlprof::text_report(&t, a.iterations) {
                        writeln!(out, "  {}", text(&l)).map_err(io)?;
                    }
                }
            }
        }
        "convert" => {
            let (Some(to), Some((outp, inputs))) = (&a.to, a.files.split_last()) else {
                return Err(format!("convert needs FILE... --to FORMAT OUT\n{USAGE}"));
            };
            if inputs.is_empty() {
                return Err(format!("convert needs FILE... --to FORMAT OUT\n{USAGE}"));
            }
            let mut sources = Vec::new();
            for p in inputs {
                for (n, b) in read_input(p)? {
                    sources.push((n, b.len() as u64));
                }
            }
            let t = load_all(inputs, a.neff.as_deref())?;
            let report = convert::convert(&t, &sources, to, outp)?;
            if outp != "-" {
                writeln!(out, "{}", text(&report)).map_err(io)?;
            }
        }
        "diff" => {
            let [pa, pb] = a.files.as_slice() else {
                return Err(format!("diff needs two profiles A B\n{USAGE}"));
            };
            let (ta, tb) = (load(pa, a.neff.as_deref())?, load(pb, a.neff.as_deref())?);
            let c = convert::compare(&ta, &tb);
            if a.json {
                writeln!(out, "{}", convert::diff_json(pa, pb, &c, a.top)?).map_err(io)?;
            } else {
                convert::diff_text(&mut out, pa, pb, &c, a.top).map_err(io)?;
            }
        }
        "critical-path" => {
            let [f] = a.files.as_slice() else {
                return Err(format!("critical-path needs one FILE\n{USAGE}"));
            };
            let t = load(f, a.neff.as_deref())?;
            let o = loupe_core::analysis::critical_path::CriticalPathOptions {
                rank: a.rank,
                annotation: a.annotation.clone(),
                instance: a.instance,
            };
            let cp = critical_path::compute(&t, &o).map_err(|e| format!("{f}: {e}"))?;
            if a.json {
                writeln!(out, "{}", critical_path::json(f, &t, &cp)).map_err(io)?;
            } else {
                writeln!(out, "{}:", text(f)).map_err(io)?;
                for l in critical_path::text_report(&t, &cp) {
                    writeln!(out, "  {}", text(&l)).map_err(io)?;
                }
            }
        }
        "regions" => {
            use loupe_core::analysis::regions::{self, RegionMethod};
            let Some(m) = a.method.as_deref() else {
                return Err(format!("regions needs --method\n{USAGE}"));
            };
            let method = RegionMethod::from_key(m).ok_or_else(|| {
                format!("--method {m}: expected framework, layer, hlo, iterations or collectives")
            })?;
            let f = a.files.join(", ");
            let t = load_all(&a.files, a.neff.as_deref())?;
            if let Some(why) = regions::unavailable(&t, method) {
                return Err(format!("{f}: {why}"));
            }
            let rs = regions::regions(&t, method);
            if a.json {
                let v = serde_json::json!({
                    "file": f,
                    "method": method.key(),
                    "regions": rs.iter().map(|r| serde_json::json!({
                        "name": r.name, "start_ns": r.start_ns, "end_ns": r.end_ns, "dur_ns": r.dur_ns(),
                    })).collect::<Vec<_>>(),
                    "durations": regions::durations(&rs),
                });
                writeln!(out, "{v}").map_err(io)?;
            } else {
                writeln!(out, "{}: {} regions by {}", text(&f), rs.len(), method.label().to_lowercase())
                    .map_err(io)?;
                for d in regions::durations(&rs).iter().take(a.top) {
                    writeln!(
                        out,
                        "  {:>6} × {:>12} total  (min {} · median {} · max {})  {}",
                        d.count,
                        loupe_core::time::format_duration_ns(d.total_ns),
                        loupe_core::time::format_duration_ns(d.min_ns),
                        loupe_core::time::format_duration_ns(d.median_ns),
                        loupe_core::time::format_duration_ns(d.max_ns),
                        text(&d.name)
                    )
                    .map_err(io)?;
                }
            }
        }
        "ranks" => {
            if a.files.is_empty() {
                return Err(format!("ranks needs at least one FILE\n{USAGE}"));
            }
            let t = load_all(&a.files, a.neff.as_deref())?;
            let o = analyze::Options {
                exact: a.exact,
                keep_last_step: a.keep_last_step,
                definitions: a.definitions,
            };
            let r = loupe_core::analysis::ranks::ranks_report(&t, &o.gpu(), a.align)?;
            if a.json {
                writeln!(out, "{}", ranks::json(&a.files, &r)).map_err(io)?;
            } else {
                for l in ranks::text_report(&r) {
                    writeln!(out, "{}", text(&l)).map_err(io)?;
                }
            }
        }
        "formats" => {
            for imp in loupe_sqlite::IMPORTERS.iter().copied().chain(loupe_core::import::importers()) {
                writeln!(out, "{}", imp.name()).map_err(io)?;
            }
            writeln!(out, "loupe (a saved .loupe file)").map_err(io)?;
        }
        "help" | "-h" | "--help" => write!(out, "{USAGE}").map_err(io)?,
        c => return Err(format!("unknown command {c}\n{USAGE}")),
    }
    out.flush().map_err(io)
}
