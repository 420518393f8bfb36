//! Malformed and hostile input (issue 7 §1, §2, §6): every case must end with a typed error or a
//! partial load, never a panic, a hang or an allocation failure. The cases are built in memory from
//! small fixtures and, when present, from `../shared/samples` (never committed). No test asserts
//! wall-clock time: sizes are chosen so that a correct implementation finishes each case in well
//! under a second, and an O(n²) or exponent-stepping one takes minutes.
//!
//! The in-memory corpus lives in `support/malformed_cases.rs`, shared with the browser test
//! (`app/tests/malformed_wasm.rs`); `shared_corpus_matches_golden` pins its outcomes in
//! `support/malformed_outcomes.txt` (`LOUPE_BLESS=1` rewrites it), which the wasm build must match.

#[path = "support/malformed_cases.rs"]
mod cases;

use cases::*;
use loupe_core::model::WarningKind;
use loupe_core::model::{GroupKind, Layout, Trace, TraceBuilder, TrackKind};

// ---------------------------------------------------------------- invariants

/// At one depth, slices are sorted by start and never overlap (the LOD index relies on it).
fn assert_depth_invariant(t: &Trace, what: &str) {
    if let Err(e) = t.validate() {
        panic!("{what}: {e}");
    }
    for (ti, tr) in t.tracks.iter().enumerate() {
        let s = &tr.slices;
        for d in 0..s.depth_count() {
            let r = s.depth_range(d);
            for i in r.start + 1..r.end {
                assert!(
                    s.start_ns[i - 1] <= s.start_ns[i],
                    "{what}: track {ti} depth {d}: starts not sorted at {i}"
                );
                assert!(
                    s.end_ns(i - 1) <= s.start_ns[i],
                    "{what}: track {ti} depth {d}: slices {} and {i} overlap",
                    i - 1
                );
            }
        }
    }
}

// ---------------------------------------------------------------- lanes

fn lanes_trace(slices: &[(i64, i64)], layout: Layout) -> Trace {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("g", GroupKind::Process);
    let kind = if layout == Layout::Lanes { TrackKind::Async } else { TrackKind::Thread };
    let t = b.add_track(g, "t", kind, "t");
    b.set_track_layout(t, layout);
    let cat = b.intern("c");
    for (k, &(s, d)) in slices.iter().enumerate() {
        let name = b.intern(&k.to_string());
        b.add_slice(t, s, d, name, cat, loupe_core::model::ArgsId::NONE);
    }
    b.finish()
}

/// The greedy "first free lane" rule, written the obvious O(n × lanes) way.
fn reference_lanes(slices: &[(i64, i64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..slices.len()).collect();
    order.sort_by(|&a, &b| slices[a].0.cmp(&slices[b].0).then(slices[b].1.cmp(&slices[a].1)).then(a.cmp(&b)));
    let mut lanes: Vec<i64> = Vec::new();
    let mut out = vec![0; slices.len()];
    for i in order {
        let (s, d) = slices[i];
        let l = match lanes.iter().position(|&e| e <= s) {
            Some(l) => l,
            None => {
                lanes.push(0);
                lanes.len() - 1
            }
        };
        lanes[l] = (s + d).max(s + 1);
        out[i] = l;
    }
    out
}

#[test]
fn lanes_match_the_first_free_lane_rule() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for round in 0..20 {
        let n = 3000;
        let slices: Vec<(i64, i64)> = (0..n)
            .map(|_| {
                let d = if round % 4 == 0 { rnd(3) } else { rnd(500) };
                (rnd(20_000) as i64, d as i64)
            })
            .collect();
        let t = lanes_trace(&slices, Layout::Lanes);
        assert_depth_invariant(&t, "random lanes");
        let want = reference_lanes(&slices);
        let tr = &t.tracks[0];
        assert_eq!(tr.slices.len(), n);
        for i in 0..n {
            let k: usize = t.str(tr.slices.name[i]).parse().unwrap();
            assert_eq!(tr.slices.depth_of(i), want[k], "round {round}, slice {k}");
        }
    }
}

