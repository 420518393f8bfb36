//! The Neuron binary pair: NEFF (compiled program) and NTFF (device trace), dropped alone or
//! together. NTFF → device profile (engines, DMA queues, semaphores, throttle, counters) through
//! the shared layout of [`super::neuron_device`]; NEFF alone → program view; both → the NTFF's
//! events correlated with the NEFF ([`crate::neuron::correlate`]), paired by UUID.

use super::neuron_device::{
    add_activity, instruction_domain, semaphore_display, sorted_args, store_args, Devices, InstrNames,
    DMA_ARG_ORDER, INSTRUCTION_ARG_ORDER,
};
use super::neuron_json::{self, ExportAttribution};
pub use super::ntff_identity::NtffIdentity;
use super::{neff::add_neff, ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::{
    ArgValue, Attribution, CounterRole, DeviceInfo, DeviceMemory, DmaBlock, DmaQueueType, DomainShapeRef,
    Engine, FlowEnd, GroupId, Incomplete, SliceDomain, SliceHandle, ThrottlePeriod, TraceBuilder, TrackId,
};
use crate::neuron::neff::Lineage;
use crate::neuron::{correlate, neff, ntff};
use crate::strings::{FxHashMap, StrId};
use std::collections::hash_map::Entry;

pub struct NeuronBinary;

/// Warning kind: the NEFF dropped with an NTFF is not the one the NTFF was captured from.
pub const NEFF_UUID_MISMATCH: &str = "neff_uuid_mismatch";

/// [`NtffIdentity`] of an NTFF file, `None` when the header or the metadata cannot be read.
pub fn ntff_identity(bytes: &[u8]) -> Option<NtffIdentity> {
    use crate::neuron::protowire::Message;
    if !is_ntff(&bytes[..bytes.len().min(super::SNIFF_BYTES)]) {
        return None;
    }
    let h = ntff::Header::read(bytes)?;
    let meta = bytes.get(ntff::HEADER_LEN..h.record_area_offset() as usize)?;
    let root = Message::new(meta);
    let uuid_hex = root.bytes_of(2).iter().take(16).map(|b| format!("{b:02x}")).collect();
    let execution_time_ps = root.message(4).message(4).message(1).u64(14);
    Some(NtffIdentity { version: h.version, neff_path: root.string(1), uuid_hex, execution_time_ps })
}

/// Peak bytes per NTFF byte while importing it whole: the file, its decoded records and their
/// correlation, the builder's columns and arguments (the peak, at the end of the builder's fill),
/// then the finished model. Counted phase by phase by a global allocator
/// (`cargo run -p loupe-core --release --example import_peak -- X.ntff X.neff`) on generated pairs
/// of instruction records (`gen_neuron_pair`): 5.04 per byte at 100 MB and at 400 MB (504 MB,
/// 2017 MB). Before: 6.04 with the events' own argument values as based sets (now row sets,
/// `model::ArgStore`), 6.54 with the decoded
/// instructions' derived ns times stored (`ntff::Instruction` 56 bytes, now 40), 7.60 with a column per
/// domain field while the builder filled (`model::DomainBuild` now keeps shapes), 8.0 before
/// that, and 8.5 while the worker encoded the model with the files and the whole encoding in
/// memory. Rounded up: the estimate must err on the side of refusing a file before the worker
/// dies.
pub const PEAK_BYTES_PER_NTFF_BYTE: f64 = 5.75;

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
/// ([`super::neuron_json::import_own_export`]).
pub type Exports = std::collections::HashMap<String, ExportAttribution>;

/// Warning kind: the NTFF file ends before the data its metadata describes.
pub const NTFF_TRUNCATED: &str = "ntff_truncated";

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
        if neff::sniff(&f.bytes[..f.bytes.len().min(super::SNIFF_BYTES)]) {
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
        let t = ntff::parse(f.bytes).map_err(|e| ntff_error(e, f.bytes.len() as u64))?;
        let incomplete =
            t.truncated().map(|(file_bytes, expected_bytes)| Incomplete { file_bytes, expected_bytes });
        if let Some(inc) = incomplete {
            // cut before any event: an empty timeline would only hide that the capture is not there
            if !t.has_events() {
                return Err(ImportError::Malformed {
                    format: "NTFF",
                    offset: inc.file_bytes,
                    message: format!("{}; no event of it could be read", inc.message("NTFF")),
                });
            }
            b.warn(NTFF_TRUNCATED, || format!("'{}': {}", f.name, inc.message("NTFF")));
        }
        // pair by UUID: the NEFF whose UUID matches (prefix when truncated), else the only one
        let uuid = t.metadata.uuid_hex();
        let neff = neffs
            .iter()
            .find(|n| !uuid.is_empty() && n.header.uuid.starts_with(&uuid))
            .or(if neffs.len() == 1 { neffs.first() } else { None });
        // a NEFF that is not the one the NTFF was captured from: a trace warning too (the
        // correlation report has the same note), so the timeline's banner and `summary` show it
        let mut neff_mismatch = false;
        if let Some(n) = neff {
            if let Some(m) = correlate::uuid_mismatch(&t, n) {
                neff_mismatch = true;
                b.warn(NEFF_UUID_MISMATCH, || format!("'{}': {m}", f.name));
            }
        } else if !neffs.is_empty() {
            let loaded: Vec<&str> = neffs.iter().map(|n| n.header.uuid.as_str()).collect();
            b.warn(NEFF_UUID_MISMATCH, || {
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
        add_ntff(&t, Attributed { neff, neff_mismatch, export, incomplete }, f.name, b);
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

fn add_ntff(t: &ntff::Ntff, from: Attributed<'_>, file_name: &str, b: &mut TraceBuilder) {
    let Attributed { neff, neff_mismatch, mut export, incomplete } = from;
    for w in &t.warnings {
        // a cut file's descriptors point past its end: said once, plainly, as `ntff_truncated`
        let cut = matches!(w.kind, ntff::WarningKind::BlockOutOfRange | ntff::WarningKind::BlockMisaligned);
        if incomplete.is_some() && cut {
            continue;
        }
        let ex = w.example.clone();
        b.warnings.add_n(&format!("ntff_{:?}", w.kind).to_lowercase(), w.count, || ex);
    }
    let m = &t.metadata;
    b.add_metadata("ntff.file", file_name.to_string());
    b.add_metadata("ntff.version", t.header.version.to_string());
    b.add_metadata("ntff.neff_path", m.neff_path.clone());
    b.add_metadata(
        "ntff.neff_uuid",
        format!("{}{}", m.uuid_hex(), if m.uuid_truncated { " (truncated)" } else { "" }),
    );
    b.add_metadata("ntff.instance_type", m.instance_type.clone());
    for (k, v) in [
        ("runtime_version", &m.runtime_version),
        ("driver_version", &m.driver_version),
        ("collectives_version", &m.collectives_version),
    ] {
        if let Some(v) = v {
            b.add_metadata(format!("ntff.{k}"), v.text.clone());
        }
    }
    b.add_metadata("ntff.subgraph", m.subgraph_name.clone());
    b.add_metadata("ntff.execution_time_ns", (m.execution_time_ps / 1000).to_string());
    b.add_metadata("ntff.profile_start_ps", t.profile.t0_ps.to_string());
    for mu in &m.memory_usage {
        b.add_metadata(format!("ntff.memory.{}", mu.category), mu.size_bytes.to_string());
    }

    let (corr, mut report) = correlate::correlate(t, neff);
    if neff.is_none() {
        report.notes.push(
            "NTFF alone: opcode names from the instruction words; operators and source lines need the NEFF"
                .into(),
        );
    }
    let name = if m.neff_path.is_empty() {
        "NeuronCore 0".to_string()
    } else {
        format!("NeuronCore 0 — {}", m.neff_path.rsplit('/').next().unwrap_or(""))
    };
    let mut devices = Devices::new(name, false);
    let dev = devices.get(b, 0);
    let instance_type = (!m.instance_type.is_empty()).then(|| b.intern(&m.instance_type));
    let [runtime_version, driver_version, collectives_version] =
        [&m.runtime_version, &m.driver_version, &m.collectives_version]
            .map(|v| v.as_ref().map(|v| b.intern(&v.text)));
    let mut info = DeviceInfo {
        execution_time_ps: (m.execution_time_ps > 0).then_some(m.execution_time_ps),
        instance_type,
        event_count: Some(t.profile.event_count),
        dma_queue_count: Some(m.dma_queues.len() as u64),
        attribution: Attribution::Unstated,
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
        // with the NEFF the blocks would come from it; the NTFF importer has no transfer
        // rows either way today, so the packet rule serves both
        dma_blocks: t
            .static_dma_blocks()
            .into_iter()
            .map(|(_, start_ps, end_ps, bytes)| DmaBlock {
                queue_type: DmaQueueType::Data,
                start_ps,
                end_ps,
                bytes,
            })
            .collect(),
        traffic: t.instruction_traffic(),
    };
    b.set_group_device(dev.group, info.clone());
    // the Tensor engine's FLOPs per instruction, for the HFU counter (`add_device_counters`)
    if let Some(f) = t.instruction_flops() {
        b.set_device_flops(dev.group, f);
    }
    // the export's rows by their key: the instruction stream of each NTFF engine index
    let streams: [Option<Engine>; 256] =
        std::array::from_fn(|e| Engine::from_alias(ntff::engine_subgroup(e as u8)));
    // joined rows: the export's id → the slice (for its `predecessors`), and the flows to add
    let mut by_id: FxHashMap<i64, SliceHandle> = FxHashMap::default();
    let mut preds: Vec<(SliceHandle, i64, StrId)> = Vec::new();
    let (mut joined, mut from_neff) = (0u64, 0u64);
    // engines in the usual order, even when idle, each with room for its instructions
    // (first-seen order: an engine outside the usual six gets its track where it used to)
    // A label depends on the engine and, for engine 0, on whether the opcode is MATMUL: counted
    // per (engine, matmul) in one pass (no string compare per instruction), then per label in
    // the order the pairs were first seen. `per_engine_id`: instructions per engine id, for the
    // activity counters below.
    let mut per_key = [0usize; 512];
    let mut key_order: Vec<(usize, &str)> = Vec::new();
    for ins in &t.instructions {
        let k = usize::from(ins.engine) * 2 + usize::from(ins.is_tensor_matrix());
        if per_key[k] == 0 {
            key_order.push((k, ins.label()));
        }
        per_key[k] += 1;
    }
    let mut per_engine: Vec<(&str, usize)> = Vec::new();
    for &(k, label) in &key_order {
        match per_engine.iter_mut().find(|e| e.0 == label) {
            Some(e) => e.1 += per_key[k],
            None => per_engine.push((label, per_key[k])),
        }
    }
    let mut per_engine_id = [0usize; 256];
    for &(k, _) in &key_order {
        per_engine_id[k / 2] += per_key[k];
    }
    for e in ["Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"] {
        dev.engine(b, e);
    }
    for (label, n) in per_engine {
        let track = dev.engine(b, label);
        b.reserve_slices(track, n, true);
    }
    // per instruction event its own wait and CRCs; per DMA packet its size, index and CRC
    b.reserve_arg_rows(5 * t.instructions.len() + 4 * t.dma_packets.len());
    // Every execution of one instruction (engine, runtime pc, compiler pc, opcode) shares its
    // track, names, operator, typed domain and arguments: they are built once per instruction
    // ([`InstrTemplate`]); each event's argument set is a row of its own values (wait, CRCs)
    // over the instruction's (a row set: 4 bytes a value).
    let mut templates: FxHashMap<(u8, u32, Option<u32>, u8), InstrTemplate> = FxHashMap::default();
    for (i, ins) in t.instructions.iter().enumerate() {
        // the execution's own row of the capture's export, when there is one: its attribution,
        // exactly as the export alone gives it, on the NTFF's picosecond times
        let row = match (export.as_deref_mut(), streams[usize::from(ins.engine)]) {
            (Some(x), Some(e)) => x.take((e, i64::from(ins.pc), ins.start_ns(), ins.dur_ns())),
            _ => None,
        };
        if let Some(r) = row {
            joined += 1;
            let track = dev.engine(b, ins.label());
            let name = b.intern(ins.opcode());
            let (args, mut d) = neuron_json::instruction_attribution(b, r, name);
            let cat = ["framework_name", "layer", "hlo_name"]
                .iter()
                .find_map(|k| r.get(*k).and_then(|v| v.as_str()).filter(|v| !v.trim().is_empty()))
                .map_or(StrId::EMPTY, |c| b.intern(c));
            let h = b.add_slice(track, ins.start_ns(), ins.dur_ns(), name, cat, args);
            (d.start_sub_ps, d.dur_sub_ps) = sub_ps(ins.start_ps, ins.end_ps);
            b.set_slice_domain(h, d);
            if let Some(id) = r.get("id").and_then(neuron_json::int_of) {
                by_id.insert(id, h);
            }
            for p in r.get("predecessors").and_then(|v| v.as_array()).into_iter().flatten() {
                if let Some(pid) = p.get("id").and_then(neuron_json::int_of) {
                    let kind = p.get("type").and_then(|v| v.as_str()).unwrap_or("dependency");
                    preds.push((h, pid, b.intern(kind)));
                }
            }
            continue;
        }
        if corr.get(i).is_some() {
            from_neff += 1;
        }
        let key = (ins.engine, ins.pc, ins.compiler_pc, ins.opcode_byte);
        let tpl = match templates.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let l = corr.get(i);
                e.insert(InstrTemplate::new(ins, l, dev, b))
            }
        };
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
    }
    drop(corr);
    drop(templates);
    let dep = b.intern("dependency");
    let mut unresolved = 0u64;
    for (h, pid, kind) in preds {
        match by_id.get(&pid) {
            Some(&from) => b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(h), kind, dep),
            None => unresolved += 1,
        }
    }
    if unresolved > 0 {
        b.warnings.add_n("neuron_flow_unresolved", unresolved, || {
            "a predecessor instruction of the export is not on the NTFF's timeline; flow dropped".into()
        });
    }
    // the attribution's source, as a typed flag: the export's where it joined, else the NEFF's
    // (unverified when its UUID differs)
    let attribution = if neff_mismatch && from_neff > 0 {
        Attribution::NeffMismatch
    } else if joined > 0 {
        Attribution::Export
    } else if from_neff > 0 {
        Attribution::Neff
    } else {
        Attribution::Unstated
    };
    info.attribution = attribution;
    b.set_group_device(dev.group, info);
    if let Some(x) = export.as_deref() {
        let n = t.instructions.len() as u64;
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
            b.warn(neuron_json::EXPORT_JOIN_INCOMPLETE, || format!("'{file_name}': {note}"));
        }
        report.notes.push(note);
    }
    // DMA packets, one track per (engine, queue): the track, name and the queue's arguments
    // (engine, queue, queue type) once per queue; each packet's set is based on its queue's
    let dma_cat = b.intern("dma");
    let own_keys = ["transfer_size", "packet_idx", "crc"].map(|k| b.intern(k));
    // per queue: track, name, the packets' base set and its row form
    type Queue = (TrackId, StrId, crate::model::ArgsId, Option<u32>);
    let mut queues: FxHashMap<(u8, u8), Queue> = FxHashMap::default();
    for p in &t.dma_packets {
        let (track, name, base, form) = *queues.entry((p.dma_engine, p.queue)).or_insert_with(|| {
            let label = t.dma_queue_label(p.dma_engine, p.queue);
            let kind = t.dma_queue_kind(p.dma_engine, p.queue);
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
            (track, b.intern(&label), base, form)
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
        let h = b.add_slice(track, p.start_ns, p.dur_ns, name, dma_cat, args);
        let (start_sub_ps, dur_sub_ps) = sub_ps(p.start_ps, p.end_ps);
        b.set_slice_domain(
            h,
            SliceDomain { bytes: p.size_bytes as u64, start_sub_ps, dur_sub_ps, ..SliceDomain::default() },
        );
    }
    // semaphores: one counter per id, in id order
    let mut ids: Vec<u8> = t.semaphore_updates.iter().map(|s| s.semaphore).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let name = semaphore_display(&id.to_string()).0;
        let c = dev.counter(b, &name, "", CounterRole::Semaphore);
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
    // counters: engine activity, DMA throughput, pending DMA (DMA_DIRECT2D triggers only without NEFF)
    // one engine's spans at a time (all of them at once were 16 bytes per instruction more at
    // the import's peak)
    for e in (0..=u8::MAX).filter(|&e| per_engine_id[usize::from(e)] > 0) {
        let mut spans: Vec<(i64, i64)> = Vec::with_capacity(per_engine_id[usize::from(e)]);
        spans.extend(
            t.instructions
                .iter()
                .filter(|i| i.engine == e)
                .map(|i| (i.start_ns(), i.start_ns() + i.dur_ns())),
        );
        let c =
            dev.counter(b, &format!("{} active", ntff::engine_subgroup(e)), "", CounterRole::EngineActivity);
        add_activity(b, c, spans);
    }
    let thr = t.dma_throughput();
    if !thr.is_empty() {
        let c = dev.counter(b, "DMA throughput", "GB/s", CounterRole::DmaThroughput);
        for p in &thr {
            b.add_counter_sample(c, p.ts_ns, p.rate_bytes_per_s / 1e9);
        }
    }
    let pending = t.pending_dma(|_| false, &[]);
    if !pending.is_empty() {
        let c = dev.counter(b, "Pending DMA (DGE)", "", CounterRole::PendingDma);
        for p in &pending {
            b.add_counter_sample(c, p.ts_ns, p.value as f64);
        }
    }
    b.correlation = Some(report);
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
}

impl InstrTemplate {
    const PER_EVENT: [&'static str; 4] = ["evt_wait_time_ns", "wait_cycles", "crc_in", "crc_out"];

    fn new(
        ins: &ntff::Instruction,
        l: Option<&Lineage>,
        dev: &mut crate::import::neuron_device::Device,
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
        let domain = instruction_domain(b, name, &names, ins.compiler_pc.map(u64::from), src);
        debug_assert_eq!(domain.bytes, u64::MAX);
        let domain = b.domain_shape(track, &domain);
        let form = b.add_args_form(args, &per_event);
        InstrTemplate { track, name, operator, domain, args, per_event, form }
    }
}

/// Picoseconds past the floored ns of a start and of a duration (`start_ns = floor(start_ps/1000)`,
/// `dur_ns = floor((end_ps - start_ps)/1000)`), for [`SliceDomain::start_sub_ps`] / `dur_sub_ps`.
fn sub_ps(start_ps: i64, end_ps: i64) -> (u16, u16) {
    (start_ps.rem_euclid(1000) as u16, end_ps.saturating_sub(start_ps).max(0).rem_euclid(1000) as u16)
}
