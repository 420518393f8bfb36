//! The Neuron binary pair: NEFF (compiled program) and NTFF (device trace), dropped alone or
//! together. NTFF → device profile (engines, DMA queues, semaphores, throttle, counters) through
//! the shared layout of [`super::device`]; NEFF alone → program view; both → the NTFF's
//! events correlated with the NEFF ([`crate::neuron::correlate`]), paired by UUID.

use super::device::{
    add_activity, instruction_domain, sorted_args, store_args, Devices, InstrNames, DMA_ARG_ORDER,
    INSTRUCTION_ARG_ORDER,
};
use super::json::{self, ExportAttribution};
use super::neff::add_neff;
pub use super::ntff_identity::NtffIdentity;
use crate::import::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::WarningKind;
use crate::model::{
    ArgValue, Attribution, CounterRole, DeviceInfo, DeviceMemory, DmaBlock, DmaQueueType, DomainShapeRef,
    Engine, FlowEnd, GroupId, Incomplete, InstructionTraffic, SliceDomain, SliceHandle, ThrottlePeriod,
    TraceBuilder, TrackId,
};
use crate::neuron::neff::Lineage;
use crate::neuron::{correlate, neff, ntff};
use crate::strings::{FxHashMap, StrId};
use std::collections::hash_map::Entry;

pub struct NeuronBinary;

/// [`NtffIdentity`] of an NTFF file, `None` when the header or the metadata cannot be read.
pub fn ntff_identity(bytes: &[u8]) -> Option<NtffIdentity> {
    use crate::neuron::protowire::Message;
    if !is_ntff(&bytes[..bytes.len().min(crate::import::SNIFF_BYTES)]) {
        return None;
    }
    let h = ntff::Header::read(bytes)?;
    let meta = bytes.get(ntff::HEADER_LEN..h.record_area_offset() as usize)?;
    let root = Message::new(meta);
    let uuid_hex = root.bytes_of(2).iter().take(16).map(|b| format!("{b:02x}")).collect();
    let execution_time_ps = root.message(4).message(4).message(1).u64(14);
    Some(NtffIdentity { version: h.version, neff_path: root.string(1), uuid_hex, execution_time_ps })
}

/// Peak bytes per NTFF byte while importing it whole as the parser worker does
/// (`import::import_owned`): the file, the builder's columns and arguments filled straight from
/// the decoder (no table of decoded records is held) — the peak, at the end of the fill —, then,
/// with the file freed, the operator timeline and `finish`. Counted phase by phase by a global
/// allocator (`cargo run -p loupe-core --release --example import_peak -- X.neff X.ntff`) on
/// generated pairs of instruction records (`gen_neuron_pair`), 2026-12-07: 3.13 per byte at
/// 100 MB, 3.23 at 500 MB, 3.26 at 900 MB, 3.23 at 2 GB (313 MB, 1.61 GB, 2.93 GB, 6.45 GB).
/// Before: 4.04–4.25 with the file held through `finish` and `finish` copying every track's
/// columns beside the builder's, 5.04 with the decoded records and their correlation held while
/// the builder filled, 6.04 with the events' own argument values as based sets, 6.54 with the
/// decoded instructions' derived ns times stored, 7.60 with a column per domain field while the
/// builder filled, 8.0 before that, and 8.5 while the worker encoded the model with the files
/// and the whole encoding in memory. Rounded up by 13.5 % over the largest measured (3.26): the
/// estimate must err on the side of refusing a file before the worker dies (the worker's wasm
/// allocator has overhead the counting allocator does not see); `tests/ntff_peak.rs` checks it
/// stays above the measured peak.
pub const PEAK_BYTES_PER_NTFF_BYTE: f64 = 3.7;

/// The estimated peak memory of importing NTFF captures of `ntff_bytes` bytes in all.
pub fn estimate_peak_bytes(ntff_bytes: u64) -> u64 {
    (ntff_bytes as f64 * PEAK_BYTES_PER_NTFF_BYTE) as u64
}

/// Whether `prefix` (the first bytes of a file) looks like an NTFF capture: by structure (the
/// metadata length is checked against the whole file by `ntff::parse`): a plausible version
/// byte, zero bytes 4..8, zero padding 0x10..0x80 and the metadata protobuf starting with field 1
/// (length-delimited) at 0x80.
pub fn is_ntff(prefix: &[u8]) -> bool {
    if prefix.len() < 0x81 {
        return false;
    }
    let v = prefix[0];
    (1..=63).contains(&v)
        && prefix[1..4] != [0, 0, 0]
        && prefix[4..8].iter().all(|&b| b == 0)
        && prefix[0x10..0x80].iter().all(|&b| b == 0)
        && prefix[0x80] == 0x0a
}

