//! Debug-info protobuf chain (neuron.md §1.4, §1.6), decoded schemalessly with
//! [`protowire`](crate::neuron::protowire).
//!
//! Every `.dbg` file is one message: field 1 = description, 2 = parent file name,
//! 3 = repeated entries, 4 = engine code (asm/BIR), 5 = source-path list. Files are
//! classified by their description text, not by name. Levels, top to bottom:
//!
//! ```text
//! ASM (sgNN/debug_info_asm_<ENG>.dbg, one entry per 64-byte slot)  {3: BIR ids}
//!  → BIR (sgNN/debug_info_backend_<ENG>.dbg)  {1 id, 2 name, 3 penguin ids, 7 kernel_file/line}
//!  → penguin (debug_info/debug_info_penguin.dbg_sgXXXXXX)  {1 id, 2 name, 3 HLO ids, 7 attrs}
//!  → HLO (debug_info/debug_info_hlo.dbg_sgXXXXXX)  {1 id, 2 text, 3 framework ids, 7 op_type/source_file/source_line}
//!  → framework (debug_info/debug_info_pttf.dbg_sgXXXXXX)  {1 id, 2 name}
//! ```
//!
//! Fields we do not model are kept per entry as [`RawField`]s; a malformed file keeps the
//! entries decoded before the error and records it in [`DebugFileInfo::error`].

use super::engine::Engine;
use super::tar::{base_name, dir_of, Archive};
use crate::neuron::protowire::{Message, Value};
use serde::Serialize;
use std::collections::HashMap;

/// A protobuf value we did not interpret.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RawValue {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(Vec<u8>),
}

impl RawValue {
    fn from_wire(v: &Value) -> RawValue {
        match *v {
            Value::Varint(x) => RawValue::Varint(x),
            Value::Fixed64(x) => RawValue::Fixed64(x),
            Value::Fixed32(x) => RawValue::Fixed32(x),
            Value::Bytes(b) => RawValue::Bytes(b.to_vec()),
        }
    }
    /// Length-delimited payload as UTF-8, if it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            RawValue::Bytes(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }
    /// Length-delimited payload read as packed varints, if it decodes.
    pub fn as_packed(&self) -> Option<Vec<u64>> {
        match self {
            RawValue::Bytes(b) => packed(b),
            RawValue::Varint(x) => Some(vec![*x]),
            _ => None,
        }
    }
}

/// An uninterpreted field: number → value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawField {
    pub field: u32,
    pub value: RawValue,
}

/// A `{1: key, 2: value}` attribute (field 7 of entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attr {
    pub key: String,
    pub value: String,
}

fn packed(b: &[u8]) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < b.len() {
        out.push(crate::neuron::protowire::read_varint(b, &mut pos).ok()?);
    }
    Some(out)
}

/// What a debug-info file holds, from its description (field 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DebugFileKind {
    Framework,
    Hlo,
    Penguin,
    Bir,
    DmaBlocks,
    Assembly,
    StackFrameIndex,
    Unknown,
}

impl DebugFileKind {
    fn classify(description: &str, path: &str) -> DebugFileKind {
        let d = description.to_lowercase();
        let p = base_name(path).to_lowercase();
        if d.contains("stack frame") {
            DebugFileKind::StackFrameIndex
        } else if d.contains("dma block") {
            DebugFileKind::DmaBlocks
        } else if d.contains("assembly") {
            DebugFileKind::Assembly
        } else if d.contains("pytorch") || d.contains("tensorflow") || d.contains("framework") {
            DebugFileKind::Framework
        } else if d.contains("hlo") {
            DebugFileKind::Hlo
        } else if d.contains("bir") {
            DebugFileKind::Bir
        } else if d.contains("penguin") {
            DebugFileKind::Penguin
        } else if p.contains("stack_frame") {
            DebugFileKind::StackFrameIndex
        } else if p.contains("pttf") {
            DebugFileKind::Framework
        } else if p.contains("_hlo") {
            DebugFileKind::Hlo
        } else if p.contains("penguin") {
            DebugFileKind::Penguin
        } else if p.contains("backend_dma") {
            DebugFileKind::DmaBlocks
        } else if p.contains("_asm") {
            DebugFileKind::Assembly
        } else if p.contains("backend") {
            DebugFileKind::Bir
        } else {
            DebugFileKind::Unknown
        }
    }

