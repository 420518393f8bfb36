//! Malformed and hostile input (issue 7 §1, §2, §6): every case must end with a typed error or a
//! partial load, never a panic, a hang or an allocation failure. The cases are built in memory from
//! small fixtures and, when present, from `../shared/samples` (never committed). No test asserts
//! wall-clock time: sizes are chosen so that a correct implementation finishes each case in well
//! under a second, and an O(n²) or exponent-stepping one takes minutes.

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
    assert!(t.warnings.count_of("lane_limit") >= 2, "{:?}", t.warnings);
}

#[test]
fn nested_300k_identical_slices() {
    // identical slices nest until the depth limit, then spill to lanes, then are dropped
    let n = 300_000;
    let slices = vec![(0i64, 1_000i64); n];
    let t = lanes_trace(&slices, Layout::Nested);
    assert_depth_invariant(&t, "300k identical, nested");
    assert!(t.slice_count() <= n);
    assert!(t.warnings.count_of("overlapping_slices") >= 1);
    assert!(t.warnings.count_of("lane_limit") >= 1);
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

/// A neuron-profile JSON export with `n` records in each of the tables whose lookups were quadratic.
fn neuron_json_many_ids(n: usize) -> Vec<u8> {
    let mut s = String::from(r#"{"model_info":[{"nc_idx":0,"nd_idx":0}],"semaphore_update":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(r#"{{"timestamp":{i},"value":1,"id":"S[{i}] (q)"}}"#));
    }
    // instructions on many physical cores, all starting at the same time (one DMA trigger key)
    s.push_str(r#"],"instruction":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"timestamp":5,"duration":1,"id":{i},"trigger":{},"label":"Vector","opcode":"op","pcore_idx":{}}}"#,
            1000 + i,
            i % 2000
        ));
    }
    s.push_str(r#"],"dma":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"timestamp":{},"duration":3,"aggregated":"yes","trigger":5,"subgroup":"q-Q0-E0","pcore_idx":{}}}"#,
            1000 + i,
            i % 2000
        ));
    }
    s.push_str(r#"],"active_time":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"pcore_idx":{},"engine":"e{}","start_ts":{i},"end_ts":{}}}"#,
            i % 2000,
            i % 50,
            i + 1
        ));
    }
    s.push_str("]}");
    s.into_bytes()
}

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

