//! Hand-built pairs of traces whose deltas are known.

use super::*;
use crate::model::{ArgsId, GroupKind, OpId, SliceDomain, TraceBuilder, TrackKind};
use crate::StrId;

fn host(slices: &[(&str, i64, i64)]) -> Trace {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "main", TrackKind::Thread, "1");
    for &(n, s, d) in slices {
        let n = b.intern(n);
        b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
    }
    b.finish()
}

#[test]
fn name_table_deltas_ratios_and_impact_order() {
    let a = host(&[("a", 0, 100), ("a", 200, 100), ("b", 400, 50)]);
    let b = host(&[("a", 0, 150), ("a", 200, 150), ("c", 400, 10)]);
    let c = compare(&a, &b);
    assert_eq!(c.level, Level::Name);
    let got: Vec<(&str, u64, u64, i64, Option<f64>)> =
        c.rows.iter().map(|r| (r.key.as_str(), r.count_a, r.count_b, r.delta_ns, r.ratio)).collect();
    assert_eq!(got, vec![("a", 2, 2, 100, Some(1.5)), ("b", 1, 0, -50, Some(0.0)), ("c", 0, 1, 10, None)]);
    assert_eq!((c.total_a_ns, c.total_b_ns), (250, 310));
    assert_eq!(c.rows[0].events_a.len(), 2);
    assert_eq!(c.rows[2].events_b.len(), 1);
    assert!(c.rows.iter().all(|r| r.side == "host"));
    assert!(c.neuron.is_none() && c.iterations.is_none());
    let mut csv = Vec::new();
    crate::export::csv::write_rows(&CSV_HEADER, csv_rows(&c), &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.starts_with("key,side,count_a"));
    assert!(csv.contains("a,host,2,2,200,300,100,1.500000"), "{csv}");
}

/// A GPU trace: iterations of (start, end) and kernels (name, start, dur) on one stream.
fn gpu(iters: &[(i64, i64, i64)], kernels: &[(&str, i64, i64)]) -> Trace {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("gpu", GroupKind::Device);
    let t = b.add_track(g, "stream 7", TrackKind::Stream, "7");
    b.set_track_role(t, TrackRole::GpuStream);
    for &(n, s, d) in kernels {
        let n = b.intern(n);
        b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
    }
    for &(n, s, e) in iters {
        b.add_iteration(n, s, e);
    }
    b.finish()
}

#[test]
fn iterations_pair_by_number_then_kernels_by_edit_distance() {
    let a = gpu(
        &[(1, 0, 1000), (2, 1000, 2000)],
        &[("k1", 0, 10), ("k2", 100, 20), ("k3", 200, 30), ("k1", 1000, 10)],
    );
    let b = gpu(&[(2, 5000, 6500), (3, 6500, 7000)], &[("k1", 5000, 12), ("k9", 5100, 1), ("k1", 6500, 10)]);
    let it = compare(&a, &b).iterations.unwrap();
    assert_eq!(it.paired_by, "number");
    assert_eq!(it.iterations.len(), 1, "only iteration 2 is in both");
    let p = &it.iterations[0];
    assert_eq!(
        (p.number_a, p.number_b, p.dur_a_ns, p.dur_b_ns, p.delta_ns),
        (Some(2), Some(2), 1000, 1500, 500)
    );
    assert_eq!((p.kernels_a, p.kernels_b, p.only_a, p.only_b, p.edit_distance), (1, 2, 0, 1, 1));
    assert_eq!(p.pairs.len(), 1);
    assert_eq!((p.pairs[0].name.as_str(), p.pairs[0].delta_ns), ("k1", 2));

    // no common numbers: by order; sequences k1 k2 k3 vs k1 k3 k4 keep k1 and k3 paired
    let b = gpu(&[(7, 0, 1000)], &[("k1", 0, 10), ("k3", 100, 40), ("k4", 200, 5)]);
    let it = compare(&a, &b).iterations.unwrap();
    assert_eq!(it.paired_by, "order");
    let p = &it.iterations[0];
    assert_eq!(p.method, KernelMethod::EditDistance);
    let pairs: Vec<(&str, i64)> = p.pairs.iter().map(|k| (k.name.as_str(), k.delta_ns)).collect();
    assert_eq!(pairs, vec![("k1", 0), ("k3", 10)]);
    assert_eq!((p.only_a, p.only_b, p.edit_distance), (1, 1, 2));
    assert_eq!((p.kernel_time_a_ns, p.kernel_time_b_ns), (60, 55));
}

#[test]
fn huge_sequences_fall_back_to_name_occurrence_in_linear_time() {
    // 3000 × 3000 kernels = 9 M cells > MAX_DP_CELLS: the fallback pairs by occurrence
    let names = ["x", "y", "z"];
    let ka: Vec<(&str, i64, i64)> = (0..3000).map(|i| (names[i % 3], i as i64 * 10, 5)).collect();
    let kb: Vec<(&str, i64, i64)> = (0..3000).map(|i| (names[(i + 1) % 3], i as i64 * 10, 6)).collect();
    let a = gpu(&[], &ka);
    let b = gpu(&[], &kb);
    let it = compare(&a, &b).iterations.unwrap();
    assert_eq!(it.paired_by, "whole_trace");
    let p = &it.iterations[0];
    assert_eq!(p.method, KernelMethod::NameOccurrence);
    assert_eq!(p.pairs.len(), 3000);
    assert!(p.pairs.iter().all(|k| k.delta_ns == 1));
}

