//! Write a synthetic Kineto-like Chrome trace (the benchmarks' generator) to a file.
//! `cargo run --release -p loupe-core --example gen_chrome -- 50MB out.json [seed]`
//! Size: bytes, or with a suffix KB/MB/GB (10^3/10^6/10^9) or KiB/MiB/GiB.

use loupe_core::import::chrome::synth;

fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().ok()?;
    let mul = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "kib" => 1024.0,
        "mib" => 1048576.0,
        "gib" => 1073741824.0,
        _ => return None,
    };
    Some((num * mul) as usize)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(size), Some(path)) = (args.get(1).and_then(|s| parse_size(s)), args.get(2)) else {
        eprintln!("usage: gen_chrome <size, e.g. 50MB> <out.json> [seed]");
        std::process::exit(2);
    };
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(42);
    let bytes = synth::chrome_trace_json(size, seed);
    std::fs::write(path, &bytes).unwrap_or_else(|e| {
        eprintln!("gen_chrome: cannot write {path}: {e}");
        std::process::exit(1);
    });
    println!("wrote {path}: {} bytes", bytes.len());
}