    /// Field numbers this kind's entries use, and how: (id, name, packed lists, varint 6, attrs).
    fn known(self, f: u32) -> bool {
        match self {
            DebugFileKind::Framework => matches!(f, 1 | 2),
            DebugFileKind::Hlo => matches!(f, 1 | 2 | 3 | 4 | 7),
            DebugFileKind::Penguin => matches!(f, 1 | 2 | 3 | 4 | 6 | 7),
            DebugFileKind::Bir | DebugFileKind::DmaBlocks => {
                matches!(f, 1 | 2 | 3 | 4 | 5 | 6 | 7 | 9 | 10)
            }
            DebugFileKind::Assembly => matches!(f, 1..=3),
            _ => false,
        }
    }
}

/// Top-level facts about one debug-info member.
#[derive(Debug, Clone, Serialize)]
pub struct DebugFileInfo {
    pub path: String,
    pub kind: DebugFileKind,
    /// Field 1.
    pub description: String,
    /// Field 2: the parent level's file name.
    pub parent: String,
    /// Field 4 (asm/BIR/DMA files): engine code, 1 PE, 2 ACT, 3 POOL, 4 DMA, 5 DVE, 6 SP.
    pub engine_code: Option<u64>,
    pub engine: Option<Engine>,
    /// Field 5: source paths (targets of `kernel_file` indices).
    pub source_files: Vec<String>,
    /// Number of field-3 entries.
    pub entry_count: u64,
    /// Other top-level fields.
    pub unknown: Vec<RawField>,
    /// Decode error, if the file is malformed (entries before it are kept).
    pub error: Option<String>,
}

/// Generic decoded entry, converted into the typed per-level entries below.
#[derive(Default)]
struct Generic {
    id: Option<u64>,
    name: Option<String>,
    lists: [Vec<u64>; 11],
    f6: Option<u64>,
    attrs: Vec<Attr>,
    unknown: Vec<RawField>,
}

fn decode_entry(kind: DebugFileKind, bytes: &[u8]) -> Generic {
    let mut g = Generic::default();
    let mut it = Message::new(bytes).fields();
    for f in it.by_ref() {
        let n = f.number;
        let handled = kind.known(n)
            && match (n, f.value) {
                (1, Value::Varint(x)) => {
                    g.id = Some(x);
                    true
                }
                (2, Value::Bytes(b)) => {
                    g.name = Some(String::from_utf8_lossy(b).into_owned());
                    true
                }
                (6, Value::Varint(x)) => {
                    g.f6 = Some(x);
                    true
                }
                (7, Value::Bytes(b)) => {
                    let m = Message::new(b);
                    match m.try_fields() {
                        Ok(_) => {
                            g.attrs.push(Attr { key: m.string(1), value: m.string(2) });
                            true
                        }
                        Err(_) => false,
                    }
                }
                (3 | 4 | 5 | 9 | 10, Value::Varint(x)) => {
                    g.lists[n as usize].push(x);
                    true
                }
                (3 | 4 | 5 | 9 | 10, Value::Bytes(b)) => match packed(b) {
                    Some(v) => {
                        g.lists[n as usize].extend(v);
                        true
                    }
                    None => false,
                },
                _ => false,
            };
        if !handled {
            g.unknown.push(RawField { field: n, value: RawValue::from_wire(&f.value) });
        }
    }
    if let Some(e) = it.error {
        g.unknown.push(RawField { field: 0, value: RawValue::Bytes(e.to_string().into_bytes()) });
    }
    g
}