/// A NEFF with `n` subgraphs (def.json, engine JSON and binary each) and a graph naming `n`
/// missing kelf files: every name resolution used to scan every member.
fn neff_many_members(n: usize) -> Vec<u8> {
    let mut b = writer::NeffBuilder::new();
    let mut graphs = String::new();
    let mut nodes = String::new();
    for i in 0..n {
        if i > 0 {
            graphs.push(',');
            nodes.push(',');
        }
        graphs.push_str(&format!(r#"{{"definition":"sg{i}/def.json","name":"sg{i}"}}"#));
        nodes.push_str(&format!(r#"{{"op":"tvm_op","name":"n{i}","attrs":{{"kelf":"missing-{i}.json"}}}}"#));
    }
    b.member(
        "neff.json",
        format!(r#"{{"nodes":[{nodes},{{"op":"tvm_op","name":"k","attrs":{{"kelf":"kelf-0.json"}}}}]}}"#),
    );
    b.member("kelf-0.json", format!(r#"{{"graphs":[{graphs}]}}"#));
    for i in 0..n {
        b.member(
            &format!("sg{i}/def.json"),
            r#"{"pe":"PE.json","pe_instr":"PE.bin","var":{},"dma_queue":{}}"#,
        );
        b.member(&format!("sg{i}/PE.json"), r#"{"dma":[],"instr":"PE.bin"}"#);
        b.member(&format!("sg{i}/PE.bin"), writer::slots(&[1, 2]));
    }
    b.build()
}

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

/// `n` subgraphs whose def.json all name one large engine JSON: each used to receive a clone of
/// the parsed tree (gigabytes from a small file); now each parse spends one shared budget.
fn neff_shared_engine_json(n: usize, engine_json_bytes: usize) -> Vec<u8> {
    let mut b = writer::NeffBuilder::new();
    let mut graphs = String::new();
    for i in 0..n {
        if i > 0 {
            graphs.push(',');
        }
        graphs.push_str(&format!(r#"{{"definition":"sg{i}/def.json","name":"sg{i}"}}"#));
        b.member(&format!("sg{i}/def.json"), r#"{"pe":"../PE.json","pe_instr":"../PE.bin"}"#);
    }
    b.member("kelf-0.json", format!(r#"{{"graphs":[{graphs}]}}"#));
    let mut big = String::from(r#"{"instr":"PE.bin","dma":["#);
    while big.len() < engine_json_bytes {
        big.push_str(r#"{"id":"1","desc":[0,0,0,0,0,0,0,0]},"#);
    }
    big.push_str(r#"{}]}"#);
    b.member("PE.json", big);
    b.member("PE.bin", writer::slots(&[1]));
    b.build()
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

/// A 1 MB synthetic capture plus `extra` descriptors that each claim the whole record area
/// (and some beyond the file): every byte used to be decoded once per descriptor, with output
/// vectors sized from the sum of the claims.
fn ntff_overlapping_blocks(extra: usize) -> Vec<u8> {
    let mut c = ntff_writer::synthetic_capture(1);
    for k in 0..extra as u64 {
        let ty = [0u64, 1, 4, 5][k as usize % 4];
        c.extra_blocks.push((ty, (k % 3) * 16, u64::MAX / 2));
    }
    ntff_writer::write(&c)
}

#[test]
fn ntff_overlapping_descriptors_decode_once() {
    let clean = ntff::parse(&ntff_overlapping_blocks(0)).expect("clean capture");
    let n: usize = std::env::var("LOUPE_NTFF_BLOCKS").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000);
    let bytes = ntff_overlapping_blocks(n);
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
use std::io::Write;

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zip member: name, stored bytes, method (0 stored, 8 deflated), declared uncompressed size.
struct ZipMember {
    name: String,
    data: Vec<u8>,
    method: u16,
    declared: u32,
}

fn zip_member(name: &str, content: &[u8], deflated: bool) -> ZipMember {
    let (data, method) = if deflated { (deflate(content), 8) } else { (content.to_vec(), 0) };
    ZipMember { name: name.into(), data, method, declared: content.len() as u32 }
}

/// A minimal zip writer (no CRCs: the reader does not check them).
fn zip(members: &[ZipMember]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for m in members {
        let off = out.len() as u32;
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&[20, 0, 0, 0]);
        out.extend_from_slice(&m.method.to_le_bytes());
        out.extend_from_slice(&[0; 8]); // time, date, crc
        out.extend_from_slice(&(m.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&m.declared.to_le_bytes());
        out.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(m.name.as_bytes());
        out.extend_from_slice(&m.data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0]);
        central.extend_from_slice(&m.method.to_le_bytes());
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&(m.data.len() as u32).to_le_bytes());
        central.extend_from_slice(&m.declared.to_le_bytes());
        central.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&off.to_le_bytes());
        central.extend_from_slice(m.name.as_bytes());
    }
    let cd_off = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_off.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

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

/// Deterministic xorshift.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The malformed variants of one well-formed file: truncations, byte flips, lying 32-bit
/// lengths at random offsets and in the first 64 bytes, zeroed and duplicated spans. 44 cases.
fn mutations(base: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut r = Rng(seed | 1);
    let n = base.len();
    let mut out = Vec::new();
    for k in 0..10 {
        let cut = if k < 3 { k } else { r.below(n) };
        out.push((format!("truncated at {cut}"), base[..cut.min(n)].to_vec()));
    }
    out.push(("last byte dropped".into(), base[..n.saturating_sub(1)].to_vec()));
    for _ in 0..10 {
        let mut v = base.to_vec();
        let at = r.below(n);
        if let Some(b) = v.get_mut(at) {
            *b ^= 1 << (r.next() % 8);
        }
        out.push((format!("bit flip at {at}"), v));
    }
    for k in 0..12 {
        let mut v = base.to_vec();
        let at = if k < 6 { r.below(n.min(64)) } else { r.below(n) };
        let lie: u32 = [u32::MAX, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_0000, 0x0100_0000, 0][k % 6];
        for (i, b) in lie.to_le_bytes().iter().enumerate() {
            if let Some(x) = v.get_mut(at + i) {
                *x = *b;
            }
        }
        out.push((format!("lying u32 {lie:#x} at {at}"), v));
    }
    for _ in 0..5 {
        let mut v = base.to_vec();
        let at = r.below(n);
        let len = r.below(256).min(n - at.min(n));
        v[at..at + len].fill(0);
        out.push((format!("{len} bytes zeroed at {at}"), v));
    }
    for _ in 0..5 {
        let at = r.below(n);
        let len = r.below(4096).min(n - at.min(n));
        let mut v = base[..at].to_vec();
        v.extend_from_slice(&base[at..at + len]);
        v.extend_from_slice(&base[at..]);
        out.push((format!("{len} bytes duplicated at {at}"), v));
    }
    out.push(("doubled".into(), [base, base].concat()));
    out
}

/// Run every case; each must end with a typed error or a (partial) trace. Returns how many
/// loaded and how many were typed errors.
fn run_corpus(format: &str, file_name: &str, cases: &[(String, Vec<u8>)]) -> (usize, usize) {
    let (mut ok, mut err) = (0, 0);
    for (what, bytes) in cases {
        let r = std::panic::catch_unwind(|| import(file_name, bytes).map(|t| t.slice_count()));
        match r {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => err += 1,
            Err(_) => panic!("{format}: {file_name}: {what}: panicked"),
        }
    }
    assert!(ok + err >= 30 || cases.len() < 30, "{format}: {} cases", cases.len());
    println!("{format} ({file_name}): {} cases, {ok} loaded, {err} typed errors", cases.len());
    (ok, err)
}

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

const CHROME_FIXTURE: &str = r#"{"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"p"}},
{"ph":"X","pid":1,"tid":1,"ts":1.5,"dur":10,"name":"a","args":{"k":1}},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":3,"name":"b"},
{"ph":"B","pid":1,"tid":2,"ts":5,"name":"c"},{"ph":"E","pid":1,"tid":2,"ts":9},
{"ph":"b","pid":1,"id":"0x1","cat":"x","ts":1,"name":"async"},{"ph":"e","pid":1,"id":"0x1","cat":"x","ts":20,"name":"async"},
{"ph":"s","pid":1,"tid":1,"id":7,"ts":3,"name":"f"},{"ph":"f","pid":1,"tid":2,"id":7,"ts":6,"name":"f","bp":"e"},
{"ph":"C","pid":1,"ts":4,"name":"ctr","args":{"v":3}},
{"ph":"i","pid":1,"tid":1,"ts":7,"name":"inst","s":"t"}
]}"#;

/// Hostile numbers in time fields: each used to loop up to 2^31 times or overflow.
fn huge_exponent_cases() -> Vec<(String, Vec<u8>)> {
    let nums = [
        "0e999999999",
        "1e999999999",
        "-0E+2147483647",
        "1.5e-2147483648",
        "0.00e-2147483647",
        "9e-99999999999999999999",
        "1e18",
        "-9223372036854775808",
        "123456789012345678901234567890123456789012",
        "1.0000000000000000000000000000000000000000001",
    ];
    let mut out = Vec::new();
    for n in nums {
        for field in ["ts", "dur"] {
            let t = format!(
                r#"{{"traceEvents":[{{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"ok"}},{{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"x","{field}":{n}}}]}}"#
            );
            out.push((format!("{field} = {n}"), t.into_bytes()));
        }
    }
    // one file holding all of them, many times (a 1 KB file must never take seconds)
    let mut all = String::from(r#"{"traceEvents":["#);
    for k in 0..200 {
        if k > 0 {
            all.push(',');
        }
        all.push_str(&format!(
            r#"{{"ph":"X","pid":1,"tid":1,"ts":{},"dur":{},"name":"x"}}"#,
            nums[k % 6],
            nums[(k + 1) % 6]
        ));
    }
    all.push_str("]}");
    out.push(("200 hostile numbers".into(), all.into_bytes()));
    out
}

#[test]
fn corpus_chrome_json() {
    let mut cases = mutations(CHROME_FIXTURE.as_bytes(), 1);
    cases.extend(huge_exponent_cases());
    let (ok, _) = run_corpus("chrome-json", "trace.json", &cases);
    assert!(ok > 0);
    // the hostile numbers become warnings, the rest of the file loads
    let t = import("n.json", &huge_exponent_cases().last().unwrap().1).expect("loads");
    println!("200 hostile numbers: {} slices, warnings {:?}", t.slice_count(), t.warnings);
    assert!(t.slice_count() > 0 || t.warnings.total() > 0);
    if let Some(b) = sample("chrome-trace-json/catapult_chromeos_system_trace.json") {
        run_corpus("chrome-json", "catapult_chromeos_system_trace.json", &mutations(&b, 2));
    }
}

const NEURON_JSON_FIXTURE: &str = r#"{"model_info":[{"nc_idx":0,"nd_idx":0}],
"instruction":[{"timestamp":10,"duration":5,"id":1,"label":"Tensor","opcode":"MATMUL","trigger":30},
 {"timestamp":12,"duration":5,"id":2,"label":"Vector","opcode":"ADD","predecessors":[{"id":1,"type":"data"}]}],
"dma":[{"timestamp":30,"duration":4,"aggregated":"yes","trigger":10,"subgroup":"q-Q1-E0"},
 {"timestamp":31,"duration":2,"aggregated":"no","subgroup":"q-Q1-E0","dma_engine":"0","dma_queue":1}],
"semaphore_update":[{"timestamp":11,"value":1,"id":"2"},{"timestamp":13,"value":0,"id":"2"}],
"ham":[{"timestamp":20,"duration":3,"k":1,"n":2}],
"pending_dma":[{"timestamp":30,"value":1}],
"active_time":[{"engine":"tensor","start_ts":10,"end_ts":15}],
"summary":[{"nc_idx":0}]}"#;

#[test]
fn corpus_neuron_json() {
    let mut cases = mutations(NEURON_JSON_FIXTURE.as_bytes(), 3);
    // hostile values where the importer reads times and ids
    for v in
        ["1e999999999", "-9223372036854775808", "9223372036854775807", "\"x\"", "null", "[]", "{}", "0.5"]
    {
        let t = NEURON_JSON_FIXTURE.replace("\"timestamp\":10", &format!("\"timestamp\":{v}"));
        cases.push((format!("timestamp {v}"), t.into_bytes()));
        let t = NEURON_JSON_FIXTURE.replace("\"duration\":5", &format!("\"duration\":{v}"));
        cases.push((format!("duration {v}"), t.into_bytes()));
    }
    run_corpus("neuron-profile-json", "profile.json", &cases);
    // many ids: the lookups that were quadratic (small here; the scaling test is above)
    run_corpus("neuron-profile-json", "many.json", &[("5000 ids".into(), neuron_json_many_ids(5000))]);
    if let Some(b) = sample("neuron/profile_128x128x1024.json") {
        run_corpus("neuron-profile-json", "profile_128x128x1024.json", &mutations(&b, 4));
    }
}

#[test]
fn corpus_ntff() {
    let base = ntff_writer::write(&ntff_writer::synthetic_capture(0));
    let mut cases = mutations(&base, 5);
    // lying metadata length and descriptors
    for len in [0u32, 1, 0x7F, 0xFF_FFFF] {
        let mut v = base.clone();
        v[1..4].copy_from_slice(&len.to_le_bytes()[..3]);
        cases.push((format!("metadata length {len:#x}"), v));
    }
    cases.push(("overlapping descriptors".into(), ntff_overlapping_blocks(300)));
    let (ok, _) = run_corpus("ntff", "profile.ntff", &cases);
    assert!(ok > 0);
    if let Some(b) = sample("neuron/profile_128x128x1024.ntff") {
        run_corpus("ntff", "profile_128x128x1024.ntff", &mutations(&b, 6));
    }
}

#[test]
fn corpus_neff() {
    let base = writer::minimal_neff();
    let mut cases = mutations(&base, 7);
    // the tarball uncompressed: flips land in tar headers and JSON members
    let mut plain = writer::minimal();
    plain.gzip = false;
    cases.extend(mutations(&plain.build(), 8));
    // hostile JSON members
    for (path, body) in [
        ("sg00/def.json", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["),
        ("sg00/PE.json", r#"{"dma":[{"desc":{"desc":{"desc":null}}},1,"x",null],"instr":"../../../../PE.bin"}"#),
        ("kelf-0.json", r#"{"graphs":[{"definition":"sg00/def.json"},{"definition":"sg00/def.json"},{"definition":"/etc/passwd"}]}"#),
        ("neff.json", r#"{"nodes":[{"attrs":{"kelf":"kelf-0.json"}},{"attrs":{"kelf":"kelf-0.json"}},{"attrs":"x"}]}"#),
    ] {
        let mut b = writer::minimal();
        b.members.retain(|m| m.0 != path);
        b.member(path, body);
        cases.push((format!("hostile {path}"), b.build()));
    }
    cases.push(("shared engine JSON".into(), neff_shared_engine_json(50, 50_000)));
    cases.push(("many members".into(), neff_many_members(300)));
    let (ok, _) = run_corpus("neff", "graph.neff", &cases);
    assert!(ok > 0);
    if let Some(b) = sample("neuron/matmul_small.neff") {
        run_corpus("neff", "matmul_small.neff", &mutations(&b, 9));
    }
}

#[test]
fn corpus_containers() {
    let json = CHROME_FIXTURE.as_bytes();
    let mut cases = mutations(&gz(json), 10);
    let z = zip(&[zip_member("a.json", json, true), zip_member("b.json", json, false)]);
    cases.extend(mutations(&z, 11));
    // structural lies: member count, central directory offset, local header offset
    let eocd = z.len() - 22;
    for (what, at, val) in [
        ("count 65535", eocd + 10, 0xFFFFu32),
        ("cd offset past end", eocd + 16, u32::MAX),
        ("cd offset 0", eocd + 16, 0),
    ] {
        let mut v = z.clone();
        let bytes = val.to_le_bytes();
        let w = if what.starts_with("count") { 2 } else { 4 };
        v[at..at + w].copy_from_slice(&bytes[..w]);
        cases.push((what.into(), v));
    }
    cases.push(("empty zip".into(), zip(&[])));
    cases.push(("gzip of nothing".into(), gz(b"")));
    cases.push(("gzip in gzip in gzip in gzip in gzip".into(), gz(&gz(&gz(&gz(&gz(json)))))));
    cases.push(("zip of a zip bomb".into(), zip(&[zip_member("z.gz", &gz(&vec![0u8; 4 << 20]), true)])));
    let (ok, _) = run_corpus("containers", "trace.json.gz", &cases);
    assert!(ok > 0);
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

/// A PyTorch profiler trace whose first key is a large `metadata` object (more than the sniff
/// sees) mentioning neuron-profile words: the Neuron JSON sniff says yes, its closer look says
/// "not mine", and the Chrome importer reads it.
fn pytorch_metadata_first() -> Vec<u8> {
    let mut meta = String::from(r#"{"profile_info":{"dma_engine":"x","model_info":"y"},"notes":["#);
    for k in 0..400 {
        if k > 0 {
            meta.push(',');
        }
        meta.push_str(&format!(r#""a fairly long note string number {k}""#));
    }
    meta.push_str("]}");
    format!(
        r#"{{"metadata":{meta},"schemaVersion":1,"traceEvents":[
{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5}},
{{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":12,"dur":2}}]}}"#
    )
    .into_bytes()
}

#[test]
fn importer_selection_falls_through() {
    use loupe_core::import::{candidates, neuron_json::NeuronJson, Importer, Sniff, SNIFF_BYTES};
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
    let e = import("results.json", roc).expect_err("not a trace Loupe reads").to_string();
    assert!(!e.contains("neuron-profile-json"), "{e}");
    assert!(e.contains("rocprofiler-sdk-tool"), "{e}");
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

fn utf16(s: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let units = (if bom { Some(0xFEFFu16) } else { None }).into_iter().chain(s.encode_utf16());
    for u in units {
        out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
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
    assert_eq!(t.warnings.count_of("container_trailing_bytes"), 1, "{:?}", t.warnings);
    // zero padding is normal (block-padded copies): no warning
    let mut padded = gz(json);
    padded.extend_from_slice(&[0; 512]);
    let t = import("t.json.gz", &padded).expect("loads");
    assert_eq!(t.warnings.count_of("container_trailing_bytes"), 0);
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
    assert_eq!(t.warnings.count_of("container_truncated"), 1, "{:?}", t.warnings);
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

use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataWriter};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// A small SemaphoreUpdate table (dictionary-encoded strings, two row groups).
fn semaphore_parquet() -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;
    let schema = Arc::new(
        parse_message_type(
            "message schema { required int64 timestamp; required binary id (UTF8); required int32 value; }",
        )
        .unwrap(),
    );
    let props = Arc::new(WriterProperties::builder().set_max_row_group_row_count(Some(50)).build());
    let mut buf = Vec::new();
    let mut w = SerializedFileWriter::new(&mut buf, schema, props).unwrap();
    for g in 0..2i64 {
        let mut rg = w.next_row_group().unwrap();
        let ts: Vec<i64> = (0..50).map(|k| g * 1000 + k * 10).collect();
        let ids: Vec<ByteArray> = (0..50).map(|k| ByteArray::from(["S[1] (q)", "S[2] (q)"][k % 2])).collect();
        let vals: Vec<i32> = (0..50).map(|k| k % 3).collect();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int64Type>().write_batch(&ts, None, None).unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>().write_batch(&ids, None, None).unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int32Type>().write_batch(&vals, None, None).unwrap();
        c.close().unwrap();
        rg.close().unwrap();
    }
    w.close().unwrap();
    buf
}

/// The file with its footer rewritten from edited metadata.
fn parquet_with_metadata(file: &[u8], edit: impl FnOnce(ParquetMetaData) -> ParquetMetaData) -> Vec<u8> {
    let n = file.len();
    let footer_len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
    let md = SerializedFileReader::new(bytes::Bytes::copy_from_slice(file)).unwrap().metadata().clone();
    let md = edit(md);
    let mut out = file[..n - 8 - footer_len].to_vec();
    let mut footer = Vec::new();
    ParquetMetaDataWriter::new(&mut footer, &md).finish().unwrap();
    out.extend_from_slice(&footer);
    if !out.ends_with(b"PAR1") {
        out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        out.extend_from_slice(b"PAR1");
    }
    out
}

/// Edit one column chunk of row group 0.
fn edit_chunk(
    file: &[u8],
    col: usize,
    f: impl Fn(
        parquet::file::metadata::ColumnChunkMetaDataBuilder,
    ) -> parquet::file::metadata::ColumnChunkMetaDataBuilder,
) -> Vec<u8> {
    parquet_with_metadata(file, |md| {
        let mut b = md.into_builder();
        let mut groups = b.take_row_groups();
        let rg = groups[0].clone();
        let mut cols = rg.columns().to_vec();
        cols[col] = f(cols[col].clone().into_builder()).build().unwrap();
        groups[0] = rg.into_builder().set_column_metadata(cols).build().unwrap();
        b = b.set_row_groups(groups);
        b.build()
    })
}

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
    let md = SerializedFileReader::new(bytes::Bytes::copy_from_slice(&good)).unwrap().metadata().clone();
    let id = md.row_group(0).column(1).clone();
    let (dict, data, size) = (
        id.dictionary_page_offset().expect("id is dictionary-encoded"),
        id.data_page_offset(),
        id.compressed_size(),
    );
    let skip = edit_chunk(&good, 1, |c| {
        c.set_dictionary_page_offset(None)
            .set_data_page_offset(data)
            .set_total_compressed_size(size - (data - dict))
    });
    let e = parquet_err(&skip);
    assert!(e.contains("dictionary-encoded page without a dictionary page"), "{e}");
}

#[test]
fn corpus_parquet() {
    let good = semaphore_parquet();
    let mut cases = mutations(&good, 12);
    for len in [u32::MAX, 0x7FFF_FFFF, 1, 0] {
        let mut b = good.clone();
        let n = b.len();
        b[n - 8..n - 4].copy_from_slice(&len.to_le_bytes());
        cases.push((format!("footer length {len:#x}"), b));
    }
    for off in [-1i64, -4096, i64::MIN, 0, 3, i64::MAX] {
        cases.push((format!("column start {off}"), edit_chunk(&good, 0, |c| c.set_data_page_offset(off))));
        cases.push((
            format!("dictionary start {off}"),
            edit_chunk(&good, 1, |c| c.set_dictionary_page_offset(Some(off))),
        ));
    }
    // (sizes near i64::MAX overflow the crate's own metadata writer used here)
    for size in [-1i64, -4096, 0, 3, 1 << 40] {
        cases.push((
            format!("chunk size {size}"),
            edit_chunk(&good, 2, |c| c.set_total_compressed_size(size)),
        ));
    }
    let (ok, err) = run_corpus("neuron-parquet", "SemaphoreUpdate.parquet", &cases);
    assert!(ok > 0 && err > 0);
    // none of them reaches a panic inside the crate (natively caught, an abort in wasm)
    let caught: Vec<&str> = cases
        .iter()
        .filter(|(_, b)| {
            import("SemaphoreUpdate.parquet", b).is_err_and(|e| e.to_string().contains("decoder failed"))
        })
        .map(|(w, _)| w.as_str())
        .collect();
    assert!(caught.is_empty(), "the crate panicked on: {caught:?}");
}
