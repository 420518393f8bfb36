//! Insights ([`loupe_core::analysis::neuron_insights`]) on every shared NTFF capture: which rules
//! fire, each decided again here from the official export's own `summary` (read with serde_json,
//! not through Loupe), with the rule's threshold constant. Samples: `../shared/samples/neuron`
//! (`ntff-v5/*.ntff` + `.json`); none there is a failure.

use loupe_core::analysis::device_summary::device_summary;
use loupe_core::analysis::neuron_insights::{self as ni, neuron_insights, Outcome};
use loupe_core::import::{import_files, InputFile, NoProgress};
use serde_json::Value as Json;

#[path = "support/neuron_pairs.rs"]
mod neuron_pairs;
use neuron_pairs::sample_pairs as pairs;

#[test]
fn insights_on_shared_captures_match_the_export() {
    let pairs = pairs();
    if pairs.is_empty() {
        panic!("no NTFF + JSON pairs under ../shared/samples/neuron (the shared samples beside the repository are required)");
    }
    let mut fired_counts = std::collections::BTreeMap::<&str, usize>::new();
    for (ntff, json) in &pairs {
        let bytes = std::fs::read(ntff).unwrap();
        let name = ntff.file_name().unwrap().to_string_lossy().to_string();
        let trace =
            import_files(&[InputFile { name: &name, bytes: &bytes }], &mut NoProgress).expect("import");
        let ds = device_summary(&trace).expect("device summary");
        let v = neuron_insights(&trace, &ds);

        let export: Json = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        let s = match &export["summary"] {
            Json::Array(a) => a[0].clone(),
            o => o.clone(),
        };
        let f = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{name}: export has no {k}"));
        // hardware DGE never occurs in the corpus: the DGE mean below is software DGE's
        assert_eq!(f("hardware_dynamic_dma_packet_percent"), 0.0, "{name}");
        let engines = ["tensor", "vector", "scalar", "gpsimd", "sync"];
        let busiest = engines.iter().map(|e| f(&format!("{e}_engine_active_time"))).fold(0.0, f64::max);
        let expect = [
            ("throttling", Some(f("throttle_active_nc0_time_ns") > ni::THROTTLE_MIN_NS)),
            ("low_active", Some(f("total_active_time_percent") < ni::ACTIVE_MIN)),
            ("dma_bound", Some(f("dma_active_time") / busiest >= ni::DMA_BOUND_RATIO)),
            (
                "small_dge_packets",
                Some(
                    f("software_dynamic_dma_size") / f("software_dynamic_dma_packet_count")
                        < ni::SMALL_DMA_BYTES,
                ),
            ),
            ("spill_reload", Some(f("spill_reload_bytes") / f("hbm_read_bytes") > ni::SPILL_RELOAD_MAX)),
            // not evaluated from an NTFF alone (the export has them from the NEFF / its debug info)
            ("low_model_flops", None),
            ("transpose_flops", None),
            ("low_nki_share", None),
            ("collective_outliers", None),
        ];
        for (id, want) in expect {
            let got = &v.iter().find(|i| i.rule.id == id).unwrap().outcome;
            match (want, got) {
                (Some(true), Outcome::Fired { event_count, .. }) => {
                    *fired_counts.entry(id).or_default() += 1;
                    if matches!(id, "throttling" | "small_dge_packets") {
                        assert!(*event_count > 0, "{name}: {id} fired without events");
                    }
                }
                (Some(false), Outcome::Passed { .. }) | (None, Outcome::NotEvaluated { .. }) => {}
                _ => panic!("{name}: {id}: expected {want:?}, got {got:?}"),
            }
        }
        // the values themselves equal the export's (within 0.5 %)
        for i in &v {
            let (Outcome::Fired { value, .. } | Outcome::Passed { value }) = &i.outcome else { continue };
            let want = match i.rule.id {
                "throttling" => f("throttle_active_nc0_time_ns"),
                "low_active" => f("total_active_time_percent"),
                "dma_bound" => f("dma_active_time") / busiest,
                "small_dge_packets" => {
                    f("software_dynamic_dma_size") / f("software_dynamic_dma_packet_count")
                }
                "spill_reload" => f("spill_reload_bytes") / f("hbm_read_bytes"),
                _ => continue,
            };
            assert!(
                (value - want).abs() <= want.abs() * 5e-3 + 1e-12,
                "{name}: {}: {value} vs {want}",
                i.rule.id
            );
        }
    }
    eprintln!("{} captures; fired: {fired_counts:?}", pairs.len());
}
