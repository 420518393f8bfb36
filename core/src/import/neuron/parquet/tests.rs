//! Parquet tests write small schema-7.4.0 tables with the parquet crate's writer (there are no
//! public Neuron Explorer Parquet samples) and import them together.

use super::*;
use crate::import::{detect, import_files, NoProgress};
use crate::model::WarningKind;
use crate::model::{Trace, TrackKind};
use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::sync::Arc;

/// A test column: name, and values (None = null).
enum C {
    I64(&'static str, Vec<Option<i64>>),
    I32(&'static str, Vec<Option<i32>>),
    F64(&'static str, Vec<Option<f64>>),
    F32(&'static str, Vec<Option<f32>>),
    B(&'static str, Vec<Option<bool>>),
    S(&'static str, Vec<Option<&'static str>>),
}

fn i64s(name: &'static str, v: &[i64]) -> C {
    C::I64(name, v.iter().map(|&x| Some(x)).collect())
}
fn strs(name: &'static str, v: &[&'static str]) -> C {
    C::S(name, v.iter().map(|&x| Some(x)).collect())
}

impl C {
    fn decl(&self) -> String {
        match self {
            C::I64(n, _) => format!("optional int64 {n};"),
            C::I32(n, _) => format!("optional int32 {n};"),
            C::F64(n, _) => format!("optional double {n};"),
            C::F32(n, _) => format!("optional float {n};"),
            C::B(n, _) => format!("optional boolean {n};"),
            C::S(n, _) => format!("optional binary {n} (STRING);"),
        }
    }
    fn len(&self) -> usize {
        match self {
            C::I64(_, v) => v.len(),
            C::I32(_, v) => v.len(),
            C::F64(_, v) => v.len(),
            C::F32(_, v) => v.len(),
            C::B(_, v) => v.len(),
            C::S(_, v) => v.len(),
        }
    }
}

fn defs<T>(v: &[Option<T>]) -> Vec<i16> {
    v.iter().map(|x| i16::from(x.is_some())).collect()
}

/// Write a table with the given columns; rows are split into row groups of `rg` rows.
fn write_table(cols: &[C], rg: usize, compression: Compression) -> Vec<u8> {
    let decl: String = cols.iter().map(C::decl).collect::<Vec<_>>().join(" ");
    let schema = Arc::new(parse_message_type(&format!("message schema {{ {decl} }}")).unwrap());
    let props = Arc::new(WriterProperties::builder().set_compression(compression).build());
    let mut buf = Vec::new();
    let n = cols.first().map_or(0, C::len);
    {
        let mut w = SerializedFileWriter::new(&mut buf, schema, props).unwrap();
        let mut start = 0;
        while start < n.max(1) {
            let end = (start + rg).min(n);
            let mut g = w.next_row_group().unwrap();
            for c in cols {
                let mut cw = g.next_column().unwrap().unwrap();
                match c {
                    C::I64(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<Int64Type>()
                            .write_batch(
                                &v.iter().flatten().copied().collect::<Vec<_>>(),
                                Some(&defs(v)),
                                None,
                            )
                            .unwrap();
                    }
                    C::I32(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<Int32Type>()
                            .write_batch(
                                &v.iter().flatten().copied().collect::<Vec<_>>(),
                                Some(&defs(v)),
                                None,
                            )
                            .unwrap();
                    }
                    C::F64(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<DoubleType>()
                            .write_batch(
                                &v.iter().flatten().copied().collect::<Vec<_>>(),
                                Some(&defs(v)),
                                None,
                            )
                            .unwrap();
                    }
                    C::F32(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<FloatType>()
                            .write_batch(
                                &v.iter().flatten().copied().collect::<Vec<_>>(),
                                Some(&defs(v)),
                                None,
                            )
                            .unwrap();
                    }
                    C::B(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<BoolType>()
                            .write_batch(
                                &v.iter().flatten().copied().collect::<Vec<_>>(),
                                Some(&defs(v)),
                                None,
                            )
                            .unwrap();
                    }
                    C::S(_, v) => {
                        let v = &v[start..end];
                        let vals: Vec<ByteArray> = v.iter().flatten().map(|s| ByteArray::from(*s)).collect();
                        cw.typed::<ByteArrayType>().write_batch(&vals, Some(&defs(v)), None).unwrap();
                    }
                }
                cw.close().unwrap();
            }
            g.close().unwrap();
            start = end.max(start + 1);
        }
        w.close().unwrap();
    }
    buf
}

fn instruction_table() -> Vec<u8> {
    write_table(
        &[
            i64s("start_ts", &[100, 150, 400, 1_000_000_000_123, 120]),
            i64s("end_ts", &[180, 160, 450, 1_000_000_000_223, 130]),
            i64s("duration_ns", &[80, 10, 50, 100, 10]),
            strs("engine", &["tensor", "tensor", "vector", "sync", "scalar"]),
            C::S(
                "timeline_track",
                vec![Some("TensorMatrix"), Some("Tensor"), Some("Vector"), None, Some("")],
            ),
            C::I64("pcore_idx", vec![Some(0), Some(0), Some(0), Some(0), None]),
            strs("opcode", &["MATMUL", "LDWEIGHTS", "TENSOR_TENSOR", "WRITE", "ACTIVATE"]),
            strs("operands", &["a", "b", "c", "d", "e"]),
            i64s("id", &[11, 12, 13, 14, 15]),
            i64s("pc", &[1, 2, 3, 4, 5]),
            C::I64("compiler_pc", vec![None, Some(7), None, None, None]),
            strs("bir_id", &["sg0000:1", "sg0000:2", "sg0000:3", "sg0000:4", "sg0000:5"]),
            C::I64("raw_hlo_id", vec![Some(3), Some(3), Some(4), None, None]),
            C::I64("raw_bir_id", vec![Some(65), None, None, None, None]),
            C::S("hlo_name", vec![None, Some("own.hlo"), None, None, None]),
            C::I64("evt_wait_time_ns", vec![Some(30057), None, None, None, None]),
            C::I64("dma_trigger_start_ts", vec![None, None, None, Some(1_000_000_000_300), None]),
            C::B("is_something", vec![Some(true), None, None, None, None]),
            C::F32("tensor_elements_ratio", vec![Some(0.5), None, None, None, None]),
        ],
        3,
        Compression::SNAPPY,
    )
}

fn dma_packet_table() -> Vec<u8> {
    write_table(
        &[
            i64s("start_ts", &[200, 210, 300]),
            i64s("end_ts", &[290, 250, 390]),
            i64s("duration_ns", &[90, 40, 90]),
            i64s("id", &[501, 502, 503]),
            C::I32("packet_idx", vec![Some(0), Some(1), Some(0)]),
            i64s("packet_aggregation_id", &[900, 900, 901]),
            C::I64("engine_idx", vec![Some(0), Some(0), Some(3)]),
            i64s("read_bytes", &[2048, 4, 64]),
            i64s("write_bytes", &[2048, 4, 64]),
            i64s("transfer_bytes", &[2048, 4, 64]),
            C::F64("throughput", vec![Some(2.26e10), Some(5.6e8), Some(1.0e9)]),
            strs("queue_type", &["data", "data", "software_dynamic"]),
            C::S("variable", vec![Some("identity_56"), Some("identity_56"), None]),
            C::S("queue_name", vec![Some("qSyncSpillReload0-Q1-E0"), Some("qSyncSpillReload0-Q1-E0"), None]),
            C::I64("queue_idx", vec![Some(1), Some(1), Some(0)]),
            i64s("crc", &[16906, 30181, 1]),
        ],
        1000,
        Compression::GZIP(Default::default()),
    )
}

fn semaphore_table() -> Vec<u8> {
    write_table(
        &[
            i64s("timestamp", &[10, 20, 30, 40]),
            strs("id", &["S[8] (qSyncSpillReload0)", "2", "2", "S[8] (qSyncSpillReload0)"]),
            C::I32("value", vec![Some(1), Some(1), Some(2), Some(0)]),
            strs("update_source", &["AXI", "Tensor", "Tensor", "AXI"]),
        ],
        1000,
        Compression::UNCOMPRESSED,
    )
}

fn neff_header_table() -> Vec<u8> {
    write_table(
        &[
            strs("network_name", &["graph.neff"]),
            strs("uuid", &["5ee240ec1e134d12b7b0ccdf8eff1e5e"]),
            strs("hash", &["2358e2226d40bdb81ffbaccdd6356209"]),
            i64s("header_size", &[1024]),
            i64s("data_size", &[30720]),
            i64s("major_version", &[2]),
        ],
        1000,
        Compression::LZ4_RAW,
    )
}

fn summary_table() -> Vec<u8> {
    write_table(
        &[
            C::F64("total_time", vec![Some(0.001867629615)]),
            i64s("model_flops", &[33554432]),
            i64s("hardware_flops", &[37748736]),
            C::F64("mfu_estimated_percent", vec![Some(0.0001958)]),
            strs("instance_type", &["inf2.xlarge"]),
        ],
        1000,
        Compression::SNAPPY,
    )
}

fn metadata_table() -> Vec<u8> {
    write_table(
        &[
            strs("profile_schema_version", &["7.4.0"]),
            C::I32("ntff_version", vec![Some(5)]),
            C::I32("num_physical_cores", vec![Some(1)]),
            C::B("vnc_enabled", vec![Some(false)]),
            i64s("neuroncore_idx", &[1]),
            i64s("neuron_device_idx", &[0]),
        ],
        1000,
        Compression::SNAPPY,
    )
}

fn find_track<'a>(t: &'a Trace, name: &str) -> &'a crate::model::Track {
    t.tracks.iter().find(|tr| t.str(tr.name) == name).unwrap_or_else(|| {
        panic!("no track {name}: {:?}", t.tracks.iter().map(|x| t.str(x.name)).collect::<Vec<_>>())
    })
}

fn args_of(t: &Trace, tr: &crate::model::Track, start: i64) -> Vec<(String, String)> {
    let i = (0..tr.slices.len()).find(|&i| tr.slices.start_ns[i] == start).unwrap();
    t.args_display(tr.slices.args[i])
}

fn md<'a>(t: &'a Trace, k: &str) -> Option<&'a str> {
    t.metadata.entries.iter().find(|e| e.0 == k).map(|e| e.1.as_str())
}

