//! NEFF (Neuron Executable File Format) reader: the compiled program that a Neuron device
//! runs. Facts and evidence: `docs/formats/neuron.md` §1 (container, header, members,
//! debug info, engine binaries, correlation chain) and §5.1 (engine names).
//!
//! Layout:
//! - a 1024-byte little-endian header with no magic ([`header`], neuron.md §1.2);
//! - a tarball at byte 1024, gzip-compressed or plain ([`tar`], §1.1);
//! - inside, navigated by content rather than fixed names (§1.3): `neff.json` (TVM-style
//!   graph) → `kelf-*.json` (`graphs[].definition`) → `sgNN/def.json` → the engine JSON,
//!   the engine binary (`<ENGINE>.bin`, 64-byte instruction slots, §1.5) and the
//!   debug-info files that `def.json` names ([`json`], [`engine`]);
//! - a protobuf debug-info chain ASM → BIR → penguin → HLO → framework ([`debuginfo`],
//!   §1.4, §1.6) giving each instruction slot its operator and source lines.
//!
//! Trace correlation (neuron.md §1.6, ntff-v5.md §4.6): an NTFF instruction event gives
//! (subgraph, engine index, compiler_pc); `Engine::from_ntff_index` maps the engine and the
//! compiler_pc is the slot index, so [`Neff::resolve`] returns its opcode byte and lineage.
//!
//! Parsing never panics. Fatal problems (not a NEFF, undecodable payload) are
//! [`NeffError`]s; everything else (a damaged member, a missing file, a truncated tail)
//! becomes a warning in [`Neff::warnings`] and the rest is still read.

pub mod debuginfo;
pub mod engine;
pub mod header;
pub mod json;
mod names;
pub mod tar;
pub mod writer;

#[cfg(test)]
mod tests;

pub use debuginfo::{DebugInfo, Lineage};
pub use engine::{opcode_name, Engine, InstructionStream, SLOT_SIZE};
pub use header::{NeffHeader, HEADER_SIZE};
pub use json::{
    DmaDescriptor, DmaQueueSet, EngineProgram, HloStats, Info, Kelf, NeffGraph, Subgraph, Tensor, Variable,
};
pub use tar::{Archive, Member};

use names::NameIndex;

use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Read;
use tar::{base_name, dir_of, join};
use thiserror::Error;

/// Refuse to unpack more than this (decompression-bomb guard; also fits wasm32 memory).
pub const MAX_UNPACKED: u64 = crate::limits::MAX_EXPANDED_BYTES;

/// Bytes of JSON members parsed into trees, all together (see [`crate::limits`]).
pub const JSON_BUDGET: u64 = crate::limits::NEFF_JSON_BUDGET_BYTES;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NeffError {
    #[error("file is {0} bytes, shorter than the 1024-byte NEFF header")]
    TooShort(usize),
    #[error("not a NEFF header: {0}")]
    BadHeader(String),
    #[error("payload at byte 1024 is neither gzip nor tar")]
    UnknownPayload,
    #[error("gzip payload could not be decompressed: {0}")]
    Gzip(String),
    #[error("this file expands to more than {}", crate::limits::human_bytes(*.0))]
    TooLarge(u64),
    #[error("tar: {0}")]
    Tar(String),
    #[error("the archive holds no files")]
    NoMembers,
}

/// Payload compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Compression {
    Gzip,
    None,
}

/// A parsed NEFF.
#[derive(Debug, Clone, Serialize)]
pub struct Neff {
    pub header: NeffHeader,
    pub compression: Compression,
    /// Member list (`archive.members`) and the unpacked bytes.
    pub archive: Archive,
    /// `neff.json`.
    pub graph: Option<NeffGraph>,
    /// `kelf-*.json`, in the order `neff.json` names them.
    pub kelfs: Vec<Kelf>,
    pub subgraphs: Vec<Subgraph>,
    /// `info.json`.
    pub info: Option<Info>,
    /// `hlo_stats.json`.
    pub hlo_stats: Option<HloStats>,
    /// Every other JSON member (`act_info.json`, activation tables, metrics…): path → size.
    /// Not parsed (they are not needed); [`Neff::member_json`] parses one on demand.
    pub other_json: BTreeMap<String, u64>,
    pub debug: DebugInfo,
    pub warnings: Vec<String>,
    /// Subgraph lookup by name (built by [`parse`]).
    #[serde(skip)]
    names: NameIndex,
}

