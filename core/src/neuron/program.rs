//! NEFF → the format-agnostic [`Program`] of the model (header, subgraphs with instruction counts
//! per engine, tensors, DMA queues, variables, members, and the operator hierarchy
//! framework → HLO → penguin with instruction counts), for the program view.

use super::neff::{Engine, Neff};
use crate::model::{
    OpNode, Program, ProgramHeader, ProgramKind, ProgramLevel, ProgramSubgraph, ProgramTableKind, Table,
};
use std::collections::HashMap;

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(|x| x.to_string()).unwrap_or_default()
}

pub fn program_from_neff(neff: &Neff) -> Program {
    let h = &neff.header;
    let mut fields = vec![
        ("uuid".to_string(), h.uuid.clone()),
        ("network_name".into(), h.network_name.clone()),
        ("neff_version".into(), format!("{}.{}", h.neff_version_major, h.neff_version_minor)),
        ("pkg_version".into(), h.pkg_version.to_string()),
        ("build_version".into(), h.build_version.clone()),
        ("header_size".into(), h.header_size.to_string()),
        ("data_size".into(), h.data_size.to_string()),
        ("num_tpb".into(), h.num_tpb.to_string()),
        ("requested_tpb_count".into(), h.requested_tpb_count.to_string()),
        ("lnc_size".into(), h.lnc_size.to_string()),
        ("hash".into(), h.hash.clone()),
        ("feature_bits".into(), format!("{:#x}", h.feature_bits)),
        ("features".into(), h.features.join(", ")),
    ];
    if let Some(info) = &neff.info {
        fields.push(("compiler_version".into(), opt(&info.tool_version)));
    }
    let header = ProgramHeader {
        uuid: h.uuid.clone(),
        network_name: h.network_name.clone(),
        lnc_size: Some(h.lnc_size),
        fields,
    };

    let subgraphs = neff
        .subgraphs
        .iter()
        .map(|s| ProgramSubgraph {
            name: s.name.clone(),
            engines: Engine::STREAMS
                .iter()
                .map(|&e| (e, s.engine(e).map_or(0, |p| p.instruction_count())))
                .collect(),
        })
        .collect();

    let mut tables = Vec::new();
    let mut tensors = Table {
        kind: ProgramTableKind::Tensors,
        name: "Tensors".into(),
        columns: vec!["subgraph", "name", "kind", "dtype", "shape", "layer"]
            .into_iter()
            .map(String::from)
            .collect(),
        rows: vec![],
    };
    let mut queues = Table {
        kind: ProgramTableKind::DmaQueues,
        name: "DMA queues".into(),
        columns: vec!["subgraph", "name", "type", "queues", "owner", "semaphores"]
            .into_iter()
            .map(String::from)
            .collect(),
        rows: vec![],
    };
    let mut vars = Table {
        kind: ProgramTableKind::Variables,
        name: "Variables".into(),
        columns: vec!["subgraph", "name", "type", "size", "id"].into_iter().map(String::from).collect(),
        rows: vec![],
    };
    for s in &neff.subgraphs {
        for t in &s.tensors {
            let shape = if t.tf_shape.is_empty() { &t.sim_shape } else { &t.tf_shape };
            tensors.rows.push(vec![
                s.name.clone(),
                t.name.clone(),
                opt(&t.kind),
                opt(&t.dtype),
                format!("{shape:?}"),
                opt(&t.layer_name),
            ]);
        }
        for q in &s.dma_queues {
            queues.rows.push(vec![
                s.name.clone(),
                q.name.clone(),
                opt(&q.kind),
                opt(&q.num_queues),
                opt(&q.owner),
                q.semaphore_set.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "),
            ]);
        }
        for v in &s.vars {
            vars.rows.push(vec![s.name.clone(), v.name.clone(), opt(&v.kind), opt(&v.size), opt(&v.var_id)]);
        }
    }
    let members = Table {
        kind: ProgramTableKind::Members,
        name: "Members".into(),
        columns: vec!["path".into(), "bytes".into()],
        rows: neff.members().iter().map(|m| vec![m.path.clone(), m.size.to_string()]).collect(),
    };
    tables.extend([tensors, queues, vars, members]);

    Program {
        kind: ProgramKind::Neff,
        name: h.network_name.clone(),
        header,
        subgraphs,
        tables,
        hierarchy: hierarchy(neff),
    }
}

/// Programs with at most this many instructions list each instruction under its BIR node;
/// larger ones stop at BIR (the tree would hold one node per instruction).
pub const MAX_INSTRUCTION_LEAVES: u64 = 100_000;

