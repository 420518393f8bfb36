//! Streaming vs whole-buffer Chrome JSON import on a file: MB/s, resident bytes per event and
//! per slice (`Trace::heap_bytes`), and the process's peak RSS (VmHWM, Linux). One mode per
//! process, so that the peak is the mode's own:
//! `cargo run --release -p loupe-core --example bench_stream -- <file.json> whole|stream|lazy [chunk MiB]`
//! (make the file with `--example gen_chrome -- 200MB /tmp/k.json`).

use loupe_core::import::chrome::StreamOptions;
use loupe_core::import::{import_bytes, import_chrome_stream, NoProgress};
use std::time::Instant;

fn vm_hwm_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// CPU seconds (user + system) of this process so far (/proc/self/stat, 100 ticks/s).
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(mode)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: bench_stream <file.json> whole|stream|lazy [chunk MiB]");
        std::process::exit(2);
    };
    let chunk_mib: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(16);
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let base_kb = vm_hwm_kb();
    let t = Instant::now();
    let c0 = cpu_s();
    let trace = match mode.as_str() {
        "whole" => {
            let bytes = std::fs::read(path).expect("read");
            import_bytes(path, &bytes, &mut NoProgress)
        }
        "stream" | "lazy" => {
            let mut f = std::fs::File::open(path).expect("open");
            let opts = StreamOptions {
                chunk_bytes: chunk_mib << 20,
                lazy_args: (mode == "lazy").then_some(0),
                max_peak_bytes: None,
            };
            import_chrome_stream(path, size, &mut f, opts, &mut NoProgress)
        }
        _ => {
            eprintln!("mode must be whole, stream or lazy");
            std::process::exit(2);
        }
    }
    .expect("import");
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_s() - c0;
    let slices = trace.slice_count() as f64;
    let events = slices
        + trace.instant_count() as f64
        + trace.counter_sample_count() as f64
        + trace.flows.len() as f64;
    let heap = trace.heap_bytes() as f64;
    let args = trace.args.heap_bytes() as f64;
    let peak_kb = vm_hwm_kb();
    println!(
        "{mode}: {:.1} MB in {secs:.2} s wall = {:.0} MB/s wall, {cpu:.2} CPU s = {:.0} MB/s per CPU s; {} slices; heap {:.1} MB = {:.1} B/slice ({:.1} of it args), \
         {:.1} B per model event (slices+instants+counter samples+flows); peak RSS {:.0} MB (+{:.0} MB over start) = {:.0} B/slice",
        size as f64 / 1e6,
        size as f64 / 1e6 / secs,
        size as f64 / 1e6 / cpu.max(1e-9),
        slices,
        heap / 1e6,
        heap / slices,
        args / slices,
        heap / events,
        peak_kb as f64 / 1e3,
        (peak_kb - base_kb) as f64 / 1e3,
        (peak_kb - base_kb) as f64 * 1e3 / slices,
    );
}
