//! Several files dropped together: each group records the file it came from (and says so in its
//! name only when more than one file produced groups); an NTFF dropped with its own
//! neuron-profile JSON export is one profile; a NEFF whose UUID does not match the NTFF is a
//! trace warning. In-memory fixtures, plus every NTFF + export pair of the shared samples when
//! present.

use loupe_core::import::{import_files, InputFile, NoProgress, GROUP_FILE_SEPARATOR};
use loupe_core::model::WarningKind;
use loupe_core::neuron::neff::writer as neff_writer;
use loupe_core::neuron::ntff::writer::{self as ntff_writer, Capture, InstrEvent, Program};
use loupe_core::Trace;
use std::path::Path;

const NS: i64 = 1000;
const UUID: &str = "0123456789abcdef0123456789abcdef";
const OWN_EXPORT: loupe_core::model::WarningKind = loupe_core::model::WarningKind::NeuronJsonExportOfNtff;

fn load(files: &[(&str, &[u8])]) -> Trace {
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&inputs, &mut NoProgress).expect("imports")
}

/// An NTFF of NEFF `uuid_hex` with four instructions and the given execution time.
fn capture(uuid_hex: &str, execution_time_ps: u64) -> Vec<u8> {
    let mut c = Capture::default();
    let mut uuid: Vec<u8> =
        (0..16).map(|i| u8::from_str_radix(&uuid_hex[2 * i..2 * i + 2], 16).unwrap()).collect();
    uuid.extend([0x7f, 0x7f, 0x7f]);
    c.uuid = uuid;
    c.execution_time_ps = execution_time_ps;
    c.programs.push(Program::new(0, &[0xA4, 0xA4, 0, 0x01, 0x02, 0xA0]));
    let t0 = 10_000 * NS;
    let i = |pc, s: i64, e: i64| InstrEvent {
        engine: 0,
        pc,
        start_ps: s,
        end_ps: e,
        wait_cycles: 0,
        crc_in: 0,
        crc_out: 0,
        flags: 0,
    };
    c.instructions = vec![
        i(2, t0, t0 + 500 * NS),
        i(3, t0 + 1_000 * NS, t0 + 2_000 * NS),
        i(4, t0 + 2_000 * NS, t0 + 5_000 * NS),
        i(5, t0 + 5_000 * NS, t0 + 6_000 * NS),
    ];
    ntff_writer::write(&c)
}

/// A neuron-profile JSON export claiming NEFF `uuid_hex` and `total_time_s`, with two
/// instruction rows (its own timeline).
fn export(uuid_hex: &str, total_time_s: &str) -> Vec<u8> {
    format!(
        r#"{{"summary":[{{"nc_idx":0,"total_time":{total_time_s},"instance_type":"inf2.xlarge","event_count":4}}],
"neff_header":[{{"uuid":"{uuid_hex}","network_name":"/tmp/synthetic/graph.neff","hash":"2fb4e39f0bba1892b598a57a54a0e715","enabled_features":"dge"}}],
"profile_info":[{{"neff_name":"/tmp/synthetic/graph.neff","ntff_filename":"/elsewhere/capture.ntff"}}],
"metadata":[{{"ntff_version":5,"num_physical_cores":1,"ticks_per_nanosec":1000}}],
"model_info":[{{"sg_name":"sg00","nc_idx":0,"nd_idx":0,"event_count":4}}],
"instruction":[
 {{"timestamp":10000,"duration":500,"label":"TensorMatrix","opcode":"MATMUL","subgroup":"PE"}},
 {{"timestamp":11000,"duration":1000,"label":"TensorMatrix","opcode":"MATMUL","subgroup":"PE"}}]}}"#
    )
    .into_bytes()
}

fn group_names(t: &Trace) -> Vec<String> {
    t.groups.iter().map(|g| t.str(g.name).to_string()).collect()
}

fn group_files(t: &Trace) -> Vec<Option<String>> {
    t.groups.iter().map(|g| g.source_file.map(|f| t.str(f).to_string())).collect()
}