fn attr<'a>(attrs: &'a [Attr], key: &str) -> Option<&'a str> {
    attrs.iter().rev().find(|a| a.key == key).map(|a| a.value.as_str())
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(String::from)
}

/// `kernel_file` is an index into the file's source list (observed); a non-numeric value is
/// taken as a path.
fn kernel_location(attrs: &[Attr], sources: &[String]) -> (Option<u64>, Option<String>, Option<u64>) {
    let idx_raw = non_empty(attr(attrs, "kernel_file"));
    let (idx, file) = match idx_raw {
        Some(v) => match v.parse::<u64>() {
            Ok(i) => (Some(i), sources.get(i as usize).cloned()),
            Err(_) => (None, Some(v)),
        },
        None => (None, None),
    };
    let line = attr(attrs, "kernel_line").and_then(|l| l.trim().parse().ok()).filter(|&l| l > 0);
    (idx, file, line)
}

/// Framework level entry (`debug_info_pttf`): a layer / operator path.
#[derive(Debug, Clone, Serialize)]
pub struct FrameworkEntry {
    pub id: u64,
    pub name: String,
    pub unknown: Vec<RawField>,
}

/// HLO instruction entry.
#[derive(Debug, Clone, Serialize)]
pub struct HloEntry {
    /// Field 1 (absent = 0; several entries may share id 0).
    pub id: u64,
    /// HLO text, e.g. `%op0 = dot(%x, %y)`.
    pub text: String,
    /// Instruction name parsed from the text (`op0`).
    pub name: String,
    /// HLO opcode parsed from the text (`dot`).
    pub opcode: Option<String>,
    /// Field 3: parent framework ids.
    pub framework_ids: Vec<u64>,
    /// Field 4: operand HLO ids.
    pub operand_ids: Vec<u64>,
    pub attrs: Vec<Attr>,
    pub op_type: Option<String>,
    pub source_file: Option<String>,
    pub source_line: Option<u64>,
    pub unknown: Vec<RawField>,
}

/// Split `%name = [type] opcode(...)` into (name, opcode).
pub fn split_hlo_text(text: &str) -> (String, Option<String>) {
    let t = text.trim();
    let t = t.strip_prefix("ROOT ").unwrap_or(t);
    let Some(eq) = t.find(" = ") else { return (t.trim_start_matches('%').to_string(), None) };
    let name = t[..eq].trim().trim_start_matches('%').to_string();
    let rhs = &t.as_bytes()[eq + 3..];
    // opcode = the identifier right before the first '(' that follows one
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.';
    let mut op = None;
    for (i, &c) in rhs.iter().enumerate() {
        if c == b'(' && i > 0 && ident(rhs[i - 1]) {
            let mut s = i;
            while s > 0 && ident(rhs[s - 1]) {
                s -= 1;
            }
            op = Some(String::from_utf8_lossy(&rhs[s..i]).into_owned());
            break;
        }
    }
    (name, op)
}

/// Penguin (tensorizer IR) entry.
#[derive(Debug, Clone, Serialize)]
pub struct PenguinEntry {
    pub id: u64,
    /// e.g. `float16<128 x 64> $71[c1_51]`.
    pub name: String,
    /// Field 3: parent HLO ids.
    pub hlo_ids: Vec<u64>,
    /// Field 4: other penguin ids (operands).
    pub operand_ids: Vec<u64>,
    /// Field 6 (varint, meaning unknown: 1 or 3 observed).
    pub field6: Option<u64>,
    pub attrs: Vec<Attr>,
    pub kernel_file_index: Option<u64>,
    pub kernel_file: Option<String>,
    pub kernel_line: Option<u64>,
    pub unknown: Vec<RawField>,
}

