//! Oracle test: SBUF / PSUM occupancy from the NTFF's instruction words
//! (`loupe_core::neuron::ntff::memory`) against the official export's `instruction_usage` rows,
//! on every shared capture/export pair (`support/neuron_pairs.rs`; no pair is a failure).
//!
//! - With the static DMA block's SBUF destination taken from the export's aggregated `dma` row
//!   (`dest_offset`, `write_size` / `dest_num_sb_partitions`: NEFF information the NTFF lacks),
//!   timed by the NTFF's own packets, every row of every pair is reproduced: the same set of
//!   (type, timestamp) rows, SBUF fractions equal to the export's f32 (relative 1e-6), PSUM
//!   banks and `usage_avg` exactly.
//! - The NTFF alone (what the importer adds as counters) differs only by that block: its rows
//!   are the oracle rows less the block's life.
//! - The NTFF dropped with its own export takes the destination from the export: its counters
//!   are the oracle rows.

use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::neuron::ntff::memory::{MemorySeries, OnChip, PSUM_BANKS, SBUF_PARTITION_BYTES};
use loupe_core::neuron::ntff::{self, Ntff};
use serde_json::Value;
use std::collections::BTreeMap;

#[path = "support/neuron_pairs.rs"]
mod neuron_pairs;
use neuron_pairs::sample_pairs;

fn rows<'a>(j: &'a Value, table: &str) -> &'a [Value] {
    j.get(table).and_then(|v| v.as_array()).map(|v| v.as_slice()).unwrap_or(&[])
}
fn num(r: &Value, k: &str) -> Option<f64> {
    r.get(k)?.as_f64()
}

/// The export's rows: `(type, timestamp) → (usage_avg, partition/bank values by index)`.
type Rows = BTreeMap<(String, i64), (f64, BTreeMap<u32, f64>)>;

fn export_rows(j: &Value) -> Rows {
    let mut out = Rows::new();
    for r in rows(j, "instruction_usage") {
        let ty = r["type"].as_str().unwrap().to_string();
        let ts = r["timestamp"].as_i64().unwrap();
        let mut parts = BTreeMap::new();
        for (k, v) in r.as_object().unwrap() {
            let n = k
                .strip_prefix("partition_")
                .or_else(|| k.strip_prefix("bank_"))
                .and_then(|x| x.strip_suffix("_usage"))
                .and_then(|x| x.parse().ok());
            if let Some(n) = n {
                parts.insert(n, v.as_f64().unwrap());
            }
        }
        assert!(out.insert((ty, ts), (num(r, "usage_avg").unwrap(), parts)).is_none(), "duplicate row");
    }
    out
}

fn series_rows(s: &MemorySeries) -> Rows {
    let mut out = Rows::new();
    for &(t, bytes) in &s.sbuf {
        let v = bytes as f64 / SBUF_PARTITION_BYTES as f64;
        out.insert(("sb".into(), t), (v, [0, 32, 64, 96].iter().map(|&p| (p, v)).collect()));
    }
    for &(t, mask) in &s.psum {
        let banks = (0..=s.psum_max_bank.unwrap_or(0)).map(|k| (k, f64::from(mask >> k & 1))).collect();
        out.insert(("psum".into(), t), (f64::from(mask.count_ones()) / f64::from(PSUM_BANKS), banks));
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1e-9)
}

fn same(got: &Rows, want: &Rows) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} rows, the export has {}", got.len(), want.len()));
    }
    for (k, (avg, parts)) in want {
        let Some((g_avg, g_parts)) = got.get(k) else { return Err(format!("no row {k:?}")) };
        if !close(*avg, *g_avg) || parts.len() != g_parts.len() {
            return Err(format!("{k:?}: {g_avg} {g_parts:?}, the export {avg} {parts:?}"));
        }
        for (n, v) in parts {
            if !g_parts.get(n).is_some_and(|g| close(*g, *v)) {
                return Err(format!("{k:?} part {n}: {:?}, the export {v}", g_parts.get(n)));
            }
        }
    }
    Ok(())
}

/// The export's static DMA blocks into SBUF: `(dest offset, bytes per partition)`.
fn static_blocks(j: &Value) -> Vec<(u64, u64)> {
    rows(j, "dma")
        .iter()
        .filter(|r| r["aggregated"] == "yes" && r["dest"] == serde_json::json!(["SB"]))
        .filter_map(|r| {
            let off = r.get("dest_offset")?.as_str()?.trim_matches(|c| c == '[' || c == ']');
            let off = u64::from_str_radix(off.trim_start_matches("0x"), 16).ok()?;
            let parts = r.get("dest_num_sb_partitions")?.as_u64()?.max(1);
            Some((off, r["write_size"].as_u64()? / parts))
        })
        .collect()
}

