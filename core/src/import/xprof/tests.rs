//! Fixtures: XSpaces written with the same prost messages; tool JSON written inline.

use super::proto::*;
use crate::import::{import_bytes, NoProgress};
use crate::model::WarningKind;
use crate::model::{ArgValue, Cell, GroupKind, TableKind, Trace};

fn xspace(planes: &[XPlane]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in planes {
        prost::encoding::message::encode(1, p, &mut out);
    }
    out
}

fn stat(id: i64) -> XStat {
    XStat { metadata_id: id, ..Default::default() }
}

fn device_plane() -> XPlane {
    let mut p = XPlane { id: 3, name: "/device:GPU:0".into(), ..Default::default() };
    p.event_metadata.insert(
        1,
        XEventMetadata {
            id: 1,
            name: "fusion.1".into(),
            display_name: "fusion".into(),
            ..Default::default()
        },
    );
    p.event_metadata.insert(2, XEventMetadata { id: 2, name: "gemm".into(), ..Default::default() });
    p.stat_metadata.insert(7, XStatMetadata { id: 7, name: "grid".into(), ..Default::default() });
    p.stat_metadata.insert(8, XStatMetadata { id: 8, name: "kind".into(), ..Default::default() });
    p.stat_metadata.insert(9, XStatMetadata { id: 9, name: "compute".into(), ..Default::default() });
    p.lines.push(XLine {
        id: 1,
        name: "Stream #1".into(),
        timestamp_ns: 1_000,
        events: vec![
            // 1_000 ns + 1_500 ps = 1_001.5 ns → 1_001; end 1_000 + (1_500 + 2_000) ps = 1_003.5 → 1_003
            XEvent {
                metadata_id: 1,
                offset_ps: Some(1_500),
                duration_ps: 2_000,
                stats: vec![
                    XStat { str_value: Some(b"1,1,1".to_vec()), ..stat(7) },
                    XStat { ref_value: Some(9), ..stat(8) },
                ],
                ..Default::default()
            },
            XEvent { metadata_id: 2, offset_ps: Some(10_000), duration_ps: 0, ..Default::default() },
            XEvent { metadata_id: 99, offset_ps: Some(20_000), duration_ps: 1_000, ..Default::default() },
        ],
        ..Default::default()
    });
    p
}

fn host_plane() -> XPlane {
    let mut p = XPlane { id: 1, name: "/host:CPU".into(), ..Default::default() };
    p.event_metadata.insert(1, XEventMetadata { id: 1, name: "train_step".into(), ..Default::default() });
    p.lines.push(XLine {
        id: 77,
        name: "python".into(),
        timestamp_ns: 500,
        events: vec![XEvent {
            metadata_id: 1,
            offset_ps: Some(0),
            duration_ps: 5_000_000,
            ..Default::default()
        }],
        ..Default::default()
    });
    p
}

fn load(bytes: &[u8]) -> Trace {
    let t = import_bytes("host.xplane.pb", bytes, &mut NoProgress).expect("loads");
    t.validate().expect("valid");
    t
}

#[test]
fn planes_lines_events_stats() {
    let env = XPlane {
        name: "Task Environment".into(),
        stat_metadata: [(
            1,
            XStatMetadata { id: 1, name: "profile_start_time".into(), ..Default::default() },
        )]
        .into(),
        stats: vec![XStat { uint64_value: Some(42), ..stat(1) }],
        ..Default::default()
    };
    let t = load(&xspace(&[
        host_plane(),
        device_plane(),
        env,
        XPlane { name: "/host:metadata".into(), ..Default::default() },
    ]));
    assert_eq!(t.format, "xplane");
    assert_eq!(t.slice_count(), 4);
    let dev = t.groups.iter().find(|g| t.str(g.name) == "/device:GPU:0").expect("device group");
    assert_eq!(dev.kind, GroupKind::Device);
    let host = t.groups.iter().find(|g| t.str(g.name) == "/host:CPU").expect("host group");
    assert_eq!(host.kind, GroupKind::Process);
    let tr = t.track(dev.tracks[0]);
    assert_eq!(t.str(tr.name), "Stream #1");
    let i = (0..tr.slices.len()).find(|&i| t.str(tr.slices.name[i]) == "fusion.1").expect("fusion");
    assert_eq!((tr.slices.start_ns[i], tr.slices.dur_ns.at(i)), (1_001, 2));
    let args: Vec<(String, String)> = t
        .args
        .get(tr.slices.args[i])
        .map(|(k, v)| {
            let v = match v {
                ArgValue::Str(s) => t.str(s).to_string(),
                other => format!("{other:?}"),
            };
            (t.str(k).to_string(), v)
        })
        .collect();
    assert_eq!(
        args,
        vec![
            ("display_name".into(), "fusion".into()),
            ("grid".into(), "1,1,1".into()),
            ("kind".into(), "compute".into())
        ]
    );
    assert!(t
        .tracks
        .iter()
        .any(|tr| (0..tr.slices.len()).any(|i| t.str(tr.slices.name[i]) == "<event metadata 99>")));
    assert_eq!(t.warnings.count_of(WarningKind::XplaneMissingEventMetadata), 1);
    assert_eq!(t.warnings.count_of(WarningKind::XplanePlanesWithoutEvents), 1);
    assert!(t
        .metadata
        .entries
        .iter()
        .any(|(k, v)| k == "Task Environment / profile_start_time" && v == "42"));
}

