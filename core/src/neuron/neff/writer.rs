//! In-memory NEFF writer: builds small valid NEFFs (header + tar or tar.gz) so tests run
//! without the real samples. [`minimal`] gives a complete one-subgraph NEFF with a
//! debug-info chain; [`NeffBuilder`] composes arbitrary members.

use super::header::{feature_names, hex, NeffHeader, HEADER_SIZE};
use super::tar;
use crate::neuron::protowire::Writer;
use std::io::Write;

/// Builder for a NEFF file.
#[derive(Debug, Clone)]
pub struct NeffBuilder {
    /// Header; `data_size` is filled in by [`NeffBuilder::build`].
    pub header: NeffHeader,
    pub members: Vec<(String, Vec<u8>)>,
    /// Gzip the tarball (default true; false = `neuron-packager optimize` style).
    pub gzip: bool,
    /// Write member paths through pax `x` records.
    pub pax: bool,
}

/// A header like the nkipy samples' (pkg 2, NEFF 2.0, one TPB).
pub fn default_header() -> NeffHeader {
    let mut tpb = vec![0u8; 64];
    tpb[0] = 1;
    NeffHeader {
        pkg_version: 2,
        header_size: HEADER_SIZE as u64,
        data_size: 0,
        neff_version_major: 2,
        neff_version_minor: 0,
        build_version: String::new(),
        num_tpb: 1,
        hash: String::new(),
        hash_full: hex(&[0u8; 32]),
        uuid: "0123456789abcdef0123456789abcdef".into(),
        network_name: "test.neff".into(),
        requested_tpb_count: 1,
        tpb_per_node: tpb,
        feature_bits: 0x1400,
        features: feature_names(0x1400),
        lnc_size: 1,
        pad_nonzero: false,
    }
}

impl Default for NeffBuilder {
    fn default() -> Self {
        NeffBuilder { header: default_header(), members: vec![], gzip: true, pax: false }
    }
}

impl NeffBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn member(&mut self, path: &str, data: impl Into<Vec<u8>>) -> &mut Self {
        self.members.push((path.to_string(), data.into()));
        self
    }
    /// The payload (tar or tar.gz) that follows the header.
    pub fn payload(&self) -> Vec<u8> {
        let t = if self.pax { tar::write_pax(&self.members) } else { tar::write(&self.members) };
        if !self.gzip {
            return t;
        }
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        // writing to a Vec cannot fail
        let _ = e.write_all(&t);
        e.finish().unwrap_or_default()
    }
    pub fn build(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut h = self.header.clone();
        h.data_size = payload.len() as u64;
        let mut out = h.encode();
        out.extend_from_slice(&payload);
        out
    }
}

/// Packed varints.
pub fn packed(ids: &[u64]) -> Vec<u8> {
    let mut w = Writer::new();
    for &i in ids {
        w.varint_raw(i);
    }
    w.finish()
}

/// `{1: key, 2: value}` attribute message.
pub fn attr(key: &str, value: &str) -> Writer {
    let mut w = Writer::new();
    w.string(1, key).string(2, value);
    w
}

/// A debug-info file: description, parent name, entries, optional engine code and sources.
pub fn debug_file(
    desc: &str,
    parent: &str,
    entries: &[Writer],
    engine_code: Option<u64>,
    sources: &[&str],
) -> Vec<u8> {
    let mut w = Writer::new();
    w.string(1, desc);
    if !parent.is_empty() {
        w.string(2, parent);
    }
    for e in entries {
        w.message(3, e);
    }
    if let Some(c) = engine_code {
        w.varint(4, c);
    }
    for s in sources {
        w.string(5, s);
    }
    w.finish()
}

/// 64-byte slots whose first bytes are `opcodes` (byte 1 = 0x10 as in real files).
pub fn slots(opcodes: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    for (i, &op) in opcodes.iter().enumerate() {
        let mut s = [0u8; 64];
        s[0] = op;
        s[1] = 0x10;
        s[63] = i as u8;
        v.extend_from_slice(&s);
    }
    v
}

/// Opcode bytes of the PE binary in [`minimal`].
pub const MINIMAL_PE_OPCODES: [u8; 4] = [0xB1, 0x01, 0x02, 0xA0];
/// Opcode bytes of the SP binary in [`minimal`].
pub const MINIMAL_SP_OPCODES: [u8; 2] = [0xB1, 0xA0];