#[test]
fn imports_tables_dropped_together() {
    let files = [
        ("profile/Instruction.parquet", instruction_table()),
        ("profile/DmaPacket.parquet", dma_packet_table()),
        ("profile/SemaphoreUpdate.parquet", semaphore_table()),
        ("profile/NeffHeader.parquet", neff_header_table()),
        ("C:\\x\\Summary.parquet", summary_table()),
        ("Metadata.parquet", metadata_table()),
    ];
    for (n, b) in &files {
        assert_eq!(detect(n, b).map(|i| i.name()), Some(NAME), "{n}");
    }
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    assert_eq!(t.format, NAME);
    assert_eq!(t.groups.len(), 1, "one profile, one device group");
    assert_eq!(t.str(t.groups[0].name), "NeuronCore nd0:nc1");

    // instructions: 5 rows over 2 row groups, on the timeline_track (else engine) tracks
    assert_eq!(
        t.tracks
            .iter()
            .map(|tr| tr.slices.category.iter().filter(|&&c| t.str(c) == "instruction").count())
            .sum::<usize>(),
        5
    );
    let tm = find_track(&t, "TensorMatrix");
    assert_eq!(tm.kind, TrackKind::Stream);
    assert_eq!(
        (tm.slices.start_ns[0], tm.slices.dur_ns.at(0), t.str(tm.slices.name[0])),
        (100, 80, "MATMUL")
    );
    let a = args_of(&t, tm, 100);
    assert_eq!(a[0], ("operands".into(), "a".into()));
    assert!(a.contains(&("pc".into(), "1".into())));
    assert!(a.contains(&("evt_wait_time_ns".into(), "30057".into())));
    assert!(a.contains(&("engine".into(), "tensor".into())));
    assert!(a.contains(&("is_something".into(), "true".into())));
    assert!(a.contains(&("tensor_elements_ratio".into(), "0.5".into())));
    assert!(!a.iter().any(|x| x.0 == "compiler_pc"), "nulls are not arguments");
    let sync = find_track(&t, "Sync");
    assert_eq!(sync.slices.start_ns[0], 1_000_000_000_123, "int64 ns stay exact");
    assert_eq!(find_track(&t, "Scalar").slices.len(), 1, "blank timeline_track falls back to engine");
    assert_eq!(find_track(&t, "Tensor").slices.len(), 1);

    // DMA packets: one track per queue, the queue label parsed for ordering
    let q = find_track(&t, "qSyncSpillReload0-Q1-E0");
    assert_eq!(q.kind, TrackKind::Dma);
    assert_eq!(q.slices.len(), 2);
    assert_eq!(t.str(q.source_id), "DMA engine 0, queue 1");
    let a = args_of(&t, q, 210);
    assert!(a.contains(&("packet_idx".into(), "1".into())));
    assert!(a.contains(&("transfer_bytes".into(), "4".into())));
    assert_eq!(a[0], ("variable".into(), "identity_56".into()));
    let q3 = find_track(&t, "Q0-E3");
    assert_eq!(t.str(q3.slices.name[0]), "dma");

    // semaphores: one counter per id, in semaphore order
    let sems: Vec<(&str, Vec<i64>, Vec<f64>)> = t
        .counters
        .iter()
        .filter(|c| t.str(c.name).starts_with("S[") || t.str(c.name).starts_with("Sem "))
        .map(|c| (t.str(c.name), c.ts_ns.clone(), c.value.clone()))
        .collect();
    assert_eq!(
        sems,
        vec![
            ("Sem 2", vec![20, 30], vec![1.0, 2.0]),
            ("S[8] (qSyncSpillReload0)", vec![10, 40], vec![1.0, 0.0])
        ]
    );

    // metadata
    assert_eq!(md(&t, "neff_header.uuid"), Some("5ee240ec1e134d12b7b0ccdf8eff1e5e"));
    assert_eq!(md(&t, "neff_header.header_size"), Some("1024"));
    assert_eq!(md(&t, "summary.total_time"), Some("0.001867629615"));
    assert_eq!(md(&t, "summary.instance_type"), Some("inf2.xlarge"));
    assert_eq!(md(&t, "metadata.profile_schema_version"), Some("7.4.0"));
    let s: serde_json::Value = serde_json::from_str(md(&t, "neuron.summary").unwrap()).unwrap();
    assert_eq!(s[0]["model_flops"], 33554432);
    assert!(md(&t, "parquet.tables").unwrap().contains("Instruction (5 rows)"));
    assert!(md(&t, "parquet.unknown_tables").is_none());
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert_eq!(t.start_ns, 10);
}

