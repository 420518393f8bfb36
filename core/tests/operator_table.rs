//! The Operator Table (`analysis::operators`) on real and generated profiles: a Kineto sample
//! (call tree → kernels through the launch flows), NEFF + NTFF fixtures written by the writers
//! (operator tree → instructions), and a synthetic 1 M-slice trace (time printed, not asserted).
//! Everything must add up level by level (`OpTable::verify`).

use std::path::Path;
use std::time::Instant;

use loupe_core::analysis::operators::{self, Hierarchy, Lane, RowKind};
use loupe_core::import::{import_bytes, import_files, InputFile, NoProgress};
use loupe_core::model::{Engine, TrackRole};
use loupe_core::neuron::neff::writer as neff_writer;
use loupe_core::neuron::ntff::writer::{self as ntff_writer, Capture, InstrEvent, Program};
use loupe_core::neuron::ntff::{Patch, PatchKind, PatchList};
use loupe_core::Trace;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");

fn sample(rel: &str) -> Option<Trace> {
    let path = Path::new(SAMPLES).join(rel);
    let Ok(bytes) = std::fs::read(&path) else {
        panic!("{} is absent (the shared samples beside the repository are required)", path.display());
    };
    Some(import_bytes(rel, &bytes, &mut NoProgress).expect("sample loads"))
}

#[test]
fn kineto_call_tree_adds_up_and_reaches_kernels() {
    let Some(t) = sample(
        "pytorch-kineto/hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz",
    ) else {
        return;
    };
    assert_eq!(operators::available(&t)[0], Hierarchy::CallTree);
    let table = operators::build(&t, Hierarchy::CallTree);
    table.verify().unwrap();
    assert_eq!(table.lanes, vec![Lane::Device]);
    // every CPU-thread and GPU-stream slice is in the table exactly once
    let all: u64 = t.tracks.iter().map(|tr| tr.slices.len() as u64).sum();
    assert_eq!(table.event_count, all);
    let gpu_ns: i64 = t
        .tracks
        .iter()
        .filter(|tr| tr.role == TrackRole::GpuStream)
        .flat_map(|tr| tr.slices.dur_ns.iter())
        .sum();
    assert_eq!(table.device_total_ns, gpu_ns);
    // kernels hang under the runtime call that launched them, inside a cpu_op
    let kernels: Vec<u32> = (0..table.rows.len() as u32)
        .filter(|&r| table.rows[r as usize].kind == RowKind::DeviceOp)
        .filter(|&r| table.rows[r as usize].parent != operators::NO_ROW)
        .filter(|&r| table.rows[table.rows[r as usize].parent as usize].kind == RowKind::HostOp)
        .collect();
    assert!(!kernels.is_empty(), "no kernel attached to a launch");
    let launched: i64 = kernels.iter().map(|&r| table.rows[r as usize].total_ns).sum();
    let launchers: Vec<String> =
        kernels.iter().map(|&r| table.name(&t, table.rows[r as usize].parent).into_owned()).collect();
    assert!(launchers.iter().any(|n| n == "cudaLaunchKernel"), "{launchers:?}");
    let depth_of_launch = kernels.iter().map(|&r| table.rows[r as usize].depth).max().unwrap();
    assert!(depth_of_launch >= 2, "the runtime call is nested in a cpu_op");
    println!(
        "kineto: {} rows, {} events, {} of {} device ns launched by a CPU op",
        table.rows.len(),
        table.event_count,
        launched,
        gpu_ns
    );
    // a row's events for highlighting: ascending per track, all of its subtree
    let top = *table.roots().iter().max_by_key(|&&r| table.rows[r as usize].total_ns).unwrap();
    let per = table.events_per_track(top, t.tracks.len());
    assert!(per.iter().all(|v| v.windows(2).all(|w| w[0] < w[1])));
    assert_eq!(per.iter().map(Vec::len).sum::<usize>(), table.events(top).len());
    // the other groupings add up too
    for h in [Hierarchy::Name, Hierarchy::CategoryName] {
        let x = operators::build(&t, h);
        x.verify().unwrap();
        assert_eq!(x.event_count, all);
    }
}

#[test]
fn every_kineto_sample_adds_up() {
    let dir = Path::new(SAMPLES).join("pytorch-kineto");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        panic!("{} is absent (the shared samples beside the repository are required)", dir.display());
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json.gz"))
        .collect();
    names.sort();
    for n in names {
        let Ok(t) = import_bytes(&n, &std::fs::read(dir.join(&n)).unwrap(), &mut NoProgress) else {
            continue;
        };
        let h = operators::available(&t)[0];
        let table = operators::build(&t, h);
        table.verify().unwrap_or_else(|e| panic!("{n}: {e}"));
        println!("{n}: {h:?}, {} rows, {} events", table.rows.len(), table.event_count);
    }
}

const NS: i64 = 1000;

