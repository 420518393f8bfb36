//! Per-phase and damage tests on tiny inline traces.

use super::*;
use crate::import::{import_bytes, ImportError, NoProgress};
use crate::model::WarningKind;
use crate::model::{ArgValue, GroupKind, SliceRef, TrackKind};
use crate::Trace;

fn load(json: &str) -> Trace {
    match import_bytes("t.json", json.as_bytes(), &mut NoProgress) {
        Ok(t) => t,
        Err(e) => panic!("import failed: {e}\n{json}"),
    }
}

fn load_err(json: &str) -> ImportError {
    match import_bytes("t.json", json.as_bytes(), &mut NoProgress) {
        Ok(t) => panic!("expected an error, got a trace with {} slices", t.slice_count()),
        Err(e) => e,
    }
}

/// (track label, start, dur, depth) of every slice named `name`.
fn slices(t: &Trace, name: &str) -> Vec<(String, i64, i64, usize)> {
    let mut v = Vec::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        for i in 0..tr.slices.len() {
            if t.str(tr.slices.name[i]) == name {
                v.push((
                    t.track_label(crate::model::TrackId(ti as u32)),
                    tr.slices.start_ns[i],
                    tr.slices.dur_ns.at(i),
                    tr.slices.depth_of(i),
                ));
            }
        }
    }
    v
}

fn one(t: &Trace, name: &str) -> (String, i64, i64, usize) {
    let v = slices(t, name);
    assert_eq!(v.len(), 1, "slices named {name}: {v:?}");
    v.into_iter().next().unwrap()
}

fn slice_name(t: &Trace, r: SliceRef) -> &str {
    t.str(t.track(r.track).slices.name[r.index as usize])
}

fn flows(t: &Trace) -> Vec<(String, String)> {
    let mut v: Vec<_> = t
        .flows
        .iter()
        .map(|f| (slice_name(t, f.from).to_string(), slice_name(t, f.to).to_string()))
        .collect();
    v.sort();
    v
}

fn instants(t: &Trace) -> Vec<(String, String, i64)> {
    let mut v = Vec::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        for i in 0..tr.instants.len() {
            v.push((
                t.track_label(crate::model::TrackId(ti as u32)),
                t.str(tr.instants.name[i]).to_string(),
                tr.instants.ts_ns[i],
            ));
        }
    }
    v
}

fn args(t: &Trace, name: &str) -> Vec<(String, String)> {
    for tr in &t.tracks {
        for i in 0..tr.slices.len() {
            if t.str(tr.slices.name[i]) == name {
                return t.args_display(tr.slices.args[i]);
            }
        }
    }
    panic!("no slice {name}")
}

#[test]
fn sniffing() {
    assert_eq!(sniff(br#"{"traceEvents":[]}"#), Sniff::Yes);
    assert_eq!(sniff(b"\xEF\xBB\xBF  [ {\"name\":\"a\"}"), Sniff::Yes);
    assert_eq!(sniff(b"[\n  {\"ph\":\"X\""), Sniff::Yes);
    assert_eq!(sniff(b"[\n\n"), Sniff::Maybe);
    assert_eq!(sniff(b"[[1,2]]"), Sniff::Maybe);
    assert_eq!(sniff(br#"{"schema": "1.0.1", "nodes": []}"#), Sniff::Maybe);
    assert_eq!(sniff(b"\x0a\x04abcd"), Sniff::No);
    assert_eq!(sniff(b"# markdown"), Sniff::No);
    assert_eq!(sniff(b"PK\x03\x04"), Sniff::No);
    assert_eq!(sniff(b""), Sniff::No);
}

#[test]
fn complete_events_exact_time() {
    let t = load(
        r#"[{"name":"a","ph":"X","ts":12.345,"dur":0.5,"pid":1,"tid":2,"cat":"c"},
                    {"name":"b","ph":"X","ts":"12.4","dur":0.1,"pid":1,"tid":2}]"#,
    );
    assert_eq!(t.format, "chrome-json");
    assert_eq!(one(&t, "a"), ("Process 1 / thread 2".into(), 12_345, 500, 0));
    assert_eq!(one(&t, "b"), ("Process 1 / thread 2".into(), 12_400, 100, 1));
    assert_eq!(t.str(t.tracks[0].slices.category[0]), "c");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    // 19 significant digits: exact, no f64 rounding
    let t = load(r#"[{"name":"a","ph":"X","ts":1694039959123456.789,"dur":1,"pid":1,"tid":1}]"#);
    assert_eq!(one(&t, "a").1, 1_694_039_959_123_456_789);
}

#[test]
fn begin_end_nesting_and_damage() {
    let t = load(
        r#"[{"name":"outer","ph":"B","ts":10,"pid":1,"tid":1,"args":{"x":1}},
            {"name":"inner","ph":"B","ts":11,"pid":1,"tid":1},
            {"ph":"E","ts":12,"pid":1,"tid":1},
            {"ph":"E","ts":20,"pid":1,"tid":1,"args":{"y":2}},
            {"ph":"E","ts":21,"pid":1,"tid":1},
            {"name":"open","ph":"B","ts":25,"pid":1,"tid":1},
            {"name":"late","ph":"X","ts":30,"dur":10,"pid":1,"tid":9}]"#,
    );
    assert_eq!(one(&t, "outer").1..one(&t, "outer").2, 10_000..10_000);
    assert_eq!(one(&t, "inner"), ("Process 1 / thread 1".into(), 11_000, 1_000, 1));
    // E args merged into the B's
    assert_eq!(args(&t, "outer"), vec![("x".into(), "1".into()), ("y".into(), "2".into())]);
    assert_eq!(t.warnings.count_of(WarningKind::UnmatchedEnd), 1);
    assert_eq!(t.warnings.count_of(WarningKind::UnclosedBegin), 1);
    // closed at the end of the trace (40 µs)
    assert_eq!(one(&t, "open").2, 15_000);
}

#[test]
fn instants_by_scope() {
    let t = load(
        r#"{"traceEvents":[{"name":"t","ph":"i","ts":1,"pid":1,"tid":2,"s":"t"},
            {"name":"legacy","ph":"I","ts":2,"pid":1,"tid":2},
            {"name":"p","ph":"i","ts":3,"pid":1,"tid":2,"s":"p"},
            {"name":"g","ph":"i","ts":4,"pid":1,"tid":2,"s":"g"},
            {"name":"mark","ph":"R","ts":5,"pid":1,"tid":2},
            {"name":"sample","ph":"P","ts":6,"pid":1,"tid":2}]}"#,
    );
    let mut v = instants(&t);
    v.sort_by_key(|x| x.2);
    let labels: Vec<(&str, &str)> = v.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        labels,
        vec![
            ("Process 1 / thread 2", "t"),
            ("Process 1 / thread 2", "legacy"),
            ("Process 1 / Process events", "p"),
            ("Global / Global events", "g"),
            ("Process 1 / thread 2", "mark"),
            ("Process 1 / thread 2", "sample"),
        ]
    );
    assert_eq!(t.instant_count(), 6);
}

