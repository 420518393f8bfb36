//! Writes small Neuron Explorer (schema 7.4.0) Parquet tables as fuzz seeds for `import_parquet`:
//! `cargo run --manifest-path core/fuzz/seedgen/Cargo.toml -- core/fuzz/seeds/import_parquet`.
//! The tables mirror the ones in `core/src/import/neuron/parquet/tests.rs`, with several
//! compressions, dictionary and plain encodings, and several row groups, so that the fuzzer
//! starts from every decoder path the importer uses.

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::sync::Arc;

enum C {
    I64(&'static str, Vec<Option<i64>>),
    I32(&'static str, Vec<Option<i32>>),
    F64(&'static str, Vec<Option<f64>>),
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
            C::B(n, _) => format!("optional boolean {n};"),
            C::S(n, _) => format!("optional binary {n} (STRING);"),
        }
    }
    fn len(&self) -> usize {
        match self {
            C::I64(_, v) => v.len(),
            C::I32(_, v) => v.len(),
            C::F64(_, v) => v.len(),
            C::B(_, v) => v.len(),
            C::S(_, v) => v.len(),
        }
    }
}

fn defs<T>(v: &[Option<T>]) -> Vec<i16> {
    v.iter().map(|x| i16::from(x.is_some())).collect()
}

fn flat<T: Copy>(v: &[Option<T>]) -> Vec<T> {
    v.iter().flatten().copied().collect()
}

/// A table with the given columns, `rg` rows per row group.
fn write_table(cols: &[C], rg: usize, compression: Compression, dictionary: bool) -> Vec<u8> {
    let decl: String = cols.iter().map(C::decl).collect::<Vec<_>>().join(" ");
    let schema = Arc::new(parse_message_type(&format!("message schema {{ {decl} }}")).expect("schema"));
    let props = Arc::new(
        WriterProperties::builder().set_compression(compression).set_dictionary_enabled(dictionary).build(),
    );
    let mut buf = Vec::new();
    let n = cols.first().map_or(0, C::len);
    {
        let mut w = SerializedFileWriter::new(&mut buf, schema, props).expect("writer");
        let mut start = 0;
        while start < n.max(1) {
            let end = (start + rg).min(n);
            let mut g = w.next_row_group().expect("row group");
            for c in cols {
                let mut cw = g.next_column().expect("column").expect("column");
                let r = match c {
                    C::I64(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<Int64Type>().write_batch(&flat(v), Some(&defs(v)), None)
                    }
                    C::I32(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<Int32Type>().write_batch(&flat(v), Some(&defs(v)), None)
                    }
                    C::F64(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<DoubleType>().write_batch(&flat(v), Some(&defs(v)), None)
                    }
                    C::B(_, v) => {
                        let v = &v[start..end];
                        cw.typed::<BoolType>().write_batch(&flat(v), Some(&defs(v)), None)
                    }
                    C::S(_, v) => {
                        let v = &v[start..end];
                        let vals: Vec<ByteArray> = v.iter().flatten().map(|s| ByteArray::from(*s)).collect();
                        cw.typed::<ByteArrayType>().write_batch(&vals, Some(&defs(v)), None)
                    }
                };
                r.expect("write");
                cw.close().expect("close column");
            }
            g.close().expect("close row group");
            start = end.max(start + 1);
        }
        w.close().expect("close file");
    }
    buf
}

fn instruction(compression: Compression, dictionary: bool, rg: usize) -> Vec<u8> {
    write_table(
        &[
            i64s("start_ts", &[100, 150, 400, 1_000_000_000_123, 120, 100]),
            i64s("end_ts", &[180, 160, 450, 1_000_000_000_223, 130, 180]),
            i64s("duration_ns", &[80, 10, 50, 100, 10, 80]),
            strs("engine", &["tensor", "tensor", "vector", "sync", "scalar", "tensor"]),
            C::S(
                "timeline_track",
                vec![Some("TensorMatrix"), Some("Tensor"), Some("Vector"), None, Some(""), Some("Tensor")],
            ),
            C::I64("pcore_idx", vec![Some(0), Some(0), Some(0), Some(0), None, Some(1)]),
            strs("opcode", &["MATMUL", "LDWEIGHTS", "TENSOR_TENSOR", "WRITE", "ACTIVATE", "MATMUL"]),
            strs("operands", &["a", "b", "c", "d", "e", "a"]),
            i64s("id", &[11, 12, 13, 14, 15, 16]),
            i64s("pc", &[1, 2, 3, 4, 5, 1]),
            strs("bir_id", &["sg0000:1", "sg0000:2", "sg0000:3", "sg0000:4", "sg0000:5", "sg0000:1"]),
            C::I64("raw_hlo_id", vec![Some(3), Some(3), Some(4), None, None, Some(3)]),
            C::S("hlo_name", vec![None, Some("own.hlo"), None, None, None, None]),
            C::I64("dma_trigger_start_ts", vec![None, None, None, Some(1_000_000_000_300), None, None]),
            C::B("is_something", vec![Some(true), None, None, None, None, Some(false)]),
            C::F64("flops", vec![Some(2048.0), None, None, None, None, Some(1.5)]),
        ],
        rg,
        compression,
        dictionary,
    )
}

fn dma_packet() -> Vec<u8> {
    write_table(
        &[
            i64s("start_ts", &[200, 210, 300]),
            i64s("end_ts", &[290, 250, 390]),
            i64s("duration_ns", &[90, 40, 90]),
            i64s("id", &[501, 502, 503]),
            C::I32("packet_idx", vec![Some(0), Some(1), Some(0)]),
            i64s("packet_aggregation_id", &[900, 900, 901]),
            C::I64("engine_idx", vec![Some(0), Some(0), Some(3)]),
            i64s("transfer_bytes", &[2048, 4, 64]),
            strs("queue_type", &["data", "data", "software_dynamic"]),
            C::S("queue_name", vec![Some("qSyncSpillReload0-Q1-E0"), Some("qSyncSpillReload0-Q1-E0"), None]),
            C::I64("queue_idx", vec![Some(1), Some(1), Some(0)]),
        ],
        2,
        Compression::GZIP(Default::default()),
        true,
    )
}

fn semaphore() -> Vec<u8> {
    write_table(
        &[
            i64s("timestamp", &[10, 20, 30, 40]),
            strs("id", &["S[8] (qSyncSpillReload0)", "2", "2", "S[8] (qSyncSpillReload0)"]),
            C::I32("value", vec![Some(1), Some(1), Some(2), Some(0)]),
            strs("update_source", &["AXI", "Tensor", "Tensor", "AXI"]),
        ],
        1000,
        Compression::UNCOMPRESSED,
        false,
    )
}

fn metadata() -> Vec<u8> {
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
        Compression::LZ4_RAW,
        true,
    )
}

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "seeds/import_parquet".to_string());
    std::fs::create_dir_all(&out).expect("create the output directory");
    let seeds: [(&str, Vec<u8>); 7] = [
        ("instruction_snappy_dict.parquet", instruction(Compression::SNAPPY, true, 4)),
        ("instruction_plain.parquet", instruction(Compression::UNCOMPRESSED, false, 1000)),
        ("instruction_gzip_rg2.parquet", instruction(Compression::GZIP(Default::default()), true, 2)),
        ("instruction_lz4raw_plain.parquet", instruction(Compression::LZ4_RAW, false, 3)),
        ("dma_packet.parquet", dma_packet()),
        ("semaphore.parquet", semaphore()),
        ("metadata.parquet", metadata()),
    ];
    for (name, bytes) in seeds {
        let path = format!("{out}/{name}");
        std::fs::write(&path, &bytes).expect("write a seed");
        println!("{path}: {} bytes", bytes.len());
    }
}
