//! Time the Neuron device summary over time windows (the Summary widget's scopes) on an NTFF:
//! `cargo run --profile ci -p loupe-core --example window_summary_time -- FILE.ntff`
//! (a large one: `gen_neuron_pair DIR 2000000` writes a 6 M-slice capture). Prints the whole
//! profile's summary time, then per window (all, half, 1 %, 0.01 % of the profile) the one-shot
//! time and, stepped as the page runs it (20 000 slices a step), the number of steps and the
//! longest step. No time is asserted (only that stepping gives the one-shot summary).

use std::time::Instant;

use loupe_core::analysis::device_summary::{device_summary, DeviceSummaryBuilder, TimeBase};
use loupe_core::import::{import_files, InputFile, NoProgress};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: window_summary_time FILE.ntff");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).expect("read");
    let t = import_files(&[InputFile { name: &path, bytes: &bytes }], &mut NoProgress).expect("import");
    println!("{path}: {} slices, {} ns", t.slice_count(), t.end_ns - t.start_ns);
    let s = Instant::now();
    let whole = device_summary(&t).expect("a device profile");
    println!("whole profile: {:.1} ms ({} keys)", s.elapsed().as_secs_f64() * 1e3, whole.rows().len());
    let span = t.end_ns - t.start_ns;
    for (label, frac) in [("all", 1.0), ("half", 0.5), ("1 %", 0.01), ("0.01 %", 0.0001)] {
        let t0 = t.start_ns + ((span as f64) * (0.5 - frac / 2.0)) as i64;
        let t1 = t0 + ((span as f64) * frac).max(1.0) as i64;
        let s = Instant::now();
        let one = DeviceSummaryBuilder::over(&t, t0, t1, TimeBase::Window).finish(&t);
        let one_ms = s.elapsed().as_secs_f64() * 1e3;
        let (mut steps, mut longest) = (0usize, 0f64);
        let s = Instant::now();
        let mut b = DeviceSummaryBuilder::over(&t, t0, t1, TimeBase::Window);
        loop {
            let st = Instant::now();
            let more = b.add_next(&t, 20_000);
            longest = longest.max(st.elapsed().as_secs_f64() * 1e3);
            steps += 1;
            if !more {
                break;
            }
        }
        let st = Instant::now();
        let stepped = b.finish(&t);
        longest = longest.max(st.elapsed().as_secs_f64() * 1e3);
        let all_ms = s.elapsed().as_secs_f64() * 1e3;
        assert_eq!(one, stepped);
        let n = one.and_then(|d| d.get("tensor_engine_instruction_count")).map(|v| v.as_f64()).unwrap_or(0.0);
        println!(
            "window {label:>6}: one shot {one_ms:.1} ms; stepped {all_ms:.1} ms in {steps} steps, longest {longest:.2} ms ({n} Tensor instructions in it)"
        );
    }
}
