//! Metadata protobuf (ntff-v5.md §2), decoded schemalessly with `protowire`.

use serde::Serialize;

use super::{NtffError, WarningKind, Warnings};
use crate::neuron::protowire::{Message, Value};

/// `{1: major, 2: minor, 3: patch, 5: git hash}`; `text` is the JSON export's rendering
/// `"%d.%d.%d (%s)"` with the first 5 hash characters (empty when absent), e.g. `2.29.40 (f954c)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionInfo {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub git_hash: String,
    pub text: String,
}

impl VersionInfo {
    fn from_message(m: Message<'_>) -> VersionInfo {
        let (major, minor, patch) = (m.u64(1), m.u64(2), m.u64(3));
        let git_hash = m.string(5);
        let short: String = git_hash.chars().take(5).collect();
        let text = format!("{major}.{minor}.{patch} ({short})");
        VersionInfo { major, minor, patch, git_hash, text }
    }
}

/// `/13`: `{1: a, 2: b, 3: size}`. GUESS: profiler ring size per (block type, notification type).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RingBuffer {
    pub a: u64,
    pub b: u64,
    pub size_bytes: u64,
}

/// `/4/4/1/4`: the runtime program of one engine (64 bytes per runtime pc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineProgram {
    pub engine: u8,
    /// Device byte address of the program.
    pub device_address: u64,
    /// Number of whole 64-byte instruction slots.
    pub slot_count: u32,
    /// Program bytes (not serialized; use [`EngineProgram::slot`]).
    #[serde(skip)]
    pub code: Vec<u8>,
}

impl EngineProgram {
    /// The 64-byte instruction word at runtime pc `pc`.
    pub fn slot(&self, pc: u32) -> Option<&[u8]> {
        let start = (pc as usize).checked_mul(64)?;
        self.code.get(start..start.checked_add(64)?)
    }
    /// The program as 64-byte instruction slots, indexed by runtime pc (a trailing partial
    /// slot, if any, is left out).
    pub fn slots(&self) -> &[[u8; 64]] {
        self.code.as_chunks::<64>().0
    }
    /// `(device_address >> 6) & 0xFFFF`, subtracted from w0's low 16 bits to get the pc.
    pub fn base16(&self) -> u16 {
        (self.device_address >> 6) as u16
    }
}

/// Patch type (`/4/4/1/5/2/3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PatchKind {
    /// 0: `count` runtime-only instructions inserted at the offset (no compiler_pc).
    Insert,
    /// 1: modified in place (never seen; does not shift pcs).
    Modify,
    /// 2: `count` compiler instructions deleted at that point.
    Delete,
    Other(u64),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Patch {
    /// Runtime byte offset in the program (`/4/4/1/5/2/1`).
    pub offset_bytes: u64,
    pub count: u64,
    pub kind: PatchKind,
}

/// `/4/4/1/5`: instruction patch list of one engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchList {
    pub engine: u8,
    pub patches: Vec<Patch>,
}

/// `/4/4/1/6`: one trace block of the record area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockDescriptor {
    /// 0 instructions, 1 semaphores/events, 2 (empty; errors?), 4 DMA, 5 throttle.
    pub notification_type: u64,
    /// Field 3 (1 on the DMA block).
    pub kind: u64,
    /// Byte offset in the record area.
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// `/4/4/1/7`: a DMA queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DmaQueueDescriptor {
    pub dma_engine: u64,
    pub queue: u64,
    /// Raw queue type (2 → "weights", 0 → "unknown" in JSON `dma_queues_info.q_type`).
    pub queue_type: u64,
    pub queue_type_name: &'static str,
    /// Name as stored (`qSPSpillReload0`).
    pub name: String,
    /// Name as the JSON shows it (`qSyncSpillReload0`, `qGpSimdDynamic`, `qScalarTable`).
    pub display_name: String,
    /// Field 5 (u64::MAX in all known files; maybe `q_event_id` = -1).
    pub field5: u64,
    /// Field 8 `{2, 3, 4}` (unknown), when present.
    pub field8: Option<[u64; 3]>,
}