impl Importer for NeuronBinary {
    fn name(&self) -> &'static str {
        "neuron"
    }
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        if neff::sniff(prefix) || is_ntff(prefix) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        import_pair(std::slice::from_ref(file), &mut Exports::new(), b, progress)
    }
    fn import_group(
        &self,
        files: &[InputFile<'_>],
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Option<Result<(), ImportError>> {
        Some(import_pair(files, &mut Exports::new(), b, progress))
    }
}

/// "NTFF version N is not supported; Loupe reads v5" (also for versions no importer claims).
pub(crate) fn ntff_version_message(version: u8) -> String {
    format!("NTFF version {version} is not supported; Loupe reads v5")
}

/// The own JSON exports of NTFFs dropped with them, by the NTFF's file name
/// ([`super::json::import_own_export`]).
pub type Exports = std::collections::HashMap<String, ExportAttribution>;

/// [`NeuronBinary::import_group`] with the NTFFs' own JSON exports, whose per-instruction
/// attribution is joined onto the NTFFs' rows (see `add_ntff`).
pub fn import_group_with_exports(
    files: &[InputFile<'_>],
    exports: &mut Exports,
    b: &mut TraceBuilder,
    progress: &mut dyn Progress,
) -> Result<(), ImportError> {
    import_pair(files, exports, b, progress)
}

fn ntff_error(e: ntff::NtffError, file_len: u64) -> ImportError {
    match e {
        // the file ends inside its header or metadata: nothing of the capture can be shown
        ntff::NtffError::Truncated { what, offset, needed, .. } => ImportError::Malformed {
            format: "NTFF",
            offset: file_len,
            message: format!(
                "the NTFF ends at byte {file_len}: the capture is incomplete (the file ends inside its \
                 {what}, which its header says runs to byte {}; or that header is damaged), and nothing of \
                 it can be shown",
                offset.saturating_add(needed)
            ),
        },
        ntff::NtffError::UnsupportedVersion { version, header } => ImportError::Unsupported {
            format: "NTFF",
            message: format!(
                "{} (header: metadata {} bytes, file {} bytes)",
                ntff_version_message(version),
                header.metadata_len,
                header.file_len
            ),
        },
        // the decoder's messages name their own offsets where there is one
        e => ImportError::Invalid { format: "NTFF", message: e.to_string() },
    }
}

fn import_pair(
    files: &[InputFile<'_>],
    exports: &mut Exports,
    b: &mut TraceBuilder,
    progress: &mut dyn Progress,
) -> Result<(), ImportError> {
    let mut neffs = Vec::new();
    let mut ntffs = Vec::new();
    for f in files {
        if neff::sniff(&f.bytes[..f.bytes.len().min(crate::import::SNIFF_BYTES)]) {
            let n = neff::parse(f.bytes).map_err(|e| match e {
                neff::NeffError::TooLarge(limit) => {
                    ImportError::TooLarge { what: "this file expands to".into(), limit }
                }
                e => ImportError::Invalid { format: "NEFF", message: e.to_string() },
            })?;
            neffs.push(n);
        } else {
            ntffs.push(f);
        }
    }
    if ntffs.is_empty() {
        for n in &neffs {
            add_neff(n, b);
        }
        b.set_format("neff");
        return Ok(());
    }
    let total: u64 = ntffs.iter().map(|f| f.bytes.len() as u64).sum();
    let mut done = 0u64;
    for f in &ntffs {
        if !progress.report(done, total) {
            return Err(ImportError::Cancelled);
        }
        // header and metadata first: the records are decoded straight into the model
        // (`add_ntff`), which needs the NEFF they pair with
        let opened = ntff::open(f.bytes).map_err(|e| ntff_error(e, f.bytes.len() as u64))?;
        let incomplete =
            opened.truncated().map(|(file_bytes, expected_bytes)| Incomplete { file_bytes, expected_bytes });
        if let Some(inc) = incomplete {
            // (a cut before any event is an error, once the records are read: `add_ntff`)
            b.warn(WarningKind::NtffTruncated, || format!("'{}': {}", f.name, inc.message("NTFF")));
        }
        // pair by UUID: the NEFF whose UUID matches (prefix when truncated), else the only one
        let uuid = opened.metadata.uuid_hex();
        let neff = neffs
            .iter()
            .find(|n| !uuid.is_empty() && n.header.uuid.starts_with(&uuid))
            .or(if neffs.len() == 1 { neffs.first() } else { None });
        // a NEFF that is not the one the NTFF was captured from: a trace warning too (the
        // correlation report has the same note), so the timeline's banner and `summary` show it
        let mut neff_mismatch = false;
        if let Some(n) = neff {
            if let Some(m) = correlate::uuid_mismatch_of(&opened.metadata, n) {
                neff_mismatch = true;
                b.warn(WarningKind::NeffUuidMismatch, || format!("'{}': {m}", f.name));
            }
        } else if !neffs.is_empty() {
            let loaded: Vec<&str> = neffs.iter().map(|n| n.header.uuid.as_str()).collect();
            b.warn(WarningKind::NeffUuidMismatch, || {
                format!(
                    "'{}' was captured from NEFF {uuid}; none of the loaded NEFFs ({}) has that UUID, \
                     so its events are not correlated",
                    f.name,
                    loaded.join(", ")
                )
            });
        }
        let first_group = b.group_count();
        let export = exports.get_mut(f.name);
        add_ntff(opened, Attributed { neff, neff_mismatch, export, incomplete }, f.name, b)?;
        for g in first_group..b.group_count() {
            b.set_group_source_file(GroupId(g as u32), f.name);
        }
        done += f.bytes.len() as u64;
    }
    if let Some(n) = neffs.first() {
        add_neff(n, b);
    }
    b.set_format(if neffs.is_empty() { "ntff" } else { "ntff+neff" });
    progress.report(total, total);
    Ok(())
}

/// The memory kinds the device summary needs, from the capture's memory-usage rows (by the
/// runtime's category names, which the decoder maps to the export's `usage_type`). `None` when
/// the capture has no memory-usage rows.
fn device_memory(rows: &[ntff::MemoryUsage]) -> Option<DeviceMemory> {
    if rows.is_empty() {
        return None;
    }
    let sum = |names: &[&str]| -> u64 {
        rows.iter().filter(|r| names.contains(&r.display_name.as_str())).map(|r| r.size_bytes).sum()
    };
    Some(DeviceMemory {
        weights_bytes: sum(&["Weights"]),
        io_tensors_bytes: sum(&["Tensors"]),
        dram_spill_bytes: sum(&["DRAM Spill"]),
        collectives_bytes: sum(&["Collectives", "DMA Rings Collectives"]),
    })
}

/// What an NTFF's instructions are attributed from, and what is known of the capture file.
struct Attributed<'a> {
    neff: Option<&'a neff::Neff>,
    /// The NEFF's UUID differs from the one the NTFF names.
    neff_mismatch: bool,
    /// The NTFF's own JSON export: its attribution wins for every row it joins.
    export: Option<&'a mut ExportAttribution>,
    incomplete: Option<Incomplete>,
}

/// The label of [`ntff::Expected::starts_per_label`]'s key `engine * 2 + matmul`.
fn label_of_key(k: usize) -> &'static str {
    if k == 1 {
        "TensorMatrix"
    } else {
        ntff::engine_subgroup((k / 2) as u8)
    }
}

/// The union of spans as they come, nearly in start order (an engine's instructions in
/// end-record order): touching spans are joined at once; a span starting before the last
/// joined block waits in `late`, and [`add_activity`] sorts and joins what is left. The union
/// is the same as that of every span sorted, without holding each one.
#[derive(Default)]
struct SpanUnion {
    blocks: Vec<(i64, i64)>,
    late: Vec<(i64, i64)>,
}

impl SpanUnion {
    #[inline]
    fn add(&mut self, s: i64, e: i64) {
        let e = e.max(s);
        match self.blocks.last_mut() {
            Some(last) if s >= last.0 => {
                if s <= last.1 {
                    last.1 = last.1.max(e);
                } else {
                    self.blocks.push((s, e));
                }
            }
            Some(_) => self.late.push((s, e)),
            None => self.blocks.push((s, e)),
        }
    }
    fn into_spans(mut self) -> Vec<(i64, i64)> {
        if self.late.is_empty() {
            return self.blocks;
        }
        self.blocks.append(&mut self.late);
        self.blocks
    }
}

/// Per DMA queue: track, name, the packets' base argument set, its row form and the queue's kind.
type Queue = (TrackId, StrId, crate::model::ArgsId, Option<u32>, &'static str);

/// The model built from an NTFF's rows as the decoder pairs them ([`ntff::EventSink`]): every
/// instruction and DMA packet goes into the builder's columns at once, with its correlation
/// (resolved once per instruction template) and what the device summary and the counters need
/// from it (traffic, FLOPs, activity, DMA throughput, pending DMA), so no table of decoded rows
/// is held (`add_ntff`).
struct NtffSink<'a, 'b, 'm> {
    b: &'b mut TraceBuilder,
    meta: &'m ntff::Metadata,
    dev: &'b mut crate::import::neuron::device::Device,
    correlator: correlate::Correlator<'a>,
    export: Option<&'b mut ExportAttribution>,
    streams: [Option<Engine>; 256],
    /// Every execution of one instruction (engine, runtime pc, compiler pc, opcode) shares its
    /// track, names, operator, typed domain and arguments: they are built once per instruction
    /// ([`InstrTemplate`]); each event's argument set is a row of its own values (wait, CRCs)
    /// over the instruction's (a row set: 4 bytes a value).
    templates: FxHashMap<(u8, u32, Option<u32>, u8), InstrTemplate>,
    /// joined rows: the export's id → the slice (for its `predecessors`), and the flows to add
    by_id: FxHashMap<i64, SliceHandle>,
    preds: Vec<(SliceHandle, i64, StrId)>,
    joined: u64,
    from_neff: u64,
    instructions: u64,
    /// per engine id: its instructions' spans (the activity counters)
    activity: Vec<(u8, SpanUnion)>,
    /// [`ntff::Ntff::instruction_traffic`] and `instruction_flops`, as the rows come; `None`
    /// once an executed program word is outside the known layout
    traffic: Option<InstructionTraffic>,
    flops: Vec<(i64, i64, u64)>,
    /// (engine, pc) → the word's operands, for rows joined from the export (no template)
    costs: FxHashMap<(u8, u32), Option<InstructionTraffic>>,
    /// SBUF / PSUM occupancy ([`ntff::memory`]): the accesses as the rows come, `None` once an
    /// executed program word is outside the known layout; the words' operands per (engine, pc)
    /// for rows joined from the export (the others have them in their template)
    memory: Option<ntff::memory::MemoryTimeline>,
    mem_ops: FxHashMap<(u8, u32), Option<ntff::memory::WordAccesses>>,
    /// [`ntff::Ntff::pending_dma`]'s steps (DMA_DIRECT2D triggers; no NEFF trigger is known here)
    pending: Vec<(i64, i64)>,
    /// the flows, attribution and export note once the last instruction is in (DMA packets come
    /// after every instruction)
    instructions_done: bool,
    dma: Option<DmaState>,
    static_blocks: ntff::StaticDmaBlocks,
    throughput: ntff::Throughput,
    /// what the instruction phase concluded (see `end_instructions`)
    attribution: Attribution,
    export_note: Option<String>,
    file_name: &'b str,
    neff_mismatch: bool,
}

struct DmaState {
    cat: StrId,
    own_keys: [StrId; 3],
    queues: FxHashMap<(u8, u8), Queue>,
}

impl NtffSink<'_, '_, '_> {
    /// The operands of the instruction's program word (`None` inside: outside the known
    /// layout); `None` for an instruction without a compiler pc (not counted).
    fn word_traffic(meta: &ntff::Metadata, ins: &ntff::Instruction) -> Option<Option<InstructionTraffic>> {
        ins.compiler_pc.map(|_| ntff::cost::slot_traffic(meta, ins.engine, ins.pc))
    }

    #[inline]
    fn count_traffic(&mut self, ins: &ntff::Instruction, cost: Option<Option<InstructionTraffic>>) {
        let Some(cost) = cost else { return };
        let Some(t) = self.traffic.as_mut() else { return };
        match cost {
            Some(c) => {
                *t += c;
                if c.hardware_flops > 0 {
                    let s = ins.start_ns();
                    self.flops.push((s, s.saturating_add(ins.dur_ns().max(0)), c.hardware_flops));
                }
            }
            None => {
                self.traffic = None;
                self.flops = Vec::new();
            }
        }
    }

    /// The instruction's SBUF / PSUM operands into the occupancy timeline (NEFF-program
    /// instructions only, as [`ntff::Ntff::instruction_memory`]): `ops` as
    /// [`InstrTemplate::mem`].
    #[inline]
    fn count_memory(&mut self, ins: &ntff::Instruction, ops: Option<Option<ntff::memory::WordAccesses>>) {
        let (Some(ops), Some(m)) = (ops, self.memory.as_mut()) else { return };
        match ops {
            Some(ops) => m.add_word(ins.start_ns(), ins.end_ps.div_euclid(1000), &ops),
            None => self.memory = None,
        }
    }

    #[inline]
    fn count_activity(&mut self, ins: &ntff::Instruction) {
        let s = ins.start_ns();
        let e = s + ins.dur_ns();
        match self.activity.iter_mut().find(|a| a.0 == ins.engine) {
            Some(a) => a.1.add(s, e),
            None => {
                let mut u = SpanUnion::default();
                u.add(s, e);
                self.activity.push((ins.engine, u));
            }
        }
    }

    /// After the last instruction: the export's flows, the attribution, the join note.
    fn end_instructions(&mut self) {
        if self.instructions_done {
            return;
        }
        self.instructions_done = true;
        self.templates = FxHashMap::default();
        let b = &mut *self.b;
        let dep = b.intern("dependency");
        let mut unresolved = 0u64;
        for (h, pid, kind) in std::mem::take(&mut self.preds) {
            match self.by_id.get(&pid) {
                Some(&from) => b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(h), kind, dep),
                None => unresolved += 1,
            }
        }
        if unresolved > 0 {
            b.warnings.add_n(WarningKind::NeuronFlowUnresolved, unresolved, || {
                "a predecessor instruction of the export is not on the NTFF's timeline; flow dropped".into()
            });
        }
        let (joined, from_neff) = (self.joined, self.from_neff);
        // the attribution's source, as a typed flag: the export's where it joined, else the NEFF's
        // (unverified when its UUID differs)
        self.attribution = if self.neff_mismatch && from_neff > 0 {
            Attribution::NeffMismatch
        } else if joined > 0 {
            Attribution::Export
        } else if from_neff > 0 {
            Attribution::Neff
        } else {
            Attribution::Unstated
        };
        if let Some(x) = self.export.as_deref() {
            let n = self.instructions;
            let rows = x.rows() as u64;
            let pct = |a: u64, b: u64| if b == 0 { 100.0 } else { a as f64 * 100.0 / b as f64 };
            let note = format!(
                "operator attribution from the capture's own export '{}': {joined} of {n} NTFF instruction rows \
                 joined ({:.2} %), {joined} of {rows} export rows ({:.2} %), by engine, pc, start and duration",
                x.file,
                pct(joined, n),
                pct(joined, rows)
            );
            b.add_metadata("neuron.export_join", note.clone());
            if joined < n || joined < rows {
                let file_name = self.file_name;
                b.warn(WarningKind::NeuronExportJoinIncomplete, || format!("'{file_name}': {note}"));
            }
            self.export_note = Some(note);
        }
        self.dma = Some(DmaState {
            cat: b.intern("dma"),
            own_keys: ["transfer_size", "packet_idx", "crc"].map(|k| b.intern(k)),
            queues: FxHashMap::default(),
        });
    }
}

