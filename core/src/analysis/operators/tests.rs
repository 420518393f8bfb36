//! Small hand-built traces with known answers, and the additivity invariants every table keeps.

use super::*;
use crate::model::{ArgsId, DeviceInfo, FlowEnd, GroupKind, OpLevel, SliceDomain, TraceBuilder, TrackKind};

fn check_invariants(t: &OpTable) {
    if let Err(e) = t.verify() {
        panic!("{e}");
    }
}

fn kineto_like() -> Trace {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("proc", GroupKind::Process);
    let cpu = b.add_track(g, "thread 1", TrackKind::Thread, "1");
    let dg = b.add_group("GPU 0", GroupKind::Device);
    let gpu = b.add_track(dg, "stream 7", TrackKind::Stream, "7");
    let n = |b: &mut TraceBuilder, s: &str| b.intern(s);
    let (step, mm, launch, gemm, memcpy) = (
        n(&mut b, "step"),
        n(&mut b, "aten::mm"),
        n(&mut b, "cudaLaunchKernel"),
        n(&mut b, "gemm"),
        n(&mut b, "memcpy"),
    );
    let e = StrId::EMPTY;
    b.add_slice(cpu, 0, 100, step, e, ArgsId::NONE);
    b.add_slice(cpu, 10, 30, mm, e, ArgsId::NONE);
    let l1 = b.add_slice(cpu, 20, 5, launch, e, ArgsId::NONE);
    b.add_slice(cpu, 50, 30, mm, e, ArgsId::NONE);
    let l2 = b.add_slice(cpu, 60, 2, launch, e, ArgsId::NONE);
    let k1 = b.add_slice(gpu, 30, 20, gemm, e, ArgsId::NONE);
    let k2 = b.add_slice(gpu, 70, 25, gemm, e, ArgsId::NONE);
    b.add_slice(gpu, 0, 5, memcpy, e, ArgsId::NONE);
    b.add_flow(FlowEnd::Slice(l1), FlowEnd::Slice(k1), e, e);
    b.add_flow(FlowEnd::Slice(l2), FlowEnd::Slice(k2), e, e);
    b.finish()
}

fn find(t: &OpTable, tr: &Trace, path: &[&str]) -> u32 {
    let mut level: Vec<u32> = t.roots().to_vec();
    let mut found = NO_ROW;
    for name in path {
        found = *level.iter().find(|&&r| t.name(tr, r) == *name).unwrap_or_else(|| panic!("no row {name}"));
        level = t.children(found).to_vec();
    }
    found
}

#[test]
fn call_tree_attaches_kernels_through_launch_flows() {
    let tr = kineto_like();
    assert_eq!(available(&tr)[0], Hierarchy::CallTree);
    let t = build(&tr, Hierarchy::CallTree);
    check_invariants(&t);
    assert_eq!(t.lanes, vec![Lane::Device]);
    let step = find(&t, &tr, &["step"]);
    let r = &t.rows[step as usize];
    assert_eq!((r.count, r.total_ns, r.self_ns), (1, 100, 40));
    assert_eq!(t.lane_ns(step, 0), 45, "device time of the kernels it launched");
    let mm = find(&t, &tr, &["step", "aten::mm"]);
    let r = &t.rows[mm as usize];
    assert_eq!((r.count, r.total_ns, r.self_ns), (2, 60, 53));
    let gemm = find(&t, &tr, &["step", "aten::mm", "cudaLaunchKernel", "gemm"]);
    let r = &t.rows[gemm as usize];
    assert_eq!((r.count, r.total_ns, r.self_ns, r.kind, r.device), (2, 45, 45, RowKind::DeviceOp, true));
    let lost = find(&t, &tr, &["(device activity without a launch)", "memcpy"]);
    assert_eq!(t.rows[lost as usize].total_ns, 5);
    assert_eq!((t.host_total_ns, t.device_total_ns), (100, 50));
    assert!((t.fraction(gemm) - 0.9).abs() < 1e-9);
    // a row's events: its slices and everything under it, per track ascending
    let per = t.events_per_track(mm, tr.tracks.len());
    assert_eq!(per.iter().map(Vec::len).sum::<usize>(), 6);
    assert_eq!(t.extent(&tr, mm), Some((10, 95)));
    assert_eq!(t.events(step).len(), 7);
}

