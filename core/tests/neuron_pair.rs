//! NEFF + NTFF dropped together: paired by UUID, every instruction event correlated to its NEFF
//! slot and through the debug-info chain to the framework operator and source line. Built from
//! in-memory fixtures (the samples hold no matching pair).

use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::neuron::neff::writer as neff_writer;
use loupe_core::neuron::ntff::writer as ntff_writer;

/// `ntff_writer::minimal_pair_capture(1)` (NOTIFY preamble, then the NEFF's slots 1..3 once) under
/// another UUID.
fn capture(uuid_hex: &str) -> Vec<u8> {
    let mut c = ntff_writer::minimal_pair_capture(1);
    let mut uuid: Vec<u8> =
        (0..16).map(|i| u8::from_str_radix(&uuid_hex[2 * i..2 * i + 2], 16).unwrap()).collect();
    uuid.extend([0x7f, 0x7f, 0x7f]);
    c.uuid = uuid;
    ntff_writer::write(&c)
}

fn load(files: &[(&str, &[u8])]) -> loupe_core::Trace {
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&inputs, &mut NoProgress).expect("imports")
}

#[test]
fn pair_correlates_to_framework_and_source() {
    let neff = neff_writer::minimal_neff();
    let ntff = capture("0123456789abcdef0123456789abcdef");
    // order of the files must not matter
    for t in [load(&[("a.neff", &neff), ("a.ntff", &ntff)]), load(&[("a.ntff", &ntff), ("a.neff", &neff)])] {
        assert_eq!(t.format, "ntff+neff");
        let r = t.correlation.as_ref().expect("report");
        assert_eq!(r.events, 3, "{r:?}");
        let level = |n: &str| r.levels.iter().find(|(l, _)| l == n).unwrap().1;
        assert_eq!(level("compiler_pc"), 3);
        assert_eq!(level("neff_slot"), 3);
        assert_eq!(level("bir"), 2);
        assert_eq!(level("hlo"), 2);
        assert_eq!(level("framework"), 2);
        assert_eq!(level("source_line"), 2);
        assert!(r.unmatched.iter().any(|(why, n)| why.contains("BIR") && *n == 1), "{r:?}");
        assert!(r.notes.iter().all(|n| !n.contains("mismatch")), "{r:?}");
        // the MATMUL slice carries operator, HLO and source line, and is categorised by operator
        let tensor = t.tracks.iter().find(|tr| t.str(tr.name) == "TensorMatrix").expect("TensorMatrix track");
        assert_eq!(tensor.slices.len(), 1);
        assert_eq!(t.str(tensor.slices.name[0]), "MATMUL");
        assert_eq!(t.str(tensor.slices.category[0]), "hlo__dot_op0");
        let args: std::collections::HashMap<_, _> =
            t.args_display(tensor.slices.args[0]).into_iter().collect();
        assert_eq!(args["framework_name"], "hlo__dot_op0");
        assert_eq!(args["source"], "model.py:58");
        assert_eq!(args["compiler_pc"], "2");
        assert!(args["hlo_name"].contains("op0"), "{args:?}");
        // the same facts as typed columns: engine role, opcode, operator path, slot, source
        t.validate().expect("valid model");
        use loupe_core::model::{Engine, OpLevel, TrackRole};
        assert_eq!(tensor.role, TrackRole::Engine(Engine::TensorMatrix));
        let d = tensor.slices.domain_of(0);
        assert_eq!(t.str(d.opcode), "MATMUL");
        assert_eq!(d.instruction, 2);
        let path: Vec<(OpLevel, &str)> = t
            .operators
            .path(d.operator)
            .into_iter()
            .rev()
            .map(|id| {
                let n = t.operators.node(id).unwrap();
                (n.level, t.str(n.name))
            })
            .collect();
        assert_eq!(path.first(), Some(&(OpLevel::Framework, "hlo__dot_op0")), "{path:?}");
        assert!(path.iter().any(|(l, n)| *l == OpLevel::Hlo && n.contains("op0")), "{path:?}");
        let src = t.sources[d.source.idx()];
        assert_eq!((t.str(src.file), src.line), ("model.py", 58));
        // the program view is attached too
        assert_eq!(t.program.as_ref().unwrap().kind, loupe_core::model::ProgramKind::Neff);
    }
}