/// Per-subgraph instruction counts, for the CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubgraphSummary {
    pub name: String,
    /// Engine name (`Tensor|Vector|Scalar|GpSimd|Sync`) → instruction slots.
    pub instructions: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NeffSummary {
    pub uuid: String,
    pub network_name: String,
    pub lnc_size: u32,
    pub subgraphs: Vec<SubgraphSummary>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Recognise a NEFF by structure (it has no magic): a plausible header and, at byte 1024,
/// gzip magic or a tar header with a valid checksum.
pub fn sniff(bytes: &[u8]) -> bool {
    if bytes.len() < HEADER_SIZE + 3 || NeffHeader::decode(bytes).problem().is_some() {
        return false;
    }
    let p = &bytes[HEADER_SIZE..];
    (p[..2] == GZIP_MAGIC && p[2] == 8) || p.get(..tar::BLOCK).map(tar::header_valid).unwrap_or(false)
}

/// Decompress one or more concatenated gzip members. Zero padding after the stream is
/// normal (the nkipy samples pad the payload to a 1 KiB multiple); other trailing bytes and a
/// damaged stream become warnings when something was decoded.
fn gunzip(data: &[u8], warnings: &mut Vec<String>) -> Result<Vec<u8>, NeffError> {
    let mut out = Vec::new();
    let mut rest = data;
    loop {
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        let budget = MAX_UNPACKED + 1 - out.len() as u64;
        let res = (&mut dec).take(budget).read_to_end(&mut out);
        if out.len() as u64 > MAX_UNPACKED {
            return Err(NeffError::TooLarge(MAX_UNPACKED));
        }
        if let Err(e) = res {
            if out.is_empty() {
                return Err(NeffError::Gzip(e.to_string()));
            }
            warnings.push(format!(
                "gzip stream damaged after {} unpacked bytes ({e}); using what was read",
                out.len()
            ));
            return Ok(out);
        }
        rest = dec.into_inner();
        if rest.len() >= 2 && rest[..2] == GZIP_MAGIC {
            continue; // another gzip member
        }
        if rest.iter().any(|&b| b != 0) {
            warnings.push(format!("{} non-zero bytes after the gzip stream", rest.len()));
        }
        return Ok(out);
    }
}

/// Parse a NEFF file.
pub fn parse(bytes: &[u8]) -> Result<Neff, NeffError> {
    if bytes.len() < HEADER_SIZE {
        return Err(NeffError::TooShort(bytes.len()));
    }
    let header = NeffHeader::decode(bytes);
    if let Some(p) = header.problem() {
        return Err(NeffError::BadHeader(p));
    }
    let mut warnings = Vec::new();
    let avail = (bytes.len() - HEADER_SIZE) as u64;
    let data_len = if header.data_size > avail {
        warnings.push(format!(
            "file truncated: header declares {} data bytes, {} present",
            header.data_size, avail
        ));
        avail
    } else {
        if header.data_size < avail {
            warnings.push(format!("{} bytes after the declared data", avail - header.data_size));
        }
        header.data_size
    } as usize;
    let payload = &bytes[HEADER_SIZE..HEADER_SIZE + data_len];
    let (tar_bytes, compression) = if payload.len() >= 2 && payload[..2] == GZIP_MAGIC {
        (gunzip(payload, &mut warnings)?, Compression::Gzip)
    } else if payload.get(..tar::BLOCK).map(tar::header_valid).unwrap_or(false) {
        (payload.to_vec(), Compression::None)
    } else {
        return Err(NeffError::UnknownPayload);
    };
    let archive = tar::Archive::read(tar_bytes).map_err(NeffError::Tar)?;
    if archive.members.is_empty() {
        return Err(NeffError::NoMembers);
    }
    warnings.extend(archive.warnings.iter().cloned());
    let mut nav = Navigator {
        archive: &archive,
        json: HashMap::new(),
        bad_json: HashSet::new(),
        used: BTreeSet::new(),
        warnings,
        json_budget: JSON_BUDGET,
        over_budget: 0,
    };
    let (graph, kelfs, subgraphs) = nav.structure();
    let info =
        nav.find_json("info.json", |v| v.get("tool_version").is_some()).map(|(p, v)| Info::from_json(&p, v));
    let hlo_stats = nav
        .find_json("hlo_stats.json", |v| v.get("HloMacCount").is_some())
        .map(|(p, v)| HloStats::from_json(&p, v));
    let mut other_json = BTreeMap::new();
    for m in &archive.members {
        if m.path.to_lowercase().ends_with(".json") && !nav.used.contains(&m.path) {
            other_json.insert(m.path.clone(), m.size);
        }
    }
    if nav.over_budget > 0 {
        let n = nav.over_budget;
        nav.warnings.push(format!(
            "{n} JSON member(s) not read: the JSON members exceed the {} parse budget",
            crate::limits::human_bytes(JSON_BUDGET)
        ));
    }
    let refs: Vec<debuginfo::SubgraphDebugRefs> = subgraphs
        .iter()
        .map(|s| debuginfo::SubgraphDebugRefs {
            name: &s.name,
            dir: dir_of(&s.def_path),
            engines: s.engines.iter().map(|e| (e.engine, e.asm_dbg.clone(), e.bir_dbg.clone())).collect(),
            dma: s.dma_dbg.clone(),
        })
        .collect();
    let debug = DebugInfo::build(&archive, &refs);
    for f in &debug.files {
        if let Some(e) = &f.error {
            nav.warnings.push(format!("{}: {e}", f.path));
        }
    }
    let warnings = nav.warnings;
    let names = NameIndex::new(subgraphs.iter().map(|s| s.name.as_str()));
    Ok(Neff {
        names,
        header,
        compression,
        graph,
        kelfs,
        subgraphs,
        info,
        hlo_stats,
        other_json,
        debug,
        warnings,
        archive,
    })
}

struct Navigator<'a> {
    archive: &'a Archive,
    /// Parsed members not yet taken.
    json: HashMap<usize, Value>,
    /// Members that are invalid JSON or over the budget (not tried again).
    bad_json: HashSet<usize>,
    used: BTreeSet<String>,
    warnings: Vec<String>,
    /// JSON text bytes that may still be parsed; every parse (a re-parse too) spends it.
    json_budget: u64,
    /// Members skipped because of the budget.
    over_budget: u64,
}

