//! Oracle test: decode every NTFF sample and compare with the official
//! `neuron-profile view --output-format json` export of the same file, row by row.
//!
//! Samples live outside the repository (unlicensed): `../shared/samples/neuron/ntff-v5/*.ntff`
//! and `../shared/samples/neuron/profile_128x128x1024.ntff`, relative to the workspace root.
//! The test fails when they are absent. Run with `--nocapture` to see rates.

use std::collections::HashMap;
use std::hash::Hash;

use loupe_core::neuron::ntff::{self, Ntff};
use serde_json::Value;

#[path = "support/neuron_pairs.rs"]
mod neuron_pairs;
use neuron_pairs::{sample_pairs, samples_root};

/// Multiset intersection size.
fn matched<K: Eq + Hash>(a: Vec<K>, b: Vec<K>) -> (usize, usize, usize) {
    let (na, nb) = (a.len(), b.len());
    let mut m: HashMap<K, i64> = HashMap::new();
    for k in a {
        *m.entry(k).or_default() += 1;
    }
    let mut hit = 0;
    for k in b {
        if let Some(c) = m.get_mut(&k) {
            if *c > 0 {
                *c -= 1;
                hit += 1;
            }
        }
    }
    (hit, na, nb)
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Number(n) => n.as_i64().unwrap_or_else(|| n.as_f64().unwrap_or(f64::NAN) as i64),
        Value::String(s) => s.trim().parse().unwrap_or(i64::MIN),
        _ => i64::MIN,
    }
}

fn rows<'a>(j: &'a Value, table: &str) -> &'a [Value] {
    j.get(table).and_then(|v| v.as_array()).map(|v| v.as_slice()).unwrap_or(&[])
}

/// `"12"` → 12, `"S[12] (qSyncSpillReload0)"` → 12.
fn sem_id(v: &Value) -> i64 {
    let s = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("S[") {
        return rest.split(']').next().and_then(|n| n.parse().ok()).unwrap_or(-1);
    }
    s.parse().unwrap_or(-1)
}

#[derive(Default, Clone, Copy)]
struct Tally {
    hit: usize,
    json: usize,
    ours: usize,
}

impl Tally {
    fn add(&mut self, (h, j, o): (usize, usize, usize)) {
        self.hit += h;
        self.json += j;
        self.ours += o;
    }
    fn perfect(&self) -> bool {
        self.hit == self.json && self.hit == self.ours
    }
    fn show(&self) -> String {
        let pct = if self.json.max(self.ours) == 0 {
            100.0
        } else {
            100.0 * self.hit as f64 / self.json.max(self.ours) as f64
        };
        format!("{}/{} ({pct:.2}%, ours {})", self.hit, self.json, self.ours)
    }
}

const TABLES: [&str; 9] = [
    "instruction",
    "dma",
    "semaphore",
    "ham",
    "active_time",
    "pending_dma",
    "scalars",
    "nc_mem_usage",
    "dma_label",
];
/// Tables asserted at 100 % (the last one, DMA queue labels/types, is a GUESS: reported only).
const ASSERTED: usize = 8;