#[test]
fn counters_series_ids_and_strings() {
    let t = load(
        r#"[{"name":"mem","ph":"C","ts":1,"pid":7,"args":{"value":10}},
            {"name":"mem","ph":"C","ts":2,"pid":7,"args":{"value":"12.5"}},
            {"name":"q","ph":"C","ts":1,"pid":7,"id":"a","args":{"read":1,"write":2}},
            {"name":"q","ph":"C","ts":3,"pid":7,"id":"a","args":{"read":3,"bad":"x"}}]"#,
    );
    let names: Vec<&str> = t.counters.iter().map(|c| t.str(c.name)).collect();
    assert_eq!(names, vec!["mem", "q id: a read", "q id: a write"]);
    assert_eq!(t.counters[0].value, vec![10.0, 12.5]);
    assert_eq!(t.counters[0].ts_ns, vec![1000, 2000]);
    assert_eq!(t.counters[1].value, vec![1.0, 3.0]);
    assert_eq!(t.warnings.count_of(WarningKind::CounterNotNumeric), 1);
    assert_eq!(t.str(t.groups[t.counters[0].group.idx()].name), "Process 7");
}

#[test]
fn metadata_names_and_sort() {
    let t = load(
        r#"[{"name":"a","ph":"X","ts":1,"dur":1,"pid":5,"tid":6},
            {"name":"b","ph":"X","ts":1,"dur":1,"pid":5,"tid":7},
            {"name":"c","ph":"X","ts":1,"dur":1,"pid":8,"tid":8},
            {"name":"process_name","ph":"M","pid":5,"args":{"name":"Browser"}},
            {"name":"process_labels","ph":"M","pid":5,"args":{"labels":"tab 1"}},
            {"name":"process_sort_index","ph":"M","pid":5,"args":{"sort_index":3}},
            {"name":"process_sort_index","ph":"M","pid":8,"args":{"sort_index":-1}},
            {"name":"thread_name","ph":"M","pid":5,"tid":7,"args":{"name":"CrBrowserMain"}},
            {"name":"thread_sort_index","ph":"M","pid":5,"tid":7,"args":{"sort_index":-5}},
            {"name":"num_cpus","ph":"M","pid":5,"args":{"number":8}}]"#,
    );
    let order: Vec<&str> = t.ordered_groups().iter().map(|g| t.str(t.groups[g.idx()].name)).collect();
    assert_eq!(order, vec!["Process 8", "Browser (pid 5) [tab 1]"]);
    assert_eq!(one(&t, "b").0, "Browser (pid 5) [tab 1] / CrBrowserMain");
    let tr = t.track(t.groups[0].tracks[1]);
    assert_eq!(tr.sort_index, -5);
    assert_eq!(t.str(tr.source_id), "7");
    assert_eq!(t.warnings.count_of(WarningKind::MetadataIgnored), 1);
}