#[test]
fn filter_keeps_ancestors_and_descendants_of_matches() {
    let tr = kineto_like();
    let t = build(&tr, Hierarchy::CallTree);
    let f = t.filter(&tr, "cudaLAUNCH");
    let launch = find(&t, &tr, &["step", "aten::mm", "cudaLaunchKernel"]);
    let gemm = t.children(launch)[0];
    let step = find(&t, &tr, &["step"]);
    let lost = find(&t, &tr, &["(device activity without a launch)"]);
    assert_eq!(f.matches, 1);
    assert!(f.visible[launch as usize] && f.visible[gemm as usize] && f.visible[step as usize]);
    assert!(f.match_below[step as usize] && !f.match_below[launch as usize]);
    assert!(!f.visible[lost as usize]);
    assert!(t.filter(&tr, "").visible.iter().all(|&v| v));
}

#[test]
fn sorting_by_columns() {
    let tr = kineto_like();
    let t = build(&tr, Hierarchy::Name);
    check_invariants(&t);
    let mut ids = t.roots().to_vec();
    t.sort(&tr, &mut ids, SortKey::Total, true);
    let names: Vec<_> = ids.iter().map(|&r| t.name(&tr, r).into_owned()).collect();
    assert_eq!(names, ["step", "aten::mm", "gemm", "cudaLaunchKernel", "memcpy"]);
    t.sort(&tr, &mut ids, SortKey::Name, false);
    assert_eq!(t.name(&tr, ids[0]), "aten::mm");
    t.sort(&tr, &mut ids, SortKey::Count, false);
    assert_eq!(t.name(&tr, ids[0]), "memcpy");
    // by name: self time subtracts nesting, host total = the sliced time once
    let step = find(&t, &tr, &["step"]);
    assert_eq!(t.rows[step as usize].self_ns, 40);
    assert_eq!(t.host_total_ns, 100 + 50);
}

fn device_trace(instance: Option<&str>) -> Trace {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("nc0", GroupKind::Device);
    if let Some(i) = instance {
        let it = b.intern(i);
        b.set_group_device(g, DeviceInfo { instance_type: Some(it), ..DeviceInfo::default() });
    }
    let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
    b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
    let pm = b.add_track(g, "TensorMatrix", TrackKind::Stream, "pm");
    b.set_track_role(pm, TrackRole::Engine(Engine::TensorMatrix));
    let act = b.add_track(g, "Scalar", TrackKind::Stream, "act");
    b.set_track_role(act, TrackRole::Engine(Engine::Scalar));
    let q = b.add_track(g, "q0", TrackKind::Dma, "q0");
    b.set_track_role(q, TrackRole::DmaQueue);
    let layer = b.add_operator(OpId::NONE, OpLevel::Layer, "encoder");
    let fw = b.add_operator(layer, OpLevel::Framework, "linear");
    let h1 = b.add_operator(fw, OpLevel::Hlo, "dot.1");
    let h2 = b.add_operator(fw, OpLevel::Hlo, "add.2");
    let (mm, act_op, nop) = (b.intern("MATMUL"), b.intern("ACTIVATE"), b.intern("NOP"));
    let add = |b: &mut TraceBuilder, t, s, d, op: OpId, opcode, flops| {
        let h = b.add_slice(t, s, d, opcode, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, SliceDomain { opcode, operator: op, flops, ..SliceDomain::default() });
    };
    add(&mut b, pm, 0, 100, h1, mm, 1_000_000);
    add(&mut b, pm, 200, 100, h1, mm, 1_000_000);
    add(&mut b, pe, 100, 10, h1, nop, u64::MAX);
    add(&mut b, act, 50, 40, h2, act_op, u64::MAX);
    add(&mut b, act, 150, 30, fw, act_op, u64::MAX);
    add(&mut b, act, 400, 7, OpId::NONE, nop, u64::MAX);
    let h = b.add_slice(q, 0, 20, StrId::EMPTY, StrId::EMPTY, ArgsId::NONE);
    b.set_slice_domain(h, SliceDomain { bytes: 4096, ..SliceDomain::default() });
    b.finish()
}

