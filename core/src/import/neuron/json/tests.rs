use super::*;
use crate::import::{detect, import_bytes, NoProgress};
use crate::model::WarningKind;
use crate::model::{Trace, TrackKind};
use std::path::PathBuf;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/neuron");

/// Every JSON export in the samples (unlicensed: read at test time, never committed).
fn sample_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    let top = PathBuf::from(SAMPLES).join("profile_128x128x1024.json");
    if top.exists() {
        v.push(top);
    }
    if let Ok(rd) = std::fs::read_dir(PathBuf::from(SAMPLES).join("ntff-v5")) {
        let mut more: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        more.sort();
        v.extend(more);
    }
    if v.is_empty() {
        println!("SKIP: no Neuron JSON samples under {SAMPLES}");
    }
    v
}

fn cat_count(t: &Trace, cat: &str) -> usize {
    t.tracks.iter().map(|tr| tr.slices.category.iter().filter(|&&c| t.str(c) == cat).count()).sum()
}

fn track_by_name<'a>(t: &'a Trace, name: &str) -> Option<&'a crate::model::Track> {
    t.tracks.iter().find(|tr| t.str(tr.name) == name)
}

#[test]
fn imports_every_sample_export() {
    for path in sample_files() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let j: Value = serde_json::from_slice(&bytes).unwrap();
        let rows = |k: &str| j[k].as_array().map_or(0, Vec::len);
        let instr = rows("instruction");
        let dma = j["dma"].as_array().unwrap();
        let packets = dma.iter().filter(|r| r["aggregated"] == "no").count();
        let transfers = dma.len() - packets;
        let sems = rows("semaphore_update");

        assert!(matches!(detect(&name, &bytes).map(|i| i.name()), Some(NAME)), "{name}: sniff");
        let t = import_bytes(&name, &bytes, &mut NoProgress).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.format, NAME);
        assert_eq!(t.groups.len(), 1, "{name}");
        assert_eq!(t.str(t.groups[0].name), "NeuronCore nd0:nc0");

        // engine tracks, named as the export's timeline labels
        let labels: std::collections::BTreeSet<&str> =
            j["instruction"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
        for l in &labels {
            let tr = track_by_name(&t, l).unwrap_or_else(|| panic!("{name}: no track {l}"));
            assert_eq!(tr.kind, TrackKind::Stream);
        }
        assert!(
            t.tracks.iter().all(|tr| tr.kind != TrackKind::Overlap),
            "{name}: no spill tracks (lanes layout)"
        );

        assert_eq!(cat_count(&t, "instruction"), instr, "{name}: instruction slices");
        assert_eq!(cat_count(&t, "dma_packet"), packets, "{name}: dma packet slices");
        assert_eq!(cat_count(&t, "dma_transfer"), transfers, "{name}: dma transfer slices");
        let dma_tracks = t.tracks.iter().filter(|tr| tr.kind == TrackKind::Dma).count();
        assert!(dma_tracks > 0);

        // one counter per semaphore id, one sample per update
        let mut sem_names: Vec<String> = j["semaphore_update"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| semaphore_display(r["id"].as_str().unwrap()).0)
            .collect();
        sem_names.sort();
        sem_names.dedup();
        let sem_samples: usize = t
            .counters
            .iter()
            .filter(|c| sem_names.binary_search(&t.str(c.name).to_string()).is_ok())
            .map(|c| c.ts_ns.len())
            .sum();
        assert_eq!(sem_samples, sems, "{name}: semaphore samples");
        let sem_counters =
            t.counters.iter().filter(|c| sem_names.binary_search(&t.str(c.name).to_string()).is_ok()).count();
        assert_eq!(sem_counters, sem_names.len());

        // derived counters and throttle
        for c in ["Pending DMA", "DMA throughput", "HBM throughput", "SBUF usage"] {
            assert!(t.counters.iter().any(|x| t.str(x.name) == c), "{name}: counter {c}");
        }
        if rows("ham") > 0 {
            assert_eq!(track_by_name(&t, "Throttle").unwrap().slices.len(), rows("ham"));
        }
        if rows("active_time") > 0 {
            assert!(t.counters.iter().any(|x| t.str(x.name) == "Tensor active"));
        }

        // metadata
        let md = |k: &str| t.metadata.entries.iter().find(|e| e.0 == k).map(|e| e.1.clone());
        for k in [
            "neuron.summary",
            "neuron.layer_summary",
            "neuron.neff_header",
            "neuron.neff_node",
            "neuron.dma_queues_info",
            "neuron.profile_info",
            "neuron.metadata",
        ] {
            let v = md(k).unwrap_or_else(|| panic!("{name}: metadata {k}"));
            assert!(serde_json::from_str::<Value>(&v).is_ok(), "{name}: {k} is compact JSON");
        }
        assert_eq!(md("summary.total_time"), Some(j["summary"][0]["total_time"].to_string()));
        assert_eq!(md("metadata.ntff_version").as_deref(), Some("5"));

        // flows: every predecessor is an instruction in these exports
        let preds: usize = j["instruction"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["predecessors"].as_array().map_or(0, Vec::len))
            .sum();
        let dep_flows = t.flows.iter().filter(|f| t.str(f.category) == "dependency").count();
        assert_eq!(dep_flows, preds, "{name}: dependency flows");
        assert_eq!(t.warnings.count_of(WarningKind::NeuronFlowUnresolved), 0);

        println!(
            "{name}: {instr} instructions, {packets} dma packets, {transfers} transfers, {sems} semaphore updates on {} counters, {} tracks, {} counters, {} flows, warnings {:?}",
            sem_names.len(),
            t.tracks.len(),
            t.counters.len(),
            t.flows.len(),
            t.warnings.entries.iter().map(|w| (&w.kind, w.count)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn exact_values_128x128x1024() {
    let path = PathBuf::from(SAMPLES).join("profile_128x128x1024.json");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("SKIP: {} absent", path.display());
        return;
    };
    let t = import_bytes("profile_128x128x1024.json", &bytes, &mut NoProgress).unwrap();
    // the first instruction: DRAIN on Scalar at 7 ns for 7 ns, pc 41
    let (tid, i) = t
        .tracks
        .iter()
        .enumerate()
        .flat_map(|(k, tr)| {
            (0..tr.slices.len())
                .filter(|&i| t.str(tr.slices.category[i]) == "instruction")
                .map(move |i| (k, i))
        })
        .min_by_key(|&(k, i)| (t.tracks[k].slices.start_ns[i], t.tracks[k].slices.dur_ns.at(i)))
        .unwrap();
    let tr = &t.tracks[tid];
    assert_eq!(t.str(tr.name), "Scalar");
    assert_eq!(tr.slices.start_ns[i], 7);
    assert_eq!(tr.slices.dur_ns.at(i), 7);
    assert_eq!(t.str(tr.slices.name[i]), "DRAIN");
    let args = t.args_display(tr.slices.args[i]);
    // blank operands (" ") are not an argument; pc comes first then
    assert_eq!(args[0], ("pc".to_string(), "41".to_string()));
    assert!(args.contains(&("subgroup".to_string(), "Scalar".to_string())));
    assert!(args.contains(&("id".to_string(), "7074752707989819081".to_string())), "large ids stay exact");
    // the aggregated DMA transfer is triggered by the Sync WRITE at 3284 ns
    let trig: Vec<_> = t.flows.iter().filter(|f| t.str(f.category) == "dma_trigger").collect();
    assert_eq!(trig.len(), 1);
    let from = &t.tracks[trig[0].from.track.idx()];
    assert_eq!(from.slices.start_ns[trig[0].from.index as usize], 3284);
    assert_eq!(t.str(from.name), "Sync");
    let to = &t.tracks[trig[0].to.track.idx()];
    assert_eq!(t.str(to.name), "qSyncSpillReload0 transfers");
    assert_eq!(to.slices.start_ns[trig[0].to.index as usize], 3606);
    assert_eq!(to.slices.dur_ns.at(trig[0].to.index as usize), 391);
    // time bounds of the whole profile
    assert_eq!(t.start_ns, 7);
    assert!(t.end_ns >= 1_863_486);
}

#[test]
fn sniff_sees_any_key_first() {
    let path = PathBuf::from(SAMPLES).join("profile_128x128x1024.json");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("SKIP: {} absent", path.display());
        return;
    };
    let j: Map<String, Value> = serde_json::from_slice(&bytes).unwrap();
    for first in j.keys() {
        let mut s = format!(
            "{{{}:{}",
            serde_json::to_string(first).unwrap(),
            serde_json::to_string(&j[first]).unwrap()
        );
        for (k, v) in &j {
            if k != first {
                s.push_str(&format!(
                    ",{}:{}",
                    serde_json::to_string(k).unwrap(),
                    serde_json::to_string(v).unwrap()
                ));
            }
        }
        s.push('}');
        let prefix = &s.as_bytes()[..s.len().min(crate::import::SNIFF_BYTES)];
        assert_eq!(NeuronJson.sniff("x.json", prefix), Sniff::Yes, "key '{first}' first");
    }
    assert_eq!(NeuronJson.sniff("a.json", br#"{"traceEvents":[{"ph":"X"}]}"#), Sniff::No);
    assert_eq!(NeuronJson.sniff("a.json", br#"[{"ph":"X"}]"#), Sniff::No);
}

#[test]
fn truncations_never_panic() {
    let path = PathBuf::from(SAMPLES).join("profile_128x128x1024.json");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("SKIP: {} absent", path.display());
        return;
    };
    let mut cuts: Vec<usize> = (0..64).collect();
    cuts.extend((64..bytes.len()).step_by(1009));
    let end = bytes.iter().rposition(|c| !c.is_ascii_whitespace()).unwrap();
    cuts.push(end);
    for cut in cuts.into_iter().filter(|&c| c <= end) {
        let r = NeuronJson.import(
            &InputFile { name: "t.json", bytes: &bytes[..cut] },
            &mut TraceBuilder::new(NAME),
            &mut NoProgress,
        );
        assert!(
            matches!(r, Err(ImportError::Malformed { .. }) | Err(ImportError::NotMine(_))),
            "cut {cut}: {r:?}"
        );
        let _ = import_bytes("t.json", &bytes[..cut], &mut NoProgress);
    }
}

#[test]
fn hostile_records_are_counted_not_fatal() {
    let json = br#"{"instruction":[{"timestamp":"12","duration":3,"label":"Tensor","opcode":"MATMUL","predecessors":[{"id":99}]},
        {"duration":1,"label":"Vector"}, {"timestamp":5.5,"duration":-2,"label":"weird","opcode":"X"}, 7, null],
        "dma":[{"timestamp":1,"duration":1,"aggregated":"yes","trigger":77}],
        "semaphore_update":[{"id":3,"timestamp":1,"value":"2"},{"id":"S[1] (Sync)","value":1}],
        "ham":[{"timestamp":0,"duration":10,"k":1,"n":0}],
        "instruction_usage":[{"type":"zz","timestamp":1}],
        "summary":[{"nc_idx":2,"total_time":0.5}]}"#;
    assert_eq!(NeuronJson.sniff("x", json), Sniff::Yes);
    let t = import_bytes("x.json", json, &mut NoProgress).unwrap();
    assert_eq!(t.str(t.groups[0].name), "NeuronCore nc2");
    assert_eq!(cat_count(&t, "instruction"), 2);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronMissingTimestamp), 2);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronFractionalTime), 1);
    assert_eq!(t.warnings.count_of(WarningKind::NegativeDuration), 1);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronFlowUnresolved), 1);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronDmaTriggerUnresolved), 1);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronUnknownUsageType), 1);
    assert!(t.counters.iter().any(|c| t.str(c.name) == "Sem 3" && c.value == vec![2.0]));
    assert!(track_by_name(&t, "weird").is_some());
    // not an export: refused quickly
    let r = NeuronJson.import(
        &InputFile { name: "x", bytes: br#"{"a":1}"# },
        &mut TraceBuilder::new(NAME),
        &mut NoProgress,
    );
    assert!(matches!(r, Err(ImportError::NotMine(_))));
}