impl<'a> Navigator<'a> {
    /// Parse member `i` (spending the budget); `None` when invalid or over budget.
    fn parse_json(&mut self, i: usize) -> Option<Value> {
        let bytes = self.archive.bytes(i);
        let p = || self.archive.members.get(i).map(|m| m.path.as_str()).unwrap_or("?");
        let len = bytes.len() as u64;
        if len > self.json_budget {
            self.over_budget += 1;
            return None;
        }
        self.json_budget -= len;
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => Some(v),
            Err(e) => {
                let w = format!("{}: invalid JSON ({e})", p());
                self.warnings.push(w);
                None
            }
        }
    }

    /// A look at member `i`'s tree (parsed once, kept until taken).
    fn peek_json(&mut self, i: usize) -> Option<&Value> {
        if self.bad_json.contains(&i) {
            return None;
        }
        if !self.json.contains_key(&i) {
            match self.parse_json(i) {
                Some(v) => self.json.insert(i, v),
                None => {
                    self.bad_json.insert(i);
                    return None;
                }
            };
        }
        self.json.get(&i)
    }

    /// Member `i`'s tree, to keep. Moved out of the cache, never cloned: a member taken twice
    /// (several subgraphs naming one file) is parsed again and spends the budget again.
    fn take_json(&mut self, i: usize) -> Option<Value> {
        if let Some(v) = self.json.remove(&i) {
            return Some(v);
        }
        if self.bad_json.contains(&i) {
            return None;
        }
        let v = self.parse_json(i);
        if v.is_none() {
            self.bad_json.insert(i);
        }
        v
    }

    fn is_json(&self, i: usize) -> bool {
        let m = &self.archive.members[i];
        m.path.to_lowercase().ends_with(".json") || self.archive.bytes(i).first() == Some(&b'{')
    }

    /// Find a member by name (case-insensitive, shallowest first), else by content.
    fn find_json(&mut self, name: &str, pred: impl Fn(&Value) -> bool) -> Option<(String, Value)> {
        let mut by_name: Vec<usize> = (0..self.archive.members.len())
            .filter(|&i| base_name(&self.archive.members[i].path).eq_ignore_ascii_case(name))
            .collect();
        by_name.sort_by_key(|&i| self.archive.members[i].path.matches('/').count());
        let named: HashSet<usize> = by_name.iter().copied().collect();
        let by_content: Vec<usize> = (0..self.archive.members.len())
            .filter(|i| !named.contains(i) && self.is_json(*i))
            .filter(|&i| self.archive.members[i].path.matches('/').count() == 0)
            .collect();
        for (i, need_pred) in
            by_name.into_iter().map(|i| (i, false)).chain(by_content.into_iter().map(|i| (i, true)))
        {
            if need_pred && !self.archive.members[i].path.to_lowercase().ends_with(".json") {
                continue;
            }
            if let Some(v) = self.peek_json(i) {
                if !need_pred || pred(v) {
                    let v = self.take_json(i)?;
                    let p = self.archive.members[i].path.clone();
                    self.used.insert(p.clone());
                    return Some((p, v));
                }
            }
        }
        None
    }

    /// Resolve a name written in a JSON file in directory `dir` to a member index.
    fn resolve(&self, dir: &str, name: &str) -> Option<usize> {
        if name.trim().is_empty() {
            return None;
        }
        self.archive
            .find(&join(dir, name))
            .or_else(|| self.archive.find(name))
            .or_else(|| self.archive.find_in_dir(dir, base_name(name)))
    }

    fn structure(&mut self) -> (Option<NeffGraph>, Vec<Kelf>, Vec<Subgraph>) {
        let graph =
            self.find_json("neff.json", NeffGraph::looks_like).map(|(p, v)| NeffGraph::from_json(&p, v));
        // kelf files named by the graph, else by name pattern, else by content
        let mut kelf_idx: Vec<usize> = Vec::new();
        let mut kelf_seen: HashSet<usize> = HashSet::new();
        if let Some(g) = &graph {
            let dir = dir_of(&g.path).to_string();
            for n in &g.nodes {
                if let Some(k) = &n.kelf {
                    match self.resolve(&dir, k) {
                        Some(i) if kelf_seen.insert(i) => kelf_idx.push(i),
                        Some(_) => {}
                        None => self.warnings.push(format!("neff.json names missing kelf {k}")),
                    }
                }
            }
        }
        if kelf_idx.is_empty() {
            for i in 0..self.archive.members.len() {
                let b = base_name(&self.archive.members[i].path).to_lowercase();
                if b.starts_with("kelf") && b.ends_with(".json") {
                    kelf_idx.push(i);
                }
            }
        }
        if kelf_idx.is_empty() {
            for i in 0..self.archive.members.len() {
                if self.archive.members[i].path.to_lowercase().ends_with(".json")
                    && self.peek_json(i).is_some_and(Kelf::looks_like)
                {
                    kelf_idx.push(i);
                }
            }
        }
        let mut kelfs = Vec::new();
        let mut defs: Vec<(String, usize, Option<String>)> = Vec::new(); // (name, def idx, kelf path)
        let mut def_seen: HashSet<usize> = HashSet::new();
        for i in kelf_idx {
            let Some(v) = self.take_json(i) else { continue };
            let path = self.archive.members[i].path.clone();
            self.used.insert(path.clone());
            let k = Kelf::from_json(&path, v);
            let dir = dir_of(&path).to_string();
            for g in &k.graphs {
                let found = self
                    .resolve(&dir, &g.definition)
                    .or_else(|| self.resolve(&join(&dir, &g.name), "def.json"));
                match found {
                    Some(d) if def_seen.insert(d) => defs.push((g.name.clone(), d, Some(path.clone()))),
                    Some(_) => {}
                    None => self.warnings.push(format!("{path}: definition {} not found", g.definition)),
                }
            }
            kelfs.push(k);
        }
        if defs.is_empty() {
            // no kelf: every def.json (by name, confirmed by content)
            for i in 0..self.archive.members.len() {
                let p = self.archive.members[i].path.clone();
                if base_name(&p).eq_ignore_ascii_case("def.json")
                    && self.peek_json(i).is_some_and(json::looks_like_def)
                {
                    defs.push((base_name(dir_of(&p)).to_string(), i, None));
                }
            }
        }
        let mut subgraphs = Vec::new();
        for (name, di, kelf) in defs {
            if let Some(s) = self.subgraph(name, di, kelf) {
                subgraphs.push(s);
            }
        }
        (graph, kelfs, subgraphs)
    }

    fn subgraph(&mut self, name: String, di: usize, kelf: Option<String>) -> Option<Subgraph> {
        let def_path = self.archive.members[di].path.clone();
        let mut def = self.take_json(di)?;
        self.used.insert(def_path.clone());
        let dir = dir_of(&def_path).to_string();
        let name = if name.is_empty() { base_name(&dir).to_string() } else { name };
        let Value::Object(obj) = &def else {
            self.warnings.push(format!("{def_path}: not a JSON object"));
            return None;
        };
        // engine key prefixes: `<p>_instr`, or `<p>` naming a .json with a known engine alias
        let mut prefixes: Vec<String> = Vec::new();
        let mut prefix_seen: HashSet<String> = HashSet::new();
        for (k, v) in obj {
            let p = if let Some(p) = k.strip_suffix("_instr") {
                Some(p.to_string())
            } else if v.as_str().map(|s| s.to_lowercase().ends_with(".json")).unwrap_or(false)
                && Engine::from_alias(k).is_some()
            {
                Some(k.clone())
            } else {
                None
            };
            if let Some(p) = p {
                if prefix_seen.insert(p.clone()) {
                    prefixes.push(p);
                }
            }
        }
        let mut engines: Vec<EngineProgram> = Vec::new();
        for p in prefixes {
            let json_name = json::s(&def, &p);
            let json_idx = json_name.as_deref().and_then(|n| self.resolve(&dir, n));
            if let (Some(n), None) = (&json_name, json_idx) {
                self.warnings.push(format!("{def_path}: engine file {n} not found"));
            }
            let mut ej = json_idx.and_then(|i| self.take_json(i)).unwrap_or(Value::Null);
            let json_path = json_idx.map(|i| self.archive.members[i].path.clone());
            if let Some(jp) = &json_path {
                self.used.insert(jp.clone());
            }
            let engine = Engine::from_alias(&p)
                .or_else(|| json_name.as_deref().and_then(|n| Engine::from_alias(base_name(n))))
                .or_else(|| json::s(&ej, "name").and_then(|n| Engine::from_alias(&n)));
            let Some(engine) = engine else {
                self.warnings.push(format!("{def_path}: unknown engine key {p}"));
                continue;
            };
            if engines.iter().any(|e| e.engine == engine) {
                self.warnings.push(format!("{def_path}: engine {engine} listed twice (key {p})"));
                continue;
            }
            let bin_name = json::s(&def, &format!("{p}_instr")).or_else(|| json::s(&ej, "instr"));
            let instructions = match bin_name.as_deref() {
                Some(b) => match self.resolve(&dir, b) {
                    Some(i) => {
                        let s = InstructionStream::new(&self.archive.members[i].path, self.archive.bytes(i));
                        if s.trailing_bytes != 0 {
                            self.warnings.push(format!(
                                "{}: size {} is not a multiple of {SLOT_SIZE}",
                                s.path, s.size
                            ));
                        }
                        Some(s)
                    }
                    None => {
                        self.warnings.push(format!("{def_path}: engine binary {b} not found"));
                        None
                    }
                },
                None => None,
            };
            let dma = json::take_dma(&mut ej);
            let paths = |nav: &Self, key: String| -> Vec<String> {
                json::strs(def.get(&key))
                    .iter()
                    .filter_map(|n| nav.resolve(&dir, n).map(|i| nav.archive.members[i].path.clone()))
                    .collect()
            };
            let asm_dbg = paths(self, format!("{p}_asm_dbg"));
            let bir_dbg = paths(self, format!("{p}_dbg"));
            engines.push(EngineProgram {
                engine,
                key: p,
                json_path,
                json: ej,
                instructions,
                dma,
                asm_dbg,
                bir_dbg,
            });
        }
        engines.sort_by_key(|e| e.engine);
        let dma_dbg: Vec<String> = json::strs(def.get("dma_dbg"))
            .iter()
            .filter_map(|n| self.resolve(&dir, n).map(|i| self.archive.members[i].path.clone()))
            .collect();
        // tensor map: by name in the subgraph directory, else by content
        let mut tm = self.resolve(&dir, "tensor_map.json");
        if tm.is_none() {
            for i in self.archive.members_in_dir(&dir) {
                let m = &self.archive.members[i];
                if m.path.to_lowercase().ends_with(".json")
                    && !self.used.contains(&m.path)
                    && self.peek_json(i).is_some_and(json::looks_like_tensor_map)
                {
                    tm = Some(i);
                    break;
                }
            }
        }
        let (tensor_map_path, tensors) = match tm {
            Some(i) => {
                let p = self.archive.members[i].path.clone();
                self.used.insert(p.clone());
                let t = self.take_json(i).map(json::tensors_from_json).unwrap_or_default();
                (Some(p), t)
            }
            None => (None, vec![]),
        };
        Some(Subgraph {
            name,
            kelf,
            version: json::s(&def, "version"),
            neff_features: json::strs(def.get("neff_features")),
            dma_queues: json::dma_queues_from_def(&mut def),
            vars: json::vars_from_def(&mut def),
            engines,
            dma_dbg,
            tensor_map_path,
            tensors,
            def_path,
            def,
        })
    }
}