#[test]
fn uuid_mismatch_and_ntff_alone_are_reported() {
    let neff = neff_writer::minimal_neff();
    let other = capture("ffffffffffffffffffffffffffffffff");
    let t = load(&[("a.neff", &neff), ("b.ntff", &other)]);
    let r = t.correlation.as_ref().unwrap();
    assert!(r.notes.iter().any(|n| n.contains("UUID mismatch")), "{r:?}");

    let alone = load(&[("b.ntff", &other)]);
    assert_eq!(alone.format, "ntff");
    let r = alone.correlation.as_ref().unwrap();
    assert!(r.unmatched.iter().any(|(why, n)| why == "no NEFF loaded" && *n == 3), "{r:?}");
    // opcode names come from the instruction words even without the NEFF
    let names: Vec<&str> =
        alone.tracks.iter().flat_map(|tr| tr.slices.name.iter().map(|n| alone.str(*n))).collect();
    assert!(names.contains(&"MATMUL") && names.contains(&"LDWEIGHTS"), "{names:?}");
}

#[test]
fn neff_alone_is_a_program_view() {
    let t = load(&[("m.neff", &neff_writer::minimal_neff())]);
    assert_eq!(t.format, "neff");
    assert_eq!(t.slice_count(), 0);
    let p = t.program.as_ref().unwrap();
    assert_eq!(p.subgraphs[0].name, "sg00");
    assert!(p.subgraphs[0].engines.contains(&(loupe_core::model::Engine::Tensor, 4)));
    assert!(p.hierarchy.iter().any(|n| n.level == loupe_core::model::ProgramLevel::Framework
        && n.name == "hlo__dot_op0"
        && n.instructions == 2));
    // the tree goes down to BIR and to each instruction; counts add up level by level
    let h = &p.hierarchy;
    let leaves: Vec<_> =
        h.iter().filter(|n| n.level == loupe_core::model::ProgramLevel::Instruction).collect();
    assert!(!leaves.is_empty(), "{h:?}");
    for leaf in &leaves {
        assert_eq!(leaf.instructions, 1);
        let parent = &h[leaf.parent.expect("an instruction has a parent") as usize];
        assert_ne!(parent.level, loupe_core::model::ProgramLevel::Instruction);
    }
    for (i, n) in h.iter().enumerate() {
        let kids: u64 = h.iter().filter(|c| c.parent == Some(i as u32)).map(|c| c.instructions).sum();
        assert!(kids <= n.instructions, "{n:?}: children hold {kids}");
    }
    if h.iter().any(|n| n.level == loupe_core::model::ProgramLevel::Bir) {
        assert!(leaves
            .iter()
            .all(|l| h[l.parent.unwrap() as usize].level == loupe_core::model::ProgramLevel::Bir));
    }
    let s = loupe_core::query::summary(&t);
    assert_eq!(s.neff.unwrap().uuid, "0123456789abcdef0123456789abcdef");
}

/// A capture whose import would not fit the given memory is refused up front with a message
/// that says so; the NEFF beside it is not counted, and one that fits passes.
#[test]
fn an_ntff_too_big_for_memory_is_refused_before_import() {
    use loupe_core::import::{check_peak, neuron::binary as neuron_binary, ImportError};
    let neff = neff_writer::minimal_neff();
    let ntff = capture("0123456789abcdef0123456789abcdef");
    let files = [InputFile { name: "a.neff", bytes: &neff }, InputFile { name: "a.ntff", bytes: &ntff }];
    let need = neuron_binary::estimate_peak_bytes(ntff.len() as u64);
    assert!(need > ntff.len() as u64);
    assert!(check_peak(&files, need).is_ok());
    match check_peak(&files, need - 1) {
        Err(e @ ImportError::TooLarge { .. }) => {
            let m = e.to_string();
            assert!(m.contains("NTFF") && m.contains("memory"), "{m}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // the NEFF alone is not an NTFF
    assert!(check_peak(&files[..1], 1).is_ok());
}