impl ntff::EventSink for NtffSink<'_, '_, '_> {
    fn expect(&mut self, e: &ntff::Expected) {
        // each engine's track with room for its instructions (start records: a bound)
        for (k, &n) in e.starts_per_label.iter().enumerate() {
            if n > 0 {
                let track = self.dev.engine(self.b, label_of_key(k));
                self.b.reserve_slices(track, n, true);
            }
        }
        // per instruction event its own wait and CRCs; per DMA packet its size, index and CRC
        self.b.reserve_arg_rows(5 * e.instructions + 4 * e.dma_packets);
    }

    fn instruction(&mut self, ins: ntff::Instruction) {
        self.instructions += 1;
        self.count_activity(&ins);
        if ins.opcode_byte == ntff::opcodes::OP_DMA_DIRECT2D {
            self.pending.push((ins.start_ns(), 1));
        }
        let b = &mut *self.b;
        // the execution's own row of the capture's export, when there is one: its attribution,
        // exactly as the export alone gives it, on the NTFF's picosecond times
        let row = match (self.export.as_deref_mut(), self.streams[usize::from(ins.engine)]) {
            (Some(x), Some(e)) => x.take((e, i64::from(ins.pc), ins.start_ns(), ins.dur_ns())),
            _ => None,
        };
        if let Some(r) = row {
            self.joined += 1;
            let o = self.correlator.resolve(&ins);
            self.correlator.count(o);
            let track = self.dev.engine(b, ins.label());
            let name = b.intern(ins.opcode());
            let (args, mut d) = json::instruction_attribution(b, r, name);
            let cat = ["framework_name", "layer", "hlo_name"]
                .iter()
                .find_map(|k| r.get(*k).and_then(|v| v.as_str()).filter(|v| !v.trim().is_empty()))
                .map_or(StrId::EMPTY, |c| b.intern(c));
            let h = b.add_slice(track, ins.start_ns(), ins.dur_ns(), name, cat, args);
            (d.start_sub_ps, d.dur_sub_ps) = sub_ps(ins.start_ps, ins.end_ps);
            d.pc = ins.pc;
            b.set_slice_domain(h, d);
            if let Some(id) = r.get("id").and_then(json::int_of) {
                self.by_id.insert(id, h);
            }
            for p in r.get("predecessors").and_then(|v| v.as_array()).into_iter().flatten() {
                if let Some(pid) = p.get("id").and_then(json::int_of) {
                    let kind = p.get("type").and_then(|v| v.as_str()).unwrap_or("dependency");
                    self.preds.push((h, pid, b.intern(kind)));
                }
            }
            let meta = self.meta;
            let cost = ins.compiler_pc.map(|_| {
                *self
                    .costs
                    .entry((ins.engine, ins.pc))
                    .or_insert_with(|| ntff::cost::slot_traffic(meta, ins.engine, ins.pc))
            });
            self.count_traffic(&ins, cost);
            let mem = ins.compiler_pc.map(|_| {
                *self
                    .mem_ops
                    .entry((ins.engine, ins.pc))
                    .or_insert_with(|| ntff::memory::slot_accesses(meta, ins.engine, ins.pc))
            });
            self.count_memory(&ins, mem);
            return;
        }
        let key = (ins.engine, ins.pc, ins.compiler_pc, ins.opcode_byte);
        let tpl = match self.templates.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let o = self.correlator.resolve(&ins);
                let cost = Self::word_traffic(self.meta, &ins);
                let mut t = InstrTemplate::new(&ins, o, cost, self.correlator.lineage(o), self.dev, b);
                t.mem = ins.compiler_pc.map(|_| ntff::memory::slot_accesses(self.meta, ins.engine, ins.pc));
                e.insert(t)
            }
        };
        self.correlator.count(tpl.outcome);
        if tpl.resolved {
            self.from_neff += 1;
        }
        let values = [ins.evt_wait_time_ns, ins.wait_cycles, ins.crc_in, ins.crc_out].map(u32::from);
        let args = match tpl.form {
            Some(form) => b.add_args_row(form, &values),
            None => {
                let own: [(StrId, ArgValue); 4] =
                    std::array::from_fn(|k| (tpl.per_event[k], ArgValue::UInt(u64::from(values[k]))));
                b.add_args_over(tpl.args, &own)
            }
        };
        let h = b.add_slice(tpl.track, ins.start_ns(), ins.dur_ns(), tpl.name, tpl.operator, args);
        let (start_sub_ps, dur_sub_ps) = sub_ps(ins.start_ps, ins.end_ps);
        b.set_slice_domain_shaped(h, tpl.domain, u64::MAX, start_sub_ps, dur_sub_ps);
        let (cost, mem) = (tpl.cost, tpl.mem);
        self.count_traffic(&ins, cost);
        self.count_memory(&ins, mem);
    }

    fn dma_packet(&mut self, p: ntff::DmaPacket) {
        self.end_instructions();
        let b = &mut *self.b;
        // DMA packets, one track per (engine, queue): the track, name and the queue's arguments
        // (engine, queue, queue type) once per queue; each packet's set is based on its queue's
        let Some(dma) = self.dma.as_mut() else { return };
        let (meta, dev, own_keys) = (self.meta, &mut *self.dev, dma.own_keys);
        let (track, name, base, form, kind) =
            *dma.queues.entry((p.dma_engine, p.queue)).or_insert_with(|| {
                let label = meta.dma_queue_label(p.dma_engine, p.queue);
                let kind = meta.dma_queue_kind(p.dma_engine, p.queue);
                let track = dev.dma_queue(b, &label, Some(p.dma_engine as i64), Some(p.queue as i64));
                if let Some(q) = DmaQueueType::from_name(kind) {
                    b.set_track_dma_queue_type(track, q);
                }
                let args = vec![
                    ("transfer_size".to_string(), ArgValue::UInt(0)),
                    ("packet_idx".into(), ArgValue::UInt(0)),
                    ("dma_engine".into(), ArgValue::UInt(p.dma_engine as u64)),
                    ("dma_queue".into(), ArgValue::UInt(p.queue as u64)),
                    ("queue_type".into(), ArgValue::Str(b.intern(kind))),
                    ("crc".into(), ArgValue::UInt(0)),
                ];
                let base = store_args(b, DMA_ARG_ORDER, args);
                let form = b.add_args_form(base, &own_keys);
                (track, b.intern(&label), base, form, kind)
            });
        let values = [p.size_bytes, p.packet_idx, u32::from(p.crc)];
        let args = match form {
            Some(form) => b.add_args_row(form, &values),
            None => {
                let own: [(StrId, ArgValue); 3] =
                    std::array::from_fn(|k| (own_keys[k], ArgValue::UInt(u64::from(values[k]))));
                b.add_args_over(base, &own)
            }
        };
        let h = b.add_slice(track, p.start_ns, p.dur_ns, name, dma.cat, args);
        let (start_sub_ps, dur_sub_ps) = sub_ps(p.start_ps, p.end_ps);
        b.set_slice_domain(
            h,
            SliceDomain { bytes: p.size_bytes as u64, start_sub_ps, dur_sub_ps, ..SliceDomain::default() },
        );
        self.static_blocks.add(&p, kind);
        self.throughput.add(&p);
    }
}

