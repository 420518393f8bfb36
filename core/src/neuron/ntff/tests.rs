use super::metadata::{Patch, PatchKind, PatchList};
use super::opcodes::*;
use super::writer::{self, Capture, DmaEvent, InstrEvent, Program, QueueSpec, SemEvent, ThrottleEvent};
use super::*;

const NS: i64 = 1000;

/// Two engines (PE, ACT), a pre-window run, a DMA packet (plus a pre-window one), a semaphore
/// update and two throttle records. T0 = end of the PE NOTIFY(hint 2) at 10_000 ns.
fn sample() -> Capture {
    let mut c = Capture::default();
    // PE: pc0..1 runtime preamble, pc2 NOTIFY hint 2, pc3 LDWEIGHTS, pc4 MATMUL, pc5 EVENT_SEMAPHORE
    c.programs.push(Program::new(0, &[0xA4, 0xA4, 0, 0x01, 0x02, 0xA0]).notify(2, 2));
    // ACT: pc0 NOTIFY hint 2, pc1 ACTIVATE, pc2 DRAIN
    c.programs.push(Program::new(1, &[0, 0x21, 0xA2]).notify(0, 2));
    c.patches.push(PatchList {
        engine: 0,
        patches: vec![
            Patch { offset_bytes: 0, count: 2, kind: PatchKind::Insert },
            Patch { offset_bytes: 4 * 64, count: 1, kind: PatchKind::Delete },
        ],
    });
    c.dma_queues.push(QueueSpec { dma_engine: 3, queue: 1, queue_type: 2, name: "qSPSpillReload0".into() });
    c.execution_time_ps = 123_456_789;
    let t0 = 10_000 * NS;
    let i = |engine, pc, s: i64, e: i64| InstrEvent {
        engine,
        pc,
        start_ps: s,
        end_ps: e,
        wait_cycles: 0,
        crc_in: 0xFFFF,
        crc_out: 0xFFFF,
        flags: 0,
    };
    c.instructions = vec![
        i(0, 3, 1_000 * NS, 1_100 * NS),     // pre-window LDWEIGHTS (dropped)
        i(0, 2, t0 - 7 * NS, t0),            // PE NOTIFY hint 2 → T0
        i(1, 0, t0 - 50 * NS, t0 - 40 * NS), // ACT NOTIFY (earlier end)
        InstrEvent { wait_cycles: 14, crc_in: 0x1234, crc_out: 0xBEEF, ..i(0, 3, t0 + 57_500, t0 + 121_999) },
        i(0, 4, t0 + 121_999, t0 + 200_001),
        i(0, 5, t0 + 150_000, t0 + 400_000), // EVENT_SEMAPHORE: not active time
        i(1, 1, t0 + 60_000, t0 + 90_000),
        i(1, 2, t0 + 80_000, t0 + 95_500), // overlaps ACTIVATE
    ];
    c.dma = vec![
        DmaEvent { dma_engine: 3, queue: 1, start_ps: 500 * NS, end_ps: 600 * NS, size_bytes: 4, crc: 1 },
        DmaEvent {
            dma_engine: 3,
            queue: 1,
            start_ps: t0 + 3_606_400,
            end_ps: t0 + 3_707_900,
            size_bytes: 2048,
            crc: 0x420A,
        },
    ];
    c.semaphores = vec![
        SemEvent { source: 0, op: SemaphoreOp::Increment, semaphore: 2, value: 0, ts_ps: t0 - NS },
        SemEvent { source: 0, op: SemaphoreOp::Increment, semaphore: 2, value: 1, ts_ps: t0 + 1_492_999 },
        SemEvent { source: 5, op: SemaphoreOp::Set, semaphore: 12, value: 0, ts_ps: t0 + 1_500_000 },
    ];
    c.raw_events = vec![(0x8707_0003, 0, t0 + 5 * NS)];
    c.throttles = vec![
        ThrottleEvent { ts_ps: t0 + 100 * NS, w0: 0x9E00_0000, w1: 0x80 },
        ThrottleEvent { ts_ps: t0 + 122 * NS, w0: 0x9E08_0006, w1: 7 },
    ];
    c
}