/// framework → HLO → penguin → BIR → instruction tree with instruction counts, resolved from
/// every instruction slot (instruction leaves up to [`MAX_INSTRUCTION_LEAVES`]).
fn hierarchy(neff: &Neff) -> Vec<OpNode> {
    let mut nodes: Vec<OpNode> = Vec::new();
    let mut index: HashMap<(u8, String, u64), u32> = HashMap::new();
    let mut get = |nodes: &mut Vec<OpNode>, level: u8, sg: &str, id: u64, make: &dyn Fn() -> OpNode| -> u32 {
        let key = (level, if level == 0 { String::new() } else { sg.to_string() }, id);
        *index.entry(key).or_insert_with(|| {
            nodes.push(make());
            (nodes.len() - 1) as u32
        })
    };
    let total: u64 = neff.subgraphs.iter().flat_map(|s| &s.engines).map(|p| p.instruction_count()).sum();
    let leaves = total <= MAX_INSTRUCTION_LEAVES;
    for s in &neff.subgraphs {
        for p in &s.engines {
            let n = p.instruction_count();
            for i in 0..n {
                let Some(l) = neff.resolve(&s.name, p.engine, i) else { continue };
                let mut parent: Option<u32> = None;
                let mut chain: Vec<u32> = Vec::new();
                if let Some(f) = &l.framework {
                    let id = get(&mut nodes, 0, &s.name, f.id, &|| OpNode {
                        level: ProgramLevel::Framework,
                        name: f.name.clone(),
                        parent: None,
                        source: String::new(),
                        instructions: 0,
                        attrs: vec![],
                    });
                    parent = Some(id);
                    chain.push(id);
                }
                if let Some(hl) = &l.hlo {
                    let src = match (&l.source_file, l.source_line) {
                        (Some(f), Some(line)) => format!("{f}:{line}"),
                        (Some(f), None) => f.clone(),
                        _ => String::new(),
                    };
                    let par = parent;
                    let id = get(&mut nodes, 1, &s.name, hl.id, &|| OpNode {
                        level: ProgramLevel::Hlo,
                        name: hl.name.clone(),
                        parent: par,
                        source: src.clone(),
                        instructions: 0,
                        attrs: [("op_type", &hl.op_type), ("opcode", &hl.opcode)]
                            .iter()
                            .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), v.clone())))
                            .chain(std::iter::once(("text".to_string(), hl.text.clone())))
                            .collect(),
                    });
                    parent = Some(id);
                    chain.push(id);
                }
                let kernel_src = match (&l.kernel_file, l.kernel_line) {
                    (Some(f), Some(line)) => format!("{f}:{line}"),
                    _ => String::new(),
                };
                if let Some(pg) = &l.penguin {
                    let par = parent;
                    let id = get(&mut nodes, 2, &s.name, pg.id, &|| OpNode {
                        level: ProgramLevel::Penguin,
                        name: pg.name.clone(),
                        parent: par,
                        source: kernel_src.clone(),
                        instructions: 0,
                        attrs: vec![],
                    });
                    parent = Some(id);
                    chain.push(id);
                }
                if let Some(bir) = &l.bir {
                    let par = parent;
                    let id = get(&mut nodes, 4, &s.name, bir.id, &|| OpNode {
                        level: ProgramLevel::Bir,
                        name: bir.name.clone(),
                        parent: par,
                        source: kernel_src.clone(),
                        instructions: 0,
                        attrs: vec![],
                    });
                    parent = Some(id);
                    chain.push(id);
                }
                // the instruction itself, as a leaf (small programs only: see MAX_INSTRUCTION_LEAVES)
                if leaves && !chain.is_empty() {
                    let name = format!(
                        "{} #{i} {}",
                        p.engine.name(),
                        l.opcode_name
                            .clone()
                            .or_else(|| l.opcode.map(|o| format!("0x{o:02x}")))
                            .unwrap_or_default()
                    );
                    nodes.push(OpNode {
                        level: ProgramLevel::Instruction,
                        name: name.trim_end().to_string(),
                        parent,
                        source: String::new(),
                        instructions: 0,
                        attrs: l.asm_text.iter().map(|t| ("asm".to_string(), t.clone())).collect(),
                    });
                    chain.push((nodes.len() - 1) as u32);
                }
                if chain.is_empty() {
                    let id = get(&mut nodes, 3, &s.name, u64::MAX, &|| OpNode {
                        level: ProgramLevel::Unattributed,
                        name: format!("{} (no debug info)", s.name),
                        parent: None,
                        source: String::new(),
                        instructions: 0,
                        attrs: vec![],
                    });
                    chain.push(id);
                }
                for id in chain {
                    nodes[id as usize].instructions += 1;
                }
            }
        }
    }
    nodes
}