#[test]
fn nestable_async() {
    let t = load(
        r#"[{"cat":"net","name":"Request","ph":"b","id":"0x1","ts":10,"pid":1,"tid":1,"args":{"url":"x"}},
            {"cat":"net","name":"Connect","ph":"b","id":"0x1","ts":12,"pid":1,"tid":2},
            {"cat":"net","name":"Sent","ph":"n","id":"0x1","ts":13,"pid":1,"tid":2},
            {"cat":"net","name":"Connect","ph":"e","id":"0x1","ts":15,"pid":1,"tid":2},
            {"cat":"net","name":"Request","ph":"e","id":"0x1","ts":20,"pid":1,"tid":1},
            {"cat":"net","name":"Request","ph":"b","id":"0x2","ts":11,"pid":1,"tid":1},
            {"cat":"net","name":"Request","ph":"e","id2":{"local":"0x2"},"ts":11.5,"pid":1,"tid":1},
            {"cat":"net","name":"Request","ph":"e","id":"0x2","ts":14,"pid":1,"tid":1},
            {"cat":"other","name":"Request","ph":"e","id":"0x1","ts":14,"pid":1,"tid":1}]"#,
    );
    let (track, start, dur, _) = one(&t, "Connect");
    assert_eq!((track.as_str(), start, dur), ("Process 1 / Request", 12_000, 3_000));
    let req = slices(&t, "Request");
    assert_eq!(req.len(), 2);
    assert!(req.iter().all(|r| r.0 == "Process 1 / Request"));
    let tr = t.tracks.iter().find(|tr| t.str(tr.name) == "Request").unwrap();
    assert_eq!(tr.kind, TrackKind::Async);
    // Request 0x1 [10,20] in lane 0; Request 0x2 [11,11.5] and Connect [12,15] in lane 1
    assert_eq!(tr.slices.depth_count(), 2, "overlapping async spans go to lanes");
    assert_eq!(instants(&t), vec![("Process 1 / Request".into(), "Sent".into(), 13_000)]);
    // id2 {"local":"0x2"} in the same process ends the span opened with id "0x2"; the
    // second end of 0x2 and the end with another category have nothing open
    assert_eq!(t.warnings.count_of(WarningKind::UnmatchedAsyncEnd), 2);
}

#[test]
fn legacy_async() {
    let t = load(
        r#"[{"cat":"r","name":"Load","ph":"S","id":7,"ts":0,"pid":1,"tid":1},
            {"cat":"r","name":"Load","ph":"T","id":7,"ts":5,"pid":1,"tid":1,"args":{"step":"parse"}},
            {"cat":"r","name":"Load","ph":"p","id":7,"ts":6,"pid":1,"tid":1},
            {"cat":"r","name":"Load","ph":"F","id":7,"ts":9,"pid":1,"tid":1},
            {"cat":"r","name":"Never","ph":"S","id":8,"ts":1,"pid":1,"tid":1}]"#,
    );
    assert_eq!(one(&t, "Load").1..one(&t, "Load").1 + one(&t, "Load").2, 0..9_000);
    assert_eq!(instants(&t).len(), 2);
    assert_eq!(one(&t, "Never").2, 8_000);
    assert_eq!(t.warnings.count_of(WarningKind::UnclosedAsync), 1);
}

#[test]
fn flow_v1_binding() {
    // f without bp binds to the next slice; f with bp:"e" to the enclosing one; t is a step
    let t = load(
        r#"[{"name":"A","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
            {"name":"B","ph":"X","ts":20,"dur":10,"pid":1,"tid":2},
            {"name":"C","ph":"X","ts":40,"dur":10,"pid":1,"tid":3},
            {"name":"D","ph":"X","ts":60,"dur":10,"pid":1,"tid":4},
            {"cat":"ipc","name":"flow","ph":"f","id":1,"ts":35,"pid":1,"tid":3},
            {"cat":"ipc","name":"flow","ph":"s","id":1,"ts":5,"pid":1,"tid":1},
            {"cat":"ipc","name":"flow","ph":"t","id":1,"ts":25,"pid":1,"tid":2},
            {"cat":"ipc","name":"other","ph":"s","id":1,"ts":6,"pid":1,"tid":1},
            {"cat":"ipc","name":"other","ph":"f","id":1,"ts":65,"pid":1,"tid":4,"bp":"e"},
            {"cat":"ipc","name":"lone","ph":"f","id":9,"ts":65,"pid":1,"tid":4,"bp":"e"}]"#,
    );
    assert_eq!(flows(&t), vec![("A".into(), "B".into()), ("A".into(), "D".into()), ("B".into(), "C".into())]);
    assert_eq!(t.warnings.count_of(WarningKind::FlowWithoutStart), 1);
    // "s s f f" with one id pairs first-in first-out
    let t = load(
        r#"[{"name":"P1","ph":"X","ts":0,"dur":1,"pid":1,"tid":1},
            {"name":"P2","ph":"X","ts":2,"dur":1,"pid":1,"tid":1},
            {"name":"R1","ph":"X","ts":5,"dur":1,"pid":1,"tid":2},
            {"name":"R2","ph":"X","ts":7,"dur":1,"pid":1,"tid":2},
            {"cat":"t","name":"post","ph":"s","id":"0xa","ts":0.5,"pid":1,"tid":1},
            {"cat":"t","name":"post","ph":"s","id":"0xa","ts":2.5,"pid":1,"tid":1},
            {"cat":"t","name":"post","ph":"f","id":"0xa","ts":4,"pid":1,"tid":2},
            {"cat":"t","name":"post","ph":"f","id":"0xa","ts":6.5,"pid":1,"tid":2}]"#,
    );
    assert_eq!(flows(&t), vec![("P1".into(), "R1".into()), ("P2".into(), "R2".into())]);
}