#[test]
fn lanes_300k_fully_overlapping_slices() {
    let n = 300_000;
    let slices = vec![(1_000i64, 5_000i64); n];
    let t = lanes_trace(&slices, Layout::Lanes);
    assert_depth_invariant(&t, "300k overlapping, lanes");
    // 65 536 lanes on the track, 65 536 on its overlap track, the rest counted and dropped
    let lanes = 65_536;
    assert_eq!(t.tracks[0].slices.depth_count(), lanes);
    assert_eq!(t.tracks.len(), 2);
    assert_eq!(t.tracks[1].kind, TrackKind::Overlap);
    assert_eq!(t.slice_count(), 2 * lanes);
    assert!(t.warnings.count_of(WarningKind::LaneLimit) >= 2, "{:?}", t.warnings);
}

#[test]
fn nested_300k_identical_slices() {
    // identical slices nest until the depth limit, then spill to lanes, then are dropped
    let n = 300_000;
    let slices = vec![(0i64, 1_000i64); n];
    let t = lanes_trace(&slices, Layout::Nested);
    assert_depth_invariant(&t, "300k identical, nested");
    assert!(t.slice_count() <= n);
    assert!(t.warnings.count_of(WarningKind::OverlappingSlices) >= 1);
    assert!(t.warnings.count_of(WarningKind::LaneLimit) >= 1);
}

#[test]
fn lanes_many_staggered_slices() {
    // 200k slices, each overlapping the next 1000: a moving window of lanes
    let slices: Vec<(i64, i64)> = (0..200_000i64).map(|i| (i, 1_000)).collect();
    let t = lanes_trace(&slices, Layout::Lanes);
    assert_depth_invariant(&t, "staggered");
    assert_eq!(t.slice_count(), 200_000);
    assert_eq!(t.tracks[0].slices.depth_count(), 1_000);
}

// ---------------------------------------------------------------- helpers

use loupe_core::import::{import_bytes, ImportError, NoProgress};

/// Import and require "a typed error or a (partial) trace"; a panic fails the test by itself.
fn import(name: &str, bytes: &[u8]) -> Result<Trace, ImportError> {
    let r = import_bytes(name, bytes, &mut NoProgress);
    if let Ok(t) = &r {
        assert_depth_invariant(t, name);
    }
    r
}

// ---------------------------------------------------------------- neuron JSON export: many ids

#[test]
fn neuron_json_many_ids_are_not_quadratic() {
    let n: usize = std::env::var("LOUPE_MANY_IDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let t = import("many.json", &neuron_json_many_ids(n)).expect("loads");
    assert_eq!(t.format, "neuron-profile-json");
    assert_eq!(t.groups.len(), 2000);
    let sems = t.counters.iter().filter(|c| t.str(c.name).starts_with("S[")).count();
    assert_eq!(sems, n);
    assert_eq!(t.flows.len(), n, "every DMA finds its trigger");
}

// ---------------------------------------------------------------- NEFF: many names

use loupe_core::neuron::neff::{self, writer};

#[test]
fn neff_many_members_resolve_by_map() {
    let n: usize =
        std::env::var("LOUPE_MANY_IDS").ok().and_then(|v| v.parse().ok()).map_or(1500, |v: usize| v / 10);
    let bytes = neff_many_members(n);
    let parsed = neff::parse(&bytes).expect("parses");
    assert_eq!(parsed.subgraphs.len(), n);
    assert!(parsed.subgraphs.iter().all(|s| s.engines.len() == 1 && s.engines[0].instructions.is_some()));
    let t = import("many.neff", &bytes).expect("imports");
    assert!(t.program.is_some());
}

#[test]
fn neff_shared_engine_json_spends_one_budget() {
    let bytes = neff_shared_engine_json(200, 300_000);
    let parsed = neff::parse(&bytes).expect("parses");
    assert_eq!(parsed.subgraphs.len(), 200);
    let with_dma = parsed.subgraphs.iter().filter(|s| s.engines.iter().any(|e| !e.dma.is_empty())).count();
    assert!(with_dma > 0 && with_dma < 200, "{with_dma} subgraphs got the engine JSON");
    assert!(parsed.warnings.iter().any(|w| w.contains("parse budget")), "{:?}", parsed.warnings.last());
    assert!(import("shared.neff", &bytes).is_ok());
}

// ---------------------------------------------------------------- NTFF: lying block descriptors

use loupe_core::neuron::ntff::{self, writer as ntff_writer};

#[test]
fn ntff_overlapping_descriptors_decode_once() {
    let clean = ntff::parse(&ntff_overlapping_blocks(1, 0)).expect("clean capture");
    let n: usize = std::env::var("LOUPE_NTFF_BLOCKS").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000);
    let bytes = ntff_overlapping_blocks(1, n);
    let t = ntff::parse(&bytes).expect("parses with warnings");
    assert_eq!(t.instructions.len(), clean.instructions.len());
    assert_eq!(t.dma_packets.len(), clean.dma_packets.len());
    assert!(t.instructions.capacity() <= bytes.len() / 32 + 1);
    let kinds: Vec<_> = t.warnings.iter().map(|w| w.kind).collect();
    assert!(kinds.contains(&ntff::WarningKind::BlockTiling), "{kinds:?}");
    assert!(kinds.contains(&ntff::WarningKind::BlockOutOfRange), "{kinds:?}");
    assert!(import("overlap.ntff", &bytes).is_ok());
}

