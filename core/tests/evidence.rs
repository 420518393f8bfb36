//! Keep the evidence, say how sure it is (issue 39 §3):
//! - an NTFF dropped with its own neuron-profile JSON export is one profile whose instructions
//!   carry the export's attribution (operators, FLOPs, program slot, source) and dependencies, on
//!   the NTFF's timeline; checked row by row against the export imported alone on every shared
//!   capture/export pair, and on a written fixture;
//! - attribution from a NEFF whose UUID differs from the NTFF's is flagged (a typed
//!   [`Attribution::NeffMismatch`] on the device), whatever the NEFF resolves;
//! - an NTFF cut short says so ("the NTFF ends at byte N: the capture is incomplete"), as a typed
//!   error when nothing of it can be read, else as a typed flag and a warning, and the device
//!   summary is withheld for it.
//!
//! The shared samples are required: these tests fail when `../shared/samples/neuron` is absent.

use loupe_core::analysis::evidence::device_summary_withheld;
use loupe_core::import::{import_files, ImportError, InputFile, NoProgress};
use loupe_core::model::WarningKind;
use loupe_core::model::{Attribution, GroupKind, OpId, SourceId, TrackRole};
use loupe_core::neuron::neff::writer as neff_writer;
use loupe_core::neuron::ntff::{self, writer as ntff_writer};
use loupe_core::Trace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn load(files: &[(&str, &[u8])]) -> Result<Trace, ImportError> {
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&inputs, &mut NoProgress)
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples/neuron")
}

/// Every NTFF of `ntff-v5/` with the JSON export of the same stem (required: the test fails
/// without them).
fn sample_pairs() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let dir = samples().join("ntff-v5");
    let rd = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (shared samples required)", dir.display()));
    let mut stems: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".ntff").map(str::to_string))
        .filter(|s| dir.join(format!("{s}.json")).exists())
        .collect();
    stems.sort();
    assert!(stems.len() >= 90, "expected the 92 shared NTFF + export pairs, found {}", stems.len());
    stems
        .into_iter()
        .map(|s| {
            let n = std::fs::read(dir.join(format!("{s}.ntff"))).unwrap();
            let j = std::fs::read(dir.join(format!("{s}.json"))).unwrap();
            (s, n, j)
        })
        .collect()
}

/// What an instruction slice is attributed with: the operator path (level, name) outermost
/// first, FLOPs, transpose, program slot and source.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Attr {
    ops: Vec<(String, String)>,
    flops: u64,
    transpose: bool,
    slot: u32,
    source: Option<(String, u32)>,
}

fn ops(t: &Trace, op: OpId) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = t
        .operators
        .path(op)
        .into_iter()
        .filter_map(|id| t.operators.node(id))
        .map(|n| (n.level.name().to_string(), t.str(n.name).to_string()))
        .collect();
    v.reverse();
    v
}

fn source(t: &Trace, s: SourceId) -> Option<(String, u32)> {
    let loc = t.sources.get(s.get()?.idx())?;
    Some((t.str(loc.file).to_string(), loc.line))
}

/// Per engine-track instruction: (track name, start ns, duration ns, pc) → its attribution
/// (a list: executions with the same key, in track order).
fn instructions(t: &Trace) -> HashMap<(String, i64, i64, String), Vec<Attr>> {
    let mut out: HashMap<_, Vec<Attr>> = HashMap::new();
    for tr in &t.tracks {
        if !matches!(tr.role, TrackRole::Engine(_)) {
            continue;
        }
        let c = &tr.slices;
        for i in 0..c.len() {
            let pc = t
                .args_display(c.args[i])
                .into_iter()
                .find(|(k, _)| k == "pc")
                .map(|(_, v)| v)
                .unwrap_or_default();
            let d = c.domain_of(i);
            let a = Attr {
                ops: ops(t, d.operator),
                flops: d.flops,
                transpose: d.transpose,
                slot: d.instruction,
                source: source(t, d.source),
            };
            out.entry((t.str(tr.name).to_string(), c.start_ns[i], c.dur_ns.at(i), pc)).or_default().push(a);
        }
    }
    out
}

/// Slices of the file's own tracks (not the operator timeline derived from the attribution).
fn events(t: &Trace) -> usize {
    t.tracks.iter().filter(|tr| !tr.role.is_derived()).map(|tr| tr.slices.len()).sum()
}

fn dependency_flows(t: &Trace) -> usize {
    t.flows.iter().filter(|f| t.str(f.category) == "dependency").count()
}

