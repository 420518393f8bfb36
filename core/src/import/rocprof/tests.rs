use crate::import::{import_bytes, NoProgress};
use crate::model::WarningKind;
use crate::model::{ArgValue, TrackKind};
use std::io::Write;

/// A rocprofv3 JSON written from the layout in the module doc: 2 GPU agents + 1 CPU agent, HIP
/// and HSA calls on two threads, 3 dispatches on 2 queues, 2 copies, one record kind not shown.
pub(crate) fn fixture() -> String {
    r#"{"rocprofiler-sdk-tool": [{
  "metadata": {"pid": 4242},
  "agents": [
    {"id": {"handle": 100}, "type": 1, "node_id": 0, "name": "AMD EPYC"},
    {"id": {"handle": 200}, "type": 2, "node_id": 1, "logical_node_type_id": 0, "name": "gfx942", "product_name": "AMD Instinct MI300X"},
    {"id": {"handle": 300}, "type": 2, "node_id": 2, "logical_node_type_id": 1, "name": "gfx942", "product_name": "AMD Instinct MI300X"}
  ],
  "kernel_symbols": [
    {"kernel_id": 0, "formatted_kernel_name": "unused"},
    {"kernel_id": 1, "formatted_kernel_name": "matmul_kernel(float*, float*)"},
    {"kernel_id": 2, "truncated_kernel_name": "relu_kernel"}
  ],
  "strings": {"buffer_records": [
    {"kind": "NONE", "operations": []},
    {"kind": "HIP_RUNTIME_API", "operations": ["hipNone", "hipLaunchKernel", "hipMemcpyAsync"]},
    {"kind": "HSA_CORE_API", "operations": ["hsa_none", "hsa_signal_wait"]},
    {"kind": "KERNEL_DISPATCH", "operations": ["NONE", "KERNEL_DISPATCH_COMPLETE"]},
    {"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST"]}
  ]},
  "buffer_records": {
    "hip_api": [
      {"size": 64, "kind": 1, "operation": 1, "correlation_id": {"internal": 1, "external": 0}, "start_timestamp": 1000, "end_timestamp": 1100, "thread_id": 4242},
      {"size": 64, "kind": 1, "operation": 1, "correlation_id": {"internal": 2, "external": 0}, "start_timestamp": 1200, "end_timestamp": 1250, "thread_id": 4242},
      {"size": 64, "kind": 1, "operation": 2, "correlation_id": {"internal": 3, "external": 0}, "start_timestamp": 1300, "end_timestamp": 1400, "thread_id": 4243},
      {"size": 64, "kind": 1, "operation": 1, "correlation_id": {"internal": 4, "external": 0}, "start_timestamp": 1500, "end_timestamp": 1550, "thread_id": 4242}
    ],
    "hsa_api": [
      {"size": 64, "kind": 2, "operation": 1, "correlation_id": {"internal": 9, "external": 0}, "start_timestamp": 2000, "end_timestamp": 2600, "thread_id": 4243}
    ],
    "kernel_dispatch": [
      {"size": 128, "kind": 3, "operation": 1, "correlation_id": {"internal": 1}, "start_timestamp": 1150, "end_timestamp": 1900, "thread_id": 4242,
       "dispatch_info": {"agent_id": {"handle": 200}, "queue_id": {"handle": 7}, "kernel_id": 1, "dispatch_id": 1,
         "grid_size": {"x": 4096, "y": 1, "z": 1}, "workgroup_size": {"x": 256, "y": 1, "z": 1}, "group_segment_size": 1024, "private_segment_size": 0}},
      {"size": 128, "kind": 3, "operation": 1, "correlation_id": {"internal": 2}, "start_timestamp": 1900, "end_timestamp": 2100, "thread_id": 4242,
       "dispatch_info": {"agent_id": {"handle": 200}, "queue_id": {"handle": 7}, "kernel_id": 2, "dispatch_id": 2}},
      {"size": 128, "kind": 3, "operation": 1, "correlation_id": {"internal": 4}, "start_timestamp": 1600, "end_timestamp": 1700, "thread_id": 4242,
       "dispatch_info": {"agent_id": {"handle": 300}, "queue_id": {"handle": 8}, "kernel_id": 2, "dispatch_id": 3}}
    ],
    "memory_copy": [
      {"size": 96, "kind": 4, "operation": 1, "correlation_id": {"internal": 3}, "start_timestamp": 1350, "end_timestamp": 1450,
       "src_agent_id": {"handle": 100}, "dst_agent_id": {"handle": 200}, "bytes": 65536},
      {"size": 96, "kind": 4, "operation": 2, "correlation_id": {"internal": 77}, "start_timestamp": 2200, "end_timestamp": 2300,
       "src_agent_id": {"handle": 300}, "dst_agent_id": {"handle": 100}, "bytes": 512}
    ],
    "scratch_memory": [{"start_timestamp": 1, "end_timestamp": 2}]
  }
}]}"#
        .to_string()
}