#[test]
fn operators_follow_the_operator_tree_with_engine_lanes() {
    let tr = device_trace(Some("trn1.2xlarge"));
    assert_eq!(available(&tr)[0], Hierarchy::Operators);
    let t = build(&tr, Hierarchy::Operators);
    check_invariants(&t);
    assert_eq!(t.lanes, vec![Lane::Engine(Engine::Tensor), Lane::Engine(Engine::Scalar)]);
    let layer = find(&t, &tr, &["encoder"]);
    let r = &t.rows[layer as usize];
    assert_eq!((r.count, r.total_ns, r.self_ns), (5, 280, 0));
    assert_eq!((t.lane_ns(layer, 0), t.lane_ns(layer, 1)), (210, 70));
    let fw = find(&t, &tr, &["encoder", "linear"]);
    let r = &t.rows[fw as usize];
    assert_eq!((r.count, r.total_ns, r.self_ns), (5, 280, 30), "self = its own instructions");
    let dot = find(&t, &tr, &["encoder", "linear", "dot.1"]);
    assert_eq!((t.rows[dot as usize].total_ns, t.rows[dot as usize].flops), (210, 2_000_000));
    let matmul = find(&t, &tr, &["encoder", "linear", "dot.1", "MATMUL"]);
    assert_eq!((t.rows[matmul as usize].count, t.rows[matmul as usize].kind), (2, RowKind::Instruction));
    let none = find(&t, &tr, &["(no operator)", "NOP"]);
    assert_eq!(t.rows[none as usize].total_ns, 7);
    assert_eq!(t.device_total_ns, 287);
    assert!((t.fraction(layer) - 280.0 / 287.0).abs() < 1e-12);
    // MFU while on the PE: 2 MFLOP in 210 ns of PE time against the trn1 peak
    let peak = 2.0 * 128.0 * 128.0 * 2.8e9;
    assert_eq!(t.peak_flops, Some(peak));
    let mfu = t.mfu(dot).expect("mfu");
    assert!((mfu - 2e6 / (peak * 210e-9)).abs() < 1e-12, "{mfu}");
    assert_eq!(t.mfu(find(&t, &tr, &["encoder", "linear", "add.2"])), None, "no FLOPs");
    // DMA bytes without an operator are said to be unattributed, not spread
    assert_eq!(
        t.dma,
        DmaAttribution { attributed_bytes: 0, unattributed_bytes: 4096, unattributed_packets: 1 }
    );
    assert_eq!(t.skipped_slices, 1);
    assert!(t.has_flops);
    // unknown instance type: no peak, no MFU
    let t = build(&device_trace(None), Hierarchy::Operators);
    assert_eq!(t.mfu(find(&t, &device_trace(None), &["encoder", "linear", "dot.1"])), None);
}

#[test]
fn category_then_name() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let th = b.add_track(g, "t", TrackKind::Thread, "1");
    let (a, x, c) = (b.intern("a"), b.intern("x"), b.intern("cat"));
    b.add_slice(th, 0, 10, a, c, ArgsId::NONE);
    b.add_slice(th, 20, 5, x, StrId::EMPTY, ArgsId::NONE);
    b.add_slice(th, 30, 5, a, c, ArgsId::NONE);
    let tr = b.finish();
    assert_eq!(available(&tr)[0], Hierarchy::Name, "a host trace without launches");
    let t = build(&tr, Hierarchy::CategoryName);
    check_invariants(&t);
    let cat = find(&t, &tr, &["cat"]);
    assert_eq!((t.rows[cat as usize].count, t.rows[cat as usize].total_ns), (2, 15));
    let none = find(&t, &tr, &["(no category)", "x"]);
    assert_eq!(t.rows[none as usize].total_ns, 5);
    assert_eq!(t.host_total_ns, 20);
}

#[test]
fn empty_trace_gives_an_empty_table() {
    let tr = TraceBuilder::new("test").finish();
    for h in Hierarchy::ALL {
        let t = build(&tr, h);
        assert!(t.rows.is_empty() && t.roots().is_empty() && t.event_count == 0);
        assert_eq!(t.extent(&tr, 0), None);
        assert!(t.events(0).is_empty());
    }
}