#[test]
fn round_trip() {
    let bytes = writer::write(&sample());
    assert!(sniff(&bytes));
    assert_eq!(sniff_version(&bytes), Some(5));
    let n = parse(&bytes).unwrap();
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    assert_eq!(n.metadata.neff_path, "/tmp/synthetic/graph.neff");
    assert_eq!(n.metadata.uuid_hex(), "0102030405060708090a0b0c0d0e0f10");
    assert!(!n.metadata.uuid_truncated);
    assert_eq!(n.metadata.runtime_version.as_ref().unwrap().text, "2.29.40 (f954c)");
    assert_eq!(n.metadata.driver_version.as_ref().unwrap().text, "2.25.0 ()");
    assert_eq!(n.metadata.collectives_version.as_ref().unwrap().text, "2.29.41 ()");
    assert_eq!(n.metadata.instance_type, "inf2.xlarge");
    assert_eq!(n.metadata.execution_time_ps, 123_456_789);
    assert_eq!(n.metadata.dma_queues[0].display_name, "qSyncSpillReload0");
    assert_eq!(n.metadata.dma_queues[0].queue_type_name, "weights");
    assert_eq!(n.metadata.memory_usage[0].display_name, "Tensor Instructions");
    assert_eq!(n.metadata.engine_programs.len(), 2);
    let pe = n.metadata.program(0).unwrap();
    assert_eq!(pe.slots().len(), 6);
    assert_eq!(pe.slots()[4][0], OP_MATMUL);
    assert_eq!(pe.slot(2).unwrap()[NOTIFY_HINT_OFFSET], 2);
    assert_eq!(n.dma_queue_label(3, 1), "qSyncSpillReload0-Q1-E3");
    assert_eq!(n.dma_queue_label(3, 0), "Q0-E3");

    assert_eq!(n.profile.t0_source, T0Source::NotifyHint2 { engine: 0 });
    let rows: Vec<_> = n
        .instructions
        .iter()
        .map(|i| (i.subgroup(), i.label(), i.pc, i.compiler_pc, i.start_ns(), i.dur_ns(), i.opcode()))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("Tensor", "Tensor", 3, Some(1), 57, 64, "LDWEIGHTS"),
            ("Tensor", "TensorMatrix", 4, Some(3), 121, 78, "MATMUL"),
            ("Tensor", "Tensor", 5, Some(4), 150, 250, "EVENT_SEMAPHORE"),
            ("Scalar", "Scalar", 1, Some(1), 60, 30, "ACTIVATE"),
            ("Scalar", "Scalar", 2, Some(2), 80, 15, "DRAIN"),
        ]
    );
    let ld = &n.instructions[0];
    assert_eq!((ld.wait_cycles, ld.evt_wait_time_ns, ld.crc_in, ld.crc_out), (14, 10, 0x1234, 0xBEEF));
    // pre-window LDWEIGHTS and both NOTIFY(hint 2): they start before T0 (their end).
    assert_eq!(n.stats.pre_window_instructions, 3);
    assert_eq!(n.profile.instruction_counts.tensor, 3);
    assert_eq!(n.profile.instruction_counts.scalar, 2);
    assert_eq!(n.profile.end_ps, 400_000);
    assert_eq!(n.profile.last_hw_timestamp_ns, 400);

    assert_eq!(n.dma_packets.len(), 1);
    let p = &n.dma_packets[0];
    assert_eq!(
        (p.dma_engine, p.queue, p.start_ns, p.dur_ns, p.size_bytes, p.crc, p.packet_idx),
        (3, 1, 3606, 101, 2048, 0x420A, 1)
    );
    assert_eq!(n.stats.dma_type6_records, 2);

    let s: Vec<_> =
        n.semaphore_updates.iter().map(|s| (s.ts_ns, s.semaphore, s.value, s.source_name(), s.op)).collect();
    assert_eq!(
        s,
        vec![(1492, 2, 1, "Tensor", SemaphoreOp::Increment), (1500, 12, 0, "Queue", SemaphoreOp::Set)]
    );
    assert_eq!(n.profile.event_count, 4);
    assert_eq!(n.stats.other_event_records, 1);
    assert_eq!(n.profile.trace_count, 5 + 1 + 4);

    let t: Vec<_> = n.throttles.iter().map(|t| (t.start_ns, t.dur_ns, t.throttle_type, t.k, t.n)).collect();
    assert_eq!(t, vec![(100, 22, 99, 1, 1), (122, 278, 0, 7, 8)]);

    let a: Vec<_> = n.active_time.iter().map(|a| (a.engine_name(), a.start_ns, a.end_ns, a.dur_ns)).collect();
    assert_eq!(a, vec![("tensor", 57, 200, 142), ("scalar", 60, 95, 35)]);

    // pending DMA: no DMA_DIRECT2D here; a NEFF-given static trigger (the LDWEIGHTS, say).
    let pd = n.pending_dma(|i| i.pc == 3 && i.engine == 0, &[n.queue_end_ns(1).unwrap()]);
    assert_eq!(pd, vec![CounterPoint { ts_ns: 57, value: 1 }, CounterPoint { ts_ns: 3707, value: 0 }]);
    let tp = n.dma_throughput();
    assert_eq!(tp.len(), 2);
    assert_eq!(tp[1].total_bytes, 2048);

    // Serializable.
    let json = serde_json::to_string(&n).unwrap();
    assert!(json.contains("\"opcode\":\"MATMUL\""));
}

