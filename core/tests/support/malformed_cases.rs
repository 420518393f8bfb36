//! The in-memory malformed corpus (issue 7 §3, §6), shared by the native test
//! (`core/tests/malformed.rs`) and the browser test (`app/tests/malformed_wasm.rs`), which both
//! include this file with `#[path]`. Everything here is built in memory from small fixtures and
//! fixed seeds, so both builds see byte-identical cases; `outcome` describes each result in one
//! stable line, and `malformed_outcomes.txt` (next to this file) holds the native outcomes that the
//! wasm build must reproduce. Regenerate it with `LOUPE_BLESS=1 cargo test -p loupe-core --test
//! malformed shared_corpus`.
//!
//! Only `loupe_core`, `flate2`, `parquet` and `bytes` may be used here (both crates have them).
//! Keep the cases small: the wasm test runs them unoptimised in one browser tab.

#![allow(dead_code)]

use loupe_core::import::ImportError;
use loupe_core::model::Trace;
use loupe_core::neuron::neff::writer;
use loupe_core::neuron::ntff::writer as ntff_writer;
use std::io::Write;

/// One malformed input: a unique name (`<group>/<what>`), the file name it is imported under,
/// and its bytes.
#[derive(Clone)]
pub struct Case {
    pub name: String,
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// The golden file's text (`name<TAB>outcome` per line, in `cases()` order).
pub const GOLDEN: &str = include_str!("malformed_outcomes.txt");

/// `(name, outcome)` pairs of a golden file.
pub fn parse_golden(text: &str) -> Vec<(&str, &str)> {
    text.lines().filter(|l| !l.is_empty()).filter_map(|l| l.split_once('\t')).collect()
}

/// The golden file's text for these results.
pub fn golden_text(results: &[(String, String)]) -> String {
    results.iter().map(|(n, o)| format!("{n}\t{o}\n")).collect()
}

/// A stable one-line description of an import result: what loaded (format, counts, warning kinds,
/// whether the model passes `Trace::validate`) or which typed error (variant, format, offset).
pub fn outcome(r: &Result<Trace, ImportError>) -> String {
    match r {
        Ok(t) => {
            let mut w: Vec<String> =
                t.warnings.entries.iter().map(|w| format!("{}:{}", w.kind, w.count)).collect();
            w.sort();
            let valid = match t.validate() {
                Ok(()) => String::new(),
                Err(e) => format!(" INVALID {}", clean(&e.to_string())),
            };
            format!(
                "ok {} slices={} instants={} counters={} flows={} warnings=[{}]{valid}",
                t.format,
                t.slice_count(),
                t.instant_count(),
                t.counter_sample_count(),
                t.flows.len(),
                w.join(",")
            )
        }
        // the typed fields, not the message: wording changes need no re-bless
        Err(e) => match e {
            ImportError::NotMine(f) => format!("err NotMine {f}"),
            ImportError::UnknownFormat(_) => "err UnknownFormat".into(),
            ImportError::Malformed { format, offset, .. } => format!("err Malformed {format} at {offset}"),
            ImportError::Invalid { format, .. } => format!("err Invalid {format}"),
            ImportError::Unsupported { format, .. } => format!("err Unsupported {format}"),
            ImportError::SchemaVersion { format, found, .. } => format!("err SchemaVersion {format} {found}"),
            ImportError::Empty => "err Empty".into(),
            ImportError::Container(_) => "err Container".into(),
            ImportError::Cancelled => "err Cancelled".into(),
            ImportError::TooLarge { limit, .. } => format!("err TooLarge {limit}"),
            ImportError::OverBudget { what, limit, .. } => format!("err OverBudget {what} / {limit}"),
        },
    }
}

/// One line, no control characters, at most 160 characters.
fn clean(s: &str) -> String {
    let s: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match s.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Every in-memory case, in a fixed order, with unique names.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    out.extend(chrome_json_cases());
    out.extend(neuron_json_cases());
    out.extend(ntff_cases());
    out.extend(neff_cases());
    out.extend(container_cases());
    out.extend(parquet_cases());
    out.extend(dlprof_csv_cases());
    out.extend(budget_cases());
    out.extend(rocprof_cases());
    let mut seen = std::collections::HashSet::new();
    for c in &mut out {
        let base = c.name.clone();
        let mut k = 2;
        while !seen.insert(c.name.clone()) {
            c.name = format!("{base} ({k})");
            k += 1;
        }
    }
    out
}

fn case(group: &str, what: &str, file_name: &str, bytes: Vec<u8>) -> Case {
    let what = what.replace(['\t', '\n'], " ");
    Case { name: format!("{group}/{what}"), file_name: file_name.into(), bytes }
}

/// `mutations(base, seed)` as cases of `group`, imported as `file_name`.
pub fn mutation_cases(group: &str, file_name: &str, base: &[u8], seed: u64) -> Vec<Case> {
    mutations(base, seed).into_iter().map(|(w, b)| case(group, &w, file_name, b)).collect()
}

// ---------------------------------------------------------------- mutations

/// Deterministic xorshift.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The malformed variants of one well-formed file: truncations, byte flips, lying 32-bit
/// lengths at random offsets and in the first 64 bytes, zeroed and duplicated spans. 44 cases.
pub fn mutations(base: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
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

// ---------------------------------------------------------------- Chrome JSON

pub const CHROME_FIXTURE: &str = r#"{"traceEvents":[
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
pub fn huge_exponent_cases() -> Vec<(String, Vec<u8>)> {
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

pub fn utf16(s: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let units = (if bom { Some(0xFEFFu16) } else { None }).into_iter().chain(s.encode_utf16());
    for u in units {
        out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
}

/// A PyTorch profiler trace whose first key is a large `metadata` object (more than the sniff
/// sees) mentioning neuron-profile words: the Neuron JSON sniff says yes, its closer look says
/// "not mine", and the Chrome importer reads it.
pub fn pytorch_metadata_first() -> Vec<u8> {
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

fn chrome_json_cases() -> Vec<Case> {
    let g = "chrome-json";
    let mut out = mutation_cases(g, "trace.json", CHROME_FIXTURE.as_bytes(), 1);
    for (w, b) in huge_exponent_cases() {
        out.push(case(g, &w, "trace.json", b));
    }
    for be in [false, true] {
        for bom in [false, true] {
            let what =
                format!("UTF-16 {} {}", if be { "BE" } else { "LE" }, if bom { "BOM" } else { "no BOM" });
            out.push(case(g, &what, "trace.json", utf16(CHROME_FIXTURE, be, bom)));
        }
    }
    for a in [
        "[[-1, 1, 37888, 7], [-1, 1, 512, 7]]",
        "[[1, 2], [3, 4]]",
        "[[\"a\", \"b\", \"c\", \"d\"]]",
        "[[1.5, 1, 2, 3]]",
        "[[1,2,3,4,5]]",
        "[[]]",
        "[1, 2]",
    ] {
        out.push(case(g, &format!("array {a}"), "m.json", a.as_bytes().to_vec()));
    }
    let py = pytorch_metadata_first();
    out.push(case(g, "pytorch metadata first", "trace.json", py.clone()));
    out.push(case(g, "pytorch metadata first, cut", "trace.json", py[..py.len() - 60].to_vec()));
    out.push(case(g, "not a profile", "notes.txt", b"hello, world: not a profile\n".to_vec()));
    out.push(case(g, "control characters in the name", "a\u{1b}[31mred\u{7}.bin", b"\x01\x02\x03".to_vec()));
    out.push(case(g, "empty", "trace.json", Vec::new()));
    out.push(case(g, "bad real offset", "t.json", br#"{"instruction":[{"timestamp":1,,]}"#.to_vec()));
    // many events that all overlap: lanes up to the limit (small here; the scaling test is native)
    let mut s = String::from(r#"{"traceEvents":["#);
    for k in 0..3000 {
        if k > 0 {
            s.push(',');
        }
        s.push_str(&format!(r#"{{"ph":"b","pid":1,"id":{k},"cat":"c","ts":5,"name":"a"}},{{"ph":"e","pid":1,"id":{k},"cat":"c","ts":15,"name":"a"}},{{"ph":"X","pid":1,"tid":1,"ts":5,"dur":10,"name":"same"}}"#));
    }
    s.push_str("]}");
    out.push(case(g, "3000 identical overlapping events", "same.json", s.into_bytes()));
    out
}

// ---------------------------------------------------------------- neuron-profile JSON

pub const NEURON_JSON_FIXTURE: &str = r#"{"model_info":[{"nc_idx":0,"nd_idx":0}],
"instruction":[{"timestamp":10,"duration":5,"id":1,"label":"Tensor","opcode":"MATMUL","trigger":30},
 {"timestamp":12,"duration":5,"id":2,"label":"Vector","opcode":"ADD","predecessors":[{"id":1,"type":"data"}]}],
"dma":[{"timestamp":30,"duration":4,"aggregated":"yes","trigger":10,"subgroup":"q-Q1-E0"},
 {"timestamp":31,"duration":2,"aggregated":"no","subgroup":"q-Q1-E0","dma_engine":"0","dma_queue":1}],
"semaphore_update":[{"timestamp":11,"value":1,"id":"2"},{"timestamp":13,"value":0,"id":"2"}],
"ham":[{"timestamp":20,"duration":3,"k":1,"n":2}],
"pending_dma":[{"timestamp":30,"value":1}],
"active_time":[{"engine":"tensor","start_ts":10,"end_ts":15}],
"summary":[{"nc_idx":0}]}"#;

/// A neuron-profile JSON export with `n` records in each of the tables whose lookups were quadratic.
pub fn neuron_json_many_ids(n: usize) -> Vec<u8> {
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

fn neuron_json_cases() -> Vec<Case> {
    let g = "neuron-json";
    let mut out = mutation_cases(g, "profile.json", NEURON_JSON_FIXTURE.as_bytes(), 3);
    // hostile values where the importer reads times and ids
    for v in
        ["1e999999999", "-9223372036854775808", "9223372036854775807", "\"x\"", "null", "[]", "{}", "0.5"]
    {
        let t = NEURON_JSON_FIXTURE.replace("\"timestamp\":10", &format!("\"timestamp\":{v}"));
        out.push(case(g, &format!("timestamp {v}"), "profile.json", t.into_bytes()));
        let t = NEURON_JSON_FIXTURE.replace("\"duration\":5", &format!("\"duration\":{v}"));
        out.push(case(g, &format!("duration {v}"), "profile.json", t.into_bytes()));
    }
    for v in ["\"S[99999999999999999999]\"", "-1", "\"\"", "null"] {
        let t = NEURON_JSON_FIXTURE.replace("\"id\":\"2\"", &format!("\"id\":{v}"));
        out.push(case(g, &format!("semaphore id {v}"), "profile.json", t.into_bytes()));
    }
    out.push(case(g, "1000 ids", "many.json", neuron_json_many_ids(1000)));
    let roc = br#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":7,"init_time":1,"model_info":"gfx90a","dma_engine":1},
        "agents":[{"id":{"handle":1},"type":2}],"buffer_records":{"kernel_dispatch":[{"start_timestamp":1,"end_timestamp":9}]}}]}"#;
    out.push(case(g, "rocprof JSON", "results.json", roc.to_vec()));
    out
}

// ---------------------------------------------------------------- NTFF

/// A synthetic capture of `record_mb` MB plus `extra` descriptors that each claim the whole
/// record area (and some beyond the file): every byte used to be decoded once per descriptor,
/// with output vectors sized from the sum of the claims.
pub fn ntff_overlapping_blocks(record_mb: u64, extra: usize) -> Vec<u8> {
    let mut c = ntff_writer::synthetic_capture(record_mb);
    for k in 0..extra as u64 {
        let ty = [0u64, 1, 4, 5][k as usize % 4];
        c.extra_blocks.push((ty, (k % 3) * 16, u64::MAX / 2));
    }
    ntff_writer::write(&c)
}

fn ntff_cases() -> Vec<Case> {
    let g = "ntff";
    let base = ntff_writer::write(&ntff_writer::synthetic_capture(0));
    let mut out = mutation_cases(g, "profile.ntff", &base, 5);
    // lying metadata length and descriptors
    for len in [0u32, 1, 0x7F, 0xFF_FFFF, 0x7F_FFFF] {
        let mut v = base.clone();
        v[1..4].copy_from_slice(&len.to_le_bytes()[..3]);
        out.push(case(g, &format!("metadata length {len:#x}"), "profile.ntff", v));
    }
    out.push(case(g, "300 overlapping descriptors", "profile.ntff", ntff_overlapping_blocks(0, 300)));
    for v in [0u8, 1, 4, 6, 63, 64, 255] {
        let mut b = base.clone();
        b[0] = v;
        out.push(case(g, &format!("version {v}"), "profile.ntff", b));
    }
    out.push(case(g, "header only", "p.ntff", base[..base.len().min(0x90)].to_vec()));
    // cut inside the record area (the mutations' random cuts land in the large metadata): before
    // any record, after a few, halfway, one record and one byte short of the end
    let area = 0x80 + u32::from_le_bytes([base[1], base[2], base[3], 0]) as usize;
    let n = base.len();
    for cut in [area, area + 48, area + (n - area) / 2, n - 16, n - 1] {
        out.push(case(g, &format!("records cut at {cut}"), "profile.ntff", base[..cut.min(n)].to_vec()));
    }
    out
}

// ---------------------------------------------------------------- NEFF

/// A NEFF with `n` subgraphs (def.json, engine JSON and binary each) and a graph naming `n`
/// missing kelf files: every name resolution used to scan every member.
pub fn neff_many_members(n: usize) -> Vec<u8> {
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

/// `n` subgraphs whose def.json all name one large engine JSON: each used to receive a clone of
/// the parsed tree (gigabytes from a small file); now each parse spends one shared budget.
pub fn neff_shared_engine_json(n: usize, engine_json_bytes: usize) -> Vec<u8> {
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

fn neff_cases() -> Vec<Case> {
    let g = "neff";
    let base = writer::minimal_neff();
    let mut out = mutation_cases(g, "graph.neff", &base, 7);
    // the tarball uncompressed: flips land in tar headers and JSON members
    let mut plain = writer::minimal();
    plain.gzip = false;
    let tarred = plain.build();
    out.extend(mutation_cases("neff-tar", "graph.neff", &tarred, 8));
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
        out.push(case(g, &format!("hostile {path}"), "graph.neff", b.build()));
    }
    out.push(case(g, "shared engine JSON", "graph.neff", neff_shared_engine_json(50, 50_000)));
    out.push(case(g, "many members", "graph.neff", neff_many_members(100)));
    // one bad header field, gzip and tar
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
            out.push(case(g, &format!("header {what} ({kind})"), "graph.neff", b));
        }
    }
    out.push(case(g, "cut at 1100", "g.neff", base[..base.len().min(1100)].to_vec()));
    out
}

// ---------------------------------------------------------------- containers

pub fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zip member: name, stored bytes, method (0 stored, 8 deflated), declared uncompressed size.
pub struct ZipMember {
    pub name: String,
    pub data: Vec<u8>,
    pub method: u16,
    pub declared: u32,
}

pub fn zip_member(name: &str, content: &[u8], deflated: bool) -> ZipMember {
    let (data, method) = if deflated { (deflate(content), 8) } else { (content.to_vec(), 0) };
    ZipMember { name: name.into(), data, method, declared: content.len() as u32 }
}

/// A minimal zip writer (no CRCs: the reader does not check them).
pub fn zip(members: &[ZipMember]) -> Vec<u8> {
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
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_off.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

fn container_cases() -> Vec<Case> {
    let g = "containers";
    let json = CHROME_FIXTURE.as_bytes();
    let mut out = mutation_cases("gzip", "trace.json.gz", &gz(json), 10);
    let z = zip(&[zip_member("a.json", json, true), zip_member("b.json", json, false)]);
    out.extend(mutation_cases("zip", "trace.zip", &z, 11));
    // structural lies: member count, central directory offset, local header offset
    let eocd = z.len() - 22;
    for (what, at, val) in [
        ("count 65535", eocd + 10, 0xFFFFu32),
        ("cd offset past end", eocd + 16, u32::MAX),
        ("cd offset 0", eocd + 16, 0),
        ("cd size 0xFFFFFFFF", eocd + 12, u32::MAX),
    ] {
        let mut v = z.clone();
        let bytes = val.to_le_bytes();
        let w = if what.starts_with("count") { 2 } else { 4 };
        v[at..at + w].copy_from_slice(&bytes[..w]);
        out.push(case(g, what, "trace.zip", v));
    }
    // 32-bit values at the central directory entry's offsets (usize is 32 bits in wasm)
    let cd = u32::from_le_bytes(z[eocd + 16..eocd + 20].try_into().unwrap()) as usize;
    for (what, at) in [("local header offset", 42), ("compressed size", 20), ("uncompressed size", 24)] {
        for val in [u32::MAX, 0xFFFF_FFF0] {
            let mut v = z.clone();
            v[cd + at..cd + at + 4].copy_from_slice(&val.to_le_bytes());
            out.push(case(g, &format!("{what} {val:#x}"), "trace.zip", v));
        }
    }
    for (what, at) in [("name length", 28), ("extra length", 30), ("comment length", 32)] {
        let mut v = z.clone();
        v[cd + at..cd + at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        out.push(case(g, &format!("{what} 0xffff"), "trace.zip", v));
    }
    out.push(case(g, "empty zip", "empty.zip", zip(&[])));
    out.push(case(g, "zip of a directory", "dirs.zip", zip(&[zip_member("d/", b"", false)])));
    out.push(case(g, "gzip of nothing", "trace.json.gz", gz(b"")));
    let mut deep = json.to_vec();
    for _ in 0..4 {
        deep = gz(&deep);
    }
    out.push(case(g, "gzip nested 4 levels", "deep.json.gz", deep.clone()));
    out.push(case(g, "gzip nested 5 levels", "deeper.json.gz", gz(&deep)));
    let nested =
        zip(&[zip_member("a.zip", &zip(&[zip_member("b.json.gz", &gz(&gz(&gz(json))), true)]), false)]);
    out.push(case(g, "zip nested in zip with gzips", "z.zip", nested));
    // small bombs: 4 MiB of zeros, whole and cut in half
    let bomb = gz(&vec![0u8; 4 << 20]);
    out.push(case(g, "gzip bomb of zeros", "bomb.json.gz", bomb.clone()));
    out.push(case(g, "truncated gzip bomb", "bomb.json.gz", bomb[..bomb.len() / 2].to_vec()));
    out.push(case(g, "zip of a zip bomb", "z.zip", zip(&[zip_member("z.gz", &bomb, true)])));
    out.push(case(g, "gzip cut in its header", "t.json.gz", gz(json)[..12].to_vec()));
    // trailing bytes, zero padding, two members, a truncated stream with data
    let mut trailing = gz(json);
    trailing.extend_from_slice(b"\x00garbage after the stream");
    out.push(case(g, "gzip with trailing garbage", "t.json.gz", trailing));
    let mut padded = gz(json);
    padded.extend_from_slice(&[0; 512]);
    out.push(case(g, "gzip with zero padding", "t.json.gz", padded));
    let two =
        [gz(b"[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}"), gz(b"]")].concat();
    out.push(case(g, "gzip of two members", "t.json.gz", two));
    let big: String = (0..2000)
        .map(|k| format!(r#"{{"ph":"X","name":"e{k}","pid":1,"tid":1,"ts":{k},"dur":1}},"#))
        .collect();
    let zz = gz(format!("[{big}").as_bytes());
    out.push(case(g, "gzip cut in its data", "t.json.gz", zz[..zz.len() / 2].to_vec()));
    // declared sizes: 0xFFFFFFFF allocates nothing up front, 0x7FFFFFFF is over the budget
    for declared in [u32::MAX, 0x7FFF_FFFF, 0x5FFF_FFFF, 0] {
        let mut m = zip_member("liar.json", b"[]", true);
        m.declared = declared;
        out.push(case(g, &format!("zip member declared {declared:#x}"), "liar.zip", zip(&[m])));
    }
    // UTF-16 inside gzip
    out.push(case(g, "gzip of UTF-16", "trace.json.gz", gz(&utf16(CHROME_FIXTURE, false, true))));
    out.push(case(g, "gzip of pytorch metadata first", "trace.json.gz", gz(&pytorch_metadata_first())));
    out
}

// ---------------------------------------------------------------- Parquet

use parquet::file::metadata::{ColumnChunkMetaDataBuilder, ParquetMetaData, ParquetMetaDataWriter};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// A small SemaphoreUpdate table (dictionary-encoded strings, two row groups).
pub fn semaphore_parquet() -> Vec<u8> {
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

/// The parsed footer of a well-formed file.
pub fn parquet_metadata(file: &[u8]) -> ParquetMetaData {
    SerializedFileReader::new(bytes::Bytes::copy_from_slice(file)).unwrap().metadata().clone()
}

/// The file with its footer rewritten from edited metadata.
pub fn parquet_with_metadata(file: &[u8], edit: impl FnOnce(ParquetMetaData) -> ParquetMetaData) -> Vec<u8> {
    let n = file.len();
    let footer_len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
    let md = edit(parquet_metadata(file));
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
pub fn edit_chunk(
    file: &[u8],
    col: usize,
    f: impl Fn(ColumnChunkMetaDataBuilder) -> ColumnChunkMetaDataBuilder,
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

/// The id column's data page moved past a dictionary page the metadata no longer names: the
/// crate's dictionary decoder used to panic ("Decoder for dict should have been set").
pub fn parquet_skipped_dictionary(good: &[u8]) -> Vec<u8> {
    let id = parquet_metadata(good).row_group(0).column(1).clone();
    let (dict, data, size) = (
        id.dictionary_page_offset().expect("id is dictionary-encoded"),
        id.data_page_offset(),
        id.compressed_size(),
    );
    edit_chunk(good, 1, |c| {
        c.set_dictionary_page_offset(None)
            .set_data_page_offset(data)
            .set_total_compressed_size(size - (data - dict))
    })
}

fn parquet_cases() -> Vec<Case> {
    let g = "parquet";
    let f = "SemaphoreUpdate.parquet";
    let good = semaphore_parquet();
    let mut out = vec![case(g, "clean", f, good.clone())];
    out.extend(mutation_cases(g, f, &good, 12));
    for len in [u32::MAX, 0x8000_0000, 0x7FFF_FFFF, good.len() as u32 - 11, 1, 0] {
        let mut b = good.clone();
        let n = b.len();
        b[n - 8..n - 4].copy_from_slice(&len.to_le_bytes());
        out.push(case(g, &format!("footer length {len:#x}"), f, b));
    }
    let n = good.len();
    let mut b = good.clone();
    b[n - 4..].copy_from_slice(b"PARE");
    out.push(case(g, "encrypted footer magic", f, b));
    out.push(case(g, "no magic at the end", f, good[..n - 3].to_vec()));
    out.push(case(g, "only magic", f, b"PAR1PAR1".to_vec()));
    out.push(case(g, "not really parquet", "Instruction.parquet", b"PAR1 not really parquet PAR1".to_vec()));
    out.push(case(g, "footer rewritten unchanged", f, edit_chunk(&good, 0, |c| c)));
    for off in [-1i64, -5, -4096, i64::MIN, 0, 3, i64::MAX] {
        out.push(case(
            g,
            &format!("column start {off}"),
            f,
            edit_chunk(&good, 0, |c| c.set_data_page_offset(off)),
        ));
        out.push(case(
            g,
            &format!("column start {off}, no dictionary"),
            f,
            edit_chunk(&good, 0, |c| c.set_data_page_offset(off).set_dictionary_page_offset(None)),
        ));
        out.push(case(
            g,
            &format!("dictionary start {off}"),
            f,
            edit_chunk(&good, 1, |c| c.set_dictionary_page_offset(Some(off))),
        ));
    }
    // (sizes near i64::MAX overflow the crate's own metadata writer used here)
    for size in [-1i64, -4096, 0, 3, 1 << 40] {
        out.push(case(
            g,
            &format!("chunk size {size}"),
            f,
            edit_chunk(&good, 2, |c| c.set_total_compressed_size(size)),
        ));
    }
    out.push(case(g, "dictionary page skipped", f, parquet_skipped_dictionary(&good)));
    out
}

// ---------------------------------------------------------------- DLProf report CSVs

/// A DLProf `--reports` detailed CSV: a title, a header, a quoted multi-line stack trace.
pub const DLPROF_CSV_FIXTURE: &str = "All Iterations\nOp ID,Op Name,Direction,Op Type,No. Calls,Total GPU Time (ns),Stack Trace\n\"CONV2D_1\",\"/module/conv2d\",fprop,\"conv2d\",1,130846,\"a.py:42\nb.py:7\"\n\"LINEAR_1\",\"/module/linear\",fprop,\"linear\",3,17728,\"c.py:1\"\n";

fn dlprof_csv_cases() -> Vec<Case> {
    let g = "dlprof-csv";
    let base = DLPROF_CSV_FIXTURE.as_bytes();
    let mut out = mutation_cases(g, "dlprof_detailed.csv", base, 0xD1_9F0F);
    let open_quote = DLPROF_CSV_FIXTURE.replace("\"c.py:1\"", "\"c.py:1");
    out.push(case(g, "unterminated quote", "d.csv", open_quote.into_bytes()));
    out.push(case(g, "title only", "d.csv", b"Kernel Report\n".to_vec()));
    out.push(case(g, "title and a foreign header", "d.csv", b"Tensor Core Report\na,b\n1,2\n".to_vec()));
    out.push(case(g, "summary title only", "s.csv", b"System Config\n".to_vec()));
    out.push(case(g, "invalid utf-8 cells", "d.csv", [&base[..80], b"\xff\xfe\xc3", &base[80..]].concat()));
    let mut wide = String::from("Kernel Report\nKernel Name,Total GPU Time (ns)\n");
    for i in 0..2000 {
        wide.push_str(&format!("k{i},{}\n", ",".repeat(i % 50)));
    }
    out.push(case(g, "2000 ragged rows", "k.csv", wide.into_bytes()));
    out
}

// ---------------------------------------------------------------- rocprof (issue 37 §2)

/// A small rocprofv3 JSON (the layout in `import::rocprof`'s module doc).
pub const ROCPROF_FIXTURE: &str = r#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":7},
"agents":[{"id":{"handle":1},"type":2,"node_id":1,"product_name":"MI300X"},{"id":{"handle":2},"type":1,"node_id":0}],
"kernel_symbols":[{"kernel_id":0,"formatted_kernel_name":"k0"},{"kernel_id":1,"kernel_name":"k1"}],
"strings":{"buffer_records":[{"kind":"NONE","operations":[]},{"kind":"HIP","operations":["hipNone","hipLaunchKernel"]},
{"kind":"COPY","operations":["NONE","MEMORY_COPY_HOST_TO_DEVICE"]}]},
"buffer_records":{"hip_api":[{"kind":1,"operation":1,"correlation_id":{"internal":1},"start_timestamp":10,"end_timestamp":20,"thread_id":7},
{"kind":1,"operation":1,"correlation_id":{"internal":2},"start_timestamp":30,"end_timestamp":40,"thread_id":8}],
"kernel_dispatch":[{"correlation_id":{"internal":1},"start_timestamp":25,"end_timestamp":90,
"dispatch_info":{"agent_id":{"handle":1},"queue_id":{"handle":3},"kernel_id":1,"dispatch_id":1,"grid_size":{"x":64,"y":1,"z":1}}}],
"memory_copy":[{"kind":2,"operation":1,"correlation_id":{"internal":2},"start_timestamp":45,"end_timestamp":60,
"src_agent_id":{"handle":2},"dst_agent_id":{"handle":1},"bytes":4096}],"scratch_memory":[{}]}}]}"#;

/// rocprofv3 JSON is streamed into typed records (no JSON tree): what a tree reader tolerated
/// (wrong types, repeated keys: the last wins) must still load the same, what it refused (a
/// number out of range or nesting too deep, even in a field nobody reads; trailing bytes) must
/// still be refused, and records without times are counted in runs, not held.
fn rocprof_cases() -> Vec<Case> {
    let g = "rocprof";
    let f = ROCPROF_FIXTURE;
    let mut out = Vec::new();
    let at_records =
        |insert: &str| f.replacen("\"buffer_records\":{", &format!("\"buffer_records\":{{{insert}"), 1);
    out.push(case(g, "fixture", "results.json", f.as_bytes().to_vec()));
    let no_times = "\"marker_api\":[0,{},{\"start_timestamp\":\"1\",\"end_timestamp\":2},{\"start_timestamp\":1.5,\"end_timestamp\":2},{\"start_timestamp\":1,\"end_timestamp\":2},0,0],";
    out.push(case(g, "records without times", "results.json", at_records(no_times).into_bytes()));
    let repeated = "\"kernel_dispatch\":[{\"start_timestamp\":1,\"end_timestamp\":2},{\"start_timestamp\":3,\"end_timestamp\":4}],";
    out.push(case(g, "a repeated key: the last wins", "results.json", at_records(repeated).into_bytes()));
    let tool_twice =
        f.replacen("{\"rocprofiler-sdk-tool\":", "{\"rocprofiler-sdk-tool\":[],\"rocprofiler-sdk-tool\":", 1);
    out.push(case(g, "the root key twice", "results.json", tool_twice.into_bytes()));
    let types = f
        .replace("{\"handle\":1}", "{\"handle\":\"1\"}")
        .replace("\"dispatch_info\":{", "\"dispatch_info\":[{")
        .replace("\"grid_size\":{\"x\":64,\"y\":1,\"z\":1}}}", "\"grid_size\":{\"x\":64,\"y\":1,\"z\":1}}]}")
        .replace("\"strings\":{\"buffer_records\":[", "\"strings\":{\"buffer_records\":{\"a\":[")
        .replace("\"MEMORY_COPY_HOST_TO_DEVICE\"]}]}", "\"MEMORY_COPY_HOST_TO_DEVICE\"]}]}}");
    out.push(case(g, "fields of the wrong type", "results.json", types.into_bytes()));
    out.push(case(
        g,
        "negative and huge integers",
        "results.json",
        f.replace("\"start_timestamp\":10", "\"start_timestamp\":-5")
            .replace("\"end_timestamp\":90", "\"end_timestamp\":18446744073709551615")
            .replace("\"kernel_id\":1,", "\"kernel_id\":-1,")
            .into_bytes(),
    ));
    out.push(case(
        g,
        "a number out of range in an unread field",
        "results.json",
        at_records("\"x\":[{\"y\":1e400}],").into_bytes(),
    ));
    let deep = format!("\"x\":{}0{},", "[".repeat(200), "]".repeat(200));
    out.push(case(g, "nesting too deep in an unread field", "results.json", at_records(&deep).into_bytes()));
    out.push(case(
        g,
        "a bad escape in an unread string",
        "results.json",
        at_records("\"x\":[\"\\ud800x\\q\"],").into_bytes(),
    ));
    out.push(case(g, "trailing bytes", "results.json", format!("{f} x").into_bytes()));
    out.push(case(
        g,
        "not an object or array at the root key",
        "results.json",
        b"{\"rocprofiler-sdk-tool\": \"x\"}".to_vec(),
    ));
    out.extend(mutation_cases("rocprof/mutated", "results.json", f.as_bytes(), 0x7_0c));
    out
}

// ---------------------------------------------------------------- memory budget (issue 37 §2)

/// Inputs that cross a limit of the import's memory budget while staying small (the byte
/// budget itself needs inputs of hundreds of megabytes: `core/tests/memory_budget.rs`).
fn budget_cases() -> Vec<Case> {
    let g = "budget";
    let mut out = Vec::new();
    // a Perfetto track event with 65,537 flow ids (packed `flow_ids_old`, one byte each)
    let flow_event = |n: usize| {
        let mut ev = vec![0x48, 3]; // type = TYPE_INSTANT
        ev.extend([0xA2, 0x02]); // field 36, length-delimited
        pb_varint(n as u64, &mut ev);
        ev.extend(std::iter::repeat_n(0u8, n));
        let mut p = vec![0x40, 1]; // timestamp = 1
        p.push(0x5A); // track_event = 11
        pb_varint(ev.len() as u64, &mut p);
        p.extend(ev);
        let mut rec = vec![0x0A];
        pb_varint(p.len() as u64, &mut rec);
        rec.extend(p);
        rec
    };
    out.push(case(g, "perfetto 65,537 flow ids on one event", "f.pftrace", flow_event(65_537)));
    out.push(case(g, "perfetto 65,536 flow ids on one event", "f.pftrace", flow_event(65_536)));
    // a .loupe header declaring a 900 MB model over 300 KB: refused on the header, not inflated
    let mut loupe = loupe_core::loupe_file::frame_uncompressed(&[]);
    loupe[12] = 1;
    loupe[16..24].copy_from_slice(&900_000_000u64.to_le_bytes());
    let mut r = Rng(0x37);
    loupe.extend((0..300_000).map(|_| r.next() as u8));
    out.push(case(g, "loupe declaring a 900 MB model", "m.loupe", loupe));
    out
}

fn pb_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
