use super::writer::{self, minimal, MINIMAL_PE_OPCODES};
use super::*;

#[test]
fn minimal_round_trip() {
    let bytes = writer::minimal_neff();
    assert!(sniff(&bytes));
    let n = parse(&bytes).unwrap();
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    assert_eq!(n.compression, Compression::Gzip);
    assert_eq!(n.header.uuid, "0123456789abcdef0123456789abcdef");
    assert_eq!(n.header.network_name, "test.neff");
    assert_eq!(n.header.data_size as usize, bytes.len() - 1024);
    assert_eq!(n.header.features, vec!["vnc".to_string(), "dge".to_string()]);
    assert_eq!(n.graph.as_ref().unwrap().inputs[0].shape, vec![128, 256]);
    assert_eq!(n.kelfs.len(), 1);
    assert_eq!(n.subgraphs.len(), 1);
    let sg = &n.subgraphs[0];
    assert_eq!(sg.name, "sg00");
    assert_eq!(sg.engines.len(), 2);
    let pe = n.instructions("sg00", Engine::Tensor).unwrap();
    assert_eq!(pe.count, 4);
    assert_eq!(pe.opcodes().collect::<Vec<_>>(), MINIMAL_PE_OPCODES.to_vec());
    assert_eq!(pe.slot(2).unwrap()[0], 0x02);
    assert!(pe.slot(4).is_none());
    assert_eq!(sg.engine(Engine::Tensor).unwrap().dma[0].id.as_deref(), Some("7"));
    assert_eq!(sg.dma_queues[0].owner_engine, Some(Engine::Sync));
    assert_eq!(sg.vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["SB", "x", "output0"]);
    assert_eq!(sg.tensors[0].sim_shape, vec![128, 256]);
    assert_eq!(sg.def["future_key"]["a"], 1);
    assert_eq!(n.info.as_ref().unwrap().tool_version.as_deref(), Some("0.0.1+test"));
    assert_eq!(n.hlo_stats.as_ref().unwrap().mac_count(), Some(4194304.0));
    assert!(n.other_json.contains_key("sg00/act_info.json"));

    let l = n.resolve("sg00", Engine::Tensor, 1).unwrap();
    assert_eq!(l.opcode, Some(0x01));
    assert_eq!(l.opcode_name.as_deref(), Some("LDWEIGHTS"));
    assert_eq!(l.bir.as_ref().unwrap().name, "I-71-0");
    assert_eq!(l.penguin.as_ref().unwrap().id, 71);
    let h = l.hlo.as_ref().unwrap();
    assert_eq!(
        (h.name.as_str(), h.opcode.as_deref(), h.op_type.as_deref()),
        ("op0", Some("dot"), Some("NKIPy_Op"))
    );
    assert_eq!(l.framework.as_ref().unwrap().name, "hlo__dot_op0");
    assert_eq!((l.source_file.as_deref(), l.source_line), (Some("model.py"), Some(58)));
    assert_eq!((l.kernel_file.as_deref(), l.kernel_line), (Some("kernel.py"), Some(13)));
    let l0 = n.resolve("sg00", Engine::Tensor, 0).unwrap();
    assert!(l0.bir.is_none());
    assert!(n.resolve("sg00", Engine::Tensor, 3).unwrap().bir.is_none());
    assert!(n.resolve("sg00", Engine::Tensor, 4).is_none());
    // SP has a binary but no debug info
    let sp = n.resolve("SG00", Engine::Sync, 1).unwrap();
    assert_eq!(sp.opcode, Some(0xA0));
    assert!(sp.bir.is_none());
    assert!(n.resolve("sg00", Engine::Vector, 0).is_none());
    // unknown protobuf field kept
    let bir = &n.debug.subgraphs[0].engine(Engine::Tensor).unwrap().bir.entries[0];
    assert_eq!(bir.unknown, vec![debuginfo::RawField { field: 42, value: debuginfo::RawValue::Varint(9) }]);

    let s = n.summary();
    assert_eq!(s.uuid, n.header.uuid);
    assert_eq!(s.lnc_size, 1);
    assert_eq!(s.subgraphs[0].instructions["Tensor"], 4);
    assert_eq!(s.subgraphs[0].instructions["Sync"], 2);
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["subgraphs"][0]["instructions"]["Tensor"], 4);
    assert!(j.get("network_name").is_some());
    // whole model serialises
    serde_json::to_string(&n).unwrap();
}