#[test]
fn two_files_groups_carry_their_file() {
    let a = capture(UUID, 7_000_000_000);
    let b = capture("ffffffffffffffffffffffffffffffff", 8_000_000_000);
    let one = load(&[("a.ntff", &a)]);
    assert_eq!(group_files(&one), vec![Some("a.ntff".to_string())]);
    // one file: the name is what it always was
    assert!(group_names(&one).iter().all(|n| !n.contains("a.ntff")), "{:?}", group_names(&one));

    let two = load(&[("dir/a.ntff", &a), ("b.ntff", &b)]);
    assert_eq!(two.groups.len(), 2);
    assert_eq!(group_files(&two), vec![Some("dir/a.ntff".to_string()), Some("b.ntff".to_string())]);
    let names = group_names(&two);
    // several captures are the ranks of a job: each device group says its rank
    assert_eq!(
        names[0],
        format!("rank 0{GROUP_FILE_SEPARATOR}{}{GROUP_FILE_SEPARATOR}a.ntff", group_names(&one)[0]),
        "{names:?}"
    );
    assert!(names[1].starts_with(&format!("rank 1{GROUP_FILE_SEPARATOR}")), "{names:?}");
    assert!(names[1].ends_with(&format!("{GROUP_FILE_SEPARATOR}b.ntff")), "{names:?}");
    assert_eq!(two.slice_count(), 2 * one.slice_count());
    // shown in rank order, whatever the order they were given in
    let rev = load(&[("job_rank_1.ntff", &b), ("job_rank_0.ntff", &a)]);
    let shown: Vec<&str> =
        rev.ordered_groups().into_iter().map(|g| rev.str(rev.groups[g.idx()].name)).collect();
    assert!(shown[0].starts_with("rank 0") && shown[0].ends_with("job_rank_0.ntff"), "{shown:?}");
    assert!(shown[1].starts_with("rank 1") && shown[1].ends_with("job_rank_1.ntff"), "{shown:?}");

    // formats mixed: a Chrome trace and an NTFF
    let chrome = br#"{"traceEvents":[{"name":"step","ph":"X","ts":1,"dur":2,"pid":7,"tid":1}]}"#;
    let mixed = load(&[("host.json", chrome), ("a.ntff", &a)]);
    let files = group_files(&mixed);
    assert!(files.iter().all(|f| f.is_some()), "{files:?}");
    for (g, f) in mixed.groups.iter().zip(&files) {
        let f = f.as_deref().unwrap();
        assert!(mixed.str(g.name).ends_with(f), "{} / {f}", mixed.str(g.name));
    }
    assert!(files.iter().any(|f| f.as_deref() == Some("host.json")));

    // a NEFF + its NTFF: one file produced groups, names unchanged
    let neff = neff_writer::minimal_neff();
    let pair = load(&[("m.neff", &neff), ("a.ntff", &a)]);
    assert_eq!(group_files(&pair), vec![Some("a.ntff".to_string())]);
    assert_eq!(group_names(&pair), group_names(&one));

    // the field survives the worker → page encoding
    let cfg = bincode::config::standard();
    let bytes = bincode::encode_to_vec(&two, cfg).unwrap();
    let (back, _): (Trace, usize) = bincode::decode_from_slice(&bytes, cfg).unwrap();
    assert_eq!(group_files(&back), group_files(&two));
}

