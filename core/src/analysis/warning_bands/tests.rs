use super::*;
use crate::model::{DmaQueueType, GroupKind, SliceDomain, TraceBuilder, TrackKind};

/// A device with Tensor, Vector, Scalar engines, a dynamic and a static DMA queue and a
/// throttle track; `f` adds slices.
fn device(f: impl FnOnce(&mut TraceBuilder, &Ids)) -> Trace {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("NeuronCore 0", GroupKind::Device);
    let eng = |b: &mut TraceBuilder, name: &str, e: Engine| {
        let t = b.add_track(g, name, TrackKind::Stream, name);
        b.set_track_role(t, TrackRole::Engine(e));
        t
    };
    let pe = eng(&mut b, "Tensor", Engine::Tensor);
    let pm = eng(&mut b, "TensorMatrix", Engine::TensorMatrix);
    let dve = eng(&mut b, "Vector", Engine::Vector);
    let act = eng(&mut b, "Scalar", Engine::Scalar);
    let dynq = b.add_track(g, "Q0", TrackKind::Dma, "q0");
    b.set_track_role(dynq, TrackRole::DmaQueue);
    b.set_track_dma_queue_type(dynq, DmaQueueType::SoftwareDynamic);
    let statq = b.add_track(g, "qData", TrackKind::Dma, "q1");
    b.set_track_role(statq, TrackRole::DmaQueue);
    b.set_track_dma_queue_type(statq, DmaQueueType::Data);
    let th = b.add_track(g, "throttle", TrackKind::Stream, "throttle");
    b.set_track_role(th, TrackRole::Throttle);
    let ids = Ids {
        pe,
        pm,
        dve,
        act,
        dynq,
        statq,
        th,
        wait: b.intern("EVENT_SEMAPHORE"),
        mm: b.intern("MATMUL"),
        op: b.intern("TENSOR_TENSOR"),
    };
    f(&mut b, &ids);
    b.finish()
}

struct Ids {
    pe: TrackId,
    pm: TrackId,
    dve: TrackId,
    act: TrackId,
    dynq: TrackId,
    statq: TrackId,
    th: TrackId,
    wait: StrId,
    mm: StrId,
    op: StrId,
}

fn ins(b: &mut TraceBuilder, t: TrackId, s: i64, d: i64, op: StrId) {
    let h = b.add_slice(t, s, d, op, StrId::EMPTY, ArgsId::NONE);
    b.set_slice_domain(h, SliceDomain { opcode: op, ..Default::default() });
}

fn packet(b: &mut TraceBuilder, t: TrackId, s: i64, d: i64, bytes: u64) {
    let n = b.intern("dma");
    let h = b.add_slice(t, s, d, n, StrId::EMPTY, ArgsId::NONE);
    b.set_slice_domain(h, SliceDomain { bytes, ..Default::default() });
}

fn throttle(b: &mut TraceBuilder, t: TrackId, s: i64, d: i64, k: u64, n: u64) {
    let (kk, kn, name) = (b.intern("k"), b.intern("n"), b.intern("throttle"));
    let args = b.add_args([(kk, ArgValue::UInt(k)), (kn, ArgValue::UInt(n))]);
    b.add_slice(t, s, d, name, StrId::EMPTY, args);
}

fn of(bands: &[WarningBand], r: Rule) -> Vec<&WarningBand> {
    bands.iter().filter(|b| b.rule == r).collect()
}

#[test]
fn small_dynamic_packets_fire_static_and_semaphore_writes_do_not() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 100_000, i.op); // the span: 100 µs
        packet(b, i.dynq, 1_000, 10, 2048); // small
        packet(b, i.dynq, 1_020, 10, 4); // completion write: no
        packet(b, i.dynq, 1_040, 10, 4096); // 4 KiB is not under 4 KiB
        packet(b, i.dynq, 1_060, 10, 4095); // small, merges with the first (gap < 100 ns)
        packet(b, i.statq, 1_080, 10, 128); // static queue: no
        packet(b, i.dynq, 50_000, 10, 512); // small, far away: its own band
    });
    let bands = warning_bands(&t);
    let s = of(&bands, Rule::SmallDma);
    assert_eq!(s.len(), 2, "{bands:#?}");
    assert_eq!((s[0].start_ns, s[0].end_ns), (1_000, 1_070));
    let dynq = TrackId(4);
    assert_eq!(s[0].events, vec![SliceRef { track: dynq, index: 0 }, SliceRef { track: dynq, index: 3 }]);
    assert!(s[0].text.contains("2 small packets, 6143 bytes"), "{}", s[0].text);
    assert!(s[0].text.contains("under 4 KiB"), "{}", s[0].text);
    assert_eq!((s[1].start_ns, s[1].events.len()), (50_000, 1));
}