#[test]
fn plain_tar_pax_and_renamed_members() {
    let mut b = minimal();
    b.gzip = false;
    b.pax = true;
    // older producers: lower-case names; def.json names them, so navigation must follow
    for (p, d) in b.members.iter_mut() {
        if p.ends_with("PE.bin") {
            *p = "sg00/pe.bin".into();
        }
        if p.ends_with("kelf-0.json") {
            *p = "kelf-a.json".into();
        }
        if p == "neff.json" {
            *d = String::from_utf8_lossy(d).replace("kelf-0.json", "kelf-a.json").into_bytes();
        }
    }
    let bytes = b.build();
    assert!(sniff(&bytes));
    let n = parse(&bytes).unwrap();
    assert_eq!(n.compression, Compression::None);
    assert_eq!(n.instructions("sg00", Engine::Tensor).unwrap().path, "sg00/pe.bin");
    assert_eq!(n.kelfs[0].path, "kelf-a.json");
    assert!(n.resolve("sg00", Engine::Tensor, 2).unwrap().framework.is_some());
}

#[test]
fn no_neff_json_falls_back_to_kelf_and_def() {
    let mut b = minimal();
    b.members.retain(|(p, _)| p != "neff.json");
    let n = parse(&b.build()).unwrap();
    assert_eq!(n.subgraphs.len(), 1);
    b.members.retain(|(p, _)| p != "kelf-0.json");
    let n = parse(&b.build()).unwrap();
    assert_eq!(n.subgraphs[0].name, "sg00");
    assert_eq!(n.subgraphs[0].engines.len(), 2);
}

#[test]
fn errors_and_sniff() {
    assert_eq!(parse(&[0u8; 100]).unwrap_err(), NeffError::TooShort(100));
    assert!(matches!(parse(&[0u8; 2000]), Err(NeffError::BadHeader(_))));
    assert!(!sniff(&[0u8; 2000]));
    assert_eq!(NeffError::TooLarge(MAX_UNPACKED).to_string(), "this file expands to more than 1.5 GiB");
    let mut b = writer::minimal_neff();
    b[1024] = 0x00;
    assert!(!sniff(&b));
    assert_eq!(parse(&b).unwrap_err(), NeffError::UnknownPayload);
    let mut g = writer::minimal_neff();
    g.truncate(1024 + 12);
    assert!(sniff(&g));
    assert!(matches!(parse(&g), Err(NeffError::Gzip(_))));
    // empty tar
    let e = writer::NeffBuilder { gzip: false, ..Default::default() };
    let eb = e.build();
    assert!(parse(&eb).is_err());
}

fn exercise(bytes: &[u8], serialise: bool) {
    let _ = sniff(bytes);
    if let Ok(n) = parse(bytes) {
        let _ = n.summary();
        for sg in &n.subgraphs {
            for e in &sg.engines {
                for i in 0..e.instruction_count().min(8) + 2 {
                    let _ = n.resolve(&sg.name, e.engine, i);
                }
            }
        }
        if serialise {
            let _ = serde_json::to_string(&n);
        }
    }
}

#[test]
fn fuzz_truncate_and_flip_minimal() {
    for gzip in [true, false] {
        let mut b = minimal();
        b.gzip = gzip;
        let bytes = b.build();
        for cut in 0..bytes.len() {
            if gzip || cut % 7 == 0 || cut < 1100 {
                exercise(&bytes[..cut], cut % 5 == 0);
            }
        }
        let mut state = 0x2545F4914F6CDD1Du64;
        for round in 0..1500 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut m = bytes.clone();
            for k in 0..1 + (state % 4) as usize {
                let pos = ((state >> (8 + k * 8)) as usize) % m.len();
                m[pos] ^= 1 << ((state >> (40 + k)) % 8);
            }
            exercise(&m, round % 5 == 0);
        }
    }
}