fn check(t: &crate::Trace) {
    t.validate().unwrap();
    assert_eq!(t.format, "rocprof");
    let s = crate::query::summary(t);
    // 3 dispatches + 2 copies + 5 API calls; flows: correlation 1, 2, 3, 4 (77 has no call)
    assert_eq!((s.slices, s.flows), (10, 4), "{s:?}");
    let group =
        |name: &str| t.groups.iter().position(|g| t.str(g.name) == name).unwrap_or_else(|| panic!("{name}"));
    let g0 = group("GPU 0 — AMD Instinct MI300X");
    group("GPU 1 — AMD Instinct MI300X");
    group("Process 4242");
    let q = t.tracks.iter().find(|tr| tr.group.idx() == g0 && t.str(tr.name) == "queue 0").unwrap();
    assert_eq!(q.kind, TrackKind::Stream);
    assert_eq!(q.slices.len(), 2);
    let i = (0..q.slices.len()).find(|&i| q.slices.start_ns[i] == 1150).unwrap();
    assert_eq!(t.str(q.slices.name[i]), "matmul_kernel(float*, float*)");
    assert_eq!(q.slices.dur_ns.at(i), 750);
    let grid = t.args.get(q.slices.args[i]).find(|(k, _)| t.str(*k) == "grid").map(|(_, v)| v);
    assert!(matches!(grid, Some(ArgValue::Json(g)) if t.str(g) == "[4096, 1, 1]"));
    // the host-to-device copy lands on GPU 0's copy track with its bytes typed
    let c = t.tracks.iter().find(|tr| tr.group.idx() == g0 && t.str(tr.name) == "memory copies").unwrap();
    assert_eq!(t.str(c.slices.name[0]), "MEMORY_COPY_HOST_TO_DEVICE");
    assert_eq!(c.slices.domain.as_ref().unwrap().bytes[0], 65536);
    let hip: usize =
        t.tracks.iter().flat_map(|tr| tr.slices.category.iter()).filter(|&&c| t.str(c) == "hip_api").count();
    assert_eq!(hip, 4);
    assert!(t
        .warnings
        .entries
        .iter()
        .any(|w| w.kind == WarningKind::RocprofSkippedRecords && w.example.contains("scratch_memory (1)")));
}

#[test]
fn rocprofv3_json_dispatches_copies_api_calls_and_flows() {
    let t = import_bytes("results.json", fixture().as_bytes(), &mut NoProgress).unwrap();
    check(&t);
}

#[test]
fn rocprofv3_json_gzip() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(fixture().as_bytes()).unwrap();
    let t = import_bytes("results.json.gz", &gz.finish().unwrap(), &mut NoProgress).unwrap();
    check(&t);
}

#[test]
fn rocprofv3_single_object_symbols_by_key_and_damage() {
    let j = r#"{"rocprofiler-sdk-tool": {"kernel_symbols": {"5": {"kernel_name": "k5"}},
      "buffer_records": {"kernel_dispatch": [
        {"start_timestamp": 10, "end_timestamp": 20, "dispatch_info": {"kernel_id": 5}},
        {"start_timestamp": 10},
        {"start_timestamp": 30, "end_timestamp": 25, "dispatch_info": {"kernel_id": 9}}]}}}"#;
    let t = import_bytes("r.json", j.as_bytes(), &mut NoProgress).unwrap();
    t.validate().unwrap();
    assert_eq!(crate::query::summary(&t).slices, 2);
    let kinds: Vec<&str> = t.warnings.entries.iter().map(|w| w.kind.code()).collect();
    assert!(kinds.contains(&"rocprof_missing_time") && kinds.contains(&"negative_duration"), "{kinds:?}");
    // truncated and non-object roots: typed errors
    let cut = &fixture()[..500];
    assert!(import_bytes("r.json", cut.as_bytes(), &mut NoProgress).is_err());
    let e = import_bytes("r.json", br#"{"rocprofiler-sdk-tool": 5}"#, &mut NoProgress).unwrap_err();
    assert!(e.to_string().contains("neither an array"), "{e}");
}
