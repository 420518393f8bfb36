//! Fixtures: traces written with the same prost messages, packet by packet.

use super::proto::*;
use crate::import::{import_bytes, ImportError, NoProgress};
use crate::model::WarningKind;
use crate::model::{ArgValue, Trace};
use prost::Message;

fn trace_bytes(packets: &[TracePacket]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in packets {
        prost::encoding::message::encode(1, p, &mut out);
    }
    out
}

fn load(packets: &[TracePacket]) -> Trace {
    let t = import_bytes("t.pftrace", &trace_bytes(packets), &mut NoProgress).expect("loads");
    t.validate().expect("valid");
    assert_eq!(t.format, "perfetto");
    t
}

fn pkt(seq: u32, ts: u64) -> TracePacket {
    TracePacket { trusted_packet_sequence_id: Some(seq), timestamp: Some(ts), ..Default::default() }
}

fn thread_track(uuid: u64, pid: i32, tid: i32, name: &str) -> TrackDescriptor {
    TrackDescriptor {
        uuid: Some(uuid),
        thread: Some(ThreadDescriptor {
            pid: Some(pid),
            tid: Some(tid),
            thread_name: Some(name.into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ev(kind: i32, track: u64) -> TrackEvent {
    TrackEvent { r#type: Some(kind), track_uuid: Some(track), ..Default::default() }
}

fn names(t: &Trace) -> Vec<(String, i64, i64)> {
    let mut v: Vec<(String, i64, i64)> = t
        .tracks
        .iter()
        .flat_map(|tr| {
            (0..tr.slices.len()).map(move |i| {
                (t.str(tr.slices.name[i]).to_string(), tr.slices.start_ns[i], tr.slices.dur_ns.at(i))
            })
        })
        .collect();
    v.sort();
    v
}

#[test]
fn begin_end_pairs_interned_names_and_merged_args() {
    let mut clear = pkt(1, 0);
    clear.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
    clear.track_descriptor = Some(thread_track(7, 10, 11, "main"));
    clear.interned_data = Some(InternedData {
        event_names: vec![InternedName { iid: Some(1), name: Some("step".into()) }],
        event_categories: vec![InternedName { iid: Some(2), name: Some("train".into()) }],
        debug_annotation_names: vec![InternedName { iid: Some(3), name: Some("batch".into()) }],
        ..Default::default()
    });
    let mut b = pkt(1, 100);
    b.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
    b.track_event = Some(TrackEvent {
        name_iid: Some(1),
        category_iids: vec![2],
        debug_annotations: vec![DebugAnnotation {
            name_iid: Some(3),
            int_value: Some(4),
            ..Default::default()
        }],
        ..ev(TYPE_SLICE_BEGIN, 7)
    });
    let mut inner = pkt(1, 120);
    inner.track_event = Some(TrackEvent { name: Some("inner".into()), ..ev(TYPE_SLICE_BEGIN, 7) });
    let mut inner_end = pkt(1, 130);
    inner_end.track_event = Some(ev(TYPE_SLICE_END, 7));
    let mut e = pkt(1, 250);
    e.track_event = Some(TrackEvent {
        debug_annotations: vec![DebugAnnotation {
            name: Some("loss".into()),
            double_value: Some(0.5),
            ..Default::default()
        }],
        ..ev(TYPE_SLICE_END, 7)
    });
    let mut i = pkt(1, 200);
    i.track_event = Some(TrackEvent { name: Some("mark".into()), ..ev(TYPE_INSTANT, 7) });
    // unsorted on purpose: the end of the outer slice before the instant in the file
    let t = load(&[clear, b, inner, inner_end, e, i]);
    assert_eq!(names(&t), vec![("inner".into(), 120, 10), ("step".into(), 100, 150)]);
    assert_eq!(t.instant_count(), 1);
    let tr = t.tracks.iter().find(|tr| tr.slices.len() == 2).expect("thread track");
    assert_eq!(t.str(tr.name), "main (11)");
    assert_eq!(t.str(t.groups[tr.group.idx()].name), "process 10");
    let k = (0..2).find(|&k| t.str(tr.slices.name[k]) == "step").expect("step");
    assert_eq!(t.str(tr.slices.category[k]), "train");
    let args: Vec<(String, ArgValue)> =
        t.args.get(tr.slices.args[k]).map(|(k, v)| (t.str(k).to_string(), v)).collect();
    assert_eq!(args[0], ("batch".into(), ArgValue::Int(4)));
    assert_eq!(args[1], ("loss".into(), ArgValue::Float(0.5)));
}

#[test]
fn packets_needing_lost_state_are_dropped() {
    let mut p = pkt(3, 10);
    p.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
    p.track_event = Some(TrackEvent { name: Some("x".into()), ..ev(TYPE_INSTANT, 0) });
    let mut ok = pkt(3, 20);
    ok.track_event = Some(TrackEvent { name: Some("y".into()), ..ev(TYPE_INSTANT, 0) });
    let t = load(&[p, ok]);
    assert_eq!(t.instant_count(), 1);
    assert_eq!(t.warnings.count_of(WarningKind::PerfettoIncrementalStateLost), 1);
}

#[test]
fn incremental_counters_with_multiplier_and_extra_values() {
    let mut d = pkt(1, 0);
    d.incremental_state_cleared = Some(true);
    d.track_descriptor = Some(TrackDescriptor {
        uuid: Some(5),
        name: Some("bytes".into()),
        counter: Some(CounterDescriptor {
            unit_multiplier: Some(1000),
            is_incremental: Some(true),
            unit: Some(3),
            ..Default::default()
        }),
        ..Default::default()
    });
    let mut d2 = pkt(1, 0);
    d2.track_descriptor = Some(TrackDescriptor {
        uuid: Some(6),
        name: Some("temp".into()),
        counter: Some(CounterDescriptor::default()),
        ..Default::default()
    });
    let mut c1 = pkt(1, 10);
    c1.track_event = Some(TrackEvent { counter_value: Some(2), ..ev(TYPE_COUNTER, 5) });
    let mut c2 = pkt(1, 20);
    c2.track_event = Some(TrackEvent {
        counter_value: Some(3),
        extra_double_counter_track_uuids: vec![6],
        extra_double_counter_values: vec![36.5],
        ..ev(TYPE_COUNTER, 5)
    });
    let t = load(&[d, d2, c1, c2]);
    assert_eq!(t.counter_sample_count(), 3);
    let c = t.counters.iter().find(|c| t.str(c.name) == "bytes").expect("counter");
    assert_eq!(c.value, vec![2000.0, 5000.0]);
    assert_eq!(t.str(c.unit), "bytes");
    let temp = t.counters.iter().find(|c| t.str(c.name) == "temp").expect("extra counter");
    assert_eq!(temp.value, vec![36.5]);
}

#[test]
fn flow_ids_chain_and_terminate() {
    let mut d = pkt(1, 0);
    d.track_descriptor = Some(thread_track(1, 1, 1, "a"));
    let mut d2 = pkt(1, 0);
    d2.track_descriptor = Some(thread_track(2, 1, 2, "b"));
    let complete = |ts: u64, track: u64, name: &str, flows: Vec<u64>, term: Vec<u64>| {
        let mut b = pkt(1, ts);
        b.track_event = Some(TrackEvent {
            name: Some(name.into()),
            flow_ids: flows,
            terminating_flow_ids: term,
            ..ev(1, track)
        });
        let mut e = pkt(1, ts + 5);
        e.track_event = Some(ev(TYPE_SLICE_END, track));
        [b, e]
    };
    let mut ps = vec![d, d2];
    ps.extend(complete(10, 1, "send", vec![9], vec![]));
    ps.extend(complete(20, 2, "relay", vec![9], vec![]));
    ps.extend(complete(30, 1, "recv", vec![], vec![9]));
    ps.extend(complete(40, 2, "late", vec![], vec![9])); // chain already ended: no flow
    let t = load(&ps);
    assert_eq!(t.slice_count(), 4);
    assert_eq!(t.flows.len(), 2);
}

#[test]
fn sequence_scoped_incremental_clock_is_converted() {
    let mut cs = pkt(1, 0);
    cs.timestamp = None;
    cs.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
    cs.clock_snapshot = Some(ClockSnapshot {
        clocks: vec![
            Clock { clock_id: Some(CLOCK_BOOTTIME), timestamp: Some(1_000_000), ..Default::default() },
            Clock {
                clock_id: Some(64),
                timestamp: Some(50),
                is_incremental: Some(true),
                unit_multiplier_ns: Some(1000),
            },
        ],
        primary_trace_clock: None,
    });
    cs.trace_packet_defaults =
        Some(TracePacketDefaults { timestamp_clock_id: Some(64), track_event_defaults: None });
    let mut a = pkt(1, 2); // 52 µs-units → 1_000_000 + 2 × 1000
    a.track_event = Some(TrackEvent { name: Some("a".into()), ..ev(TYPE_INSTANT, 0) });
    let mut b = pkt(1, 3); // 55 → 1_000_000 + 5 × 1000
    b.track_event = Some(TrackEvent { name: Some("b".into()), ..ev(TYPE_INSTANT, 0) });
    let t = load(&[cs, a, b]);
    let ts: Vec<i64> = t.tracks.iter().flat_map(|tr| tr.instants.ts_ns.clone()).collect();
    assert_eq!(ts, vec![1_002_000, 1_005_000]);
}

#[test]
fn compressed_packets_and_skipped_sources() {
    use std::io::Write;
    let mut d = pkt(1, 0);
    d.track_descriptor = Some(thread_track(1, 1, 1, "a"));
    let mut i = pkt(1, 5);
    i.track_event = Some(TrackEvent { name: Some("x".into()), ..ev(TYPE_INSTANT, 1) });
    let inner = trace_bytes(&[d, i]);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).expect("zlib");
    let outer = TracePacket { compressed_packets: Some(z.finish().expect("zlib")), ..Default::default() };
    let mut bytes = trace_bytes(&[outer]);
    // an ftrace packet (field 1 of TracePacket), written by hand
    let mut ftrace = Vec::new();
    prost::encoding::bytes::encode(1, &vec![0u8; 3], &mut ftrace);
    prost::encoding::bytes::encode(1, &ftrace, &mut bytes);
    let t = import_bytes("c.pftrace", &bytes, &mut NoProgress).expect("loads");
    t.validate().expect("valid");
    assert_eq!(t.instant_count(), 1);
    let w = t
        .warnings
        .entries
        .iter()
        .find(|w| w.kind == WarningKind::PerfettoSkippedDataSources)
        .expect("warning");
    assert!(w.example.contains("ftrace_events ×1"), "{}", w.example);
}

#[test]
fn truncated_stream_keeps_what_came_before() {
    let mut ps = Vec::new();
    for k in 0..10u64 {
        let mut p = pkt(1, k * 10);
        p.track_event = Some(TrackEvent { name: Some(format!("e{k}")), ..ev(TYPE_INSTANT, 0) });
        ps.push(p);
    }
    let bytes = trace_bytes(&ps);
    let t = import_bytes("t.pftrace", &bytes[..bytes.len() - 3], &mut NoProgress).expect("partial load");
    t.validate().expect("valid");
    assert_eq!(t.instant_count(), 9);
    assert_eq!(t.warnings.count_of(WarningKind::PerfettoTruncated), 1);
    // every cut gives a load or a typed error, never a panic
    for cut in 1..bytes.len() {
        if let Ok(t) = import_bytes("t.pftrace", &bytes[..cut], &mut NoProgress) {
            t.validate().expect("valid");
        }
    }
}

#[test]
fn foreign_bytes_are_not_taken() {
    // an unnamed protobuf without timestamps / sequence ids is not sniffed as Perfetto
    let x = TrackDescriptor { uuid: Some(1), ..Default::default() };
    let mut bytes = Vec::new();
    prost::encoding::message::encode(1, &x, &mut bytes);
    assert!(import_bytes("blob.bin", &bytes, &mut NoProgress).is_err());
    // a named file that is not a packet stream is a typed error
    match import_bytes("x.pftrace", b"\x0a\xff\xff\xff\xff\x0f", &mut NoProgress) {
        Err(ImportError::Malformed { .. }) | Err(ImportError::UnknownFormat(_)) => {}
        other => panic!("{other:?}"),
    }
    let _ = TracePacket::default().encode_to_vec();
}

#[test]
fn packet_shape_bounds_what_decoding_would_build() {
    // track event: 3 flow ids (packed fixed64 flow_ids = 47), 2 extra counter values (packed
    // varints = 12), one debug annotation of 4 bytes
    let mut ev = vec![0x48, 3];
    ev.extend([0xFA, 0x02, 24]);
    ev.extend([0u8; 24]);
    ev.extend([0x62, 2, 1, 2]);
    ev.extend([0x22, 4, 0x52, 2, 0x61, 0x62]);
    let mut p = vec![0x5A, ev.len() as u8];
    p.extend(&ev);
    // a clock snapshot of 3 empty clocks (6 bytes)
    p.extend([0x32, 6, 0x0A, 0, 0x0A, 0, 0x0A, 0]);
    let s = super::packet_shape(&p);
    assert_eq!(s, super::PacketShape { flows: 3, values: 5, messages: 2 + 3 });
}