/// One clock-sync entry `/4/4/1/10/<slot>` (`index` = occurrence within the slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SyncEntry {
    pub slot: u32,
    pub index: u32,
    /// Counter value at the common sync instant (`S`).
    pub counter_at_sync: u64,
    /// `D`.
    pub divisor: u64,
    /// `M`; `ps = floor((t - S) * M / D)`.
    pub multiplier: u64,
}

/// `/4/4/1/10`: clock-sync table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClockSync {
    pub entries: Vec<SyncEntry>,
}

impl ClockSync {
    pub fn get(&self, slot: u32, index: u32) -> Option<&SyncEntry> {
        self.entries.iter().find(|e| e.slot == slot && e.index == index)
    }
}

/// `/4/4/1/11`: memory usage row (same order as JSON `nc_mem_usage`, without `Total`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryUsage {
    pub category: String,
    /// JSON `usage_type` (`pe` → `Tensor Instructions`, …); the raw category when unknown.
    pub display_name: String,
    pub size_bytes: u64,
}

/// The metadata protobuf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metadata {
    /// `/1`: NEFF path as given at capture.
    pub neff_path: String,
    /// `/2`: NEFF UUID copied as a C string: 16 UUID bytes + 3-6 unknown bytes, cut at the first 0x00.
    pub uuid_raw: Vec<u8>,
    /// Fewer than 16 UUID bytes were recoverable (the UUID contains a 0x00 byte).
    pub uuid_truncated: bool,
    pub field3: u64,
    pub field5: u64,
    pub field10: u64,
    pub runtime_version: Option<VersionInfo>,
    pub driver_version: Option<VersionInfo>,
    pub collectives_version: Option<VersionInfo>,
    pub instance_type: String,
    pub ring_buffers: Vec<RingBuffer>,
    /// `/4/4/1/1` (e.g. `sg00`).
    pub subgraph_name: String,
    pub engine_programs: Vec<EngineProgram>,
    pub patch_lists: Vec<PatchList>,
    pub blocks: Vec<BlockDescriptor>,
    pub dma_queues: Vec<DmaQueueDescriptor>,
    pub clock_sync: ClockSync,
    pub memory_usage: Vec<MemoryUsage>,
    /// `/4/4/1/14`: execution time in picoseconds (JSON `summary.total_time` × 1e12).
    pub execution_time_ps: u64,
}

impl Metadata {
    /// Lower-case hex of the first 16 UUID bytes (fewer when [`Metadata::uuid_truncated`]).
    pub fn uuid_hex(&self) -> String {
        self.uuid_raw.iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
    pub fn program(&self, engine: u8) -> Option<&EngineProgram> {
        self.engine_programs.iter().find(|p| p.engine == engine)
    }
}

/// Memory category → JSON `usage_type`.
pub fn memory_display_name(category: &str) -> Option<&'static str> {
    Some(match category {
        "generic" => "Generic",
        "pe" => "Tensor Instructions",
        "act" => "Scalar Instructions",
        "pool" => "GpSimd Instructions",
        "io" => "IO",
        "spill" => "DRAM Spill",
        "weight" => "Weights",
        "profiler buffers" => "Profiler Buffers",
        "act table" => "Scalar Table",
        "dve" => "Vector Instructions",
        "sp" => "Sync Instructions",
        "shared scratchpad" => "Shared Scratchpad",
        "tensor" => "Tensors",
        "ucode" => "Ucode lib",
        "pool stdio" => "GpSimd STDIO",
        "collectives" => "Collectives",
        "scratchpad" => "Scratchpad",
        "xt cc" => "XT CC (unused)",
        "dma rings runtime" => "DMA Rings Runtime",
        "dma rings spill" => "DMA Rings Spill",
        "dma rings io" => "DMA Rings IO",
        "dma rings collectives" => "DMA Rings Collectives",
        _ => return None,
    })
}