fn compare(n: &Ntff, j: &Value) -> [(usize, usize, usize); 9] {
    // instruction: engine subgroup, label, pc, compiler_pc, timestamp, duration, opcode, wait, crcs.
    let ours_i: Vec<_> = n
        .instructions
        .iter()
        .map(|i| {
            (
                i.subgroup().to_string(),
                i.label().to_string(),
                i.pc as i64,
                i.compiler_pc.map_or(-1, |c| c as i64),
                i.start_ns(),
                i.dur_ns(),
                i.opcode().to_string(),
                i.evt_wait_time_ns as i64,
                i.crc_in as i64,
                i.crc_out as i64,
            )
        })
        .collect();
    let json_i: Vec<_> = rows(j, "instruction")
        .iter()
        .map(|r| {
            (
                r["subgroup"].as_str().unwrap_or("").to_string(),
                r["label"].as_str().unwrap_or("").to_string(),
                int(&r["pc"]),
                r.get("compiler_pc").map_or(-1, int),
                int(&r["timestamp"]),
                int(&r["duration"]),
                r["opcode"].as_str().unwrap_or("").to_string(),
                int(&r["evt_wait_time"]),
                int(&r["crc_in"]),
                int(&r["crc_out"]),
            )
        })
        .collect();
    let instr = matched(json_i, ours_i);

    // DMA packet rows (aggregated rows need the NEFF).
    let ours_d: Vec<_> = n
        .dma_packets
        .iter()
        .map(|p| {
            (
                p.dma_engine as i64,
                p.queue as i64,
                p.start_ns,
                p.dur_ns,
                p.size_bytes as i64,
                p.crc as i64,
                p.packet_idx as i64,
            )
        })
        .collect();
    let json_d: Vec<_> = rows(j, "dma")
        .iter()
        .filter(|r| r["aggregated"].as_str() != Some("yes"))
        .map(|r| {
            (
                int(&r["dma_engine"]),
                int(&r["dma_queue"]),
                int(&r["timestamp"]),
                int(&r["duration"]),
                int(&r["transfer_size"]),
                int(&r["crc"]),
                int(&r["packet_idx"]),
            )
        })
        .collect();
    let dma = matched(json_d, ours_d);

    let ours_s: Vec<_> =
        n.semaphore_updates.iter().map(|s| (s.ts_ns, s.semaphore as i64, s.value as i64)).collect();
    let json_s: Vec<_> = rows(j, "semaphore_update")
        .iter()
        .map(|r| (int(&r["timestamp"]), sem_id(&r["id"]), int(&r["value"])))
        .collect();
    let sem = matched(json_s, ours_s);

    let ours_h: Vec<_> = n
        .throttles
        .iter()
        .map(|t| (t.start_ns, t.dur_ns, t.throttle_type as i64, t.k as i64, t.n as i64))
        .collect();
    let json_h: Vec<_> = rows(j, "ham")
        .iter()
        .map(|r| (int(&r["timestamp"]), int(&r["duration"]), int(&r["type"]), int(&r["k"]), int(&r["n"])))
        .collect();
    let ham = matched(json_h, ours_h);

    let ours_a: Vec<_> =
        n.active_time.iter().map(|a| (a.engine_name().to_string(), a.start_ns, a.end_ns, a.dur_ns)).collect();
    let json_a: Vec<_> = rows(j, "active_time")
        .iter()
        .map(|r| {
            (
                r["engine"].as_str().unwrap_or("").to_string(),
                int(&r["start_ts"]),
                int(&r["end_ts"]),
                int(&r["duration_ns"]),
            )
        })
        .collect();
    let act = matched(json_a, ours_a);

    // pending_dma: static triggers identified through the JSON's compiler_opcode (NEFF info).
    let triggers: Vec<(String, i64, i64)> = rows(j, "instruction")
        .iter()
        .filter(|r| r["compiler_opcode"].as_str() == Some("PSEUDO_DMA_TRIGGER"))
        .map(|r| (r["subgroup"].as_str().unwrap_or("").to_string(), int(&r["pc"]), int(&r["timestamp"])))
        .collect();
    let ends: Vec<i64> = n.queue_end_ns(1).into_iter().collect();
    let pd = n.pending_dma(
        |i| triggers.iter().any(|(s, pc, ts)| s == i.subgroup() && *pc == i.pc as i64 && *ts == i.start_ns()),
        &ends,
    );
    let ours_p: Vec<_> = pd.iter().map(|p| (p.ts_ns, p.value)).collect();
    let json_p: Vec<_> =
        rows(j, "pending_dma").iter().map(|r| (int(&r["timestamp"]), int(&r["value"]))).collect();
    let pending = matched(json_p, ours_p);

    // Scalars: metadata / model_info / summary / profile_info / neff_header values.
    let md = &rows(j, "metadata")[0];
    let mi = &rows(j, "model_info")[0];
    let su = &rows(j, "summary")[0];
    let pi = &rows(j, "profile_info")[0];
    let nh = &rows(j, "neff_header")[0];
    let aggregated = rows(j, "dma").iter().filter(|r| r["aggregated"].as_str() == Some("yes")).count() as u64;
    let m = &n.metadata;
    let c = &n.profile.instruction_counts;
    let uuid = nh["uuid"].as_str().unwrap_or("");
    let checks: Vec<(&str, bool)> = vec![
        ("ntff_version", int(&md["ntff_version"]) == n.header.version as i64),
        ("last_hw_timestamp", int(&md["last_hw_timestamp"]) == n.profile.last_hw_timestamp_ns),
        ("event_count", int(&mi["event_count"]) == n.profile.event_count as i64),
        ("summary.event_count", int(&su["event_count"]) == n.profile.event_count as i64),
        ("trace_count", int(&mi["trace_count"]) as u64 == n.profile.trace_count + aggregated),
        ("dma_queue_count", int(&mi["dma_queue_count"]) == m.dma_queues.len() as i64),
        ("tensor_count", int(&mi["tensor_engine_instruction_count"]) == c.tensor as i64),
        ("scalar_count", int(&mi["scalar_engine_instruction_count"]) == c.scalar as i64),
        ("gpsimd_count", int(&mi["gpsimd_engine_instruction_count"]) == c.gpsimd as i64),
        ("vector_count", int(&mi["vector_engine_instruction_count"]) == c.vector as i64),
        ("sync_count", int(&mi["sync_engine_instruction_count"]) == c.sync as i64),
        ("sg_name", mi["sg_name"].as_str() == Some(m.subgraph_name.as_str())),
        (
            "runtime_version",
            su["runtime_version"].as_str() == m.runtime_version.as_ref().map(|v| v.text.as_str()),
        ),
        (
            "driver_version",
            su["driver_version"].as_str() == m.driver_version.as_ref().map(|v| v.text.as_str()),
        ),
        (
            "collectives_version",
            su["collectives_version"].as_str() == m.collectives_version.as_ref().map(|v| v.text.as_str()),
        ),
        ("instance_type", su["instance_type"].as_str() == Some(m.instance_type.as_str())),
        ("total_time", su["total_time"].as_f64() == Some(m.execution_time_ps as f64 / 1e12)),
        ("neff_name", pi["neff_name"].as_str() == Some(m.neff_path.as_str())),
        ("uuid", uuid.starts_with(&m.uuid_hex()) && (m.uuid_truncated || uuid == m.uuid_hex())),
    ];
    let failed: Vec<_> = checks.iter().filter(|(_, ok)| !ok).map(|(k, _)| *k).collect();
    if !failed.is_empty() {
        println!("    scalar mismatches: {failed:?}");
    }
    let scalars = (checks.iter().filter(|(_, ok)| *ok).count(), checks.len(), checks.len());

    let ours_m: Vec<_> =
        m.memory_usage.iter().map(|u| (u.display_name.clone(), u.size_bytes as i64)).collect();
    let json_m: Vec<_> = rows(j, "nc_mem_usage")
        .iter()
        .filter(|r| r["usage_type"].as_str() != Some("Total"))
        .map(|r| (r["usage_type"].as_str().unwrap_or("").to_string(), int(&r["amount_bytes"])))
        .collect();
    let mem = matched(json_m, ours_m);

    // DMA queue label and type (GUESS rules).
    let ours_l: Vec<_> = n
        .dma_packets
        .iter()
        .map(|p| {
            (
                p.start_ns,
                n.dma_queue_label(p.dma_engine, p.queue),
                n.dma_queue_kind(p.dma_engine, p.queue).to_string(),
            )
        })
        .collect();
    let json_l: Vec<_> = rows(j, "dma")
        .iter()
        .filter(|r| r["aggregated"].as_str() != Some("yes"))
        .map(|r| {
            (
                int(&r["timestamp"]),
                r["subgroup"].as_str().unwrap_or("").to_string(),
                r["queue_type"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let labels = matched(json_l, ours_l);

    [instr, dma, sem, ham, act, pending, scalars, mem, labels]
}

#[test]
fn ntff_matches_official_json_export() {
    let pairs = sample_pairs();
    if pairs.is_empty() {
        println!("SKIP ntff oracle: no samples under {}", samples_root().display());
        return;
    }
    let mut total = [Tally::default(); 9];
    let mut imperfect = Vec::new();
    for (ntff_path, json_path) in &pairs {
        let bytes = std::fs::read(ntff_path).unwrap();
        assert!(ntff::sniff(&bytes), "{}", ntff_path.display());
        let n = ntff::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", ntff_path.display()));
        let j: Value = serde_json::from_slice(&std::fs::read(json_path).unwrap()).unwrap();
        let res = compare(&n, &j);
        let name = ntff_path.file_stem().unwrap().to_string_lossy();
        let mut line = format!("{name}:");
        for (k, r) in res.iter().enumerate() {
            let mut t = Tally::default();
            t.add(*r);
            total[k].add(*r);
            line += &format!(" {}={}/{}", TABLES[k], t.hit, t.json);
            if !t.perfect() {
                imperfect.push(format!("{name} {}: {}", TABLES[k], t.show()));
            }
        }
        let warn: Vec<_> = n.warnings.iter().map(|w| format!("{:?}x{}", w.kind, w.count)).collect();
        if !warn.is_empty() {
            line += &format!(" warnings={warn:?}");
        }
        println!("{line}");
    }
    println!("== {} files", pairs.len());
    for (k, t) in total.iter().enumerate() {
        println!("TOTAL {:<12} {}", TABLES[k], t.show());
    }
    for s in &imperfect {
        println!("IMPERFECT {s}");
    }
    for k in 0..ASSERTED {
        assert!(total[k].perfect(), "{} not 100%: {}", TABLES[k], total[k].show());
    }
}