#[test]
fn truncation_never_panics() {
    let bytes = writer::write(&sample());
    let area_off = parse(&bytes).unwrap().header.record_area_offset() as usize;
    for len in 0..=bytes.len() {
        let r = parse(&bytes[..len]);
        if len < area_off {
            assert!(matches!(r, Err(NtffError::Truncated { .. })), "len {len}: {r:?}");
        } else {
            let n = r.unwrap_or_else(|e| panic!("len {len}: {e}"));
            if len < bytes.len() {
                assert!(n.warnings.iter().any(|w| w.kind == WarningKind::BlockOutOfRange), "len {len}");
            }
        }
        let _ = sniff(&bytes[..len]);
    }
}

#[test]
fn wrong_version_is_unsupported() {
    let mut bytes = writer::write(&sample());
    bytes[0] = 6;
    assert!(!sniff(&bytes));
    assert_eq!(sniff_version(&bytes), Some(6));
    match parse(&bytes) {
        Err(NtffError::UnsupportedVersion { version: 6, header }) => {
            assert_eq!(header.word_0x08, Some(HEADER_CONSTANT));
            assert!(header.metadata_len > 0);
            let msg = NtffError::UnsupportedVersion { version: 6, header }.to_string();
            assert!(msg.contains("version 6"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    // Short but NTFF-like: still reports the version.
    assert!(matches!(parse(&bytes[..10]), Err(NtffError::UnsupportedVersion { version: 6, .. })));
    assert!(!sniff(b"\x7fELF...."));
    assert!(!sniff(&[]));
}

#[test]
fn uuid_with_nul_is_truncated() {
    let mut c = sample();
    c.uuid = vec![0xAA, 0xBB, 0x00, 0xCC, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
    let n = parse(&writer::write(&c)).unwrap();
    assert!(n.metadata.uuid_truncated);
    assert_eq!(n.metadata.uuid_hex(), "aabb");
    assert!(n.warnings.iter().any(|w| w.kind == WarningKind::UuidTruncated));
}

#[test]
fn fifo_pairing_per_engine_and_pc() {
    // Overlapping executions of the same (engine, pc) pair first-in-first-out.
    let mut c = sample();
    let t0 = 10_000 * NS;
    let i = |s: i64, e: i64| InstrEvent {
        engine: 1,
        pc: 2,
        start_ps: s,
        end_ps: e,
        wait_cycles: 0,
        crc_in: 0,
        crc_out: 0,
        flags: 0,
    };
    c.instructions.retain(|x| x.engine == 0);
    let first_act = c.instructions.len() * 2;
    c.instructions.push(i(t0 + 10 * NS, t0 + 20 * NS));
    c.instructions.push(i(t0 + 15 * NS, t0 + 40 * NS));
    let mut bytes = writer::write(&c);
    let off = parse(&bytes).unwrap().header.record_area_offset() as usize;
    // Writer order is start1, end1, start2, end2: swap to start1, start2, end1, end2.
    let a = off + (first_act + 1) * 16;
    let (x, y) = bytes.split_at_mut(a + 16);
    x[a..].swap_with_slice(&mut y[..16]);
    let n = parse(&bytes).unwrap();
    let act: Vec<_> =
        n.instructions.iter().filter(|x| x.engine == 1).map(|x| (x.start_ns(), x.dur_ns())).collect();
    assert_eq!(act, vec![(10, 10), (15, 25)]);
}

/// Cheap deterministic fuzz: random byte flips anywhere must never panic.
#[test]
fn random_damage_never_panics() {
    let bytes = writer::write(&sample());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..3000 {
        let mut b = bytes.clone();
        for _ in 0..(next() % 8 + 1) {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        if next() % 4 == 0 {
            let cut = (next() % b.len() as u64) as usize;
            b.truncate(cut);
        }
        let _ = sniff(&b);
        if let Ok(n) = parse(&b) {
            let _ = n.pending_dma(|_| true, &[0]);
            let _ = n.dma_throughput();
        }
    }
    // Hostile record areas: every record class in every block.
    let mut b = bytes.clone();
    let off = parse(&bytes).unwrap().header.record_area_offset() as usize;
    for (k, v) in b[off..].iter_mut().enumerate() {
        *v = (k as u8).wrapping_mul(151) ^ 0x80;
    }
    let n = parse(&b).unwrap();
    assert!(!n.warnings.is_empty());
}

#[test]
fn missing_profile_start_falls_back() {
    let mut c = sample();
    c.programs[0] = Program::new(0, &[0xA4, 0xA4, 0xA4, 0x01, 0x02, 0xA0]);
    c.programs[1] = Program::new(1, &[0xA4, 0x21, 0xA2]);
    let n = parse(&writer::write(&c)).unwrap();
    assert_eq!(n.profile.t0_source, T0Source::EarliestRecord);
    assert!(n.warnings.iter().any(|w| w.kind == WarningKind::ProfileStartNotFound));
    assert_eq!(n.instructions.len(), 8);
}

#[test]
fn opcode_constants() {
    assert_eq!(opcode_name(OP_DMA_DIRECT2D), "DMA_DIRECT2D");
    assert_eq!(opcode_name(OP_WRITE), "WRITE");
}

#[test]
fn active_time_merging_matches_sort_and_merge() {
    // Random nearly-ordered and fully random streams: incremental merge == sort + merge.
    let mut x: u64 = 0xDEAD_BEEF_1234_5678;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..200 {
        let n = (next() % 2000) as usize;
        let mut t = 0i64;
        let instrs: Vec<Instruction> = (0..n)
            .map(|k| {
                let (s, e) = if round % 3 == 0 {
                    let s = (next() % 1_000_000) as i64;
                    (s, s + (next() % 5000) as i64)
                } else {
                    t += (next() % 3000) as i64;
                    let s = t - (next() % 4000) as i64;
                    (s, s + (next() % 3000) as i64)
                };
                Instruction {
                    engine: (k % 2) as u8,
                    pc: 0,
                    compiler_pc: None,
                    start_ps: s,
                    end_ps: e,
                    wait_cycles: 0,
                    evt_wait_time_ns: 0,
                    crc_in: 0,
                    crc_out: 0,
                    opcode_byte: if next() % 5 == 0 { OP_EVENT_SEMAPHORE } else { 0xA2 },
                    flags: 0,
                }
            })
            .collect();
        let mut want = Vec::new();
        for e in 0..2u8 {
            let mut iv: Vec<(i64, i64)> = instrs
                .iter()
                .filter(|i| i.engine == e && i.opcode_byte != OP_EVENT_SEMAPHORE)
                .map(|i| (i.start_ps, i.end_ps))
                .collect();
            iv.sort();
            let mut cur: Option<(i64, i64)> = None;
            for (s, en) in iv {
                match cur {
                    Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(en))),
                    _ => {
                        if let Some(c) = cur {
                            want.push((e, c.0.div_euclid(1000), c.1.div_euclid(1000), (c.1 - c.0) / 1000));
                        }
                        cur = Some((s, en));
                    }
                }
            }
            if let Some(c) = cur {
                want.push((e, c.0.div_euclid(1000), c.1.div_euclid(1000), (c.1 - c.0) / 1000));
            }
        }
        let got: Vec<_> = derived::active_time(&instrs, [n as u64; 5])
            .iter()
            .map(|a| (a.engine, a.start_ns, a.end_ns, a.dur_ns))
            .collect();
        assert_eq!(got, want, "round {round}");
    }
}

/// The rows `parse_into` hands its sink, with what it told the sink to expect.
#[derive(Default)]
struct Rows {
    expected: Vec<Expected>,
    instructions: Vec<Instruction>,
    dma_packets: Vec<DmaPacket>,
}

impl EventSink for Rows {
    fn expect(&mut self, e: &Expected) {
        assert!(self.instructions.is_empty() && self.dma_packets.is_empty(), "expect after a row");
        self.expected.push(e.clone());
    }
    fn instruction(&mut self, ins: Instruction) {
        self.instructions.push(ins);
    }
    fn dma_packet(&mut self, p: DmaPacket) {
        self.dma_packets.push(p);
    }
}

/// `parse_into` gives its sink exactly `parse`'s instruction and DMA rows, in order, and
/// everything else the same; told once, first, bounds that hold.
fn check_streamed_equals_parsed(bytes: &[u8]) {
    let Ok(whole) = parse(bytes) else {
        assert!(parse_into(bytes, &mut Rows::default()).is_err());
        return;
    };
    let mut rows = Rows::default();
    let s = parse_into(bytes, &mut rows).unwrap();
    assert_eq!(rows.instructions, whole.instructions);
    assert_eq!(rows.dma_packets, whole.dma_packets);
    assert_eq!(
        (s.instructions, s.dma_packets),
        (whole.instructions.len() as u64, whole.dma_packets.len() as u64)
    );
    assert_eq!(s.has_events(), whole.has_events());
    let rest =
        Ntff { instructions: Vec::new(), dma_packets: Vec::new(), active_time: Vec::new(), ..whole.clone() };
    assert_eq!(serde_json::to_string(&s.ntff).unwrap(), serde_json::to_string(&rest).unwrap());
    assert_eq!(rows.expected.len(), 1);
    let e = &rows.expected[0];
    assert!(e.instructions >= whole.instructions.len() && e.dma_packets >= whole.dma_packets.len());
    for (k, &n) in e.starts_per_label.iter().enumerate() {
        let rows = whole
            .instructions
            .iter()
            .filter(|i| usize::from(i.engine) * 2 + usize::from(i.is_tensor_matrix()) == k)
            .count();
        assert!(n >= rows, "label key {k}: {n} start records, {rows} rows");
    }
}

#[test]
fn streamed_rows_equal_the_parsed_tables() {
    check_streamed_equals_parsed(&writer::write(&sample()));
    let mut pair = writer::minimal_pair_capture(50);
    writer::vary_executions(&mut pair);
    check_streamed_equals_parsed(&writer::write(&pair));
    check_streamed_equals_parsed(&writer::write(&writer::synthetic_capture(1)));
    // no profile start: the rows are held, shifted, then handed over
    let mut c = sample();
    c.programs[0] = Program::new(0, &[0xA4, 0xA4, 0xA4, 0x01, 0x02, 0xA0]);
    c.programs[1] = Program::new(1, &[0xA4, 0x21, 0xA2]);
    let bytes = writer::write(&c);
    let mut rows = Rows::default();
    assert_eq!(parse_into(&bytes, &mut rows).unwrap().ntff.profile.t0_source, T0Source::EarliestRecord);
    check_streamed_equals_parsed(&bytes);
    // damaged and cut files
    let bytes = writer::write(&sample());
    let mut x: u64 = 0x0123_4567_89AB_CDEF;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..500 {
        let mut b = bytes.clone();
        for _ in 0..(next() % 8 + 1) {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        if next() % 4 == 0 {
            let cut = (next() % b.len() as u64) as usize;
            b.truncate(cut);
        }
        check_streamed_equals_parsed(&b);
    }
}