#[test]
fn hierarchy_flows_counters_and_splits() {
    let hlo = write_table(
        &[
            i64s("id", &[11, 13]),
            i64s("raw_bir_id", &[65, 66]),
            i64s("raw_penguin_id", &[61, 62]),
            i64s("raw_hlo_id", &[3, 4]),
            i64s("raw_framework_id", &[5, 5]),
            strs("hlo_name", &["%dot.3 = dot(%p0, %p1)", "%add.4"]),
            i64s("start_ts", &[100, 400]),
            i64s("end_ts", &[200, 450]),
            strs("time_intervals", &["[[100, 200]]", "[[400, 450]]"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let fw = write_table(
        &[
            i64s("id", &[11]),
            i64s("raw_bir_id", &[65]),
            i64s("raw_penguin_id", &[61]),
            i64s("raw_hlo_id", &[3]),
            i64s("raw_framework_id", &[5]),
            strs("framework_name", &["Linear[0]/matmul"]),
            strs("time_intervals", &["[]"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let bir0 = write_table(
        &[
            i64s("id", &[11]),
            i64s("raw_bir_id", &[65]),
            i64s("raw_penguin_id", &[61]),
            i64s("raw_hlo_id", &[3]),
            i64s("raw_framework_id", &[5]),
            strs("bir_name", &["I-61-0"]),
            strs("time_intervals", &["[]"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let bir1 = write_table(
        &[
            i64s("id", &[13]),
            i64s("raw_bir_id", &[66]),
            i64s("raw_penguin_id", &[62]),
            i64s("raw_hlo_id", &[4]),
            i64s("raw_framework_id", &[5]),
            strs("bir_name", &["I-62-0"]),
            strs("time_intervals", &["[]"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let asm = write_table(
        &[
            i64s("instruction_id", &[11]),
            strs("compiler_opcode", &["MATMUL_C"]),
            strs("compiler_operands", &["x=1"]),
            i64s("compiler_pc", &[3]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let agg = write_table(
        &[
            i64s("start_ts", &[1_000_000_000_300]),
            i64s("end_ts", &[1_000_000_000_700]),
            i64s("duration_ns", &[400]),
            i64s("id", &[900]),
            C::I32("block_id", vec![Some(0)]),
            i64s("queue_idx", &[1]),
            strs("queue_name", &["qSyncSpillReload0"]),
            strs("op", &["copy"]),
            strs("variable", &["identity_56"]),
            strs("source", &["[WEIGHT]"]),
            strs("dest", &["[SB]"]),
            strs("semaphore_id", &["S[8] (qSyncSpillReload0)"]),
            i64s("trigger", &[1_000_000_000_123]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let flow = write_table(
        &[
            i64s("in_id", &[12, 11, 77]),
            i64s("out_id", &[11, 501, 11]),
            strs("in_table", &["instruction", "instruction", "instruction"]),
            strs("out_table", &["instruction", "dma_packet", "instruction"]),
            strs("dependency_type", &["FLOW_DEPENDENCE", "", "X"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let pending = write_table(
        &[i64s("timestamp", &[5, 6]), C::I32("value", vec![Some(3), Some(1)])],
        1000,
        Compression::SNAPPY,
    );
    let dma_usage = write_table(
        &[
            i64s("timestamp", &[5, 6]),
            C::F64("current_throughput", vec![Some(1.5e9), Some(0.0)]),
            i64s("total_transfer_bytes", &[8, 12]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let sbuf = write_table(
        &[
            i64s("timestamp", &[5]),
            C::F64("avg_util_percent", vec![Some(1.5)]),
            C::F64("partition_0_util_percent", vec![Some(1.0)]),
            C::F64("partition_32_util_percent", vec![Some(2.0)]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let psum = write_table(
        &[
            i64s("timestamp", &[5]),
            C::F64("avg_util_percent", vec![Some(12.5)]),
            C::F64("bank_0_util_percent", vec![Some(100.0)]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let active = write_table(
        &[
            i64s("start_ts", &[57, 1372]),
            i64s("end_ts", &[122, 1388]),
            strs("engine", &["tensor", "tensor"]),
            i64s("pcore_idx", &[0, 0]),
            i64s("duration_ns", &[65, 16]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let throttle = write_table(
        &[
            i64s("duration", &[1531]),
            C::I32("k", vec![Some(7)]),
            C::I32("n", vec![Some(8)]),
            i64s("timestamp", &[1860034]),
            strs("type", &["activity_0"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let unknown = write_table(&[i64s("foo", &[1])], 1000, Compression::SNAPPY);
    let files = [
        ("p/Instruction_0.parquet", instruction_table()),
        ("p/DmaPacket.parquet", dma_packet_table()),
        ("p/HloInstruction.parquet", hlo),
        ("p/FrameworkInstruction.parquet", fw),
        ("p/BirInstruction_0.parquet", bir0),
        ("p/BirInstruction_1.parquet", bir1),
        ("p/AssemblyInstruction.parquet", asm),
        ("p/DmaPacketAggregated.parquet", agg),
        ("p/Flow.parquet", flow),
        // no table name in the file name: identified by its columns
        ("p/part-0001.parquet", pending),
        ("p/DmaUsage_0.parquet", dma_usage),
        ("p/SbufUsage.parquet", sbuf),
        ("p/PsumUsage.parquet", psum),
        ("p/ActiveTime.parquet", active),
        ("p/Throttle.parquet", throttle),
        ("p/Mystery.parquet", unknown),
    ];
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();

    let tm = find_track(&t, "TensorMatrix");
    let a = args_of(&t, tm, 100);
    assert!(a.contains(&("framework_name".into(), "Linear[0]/matmul".into())), "{a:?}");
    assert!(a.contains(&("hlo_name".into(), "%dot.3 = dot(%p0, %p1)".into())));
    assert!(a.contains(&("bir_name".into(), "I-61-0".into())));
    assert!(a.contains(&("compiler_opcode".into(), "MATMUL_C".into())));
    assert!(a.contains(&("compiler_pc".into(), "3".into())));
    let a = args_of(&t, find_track(&t, "Tensor"), 150);
    assert!(a.contains(&("hlo_name".into(), "own.hlo".into())), "the row's own hlo_name wins: {a:?}");
    assert!(a.contains(&("compiler_pc".into(), "7".into())));
    let a = args_of(&t, find_track(&t, "Vector"), 400);
    assert!(a.contains(&("bir_name".into(), "I-62-0".into())), "second split of BirInstruction: {a:?}");

    // transfers + trigger flow from the Sync WRITE, Flow table flows
    let tr = find_track(&t, "qSyncSpillReload0 transfers");
    assert_eq!(tr.slices.len(), 1);
    let cats: Vec<&str> = t.flows.iter().map(|f| t.str(f.category)).collect();
    assert_eq!(cats.iter().filter(|c| **c == "dma_trigger").count(), 1);
    assert_eq!(cats.iter().filter(|c| **c == "dependency").count(), 2);
    assert_eq!(t.warnings.count_of(WarningKind::NeuronFlowUnresolved), 1);

    let counter =
        |n: &str| t.counters.iter().find(|c| t.str(c.name) == n).unwrap_or_else(|| panic!("no counter {n}"));
    assert_eq!(counter("Pending DMA").value, vec![3.0, 1.0]);
    assert_eq!(counter("DMA throughput").value, vec![1.5e9, 0.0]);
    assert_eq!(t.str(counter("DMA throughput").unit), "B/s");
    assert_eq!(counter("DMA transferred").value, vec![8.0, 12.0]);
    assert_eq!(counter("SBUF usage").value, vec![1.5]);
    assert_eq!(counter("SBUF partition 32 usage").value, vec![2.0]);
    assert_eq!(counter("PSUM bank 0 usage").value, vec![100.0]);
    assert_eq!(counter("Tensor active").ts_ns, vec![57, 122, 1372, 1388]);
    assert_eq!(counter("Tensor active").value, vec![1.0, 0.0, 1.0, 0.0]);
    assert_eq!(counter("Throttle limit").value, vec![87.5, 100.0]);
    let th = find_track(&t, "Throttle");
    assert_eq!(
        (th.slices.start_ns[0], th.slices.dur_ns.at(0), t.str(th.slices.name[0])),
        (1860034, 1531, "throttle 7/8")
    );

    // the unknown table: counted warning, listed, never a crash
    assert_eq!(t.warnings.count_of(WarningKind::ParquetUnknownTable), 1);
    assert!(md(&t, "parquet.unknown_tables").unwrap().contains("Mystery"));
    assert!(md(&t, "parquet.tables").unwrap().contains("PendingDma (2 rows)"));
    assert!(md(&t, "parquet.tables").unwrap().contains("BirInstruction (2 rows)"));
}

#[test]
fn table_names() {
    assert_eq!(table_from_file_name("a/b/BirInstruction_12.parquet"), Some("BirInstruction"));
    assert_eq!(table_from_file_name("Instruction.parquet"), Some("Instruction"));
    assert_eq!(table_from_file_name("x\\dmapacket.PARQUET"), Some("DmaPacket"));
    assert_eq!(table_from_file_name("Foo_1.parquet"), None);
    assert_eq!(table_from_file_name("Instruction_x.parquet"), None);
    assert_eq!(table_from_columns(&["timestamp", "id", "value", "update_source"]), Ok("SemaphoreUpdate"));
    assert_eq!(table_from_columns(&["timestamp", "value"]), Ok("PendingDma"));
    assert!(
        table_from_columns(&["timestamp", "current_throughput", "total_transfer_bytes"]).is_err(),
        "DmaUsage vs HbmUsage is ambiguous"
    );
}

#[test]
fn damaged_files_are_typed_errors() {
    let good = instruction_table();
    let mut cuts: Vec<usize> = (0..good.len()).step_by(7).collect();
    cuts.push(good.len() - 1);
    for cut in cuts {
        let bytes = &good[..cut];
        if !bytes.starts_with(b"PAR1") {
            continue;
        }
        let r = import_files(&[InputFile { name: "Instruction.parquet", bytes }], &mut NoProgress);
        assert!(matches!(r, Err(ImportError::Invalid { format: NAME, .. })), "cut {cut}: {r:?}");
    }
    // garbage after the magic
    let mut junk = b"PAR1".to_vec();
    junk.extend((0..500u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    junk.extend(b"PAR1");
    let r = import_files(&[InputFile { name: "Instruction.parquet", bytes: &junk }], &mut NoProgress);
    assert!(matches!(r, Err(ImportError::Invalid { .. })), "{r:?}");
    // flipped bytes inside a valid file: an error or a (partial) import, never a panic
    for k in (4..good.len() - 8).step_by(3) {
        let mut bad = good.clone();
        bad[k] ^= 0x5a;
        let _ = import_files(&[InputFile { name: "Instruction.parquet", bytes: &bad }], &mut NoProgress);
    }
    // one damaged table among good ones: a counted warning, the rest imported
    let sem = semaphore_table();
    let files = [
        InputFile { name: "Instruction.parquet", bytes: &good[..good.len() / 2] },
        InputFile { name: "SemaphoreUpdate.parquet", bytes: &sem },
    ];
    let t = import_files(&files, &mut NoProgress).unwrap();
    assert_eq!(t.warnings.count_of(WarningKind::ParquetUnreadableFile), 1);
    assert_eq!(t.counter_sample_count(), 4);
}

/// A page header that declares an unknown list of 2^31 - 1 doubles: the crate skipped them one
/// by one past the end of the input (26 s for a 1.4 KB file the fuzzer made); the page-header walk
/// refuses it before the crate reads the chunk.
#[test]
fn huge_list_in_a_page_header_is_refused() {
    let mut bytes = instruction_table();
    // the first column chunk starts right after the magic; field 9 (unknown), list<double>
    bytes[4..11].copy_from_slice(&[0x99, 0xf7, 0xff, 0xff, 0xff, 0xff, 0x07]);
    let r = import_files(&[InputFile { name: "Instruction.parquet", bytes: &bytes }], &mut NoProgress);
    let e = format!("{r:?}");
    assert!(matches!(r, Err(ImportError::Invalid { format: NAME, .. })), "{e}");
    assert!(e.contains("page 0's header: a list of 2147483647 elements"), "{e}");
}

/// The device summary from Parquet rows: engines by timeline track, DMA queue types from
/// `queue_type`, total time and instance type from the Summary table.
#[test]
fn device_summary_from_parquet() {
    use crate::analysis::device_summary::device_summary;
    let files = [
        ("p/Instruction.parquet", instruction_table()),
        ("p/DmaPacket.parquet", dma_packet_table()),
        ("p/Summary.parquet", summary_table()),
        ("p/Metadata.parquet", metadata_table()),
    ];
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    let s = device_summary(&t).expect("a device profile");
    let count = |k: &str| s.get(k).map(|v| v.as_f64());
    assert_eq!(count("tensor_engine_instruction_count"), Some(2.0)); // TensorMatrix + Tensor rows
    assert_eq!(count("matmul_instruction_count"), Some(1.0));
    assert_eq!(count("vector_engine_instruction_count"), Some(1.0));
    assert_eq!(count("sync_engine_instruction_count"), Some(1.0));
    assert_eq!(count("activate_instruction_count"), Some(1.0));
    assert_eq!(count("total_time"), Some(0.001867629615));
    assert_eq!(count("neuroncore_cycle_count"), Some(2_614_681.0)); // inf2: 1.4 GHz
    assert_eq!(count("static_dma_packet_count"), Some(2.0));
    assert_eq!(count("static_dma_size"), Some(2052.0));
    assert_eq!(count("software_dynamic_dma_size"), Some(64.0));
    let dma_active = count("dma_active_time").unwrap();
    assert!((dma_active - 180e-9).abs() < 1e-15, "{dma_active}"); // [200,290) ∪ [210,250) ∪ [300,390)
    assert!((count("tensor_engine_instruction_time").unwrap() - 90e-9).abs() < 1e-15);
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A stored (uncompressed) zip of `members`, with directory entries as archivers write them.
fn stored_zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut all: Vec<(String, &[u8])> = vec![("profile/".to_string(), &[][..])];
    all.extend(members.iter().map(|(n, b)| (n.clone(), b.as_slice())));
    for (name, data) in &all {
        let off = out.len() as u32;
        let len = (data.len() as u32).to_le_bytes();
        out.extend_from_slice(b"PK\x03\x04\x14\x00\x00\x00\x00\x00");
        out.extend_from_slice(&[0; 8]); // time, date, crc (the reader does not check it)
        out.extend_from_slice(&len);
        out.extend_from_slice(&len);
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\x00\x14\x00\x00\x00\x00\x00");
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&len);
        central.extend_from_slice(&len);
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&off.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00");
    out.extend_from_slice(&(all.len() as u16).to_le_bytes());
    out.extend_from_slice(&(all.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// An Explorer output directory: `Instruction` in 12 splits (one row each, 100 ns apart, split 7
/// with a column the schema does not have), `TensorInfo` in 11 splits, plus Metadata, NeffHeader,
/// Summary and `SchemaFields`.
fn explorer_directory(schema: &'static str) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for k in 0..12i64 {
        let mut cols = vec![
            i64s("start_ts", &[100 * k]),
            i64s("end_ts", &[100 * k + 40]),
            strs("engine", &["Vector"]),
            strs("timeline_track", &["Vector"]),
            strs("opcode", &[leak(format!("OP{k}"))]),
            i64s("id", &[k]),
            i64s("pc", &[k]),
        ];
        if k == 7 {
            cols.push(strs("future_column", &["kept"]));
        }
        files.push((
            format!("profile/Instruction_{k}.parquet"),
            write_table(&cols, 1000, Compression::SNAPPY),
        ));
    }
    for k in 0..11i64 {
        let cols = [
            strs("variable_name", &[leak(format!("t{k}"))]),
            strs("type", &[["IN", "OUT", "WEIGHT"][k as usize % 3]]),
            strs("format", &["NHWC"]),
            strs("shape", &["128 64 1 1"]),
            i64s("size", &[1000 + k]),
            i64s("node", &[50]),
        ];
        files
            .push((format!("profile/TensorInfo_{k}.parquet"), write_table(&cols, 1000, Compression::SNAPPY)));
    }
    let meta = write_table(
        &[
            strs("profile_schema_version", &[schema]),
            C::I32("ntff_version", vec![Some(5)]),
            C::I32("num_physical_cores", vec![Some(1)]),
        ],
        1000,
        Compression::SNAPPY,
    );
    files.push(("profile/Metadata.parquet".into(), meta));
    files.push(("profile/NeffHeader.parquet".into(), neff_header_table()));
    files.push(("profile/Summary.parquet".into(), summary_table()));
    files.push((
        "profile/SchemaFields.parquet".into(),
        write_table(&[strs("table", &["Instruction"])], 10, Compression::SNAPPY),
    ));
    // the order a directory listing may give: by name, so `_10` before `_2`
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn check_directory_profile(t: &Trace) {
    let tr = find_track(t, "Vector");
    assert_eq!(tr.slices.len(), 12, "every split's row");
    let names: Vec<&str> = (0..12).map(|i| t.str(tr.slices.name[i])).collect();
    let want: Vec<String> = (0..12).map(|k| format!("OP{k}")).collect();
    assert_eq!(names, want);
    // the unknown column of split 7 is an argument of its row only
    assert!(
        args_of(t, tr, 700).contains(&("future_column".into(), "kept".into())),
        "{:?}",
        args_of(t, tr, 700)
    );
    assert!(!args_of(t, tr, 600).iter().any(|a| a.0 == "future_column"));
    // the chunks concatenated in split order (0, 1, …, 10, not 0, 1, 10, 2 …)
    let tensors = crate::analysis::neff_tensors::neff_tensors(t).expect("tensors from TensorInfo");
    let order: Vec<&str> = tensors.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(order, ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10"]);
    assert_eq!(tensors.rows[1].kind, "output");
    assert_eq!(tensors.rows[2].kind, "const");
    assert_eq!(tensors.rows[10].size_bytes, Some(1010));
    assert_eq!(tensors.rows[0].shape, vec![128, 64, 1, 1]);
    let p = t.program.as_ref().unwrap();
    assert_eq!(p.name, "graph.neff");
    assert!(p.header.fields.contains(&("uuid".into(), "5ee240ec1e134d12b7b0ccdf8eff1e5e".into())));
    assert_eq!(p.header.uuid, "5ee240ec1e134d12b7b0ccdf8eff1e5e");
    assert_eq!(p.kind, crate::model::ProgramKind::NeffExplorerTables);
    assert_eq!(md(t, "parquet.profile_schema_version"), Some("7.4.0"));
    let tables = md(t, "parquet.tables").unwrap();
    assert!(tables.contains("Instruction (12 rows)") && tables.contains("TensorInfo (11 rows)"), "{tables}");
    // the device summary's inputs from the Summary table
    let s = crate::analysis::device_summary::device_summary(t).expect("a device profile");
    assert_eq!(s.get("total_time").map(|v| v.as_f64()), Some(0.001867629615));
    assert_eq!(s.get("vector_engine_instruction_count").map(|v| v.as_f64()), Some(12.0));
}

#[test]
fn chunked_directory_is_one_profile_in_split_order() {
    let files = explorer_directory("7.4.0");
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    check_directory_profile(&t);
    // any order of the files gives the same profile
    let rev: Vec<InputFile> = files.iter().rev().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t2 = import_files(&rev, &mut NoProgress).unwrap();
    check_directory_profile(&t2);
    // a split missing is a warning, the rest read in order
    let fewer: Vec<InputFile> = files
        .iter()
        .filter(|f| !f.0.ends_with("Instruction_3.parquet"))
        .map(|(n, b)| InputFile { name: n, bytes: b })
        .collect();
    let t3 = import_files(&fewer, &mut NoProgress).unwrap();
    assert_eq!(find_track(&t3, "Vector").slices.len(), 11);
    assert!(t3
        .warnings
        .entries
        .iter()
        .any(|w| w.kind == WarningKind::ParquetSplitMissing && w.example.contains("split file(s) 3")));
}

#[test]
fn zip_of_the_directory_is_the_same_profile() {
    let files = explorer_directory("7.4.0");
    let z = stored_zip(&files);
    let t = import_files(&[InputFile { name: "profile.zip", bytes: &z }], &mut NoProgress).unwrap();
    check_directory_profile(&t);
}

#[test]
fn another_major_schema_is_a_typed_error_naming_file_and_versions() {
    let files = explorer_directory("8.0.1");
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let e = import_files(&inputs, &mut NoProgress).unwrap_err();
    match &e {
        ImportError::SchemaVersion { file, found, supported, .. } => {
            assert_eq!(file, "profile/Metadata.parquet");
            assert_eq!(found, "8.0.1");
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("{other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("'profile/Metadata.parquet'") && msg.contains("8.0.1") && msg.contains("7.4.0"),
        "{msg}"
    );
    // in a zip too
    let z = stored_zip(&files);
    let e = import_files(&[InputFile { name: "p.zip", bytes: &z }], &mut NoProgress).unwrap_err();
    assert!(matches!(e, ImportError::SchemaVersion { .. }), "{e:?}");
    // a newer MINOR is read, with a warning
    let files = explorer_directory("7.9.0");
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    assert!(t.warnings.entries.iter().any(|w| w.kind == WarningKind::ParquetSchemaNewerMinor));
    assert_eq!(find_track(&t, "Vector").slices.len(), 12);
}

#[test]
fn two_profiles_in_one_drop_are_refused() {
    let mut files = explorer_directory("7.4.0");
    let more: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter(|f| f.0.contains("Instruction_0"))
        .map(|(n, b)| (n.replace("profile/", "other/"), b.clone()))
        .collect();
    files.extend(more);
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let e = import_files(&inputs, &mut NoProgress).unwrap_err().to_string();
    assert!(e.contains("profile/Instruction_0.parquet") && e.contains("other/Instruction_0.parquet"), "{e}");
    assert!(e.contains("two profiles"), "{e}");
}

#[test]
fn collective_operations_are_typed_for_the_ranks_analysis() {
    use crate::analysis::ranks::{ranks_report, Align, RankKind};
    let cc = write_table(
        &[
            i64s("start_ts", &[170, 500]),
            i64s("end_ts", &[300, 600]),
            i64s("duration_ns", &[130, 100]),
            strs("operation", &["AllReduce", "AllGather"]),
            strs("algorithm", &["Ring", "Ring"]),
            i64s("num_elements", &[1024, 2048]),
            i64s("op_id", &[1, 2]),
            strs("dtype", &["fp16", "fp16"]),
        ],
        1000,
        Compression::SNAPPY,
    );
    let files = [("p/Instruction_0.parquet", instruction_table()), ("p/CcOp.parquet", cc)];
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    let tr = find_track(&t, "CC operations");
    assert_eq!(tr.role, TrackRole::CollectiveOps);
    assert_eq!(tr.slices.len(), 2);
    let rep = ranks_report(&t, &crate::analysis::gpu::GpuOptions::default(), Align::AsRecorded).unwrap();
    let [r] = rep.ranks.as_slice() else { panic!("one rank: {:?}", rep.ranks) };
    assert_eq!(r.kind, RankKind::Neuron);
    // engines busy [100, 180], [400, 450], [1e12 + 123, + 223] (semaphore waits: none)
    assert_eq!(r.compute_ns, 80 + 50 + 100);
    // AllReduce [170, 300] under compute for 10 ns, AllGather [500, 600] not at all
    assert_eq!(r.exposed_comm_ns, Some(130 - 10 + 100));
    let names: Vec<&str> = rep.collectives.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["AllReduce", "AllGather"], "in start order");
    assert!(rep.collectives.iter().all(|c| c.ranks == vec![0] && !c.is_complete()), "one rank");
}