#[test]
fn occupancy_equals_the_export_on_every_pair() {
    let pairs = sample_pairs();
    let (mut exact, mut rows_total, mut alone_exact, mut imported, mut with_export) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for (ntff_path, json_path) in &pairs {
        let bytes = std::fs::read(ntff_path).unwrap();
        let j: Value = serde_json::from_slice(&std::fs::read(json_path).unwrap()).unwrap();
        let want = export_rows(&j);
        assert!(!want.is_empty(), "{}: no instruction_usage rows", json_path.display());
        rows_total += want.len();
        let t: Ntff = ntff::parse(&bytes).unwrap();
        let timeline = t.instruction_memory().expect("every word of the corpus is in the known layout");

        // the NTFF alone
        let alone = timeline.clone().finish().unwrap();
        // + the static block(s), destination from the export, times from the NTFF's packets
        let blocks = t.static_dma_blocks();
        let dests = static_blocks(&j);
        assert_eq!(blocks.len(), dests.len(), "{}: static blocks", ntff_path.display());
        let mut with = timeline;
        for ((_, s_ps, e_ps, _), (off, per)) in blocks.iter().zip(&dests) {
            with.write(s_ps.div_euclid(1000), e_ps.div_euclid(1000), OnChip::Sbuf, *off, off + per);
        }
        let with = with.finish().unwrap();
        match same(&series_rows(&with), &want) {
            Ok(()) => exact += 1,
            Err(e) => failures.push(format!("{}: {e}", ntff_path.display())),
        }
        // without the block: as step functions, the difference is the block's bytes over one
        // run of times starting at the block's start, and zero everywhere else
        let at = |s: &[(i64, u64)], t: i64| s.iter().take_while(|x| x.0 <= t).last().map_or(0, |x| x.1);
        let mut times: Vec<i64> = alone.sbuf.iter().chain(&with.sbuf).map(|x| x.0).collect();
        times.sort_unstable();
        times.dedup();
        let block = dests.first().map_or(0, |d| d.1);
        let diffs: Vec<u64> = times.iter().map(|&t| at(&with.sbuf, t) - at(&alone.sbuf, t)).collect();
        let on: Vec<usize> = (0..diffs.len()).filter(|&i| diffs[i] != 0).collect();
        let one_run = on.windows(2).all(|w| w[1] == w[0] + 1)
            && on.first().is_some_and(|&i| times[i] == blocks[0].1.div_euclid(1000));
        if alone.psum == with.psum && diffs.iter().all(|&d| d == 0 || d == block) && one_run {
            alone_exact += 1;
        } else {
            failures.push(format!("{}: the NTFF alone differs beyond the static block", ntff_path.display()));
        }

        // the importer's counters are the NTFF-alone series, in %
        let name = ntff_path.file_name().unwrap().to_string_lossy().to_string();
        let trace = import_files(&[InputFile { name: &name, bytes: &bytes }], &mut NoProgress).unwrap();
        let counter = |n: &str| {
            let c = trace.counters.iter().find(|c| trace.str(c.name) == n).unwrap_or_else(|| panic!("{n}"));
            c.ts_ns.iter().copied().zip(c.value.iter().copied()).collect::<Vec<(i64, f64)>>()
        };
        let sb = counter("SBUF usage");
        let want_sb: Vec<(i64, f64)> =
            alone.sbuf.iter().map(|&(t, b)| (t, b as f64 / SBUF_PARTITION_BYTES as f64 * 100.0)).collect();
        let ps = counter("PSUM usage");
        let want_ps: Vec<(i64, f64)> = alone
            .psum
            .iter()
            .map(|&(t, m)| (t, f64::from(m.count_ones()) / f64::from(PSUM_BANKS) * 100.0))
            .collect();
        let eq = |a: &[(i64, f64)], b: &[(i64, f64)]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && close(x.1, y.1))
        };
        if eq(&sb, &want_sb) && eq(&ps, &want_ps) && counter("SBUF partition 96 usage").len() == sb.len() {
            imported += 1;
        } else {
            failures.push(format!("{}: imported counters differ from the series", ntff_path.display()));
        }
        // dropped with its own export, the NTFF takes the static block's destination from it:
        // the counters are the export's rows
        let jname = json_path.file_name().unwrap().to_string_lossy().to_string();
        let jbytes = std::fs::read(json_path).unwrap();
        let both = import_files(
            &[InputFile { name: &name, bytes: &bytes }, InputFile { name: &jname, bytes: &jbytes }],
            &mut NoProgress,
        )
        .unwrap();
        let sb2: Vec<(i64, f64)> = {
            let c = both.counters.iter().find(|c| both.str(c.name) == "SBUF usage").expect("SBUF usage");
            c.ts_ns.iter().copied().zip(c.value.iter().copied()).collect()
        };
        let want_sb2: Vec<(i64, f64)> =
            with.sbuf.iter().map(|&(t, b)| (t, b as f64 / SBUF_PARTITION_BYTES as f64 * 100.0)).collect();
        let flagged = both.metadata.entries.iter().any(|(k, _)| k == "neuron.memory_static_dma");
        if eq(&sb2, &want_sb2) && flagged {
            with_export += 1;
        } else {
            failures
                .push(format!("{}: with its export, the counters are not the export's", ntff_path.display()));
        }
    }
    println!(
        "instruction_usage: {exact}/{} pairs exact ({rows_total} rows); NTFF alone = export less the static \
         block on {alone_exact}; imported counters on {imported}, with the export on {with_export}",
        pairs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        (exact, alone_exact, imported, with_export),
        (pairs.len(), pairs.len(), pairs.len(), pairs.len())
    );
    assert!(pairs.len() >= 93 && rows_total >= 1243, "{} pairs, {rows_total} rows", pairs.len());
}