/// An NTFF matching `neff_writer::minimal_neff()` (as in neuron_pair.rs): NOTIFY preamble,
/// then the NEFF's slots, one of them a MATMUL under `hlo__dot_op0`, executed `repeat` times.
fn capture(repeat: i64) -> Vec<u8> {
    let mut c = Capture::default();
    let mut uuid: Vec<u8> =
        (0..16).map(|i| [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef][i % 8]).collect();
    uuid.extend([0x7f, 0x7f, 0x7f]);
    c.uuid = uuid;
    c.programs.push(Program::new(0, &[0xA4, 0xA4, 0, 0x01, 0x02, 0xA0]).notify(2, 2));
    c.patches.push(PatchList {
        engine: 0,
        patches: vec![Patch { offset_bytes: 0, count: 2, kind: PatchKind::Insert }],
    });
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
    for k in 0..repeat {
        let t0 = (10_000 + k * 10_000) * NS;
        c.instructions.extend([
            i(2, t0 - 7 * NS, t0),
            i(3, t0 + 1_000 * NS, t0 + 2_000 * NS),
            i(4, t0 + 2_000 * NS, t0 + 5_000 * NS),
            i(5, t0 + 5_000 * NS, t0 + 6_000 * NS),
        ]);
    }
    ntff_writer::write(&c)
}

#[test]
fn neff_ntff_operator_tree_adds_up() {
    let neff = neff_writer::minimal_neff();
    let ntff = capture(3);
    let inputs = [InputFile { name: "a.neff", bytes: &neff }, InputFile { name: "a.ntff", bytes: &ntff }];
    let t = import_files(&inputs, &mut NoProgress).expect("imports");
    assert_eq!(t.format, "ntff+neff");
    assert_eq!(operators::available(&t)[0], Hierarchy::Operators);
    let table = operators::build(&t, Hierarchy::Operators);
    table.verify().unwrap();
    // every engine instruction but the semaphore waits is in the table once; its time is the
    // instruction time; the waits are counted apart
    let (n, ns, waits) = engine_instructions(&t);
    assert_eq!(table.event_count, n);
    assert_eq!(table.device_total_ns, ns);
    assert_eq!((table.waits.count, table.waits.ns), waits);
    let all = operators::build_with(&t, Hierarchy::Operators, operators::Options { include_waits: true });
    all.verify().unwrap();
    assert_eq!((all.event_count, all.device_total_ns), (n + waits.0, ns + waits.1));
    let roots_count: u64 = table.roots().iter().map(|&r| table.rows[r as usize].count).sum();
    assert_eq!(roots_count, n, "root counts add up to the instruction count");
    // the MATMUL sits under the framework operator hlo__dot_op0, 3 times
    let fw = (0..table.rows.len() as u32)
        .find(|&r| table.name(&t, r) == "hlo__dot_op0")
        .expect("framework operator row");
    assert!(matches!(table.rows[fw as usize].kind, RowKind::Operator(_)));
    fn leaves(table: &operators::OpTable, r: u32, out: &mut Vec<u32>) {
        for &c in table.children(r) {
            if table.rows[c as usize].kind == RowKind::Instruction {
                out.push(c);
            }
            leaves(table, c, out);
        }
    }
    let mut under = Vec::new();
    leaves(&table, fw, &mut under);
    let matmul = under.iter().find(|&&r| table.name(&t, r) == "MATMUL").expect("MATMUL under the operator");
    assert_eq!(table.rows[*matmul as usize].count, 3);
    let pe = table.lanes.iter().position(|&l| l == Lane::Engine(Engine::Tensor)).expect("Tensor lane");
    assert_eq!(table.lane_ns(*matmul, pe), 3 * 3_000, "3 µs each (pc 4 in the capture)");
    // per-engine lanes add up to the operator's total (every instruction is on one engine)
    let lanes: i64 = (0..table.lanes.len()).map(|l| table.lane_ns(fw, l)).sum();
    assert_eq!(lanes, table.rows[fw as usize].total_ns);
    // no FLOPs in an NTFF; DMA bytes of this capture are not attributed to operators
    assert!(!table.has_flops);
    assert_eq!(table.dma.attributed_bytes, 0);
}

/// Engine instructions without the semaphore waits (count, summed ns) and the waits (count, ns),
/// counted here from the slices' opcodes.
fn engine_instructions(t: &Trace) -> (u64, i64, (u64, i64)) {
    let wait = t.strings.find("EVENT_SEMAPHORE");
    let (mut n, mut ns, mut wn, mut wns) = (0, 0, 0, 0);
    for tr in t.tracks.iter().filter(|tr| tr.role.engine().is_some()) {
        let c = &tr.slices;
        for i in 0..c.len() {
            if Some(c.opcode_of(i)) == wait {
                (wn, wns) = (wn + 1, wns + c.dur_ns.at(i));
            } else {
                (n, ns) = (n + 1, ns + c.dur_ns.at(i));
            }
        }
    }
    (n, ns, (wn, wns))
}