#[test]
fn damaged_xspaces_load_in_part_or_fail_typed() {
    let bytes = xspace(&[host_plane(), device_plane()]);
    // cut inside the second plane: the first one stays
    let first_len = xspace(&[host_plane()]).len();
    let t = load(&bytes[..first_len + 10]);
    assert_eq!(t.slice_count(), 1);
    assert_eq!(t.warnings.count_of(WarningKind::XplaneTruncated), 1);
    for cut in 1..bytes.len() {
        if let Ok(t) = import_bytes("x.xplane.pb", &bytes[..cut], &mut NoProgress) {
            t.validate().expect("valid");
        }
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(7) {
        flipped[i] ^= 0x5a;
        if let Ok(t) = import_bytes("x.xplane.pb", &flipped, &mut NoProgress) {
            t.validate().expect("valid");
        }
    }
}

#[test]
fn tool_json_becomes_tables() {
    let overview = br#"[{"cols":[{"id":"op","label":"Operation","type":"string"},{"id":"t","label":"Time (%)","type":"number"}],
        "rows":[{"c":[{"v":"conv"},{"v":12.5}]},{"c":[{"v":"infeed"}]}],"p":{"remark":"ok"}}]"#;
    let t = import_bytes("run.overview_page.json", overview, &mut NoProgress).expect("loads");
    t.validate().expect("valid");
    assert_eq!(t.format, "xprof-tools");
    assert_eq!(t.tables.len(), 2);
    let tb = &t.tables[0];
    assert_eq!(tb.kind, TableKind::XprofTool);
    assert_eq!(tb.section, "overview_page: table 1");
    assert_eq!(tb.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), vec!["Operation", "Time (%)"]);
    assert_eq!(
        tb.rows,
        vec![
            vec![Cell::Text("conv".into()), Cell::Float(12.5)],
            vec![Cell::Text("infeed".into()), Cell::Empty]
        ]
    );
    assert_eq!(t.tables[1].rows, vec![vec![Cell::Text("remark".into()), Cell::Text("ok".into())]]);
    assert_eq!(t.warnings.count_of(WarningKind::XprofToolNotDrawn), 1);

    let op = br#"{"byCategory":{"name":"all","metrics":{"time":1},"children":[
        {"name":"a","metrics":{"time":0.7,"flops":0.1},"xla":{"op":"dot"},"children":[{"name":"a.1","children":[]}]},
        {"name":"b","metrics":{"time":0.3},"children":[]}]}}"#;
    let t = import_bytes("x.json", op, &mut NoProgress).expect("op profile by content");
    let tb = &t.tables[0];
    assert_eq!(tb.section, "op_profile: byCategory");
    let names: Vec<String> =
        (0..tb.rows.len()).map(|r| tb.cell(r, "name").expect("name").display()).collect();
    assert_eq!(names, vec!["all", "a", "a.1", "b"]);
    assert_eq!(tb.cell(2, "depth"), Some(&Cell::Int(2)));
    assert_eq!(tb.cell(1, "metrics.flops"), Some(&Cell::Float(0.1)));
    assert_eq!(tb.cell(1, "xla.op"), Some(&Cell::Text("dot".into())));

    let pod = br#"{"podStatsSequence":{"podStatsMap":[{"stepNum":3,"allReduceOpDb":[{"name":"ar","durationUs":2.5}],
        "podStatsPerCore":{"0":{"x":1},"1":{"x":2}}}]},"runEnvironment":{"tpuType":"v3","hostCount":4}}"#;
    let t = import_bytes("p.pod_viewer.json", pod, &mut NoProgress).expect("pod viewer");
    let sections: Vec<&str> = t.tables.iter().map(|t| t.section.as_str()).collect();
    assert!(sections.contains(&"pod_viewer: podStatsSequence.podStatsMap[0].allReduceOpDb"), "{sections:?}");
    assert!(
        sections.contains(&"pod_viewer: podStatsSequence.podStatsMap[0].podStatsPerCore"),
        "{sections:?}"
    );
    assert!(sections.contains(&"pod_viewer: runEnvironment"), "{sections:?}");
    assert!(import_bytes("q.op_profile.json", b"{\"byCategory\": 3}", &mut NoProgress).is_err());
}