/// A device profile: (engine, pc, opcode, start, dur) instructions, all under operator `op`.
fn device(op: &str, instr: &[(Engine, u32, &str, i64, i64)]) -> Trace {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("nc0", GroupKind::Device);
    let o = b.add_operator(OpId::NONE, OpLevel::Framework, op);
    let mut tracks = HashMap::new();
    for &(e, pc, opcode, s, d) in instr {
        let t = *tracks.entry(e).or_insert_with(|| {
            let t = b.add_track(g, e.name(), TrackKind::Stream, e.name());
            b.set_track_role(t, TrackRole::Engine(e));
            t
        });
        let n = b.intern(opcode);
        let h = b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(
            h,
            SliceDomain { opcode: n, operator: o, instruction: pc, ..SliceDomain::default() },
        );
    }
    b.finish()
}

#[test]
fn same_program_aligns_by_engine_and_pc() {
    use Engine::*;
    let a = device(
        "matmul",
        &[
            (Tensor, 0, "MATMUL", 0, 100),
            (Tensor, 1, "MATMUL", 200, 100),
            (Tensor, 0, "MATMUL", 400, 100),
            (Vector, 5, "ADD", 0, 50),
        ],
    );
    let b = device(
        "matmul",
        &[
            (Tensor, 0, "MATMUL", 0, 120),
            (Tensor, 1, "MATMUL", 200, 100),
            (Tensor, 0, "MATMUL", 400, 120),
            (Vector, 5, "ADD", 0, 40),
        ],
    );
    let c = compare(&a, &b);
    assert_eq!(c.level, Level::Operator);
    assert_eq!(c.rows.len(), 1);
    assert_eq!((c.rows[0].key.as_str(), c.rows[0].time_a_ns, c.rows[0].time_b_ns), ("matmul", 350, 380));
    let n = c.neuron.unwrap();
    assert!(n.same_program, "{}", n.why);
    let rows: Vec<(Engine, u32, u64, i64)> =
        n.instructions.iter().map(|r| (r.engine, r.pc, r.count_b, r.delta_ns)).collect();
    assert_eq!(rows, vec![(Tensor, 0, 2, 40), (Vector, 5, 1, -10), (Tensor, 1, 1, 0)]);
    let engines: Vec<(Engine, i64)> = n.engines.iter().map(|e| (e.engine, e.delta_ns)).collect();
    assert_eq!(engines, vec![(Tensor, 40), (Vector, -10)]);
}

#[test]
fn different_programs_fall_back_to_operators() {
    use Engine::*;
    let a = device("matmul", &[(Tensor, 0, "MATMUL", 0, 100), (Tensor, 1, "MATMUL", 200, 100)]);
    let b = device(
        "matmul",
        &[(Tensor, 0, "LOAD", 0, 100), (Tensor, 7, "MATMUL", 200, 100), (Tensor, 8, "X", 400, 1)],
    );
    let c = compare(&a, &b);
    let n = c.neuron.unwrap();
    assert!(!n.same_program);
    assert!(n.why.starts_with("different programs"), "{}", n.why);
    assert!(n.instructions.is_empty());
    assert_eq!(c.level, Level::Operator);
    assert_eq!(c.rows[0].delta_ns, 1);
}

#[test]
fn offsets_for_synchronised_timelines() {
    let a = gpu(&[(1, 100, 200), (2, 200, 300)], &[("k", 100, 10)]);
    let b = gpu(&[(2, 5000, 5100)], &[("k", 4000, 10)]);
    assert_eq!(offset_ns(&a, &b, Align::Absolute), Some(0));
    assert_eq!(offset_ns(&a, &b, Align::ByStart), Some(a.start_ns - b.start_ns));
    assert_eq!(offset_ns(&a, &b, Align::ByIteration(2)), Some(200 - 5000));
    assert_eq!(offset_ns(&a, &b, Align::ByIteration(1)), None);
}

#[test]
fn a_comparison_opens_with_b_in_view() {
    // far-apart clocks, a shared iteration: by that iteration, which puts B's under A's
    let a = gpu(&[(1, 100, 200), (2, 200, 300)], &[("k", 100, 10), ("k", 210, 10)]);
    let b = gpu(&[(2, 5000, 5100)], &[("k", 5010, 10)]);
    assert_eq!(default_align(&a, &b), Align::ByIteration(2));
    let off = offset_ns(&a, &b, default_align(&a, &b)).unwrap();
    assert!(b.start_ns + off < a.end_ns && b.end_ns + off > a.start_ns, "B overlaps A once shifted");
    // far apart, nothing shared: by start
    let c = host(&[("a", 10_000_000, 100)]);
    let d = host(&[("a", 0, 100)]);
    assert_eq!(default_align(&c, &d), Align::ByStart);
    // overlapping ranges (the same clock): as they are
    let e = host(&[("a", 0, 100)]);
    let f = host(&[("a", 50, 100)]);
    assert_eq!(default_align(&e, &f), Align::Absolute);
}