#[test]
fn throttling_fires_below_one_only() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 100_000, i.op);
        throttle(b, i.th, 0, 1_000, 1, 1);
        throttle(b, i.th, 1_000, 2_000, 7, 8);
        throttle(b, i.th, 3_000, 500, 7, 8);
        throttle(b, i.th, 3_500, 10_000, 1, 1);
    });
    let bands = warning_bands(&t);
    let s = of(&bands, Rule::Throttling);
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].start_ns, s[0].end_ns, s[0].events.len()), (1_000, 3_500, 2));
    assert!(s[0].text.contains("limit 7/8"), "{}", s[0].text);
}

#[test]
fn long_semaphore_waits_at_the_threshold() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 1_000_000, i.op);
        ins(b, i.dve, 0, LONG_WAIT_NS - 1, i.wait); // just under
        ins(b, i.act, 500_000, LONG_WAIT_NS, i.wait); // exactly: fires
        ins(b, i.dve, 200_000, 50_000, i.op); // long, but not a wait
    });
    let bands = warning_bands(&t);
    let s = of(&bands, Rule::LongSemaphoreWait);
    assert_eq!(s.len(), 1, "{bands:#?}");
    assert_eq!((s[0].start_ns, s[0].end_ns), (500_000, 500_000 + LONG_WAIT_NS));
    assert_eq!(s[0].events, vec![SliceRef { track: TrackId(3), index: 0 }]);
    assert!(s[0].text.contains("Scalar"), "{}", s[0].text);
}

#[test]
fn idle_engine_while_others_work_but_not_when_all_idle() {
    let t = device(|b, i| {
        // span 0..1000 µs. Tensor (via TensorMatrix too) busy throughout except 300..500 µs
        ins(b, i.pe, 0, 300_000, i.op);
        ins(b, i.pm, 500_000, 500_000, i.mm);
        // Vector busy 0..1000 µs except a wait 300..400 (a wait is idle for Vector too, but the
        // gap is 100 µs ≥ 5 % of the span: others (Scalar) busy in it? no → no band)
        ins(b, i.dve, 0, 300_000, i.op);
        ins(b, i.dve, 300_000, 100_000, i.wait);
        ins(b, i.dve, 400_000, 600_000, i.op);
        // Scalar: idle all along but for 2 instructions at the ends
        ins(b, i.act, 0, 1_000, i.op);
        ins(b, i.act, 999_000, 1_000, i.op);
    });
    let bands = warning_bands(&t);
    let s = of(&bands, Rule::IdleEngine);
    // Tensor's gap 300..500 µs: Vector busy 100 of 200 µs (50 % ≥ 25 %) → fires;
    // Vector's gap 300..400: Tensor and Scalar idle → no; Scalar's gap 1..999 µs: others busy → fires
    let texts: Vec<&str> = s.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(s.len(), 1, "{texts:#?}"); // both merged: Scalar's gap covers Tensor's
    assert_eq!((s[0].start_ns, s[0].end_ns), (1_000, 999_000));
    assert!(s[0].text.contains("Tensor idle 200"), "{}", s[0].text);
    assert!(s[0].text.contains("Scalar idle"), "{}", s[0].text);
    assert!(!s[0].text.contains("Vector idle"), "{}", s[0].text);
    // events: Scalar's two instructions, Tensor's last before (pe 0) and first after (pm 0)
    assert_eq!(
        s[0].events,
        vec![
            SliceRef { track: TrackId(0), index: 0 },
            SliceRef { track: TrackId(1), index: 0 },
            SliceRef { track: TrackId(3), index: 0 },
            SliceRef { track: TrackId(3), index: 1 },
        ]
    );
}

#[test]
fn band_count_is_bounded_and_events_kept() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 100_000_000, i.op);
        // 1000 small packets 100 µs apart: far more than the merge gap (100 µs × 0.001 … )
        for k in 0..1000 {
            packet(b, i.dynq, k * 100_000, 10, 1024);
        }
    });
    let bands = warning_bands(&t);
    let s = of(&bands, Rule::SmallDma);
    assert!(s.len() <= MAX_BANDS_PER_RULE && !s.is_empty(), "{}", s.len());
    assert_eq!(s.iter().map(|b| b.events.len()).sum::<usize>(), 1000);
    assert!(s.windows(2).all(|w| w[0].end_ns < w[1].start_ns));
}

#[test]
fn nothing_fires_on_a_quiet_device_or_a_cpu_trace() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 1_000, i.op);
        ins(b, i.dve, 0, 1_000, i.op);
        packet(b, i.dynq, 0, 10, 8192);
    });
    assert!(warning_bands(&t).is_empty());
    assert!(warning_bands(&crate::demo::demo_trace()).is_empty());
}

#[test]
fn per_track_lists_select_the_events() {
    let t = device(|b, i| {
        ins(b, i.pe, 0, 100_000, i.op);
        packet(b, i.dynq, 10, 10, 100);
        packet(b, i.dynq, 30, 10, 100);
    });
    let bands = warning_bands(&t);
    let pt = bands[0].per_track(t.tracks.len());
    assert_eq!(pt[4], vec![0, 1]);
    assert_eq!(pt.iter().map(Vec::len).sum::<usize>(), 2);
}