// ---------------------------------------------------------------- containers: bombs and budgets

use loupe_core::import::container::{self, Budget};

fn is_too_large<T: std::fmt::Debug>(r: &Result<T, ImportError>) -> bool {
    matches!(r, Err(ImportError::TooLarge { .. }))
}

#[test]
fn container_budget_is_shared_and_typed() {
    let mb = vec![b' '; 1 << 20];
    // gzip bomb beyond the budget: a typed error, not a silent truncation
    let bomb = gz(&vec![0u8; 8 << 20]);
    let r = container::unwrap_within("bomb.json.gz", &bomb, &mut Budget::new(1 << 20));
    assert!(is_too_large(&r), "{r:?}");
    let msg = r.unwrap_err().to_string();
    assert_eq!(msg, "this file expands to more than 1 MiB (the most Loupe can hold in memory)");
    let msg = container::unwrap_within("b.gz", &bomb, &mut Budget::default());
    assert!(msg.is_ok(), "8 MiB is within the default budget");
    assert_eq!(
        ImportError::TooLarge {
            what: "this file expands to".into(),
            limit: loupe_core::limits::MAX_EXPANDED_BYTES
        }
        .to_string(),
        "this file expands to more than 1.5 GiB (the most Loupe can hold in memory)"
    );
    // exactly at the budget: fine
    let exact = gz(&mb);
    assert_eq!(
        container::unwrap_within("a.gz", &exact, &mut Budget::new(1 << 20)).unwrap()[0].1.len(),
        1 << 20
    );
    // many zip members, each under the budget, together over it
    let members: Vec<ZipMember> = (0..5).map(|i| zip_member(&format!("m{i}.json"), &mb, true)).collect();
    let z = zip(&members);
    let r = container::unwrap_within("many.zip", &z, &mut Budget::new(3 << 20));
    assert!(is_too_large(&r), "{:?}", r.map(|v| v.len()));
    assert_eq!(container::unwrap_within("many.zip", &z, &mut Budget::new(5 << 20)).unwrap().len(), 5);
    // stored members spend the budget too
    let stored: Vec<ZipMember> = (0..5).map(|i| zip_member(&format!("s{i}"), &mb, false)).collect();
    assert!(is_too_large(&container::unwrap_within("s.zip", &zip(&stored), &mut Budget::new(3 << 20))));
    // nesting: zip of gzips of a bomb, one budget through every level
    let inner = gz(&vec![b'['; 2 << 20]);
    let nested: Vec<ZipMember> = (0..3).map(|i| zip_member(&format!("n{i}.json.gz"), &inner, true)).collect();
    let nz = gz(&zip(&nested));
    assert!(is_too_large(&container::unwrap_within("n.zip.gz", &nz, &mut Budget::new(5 << 20))));
    // a declared size of 0xFFFFFFFF (zip64 marker, or a lie) allocates nothing up front
    let mut liar = zip_member("liar.json", b"[]", true);
    liar.declared = u32::MAX;
    let liar = zip(&[liar]);
    let v = container::unwrap_within("liar.zip", &liar, &mut Budget::default()).unwrap();
    assert_eq!(&*v[0].1, b"[]");
    // a declared size beyond the budget is refused before inflating
    let mut big = zip_member("big.json", b"[]", true);
    big.declared = 0x7FFF_FFFF;
    assert!(is_too_large(&container::unwrap_within("big.zip", &zip(&[big]), &mut Budget::default())));
}