impl Neff {
    /// The member list.
    pub fn members(&self) -> &[Member] {
        &self.archive.members
    }

    /// A member parsed as JSON, on demand (e.g. one of [`Neff::other_json`]); `None` when absent,
    /// invalid or larger than the NEFF JSON budget.
    pub fn member_json(&self, path: &str) -> Option<Value> {
        let b = self.member_bytes(path)?;
        if b.len() as u64 > JSON_BUDGET {
            return None;
        }
        serde_json::from_slice(b).ok()
    }

    /// Bytes of a member, by path (case-insensitive fallback).
    pub fn member_bytes(&self, path: &str) -> Option<&[u8]> {
        self.archive.find(path).map(|i| self.archive.bytes(i))
    }

    pub fn subgraph(&self, name: &str) -> Option<&Subgraph> {
        let i = self.names.find(self.subgraphs.iter().map(|s| s.name.as_str()), name)?;
        self.subgraphs.get(i)
    }

    /// Instruction stream of one engine of one subgraph.
    pub fn instructions(&self, subgraph: &str, engine: Engine) -> Option<&InstructionStream> {
        self.subgraph(subgraph)?.engine(engine)?.instructions.as_ref()
    }

    /// Lineage of instruction slot `instruction_index` (= compiler pc), with the opcode byte
    /// from the binary. None when there is neither a binary slot nor a debug entry for it.
    pub fn resolve(&self, subgraph: &str, engine: Engine, instruction_index: u64) -> Option<Lineage> {
        let op = usize::try_from(instruction_index)
            .ok()
            .and_then(|i| self.instructions(subgraph, engine)?.opcode(i));
        let mut l = match self.debug.resolve(subgraph, engine, instruction_index) {
            Some(l) => l,
            None => {
                op?;
                Lineage {
                    subgraph: self.subgraph(subgraph)?.name.clone(),
                    engine,
                    instruction_index,
                    opcode: None,
                    opcode_name: None,
                    asm_text: None,
                    bir: None,
                    penguin: None,
                    hlo: None,
                    framework: None,
                    source_file: None,
                    source_line: None,
                    kernel_file: None,
                    kernel_line: None,
                }
            }
        };
        l.opcode = op;
        l.opcode_name = op.and_then(opcode_name).map(String::from);
        Some(l)
    }

    /// Counts for the CLI: uuid, name, LNC size and instruction slots per engine per subgraph.
    pub fn summary(&self) -> NeffSummary {
        NeffSummary {
            uuid: self.header.uuid.clone(),
            network_name: self.header.network_name.clone(),
            lnc_size: self.header.lnc_size,
            subgraphs: self
                .subgraphs
                .iter()
                .map(|s| SubgraphSummary {
                    name: s.name.clone(),
                    instructions: s
                        .engines
                        .iter()
                        .map(|e| (e.engine.name().to_string(), e.instruction_count()))
                        .collect(),
                })
                .collect(),
        }
    }
}