/// BIR instruction (or DMA block) entry.
#[derive(Debug, Clone, Serialize)]
pub struct BirEntry {
    pub id: u64,
    /// e.g. `I-87-0`, `I-87-0-wait-0`.
    pub name: String,
    /// Field 3: parent penguin ids.
    pub penguin_ids: Vec<u64>,
    /// Field 4: BIR ids (dependencies; exact meaning unknown).
    pub field4_ids: Vec<u64>,
    /// Field 5: BIR ids (dependencies; exact meaning unknown).
    pub field5_ids: Vec<u64>,
    /// Field 6 (varint, meaning unknown).
    pub field6: Option<u64>,
    /// Field 9 (packed small ints, meaning unknown).
    pub field9: Vec<u64>,
    /// Field 10 (packed small ints, meaning unknown).
    pub field10: Vec<u64>,
    pub attrs: Vec<Attr>,
    pub kernel_file_index: Option<u64>,
    pub kernel_file: Option<String>,
    pub kernel_line: Option<u64>,
    pub unknown: Vec<RawField>,
}

/// Assembly entry: one per instruction slot, in binary order.
#[derive(Debug, Clone, Serialize)]
pub struct AsmEntry {
    /// Slot index in the engine binary (= compiler pc).
    pub index: u64,
    /// Field 3: BIR ids (empty = no BIR parent).
    pub bir_ids: Vec<u64>,
    /// Field 1, if a producer fills it.
    pub id: Option<u64>,
    /// Field 2 (assembly text), if a producer fills it.
    pub text: Option<String>,
    pub unknown: Vec<RawField>,
}

/// Entries of one level, indexed by id (last entry with an id wins).
#[derive(Debug, Clone, Serialize)]
pub struct Level<T> {
    /// Member paths the entries came from.
    pub files: Vec<String>,
    pub entries: Vec<T>,
    #[serde(skip)]
    index: HashMap<u64, usize>,
}

impl<T> Default for Level<T> {
    fn default() -> Self {
        Level { files: vec![], entries: vec![], index: HashMap::new() }
    }
}

impl<T> Level<T> {
    fn push(&mut self, id: Option<u64>, e: T) {
        if let Some(id) = id {
            self.index.insert(id, self.entries.len());
        }
        self.entries.push(e);
    }
    /// Entry with this id.
    pub fn get(&self, id: u64) -> Option<&T> {
        self.index.get(&id).and_then(|&i| self.entries.get(i))
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The levels shared by subgraphs (`debug_info/*.dbg_sgXXXXXX`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GlobalDebug {
    /// File-name suffix after `.dbg` (e.g. `sg000000`), or empty.
    pub key: String,
    pub framework: Level<FrameworkEntry>,
    pub hlo: Level<HloEntry>,
    pub penguin: Level<PenguinEntry>,
}

/// Assembly + BIR levels of one engine of one subgraph.
#[derive(Debug, Clone, Serialize)]
pub struct EngineDebug {
    pub engine: Engine,
    pub asm: Level<AsmEntry>,
    pub bir: Level<BirEntry>,
}

/// Per-subgraph levels.
#[derive(Debug, Clone, Serialize)]
pub struct SubgraphDebug {
    pub subgraph: String,
    /// Index into [`DebugInfo::globals`] used for this subgraph.
    pub global: Option<usize>,
    pub engines: Vec<EngineDebug>,
    /// DMA blocks (BIR level, `debug_info_backend_DMA.dbg`).
    pub dma: Level<BirEntry>,
}

impl SubgraphDebug {
    pub fn engine(&self, e: Engine) -> Option<&EngineDebug> {
        self.engines.iter().find(|d| d.engine == e)
    }
}

/// The whole decoded debug-info hierarchy.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DebugInfo {
    pub files: Vec<DebugFileInfo>,
    pub globals: Vec<GlobalDebug>,
    pub subgraphs: Vec<SubgraphDebug>,
    /// Subgraph lookup by name (built by [`DebugInfo::build`]).
    #[serde(skip)]
    names: super::names::NameIndex,
}

/// A named node of a lineage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineageNode {
    pub id: u64,
    pub name: String,
}

/// The HLO node of a lineage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineageHlo {
    pub id: u64,
    pub name: String,
    pub opcode: Option<String>,
    pub op_type: Option<String>,
    pub text: String,
}