// ---------------------------------------------------------------- the corpus

fn sample(rel: &str) -> Option<Vec<u8>> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples").join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("SKIP: {} not present", p.display());
            None
        }
    }
}

/// Run every case; each must end with a typed error or a (partial) trace. Returns how many
/// loaded and how many were typed errors.
fn run_corpus(format: &str, cases: &[Case]) -> (usize, usize) {
    let (mut ok, mut err) = (0, 0);
    for c in cases {
        let r = std::panic::catch_unwind(|| import(&c.file_name, &c.bytes).map(|t| t.slice_count()));
        match r {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => err += 1,
            Err(_) => panic!("{format}: {}: {}: panicked", c.file_name, c.name),
        }
    }
    assert!(ok + err >= 30 || cases.len() < 30, "{format}: {} cases", cases.len());
    println!("{format}: {} cases, {ok} loaded, {err} typed errors", cases.len());
    (ok, err)
}

/// The shared in-memory cases of these groups (`<group>/...` names).
fn group(groups: &[&str]) -> Vec<Case> {
    cases()
        .into_iter()
        .filter(|c| groups.iter().any(|g| c.name.strip_prefix(g).is_some_and(|r| r.starts_with('/'))))
        .collect()
}

/// Mutations of a shared sample, when present.
fn sample_corpus(format: &str, rel: &str, seed: u64) {
    if let Some(b) = sample(rel) {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        run_corpus(format, &mutation_cases(format, name, &b, seed));
    }
}

#[test]
fn corpus_chrome_json() {
    let (ok, _) = run_corpus("chrome-json", &group(&["chrome-json"]));
    assert!(ok > 0);
    // the hostile numbers become warnings, the rest of the file loads
    let t = import("n.json", &huge_exponent_cases().last().unwrap().1).expect("loads");
    println!("200 hostile numbers: {} slices, warnings {:?}", t.slice_count(), t.warnings);
    assert!(t.slice_count() > 0 || t.warnings.total() > 0);
    sample_corpus("chrome-json", "chrome-trace-json/catapult_chromeos_system_trace.json", 2);
}

#[test]
fn corpus_neuron_json() {
    run_corpus("neuron-profile-json", &group(&["neuron-json"]));
    // many ids: the lookups that were quadratic (small here; the scaling test is above)
    let many =
        [Case { name: "5000 ids".into(), file_name: "many.json".into(), bytes: neuron_json_many_ids(5000) }];
    run_corpus("neuron-profile-json", &many);
    sample_corpus("neuron-profile-json", "neuron/profile_128x128x1024.json", 4);
}

#[test]
fn corpus_ntff() {
    let (ok, _) = run_corpus("ntff", &group(&["ntff"]));
    assert!(ok > 0);
    sample_corpus("ntff", "neuron/profile_128x128x1024.ntff", 6);
}

#[test]
fn corpus_neff() {
    let mut cases = group(&["neff", "neff-tar"]);
    cases.push(Case {
        name: "many members".into(),
        file_name: "graph.neff".into(),
        bytes: neff_many_members(300),
    });
    let (ok, _) = run_corpus("neff", &cases);
    assert!(ok > 0);
    sample_corpus("neff", "neuron/matmul_small.neff", 9);
}

#[test]
fn corpus_containers() {
    let (ok, _) = run_corpus("containers", &group(&["gzip", "zip", "containers"]));
    assert!(ok > 0);
}

#[test]
fn corpus_parquet() {
    let cases = group(&["parquet"]);
    let (ok, err) = run_corpus("neuron-parquet", &cases);
    assert!(ok > 0 && err > 0);
    // none of them reaches a panic inside the crate (natively caught, an abort in wasm)
    let caught: Vec<&str> = cases
        .iter()
        .filter(|c| import(&c.file_name, &c.bytes).is_err_and(|e| e.to_string().contains("decoder failed")))
        .map(|c| c.name.as_str())
        .collect();
    assert!(caught.is_empty(), "the crate panicked on: {caught:?}");
}