/// Build the model of one NTFF from its records as they are decoded (one pass, no table of
/// rows: [`NtffSink`]), then what needs all of them (device summary, counters).
fn add_ntff(
    opened: ntff::Opened<'_>,
    from: Attributed<'_>,
    file_name: &str,
    b: &mut TraceBuilder,
) -> Result<(), ImportError> {
    let Attributed { neff, neff_mismatch, export, incomplete } = from;
    // the capture's own warnings and metadata come first, as when the records were decoded
    // before the model was built: they are known once the records are read, and put here
    let warnings_at = b.warnings.entries.len();
    let metadata_at = b.metadata.entries.len();
    let m = &opened.metadata;
    let correlator = correlate::Correlator::new(m, neff);
    // the NeuronCore: the capture's own export's, else the one its file name states, else 0 (an
    // NTFF does not say which core it was captured on)
    let core = export.as_deref().and_then(|x| x.nc_idx).map(i64::from).or_else(|| {
        crate::import::ranks::neuron_core_in_file_name(file_name).filter(|c| u32::try_from(*c).is_ok())
    });
    let core = core.unwrap_or(0);
    let name = if m.neff_path.is_empty() {
        format!("NeuronCore {core}")
    } else {
        format!("NeuronCore {core} — {}", m.neff_path.rsplit('/').next().unwrap_or(""))
    };
    let mut devices = Devices::new(name, false);
    let dev = devices.get(b, 0);
    let instance_type = (!m.instance_type.is_empty()).then(|| b.intern(&m.instance_type));
    let [runtime_version, driver_version, collectives_version] =
        [&m.runtime_version, &m.driver_version, &m.collectives_version]
            .map(|v| v.as_ref().map(|v| b.intern(&v.text)));
    // engines in the usual order, even when idle
    for e in ["Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"] {
        dev.engine(b, e);
    }
    let group = dev.group;
    let mut sink = NtffSink {
        b,
        meta: m,
        dev,
        correlator,
        export,
        // the export's rows by their key: the instruction stream of each NTFF engine index
        streams: std::array::from_fn(|e| Engine::from_alias(ntff::engine_subgroup(e as u8))),
        templates: FxHashMap::default(),
        by_id: FxHashMap::default(),
        preds: Vec::new(),
        joined: 0,
        from_neff: 0,
        instructions: 0,
        activity: Vec::new(),
        traffic: Some(InstructionTraffic::default()),
        flops: Vec::new(),
        costs: FxHashMap::default(),
        memory: Some(ntff::memory::MemoryTimeline::default()),
        mem_ops: FxHashMap::default(),
        pending: Vec::new(),
        instructions_done: false,
        dma: None,
        static_blocks: ntff::StaticDmaBlocks::default(),
        throughput: ntff::Throughput::default(),
        attribution: Attribution::Unstated,
        export_note: None,
        file_name,
        neff_mismatch,
    };
    let rows = opened.decode_into(&mut sink);
    sink.end_instructions();
    let NtffSink {
        b,
        dev,
        correlator,
        activity,
        mut traffic,
        flops,
        mut memory,
        pending,
        static_blocks,
        throughput,
        attribution,
        export_note,
        export,
        ..
    } = sink;
    let streamed = opened.finish(rows);
    // cut before any event: an empty timeline would only hide that the capture is not there
    if let Some(inc) = incomplete.filter(|_| !streamed.has_events()) {
        return Err(ImportError::Malformed {
            format: "NTFF",
            offset: inc.file_bytes,
            message: format!("{}; no event of it could be read", inc.message("NTFF")),
        });
    }
    let t = &streamed.ntff;
    let m = &t.metadata;
    let later = b.warnings.entries.split_off(warnings_at);
    for w in &t.warnings {
        // a cut file's descriptors point past its end: said once, plainly, as `ntff_truncated`
        let cut = matches!(w.kind, ntff::WarningKind::BlockOutOfRange | ntff::WarningKind::BlockMisaligned);
        if incomplete.is_some() && cut {
            continue;
        }
        let ex = w.example.clone();
        b.warnings.add_n(ntff_warning(w.kind), w.count, || ex);
    }
    for w in later {
        b.warnings.add_n(w.kind, w.count, || w.example);
    }
    let mut meta: Vec<(String, String)> = Vec::new();
    let mut add = |k: String, v: String| meta.push((k, v));
    add("ntff.file".into(), file_name.to_string());
    add("ntff.version".into(), t.header.version.to_string());
    add("ntff.neff_path".into(), m.neff_path.clone());
    add(
        "ntff.neff_uuid".into(),
        format!("{}{}", m.uuid_hex(), if m.uuid_truncated { " (truncated)" } else { "" }),
    );
    add("ntff.instance_type".into(), m.instance_type.clone());
    for (k, v) in [
        ("runtime_version", &m.runtime_version),
        ("driver_version", &m.driver_version),
        ("collectives_version", &m.collectives_version),
    ] {
        if let Some(v) = v {
            add(format!("ntff.{k}"), v.text.clone());
        }
    }
    add("ntff.subgraph".into(), m.subgraph_name.clone());
    add("ntff.execution_time_ns".into(), (m.execution_time_ps / 1000).to_string());
    add("ntff.profile_start_ps".into(), t.profile.t0_ps.to_string());
    for mu in &m.memory_usage {
        add(format!("ntff.memory.{}", mu.category), mu.size_bytes.to_string());
    }
    b.metadata.entries.splice(metadata_at..metadata_at, meta);

    // with the NEFF the blocks would come from it; the NTFF importer has no transfer rows
    // either way today, so the packet rule serves both
    let blocks = static_blocks.finish();
    // the capture's own export, when dropped with it, states the static blocks' SBUF destination
    let static_sbuf = export.as_deref().map_or(&[][..], |x| x.static_sbuf.as_slice());
    if let Some(mem) = memory.as_mut() {
        for &(q, start_ps, end_ps, _) in &blocks {
            for &(_, at, per) in static_sbuf.iter().filter(|d| d.0 == q) {
                let (s, e) = (start_ps.div_euclid(1000), end_ps.div_euclid(1000));
                mem.write(s, e, ntff::memory::OnChip::Sbuf, at, at.saturating_add(per));
            }
        }
        if !static_sbuf.is_empty() {
            b.add_metadata("neuron.memory_static_dma", "SBUF destination from the capture's own export");
        }
    }
    if let Some(t) = traffic.as_mut() {
        for &(_, _, _, bytes) in &blocks {
            t.hbm_read_bytes += bytes;
            t.sbuf_write_bytes += bytes;
        }
    }
    let info = DeviceInfo {
        execution_time_ps: (m.execution_time_ps > 0).then_some(m.execution_time_ps),
        instance_type,
        event_count: Some(t.profile.event_count),
        dma_queue_count: Some(m.dma_queues.len() as u64),
        attribution,
        incomplete,
        runtime_version,
        driver_version,
        collectives_version,
        memory: device_memory(&m.memory_usage),
        throttle: t
            .throttles
            .iter()
            .map(|th| ThrottlePeriod {
                dur_ns: th.dur_ns,
                kind: th.throttle_type,
                limit_num: th.k,
                limit_den: th.n,
            })
            .collect(),
        dma_blocks: blocks
            .into_iter()
            .map(|(_, start_ps, end_ps, bytes)| DmaBlock {
                queue_type: DmaQueueType::Data,
                start_ps,
                end_ps,
                bytes,
            })
            .collect(),
        traffic,
        neff_uuid: (!m.uuid_raw.is_empty()).then(|| b.intern(&m.uuid_hex())),
        neff_uuid_truncated: m.uuid_truncated,
        neuron_core: export.as_deref().and_then(|x| x.nc_idx),
    };
    b.set_group_device(group, info);
    // the Tensor engine's FLOPs per instruction, for the HFU counter (`add_device_counters`)
    if traffic.is_some() {
        b.set_device_flops(group, flops);
    }
    // SBUF / PSUM occupancy from the words' operands (`ntff::memory`; the static DMA blocks'
    // destinations are in the NEFF: left out unless the export stated them), as the JSON
    // export's `instruction_usage`
    add_memory_counters(b, dev, memory.and_then(|m| m.finish()), &m.instance_type);
    // semaphores: one counter per id, in id order
    let mut ids: Vec<u8> = t.semaphore_updates.iter().map(|s| s.semaphore).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let c = dev.semaphore(b, &id.to_string());
        for s in t.semaphore_updates.iter().filter(|s| s.semaphore == id) {
            b.add_counter_sample(c, s.ts_ns, s.value as f64);
        }
    }
    // throttle
    if !t.throttles.is_empty() {
        let track = dev.throttle(b);
        let n = b.intern("throttle");
        for th in &t.throttles {
            let (kt, kk, kn) = (b.intern("type"), b.intern("k"), b.intern("n"));
            let args = b.add_args([
                (kt, ArgValue::UInt(th.throttle_type as u64)),
                (kk, ArgValue::UInt(th.k as u64)),
                (kn, ArgValue::UInt(th.n as u64)),
            ]);
            b.add_slice(track, th.start_ns, th.dur_ns, n, StrId::EMPTY, args);
        }
    }
    // counters: engine activity (in engine order), DMA throughput, pending DMA (DMA_DIRECT2D
    // triggers only without NEFF)
    let mut activity = activity;
    activity.sort_unstable_by_key(|a| a.0);
    for (e, spans) in activity {
        let c =
            dev.counter(b, &format!("{} active", ntff::engine_subgroup(e)), "", CounterRole::EngineActivity);
        add_activity(b, c, spans.into_spans());
    }
    let thr = throughput.finish();
    if !thr.is_empty() {
        let c = dev.counter(b, "DMA throughput", "GB/s", CounterRole::DmaThroughput);
        for p in &thr {
            b.add_counter_sample(c, p.ts_ns, p.rate_bytes_per_s / 1e9);
        }
    }
    let pending = ntff::pending_dma_points(pending);
    if !pending.is_empty() {
        let c = dev.counter(b, "Pending DMA (DGE)", "", CounterRole::PendingDma);
        for p in &pending {
            b.add_counter_sample(c, p.ts_ns, p.value as f64);
        }
    }
    let (_, mut report) = correlator.finish();
    if neff.is_none() {
        report.notes.push(
            "NTFF alone: opcode names from the instruction words; operators and source lines need the NEFF"
                .into(),
        );
    }
    report.notes.extend(export_note);
    b.correlation = Some(report);
    Ok(())
}