/// Queue name as the JSON shows it: engine words renamed (`qSP…`→`qSync…`, `qPool…`→`qGpSimd…`,
/// `qAct…`→`qScalar…`; `qDve…` unchanged).
pub fn queue_display_name(name: &str) -> String {
    for (from, to) in [("qSP", "qSync"), ("qPool", "qGpSimd"), ("qAct", "qScalar")] {
        if let Some(rest) = name.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    name.to_string()
}

pub fn queue_type_name(t: u64) -> &'static str {
    match t {
        0 => "unknown",
        2 => "weights",
        _ => "other",
    }
}

fn check(m: Message<'_>, path: &'static str, w: &mut Warnings) {
    let mut it = m.fields();
    for _ in it.by_ref() {}
    if let Some(e) = it.error {
        w.add(WarningKind::MetadataMalformed, || format!("{path}: {e}"));
    }
}

fn engine_u8(v: u64, path: &'static str, w: &mut Warnings) -> Option<u8> {
    if v < 32 {
        Some(v as u8)
    } else {
        w.add(WarningKind::MetadataValue, || format!("{path}: engine index {v} out of range"));
        None
    }
}

fn sub<'a>(m: Message<'a>, n: u32) -> Option<Message<'a>> {
    match m.get(n) {
        Some(Value::Bytes(b)) => Some(Message::new(b)),
        _ => None,
    }
}