fn device_attribution(t: &Trace) -> Vec<Attribution> {
    t.groups
        .iter()
        .filter(|g| g.kind == GroupKind::Device)
        .filter_map(|g| g.device.as_ref())
        .map(|d| d.attribution)
        .collect()
}

fn metadata<'a>(t: &'a Trace, k: &str) -> Option<&'a str> {
    t.metadata.entries.iter().find(|(m, _)| m == k).map(|(_, v)| v.as_str())
}

/// Every instruction row of NTFF + export carries exactly the export-alone attribution, the
/// dependencies are all there, FLOPs add up the same, and the join rate is 100 % both ways.
#[test]
fn shared_pairs_ntff_with_export_have_the_exports_attribution() {
    let (mut rows, mut attributed, mut flows) = (0usize, 0usize, 0usize);
    for (s, ntff, json) in sample_pairs() {
        let (nn, jn) = (format!("{s}.ntff"), format!("{s}.json"));
        let alone = load(&[(&jn, &json)]).unwrap();
        let ntff_only = load(&[(&nn, &ntff)]).unwrap();
        let both = load(&[(&nn, &ntff), (&jn, &json)]).unwrap();
        both.validate().unwrap();
        assert_eq!(events(&both), events(&ntff_only), "{s}: the NTFF's timeline, once");
        assert!(both.slice_count() > events(&both), "{s}: the operator timeline is derived");
        let (a, b) = (instructions(&alone), instructions(&both));
        let n_alone: usize = a.values().map(Vec::len).sum();
        let n_both: usize = b.values().map(Vec::len).sum();
        assert_eq!(n_both, n_alone, "{s}: instruction rows");
        for (k, v) in &a {
            let mut got = b.get(k).cloned().unwrap_or_default();
            let mut want = v.clone();
            got.sort_by(|x, y| format!("{x:?}").cmp(&format!("{y:?}")));
            want.sort_by(|x, y| format!("{x:?}").cmp(&format!("{y:?}")));
            assert_eq!(got, want, "{s}: instruction {k:?}");
            attributed += want.iter().filter(|x| !x.ops.is_empty()).count();
        }
        rows += n_both;
        let f = |t: &Trace| -> u64 {
            instructions(t).values().flatten().filter(|x| x.flops != u64::MAX).map(|x| x.flops).sum()
        };
        assert_eq!(f(&both), f(&alone), "{s}: FLOPs");
        assert!(f(&both) > 0, "{s}: the matmuls state FLOPs");
        assert_eq!(dependency_flows(&both), dependency_flows(&alone), "{s}: predecessors");
        assert!(dependency_flows(&both) > 0, "{s}: predecessors present");
        flows += dependency_flows(&both);
        assert_eq!(device_attribution(&both), vec![Attribution::Export], "{s}");
        let join = metadata(&both, "neuron.export_join").unwrap_or_default();
        assert!(join.matches("(100.00 %)").count() == 2, "{s}: {join}");
        assert_eq!(
            both.warnings.count_of(WarningKind::NeuronExportJoinIncomplete),
            0,
            "{s}: {:?}",
            both.warnings
        );
        // the FLOPs reach the device summary (hardware_flops, MFU): the export's own numbers
        let ds = loupe_core::analysis::device_summary::device_summary(&both).unwrap();
        let hw = ds.rows().iter().find(|m| m.key == "hardware_flops").map(|m| m.value.clone());
        let want = serde_json::from_slice::<serde_json::Value>(&json).unwrap()["summary"][0]
            ["hardware_flops"]
            .as_u64();
        if let (Some(loupe_core::analysis::device_summary::Value::Count(h)), Some(w)) = (&hw, want) {
            assert_eq!(*h, w, "{s}: hardware_flops");
        } else {
            panic!("{s}: hardware_flops {hw:?} vs the export's {want:?}");
        }
    }
    eprintln!("{rows} instruction rows joined, {attributed} with an operator, {flows} dependency flows");
}