// ---------------------------------------------------------------- the shared corpus, pinned (§3, §6)

/// Every shared case: its outcome natively must equal the golden file, which the wasm build
/// (`app/tests/malformed_wasm.rs`) checks too. `LOUPE_BLESS=1` rewrites the file.
#[test]
fn shared_corpus_matches_golden() {
    let all = cases();
    let mut results = Vec::with_capacity(all.len());
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for c in &all {
        let r = std::panic::catch_unwind(|| import(&c.file_name, &c.bytes));
        let r = r.unwrap_or_else(|_| panic!("{}: panicked", c.name));
        let o = outcome(&r);
        assert!(!o.contains("decoder failed"), "{}: a panic inside a decoder was caught: {o}", c.name);
        assert!(!o.contains(" INVALID "), "{}: {o}", c.name);
        let g = c.name.split('/').next().unwrap_or("").to_string();
        let at = match groups.iter().position(|x| x.0 == g) {
            Some(at) => at,
            None => {
                groups.push((g, 0, 0));
                groups.len() - 1
            }
        };
        let last = &mut groups[at];
        if r.is_ok() {
            last.1 += 1;
        } else {
            last.2 += 1;
        }
        results.push((c.name.clone(), o));
    }
    for (g, ok, err) in &groups {
        println!("{g}: {} cases, {ok} loaded, {err} typed errors", ok + err);
    }
    println!("{} shared cases", all.len());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/malformed_outcomes.txt");
    let text = golden_text(&results);
    if std::env::var_os("LOUPE_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_default();
    let want = parse_golden(&golden);
    let mut diffs = Vec::new();
    for (i, (n, o)) in results.iter().enumerate() {
        match want.get(i) {
            Some((wn, wo)) if wn == n && wo == o => {}
            Some((wn, wo)) => diffs.push(format!("{n}\n   got:  {o}\n   want: {wn}\t{wo}")),
            None => diffs.push(format!("{n}: not in the golden file")),
        }
    }
    if want.len() > results.len() {
        diffs.push(format!("{} golden lines for {} cases", want.len(), results.len()));
    }
    assert!(
        diffs.is_empty(),
        "{} of {} outcomes differ from {} (LOUPE_BLESS=1 rewrites it):\n{}",
        diffs.len(),
        results.len(),
        path.display(),
        diffs.join("\n")
    );
}

#[test]
fn chrome_identical_events_finish() {
    // a few MB of gzip of identical events used to never finish (lanes past 65 535)
    let mut s = String::from(r#"{"traceEvents":["#);
    for k in 0..150_000 {
        if k > 0 {
            s.push(',');
        }
        s.push_str(r#"{"ph":"X","pid":1,"tid":1,"ts":5,"dur":10,"name":"same"}"#);
    }
    s.push_str("]}");
    let t = import("same.json.gz", &gz(s.as_bytes())).expect("loads");
    assert!(t.slice_count() > 65_535);
    assert!(t.warnings.total() > 0);
    // async events that all overlap: lanes, then the overlap track, then dropped with a warning
    let mut s = String::from(r#"{"traceEvents":["#);
    for k in 0..150_000 {
        if k > 0 {
            s.push(',');
        }
        s.push_str(&format!(r#"{{"ph":"b","pid":1,"id":{k},"cat":"c","ts":5,"name":"a"}},{{"ph":"e","pid":1,"id":{k},"cat":"c","ts":15,"name":"a"}}"#));
    }
    s.push_str("]}");
    let t = import("async.json", s.as_bytes()).expect("loads");
    assert!(t.slice_count() > 65_535);
}

// ---------------------------------------------------------------- importer fall-through (§4)

#[test]
fn importer_selection_falls_through() {
    use loupe_core::import::{candidates, neuron::json::NeuronJson, Importer, Sniff, SNIFF_BYTES};
    let bytes = pytorch_metadata_first();
    assert!(bytes.len() > SNIFF_BYTES);
    assert_eq!(NeuronJson.sniff("trace.json", &bytes[..SNIFF_BYTES]), Sniff::Yes);
    let names: Vec<&str> = candidates("trace.json", &bytes).iter().map(|i| i.name()).collect();
    assert_eq!(names, ["neuron-profile-json", "chrome-json"]);
    let t = import("trace.json", &bytes).expect("read as a Chrome trace");
    assert_ne!(t.format, "neuron-profile-json");
    assert!(t.format == "chrome-json" || t.format == "pytorch-kineto", "{}", t.format);
    assert_eq!(t.slice_count(), 2);
    // the same gzipped
    assert_eq!(import("trace.json.gz", &gz(&bytes)).expect("loads").slice_count(), 2);
    // truncated inside traceEvents: the Chrome importer keeps what is complete
    let cut = &bytes[..bytes.len() - 60];
    let t = import("trace.json", cut).expect("partial load");
    assert_eq!(t.slice_count(), 1);
    // a real neuron-profile export is still read as one
    let t = import("profile.json", NEURON_JSON_FIXTURE.as_bytes()).expect("loads");
    assert_eq!(t.format, "neuron-profile-json");
}

#[test]
fn rocprof_json_is_not_called_a_neuron_file() {
    let roc = br#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":7,"init_time":1,"model_info":"gfx90a","dma_engine":1},
        "agents":[{"id":{"handle":1},"type":2}],"buffer_records":{"kernel_dispatch":[{"start_timestamp":1,"end_timestamp":9}]}}]}"#;
    // read by its own importer (issue 12), not taken for a neuron-profile export
    let t = import("results.json", roc).expect("a rocprofv3 JSON");
    assert_eq!(t.format, "rocprof");
    assert_eq!(t.slice_count(), 1);
}

// ---------------------------------------------------------------- clear messages (§4)

fn err(name: &str, bytes: &[u8]) -> String {
    match import(name, bytes) {
        Ok(t) => panic!("{name}: expected an error, got {} slices ({})", t.slice_count(), t.format),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unrecognised_lists_the_supported_formats() {
    let e = err("notes.txt", b"hello, world: not a profile\n");
    assert!(e.starts_with("unrecognised file format in 'notes.txt' (28 bytes"), "{e}");
    for f in ["Chrome", "Kineto", "neuron-profile JSON", "Parquet", "NEFF", "NTFF v5", "gzip", "zip"] {
        assert!(e.contains(f), "{f} missing: {e}");
    }
    assert!(matches!(import("x", b"[1, 2]"), Err(ImportError::UnknownFormat(_))));
    // control characters in the name never reach the message
    let e = err("a\u{1b}[31mred\u{7}.bin", b"\x01\x02\x03");
    assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
}

#[test]
fn utf16_json_is_named() {
    for (be, bom, want) in [
        (false, true, "little-endian, byte-order mark FF FE"),
        (true, true, "big-endian, byte-order mark FE FF"),
        (false, false, "little-endian, no byte-order mark"),
        (true, false, "big-endian, no byte-order mark"),
    ] {
        let e = err("trace.json", &utf16(CHROME_FIXTURE, be, bom));
        assert!(e.contains("UTF-16") && e.contains(want) && e.contains("UTF-8"), "{e}");
        // gzipped too
        let e = err("trace.json.gz", &gz(&utf16(CHROME_FIXTURE, be, bom)));
        assert!(e.contains("UTF-16"), "{e}");
    }
}

#[test]
fn ntff_other_versions_are_named() {
    let base = ntff_writer::write(&ntff_writer::synthetic_capture(0));
    for v in [0u8, 1, 4, 6, 63, 64, 255] {
        let mut b = base.clone();
        b[0] = v;
        let e = err("profile.ntff", &b);
        assert!(e.contains(&format!("NTFF version {v} is not supported; Loupe reads v5")), "v{v}: {e}");
        assert!(!e.contains("unrecognised"), "{e}");
    }
}

#[test]
fn neff_with_one_bad_header_field_is_named() {
    let base = writer::minimal_neff();
    let mut plain = writer::minimal();
    plain.gzip = false;
    let tarred = plain.build();
    for (what, at, val) in [
        ("pkg_version 0", 0x00usize, 0u64),
        ("pkg_version 99", 0x00, 99),
        ("header_size", 0x08, 4096),
        ("data_size 0", 0x10, 0),
        ("major version", 0x18, 1 << 40),
    ] {
        for (kind, file) in [("gzip", &base), ("tar", &tarred)] {
            let mut b = file.clone();
            b[at..at + 8].copy_from_slice(&val.to_le_bytes());
            let r = import("graph.neff", &b);
            let e = r.as_ref().map(|_| String::new()).unwrap_or_else(|e| e.to_string());
            assert!(matches!(r, Err(ImportError::Invalid { format: "NEFF", .. })), "{what} ({kind}): {e}");
            assert!(e.contains("header is damaged"), "{what} ({kind}): {e}");
        }
    }
}

#[test]
fn containers_say_what_is_wrong() {
    let json = CHROME_FIXTURE.as_bytes();
    // an empty zip is only an end-of-central-directory record
    let e = err("empty.zip", &zip(&[]));
    assert!(e.contains("zip archive 'empty.zip' is empty"), "{e}");
    let e = err("dirs.zip", &zip(&[zip_member("d/", b"", false)]));
    assert!(e.contains("is empty"), "{e}");
    // four levels are unwrapped, five are refused clearly
    let mut deep = json.to_vec();
    for _ in 0..4 {
        deep = gz(&deep);
    }
    assert!(import("deep.json.gz", &deep).is_ok());
    let e = err("deeper.json.gz", &gz(&deep));
    assert!(e.contains("nested more than 4 levels"), "{e}");
    let z = zip(&[zip_member("a.zip", &zip(&[zip_member("b.json.gz", &gz(&gz(&gz(json))), true)]), false)]);
    assert!(err("z.zip", &z).contains("nested"));
    // a truncated gzip bomb: what was inflated is all zeros; say so, and that the stream ended early
    let bomb = gz(&vec![0u8; 8 << 20]);
    let e = err("bomb.json.gz", &bomb[..bomb.len() / 2]);
    assert!(e.contains("ends early") && e.contains("all zero bytes"), "{e}");
    // a gzip truncated before any data
    let e = err("t.json.gz", &gz(json)[..12]);
    assert!(e.contains("gzip") && e.contains("truncated"), "{e}");
}

#[test]
fn gzip_trailing_bytes_load_with_a_warning() {
    let json = CHROME_FIXTURE.as_bytes();
    let clean = import("t.json.gz", &gz(json)).expect("loads");
    let mut trailing = gz(json);
    trailing.extend_from_slice(b"\x00garbage after the stream");
    let t = import("t.json.gz", &trailing).expect("the stream loads");
    assert_eq!(t.slice_count(), clean.slice_count());
    assert_eq!(t.warnings.count_of(WarningKind::ContainerTrailingBytes), 1, "{:?}", t.warnings);
    // zero padding is normal (block-padded copies): no warning
    let mut padded = gz(json);
    padded.extend_from_slice(&[0; 512]);
    let t = import("t.json.gz", &padded).expect("loads");
    assert_eq!(t.warnings.count_of(WarningKind::ContainerTrailingBytes), 0);
    // two members: both read
    let two =
        [gz(b"[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}"), gz(b"]")].concat();
    assert_eq!(import("t.json.gz", &two).expect("loads").slice_count(), 1);
    // a truncated stream keeps what was inflated, with a warning
    let big: String = (0..2000)
        .map(|k| format!(r#"{{"ph":"X","name":"e{k}","pid":1,"tid":1,"ts":{k},"dur":1}},"#))
        .collect();
    let z = gz(format!("[{big}").as_bytes());
    let t = import("t.json.gz", &z[..z.len() / 2]).expect("partial load");
    assert!(t.slice_count() > 0);
    assert_eq!(t.warnings.count_of(WarningKind::ContainerTruncated), 1, "{:?}", t.warnings);
}

#[test]
fn array_of_arrays_is_a_memory_timeline_only_when_it_looks_like_one() {
    let e = err("m.json", b"[[-1, 1, 37888, 7], [-1, 1, 512, 7]]");
    assert!(e.contains("memory timeline"), "{e}");
    for other in
        ["[[1, 2], [3, 4]]", "[[\"a\", \"b\", \"c\", \"d\"]]", "[[1.5, 1, 2, 3]]", "[[1,2,3,4,5]]", "[[]]"]
    {
        let e = err("m.json", other.as_bytes());
        assert!(!e.contains("memory timeline") && e.contains("array of arrays"), "{other}: {e}");
    }
}

#[test]
fn no_made_up_byte_offsets() {
    // NTFF, NEFF and Parquet decoders have no byte offset to report for these: none is invented
    let ntff = ntff_writer::write(&ntff_writer::synthetic_capture(0));
    let neff = writer::minimal_neff();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("p.ntff", ntff[..0x90].to_vec()),
        ("g.neff", neff[..1100].to_vec()),
        ("Instruction.parquet", b"PAR1 not really parquet PAR1".to_vec()),
    ];
    let mut meta = ntff.clone();
    meta[1..4].copy_from_slice(&[0xff, 0xff, 0x7f]);
    cases.push(("p.ntff", meta));
    for (name, b) in &cases {
        if let Err(e) = import(name, b) {
            let e = e.to_string();
            assert!(!e.contains("(at byte 0)"), "{name}: {e}");
        }
    }
    // real offsets stay
    let e = err("t.json", br#"{"instruction":[{"timestamp":1,,]}"#);
    assert!(e.contains("(at byte "), "{e}");
}

// ---------------------------------------------------------------- Parquet: inputs that panicked the crate (§3)

fn parquet_err(bytes: &[u8]) -> String {
    match import("SemaphoreUpdate.parquet", bytes) {
        Ok(t) => panic!("expected an error, got {} counter samples", t.counter_sample_count()),
        Err(e) => {
            assert!(matches!(e, ImportError::Invalid { format: "neuron-explorer-parquet", .. }), "{e:?}");
            let e = e.to_string();
            // the check fired, not the catch_unwind safety net (which does not exist in wasm)
            assert!(!e.contains("decoder failed"), "{e}");
            e
        }
    }
}

#[test]
fn parquet_inputs_that_panicked_the_crate_are_typed_errors() {
    let good = semaphore_parquet();
    let t = import("SemaphoreUpdate.parquet", &good).expect("the clean file loads");
    assert_eq!(t.counter_sample_count(), 100);
    // the rewriting helper itself keeps the file readable
    assert_eq!(
        import("SemaphoreUpdate.parquet", &edit_chunk(&good, 0, |c| c)).unwrap().counter_sample_count(),
        100
    );
    let n = good.len();
    // footer length 0xFFFFFFFF, and other lengths that do not fit
    for len in [u32::MAX, 0x8000_0000, n as u32 - 11, 0] {
        let mut b = good.clone();
        b[n - 8..n - 4].copy_from_slice(&len.to_le_bytes());
        let e = parquet_err(&b);
        assert!(e.contains(&format!("footer length {len} does not fit")), "{e}");
    }
    let mut b = good.clone();
    b[n - 4..].copy_from_slice(b"PARE");
    assert!(parquet_err(&b).contains("encrypted"));
    assert!(parquet_err(&good[..n - 3]).contains("no PAR1 magic at the end"));
    assert!(parquet_err(b"PAR1PAR1").contains("too short"));
    // negative column start, negative length, a chunk past the data area, data page outside its chunk
    let e =
        parquet_err(&edit_chunk(&good, 0, |c| c.set_data_page_offset(-5).set_dictionary_page_offset(None)));
    assert!(e.contains("column 'timestamp': chunk at byte -5"), "{e}");
    let e = parquet_err(&edit_chunk(&good, 1, |c| c.set_dictionary_page_offset(Some(-1_000_000))));
    assert!(e.contains("column 'id': chunk at byte -1000000"), "{e}");
    let e = parquet_err(&edit_chunk(&good, 0, |c| c.set_total_compressed_size(-1)));
    assert!(e.contains("outside the data area"), "{e}");
    let e = parquet_err(&edit_chunk(&good, 2, |c| c.set_total_compressed_size(1 << 40)));
    assert!(e.contains("column 'value'") && e.contains("outside the data area"), "{e}");
    let e = parquet_err(&edit_chunk(&good, 2, |c| c.set_data_page_offset(i64::MAX)));
    assert!(e.contains("outside the data area"), "{e}");
    // a dictionary-encoded data page whose dictionary page the metadata skips: the crate's
    // dictionary decoder used to panic ("Decoder for dict should have been set")
    let e = parquet_err(&parquet_skipped_dictionary(&good));
    assert!(e.contains("dictionary-encoded page without a dictionary page"), "{e}");
}