/// Instruction → BIR → penguin → HLO → framework, with source locations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lineage {
    pub subgraph: String,
    pub engine: Engine,
    pub instruction_index: u64,
    /// First byte of the slot (filled by [`super::Neff::resolve`]).
    pub opcode: Option<u8>,
    /// Name of the opcode byte when known.
    pub opcode_name: Option<String>,
    /// Assembly text, when the asm entry carries one (not in known files).
    pub asm_text: Option<String>,
    pub bir: Option<LineageNode>,
    pub penguin: Option<LineageNode>,
    pub hlo: Option<LineageHlo>,
    pub framework: Option<LineageNode>,
    /// From the HLO attributes.
    pub source_file: Option<String>,
    pub source_line: Option<u64>,
    /// NKI kernel location from the BIR entry, else the penguin entry.
    pub kernel_file: Option<String>,
    pub kernel_line: Option<u64>,
}

fn digits_suffix(s: &str) -> Option<u64> {
    let d: String = s.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
    if d.is_empty() {
        return None;
    }
    d.chars().rev().collect::<String>().parse().ok()
}

/// Decode the top level of a member if it looks like a debug-info file (field 1 is a
/// description mentioning "debug info" or "stack frame index").
fn top_level<'a>(path: &str, bytes: &'a [u8]) -> Option<(DebugFileInfo, Vec<&'a [u8]>)> {
    // cheap pre-check: first field must be field 1, length-delimited
    if bytes.first() != Some(&0x0a) {
        return None;
    }
    let m = Message::new(bytes);
    let first = m.fields().next()?;
    if first.number != 1 {
        return None;
    }
    let desc = first.value.as_string();
    let dl = desc.to_lowercase();
    if !(dl.contains("debug info") || dl.contains("stack frame index")) {
        return None;
    }
    let mut info = DebugFileInfo {
        path: path.to_string(),
        kind: DebugFileKind::classify(&desc, path),
        description: desc,
        parent: String::new(),
        engine_code: None,
        engine: None,
        source_files: vec![],
        entry_count: 0,
        unknown: vec![],
        error: None,
    };
    let mut entries = Vec::new();
    let mut it = m.fields();
    for f in it.by_ref() {
        match (f.number, f.value) {
            (1, Value::Bytes(_)) => {}
            (2, Value::Bytes(b)) => info.parent = String::from_utf8_lossy(b).into_owned(),
            (3, Value::Bytes(b)) => entries.push(b),
            (4, Value::Varint(x)) => info.engine_code = Some(x),
            (5, Value::Bytes(b)) => info.source_files.push(String::from_utf8_lossy(b).into_owned()),
            (n, v) => info.unknown.push(RawField { field: n, value: RawValue::from_wire(&v) }),
        }
    }
    info.error = it.error.map(|e| e.to_string());
    info.entry_count = entries.len() as u64;
    info.engine = info.engine_code.and_then(Engine::from_debug_code);
    Some((info, entries))
}

fn bir_entries(level: &mut Level<BirEntry>, info: &DebugFileInfo, entries: &[&[u8]]) {
    level.files.push(info.path.clone());
    for e in entries {
        let g = decode_entry(info.kind, e);
        let (kernel_file_index, kernel_file, kernel_line) = kernel_location(&g.attrs, &info.source_files);
        let [_, _, _, l3, l4, l5, _, _, _, l9, l10] = g.lists;
        level.push(
            g.id,
            BirEntry {
                id: g.id.unwrap_or(0),
                name: g.name.unwrap_or_default(),
                penguin_ids: l3,
                field4_ids: l4,
                field5_ids: l5,
                field6: g.f6,
                field9: l9,
                field10: l10,
                attrs: g.attrs,
                kernel_file_index,
                kernel_file,
                kernel_line,
                unknown: g.unknown,
            },
        );
    }
}