// ---- real samples -------------------------------------------------------------------

fn sample(name: &str) -> Option<Vec<u8>> {
    let p = format!("{}/../../shared/samples/neuron/{name}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            panic!("sample {p} not present (the shared samples beside the repository are required)");
        }
    }
}

fn check_real(name: &str, uuid: &str, data_size: u64, counts: &[(Engine, u64)]) -> Neff {
    let bytes = sample(name).unwrap();
    assert!(sniff(&bytes));
    let n = parse(&bytes).unwrap();
    println!("{name}: warnings {:?}", n.warnings);
    let h = &n.header;
    assert_eq!((h.pkg_version, h.header_size, h.data_size), (2, 1024, data_size));
    assert_eq!((h.neff_version_major, h.neff_version_minor), (2, 0));
    assert_eq!(h.build_version, "");
    assert_eq!((h.num_tpb, h.requested_tpb_count, h.lnc_size), (1, 1, 2));
    assert_eq!(h.uuid, uuid);
    assert_eq!(h.network_name, "file.neff");
    assert_eq!(h.tpb_per_node[0], 1);
    assert!(h.features.contains(&"vnc".to_string()) && h.features.contains(&"hardware_dge".to_string()));
    assert!(!h.pad_nonzero);
    assert_eq!(h.hash.len(), 32);
    assert_eq!(n.compression, Compression::Gzip);
    assert_eq!(n.members().len(), 72);
    assert_eq!(n.members().last().unwrap().path, "neff.json");
    assert!(n.members().iter().any(|m| m.path == "debug_info/debug_info_hlo.dbg_sg000000"));
    assert_eq!(n.info.as_ref().unwrap().tool_version.as_deref(), Some("2.23.6484.0+3b612583"));
    assert!(n.hlo_stats.as_ref().unwrap().mac_count().unwrap() > 0.0);
    assert_eq!(n.kelfs[0].target.as_deref(), Some("cayman"));
    assert_eq!(n.subgraphs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["sg00", "sg01"]);
    for sg in &n.subgraphs {
        assert_eq!(sg.engines.len(), 5);
        for &(e, c) in counts {
            let p = sg.engine(e).unwrap();
            let s = p.instructions.as_ref().unwrap();
            assert_eq!(s.count, c, "{} {e}", sg.name);
            assert_eq!(s.count, n.member_bytes(&s.path).unwrap().len() as u64 / 64);
            assert_eq!(s.trailing_bytes, 0);
            assert_eq!(s.opcode(0), Some(0xB1), "first slot is SET_ORDERING_MODE");
            let d = n.debug.subgraph(&sg.name).unwrap().engine(e).unwrap();
            assert_eq!(d.asm.len() as u64, c, "one asm entry per slot");
        }
        assert!(sg.vars.iter().any(|v| v.name == "SB" && v.kind.as_deref() == Some("state-buffer")));
        assert!(sg.vars.iter().any(|v| v.kind.as_deref() == Some("dge-table")));
        assert!(sg
            .dma_queues
            .iter()
            .any(|q| q.name == "qPoolDynamic" && q.owner_engine == Some(Engine::GpSimd)));
        assert!(sg.tensors.iter().any(|t| t.name == "output0" && t.kind.as_deref() == Some("output")));
        assert_eq!(sg.neff_features, ["neff_feature_vnc"]);
    }
    let s = n.summary();
    assert_eq!((s.uuid.as_str(), s.network_name.as_str(), s.lnc_size), (uuid, "file.neff", 2));
    for sub in &s.subgraphs {
        for &(e, c) in counts {
            assert_eq!(sub.instructions[e.name()], c);
        }
    }
    println!("{name}: summary {}", serde_json::to_string(&s).unwrap());
    n
}