/// A complete small NEFF: `neff.json` → `kelf-0.json` → `sg00/def.json` with a PE engine
/// (4 slots, full debug chain: slots 1–2 resolve to framework level, slot 3 names a missing
/// BIR id, slot 0 has none) and an SP engine (2 slots, no debug info).
pub fn minimal() -> NeffBuilder {
    let mut b = NeffBuilder::new();
    b.member("info.json", r#"{"tool_version":"0.0.1+test","kelp_version":"Dynamic","name":"test.neff","num_tpb":1,"num_tpb_requested":1,"num_tpb_per_node":[1,0]}"#);
    b.member("hlo_stats.json", r#"{"HloMacCount":4194304,"Traffic":262144,"ArithmeticIntensity":32.0}"#);
    b.member(
        "kelf-0.json",
        r#"{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"version":"0.5","target":"test"}"#,
    );
    b.member(
        "sg00/def.json",
        r#"{"pe":"PE.json","pe_instr":"PE.bin","pe_dbg":["debug_info_backend_PE.dbg"],"pe_asm_dbg":["debug_info_asm_PE.dbg"],
            "sp":"SP.json","sp_instr":"SP.bin",
            "dma_queue":{"qSPDynamicHW":{"type":"dynamic","num_queues":16,"owner":"sp","semaphore_set":[8,9],"fabric_path":"main"}},
            "var":{"SB":{"type":"state-buffer","var_id":0},"x":{"type":"input","var_id":1,"size":65536,"ops":[]},
                   "output0":{"type":"output","var_id":2,"size":32768,"ops":[]}},
            "neff_features":["neff_feature_vnc"],"name":"definition","version":"0.6","future_key":{"a":1}}"#,
    );
    b.member("sg00/PE.json", r#"{"dma":[{"id":"7","queue":"qSPDynamicHW","desc":{"op":"copy","from":"x","to":"output0"}}],"instr":"PE.bin","name":"PE.json"}"#);
    b.member("sg00/SP.json", r#"{"dma":[],"instr":"SP.bin","name":"SP.json"}"#);
    b.member("sg00/PE.bin", slots(&MINIMAL_PE_OPCODES));
    b.member("sg00/SP.bin", slots(&MINIMAL_SP_OPCODES));
    b.member("sg00/tensor_map.json", r#"{"x":{"dtype":"float16","is_const":false,"kind":"input","layer_name":"x","sim_format":"NC","sim_shape":[128,256],"tf_format":"NC","tf_shape":[128,256]}}"#);
    b.member("sg00/act_info.json", r#"{"pwp_file_keys":[]}"#);

    let mut fw = Writer::new();
    fw.varint(1, 5).string(2, "hlo__dot_op0");
    b.member(
        "debug_info/debug_info_pttf.dbg_sg000000",
        debug_file("Debug info for PyTorch/Tensorflow operations", "", &[fw], None, &[]),
    );
    let mut hlo = Writer::new();
    hlo.varint(1, 2)
        .string(2, "%op0 = dot(%x, %y)")
        .bytes(3, &packed(&[5]))
        .bytes(4, &packed(&[0, 1]))
        .message(7, &attr("op_type", "NKIPy_Op"))
        .message(7, &attr("source_file", "model.py"))
        .message(7, &attr("source_line", "58"));
    b.member(
        "debug_info/debug_info_hlo.dbg_sg000000",
        debug_file("Debug info for XLA generated HLO instructions", "debug_info_pttf.dbg", &[hlo], None, &[]),
    );
    let mut pg = Writer::new();
    pg.varint(1, 71)
        .string(2, "float16<128 x 64> $71")
        .bytes(3, &packed(&[2]))
        .varint(6, 1)
        .message(7, &attr("kernel_file", "0"))
        .message(7, &attr("kernel_line", "12"));
    b.member(
        "debug_info/debug_info_penguin.dbg_sg000000",
        debug_file("Debug info for Penguin instructions", "debug_info_hlo.dbg", &[pg], None, &["kernel.py"]),
    );
    let mut bir = Writer::new();
    bir.varint(1, 106)
        .string(2, "I-71-0")
        .bytes(3, &packed(&[71]))
        .bytes(4, &packed(&[94]))
        .varint(6, 3)
        .message(7, &attr("kernel_file", "0"))
        .message(7, &attr("kernel_line", "13"))
        .varint(42, 9); // an unknown field, must be kept
    b.member(
        "sg00/debug_info_backend_PE.dbg",
        debug_file(
            "Debug info for one engine's BIR Instructions.",
            "debug_info_penguin.dbg",
            &[bir],
            Some(1),
            &["kernel.py"],
        ),
    );
    let asm: Vec<Writer> = [&[][..], &[106][..], &[106][..], &[999][..]]
        .iter()
        .map(|ids| {
            let mut w = Writer::new();
            if !ids.is_empty() {
                w.bytes(3, &packed(ids));
            }
            w
        })
        .collect();
    b.member(
        "sg00/debug_info_asm_PE.dbg",
        debug_file(
            "Debug info for one engine's assembly instructions.",
            "debug_info_backend_PE.dbg",
            &asm,
            Some(1),
            &[],
        ),
    );
    b.member(
        "neff.json",
        r#"{"nodes":[{"op":"null","name":"x","inputs":[],"output_names":["x"],"is_param":"0"},
            {"op":"tvm_op","name":"sg_core","attrs":{"func_name":"__kelf","kelf":"kelf-0.json","num_inputs":"1","num_outputs":"1"},"inputs":[[0,0,0]],"output_names":["output0"]}],
            "arg_nodes":[0],"heads":[[1,0,0]],
            "metadata":{"signatures":{"default":{"inputs":{"x":{"id":0,"dtype":"float16","shape":[128,256]}},"outputs":{}}}}}"#,
    );
    b
}

/// Bytes of [`minimal`].
pub fn minimal_neff() -> Vec<u8> {
    minimal().build()
}