fn asm_entries(level: &mut Level<AsmEntry>, info: &DebugFileInfo, entries: &[&[u8]]) {
    level.files.push(info.path.clone());
    for e in entries {
        let g = decode_entry(DebugFileKind::Assembly, e);
        let [_, _, _, l3, ..] = g.lists;
        let index = level.entries.len() as u64;
        level.entries.push(AsmEntry {
            index,
            bir_ids: l3,
            id: g.id,
            text: g.name.filter(|s| !s.is_empty()),
            unknown: g.unknown,
        });
    }
}

fn global_entries(g: &mut GlobalDebug, info: &DebugFileInfo, entries: &[&[u8]]) {
    for e in entries {
        let d = decode_entry(info.kind, e);
        let [_, _, _, l3, l4, ..] = d.lists;
        match info.kind {
            DebugFileKind::Framework => g.framework.push(
                Some(d.id.unwrap_or(0)),
                FrameworkEntry {
                    id: d.id.unwrap_or(0),
                    name: d.name.unwrap_or_default(),
                    unknown: d.unknown,
                },
            ),
            DebugFileKind::Hlo => {
                let text = d.name.unwrap_or_default();
                let (name, opcode) = split_hlo_text(&text);
                let entry = HloEntry {
                    id: d.id.unwrap_or(0),
                    name,
                    opcode,
                    framework_ids: l3,
                    operand_ids: l4,
                    op_type: non_empty(attr(&d.attrs, "op_type")),
                    source_file: non_empty(attr(&d.attrs, "source_file")),
                    source_line: attr(&d.attrs, "source_line")
                        .and_then(|l| l.trim().parse().ok())
                        .filter(|&l| l > 0),
                    text,
                    attrs: d.attrs,
                    unknown: d.unknown,
                };
                g.hlo.push(Some(entry.id), entry)
            }
            DebugFileKind::Penguin => {
                let (kernel_file_index, kernel_file, kernel_line) =
                    kernel_location(&d.attrs, &info.source_files);
                g.penguin.push(
                    Some(d.id.unwrap_or(0)),
                    PenguinEntry {
                        id: d.id.unwrap_or(0),
                        name: d.name.unwrap_or_default(),
                        hlo_ids: l3,
                        operand_ids: l4,
                        field6: d.f6,
                        attrs: d.attrs,
                        kernel_file_index,
                        kernel_file,
                        kernel_line,
                        unknown: d.unknown,
                    },
                )
            }
            _ => {}
        }
    }
    let files = match info.kind {
        DebugFileKind::Framework => &mut g.framework.files,
        DebugFileKind::Hlo => &mut g.hlo.files,
        DebugFileKind::Penguin => &mut g.penguin.files,
        _ => return,
    };
    files.push(info.path.clone());
}

/// What the navigator found for one subgraph (names from `def.json`, already resolved to
/// member paths).
pub struct SubgraphDebugRefs<'a> {
    pub name: &'a str,
    pub dir: &'a str,
    pub engines: Vec<(Engine, Vec<String>, Vec<String>)>, // (engine, asm paths, bir paths)
    pub dma: Vec<String>,
}