#[test]
fn flow_v2_bind_id() {
    let t = load(
        r#"[{"name":"Src","ph":"X","ts":0,"dur":10,"pid":1,"tid":1,"bind_id":"0x402","flow_out":true},
            {"name":"Mid","ph":"X","ts":20,"dur":10,"pid":1,"tid":2,"bind_id":"0x402","flow_in":true,"flow_out":true},
            {"name":"Dst","ph":"X","ts":40,"dur":10,"pid":1,"tid":3,"bind_id":"0x402","flow_in":true},
            {"name":"Dst2","ph":"B","ts":45,"pid":1,"tid":4,"bind_id":"0x402","flow_in":true},
            {"ph":"E","ts":50,"pid":1,"tid":4}]"#,
    );
    assert_eq!(
        flows(&t),
        vec![("Mid".into(), "Dst".into()), ("Mid".into(), "Dst2".into()), ("Src".into(), "Mid".into())]
    );
}

#[test]
fn args_values() {
    let t = load(
        r#"[{"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":1,"args":{
            "i":-3,"u":18446744073709551615,"f":1.5,"e":1e3,"s":"q\"uote\u00e9","b":true,"n":null,
            "arr":[ [1, 2], [] ],"obj":{ "k" : "v" },"big":123456789012345678901234567890}}]"#,
    );
    let tr = &t.tracks[0];
    let got: Vec<(String, ArgValue)> =
        t.args.get(tr.slices.args[0]).map(|(k, v)| (t.str(k).to_string(), v)).collect();
    assert_eq!(got[0], ("i".into(), ArgValue::Int(-3)));
    assert_eq!(got[1], ("u".into(), ArgValue::UInt(u64::MAX)));
    assert_eq!(got[2], ("f".into(), ArgValue::Float(1.5)));
    assert_eq!(got[3], ("e".into(), ArgValue::Float(1000.0)));
    assert_eq!(got[5], ("b".into(), ArgValue::Bool(true)));
    assert_eq!(got[6], ("n".into(), ArgValue::Null));
    assert!(matches!(got[9].1, ArgValue::Float(_)));
    let shown = t.args_display(tr.slices.args[0]);
    assert_eq!(shown[4], ("s".into(), "q\"uoteé".into()));
    assert_eq!(shown[7], ("arr".into(), "[[1,2],[]]".into()));
    assert_eq!(shown[8], ("obj".into(), "{\"k\":\"v\"}".into()));
    // args before ph (catapult order) are parsed too
    let t = load(r#"[{"args":{"k":1},"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":1}]"#);
    assert_eq!(args(&t, "a"), vec![("k".into(), "1".into())]);
}

#[test]
fn string_and_negative_ids() {
    let t = load(
        r#"[{"name":"span","ph":"X","ts":0,"dur":5,"pid":"Spans","tid":"PyTorch Profiler"},
            {"name":"sync","ph":"X","ts":0,"dur":5,"pid":-1,"tid":-1},
            {"name":"nopid","ph":"X","ts":0,"dur":5}]"#,
    );
    assert_eq!(one(&t, "span").0, "Spans / PyTorch Profiler");
    assert_eq!(one(&t, "sync").0, "Process -1 / thread -1");
    assert_eq!(one(&t, "nopid").0, "Process 0 / thread 0");
}