/// What every execution of one NTFF instruction shares (see `add_ntff`).
struct InstrTemplate {
    track: TrackId,
    /// The opcode mnemonic.
    name: StrId,
    /// The framework operator (else the HLO name): the slice's category.
    operator: StrId,
    /// The typed domain fields but the per-event `start_sub_ps` / `dur_sub_ps` (no bytes), as a
    /// shape of the track's table.
    domain: DomainShapeRef,
    /// The argument set in display order, with the per-event values zero: the events' base.
    args: crate::model::ArgsId,
    /// The keys of the per-event values: evt_wait_time_ns, wait_cycles, crc_in, crc_out.
    per_event: [StrId; 4],
    /// The row form of the events' argument sets (`args` with the `per_event` values).
    form: Option<u32>,
    /// Where its correlation ended (counted per event in the report), and whether it found a
    /// lineage.
    outcome: correlate::Outcome,
    resolved: bool,
    /// The operands of its program word (`Some(None)`: outside the known layout; `None`: no
    /// compiler pc, not counted).
    cost: Option<Option<InstructionTraffic>>,
    /// Its word's SBUF / PSUM operands ([`ntff::memory`]; `Some(None)`, `None` as `cost`).
    mem: Option<Option<ntff::memory::WordAccesses>>,
}