impl DebugInfo {
    /// Decode every debug-info member of the archive and assemble the hierarchy.
    pub fn build(archive: &Archive, subgraphs: &[SubgraphDebugRefs]) -> DebugInfo {
        let mut files = Vec::new();
        let mut parsed: HashMap<String, (usize, Vec<&[u8]>)> = HashMap::new();
        for (i, m) in archive.members.iter().enumerate() {
            if let Some((info, entries)) = top_level(&m.path, archive.bytes(i)) {
                parsed.insert(m.path.clone(), (files.len(), entries));
                files.push(info);
            }
        }

        // global levels, grouped by the suffix after ".dbg"
        let mut globals: Vec<GlobalDebug> = Vec::new();
        let mut global_of: HashMap<String, usize> = HashMap::new();
        for (fi, info) in files.iter().enumerate() {
            if !matches!(info.kind, DebugFileKind::Framework | DebugFileKind::Hlo | DebugFileKind::Penguin) {
                continue;
            }
            let base = base_name(&info.path);
            let lb = base.to_lowercase();
            let key = match lb.rfind(".dbg") {
                Some(p) => base[p + 4..].trim_start_matches(['_', '.', '-']).to_string(),
                None => String::new(),
            };
            let gi = match global_of.get(&key) {
                Some(&g) => g,
                None => {
                    global_of.insert(key.clone(), globals.len());
                    globals.push(GlobalDebug { key, ..Default::default() });
                    globals.len() - 1
                }
            };
            let entries = &parsed[&info.path].1;
            global_entries(&mut globals[gi], &files[fi], entries);
        }
        globals.sort_by(|a, b| a.key.cmp(&b.key));

        // (kind, engine, directory) → files, for the fallback by content
        let mut by_dir: HashMap<(DebugFileKind, Engine, &str), Vec<String>> = HashMap::new();
        for f in &files {
            if let Some(e) = f.engine {
                by_dir.entry((f.kind, e, dir_of(&f.path))).or_default().push(f.path.clone());
            }
        }
        let mut sgs = Vec::new();
        for r in subgraphs {
            let sg_num = digits_suffix(r.name);
            let global = globals
                .iter()
                .position(|g| sg_num.is_some() && digits_suffix(&g.key) == sg_num)
                .or(if globals.is_empty() { None } else { Some(0) });
            let mut engines = Vec::new();
            for e in Engine::STREAMS {
                let (mut asm_paths, mut bir_paths) = r
                    .engines
                    .iter()
                    .find(|x| x.0 == e)
                    .map(|x| (x.1.clone(), x.2.clone()))
                    .unwrap_or_default();
                // fallback by content: files in the subgraph directory with this engine code
                let in_dir = |k: DebugFileKind| -> Vec<String> {
                    by_dir.get(&(k, e, r.dir)).cloned().unwrap_or_default()
                };
                if asm_paths.iter().all(|p| !parsed.contains_key(p)) {
                    asm_paths = in_dir(DebugFileKind::Assembly);
                }
                if bir_paths.iter().all(|p| !parsed.contains_key(p)) {
                    bir_paths = in_dir(DebugFileKind::Bir);
                }
                let mut d = EngineDebug { engine: e, asm: Level::default(), bir: Level::default() };
                for p in &asm_paths {
                    if let Some((fi, entries)) = parsed.get(p) {
                        asm_entries(&mut d.asm, &files[*fi], entries);
                    }
                }
                for p in &bir_paths {
                    if let Some((fi, entries)) = parsed.get(p) {
                        bir_entries(&mut d.bir, &files[*fi], entries);
                    }
                }
                if !d.asm.files.is_empty() || !d.bir.files.is_empty() {
                    engines.push(d);
                }
            }
            let mut dma = Level::default();
            let mut dma_paths: Vec<String> =
                r.dma.iter().filter(|p| parsed.contains_key(*p)).cloned().collect();
            if dma_paths.is_empty() {
                dma_paths = files
                    .iter()
                    .filter(|f| f.kind == DebugFileKind::DmaBlocks && dir_of(&f.path) == r.dir)
                    .map(|f| f.path.clone())
                    .collect();
            }
            for p in &dma_paths {
                if let Some((fi, entries)) = parsed.get(p) {
                    bir_entries(&mut dma, &files[*fi], entries);
                }
            }
            sgs.push(SubgraphDebug { subgraph: r.name.to_string(), global, engines, dma });
        }
        let names = super::names::NameIndex::new(sgs.iter().map(|s| s.subgraph.as_str()));
        DebugInfo { files, globals, subgraphs: sgs, names }
    }

    pub fn subgraph(&self, name: &str) -> Option<&SubgraphDebug> {
        let i = self.names.find(self.subgraphs.iter().map(|s| s.subgraph.as_str()), name)?;
        self.subgraphs.get(i)
    }

