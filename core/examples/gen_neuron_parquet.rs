//! Write a Neuron Explorer output directory (schema 7.4.0 Parquet tables, the layout
//! `neuron-explorer view` writes: one `<Table>.parquet` per table, large tables split into
//! `<Table>_0.parquet`, `<Table>_1.parquet`, …) for the browser test of a dropped Parquet
//! directory (tests/e2e/parquet-directory.test.mjs) and for trying it by hand:
//! `cargo run -p loupe-core --example gen_neuron_parquet -- <dir> [schema-version]`
//!
//! There are no public Explorer Parquet outputs: the rows are synthetic (a deterministic
//! pseudo-random program on five engines, DMA packets on static and dynamic queues, semaphore
//! updates, collective operations), the columns those of the published schema reference (neuron.md §3.7), plus one
//! column the schema does not have (`loupe_test_note`, on split 2 of `Instruction`) that must be
//! kept as an argument.

use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

enum C {
    I64(&'static str, Vec<i64>),
    I32(&'static str, Vec<i32>),
    F64(&'static str, Vec<f64>),
    S(&'static str, Vec<String>),
}

impl C {
    fn decl(&self) -> String {
        match self {
            C::I64(n, _) => format!("required int64 {n};"),
            C::I32(n, _) => format!("required int32 {n};"),
            C::F64(n, _) => format!("required double {n};"),
            C::S(n, _) => format!("required binary {n} (STRING);"),
        }
    }
}

fn write(dir: &Path, file: &str, cols: &[C]) {
    let decl: String = cols.iter().map(C::decl).collect::<Vec<_>>().join(" ");
    let schema = Arc::new(parse_message_type(&format!("message schema {{ {decl} }}")).expect("schema"));
    let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
    let mut buf = Vec::new();
    {
        let mut w = SerializedFileWriter::new(&mut buf, schema, props).expect("writer");
        let mut g = w.next_row_group().expect("row group");
        for c in cols {
            let mut cw = g.next_column().expect("column").expect("column");
            match c {
                C::I64(_, v) => cw.typed::<Int64Type>().write_batch(v, None, None),
                C::I32(_, v) => cw.typed::<Int32Type>().write_batch(v, None, None),
                C::F64(_, v) => cw.typed::<DoubleType>().write_batch(v, None, None),
                C::S(_, v) => {
                    let vals: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    cw.typed::<ByteArrayType>().write_batch(&vals, None, None)
                }
            }
            .expect("write");
            cw.close().expect("close column");
        }
        g.close().expect("close row group");
        w.close().expect("close file");
    }
    std::fs::write(dir.join(file), buf).expect("write file");
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "parquet-profile".into());
    let schema = args.next().unwrap_or_else(|| "7.4.0".into());
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).expect("create the directory");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    // Instruction, in three splits of 400 rows
    const ENGINES: [(&str, &str, &[&str]); 5] = [
        ("tensor", "Tensor", &["MATMUL", "LDWEIGHTS", "TRANSPOSE"]),
        ("vector", "Vector", &["TENSOR_TENSOR", "TENSOR_SCALAR", "TENSOR_REDUCE"]),
        ("scalar", "Scalar", &["ACTIVATE", "ACTIVATE_QUANTIZE"]),
        ("gpsimd", "GpSimd", &["IOTA", "DMA_DIRECT2D"]),
        ("sync", "Sync", &["WRITE", "EVENT_SEMAPHORE"]),
    ];
    let mut clock = [0i64; 5];
    let mut id = 0i64;
    let mut last_end = 0i64;
    for split in 0..3 {
        let (
            mut start,
            mut end,
            mut dur,
            mut engine,
            mut track,
            mut opcode,
            mut operands,
            mut ids,
            mut pc,
            mut hlo,
            mut flops,
        ) = (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..400 {
            let e = rng.next(5) as usize;
            let (name, label, ops) = ENGINES[e];
            let op = ops[rng.next(ops.len() as u64) as usize];
            let s = clock[e] + rng.next(200) as i64;
            let d = 20 + rng.next(600) as i64;
            clock[e] = s + d;
            last_end = last_end.max(s + d);
            start.push(s);
            end.push(s + d);
            dur.push(d);
            engine.push(name.to_string());
            track.push(label.to_string());
            opcode.push(op.to_string());
            operands.push(format!("src=sb[{}] dst=sb[{}]", rng.next(128), rng.next(128)));
            ids.push(id);
            pc.push(id);
            hlo.push(format!("dot.{}", id / 100));
            flops.push(if op == "MATMUL" { 2 * 128 * 128 * (64 + rng.next(448) as i64) } else { 0 });
            id += 1;
        }
        let mut cols = vec![
            C::I64("start_ts", start),
            C::I64("end_ts", end),
            C::I64("duration_ns", dur),
            C::S("engine", engine),
            C::S("timeline_track", track),
            C::S("opcode", opcode),
            C::S("operands", operands),
            C::I64("id", ids),
            C::I64("pc", pc),
            C::S("hlo_name", hlo),
            C::I64("raw_flops", flops),
        ];
        if split == 2 {
            cols.push(C::S("loupe_test_note", vec!["a column the schema does not have".into(); 400]));
        }
        write(dir, &format!("Instruction_{split}.parquet"), &cols);
    }

    // DmaPacket: static, software and hardware dynamic queues
    const QUEUES: [(&str, &str); 4] = [
        ("qSyncIO0", "data"),
        ("qSyncIO1", "input"),
        ("qPoolDynamic", "software_dynamic"),
        ("qSPDynamicHW", "hardware_dynamic"),
    ];
    let mut t = 0i64;
    let (mut start, mut end, mut dur, mut qname, mut qtype, mut bytes, mut ids, mut eng, mut qidx) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for k in 0..300i64 {
        let q = rng.next(4) as usize;
        let s = t + rng.next(300) as i64;
        let d = 50 + rng.next(400) as i64;
        t = s;
        start.push(s);
        end.push(s + d);
        dur.push(d);
        qname.push(QUEUES[q].0.to_string());
        qtype.push(QUEUES[q].1.to_string());
        bytes.push([512, 2048, 4096, 65536][rng.next(4) as usize]);
        ids.push(k);
        eng.push(q as i64);
        qidx.push(q as i64);
    }
    write(
        dir,
        "DmaPacket.parquet",
        &[
            C::I64("start_ts", start),
            C::I64("end_ts", end),
            C::I64("duration_ns", dur),
            C::S("queue_name", qname),
            C::S("queue_type", qtype),
            C::I64("transfer_bytes", bytes),
            C::I64("id", ids),
            C::I64("engine_idx", eng),
            C::I64("queue_idx", qidx),
        ],
    );

    // SemaphoreUpdate
    let (mut ts, mut sid, mut val) = (vec![], vec![], vec![]);
    for k in 0..120i64 {
        ts.push(k * (last_end / 120));
        sid.push(format!("{}", k % 3));
        val.push((k / 3) as i32);
    }
    write(dir, "SemaphoreUpdate.parquet", &[C::I64("timestamp", ts), C::S("id", sid), C::I32("value", val)]);

    // CcOp: collective operations (Explorer's Summary: their durations; the outlier insight):
    // six AllReduce, the fifth 3× the others' length, and two AllGather
    let cc: [(&str, i64, i64); 8] = [
        ("AllReduce", 100, 200),
        ("AllGather", 400, 120),
        ("AllReduce", 700, 210),
        ("AllReduce", 1100, 190),
        ("AllReduce", 1500, 220),
        ("AllReduce", 1900, 630),
        ("AllGather", 2700, 130),
        ("AllReduce", 3000, 205),
    ];
    write(
        dir,
        "CcOp.parquet",
        &[
            C::I64("start_ts", cc.iter().map(|c| c.1).collect()),
            C::I64("end_ts", cc.iter().map(|c| c.1 + c.2).collect()),
            C::I64("duration_ns", cc.iter().map(|c| c.2).collect()),
            C::S("operation", cc.iter().map(|c| c.0.to_string()).collect()),
            C::S("algorithm", vec!["Ring".into(); cc.len()]),
            C::I64("num_elements", vec![1024; cc.len()]),
            C::I64("op_id", (1..=cc.len() as i64).collect()),
        ],
    );

    let total_s = (last_end + 1000) as f64 * 1e-9;
    write(
        dir,
        "Summary.parquet",
        &[
            C::F64("total_time", vec![total_s]),
            C::S("instance_type", vec!["trn1.2xlarge".into()]),
            C::I64("dma_queue_count", vec![4]),
        ],
    );
    write(
        dir,
        "Metadata.parquet",
        &[
            C::S("profile_schema_version", vec![schema]),
            C::I32("ntff_version", vec![5]),
            C::I32("num_physical_cores", vec![1]),
            C::I64("neuroncore_idx", vec![0]),
            C::I64("neuron_device_idx", vec![0]),
            C::S("instance_type", vec!["trn1.2xlarge".into()]),
            C::S("profile_name", vec!["loupe_synthetic".into()]),
        ],
    );
    write(
        dir,
        "NeffHeader.parquet",
        &[
            C::S("network_name", vec!["synthetic.neff".into()]),
            C::S("uuid", vec!["5ee240ec1e134d12b7b0ccdf8eff1e5e".into()]),
            C::S("hash", vec!["2358e2226d40bdb81ffbaccdd6356209".into()]),
            C::I64("header_size", vec![1024]),
        ],
    );
    write(
        dir,
        "TensorInfo.parquet",
        &[
            C::S("variable_name", vec!["input0".into(), "weight0".into(), "output0".into()]),
            C::S("type", vec!["IN".into(), "WEIGHT".into(), "OUT".into()]),
            C::S("format", vec!["NHWC".into(); 3]),
            C::S("shape", vec!["128 512 1 1".into(), "512 512 1 1".into(), "128 512 1 1".into()]),
            C::I64("size", vec![131072, 524288, 131072]),
            C::I64("node", vec![50, 51, 52]),
        ],
    );
    println!("wrote {}", dir.display());
}
