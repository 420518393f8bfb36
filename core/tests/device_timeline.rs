//! What a Neuron device timeline shows by itself (issue 40 §2), on the shared captures: the
//! warning bands (`analysis::warning_bands`) against counts taken independently from the
//! official JSON export beside each NTFF.
//!
//! Samples live outside the repository: `../shared/samples/neuron/{,ntff-v5/}*.ntff` with the
//! `neuron-profile view --output-format json` export of the same capture beside it. Skips
//! (with a message) when they are absent.

use std::path::Path;

use loupe_core::analysis::warning_bands::{self, warning_bands, Rule, WarningBand};
use loupe_core::import::{import_files, InputFile, NoProgress};
use serde_json::Value as Json;

#[path = "support/neuron_pairs.rs"]
mod neuron_pairs;
use neuron_pairs::{sample_pairs, samples_root};

fn import_ntff(p: &Path) -> loupe_core::Trace {
    let bytes = std::fs::read(p).unwrap();
    let name = p.file_name().unwrap().to_string_lossy().to_string();
    import_files(&[InputFile { name: &name, bytes: &bytes }], &mut NoProgress).expect("import")
}

fn rows<'a>(j: &'a Json, key: &str) -> &'a [Json] {
    j[key].as_array().map_or(&[], |v| v.as_slice())
}

fn events(bands: &[WarningBand], r: Rule) -> usize {
    bands.iter().filter(|b| b.rule == r).map(|b| b.events.len()).sum()
}

/// Small DMA, throttling and long-wait bands hold exactly the export's rows that meet each
/// rule (counted from the JSON, not from the model), on every shared capture.
#[test]
fn band_events_equal_the_export_rows_that_meet_each_rule() {
    let pairs = sample_pairs();
    if pairs.is_empty() {
        panic!(
            "no NTFF/JSON pairs under {} (the shared samples beside the repository are required)",
            samples_root().display()
        );
    }
    let mut fired = [0usize; 4];
    for (ntff, json) in &pairs {
        let t = import_ntff(ntff);
        let j: Json = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        let bands = warning_bands(&t);
        let small = rows(&j, "dma")
            .iter()
            .filter(|r| matches!(r["queue_type"].as_str(), Some("software_dynamic" | "hardware_dynamic")))
            .filter(|r| {
                let b = r["transfer_size"].as_u64().unwrap();
                b > warning_bands::SMALL_DMA_MIN_BYTES && b < warning_bands::SMALL_DMA_BYTES
            })
            .count();
        let throttled =
            rows(&j, "ham").iter().filter(|r| r["k"].as_u64().unwrap() < r["n"].as_u64().unwrap()).count();
        let waits = rows(&j, "instruction")
            .iter()
            .filter(|r| r["opcode"] == "EVENT_SEMAPHORE")
            .filter(|r| r["duration"].as_i64().unwrap() >= warning_bands::LONG_WAIT_NS)
            .count();
        let name = ntff.display();
        assert_eq!(events(&bands, Rule::SmallDma), small, "{name}: small DMA");
        assert_eq!(events(&bands, Rule::Throttling), throttled, "{name}: throttling");
        assert_eq!(events(&bands, Rule::LongSemaphoreWait), waits, "{name}: long waits");
        for (k, r) in Rule::ALL.iter().enumerate() {
            fired[k] += usize::from(bands.iter().any(|b| b.rule == *r));
        }
        assert!(bands.iter().all(|b| b.start_ns <= b.end_ns && !b.events.is_empty()));
        assert!(bands.iter().all(|b| b.text.contains("Rule:")));
    }
    eprintln!("{} captures; rules fired on (small DMA, throttling, long wait, idle): {fired:?}", pairs.len());
}