#[test]
fn object_form_metadata() {
    let t = load(
        r#"{"schemaVersion":1,"deviceProperties":[ {"id":0, "name":"A100"} ],"displayTimeUnit":"ns",
            "traceName":"a\\b","traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}],
            "distributedInfo":{"rank":3},"samples":[],"stackFrames":{}}"#,
    );
    let meta: Vec<(&str, &str)> = t.metadata.entries.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        meta,
        vec![
            ("schemaVersion", "1"),
            ("deviceProperties", "[{\"id\":0,\"name\":\"A100\"}]"),
            ("displayTimeUnit", "ns"),
            ("traceName", "a\\b"),
            ("distributedInfo", "{\"rank\":3}"),
            ("samples", "(2 bytes, not imported)"),
            ("stackFrames", "(2 bytes, not imported)"),
        ]
    );
    assert_eq!(t.format, "pytorch-kineto");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn other_phases_are_counted() {
    let t = load(
        r#"[{},{"ph":"N","id":"1","ts":0,"pid":1,"name":"o"},{"ph":"O","id":"1","ts":1,"pid":1,"name":"o","args":{"snapshot":{}}},
            {"ph":"D","id":"1","ts":2,"pid":1,"name":"o"},{"ph":"v","ts":3,"pid":1},{"ph":"Z","ts":3,"pid":1},
            {"name":"x","ts":1},{"name":"a","ph":"X","ts":null,"dur":1},{"name":"a","ph":"X","dur":1}]"#,
    );
    for (kind, n) in [
        (WarningKind::EmptyEvent, 1),
        (WarningKind::ObjectEventsIgnored, 3),
        (WarningKind::UnsupportedPhase, 1),
        (WarningKind::UnknownPhase, 1),
        (WarningKind::MissingPhase, 1),
        (WarningKind::BadTs, 1),
        (WarningKind::MissingTs, 1),
    ] {
        assert_eq!(t.warnings.count_of(kind), n, "{kind}: {:?}", t.warnings);
    }
    assert_eq!(t.slice_count(), 0);
}

#[test]
fn kineto_gpu_flows_and_steps() {
    let t = load(
        r#"{"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":100,"tid":100,"ts":0.000,"dur":100.000},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":1.000,"dur":20.000,"args":{"External id":3,"Input Dims":[[2,3],[3,4]]}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":2.000,"dur":5.000,"args":{"correlation":42}},
  {"ph":"s","id":42,"pid":100,"tid":100,"ts":2.000,"cat":"ac2g","name":"ac2g"},
  {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10.000,"dur":3.250,"args":{"grid":[1,2,3],"block":[128,1,1],"registers per thread":32,"correlation":42}},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#7","pid":0,"tid":7,"ts":9.999,"dur":4.000},
  {"ph":"f","id":42,"pid":0,"tid":7,"ts":10.000,"cat":"ac2g","name":"ac2g","bp":"e"},
  {"ph":"f","id":43,"pid":100,"tid":100,"ts":2.000,"cat":"ac2g","name":"ac2g","bp":"e"},
  {"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"python3"}},
  {"name":"process_labels","ph":"M","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
  {"name":"thread_name","ph":"M","pid":0,"tid":7,"args":{"name":"stream 7 "}},
  {"name":"process_name","ph":"M","pid":100,"tid":0,"args":{"name":"python3"}},
  {"name":"thread_name","ph":"M","pid":100,"tid":100,"args":{"name":"thread 100 (python3)"}},
  {"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":200.0}
]}"#,
    );
    assert_eq!(t.format, "pytorch-kineto");
    let (track, start, dur, depth) = one(&t, "gemm");
    assert_eq!((track.as_str(), start, dur, depth), ("GPU 0 / stream 7", 10_000, 3_250, 1));
    let gpu = t.groups.iter().find(|g| t.str(g.name) == "GPU 0").unwrap();
    assert_eq!(gpu.kind, GroupKind::Device);
    assert_eq!(t.track(gpu.tracks[0]).kind, TrackKind::Stream);
    assert_eq!(one(&t, "cudaLaunchKernel").0, "python3 (pid 100) / thread 100 (python3)");
    assert_eq!(flows(&t), vec![("cudaLaunchKernel".into(), "gemm".into())]);
    assert_eq!(t.str(t.flows[0].category), "ac2g");
    // only the host ProfilerStep makes an iteration; lone Kineto `f` is not damage
    assert_eq!(t.iterations.len(), 1);
    assert_eq!((t.iterations[0].number, t.iterations[0].start_ns, t.iterations[0].end_ns), (7, 0, 100_000));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let a = args(&t, "gemm");
    assert_eq!(a[0], ("grid".into(), "[1,2,3]".into()));
    assert_eq!(a[2], ("registers per thread".into(), "32".into()));
}

#[test]
fn furiosa_dialect() {
    let t = load(
        r#"[{"name":"Run","cat":"","ph":"B","ts":1.5,"pid":9,"tid":16,"args":{"a":"1"}},
            {"name":"Inference","cat":"Nux","ph":"B","ts":2,"pid":9,"tid":16},
            {"name":"Inference","cat":"Nux","ph":"E","ts":3,"pid":9,"tid":16},
            {"name":"Run","cat":"","ph":"E","ts":4,"pid":9,"tid":16},
            {"name":"Task(pe,exec)","cat":"NPU","ph":"B","ts":0.5,"pid":0,"tid":65536,"id":"0"},
            {"name":"Load(84,84)","cat":"NPU","ph":"X","ts":0.6,"dur":0.0,"pid":0,"tid":65536},
            {"name":"Task(pe,exec)","cat":"NPU","ph":"E","ts":0.9,"pid":0,"tid":65536,"id":"0"}]"#,
    );
    assert_eq!(t.format, "furiosa");
    assert_eq!(one(&t, "Load(84,84)"), ("NPU 0 / NPU queue 65536".into(), 600, 0, 1));
    assert_eq!(one(&t, "Inference").3, 1);
}