/// The written pair (NEFF + NTFF of the same UUID) with an export made from the NTFF's own rows:
/// the export's attribution wins over the NEFF's on the rows it joins, the rest keep the NEFF's.
#[test]
fn fixture_export_joins_by_engine_pc_start_and_duration() {
    let mut c = ntff_writer::minimal_pair_capture(2);
    c.execution_time_ps = 21_000_000;
    let bytes = ntff_writer::write(&c);
    let decoded = ntff::parse(&bytes).unwrap();
    // an export of every row but the last, each an operator of its own, the second depending on
    // the first
    let n = decoded.instructions.len();
    assert!(n >= 4, "{n}");
    let rows: Vec<String> = decoded.instructions[..n - 1]
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let pred = if k == 1 { r#","predecessors":[{"id":100,"type":"data"}]"# } else { "" };
            format!(
                r#"{{"timestamp":{},"duration":{},"label":"{}","subgroup":"{}","opcode":"{}","pc":{},"id":{},"layer":"op{k}","hlo_name":"%h{k}","elements":{}{pred}}}"#,
                i.start_ns(),
                i.dur_ns(),
                i.label(),
                i.subgroup(),
                i.opcode(),
                i.pc,
                100 + k,
                10 * (k + 1)
            )
        })
        .collect();
    let uuid = decoded.metadata.uuid_hex();
    let export = format!(
        r#"{{"summary":[{{"total_time":0.000021,"instance_type":"inf2.xlarge"}}],"neff_header":[{{"uuid":"{uuid}"}}],"metadata":[{{"ntff_version":5}}],"instruction":[{}]}}"#,
        rows.join(",")
    );
    let neff = neff_writer::minimal_neff();
    let with_neff = load(&[("m.neff", &neff), ("p.ntff", &bytes)]).unwrap();
    let t = load(&[("m.neff", &neff), ("p.ntff", &bytes), ("p.json", export.as_bytes())]).unwrap();
    t.validate().unwrap();
    assert_eq!(t.warnings.count_of(WarningKind::NeuronJsonExportOfNtff), 1, "{:?}", t.warnings);
    assert_eq!(events(&t), events(&with_neff), "{:?}", t.warnings);
    let got = instructions(&t);
    for (k, i) in decoded.instructions.iter().enumerate() {
        let track = if i.label() == "TensorMatrix" { "TensorMatrix" } else { i.subgroup() };
        let key = (
            loupe_core::model::Engine::from_timeline_label(track).unwrap().name().to_string(),
            i.start_ns(),
            i.dur_ns(),
            i.pc.to_string(),
        );
        let a = &got[&key][0];
        if k < n - 1 {
            assert_eq!(
                a.ops,
                vec![("layer".to_string(), format!("op{k}")), ("hlo".to_string(), format!("%h{k}"))],
                "row {k}"
            );
            assert_eq!(a.flops, 20 * (k as u64 + 1), "row {k}");
        } else {
            // not in the export: the NEFF's attribution (or none), never another row's
            assert!(a.ops.iter().all(|(_, n)| !n.starts_with("op")), "{a:?}");
        }
    }
    assert_eq!(dependency_flows(&t), 1);
    // one NTFF row is not in the export: the join rate says so
    assert_eq!(t.warnings.count_of(WarningKind::NeuronExportJoinIncomplete), 1, "{:?}", t.warnings);
    let w = t.warnings.entries.iter().find(|w| w.kind == WarningKind::NeuronExportJoinIncomplete).unwrap();
    assert!(w.example.contains(&format!("{} of {n} NTFF instruction rows", n - 1)), "{}", w.example);
    assert!(matches!(device_attribution(&t)[..], [Attribution::Export] | [Attribution::Neff]));
}

