//! Import a file through the registry and print a summary (debug aid):
//! `cargo run --example import_dump -- FILE` (`DUMP=1` also lists groups, tracks, metadata).
fn main() {
    let path = std::env::args().nth(1).expect("usage: import_dump FILE");
    let bytes = std::fs::read(&path).expect("read");
    let t0 = std::time::Instant::now();
    match loupe_core::import::import_bytes(&path, &bytes, &mut loupe_core::import::NoProgress) {
        Ok(t) => {
            println!(
                "{}: format={} groups={} tracks={} slices={} instants={} counters={} samples={} flows={} iterations={} warnings={} ({:?})",
                path,
                t.format,
                t.groups.len(),
                t.tracks.len(),
                t.slice_count(),
                t.instant_count(),
                t.counters.len(),
                t.counter_sample_count(),
                t.flows.len(),
                t.iterations.len(),
                t.warnings.total(),
                t0.elapsed()
            );
            for w in &t.warnings.entries {
                println!("  warning {} x{}: {}", w.kind, w.count, w.example);
            }
            if std::env::var("DUMP").is_ok() {
                for g in t.ordered_groups() {
                    let gr = &t.groups[g.idx()];
                    println!(
                        "  group {:?} '{}' sort={} kind={:?}",
                        g,
                        t.str(gr.name),
                        gr.sort_index,
                        gr.kind
                    );
                    for &tr in &gr.tracks {
                        let tk = t.track(tr);
                        println!(
                            "    track '{}' {:?} sort={} slices={} instants={} depth={}",
                            t.str(tk.name),
                            tk.kind,
                            tk.sort_index,
                            tk.slices.len(),
                            tk.instants.len(),
                            tk.slices.depth_count()
                        );
                    }
                    for &c in &gr.counters {
                        let ct = &t.counters[c.idx()];
                        println!("    counter '{}' samples={}", t.str(ct.name), ct.ts_ns.len());
                    }
                }
                for (k, v) in &t.metadata.entries {
                    println!("  meta {k} = {}", &v[..v.len().min(100)]);
                }
            }
        }
        Err(e) => println!("{path}: ERROR {e}"),
    }
}