/// The export of a real capture: semaphore waits (99.9 % of its instruction time, most without
/// an operator) are left out by default, so `(no operator)` no longer holds nearly everything,
/// and the toggle puts them back; "MFU over the profile" summed over the roots is neuron-profile's
/// `hfu_estimated_percent`; the operator views give the operators their share of the compute.
#[test]
fn export_sample_leaves_semaphore_waits_out_by_default() {
    let path = Path::new(SAMPLES).join("neuron/profile_128x128x1024.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = import_bytes("profile_128x128x1024.json", &bytes, &mut NoProgress).expect("sample loads");
    let (n, ns, waits) = engine_instructions(&t);
    assert!(waits.1 > 100 * ns, "waits {waits:?} dwarf compute {ns} ns in this capture");
    let table = operators::build(&t, Hierarchy::Operators);
    table.verify().unwrap();
    assert_eq!((table.event_count, table.device_total_ns), (n, ns));
    assert_eq!((table.waits.count, table.waits.ns), waits);
    let root =
        |tb: &operators::OpTable, name: &str| tb.roots().iter().copied().find(|&r| tb.name(&t, r) == name);
    let no_op = root(&table, "(no operator)").map_or(0.0, |r| table.fraction(r));
    let all = operators::build_with(&t, Hierarchy::Operators, operators::Options { include_waits: true });
    all.verify().unwrap();
    assert_eq!((all.event_count, all.device_total_ns), (n + waits.0, ns + waits.1));
    let no_op_all = root(&all, "(no operator)").map_or(0.0, |r| all.fraction(r));
    println!("(no operator): {:.1} % without waits, {:.1} % with them", no_op * 100.0, no_op_all * 100.0);
    assert!(no_op_all > 0.99 && no_op < 0.9, "{no_op} / {no_op_all}");
    // MFU over the profile, summed over the roots = neuron-profile's HFU of the profile
    let ds = loupe_core::analysis::device_summary::device_summary(&t).expect("device summary");
    let hfu = ds.get("hfu_estimated_percent").expect("hfu").as_f64();
    let sum: f64 = table.roots().iter().filter_map(|&r| table.mfu_over_profile(r)).sum();
    // (the export states its HFU to ~8 digits)
    assert!((sum - hfu).abs() <= 1e-6 * hfu, "MFU over the profile {sum}, neuron-profile HFU {hfu}");
    // and while it runs it is far higher (the op's own time, not the profile's)
    let dot = (0..table.rows.len() as u32).find(|&r| table.mfu(r).is_some()).expect("a row with MFU");
    assert!(table.mfu(dot).unwrap() > 100.0 * table.mfu_over_profile(dot).unwrap());
    // operator views: the operators' share of the device time, waits left out vs counted in
    use loupe_core::analysis::operator_views::{levels, operator_view, operator_view_with};
    for level in levels(&t) {
        let v = operator_view(&t, level);
        let w = operator_view_with(&t, level, true);
        let share = |v: &loupe_core::analysis::operator_views::OperatorView| {
            v.rows.iter().map(|r| r.total_ns).sum::<i64>() as f64 / v.total_ns.max(1) as f64
        };
        println!(
            "{level:?}: operators {:.1} % of device time ({:.2} % with waits)",
            share(&v) * 100.0,
            share(&w) * 100.0
        );
        assert_eq!(v.waits_left_out, waits);
        assert!(share(&v) > 10.0 * share(&w), "{level:?}");
        assert_eq!(v.unattributed_lane_ns.iter().sum::<i64>(), v.unattributed_ns);
    }
}

#[test]
fn ntff_sample_alone_groups_instructions_without_operator() {
    let Some(t) = sample("neuron/profile_128x128x1024.ntff") else { return };
    let table = operators::build(&t, operators::available(&t)[0]);
    table.verify().unwrap();
    assert_eq!(table.hierarchy, Hierarchy::Operators);
    assert_eq!(table.roots().len(), 1);
    assert_eq!(table.name(&t, table.roots()[0]), "(no operator)");
    assert!(table.dma.unattributed_bytes > 0, "{:?}", table.dma);
    println!(
        "ntff: {} rows, {} events, lanes {:?}, {:?}",
        table.rows.len(),
        table.event_count,
        table.lanes,
        table.dma
    );
}

#[test]
fn synthetic_million_slices() {
    let t = loupe_core::model::synth::nested_trace(1_000_000, 8, 11);
    for h in [Hierarchy::CallTree, Hierarchy::Name] {
        let t0 = Instant::now();
        let table = operators::build(&t, h);
        let build_ms = t0.elapsed().as_secs_f64() * 1e3;
        assert_eq!(table.event_count, 1_000_000);
        table.verify().unwrap();
        let t1 = Instant::now();
        let f = table.filter(&t, "op_07");
        let filter_ms = t1.elapsed().as_secs_f64() * 1e3;
        let top = table.roots()[0];
        let t2 = Instant::now();
        let per = table.events_per_track(top, t.tracks.len());
        let events_ms = t2.elapsed().as_secs_f64() * 1e3;
        let bytes = table.rows.len() * std::mem::size_of::<operators::Row>() + table.event_count as usize * 8;
        println!(
            "synthetic 1M {h:?}: build {build_ms:.0} ms, {} rows (~{} MB), filter {filter_ms:.0} ms ({} matches), \
             events of a root {events_ms:.1} ms ({} events)",
            table.rows.len(),
            bytes / 1_000_000,
            f.matches,
            per.iter().map(Vec::len).sum::<usize>()
        );
    }
}