/// Semaphore waits are waiting, not compute: by default they are left out of the rows and the
/// device total (and counted apart); the toggle puts them back under their operator (here none).
#[test]
fn semaphore_waits_are_left_out_unless_asked_for() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("nc0", GroupKind::Device);
    let it = b.intern("trn1.2xlarge");
    b.set_group_device(
        g,
        DeviceInfo { instance_type: Some(it), execution_time_ps: Some(1_000_000), ..DeviceInfo::default() },
    );
    let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
    b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
    let dot = b.add_operator(OpId::NONE, OpLevel::Hlo, "dot.3");
    let (mm, wait) = (b.intern("MATMUL"), b.intern("EVENT_SEMAPHORE"));
    let add = |b: &mut TraceBuilder, s, d, op: OpId, opcode, flops| {
        let h = b.add_slice(pe, s, d, opcode, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, SliceDomain { opcode, operator: op, flops, ..SliceDomain::default() });
    };
    add(&mut b, 0, 900, OpId::NONE, wait, u64::MAX);
    add(&mut b, 900, 100, dot, mm, 1_000_000);
    let tr = b.finish();

    let t = build(&tr, Hierarchy::Operators);
    check_invariants(&t);
    assert_eq!(t.waits, WaitsLeftOut { count: 1, ns: 900 });
    assert_eq!(t.device_total_ns, 100);
    let d = find(&t, &tr, &["dot.3"]);
    assert!((t.fraction(d) - 1.0).abs() < 1e-12, "the operator has all the compute");
    assert!(t.roots().iter().all(|&r| t.name(&tr, r) != "(no operator)"));
    // MFU while it runs: over its own 100 ns; over the profile: over the 1 µs execution time
    let peak = 2.0 * 128.0 * 128.0 * 2.8e9;
    assert!((t.mfu(d).unwrap() - 1e6 / (peak * 100e-9)).abs() < 1e-12);
    assert!((t.mfu_over_profile(d).unwrap() - 1e6 / (peak * 1e-6)).abs() < 1e-12);

    let t = build_with(&tr, Hierarchy::Operators, Options { include_waits: true });
    check_invariants(&t);
    assert_eq!(t.waits, WaitsLeftOut::default());
    assert_eq!(t.device_total_ns, 1000);
    let w = find(&t, &tr, &["(no operator)", "EVENT_SEMAPHORE"]);
    assert_eq!((t.rows[w as usize].count, t.rows[w as usize].total_ns), (1, 900));
    assert!((t.fraction(find(&t, &tr, &["dot.3"])) - 0.1).abs() < 1e-12);
}

/// Built in steps of any size, the table is the one built in one go (the page's Operator Table
/// builds it in steps between frames).
#[test]
fn stepped_build_equals_one_pass() {
    let demo = crate::demo::demo_trace_steps(2);
    let cases: [(&Trace, Hierarchy); 5] = [
        (&demo, Hierarchy::CallTree),
        (&demo, Hierarchy::Name),
        (&demo, Hierarchy::CategoryName),
        (&demo, Hierarchy::Operators),
        (&demo, Hierarchy::Operators),
    ];
    let kineto = kineto_like();
    let device = device_trace(Some("trn1.2xlarge"));
    let more: [(&Trace, Hierarchy); 3] =
        [(&kineto, Hierarchy::CallTree), (&device, Hierarchy::Operators), (&device, Hierarchy::Name)];
    let cases_len = cases.len();
    for (i, (tr, h)) in cases.into_iter().chain(more).enumerate() {
        let options = Options { include_waits: i == 4 };
        let whole = format!("{:?}", build_with(tr, h, options));
        for budget in [1, 3, 64, 1000] {
            let mut b = OpTableBuild::new(tr, h, options);
            let mut calls = 0;
            let t = loop {
                calls += 1;
                if let Some(t) = b.step(tr, budget) {
                    break t;
                }
            };
            assert_eq!(format!("{t:?}"), whole, "{h:?}, budget {budget}");
            // (the demo's host slices are not all nested within their parents, so its call
            // tree's root sums are not the host total: the invariants are checked on the others)
            if i >= cases_len {
                check_invariants(&t);
            }
            if budget == 1 {
                assert!(calls > 10, "{h:?}: {calls} steps of one unit");
            }
        }
    }
}