pub(crate) fn decode(bytes: &[u8], w: &mut Warnings) -> Result<Metadata, NtffError> {
    let root = Message::new(bytes);
    {
        let mut it = root.fields();
        let n = it.by_ref().count();
        if let Some(e) = it.error {
            if n == 0 {
                return Err(NtffError::BadMetadata { path: "/", error: e });
            }
            w.add(WarningKind::MetadataMalformed, || format!("/: {e}"));
        }
    }
    let sg = sub(root, 4)
        .and_then(|m| sub(m, 4))
        .and_then(|m| sub(m, 1))
        .ok_or(NtffError::MissingMetadata("subgraph record /4/4/1"))?;
    check(sg, "/4/4/1", w);

    let uuid_raw = root.bytes_of(2).to_vec();
    let uuid_truncated = uuid_raw.len() < 16;
    if uuid_truncated {
        w.add(WarningKind::UuidTruncated, || {
            format!("NEFF UUID has only {} recoverable bytes (contains a 0x00 byte)", uuid_raw.len())
        });
    }

    let mut engine_programs = Vec::new();
    for p in sg.messages(4) {
        check(p, "/4/4/1/4", w);
        let Some(engine) = engine_u8(p.u64(1), "/4/4/1/4/1", w) else { continue };
        let code = p.bytes_of(3).to_vec();
        if code.len() % 64 != 0 {
            w.add(WarningKind::MetadataValue, || {
                format!("engine {engine} program is {} bytes, not a multiple of 64", code.len())
            });
        }
        let slot_count = u32::try_from(code.len() / 64).unwrap_or(u32::MAX);
        engine_programs.push(EngineProgram { engine, device_address: p.u64(2), slot_count, code });
    }

    let mut patch_lists = Vec::new();
    for p in sg.messages(5) {
        check(p, "/4/4/1/5", w);
        let Some(engine) = engine_u8(p.u64(1), "/4/4/1/5/1", w) else { continue };
        let patches = p
            .messages(2)
            .map(|e| Patch {
                offset_bytes: e.u64(1),
                count: e.u64(2),
                kind: match e.u64(3) {
                    0 => PatchKind::Insert,
                    1 => PatchKind::Modify,
                    2 => PatchKind::Delete,
                    o => PatchKind::Other(o),
                },
            })
            .collect();
        patch_lists.push(PatchList { engine, patches });
    }

    let blocks = sg
        .messages(6)
        .map(|b| BlockDescriptor {
            notification_type: b.u64(1),
            kind: b.u64(3),
            offset_bytes: b.u64(5),
            size_bytes: b.u64(6),
        })
        .collect();

    let dma_queues = sg
        .messages(7)
        .map(|q| {
            let name = q.string(4);
            let f8 = sub(q, 8).map(|m| [m.u64(2), m.u64(3), m.u64(4)]);
            DmaQueueDescriptor {
                dma_engine: q.u64(1),
                queue: q.u64(2),
                queue_type: q.u64(3),
                queue_type_name: queue_type_name(q.u64(3)),
                display_name: queue_display_name(&name),
                name,
                field5: q.u64(5),
                field8: f8,
            }
        })
        .collect();

    let mut clock_sync = ClockSync::default();
    if let Some(cs) = sub(sg, 10) {
        check(cs, "/4/4/1/10", w);
        let mut counts = [0u32; 64];
        for f in cs.fields() {
            let Value::Bytes(b) = f.value else { continue };
            let m = Message::new(b);
            let idx = counts.get_mut(f.number as usize).map(|c| {
                let i = *c;
                *c += 1;
                i
            });
            let Some(index) = idx else {
                w.add(WarningKind::MetadataValue, || format!("/4/4/1/10/{} ignored", f.number));
                continue;
            };
            clock_sync.entries.push(SyncEntry {
                slot: f.number,
                index,
                counter_at_sync: m.u64(1),
                divisor: m.u64(2),
                multiplier: m.u64(3),
            });
        }
    }

    let memory_usage = sg
        .messages(11)
        .map(|m| {
            let category = m.string(3);
            let display_name =
                memory_display_name(&category).map(str::to_string).unwrap_or_else(|| category.clone());
            MemoryUsage { category, display_name, size_bytes: m.u64(2) }
        })
        .collect();

    let ring_buffers =
        root.messages(13).map(|m| RingBuffer { a: m.u64(1), b: m.u64(2), size_bytes: m.u64(3) }).collect();

    Ok(Metadata {
        neff_path: root.string(1),
        uuid_raw,
        uuid_truncated,
        field3: root.u64(3),
        field5: root.u64(5),
        field10: root.u64(10),
        runtime_version: sub(root, 8).map(VersionInfo::from_message),
        driver_version: sub(root, 11).map(VersionInfo::from_message),
        collectives_version: sub(root, 12).map(VersionInfo::from_message),
        instance_type: root.string(9),
        ring_buffers,
        subgraph_name: sg.string(1),
        engine_programs,
        patch_lists,
        blocks,
        dma_queues,
        clock_sync,
        memory_usage,
        execution_time_ps: sg.u64(14),
    })
}

/// Runtime pc → compiler pc (`u32::MAX` = none) for a program of `slots` slots (ntff-v5.md §4.6).
pub(crate) fn compiler_pc_map(slots: u32, patches: Option<&PatchList>) -> Vec<u32> {
    let n = slots as usize;
    let mut map = vec![u32::MAX; n];
    let mut sorted: Vec<(u64, usize, &Patch)> = patches
        .map(|l| l.patches.iter().enumerate().map(|(i, p)| (p.offset_bytes / 64, i, p)).collect())
        .unwrap_or_default();
    sorted.sort_by_key(|&(pc, i, _)| (pc, i));
    let mut pc: u64 = 0;
    let mut c: u64 = 0;
    let mut next = 0usize;
    while (pc as usize) < n {
        if let Some(&(at, _, p)) = sorted.get(next) {
            if at <= pc {
                next += 1;
                match p.kind {
                    PatchKind::Insert => pc = pc.saturating_add(p.count),
                    PatchKind::Delete => c = c.saturating_add(p.count),
                    _ => {}
                }
                continue;
            }
        }
        map[pc as usize] = u32::try_from(c).unwrap_or(u32::MAX);
        pc += 1;
        c = c.saturating_add(1);
    }
    map
}