/// The idle-engine rule on the main capture, against a per-nanosecond bitmap of each engine's
/// non-wait instructions built from the export (a different method from the model's unions).
#[test]
fn idle_engine_bands_match_a_bitmap_of_the_export() {
    let p = samples_root().join("profile_128x128x1024.ntff");
    if !p.exists() {
        panic!("{} absent (the shared samples beside the repository are required)", p.display());
    }
    let t = import_ntff(&p);
    let j: Json = serde_json::from_slice(&std::fs::read(p.with_extension("json")).unwrap()).unwrap();
    let ins: Vec<(String, i64, i64)> = rows(&j, "instruction")
        .iter()
        .filter(|r| r["opcode"] != "EVENT_SEMAPHORE")
        .map(|r| {
            let label = r["label"].as_str().unwrap().replace("TensorMatrix", "Tensor");
            let s = r["timestamp"].as_i64().unwrap();
            (label, s, s + r["duration"].as_i64().unwrap())
        })
        .collect();
    let all: Vec<(i64, i64)> = rows(&j, "instruction")
        .iter()
        .map(|r| {
            let s = r["timestamp"].as_i64().unwrap();
            (s, s + r["duration"].as_i64().unwrap())
        })
        .collect();
    let lo = all.iter().map(|x| x.0).min().unwrap();
    let hi = all.iter().map(|x| x.1).max().unwrap();
    let n = (hi - lo) as usize;
    let mut engines: Vec<String> = ins.iter().map(|x| x.0.clone()).collect();
    engines.sort();
    engines.dedup();
    let maps: Vec<Vec<bool>> = engines
        .iter()
        .map(|e| {
            let mut m = vec![false; n];
            for (_, s, en) in ins.iter().filter(|x| &x.0 == e) {
                for v in &mut m[(s - lo) as usize..(en - lo) as usize] {
                    *v = true;
                }
            }
            m
        })
        .collect();
    let min_gap = ((hi - lo) as f64 * warning_bands::IDLE_MIN_FRACTION) as usize;
    let mut expected = 0;
    for (k, m) in maps.iter().enumerate() {
        let mut i = 0;
        while i < n {
            if m[i] {
                i += 1;
                continue;
            }
            let a = i;
            while i < n && !m[i] {
                i += 1;
            }
            if i - a >= min_gap {
                let busy = (a..i).filter(|&x| maps.iter().enumerate().any(|(o, mo)| o != k && mo[x])).count();
                if busy as f64 / (i - a) as f64 >= warning_bands::IDLE_OTHERS_BUSY_FRACTION {
                    expected += 1;
                }
            }
        }
    }
    let bands = warning_bands(&t);
    let idle: Vec<&WarningBand> = bands.iter().filter(|b| b.rule == Rule::IdleEngine).collect();
    let gaps: usize = idle.iter().map(|b| b.text.matches(" idle ").count()).sum();
    eprintln!("idle gaps: expected {expected}, bands {idle:#?}");
    assert_eq!(gaps, expected);
    // the capture: a long stretch where every engine waits (nothing busy) is not an idle band,
    // two long semaphore waits (Vector, Sync, ~1.86 ms), throttling 7/8, 16 small DGE packets
    let long: Vec<&WarningBand> = bands.iter().filter(|b| b.rule == Rule::LongSemaphoreWait).collect();
    assert_eq!(long.iter().map(|b| b.events.len()).sum::<usize>(), 2);
    assert!(long[0].text.contains("Vector") && long[0].text.contains("Sync"), "{}", long[0].text);
    assert_eq!(events(&bands, Rule::SmallDma), 16);
    assert!(bands.iter().any(|b| b.rule == Rule::Throttling && b.text.contains("7/8")));
}

/// Integral of a step counter (value × time to the next sample), value × ns.
fn integral(c: &loupe_core::model::CounterTrack) -> f64 {
    c.ts_ns.windows(2).zip(&c.value).map(|(w, v)| (w[1] - w[0]) as f64 * v).sum()
}

/// The HFU counter's time integral is the device summary's `hfu_estimated_percent` × total
/// time (the summary's HFU equals the export's on every capture, `device_summary_oracle`), and
/// the PE-array counter's integral is the union of the export's TensorMatrix rows.
#[test]
fn hfu_counter_integrates_to_the_summary_hfu() {
    use loupe_core::analysis::device_summary::{device_summary, Value};
    use loupe_core::model::builder::{HFU_COUNTER, PE_BUSY_COUNTER};
    let pairs = sample_pairs();
    if pairs.is_empty() {
        panic!(
            "no NTFF/JSON pairs under {} (the shared samples beside the repository are required)",
            samples_root().display()
        );
    }
    let mut worst = 0.0f64;
    for (ntff, json) in &pairs {
        let t = import_ntff(ntff);
        let name = ntff.display();
        let s = device_summary(&t).expect("device summary");
        let num = |k: &str| match s.get(k) {
            Some(Value::Number(x)) => x,
            other => panic!("{name}: {k} = {other:?}"),
        };
        let (hfu, total) = (num("hfu_estimated_percent"), num("total_time"));
        let c = t.counters.iter().find(|c| t.str(c.name) == HFU_COUNTER).expect("HFU counter");
        assert_eq!(t.str(c.unit), "%");
        let got = integral(c) / 100.0 * 1e-9; // fraction × s
        let want = hfu * total;
        let rel = (got - want).abs() / want;
        worst = worst.max(rel);
        assert!(rel < 1e-9, "{name}: ∫HFU = {got}, hfu × total_time = {want}");
        // PE array busy: ∫ = union of the export's TensorMatrix rows (whole ns, the model's
        // floored ns; equal to within a ns per row)
        let j: Json = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        let mut mm: Vec<(i64, i64)> = rows(&j, "instruction")
            .iter()
            .filter(|r| r["label"] == "TensorMatrix")
            .map(|r| {
                let s = r["timestamp"].as_i64().unwrap();
                (s, s + r["duration"].as_i64().unwrap())
            })
            .collect();
        mm.sort();
        let (mut union, mut end) = (0i64, i64::MIN);
        for (s, e) in mm.iter().copied() {
            if e > end {
                union += e - s.max(end);
                end = e;
            }
        }
        let pe = t.counters.iter().find(|c| t.str(c.name) == PE_BUSY_COUNTER).expect("PE counter");
        let busy = integral(pe) / 100.0;
        assert!(
            (busy - union as f64).abs() <= mm.len() as f64 + 1e-6,
            "{name}: ∫PE busy {busy} ns, union {union} ns"
        );
    }
    eprintln!("{} captures: ∫HFU vs hfu × total_time, worst relative difference {worst:e}", pairs.len());
}