#[test]
fn damaged_containers() {
    // missing ] (spec-allowed), trailing comma
    let t = load(r#"[ {"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":3}, "#);
    assert_eq!(t.slice_count(), 1);
    assert!(t.warnings.is_empty());
    // trailing comma in the object form
    let t = load(
        r#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1},{"name":"b","ph":"X","ts":3,"dur":1},]}"#,
    );
    assert_eq!(t.slice_count(), 2);
    assert!(t.warnings.is_empty());
    // leading comma: loaded, with a warning
    let t = load(r#"[,{"name":"a","ph":"X","ts":1,"dur":1}]"#);
    assert_eq!(t.slice_count(), 1);
    assert_eq!(t.warnings.count_of(WarningKind::StrayComma), 1);
    // truncated object form: complete events kept
    let t = load(r#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1},{"name":"b","ph":"X","ts":3,"d"#);
    assert_eq!(t.slice_count(), 1);
    assert_eq!(t.warnings.count_of(WarningKind::TruncatedFile), 1);
    // truncated inside the array form's last event
    let t = load(r#"[{"name":"a","ph":"X","ts":1,"dur":1},{"name":"b","ph":"X","ts":3,"d"#);
    assert_eq!(t.warnings.count_of(WarningKind::TruncatedEvent), 1);
    // raw control characters inside strings are accepted
    let t = load("[{\"name\":\"a\u{1}b\tc\",\"ph\":\"X\",\"ts\":1,\"dur\":1}]");
    assert_eq!(one(&t, "a\u{1}b\tc").1, 1000);
    // a syntax error after some events: keep them, say where it stopped
    let t = load(
        r#"[{"name":"a","ph":"X","ts":1,"dur":1},{"name":"b" "ph":"X"},{"name":"c","ph":"X","ts":1,"dur":1}]"#,
    );
    assert_eq!(t.slice_count(), 1);
    assert_eq!(t.warnings.count_of(WarningKind::SyntaxError), 1);
    assert!(t.warnings.entries[0].example.contains("at byte 50"), "{:?}", t.warnings);
}

#[test]
fn errors_name_the_problem() {
    let e = load_err(r#"[{"name" 1}]"#).to_string();
    assert!(e.contains("syntax error") && e.contains("expected ':'") && e.contains("at byte 9"), "{e}");
    let e = load_err(r#"{"schema":"1.0.1","pid":1,"nodes":[{"name":"x"}]}"#).to_string();
    assert!(e.contains("execution trace"), "{e}");
    let e = load_err(r#"{"foo":1,"bar":[1]}"#).to_string();
    assert!(e.contains("without traceEvents") && e.contains("foo, bar"), "{e}");
    let e = load_err("[[-1, 1, 37888, 7], [-1, 1, 512, 7]]").to_string();
    assert!(e.contains("memory timeline"), "{e}");
    let e = load_err(r#"{"traceEvents": [{"name":"a","ph":"X""#).to_string();
    assert!(!e.is_empty());
    assert!(matches!(load_err(r#"{"a":"#), ImportError::Malformed { .. }));
    assert!(matches!(load_err("[1, 2]"), ImportError::UnknownFormat(_)));
    let t = load(r#"[{"ph":"X","ts":1,"dur":1,"name":"a"}, 1, [2], {"ph":"X","ts":3,"dur":1,"name":"b"}]"#);
    assert_eq!((t.slice_count(), t.warnings.count_of(WarningKind::NonObjectEvent)), (2, 2));
    assert!(matches!(load_err("   "), ImportError::UnknownFormat(_)));
}

#[test]
fn cancel_and_progress() {
    let bytes = synth::chrome_trace_json(9 << 20, 3);
    let mut calls = 0;
    let r = import_bytes("s.json", &bytes, &mut |_d: u64, _t: u64| {
        calls += 1;
        false
    });
    assert!(matches!(r, Err(ImportError::Cancelled)));
    assert_eq!(calls, 1);
    let mut last = (0, 0);
    let t = import_bytes("s.json", &bytes, &mut |d: u64, total: u64| {
        assert!(d >= last.0);
        last = (d, total);
        true
    })
    .unwrap();
    assert_eq!(last, (bytes.len() as u64, bytes.len() as u64));
    assert!(t.slice_count() > 10_000);
}

#[test]
fn synthetic_trace_loads_cleanly() {
    let bytes = synth::chrome_trace_json(300_000, 7);
    assert!(bytes.len() >= 300_000);
    let t = load(std::str::from_utf8(&bytes).unwrap());
    assert_eq!(t.format, "pytorch-kineto");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert!(t.slice_count() > 500);
    assert!(!t.flows.is_empty() && !t.iterations.is_empty() && !t.counters.is_empty());
    // every ac2g flow goes from a launch to a device activity
    for f in &t.flows {
        let from = slice_name(&t, f.from);
        assert!(from.starts_with("cuda"), "{from}");
        assert_eq!(t.track(f.to.track).kind, TrackKind::Stream);
    }
    assert_eq!(synth::chrome_trace_json(300_000, 7), bytes, "deterministic");
}

/// Every prefix and a few thousand byte flips of a small trace: no panic, ever.
#[test]
fn never_panics_on_damage() {
    let doc = br#"{"traceEvents":[{"name":"a\"\u00e9","ph":"B","ts":1,"pid":1,"tid":1,"args":{"x":[1,{"y":null}]}},
{"ph":"X","name":"b","ts":"2.5","dur":1,"pid":"p","tid":-2,"bind_id":"0x1","flow_out":true},
{"ph":"s","id":1,"ts":2,"pid":1,"tid":1,"cat":"c","name":"f"},{"ph":"f","bp":"e","id":1,"ts":3,"pid":1,"tid":1,"cat":"c","name":"f"},
{"ph":"C","name":"c","ts":1,"pid":1,"args":{"v":"1"}},{"ph":"b","id2":{"local":"0x2"},"cat":"a","name":"n","ts":1,"pid":1},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},{"ph":"E","ts":9,"pid":1,"tid":1},{}],"displayTimeUnit":"ns","x":{"y":[1,2]}}"#;
    for cut in 0..doc.len() {
        let _ = import_bytes("t.json", &doc[..cut], &mut NoProgress);
    }
    let mut v = doc.to_vec();
    let mut seed = 0x1234_5678_9abc_def0u64;
    let alphabet = b"{}[],:\"\\ 0-9.eEtfnulX\x00\x1f\xff";
    for _ in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pos = (seed % v.len() as u64) as usize;
        let old = v[pos];
        v[pos] = alphabet[(seed >> 32) as usize % alphabet.len()];
        let _ = import_bytes("t.json", &v, &mut NoProgress);
        if seed & 1 == 0 {
            v[pos] = old;
        }
    }
}

#[test]
fn decimal_fast_path_is_exact() {
    use super::args::simple_decimal_for_tests as sd;
    for t in [
        "0.5",
        "1.25",
        "-3.75",
        "0.592593",
        "4.740741",
        "7.827493261455",
        "123456789.012345",
        "0.1",
        "0.3",
        "-0.000001",
    ] {
        assert_eq!(sd(t.as_bytes()), Some(t.parse::<f64>().unwrap()), "{t}");
    }
    for t in ["1", "1.", ".5", "1e3", "1.2.3", "1234567890123456.5", "--1", "-.5"] {
        assert_eq!(sd(t.as_bytes()), None, "{t}");
    }
}

/// The TensorBoard-Neuron plugin's trace files (`neuron_trace.json`, `neuron_op_timeline.json`), from
/// the schema in docs/formats/other-formats.md §3 (no public sample): string pids,
/// `"args": null`, fractional µs, `neuronStartTimestampNs` at the top level.
#[test]
fn tensorboard_neuron_trace_files() {
    let t = load(
        r#"{"displayTimeUnit":"ns","neuronStartTimestampNs":1700000000123456789,"traceEvents":[
{"args": null, "cat": "", "dur": 12.5, "name": "XlaCompile", "ph": "X", "pid": "/host:CPU", "tid": "XLA Ops#1", "ts": 0, "tts": 0},
{"args": null, "cat": "", "dur": 3.25, "name": "dot.1", "ph": "X", "pid": "/host:CPU", "tid": "XLA Ops#1", "ts": 1.5, "tts": 0},
{"args": {"hlo_op":"dot.1"}, "cat": "compute", "dur": 7, "name": "aten::matmul", "ph": "X", "pid": "compute", "tid": "framework ops", "ts": 20},
{"args": null, "cat": "data transfer", "dur": 2, "name": "fused_3", "ph": "X", "pid": "data transfer", "tid": "hlo ops", "ts": 21}]}"#,
    );
    assert_eq!(t.slice_count(), 4);
    let names: Vec<String> = t.groups.iter().map(|g| t.strings.get(g.name).to_string()).collect();
    for want in ["/host:CPU", "compute", "data transfer"] {
        assert!(names.iter().any(|n| n.contains(want)), "no group named {want}: {names:?}");
    }
    // fractional µs kept to the ns; `args: null` is no argument, not an error
    let (_, start_ns, dur_ns, _) = one(&t, "dot.1");
    assert_eq!((start_ns, dur_ns), (1_500, 3_250));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert!(t
        .metadata
        .entries
        .iter()
        .any(|(k, v)| k == "neuronStartTimestampNs" && v == "1700000000123456789"));
}

/// The model (as wire bytes) or the error message of `doc` fed in `chunk`-byte buffers, with the
/// pipelined path taken wherever `pipeline_min_bytes` allows (`usize::MAX`: never).
fn model_bytes(doc: &[u8], chunk: usize, pipeline_min_bytes: usize, lazy: bool) -> Result<Vec<u8>, String> {
    let mut b = crate::model::TraceBuilder::new("chrome-json");
    {
        let mut p = parse::StreamParser::new(&mut b, doc.len() as u64);
        p.pipeline_min_bytes = pipeline_min_bytes;
        p.conv().lazy_file = lazy.then_some(0);
        let mut buf: Vec<u8> = Vec::new();
        let mut off = 0;
        loop {
            let end = (off + chunk).min(doc.len());
            buf.extend_from_slice(&doc[off..end]);
            off = end;
            let last = off == doc.len();
            let used = p.feed(&buf, last, &mut NoProgress).map_err(|e| e.to_string())?;
            buf.drain(..used.min(buf.len()));
            if last {
                break;
            }
        }
        p.finish(&mut NoProgress).map_err(|e| e.to_string())?;
    }
    crate::model::wire::encode(b.finish()).map_err(|e| e.to_string())
}

fn same_both_ways(what: &str, doc: &[u8], chunk: usize, lazy: bool) {
    let serial = model_bytes(doc, chunk, usize::MAX, lazy);
    let piped = model_bytes(doc, chunk, 0, lazy);
    assert!(
        serial == piped,
        "{what} (chunk {chunk}, lazy {lazy}): the pipelined path built another model: {:?} vs {:?}",
        serial.as_ref().map(|v| v.len()),
        piped.as_ref().map(|v| v.len())
    );
}

/// The pipelined path (events delimited ahead of the converter, possibly on another thread)
/// builds exactly the serial path's model: on a Kineto-like trace in several buffer sizes, eager
/// and lazy args, and on every prefix and thousands of byte flips of a damaged trace.
#[test]
fn pipelined_path_builds_the_serial_model() {
    let synth = synth::chrome_trace_json(3 << 20, 11);
    for chunk in [usize::MAX, 1 << 20, 40_000, 997] {
        for lazy in [false, true] {
            same_both_ways("kineto-like", &synth, chunk, lazy);
        }
    }
    // args before ph (not parsed during the scan), B/E, async, flows, metadata, stray and
    // missing commas, a non-object element, malformed args, an empty event
    let doc = br#"{"traceEvents":[{"args":{"k":"v1"},"ph":"X","name":"a","ts":1,"dur":5,"pid":1,"tid":1},
{"name":"a\"\u00e9","ph":"B","ts":1,"pid":1,"tid":1,"args":{"x":[1,{"y":null}],"s":"v2"}},
{"ph":"X","name":"b","ts":"2.5","dur":1,"pid":"p","tid":-2,"bind_id":"0x1","flow_out":true,"args":{"z":"v3"}},,
{"ph":"s","id":1,"ts":2,"pid":1,"tid":1,"cat":"c","name":"f"},{"ph":"f","bp":"e","id":1,"ts":3,"pid":1,"tid":1,"cat":"c","name":"f"}
{"ph":"C","name":"c","ts":1,"pid":1,"args":{"v":"1"}},{"ph":"b","id2":{"local":"0x2"},"cat":"a","name":"n","ts":1,"pid":1},
{"ph":"X","name":"m","ts":4,"dur":1,"pid":1,"tid":1,"args":{"bad":tru}},7,
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},{"ph":"E","ts":9,"pid":1,"tid":1},{}],"displayTimeUnit":"ns","x":{"y":[1,2]}}"#;
    for cut in 0..=doc.len() {
        same_both_ways("prefix", &doc[..cut], usize::MAX, cut % 2 == 0);
    }
    let mut v = doc.to_vec();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let alphabet = b"{}[],:\"\\ 0-9.eEtfnulX\x00\x1f\xff";
    for round in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pos = (seed % v.len() as u64) as usize;
        let old = v[pos];
        v[pos] = alphabet[(seed >> 32) as usize % alphabet.len()];
        same_both_ways("flipped", &v, if round % 3 == 0 { 50 } else { usize::MAX }, round % 2 == 0);
        if seed & 1 == 0 {
            v[pos] = old;
        }
    }
}

#[test]
fn host_categories_are_typed_at_import() {
    use crate::model::HostWork;
    let t = load(
        r#"[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2},
      {"ph":"X","cat":"python_function","name":"train.py(1): step","pid":1,"tid":2,"ts":0,"dur":20},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":2,"ts":0,"dur":30},
      {"ph":"X","cat":"my_lib","name":"mine","pid":1,"tid":3,"ts":0,"dur":5}
    ]"#,
    );
    let class = |cat: &str| {
        let id = (0..t.strings.len() as u32).map(crate::strings::StrId).find(|&s| t.str(s) == cat).unwrap();
        t.host_work_of(id)
    };
    assert_eq!(class("cpu_op"), Some(HostWork::Op));
    assert_eq!(class("cuda_runtime"), Some(HostWork::Runtime));
    assert_eq!(class("python_function"), Some(HostWork::Python));
    assert_eq!(class("user_annotation"), Some(HostWork::Annotation));
    // a producer's own category stays untyped
    assert_eq!(class("my_lib"), None);
    assert_eq!(t.host_work.len(), 4);
}
