//! `loupe`: the headless CLI over loupe-core.
//!
//! ```text
//! loupe summary FILE... [--json]     (a FILE may be a folder: its files form one profile)
//! loupe events FILE... [--csv] [--kind slice]
//! ```

use loupe_core::import::{import_bytes, import_files, InputFile, NoProgress};
use loupe_core::query;
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage:
  loupe summary FILE... [--json]          headline numbers of each profile (one JSON object per input with --json)
  loupe events FILE... [--csv] [--kind K] every event as CSV; K = slice (default)
  loupe formats                           list supported formats";

struct Args {
    command: String,
    files: Vec<String>,
    json: bool,
    kind: String,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or_else(|| USAGE.to_string())?;
    let mut a = Args { command, files: Vec::new(), json: false, kind: "slice".into() };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = true,
            "--csv" => {}
            "--kind" => a.kind = it.next().ok_or("--kind needs a value")?,
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{USAGE}")),
            _ => a.files.push(arg),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("{m}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("loupe: {m}");
            ExitCode::FAILURE
        }
    }
}

fn load(path: &str) -> Result<loupe_core::Trace, String> {
    if std::path::Path::new(path).is_dir() {
        // a folder (e.g. a Neuron Explorer Parquet profile: one file per table) is one profile
        let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(path).map_err(|e| format!("{path}: {e}"))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
        names.sort();
        let data: Vec<(String, Vec<u8>)> = names.iter().map(|p| Ok((p.to_string_lossy().into_owned(), std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?))).collect::<Result<_, String>>()?;
        let files: Vec<InputFile> = data.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
        return import_files(&files, &mut NoProgress).map_err(|e| format!("{path}: {e}"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    import_bytes(path, &bytes, &mut NoProgress).map_err(|e| format!("{path}: {e}"))
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
                let t = load(f)?;
                let s = query::summary(&t);
                if a.json {
                    let mut v = serde_json::to_value(&s).map_err(|e| e.to_string())?;
                    v["file"] = serde_json::Value::String(f.clone());
                    writeln!(out, "{v}").map_err(io)?;
                } else {
                    writeln!(out, "{f}: {} — {} tracks, {} slices, {} instants, {} counter samples, {} flows, {} .. {} ns, {} warnings", s.format, s.tracks, s.slices, s.instants, s.counter_samples, s.flows, s.start_ns, s.end_ns, s.warnings).map_err(io)?;
                    for w in &t.warnings.entries {
                        writeln!(out, "  warning {} ×{}: {}", w.kind, w.count, w.example).map_err(io)?;
                    }
                    for n in &s.top {
                        writeln!(out, "  {:>12} ns  {:>8}×  {}", n.total_ns, n.count, n.name).map_err(io)?;
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
                        let t = load(f)?;
                        let mut labels: Vec<Option<String>> = vec![None; t.tracks.len()];
                        for r in query::slices_in_display_order(&t) {
                            let label = labels[r.track.idx()].get_or_insert_with(|| csv_field(&t.track_label(r.track))).clone();
                            let c = &t.track(r.track).slices;
                            let i = r.index as usize;
                            writeln!(out, "{label},{},{},{}", csv_field(t.str(c.name[i])), c.start_ns[i], c.dur_ns[i]).map_err(io)?;
                        }
                    }
                }
                k => return Err(format!("unknown --kind {k}")),
            }
        }
        "formats" => {
            for imp in loupe_core::import::importers() {
                writeln!(out, "{}", imp.name()).map_err(io)?;
            }
        }
        c => return Err(format!("unknown command {c}\n{USAGE}")),
    }
    out.flush().map_err(io)
}

/// RFC 4180 quoting: quote when the field holds a comma, quote, CR or LF; double the quotes.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