#[test]
fn ntff_with_its_own_export_is_one_profile() {
    let ntff = capture(UUID, 1_867_629_615);
    let alone = load(&[("x.ntff", &ntff)]);
    let own = export(UUID, "0.001867629615");
    for files in
        [[("x.ntff", &ntff[..]), ("x.json", &own[..])], [("x.json", &own[..]), ("x.ntff", &ntff[..])]]
    {
        let t = load(&files);
        assert_eq!(t.slice_count(), alone.slice_count(), "the export's timeline is not imported again");
        assert_eq!(group_names(&t), group_names(&alone));
        assert_eq!(group_files(&t), vec![Some("x.ntff".to_string())]);
        assert_eq!(t.warnings.count_of(OWN_EXPORT), 1, "{:?}", t.warnings);
        let md = |k: &str| t.metadata.entries.iter().find(|(m, _)| m == k).map(|(_, v)| v.as_str());
        // what the NTFF lacks comes from the export; the summary stays the NTFF's
        assert_eq!(md("neff_header.hash"), Some("2fb4e39f0bba1892b598a57a54a0e715"));
        assert_eq!(md("summary.total_time"), None);
        assert!(md("neuron.summary").is_some());
        assert_eq!(t.format, "ntff");
    }

    // another capture of the same NEFF (other execution time) and another NEFF: both loaded
    for other in [export(UUID, "0.002"), export("ffffffffffffffffffffffffffffffff", "0.001867629615")] {
        let t = load(&[("x.ntff", &ntff), ("y.json", &other)]);
        assert_eq!(t.warnings.count_of(OWN_EXPORT), 0);
        assert_eq!(t.slice_count(), alone.slice_count() + 2);
        assert_eq!(t.groups.len(), 2);
    }
    // two captures, one export: only its own NTFF absorbs it
    let ntff2 = capture(UUID, 2_000_000_000);
    let t = load(&[("x.ntff", &ntff), ("z.ntff", &ntff2), ("x.json", &own)]);
    assert_eq!(t.warnings.count_of(OWN_EXPORT), 1);
    assert_eq!(t.slice_count(), 2 * alone.slice_count());
}

#[test]
fn neff_uuid_mismatch_is_a_trace_warning() {
    let neff = neff_writer::minimal_neff();
    let other = capture("ffffffffffffffffffffffffffffffff", 0);
    let t = load(&[("a.neff", &neff), ("b.ntff", &other)]);
    assert_eq!(t.warnings.count_of(WarningKind::NeffUuidMismatch), 1, "{:?}", t.warnings);
    let w = t.warnings.entries.iter().find(|w| w.kind == WarningKind::NeffUuidMismatch).unwrap();
    assert!(w.example.contains("b.ntff") && w.example.contains("UUID mismatch"), "{}", w.example);
    // the correlation report keeps its note
    assert!(t.correlation.as_ref().unwrap().notes.iter().any(|n| n.contains("UUID mismatch")));

    let matching = load(&[("a.neff", &neff), ("a.ntff", &capture(UUID, 0))]);
    assert_eq!(matching.warnings.count_of(WarningKind::NeffUuidMismatch), 0, "{:?}", matching.warnings);
}

#[test]
fn shared_samples_ntff_with_its_export_is_one_profile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples/neuron/ntff-v5");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut stems: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".ntff").map(str::to_string))
        .filter(|s| dir.join(format!("{s}.json")).exists())
        .collect();
    stems.sort();
    if stems.is_empty() {
        eprintln!("skipped: no NTFF + JSON pair in {}", dir.display());
        return;
    }
    let read = |p: String| std::fs::read(dir.join(p)).unwrap();
    let started = std::time::Instant::now();
    for (k, s) in stems.iter().enumerate() {
        let (ntff, json) = (read(format!("{s}.ntff")), read(format!("{s}.json")));
        let (nn, jn) = (format!("{s}.ntff"), format!("{s}.json"));
        let alone = load(&[(&nn, &ntff)]);
        let both = load(&[(&nn, &ntff), (&jn, &json)]);
        assert_eq!(both.warnings.count_of(OWN_EXPORT), 1, "{s}: {:?}", both.warnings);
        // the NTFF's events once (the export's attribution adds the derived operator timeline)
        let recorded = |t: &Trace| -> usize {
            t.tracks.iter().filter(|tr| !tr.role.is_derived()).map(|tr| tr.slices.len()).sum()
        };
        assert_eq!(recorded(&both), recorded(&alone), "{s}");
        assert_eq!(both.groups.len(), alone.groups.len(), "{s}");
        assert_eq!(group_names(&both), group_names(&alone), "{s}");
        // the next pair's export is another capture: both profiles load
        let other = &stems[(k + 1) % stems.len()];
        if other != s {
            let oj = read(format!("{other}.json"));
            let on = format!("{other}.json");
            let mixed = load(&[(&nn, &ntff), (&on, &oj)]);
            assert_eq!(mixed.warnings.count_of(OWN_EXPORT), 0, "{s} + {other}.json");
            assert!(mixed.slice_count() > alone.slice_count(), "{s} + {other}.json");
        }
    }
    eprintln!("{} NTFF + export pairs recognised as one profile in {:?}", stems.len(), started.elapsed());
}
