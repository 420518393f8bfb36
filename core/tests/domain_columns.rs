//! Typed domain columns and model invariants on real samples: every sample the importers read
//! builds a model that passes `Trace::validate`; Neuron device profiles carry engine roles,
//! opcodes, operators and DMA bytes as typed columns; Kineto traces carry CPU thread and GPU
//! stream roles. Samples are read from ../shared/samples (required: the test fails when they are absent).

use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::model::{CounterRole, Engine, TrackRole};
use loupe_core::rows::{PlanRow, Section};
use std::path::{Path, PathBuf};

fn samples(dir: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples").join(dir);
    let Ok(rd) = std::fs::read_dir(&d) else {
        panic!("{} not found (the shared samples beside the repository are required)", d.display());
    };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    v.sort();
    v
}

fn load(p: &Path) -> Option<loupe_core::Trace> {
    let bytes = std::fs::read(p).ok()?;
    let name = p.file_name()?.to_string_lossy().to_string();
    import_files(&[InputFile { name: &name, bytes: &bytes }], &mut NoProgress).ok()
}

#[test]
fn every_sample_builds_a_valid_model() {
    let mut n = 0;
    for dir in ["chrome-trace-json", "pytorch-kineto", "furiosa", "neuron"] {
        for p in samples(dir) {
            if p.extension().is_some_and(|e| e == "md") {
                continue;
            }
            if let Some(t) = load(&p) {
                t.validate().unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                n += 1;
            }
        }
    }
    eprintln!("{n} samples validated");
}

#[test]
fn ntff_has_typed_engines_opcodes_and_dma_bytes() {
    let files: Vec<PathBuf> = samples("neuron/ntff-v5")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ntff"))
        .collect();
    let Some(p) = files.first() else { return };
    let t = load(p).expect("ntff loads");
    t.validate().unwrap();
    let engines: Vec<Engine> = t.tracks.iter().filter_map(|tr| tr.role.engine()).collect();
    assert!(engines.contains(&Engine::Tensor) && engines.contains(&Engine::Sync), "{engines:?}");
    let mut instrs = 0usize;
    let mut with_opcode = 0usize;
    let mut dma_bytes = 0u64;
    for tr in &t.tracks {
        for i in 0..tr.slices.len() {
            let d = tr.slices.domain_of(i);
            match tr.role {
                TrackRole::Engine(_) => {
                    instrs += 1;
                    with_opcode += usize::from(!t.str(d.opcode).is_empty());
                    assert_eq!(d.opcode, tr.slices.name[i], "opcode column = the slice's opcode name");
                }
                TrackRole::DmaQueue => {
                    assert_ne!(d.bytes, u64::MAX, "every DMA packet has typed bytes");
                    dma_bytes += d.bytes;
                }
                _ => {}
            }
        }
    }
    assert!(instrs > 0 && with_opcode == instrs, "{with_opcode}/{instrs}");
    assert!(dma_bytes > 0);
    // counters carry typed roles: the device view groups and folds them by role, not by name
    let roles: Vec<CounterRole> = t.counters.iter().map(|c| c.role).collect();
    assert!(roles.contains(&CounterRole::EngineActivity), "{roles:?}");
    assert!(roles.iter().all(|&r| r != CounterRole::Generic), "every NTFF counter has a role: {roles:?}");
    let sems = roles.iter().filter(|&&r| r == CounterRole::Semaphore).count();
    // the row plan puts the engines first, then the activity counters, and folds all-zero ones
    let zero = loupe_core::rows::zero_counters(&t);
    let plan = loupe_core::rows::plan_rows(&t, &zero, &Default::default());
    let sections: Vec<Section> = plan
        .rows
        .iter()
        .filter_map(|r| match r {
            PlanRow::Section { section, .. } => Some(*section),
            _ => None,
        })
        .collect();
    assert_eq!(sections.first(), Some(&Section::Engines), "{sections:?}");
    assert_eq!(sections.get(1), Some(&Section::Activity), "{sections:?}");
    let zero_sems =
        t.counters.iter().zip(&zero).filter(|(c, &z)| z && c.role == CounterRole::Semaphore).count();
    assert_eq!(plan.zero_folded, zero.iter().filter(|&&z| z).count());
    eprintln!("{}: {sems} semaphores, {zero_sems} all zero (folded)", p.display());
}

#[test]
fn neuron_json_export_has_the_same_typed_columns() {
    let files: Vec<PathBuf> =
        samples("neuron").into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    let Some(p) = files.first() else { return };
    let t = load(p).expect("export loads");
    t.validate().unwrap();
    let engine_slices: usize =
        t.tracks.iter().filter(|tr| tr.role.engine().is_some()).map(|tr| tr.slices.len()).sum();
    assert!(engine_slices > 0);
    let dma: Vec<_> = t.tracks.iter().filter(|tr| tr.role == TrackRole::DmaQueue).collect();
    assert!(!dma.is_empty());
    assert!(dma.iter().all(|tr| (0..tr.slices.len()).all(|i| tr.slices.domain_of(i).bytes != u64::MAX)));
}

#[test]
fn kineto_tracks_have_cpu_and_gpu_roles() {
    let files = samples("pytorch-kineto");
    let Some(p) = files.iter().find(|p| p.to_string_lossy().contains("cupti_profiler")) else { return };
    let t = load(p).expect("kineto loads");
    t.validate().unwrap();
    assert!(t.tracks.iter().any(|tr| tr.role == TrackRole::CpuThread));
    assert!(t.tracks.iter().any(|tr| tr.role == TrackRole::GpuStream));
}