    /// Walk instruction slot → asm → BIR → penguin → HLO → framework. None when the
    /// subgraph, engine or slot has no assembly entry.
    pub fn resolve(&self, subgraph: &str, engine: Engine, instruction_index: u64) -> Option<Lineage> {
        let sg = self.subgraph(subgraph)?;
        let ed = sg.engine(engine)?;
        let asm = ed.asm.entries.get(usize::try_from(instruction_index).ok()?)?;
        let mut l = Lineage {
            subgraph: sg.subgraph.clone(),
            engine,
            instruction_index,
            opcode: None,
            opcode_name: None,
            asm_text: asm.text.clone(),
            bir: None,
            penguin: None,
            hlo: None,
            framework: None,
            source_file: None,
            source_line: None,
            kernel_file: None,
            kernel_line: None,
        };
        let bir = asm.bir_ids.iter().find_map(|&id| {
            ed.bir
                .get(id)
                .or_else(|| sg.dma.get(id))
                .or_else(|| sg.engines.iter().find_map(|o| o.bir.get(id)))
        });
        let Some(bir) = bir else { return Some(l) };
        l.bir = Some(LineageNode { id: bir.id, name: bir.name.clone() });
        l.kernel_file = bir.kernel_file.clone();
        l.kernel_line = bir.kernel_line;
        let Some(g) = sg.global.and_then(|i| self.globals.get(i)) else { return Some(l) };
        let Some(p) = bir.penguin_ids.iter().find_map(|&id| g.penguin.get(id)) else {
            return Some(l);
        };
        l.penguin = Some(LineageNode { id: p.id, name: p.name.clone() });
        if l.kernel_file.is_none() && l.kernel_line.is_none() {
            l.kernel_file = p.kernel_file.clone();
            l.kernel_line = p.kernel_line;
        }
        let Some(h) = p.hlo_ids.iter().find_map(|&id| g.hlo.get(id)) else { return Some(l) };
        l.hlo = Some(LineageHlo {
            id: h.id,
            name: h.name.clone(),
            opcode: h.opcode.clone(),
            op_type: h.op_type.clone(),
            text: h.text.clone(),
        });
        l.source_file = h.source_file.clone();
        l.source_line = h.source_line;
        if let Some(f) = h.framework_ids.iter().find_map(|&id| g.framework.get(id)) {
            l.framework = Some(LineageNode { id: f.id, name: f.name.clone() });
        }
        Some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hlo_text_split() {
        assert_eq!(split_hlo_text("%op0 = dot(%x, %y)"), ("op0".into(), Some("dot".into())));
        assert_eq!(split_hlo_text("ROOT %t = (f32[2]) tuple(%a)"), ("t".into(), Some("tuple".into())));
        assert_eq!(split_hlo_text("%x = f16[2,3]{1,0} parameter(0)").1.as_deref(), Some("parameter"));
        assert_eq!(split_hlo_text("main"), ("main".into(), None));
    }

    #[test]
    fn classify_by_description() {
        let k = |d: &str| DebugFileKind::classify(d, "x");
        assert_eq!(k("Debug info for PyTorch/Tensorflow operations"), DebugFileKind::Framework);
        assert_eq!(k("Debug info for XLA generated HLO instructions"), DebugFileKind::Hlo);
        assert_eq!(k("Debug info for Penguin instructions"), DebugFileKind::Penguin);
        assert_eq!(k("Debug info for DMA blocks. In this level (BIR) ..."), DebugFileKind::DmaBlocks);
        assert_eq!(k("Debug info for one engine's assembly instructions."), DebugFileKind::Assembly);
        assert_eq!(k("Debug info for one engine's BIR Instructions."), DebugFileKind::Bir);
        assert_eq!(k("XLA generated framework level stack frame index"), DebugFileKind::StackFrameIndex);
    }
}