impl InstrTemplate {
    const PER_EVENT: [&'static str; 4] = ["evt_wait_time_ns", "wait_cycles", "crc_in", "crc_out"];

    fn new(
        ins: &ntff::Instruction,
        outcome: correlate::Outcome,
        cost: Option<Option<InstructionTraffic>>,
        l: Option<&Lineage>,
        dev: &mut crate::import::neuron::device::Device,
        b: &mut TraceBuilder,
    ) -> Self {
        let track = dev.engine(b, ins.label());
        let mut args: Vec<(String, ArgValue)> = vec![
            ("pc".into(), ArgValue::UInt(ins.pc as u64)),
            ("opcode_byte".into(), ArgValue::Str(b.intern(&format!("{:#04x}", ins.opcode_byte)))),
            ("subgroup".into(), ArgValue::Str(b.intern(ins.subgroup()))),
        ];
        args.extend(Self::PER_EVENT.iter().map(|k| (k.to_string(), ArgValue::UInt(0))));
        if let Some(c) = ins.compiler_pc {
            args.push(("compiler_pc".into(), ArgValue::UInt(c as u64)));
        }
        let mut operator = StrId::EMPTY;
        if let Some(l) = l {
            let mut s = |k: &str, v: &str| {
                let v = b.intern(v);
                args.push((k.to_string(), ArgValue::Str(v)));
            };
            if let Some(x) = &l.framework {
                s("framework_name", &x.name);
            }
            if let Some(x) = &l.hlo {
                s("hlo_name", &x.name);
                if let Some(op) = &x.op_type {
                    s("hlo_op_type", op);
                }
                if !x.text.is_empty() {
                    s("hlo_text", &x.text);
                }
            }
            if let Some(x) = &l.penguin {
                s("penguin_name", &x.name);
            }
            if let Some(x) = &l.bir {
                s("bir_name", &x.name);
            }
            if let (Some(f), Some(line)) = (&l.source_file, l.source_line) {
                s("source", &format!("{f}:{line}"));
            }
            if let (Some(f), Some(line)) = (&l.kernel_file, l.kernel_line) {
                s("kernel_source", &format!("{f}:{line}"));
            }
            let op =
                l.framework.as_ref().map(|x| x.name.as_str()).or(l.hlo.as_ref().map(|x| x.name.as_str()));
            if let Some(op) = op {
                operator = b.intern(op);
            }
        }
        let entries = sorted_args(b, INSTRUCTION_ARG_ORDER, args);
        let args = b.add_args_slice(&entries);
        let per_event = Self::PER_EVENT.map(|k| b.intern(k));
        let name = b.intern(ins.opcode());
        let names = l.map_or_else(InstrNames::default, |l| InstrNames {
            layer: "",
            framework: l.framework.as_ref().map_or("", |x| x.name.as_str()),
            hlo: l.hlo.as_ref().map_or("", |x| x.name.as_str()),
            penguin: l.penguin.as_ref().map_or("", |x| x.name.as_str()),
            bir: l.bir.as_ref().map_or("", |x| x.name.as_str()),
        });
        let src = l.and_then(|l| Some((l.source_file.as_deref()?, l.source_line.unwrap_or(0))));
        let mut domain = instruction_domain(b, name, &names, ins.compiler_pc.map(u64::from), src);
        domain.pc = ins.pc;
        debug_assert_eq!(domain.bytes, u64::MAX);
        let domain = b.domain_shape(track, &domain);
        let form = b.add_args_form(args, &per_event);
        InstrTemplate {
            track,
            name,
            operator,
            domain,
            args,
            per_event,
            form,
            outcome,
            resolved: l.is_some(),
            cost,
            mem: None,
        }
    }
}

/// Picoseconds past the floored ns of a start and of a duration (`start_ns = floor(start_ps/1000)`,
/// `dur_ns = floor((end_ps - start_ps)/1000)`), for [`SliceDomain::start_sub_ps`] / `dur_sub_ps`.
/// The model's kind of an NTFF decoder warning (codes `ntff_<variant in lower case>`).
fn ntff_warning(k: ntff::WarningKind) -> WarningKind {
    use ntff::WarningKind as N;
    match k {
        N::HeaderMismatch => WarningKind::NtffHeaderMismatch,
        N::MetadataMalformed => WarningKind::NtffMetadataMalformed,
        N::MetadataValue => WarningKind::NtffMetadataValue,
        N::UuidTruncated => WarningKind::NtffUuidTruncated,
        N::BlockOutOfRange => WarningKind::NtffBlockOutOfRange,
        N::BlockMisaligned => WarningKind::NtffBlockMisaligned,
        N::BlockTiling => WarningKind::NtffBlockTiling,
        N::UnknownBlockType => WarningKind::NtffUnknownBlockType,
        N::UnexpectedRecordClass => WarningKind::NtffUnexpectedRecordClass,
        N::MissingProgram => WarningKind::NtffMissingProgram,
        N::MissingClock => WarningKind::NtffMissingClock,
        N::TimestampOverflow => WarningKind::NtffTimestampOverflow,
        N::ProfileStartNotFound => WarningKind::NtffProfileStartNotFound,
        N::MultipleProfileStarts => WarningKind::NtffMultipleProfileStarts,
    }
}

fn sub_ps(start_ps: i64, end_ps: i64) -> (u16, u16) {
    (start_ps.rem_euclid(1000) as u16, end_ps.saturating_sub(start_ps).max(0).rem_euclid(1000) as u16)
}

/// The occupancy series as the JSON importer names the export's `instruction_usage` counters
/// (`SBUF usage`, `SBUF partition N usage`, `PSUM usage`, `PSUM bank N usage`, in %). Not
/// added without any access, or on an instance type whose partition size is not known here.
fn add_memory_counters(
    b: &mut TraceBuilder,
    dev: &mut crate::import::neuron::device::Device,
    series: Option<ntff::memory::MemorySeries>,
    instance_type: &str,
) {
    use ntff::memory::{PSUM_BANKS, SBUF_PARTITION_BYTES};
    let Some(s) = series.filter(|s| !s.is_empty()) else { return };
    let family = instance_type.split('.').next().unwrap_or("").to_ascii_lowercase();
    if !matches!(family.as_str(), "inf2" | "trn1" | "trn1n") {
        let it = instance_type.to_string();
        b.warn(WarningKind::NtffMemorySizeUnknown, || {
            format!("SBUF/PSUM sizes of instance type '{it}' are not known: no occupancy rows")
        });
        return;
    }
    if !s.sbuf.is_empty() {
        let avg = dev.counter(b, "SBUF usage", "%", CounterRole::Utilisation);
        let parts: Vec<_> = [0, 32, 64, 96]
            .iter()
            .map(|p| dev.counter(b, &format!("SBUF partition {p} usage"), "%", CounterRole::MemoryOccupancy))
            .collect();
        for &(t, bytes) in &s.sbuf {
            let v = bytes as f64 / SBUF_PARTITION_BYTES as f64 * 100.0;
            b.add_counter_sample(avg, t, v);
            for &c in &parts {
                b.add_counter_sample(c, t, v);
            }
        }
    }
    if !s.psum.is_empty() {
        let avg = dev.counter(b, "PSUM usage", "%", CounterRole::Utilisation);
        let banks: Vec<_> = (0..=s.psum_max_bank.unwrap_or(0))
            .map(|k| dev.counter(b, &format!("PSUM bank {k} usage"), "%", CounterRole::MemoryOccupancy))
            .collect();
        for &(t, mask) in &s.psum {
            b.add_counter_sample(avg, t, f64::from(mask.count_ones()) / f64::from(PSUM_BANKS) * 100.0);
            for (k, &c) in banks.iter().enumerate() {
                b.add_counter_sample(c, t, if mask >> k & 1 == 1 { 100.0 } else { 0.0 });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SpanUnion;

    /// The union kept as spans come (late ones held) is the union of all of them sorted.
    #[test]
    fn span_union_as_they_come_equals_the_sorted_union() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let mut all = Vec::new();
            let mut u = SpanUnion::default();
            let mut t = 0i64;
            for _ in 0..(next() % 300) {
                // mostly in start order, touching or with gaps; now and then one from the past
                let s = if next() % 10 == 0 { t - (next() % 50) as i64 } else { t + (next() % 4) as i64 };
                let e = s + (next() % 6) as i64 - i64::from(round % 7 == 0);
                t = t.max(s);
                all.push((s, e.max(s)));
                u.add(s, e);
            }
            let mut want = all.clone();
            want.sort_unstable();
            let want: Vec<_> = crate::spans::union_of_sorted(&want).collect();
            let mut got = u.into_spans();
            got.sort_unstable();
            let got: Vec<_> = crate::spans::union_of_sorted(&got).collect();
            assert_eq!(got, want);
        }
    }
}