/// A NEFF whose UUID differs from the NTFF's: whatever it resolves is flagged unverified on the
/// device (typed), the correlation still shows it, and every argument the NEFF's attribution
/// writes is one the widgets mark.
#[test]
fn neff_mismatch_flags_the_attribution_unverified() {
    // the written pair with another UUID in the capture
    let mut c = ntff_writer::minimal_pair_capture(2);
    c.uuid = (0..16).map(|i| 0xf0 | (i as u8 & 0x0f)).chain([0x7f, 0x7f, 0x7f]).collect();
    let other = ntff_writer::write(&c);
    let neff = neff_writer::minimal_neff();
    let t = load(&[("a.neff", &neff), ("b.ntff", &other)]).unwrap();
    assert_eq!(device_attribution(&t), vec![Attribution::NeffMismatch]);
    assert!(t.unverified_attribution());
    let resolved = instructions(&t).into_values().flatten().filter(|a| !a.ops.is_empty()).count();
    assert!(resolved > 0, "the other NEFF still resolves operators (shown, but marked)");
    let alone_keys: std::collections::HashSet<String> = {
        let a = load(&[("b.ntff", &other)]).unwrap();
        a.tracks
            .iter()
            .flat_map(|tr| (0..tr.slices.len()).map(move |i| tr.slices.args[i]))
            .flat_map(|id| a.args_display(id))
            .map(|(k, _)| k)
            .collect()
    };
    for tr in &t.tracks {
        for i in 0..tr.slices.len() {
            for (k, _) in t.args_display(tr.slices.args[i]) {
                assert!(
                    alone_keys.contains(&k) || Attribution::ARGS.contains(&k.as_str()),
                    "argument '{k}' comes from the NEFF but is not marked unverified"
                );
            }
        }
    }
    // the matching NEFF: verified
    let same =
        load(&[("a.neff", &neff), ("a.ntff", &ntff_writer::write(&ntff_writer::minimal_pair_capture(2)))])
            .unwrap();
    assert_eq!(device_attribution(&same), vec![Attribution::Neff]);
    assert!(!same.unverified_attribution());

    // a real NEFF of another program with a real capture
    let real = std::fs::read(samples().join("matmul_small.neff")).expect("shared sample matmul_small.neff");
    let ntff = std::fs::read(samples().join("profile_128x128x1024.ntff")).expect("shared sample NTFF");
    let t = load(&[("matmul_small.neff", &real), ("p.ntff", &ntff)]).unwrap();
    assert_eq!(t.warnings.count_of(WarningKind::NeffUuidMismatch), 1, "{:?}", t.warnings);
    let resolved = instructions(&t).into_values().flatten().filter(|a| !a.ops.is_empty()).count();
    let expect = if resolved > 0 { Attribution::NeffMismatch } else { Attribution::Unstated };
    assert_eq!(
        device_attribution(&t),
        vec![expect],
        "{resolved} instructions resolved through the other NEFF"
    );
    eprintln!(
        "matmul_small.neff + profile_128x128x1024.ntff: {resolved} instructions attributed, flag {expect:?}"
    );
    // with the capture's own export too: the export's attribution wins on every row
    let json = std::fs::read(samples().join("profile_128x128x1024.json")).unwrap();
    let t = load(&[("matmul_small.neff", &real), ("p.ntff", &ntff), ("p.json", &json)]).unwrap();
    assert_eq!(device_attribution(&t), vec![Attribution::Export], "{:?}", t.warnings);
}

/// Cuts of a real capture: the typed error or the typed flag says where the file ends and that
/// the capture is incomplete; the device summary is withheld; no block jargon.
#[test]
fn truncated_ntff_says_so_and_withholds_the_device_summary() {
    let path = samples().join("profile_128x128x1024.ntff");
    let full =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (shared samples required)", path.display()));
    let whole = load(&[("p.ntff", &full)]).unwrap();
    assert!(whole.incomplete_capture().is_none());
    assert!(device_summary_withheld(&whole).is_none());
    let meta_len = u32::from_le_bytes([full[1], full[2], full[3], 0]) as usize;
    let area = 0x80 + meta_len;
    let n = full.len();
    let cuts = [
        0x81,
        0x80 + meta_len / 2,
        area,
        area + 16,
        area + (n - area) / 3,
        area + (n - area) / 2,
        n - 16,
        n - 1,
    ];
    let (mut errors, mut partial) = (0, 0);
    for cut in cuts {
        let bytes = &full[..cut];
        match load(&[("p.ntff", bytes)]) {
            Err(ImportError::Malformed { format, offset, message }) => {
                errors += 1;
                assert_eq!((format, offset), ("NTFF", cut as u64), "cut {cut}: {message}");
                assert!(message.contains(&format!("the NTFF ends at byte {cut}")), "cut {cut}: {message}");
                assert!(message.contains("the capture is incomplete"), "cut {cut}: {message}");
            }
            Ok(t) => {
                partial += 1;
                t.validate().unwrap();
                let (_, inc) = t.incomplete_capture().unwrap_or_else(|| panic!("cut {cut}: not flagged"));
                assert_eq!(inc.file_bytes, cut as u64);
                assert!(inc.expected_bytes > cut as u64);
                let w = t.warnings.entries.iter().find(|w| w.kind == WarningKind::NtffTruncated);
                let w = w.unwrap_or_else(|| panic!("cut {cut}: {:?}", t.warnings));
                assert!(
                    w.example.contains(&format!("the NTFF ends at byte {cut}: the capture is incomplete")),
                    "{}",
                    w.example
                );
                assert_eq!(t.warnings.count_of(WarningKind::NtffBlockOutOfRange), 0, "said once, plainly");
                let why =
                    device_summary_withheld(&t).unwrap_or_else(|| panic!("cut {cut}: summary not withheld"));
                assert!(why.contains("incomplete") && why.contains(&format!("byte {cut}")), "{why}");
            }
            Err(e) => panic!("cut {cut}: {e:?}"),
        }
    }
    assert!(errors >= 2 && partial >= 2, "cuts inside the metadata fail, cuts in the records load in part");
}
