//! Golden test over every sample of the Chrome JSON family (shared/samples/chrome-trace-json,
//! pytorch-kineto, furiosa; see docs/formats/other-formats.md §8): each file either loads
//! (one summary line printed) or fails with an error naming the problem, as listed below.
//! The slice count of every file that loads equals an independent count by
//! `support/chrome_count.py` (Python's json over the same bytes, sharing no code with the importer;
//! its module doc says what a slice is). Samples are not committed; the test fails without them.

use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::model::{GroupKind, TrackKind};
use loupe_core::Trace;
use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");
const DIRS: &[&str] = &["chrome-trace-json", "chrome-trace-json/malformed", "pytorch-kineto", "furiosa"];

/// What a file must give.
enum Expect {
    /// Loads; this format; these warning kinds (kind, count or 0 = any); exactly as many slices as
    /// the independent count (`support/chrome_count.py`) finds.
    Loads { format: &'static str, warnings: &'static [(&'static str, u64)] },
    /// Loads without any timeline events (only things we count and skip); must warn this kind.
    LoadsEmpty { warning: &'static str },
    /// Fails; the message contains this.
    Fails(&'static str),
}
use Expect::*;

const CHROME: &str = "chrome-json";
const KINETO: &str = "pytorch-kineto";

fn expectations() -> Vec<(&'static str, Expect)> {
    vec![
        // --- chrome-trace-json
        ("chrome-trace-json/catapult_trivial_trace.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_simple_trace.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_simple_trace_gz.gz", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_simple_trace_zip.zip", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_async_begin_end.json", Loads { format: CHROME, warnings: &[("unclosed_async", 0)] }),
        ("chrome-trace-json/catapult_nestable_async.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_nestable_async_annotation.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_flow_simple.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_flow.json", Loads { format: CHROME, warnings: &[("unclosed_begin", 3)] }),
        ("chrome-trace-json/catapult_instant_events.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_instance_counters.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_nanoseconds.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_main_thread_has_unclosed_slices.json", Loads { format: CHROME, warnings: &[("unclosed_begin", 4)] }),
        ("chrome-trace-json/catapult_picture_trace.json", Loads { format: CHROME, warnings: &[("object_events_ignored", 1)] }),
        ("chrome-trace-json/catapult_quads_with_render_passes.json", LoadsEmpty { warning: "object_events_ignored" }),
        ("chrome-trace-json/catapult_x_event_trace.json", Loads { format: CHROME, warnings: &[("object_events_ignored", 4)] }),
        // `systemTraceEvents` is an empty array here; only M events and one O snapshot remain
        ("chrome-trace-json/catapult_trace-with-bad-world-bounds.json", LoadsEmpty { warning: "object_events_ignored" }),
        ("chrome-trace-json/catapult_traceviewify.json", Loads { format: CHROME, warnings: &[("section_not_imported", 1)] }),
        ("chrome-trace-json/catapult_perf_sampling_trace_with_trace_events.json.gz", Loads { format: CHROME, warnings: &[("section_not_imported", 1)] }),
        ("chrome-trace-json/catapult_lthi_cats.json.gz", Loads { format: CHROME, warnings: &[("object_events_ignored", 660)] }),
        ("chrome-trace-json/catapult_tall_trace.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/catapult_chromeos_system_trace.json", LoadsEmpty { warning: "object_events_ignored" }),
        ("chrome-trace-json/perfetto_difftest_flow_events_json_v1.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/perfetto_difftest_flow_events_json_v2.json", Loads { format: CHROME, warnings: &[] }),
        // --- damaged files: load what can be loaded and say what was skipped
        ("chrome-trace-json/malformed/issue_perfetto926_array_no_closing_bracket.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/malformed/issue_perfetto1822_object_trailing_comma.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/malformed/issue_notperf22_leading_comma.json", Loads { format: CHROME, warnings: &[("stray_comma", 1), ("unclosed_begin", 1)] }),
        ("chrome-trace-json/malformed/derived_kineto_truncated_mid_event.json", Loads { format: KINETO, warnings: &[("truncated_file", 1)] }),
        ("chrome-trace-json/malformed/derived_catapult_big_trace_no_closing_bracket.json", Loads { format: CHROME, warnings: &[] }),
        ("chrome-trace-json/malformed/derived_kineto_gzip_truncated.json.gz", Loads { format: KINETO, warnings: &[("container_truncated", 1), ("truncated_file", 1)] }),
        // --- pytorch-kineto
        ("pytorch-kineto/hta__trace_file_list_inference_rank_1.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__trace_compare_base_base.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__triton_example_triton_example.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz", Loads { format: KINETO, warnings: &[("overlapping_slices", 1)] }),
        ("pytorch-kineto/hta__critical_path_end_to_end_simple_add_output_overlaid_critical_path_trace.json.gz", Loads { format: KINETO, warnings: &[("overlapping_slices", 1)] }),
        ("pytorch-kineto/hta__cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__execution_trace_benchmark_simple_add_et.json.gz", Fails("execution trace")),
        ("pytorch-kineto/hta__execution_trace_benchmark_simple_add_trace.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__memory_analysis_memory_timeline.raw.gz", Fails("memory timeline")),
        ("pytorch-kineto/hta__trace_filter_sampled_rank-0.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__trace_filter_sampled_rank-1.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__nccl_parser_config_nccl_data.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__mtia_inference_trace_mtia_inference_rank_0.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__mtia_trace_single_rank_mtia_rank_0.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__trace_diff_control_control.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__distributed_info_unavailable_distributed_info_not_found.json.gz", Loads { format: KINETO, warnings: &[] }),
        ("pytorch-kineto/hta__df_index_resolver_df_index_resolver.json.gz", Loads { format: KINETO, warnings: &[] }),
        // --- furiosa
        ("furiosa/furiosa_sdk_tests_profiler_result.json", Loads { format: "furiosa", warnings: &[] }),
    ]
}

fn root() -> Option<PathBuf> {
    let r = Path::new(ROOT);
    assert!(r.is_dir(), "the samples are missing: {ROOT}");
    Some(r.to_path_buf())
}

fn load(rel: &str) -> Option<Result<Trace, String>> {
    let path = root()?.join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Some(import_bytes(rel, &bytes, &mut NoProgress).map_err(|e| e.to_string()))
}

/// The independent slice counts of these files (relative to the samples root).
fn independent_counts(root: &Path, rels: &[&str]) -> std::collections::HashMap<String, usize> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/chrome_count.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(rels.iter().map(|r| root.join(r)))
        .output()
        .expect("python3 runs the independent count");
    assert!(out.status.success(), "chrome_count.py: {}", String::from_utf8_lossy(&out.stderr));
    let mut m = std::collections::HashMap::new();
    for (line, rel) in String::from_utf8_lossy(&out.stdout).lines().zip(rels) {
        let v: serde_json::Value = serde_json::from_str(line).expect("chrome_count.py prints JSON");
        m.insert(rel.to_string(), v["slices"].as_u64().expect("slices") as usize);
    }
    assert_eq!(m.len(), rels.len(), "one count per file");
    m
}

fn summary(t: &Trace) -> String {
    let warnings: Vec<String> =
        t.warnings.entries.iter().map(|w| format!("{}×{}", w.kind, w.count)).collect();
    format!(
        "{} groups={} tracks={} slices={} instants={} counters={}({} samples) flows={} iterations={} warnings=[{}]",
        t.format,
        t.groups.len(),
        t.tracks.len(),
        t.slice_count(),
        t.instant_count(),
        t.counters.len(),
        t.counter_sample_count(),
        t.flows.len(),
        t.iterations.len(),
        warnings.join(", ")
    )
}

#[test]
fn every_sample_has_the_expected_outcome() {
    let Some(root) = root() else { return };
    let table = expectations();
    // every file on disk (except SOURCES.md) is either in the table or at least must not panic
    let mut on_disk = Vec::new();
    for d in DIRS {
        let Ok(rd) = std::fs::read_dir(root.join(d)) else { continue };
        for e in rd.flatten() {
            if e.path().is_file() && e.file_name() != "SOURCES.md" {
                on_disk.push(format!("{d}/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    on_disk.sort();
    let loads: Vec<&str> = table.iter().filter(|(_, e)| matches!(e, Loads { .. })).map(|(p, _)| *p).collect();
    let counts = independent_counts(&root, &loads);
    let mut failures = Vec::new();
    for rel in &on_disk {
        let bytes = std::fs::read(root.join(rel)).expect("read sample");
        let result = import_bytes(rel, &bytes, &mut NoProgress);
        let Some((_, expect)) = table.iter().find(|(p, _)| p == rel) else {
            match &result {
                Ok(t) => println!("UNLISTED {rel}: {}", summary(t)),
                Err(e) => println!("UNLISTED {rel}: ERROR {e}"),
            }
            continue;
        };
        match (&result, expect) {
            (Ok(t), Loads { format, warnings }) => {
                let want = counts[rel.as_str()];
                println!("ok   {rel}: {}", summary(t));
                let mut problems = Vec::new();
                if t.format != *format {
                    problems.push(format!("format {} (expected {format})", t.format));
                }
                if t.slice_count() != want {
                    problems.push(format!("{} slices (the independent count: {want})", t.slice_count()));
                }
                if t.slice_count() + t.instant_count() + t.counter_sample_count() == 0 {
                    problems.push("no events".into());
                }
                for (kind, n) in *warnings {
                    let got = t.warnings.count_of(kind_of(kind));
                    if got == 0 || (*n != 0 && got != *n) {
                        problems.push(format!("warning {kind}: {got} (expected {n})"));
                    }
                }
                // anything warned beyond the listed kinds is a regression to look at
                for w in &t.warnings.entries {
                    if !warnings.iter().any(|(k, _)| *k == w.kind.code()) && !benign(rel, w.kind.code()) {
                        problems.push(format!("unexpected warning {}×{}: {}", w.kind, w.count, w.example));
                    }
                }
                if !problems.is_empty() {
                    failures.push(format!("{rel}: {}", problems.join("; ")));
                }
            }
            (Ok(t), LoadsEmpty { warning }) => {
                println!("ok   {rel}: {}", summary(t));
                if t.warnings.count_of(kind_of(warning)) == 0 {
                    failures.push(format!("{rel}: expected warning {warning}"));
                }
            }
            (Err(e), Fails(needle)) => {
                println!("ok   {rel}: ERROR {e}");
                if !e.to_string().contains(needle) {
                    failures.push(format!("{rel}: error '{e}' does not mention '{needle}'"));
                }
            }
            (Ok(t), Fails(needle)) => {
                failures.push(format!("{rel}: loaded ({}) but should fail with '{needle}'", summary(t)))
            }
            (Err(e), _) => failures.push(format!("{rel}: failed: {e}")),
        }
    }
    for (p, _) in &table {
        if !on_disk.iter().any(|f| f == p) {
            println!("SKIP: {p} is missing");
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Warnings that describe the content faithfully and are expected in these real files (the
/// table lists the ones each file is *about*).
fn benign(rel: &str, kind: &str) -> bool {
    match kind {
        // real traces: overlapping X events, ids never closed, flows to nowhere, unknown M names,
        // instants/samples of kinds we do not draw, unmatched ends in files cut from longer ones
        "overlapping_slices"
        | "flow_unbound"
        | "flow_without_start"
        | "metadata_ignored"
        | "unclosed_async"
        | "unmatched_async_end" => true,
        "missing_dur" | "unmatched_end" | "unclosed_begin" | "object_events_ignored" => {
            rel.contains("catapult_")
        }
        _ => false,
    }
}

// ---- exact values from the files' own text ----

fn slice(t: &Trace, name: &str, nth: usize) -> (String, i64, i64, usize) {
    let mut v = Vec::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        for i in 0..tr.slices.len() {
            if t.str(tr.slices.name[i]) == name {
                v.push((
                    t.track_label(loupe_core::model::TrackId(ti as u32)),
                    tr.slices.start_ns[i],
                    tr.slices.dur_ns.at(i),
                    tr.slices.depth_of(i),
                ));
            }
        }
    }
    v.sort_by_key(|s| (s.1, s.3));
    v.get(nth).cloned().unwrap_or_else(|| panic!("no slice #{nth} named {name}"))
}

#[test]
fn trivial_trace_values() {
    let Some(r) = load("chrome-trace-json/catapult_trivial_trace.json") else { return };
    let t = r.unwrap();
    // {"name": "a", "ts": 9524, "ph": "B"} … {"ts": 9560, "ph": "E"}
    assert_eq!(slice(&t, "a", 0), ("Process 52 / thread 53".into(), 9_524_000, 36_000, 0));
    assert_eq!(slice(&t, "b", 0).1, 9_629_000);
}

#[test]
fn nanosecond_decimals_are_exact() {
    let Some(r) = load("chrome-trace-json/catapult_nanoseconds.json") else { return };
    let t = r.unwrap();
    // ns4: B at 3.017, E at 3.021 (µs)
    assert_eq!(slice(&t, "ns4", 0).1..slice(&t, "ns4", 0).1 + slice(&t, "ns4", 0).2, 3_017..3_021);
    assert!(t.metadata.entries.iter().any(|(k, v)| k == "displayTimeUnit" && v == "ns"));
}

#[test]
fn furiosa_values() {
    let Some(r) = load("furiosa/furiosa_sdk_tests_profiler_result.json") else { return };
    let t = r.unwrap();
    // {"name":"ProgramBinary","ph":"B","ts":6276.133,…} … {"ph":"E","ts":6756.609}
    assert_eq!(slice(&t, "ProgramBinary", 0), ("Process 4193796 / thread 20".into(), 6_276_133, 480_476, 0));
    // {"name":"Load(84,84)","ph":"X","ts":8546.898,"dur":0.013,"pid":0,"tid":65536}
    let load = slice(&t, "Load(84,84)", 0);
    assert_eq!((load.0.as_str(), load.1, load.2), ("NPU 0 / NPU queue 65536", 8_546_898, 13));
    // nested same-name B/E pairs (inside Inference > ProcessOperators)
    assert_eq!((slice(&t, "WriteToDram", 0).1, slice(&t, "WriteToDram", 0).3), (8_289_556, 2));
    assert_eq!((slice(&t, "WriteToDram", 1).1, slice(&t, "WriteToDram", 1).3), (8_298_707, 3));
    assert_eq!(slice(&t, "WriteToDram", 0).2, 8_400_197 - 8_289_556);
}

#[test]
fn kineto_structure() {
    let Some(r) =
        load("pytorch-kineto/hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz")
    else {
        return;
    };
    let t = r.unwrap();
    let gpu = t.groups.iter().find(|g| t.str(g.name) == "GPU 0").expect("GPU 0 group");
    assert_eq!(gpu.kind, GroupKind::Device);
    let streams: Vec<&str> = gpu
        .tracks
        .iter()
        .filter(|&&tr| t.track(tr).kind == TrackKind::Stream)
        .map(|&tr| t.str(t.track(tr).name))
        .collect();
    assert!(streams.contains(&"stream 7") && streams.contains(&"stream 20"), "{streams:?}");
    // every ac2g flow runs from the host to a device stream
    let ac2g: Vec<_> = t.flows.iter().filter(|f| t.str(f.category) == "ac2g").collect();
    assert!(ac2g.len() >= 100, "{} ac2g flows", ac2g.len());
    for f in &ac2g {
        assert_eq!(t.groups[t.track(f.from.track).group.idx()].kind, GroupKind::Process);
        assert!(matches!(t.track(f.to.track).kind, TrackKind::Stream | TrackKind::Overlap));
    }
    // {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1694039994071305, "dur": 11, …}
    let m = slice(&t, "Memcpy HtoD (Pageable -> Device)", 0);
    assert_eq!((m.0.as_str(), m.1, m.2), ("GPU 0 / stream 7", 1_694_039_994_071_305_000, 11_000));
    let kernel = t
        .tracks
        .iter()
        .flat_map(|tr| (0..tr.slices.len()).map(move |i| (tr, i)))
        .find(|(tr, i)| t.str(tr.slices.category[*i]) == "kernel")
        .unwrap();
    let args = t.args_display(kernel.0.slices.args[kernel.1]);
    for key in ["grid", "block", "registers per thread", "correlation"] {
        assert!(args.iter().any(|(k, _)| k == key), "kernel args lack {key}: {args:?}");
    }
    assert!(t.metadata.entries.iter().any(|(k, _)| k == "deviceProperties"));
}

#[test]
fn kineto_iterations() {
    let Some(r) = load("pytorch-kineto/hta__trace_filter_sampled_rank-1.json.gz") else { return };
    let t = r.unwrap();
    assert!(!t.iterations.is_empty());
    // {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#551", "ts": 1682725898079484, "dur": 607904.0}
    let it = t.iterations.iter().find(|i| i.number == 551).expect("ProfilerStep#551");
    assert_eq!(
        (it.start_ns, it.end_ns),
        (1_682_725_898_079_484_000, 1_682_725_898_079_484_000 + 607_904_000)
    );
}

/// The kind of a code in the tables above (a code that names no kind fails the test).
fn kind_of(code: &str) -> loupe_core::model::WarningKind {
    loupe_core::model::WarningKind::from_code(code).unwrap_or_else(|| panic!("no warning kind '{code}'"))
}