/// Resolution rates per level, over every slot of every engine of every subgraph.
fn rates(n: &Neff) -> [f64; 7] {
    let mut c = [0u64; 7];
    let mut total = 0u64;
    for sg in &n.subgraphs {
        for e in &sg.engines {
            for i in 0..e.instruction_count() {
                total += 1;
                let Some(l) = n.resolve(&sg.name, e.engine, i) else { continue };
                c[0] += l.opcode.is_some() as u64;
                c[1] += l.bir.is_some() as u64;
                c[2] += l.penguin.is_some() as u64;
                c[3] += l.hlo.is_some() as u64;
                c[4] += l.framework.is_some() as u64;
                c[5] += l.source_line.is_some() as u64;
                c[6] += l.kernel_line.is_some() as u64;
            }
        }
    }
    let r = c.map(|x| x as f64 / total.max(1) as f64);
    println!(
        "{} slots: opcode {:.3} bir {:.3} penguin {:.3} hlo {:.3} framework {:.3} source_line {:.3} kernel_line {:.3}",
        total, r[0], r[1], r[2], r[3], r[4], r[5], r[6]
    );
    r
}

#[test]
fn real_matmul_small() {
    if sample("matmul_small.neff").is_none() {
        return;
    }
    use Engine::*;
    let n = check_real(
        "matmul_small.neff",
        "00a04c535fd94f07bffdd5eacdefc852",
        61_440,
        &[(Tensor, 12), (Scalar, 5), (Vector, 2), (GpSimd, 7), (Sync, 3)],
    );
    let g = &n.debug.globals[0];
    assert_eq!(g.key, "sg000000");
    assert_eq!(g.framework.get(5).unwrap().name, "hlo__dot_op0");
    assert_eq!(g.hlo.get(2).unwrap().text, "%op0 = dot(%x, %y)");
    // PE slot 2 → I-87-0-wait-0 … HLO op0 (dot) → hlo__dot_op0
    let l = n.resolve("sg00", Tensor, 3).unwrap();
    println!("{}", serde_json::to_string_pretty(&l).unwrap());
    assert_eq!(l.bir.as_ref().unwrap().name, "I-87-0");
    assert_eq!(l.penguin.as_ref().unwrap().id, 87);
    let r = rates(&n);
    assert!(r[0] == 1.0 && r[1] > 0.5);
}

#[test]
fn real_matmul_large() {
    if sample("matmul_large.neff").is_none() {
        return;
    }
    use Engine::*;
    let n = check_real(
        "matmul_large.neff",
        "25e09fd2caca464a9ec358c85854fd38",
        1_515_520,
        &[(Tensor, 21_269), (Scalar, 103), (Vector, 1_101), (GpSimd, 6_873), (Sync, 449)],
    );
    let pe = n.instructions("sg00", Tensor).unwrap();
    assert_eq!(pe.size, 1_361_216);
    assert_eq!(pe.opcode_counts["0x02"], 16_640);
    let r = rates(&n);
    assert!(r[1] > 0.9 && r[2] > 0.5 && r[3] > 0.5 && r[6] > 0.5, "{r:?}");
}

#[test]
fn real_sample_rewrite_truncate_flip() {
    let Some(bytes) = sample("matmul_small.neff") else { return };
    let n = parse(&bytes).unwrap();
    for k in 0..48 {
        exercise(&bytes[..(bytes.len() * k / 48 + k * 37 % 101).min(bytes.len())], false);
    }
    // rewrite the real members through the writer, uncompressed: same content
    let b = writer::NeffBuilder {
        header: n.header.clone(),
        members: n
            .members()
            .iter()
            .map(|m| (m.path.clone(), n.member_bytes(&m.path).unwrap().to_vec()))
            .collect(),
        gzip: false,
        pax: false,
    };
    let plain = b.build();
    let p = parse(&plain).unwrap();
    assert_eq!(p.compression, Compression::None);
    assert_eq!(p.summary(), n.summary());
    assert_eq!(p.resolve("sg01", Engine::GpSimd, 3), n.resolve("sg01", Engine::GpSimd, 3));
    let mut state = 0x9E3779B97F4A7C15u64;
    for _ in 0..150 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut m = plain.clone();
        for k in 0..4 {
            let pos = 1024 + ((state >> (k * 12)) as usize) % (m.len() - 1024);
            m[pos] = (state >> (k * 8)) as u8;
        }
        exercise(&m, false);
    }
}
