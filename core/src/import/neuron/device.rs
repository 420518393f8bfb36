//! Shared model layout of a Neuron device profile, used by the legacy JSON export importer
//! ([`super::json`]) and the Neuron Explorer Parquet importer ([`super::parquet`]),
//! so both formats produce the same tracks and counters:
//!
//! - one Device group per NeuronCore (per physical core inside an LNC when there are several);
//! - one Stream track per compute-engine timeline (Tensor, TensorMatrix, Vector, Scalar, GpSimd,
//!   Sync, in that order), laid out in lanes: pipelined instructions on one engine overlap;
//! - a Throttle track, then one Dma track per DMA queue (`<queue>-Q<q>-E<engine>`, sorted by
//!   engine and queue) and one per queue for the aggregated transfers;
//! - counters (Pending DMA, DMA/HBM throughput, SBUF/PSUM usage, engine activity, semaphores).
//!
//! Facts: docs/formats/neuron.md §3.3, §3.7, §5.

use crate::model::WarningKind;
use crate::model::{
    ArgValue, ArgsId, CounterId, CounterRole, Engine, GroupId, GroupKind, Layout, TraceBuilder, TrackId,
    TrackKind, TrackRole,
};
use crate::model::{OpId, OpLevel, SliceDomain, SourceId};
use crate::strings::StrId;
use std::collections::HashMap;

/// Canonical display name and sort rank of a compute-engine timeline label (the one
/// [`Engine`] enum knows the aliases of §5.1: PE, ACT, DVE, POOL, SP); unknown labels sort last.
pub(crate) fn engine_display(label: &str) -> (String, i64) {
    match Engine::from_timeline_label(label) {
        Some(e) => (e.name().to_string(), e.rank()),
        None => (
            if label.trim().is_empty() { "unknown engine".to_string() } else { label.trim().to_string() },
            Engine::ALL.len() as i64,
        ),
    }
}

/// Parse the DMA queue label `qSyncSpillReload0-Q1-E64` (or `Q0-E3`) into (queue, engine).
pub(crate) fn parse_queue_label(label: &str) -> (Option<i64>, Option<i64>) {
    let mut q = None;
    let mut e = None;
    for part in label.rsplit('-').take(2) {
        if let Some(n) = part.strip_prefix('E').and_then(|s| s.parse().ok()) {
            e = Some(n);
        } else if let Some(n) = part.strip_prefix('Q').and_then(|s| s.parse().ok()) {
            q = Some(n);
        }
    }
    (q, e)
}

/// Display name of a semaphore id: `S[8] (qSyncSpillReload0)` stays, a bare number `2` becomes
/// `Sem 2` (the legacy UI's name). Also returns a sort key (semaphore number, then text).
pub(crate) fn semaphore_display(id: &str) -> (String, (i64, String)) {
    let id = id.trim();
    let num = if let Some(rest) = id.strip_prefix("S[") {
        rest.split(']').next().and_then(|n| n.parse::<i64>().ok())
    } else {
        id.parse::<i64>().ok()
    };
    let name =
        if id.starts_with("S[") || id.parse::<i64>().is_err() { id.to_string() } else { format!("Sem {id}") };
    (name, (num.unwrap_or(i64::MAX), id.to_string()))
}

const SORT_THROTTLE: i64 = 50;
const SORT_DMA: i64 = 1_000;
const SORT_OTHER: i64 = 100;

/// The tracks and counters of one NeuronCore (or physical core), created on first use.
pub(crate) struct Device {
    pub group: GroupId,
    tracks: HashMap<String, TrackId>,
    counters: HashMap<String, CounterId>,
}

impl Device {
    pub fn new(b: &mut TraceBuilder, name: &str) -> Self {
        let group = b.add_group(name, GroupKind::Device);
        Device { group, tracks: HashMap::new(), counters: HashMap::new() }
    }

    fn track(
        &mut self,
        b: &mut TraceBuilder,
        key: String,
        name: &str,
        kind: TrackKind,
        sort: i64,
        source: &str,
    ) -> TrackId {
        if let Some(&t) = self.tracks.get(&key) {
            return t;
        }
        let t = b.add_track(self.group, name, kind, source);
        b.set_track_sort(t, sort);
        b.set_track_layout(t, Layout::Lanes);
        self.tracks.insert(key, t);
        t
    }

    /// The Stream track of a compute-engine timeline label ("Tensor", "TensorMatrix", "gpsimd"…).
    pub fn engine(&mut self, b: &mut TraceBuilder, label: &str) -> TrackId {
        let (name, rank) = engine_display(label);
        let t = self.track(b, format!("engine:{name}"), &name, TrackKind::Stream, rank, label);
        if let Some(e) = Engine::from_timeline_label(label) {
            b.set_track_role(t, TrackRole::Engine(e));
        }
        t
    }

    /// The Dma track of one DMA queue (packets). `label` is the export's queue label
    /// (`qSyncSpillReload0-Q1-E0`); engine and queue numbers order the tracks.
    pub fn dma_queue(
        &mut self,
        b: &mut TraceBuilder,
        label: &str,
        engine: Option<i64>,
        queue: Option<i64>,
    ) -> TrackId {
        let (q2, e2) = parse_queue_label(label);
        let (e, q) = (engine.or(e2), queue.or(q2));
        let sort = SORT_DMA + e.unwrap_or(999).clamp(0, 999) * 1_000 + q.unwrap_or(999).clamp(0, 999);
        let source = match (e, q) {
            (Some(e), Some(q)) => format!("DMA engine {e}, queue {q}"),
            (Some(e), None) => format!("DMA engine {e}"),
            _ => label.to_string(),
        };
        let t = self.track(b, format!("dma:{label}"), label, TrackKind::Dma, sort, &source);
        b.set_track_role(t, TrackRole::DmaQueue);
        t
    }

    /// The Dma track of the aggregated transfers (DMA blocks) of one queue name.
    pub fn dma_transfers(&mut self, b: &mut TraceBuilder, queue_name: &str) -> TrackId {
        let name = format!("{queue_name} transfers");
        let t = self.track(b, format!("dmat:{queue_name}"), &name, TrackKind::Dma, SORT_DMA - 1, queue_name);
        b.set_track_role(t, TrackRole::DmaTransfers);
        t
    }

    /// The Throttle track (throttling periods as slices).
    pub fn throttle(&mut self, b: &mut TraceBuilder) -> TrackId {
        let t = self.track(b, "throttle".into(), "Throttle", TrackKind::Stream, SORT_THROTTLE, "throttle");
        b.set_track_role(t, TrackRole::Throttle);
        t
    }

    /// Any other timeline track (CC cores, core barriers, errors), after the engines.
    pub fn other(&mut self, b: &mut TraceBuilder, name: &str, kind: TrackKind) -> TrackId {
        self.track(b, format!("other:{name}"), name, kind, SORT_OTHER, name)
    }

    /// The counter of semaphore `id` as the source writes it (`12`, `S[12]`, …): named for
    /// display by [`semaphore_display`], numbered when the id holds a number.
    pub fn semaphore(&mut self, b: &mut TraceBuilder, id: &str) -> CounterId {
        let (name, (number, _)) = semaphore_display(id);
        let c = self.counter(b, &name, "", CounterRole::Semaphore);
        if number != i64::MAX {
            b.set_counter_number(c, number);
        }
        c
    }

    pub fn counter(&mut self, b: &mut TraceBuilder, name: &str, unit: &str, role: CounterRole) -> CounterId {
        if let Some(&c) = self.counters.get(name) {
            return c;
        }
        let c = b.add_counter(self.group, name, unit);
        b.set_counter_role(c, role);
        self.counters.insert(name.to_string(), c);
        c
    }
}

/// Devices keyed by physical-core index, created on demand with a name from `name_of`.
pub(crate) struct Devices {
    list: Vec<(i64, Device)>,
    /// pcore → index in `list`.
    index: HashMap<i64, usize>,
    base_name: String,
    /// Whether every group name carries its pcore (an LNC of several physical cores).
    pub multi_core: bool,
}

impl Devices {
    pub fn new(base_name: String, multi_core: bool) -> Self {
        Devices { list: Vec::new(), index: HashMap::new(), base_name, multi_core }
    }
    /// The "other" tracks named `name` ([`Device::other`]) of the devices created so far.
    pub fn others_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = TrackId> + 'a {
        self.list.iter().filter_map(move |(_, d)| d.tracks.get(&format!("other:{name}")).copied())
    }
    /// The groups created so far.
    pub fn groups(&self) -> impl Iterator<Item = GroupId> + '_ {
        self.list.iter().map(|(_, d)| d.group)
    }
    pub fn get(&mut self, b: &mut TraceBuilder, pcore: i64) -> &mut Device {
        let i = match self.index.get(&pcore) {
            Some(&i) => i,
            None => {
                let name = if self.multi_core || pcore != 0 {
                    format!("{} pcore {pcore}", self.base_name)
                } else {
                    self.base_name.clone()
                };
                let d = Device::new(b, &name);
                self.list.push((pcore, d));
                self.index.insert(pcore, self.list.len() - 1);
                self.list.len() - 1
            }
        };
        &mut self.list[i].1
    }
}

/// Preferred order of instruction arguments (the rest follow alphabetically).
pub(crate) const INSTRUCTION_ARG_ORDER: &[&str] = &[
    "operands",
    "pc",
    "compiler_pc",
    "compiler_opcode",
    "compiler_operands",
    "framework_name",
    "hlo_name",
    "layer",
    "penguin_name",
    "bir_name",
    "bir_instruction_name",
    "penguin_id",
    "bir_id",
    "evt_wait_time",
    "evt_wait_time_ns",
    "crc_in",
    "crc_out",
    "instruction_type",
    "tensor_instruction_type",
    "activation_fn",
    "scalar_activation_fn",
    "engine",
    "subgroup",
    "id",
];

/// Preferred order of DMA packet arguments.
pub(crate) const DMA_ARG_ORDER: &[&str] = &[
    "variable",
    "transfer_size",
    "transfer_bytes",
    "read_size",
    "read_bytes",
    "write_size",
    "write_bytes",
    "packet_idx",
    "transfer_rate",
    "throughput",
    "queue_type",
    "op",
    "source",
    "dest",
    "semaphore_id",
    "block_id",
    "packet_aggregation_id",
    "dma_engine",
    "engine_idx",
    "dma_queue",
    "queue_idx",
    "queue_name",
    "crc",
    "id",
];

/// Sort key of an argument name under a preferred order.
pub(crate) fn arg_rank(order: &[&str], key: &str) -> usize {
    order.iter().position(|k| *k == key).unwrap_or(order.len())
}

/// Sort collected (key, value) args by the preferred order, then by name, and store them.
pub(crate) fn store_args(
    b: &mut TraceBuilder,
    order: &[&str],
    args: Vec<(String, ArgValue)>,
) -> crate::model::ArgsId {
    let entries = sorted_args(b, order, args);
    b.add_args(entries)
}

/// [`store_args`]'s entries without storing them: interned, in the preferred order. For
/// importers that build one template per instruction and fill its per-event values.
pub(crate) fn sorted_args(
    b: &mut TraceBuilder,
    order: &[&str],
    mut args: Vec<(String, ArgValue)>,
) -> Vec<(StrId, ArgValue)> {
    args.sort_by(|a, c| (arg_rank(order, &a.0), &a.0).cmp(&(arg_rank(order, &c.0), &c.0)));
    args.into_iter().map(|(k, v)| (b.intern(&k), v)).collect()
}

/// The operator lineage of one instruction, as names (empty = absent), outermost first:
/// layer → framework operator → HLO → penguin → BIR.
#[derive(Default)]
pub(crate) struct InstrNames<'a> {
    pub layer: &'a str,
    pub framework: &'a str,
    pub hlo: &'a str,
    pub penguin: &'a str,
    pub bir: &'a str,
}

/// Typed domain of an instruction: opcode, the operator chain interned as a path in the
/// operator tree, program slot and source location.
pub(crate) fn instruction_domain(
    b: &mut TraceBuilder,
    opcode: StrId,
    names: &InstrNames<'_>,
    slot: Option<u64>,
    source: Option<(&str, u64)>,
) -> SliceDomain {
    let mut op = OpId::NONE;
    for (level, name) in [
        (OpLevel::Layer, names.layer),
        (OpLevel::Framework, names.framework),
        (OpLevel::Hlo, names.hlo),
        (OpLevel::Penguin, names.penguin),
        (OpLevel::Bir, names.bir),
    ] {
        let name = name.trim();
        if !name.is_empty() {
            op = b.add_operator(op, level, name);
        }
    }
    SliceDomain {
        opcode,
        operator: op,
        instruction: slot.and_then(|s| u32::try_from(s).ok()).unwrap_or(u32::MAX),
        source: source
            .filter(|(f, _)| !f.is_empty())
            .map_or(SourceId::NONE, |(f, l)| b.add_source(f, u32::try_from(l).unwrap_or(0))),
        ..SliceDomain::default()
    }
}

/// Typed domain of a record from its stored arguments, by the export's own field names
/// (JSON export and Parquet share them): `layer`, `framework_name`, `hlo_name`, `penguin_name`,
/// `bir_name`/`bir_instruction_name`, `compiler_pc`, `pc`, `source_file`+`source_line`; DMA bytes from
/// `transfer_size`/`transfer_bytes`/`size`; matrix FLOPs from `raw_flops` (Parquet) or
/// `2 * elements` (JSON export: `elements` = rows × columns × moving elements of a MATMUL, each
/// multiply-add 2 FLOPs; matches the export's `hardware_flops` on all 92 shared captures), and
/// `instruction_type`/`tensor_instruction_type` `TRANSPOSE`.
pub(crate) fn domain_from_args(b: &mut TraceBuilder, opcode: StrId, args: ArgsId, dma: bool) -> SliceDomain {
    let entries = b.args_of(args);
    let mut text: [String; 7] = Default::default();
    let mut slot = None;
    let mut pc = None;
    let mut line = None;
    let mut bytes = None;
    let (mut raw_flops, mut elements, mut transpose) = (None, None, false);
    for (k, v) in entries {
        let key = b.string(k);
        let as_u64 = match v {
            ArgValue::Int(i) => u64::try_from(i).ok(),
            ArgValue::UInt(u) => Some(u),
            ArgValue::Float(f) if f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64 => Some(f as u64),
            ArgValue::Str(s) => b.string(s).trim().parse().ok(),
            _ => None,
        };
        let slot_of = |key: &str| match key {
            "layer" => Some(0),
            "framework_name" => Some(1),
            "hlo_name" => Some(2),
            "penguin_name" => Some(3),
            "bir_name" => Some(4),
            "bir_instruction_name" => Some(5),
            "source_file" => Some(6),
            _ => None,
        };
        if let (Some(i), ArgValue::Str(s)) = (slot_of(key), v) {
            text[i] = b.string(s).to_string();
            continue;
        }
        match key {
            "compiler_pc" => slot = as_u64,
            "pc" if !dma => pc = as_u64,
            "source_line" => line = as_u64,
            "transfer_size" | "transfer_bytes" | "size" if dma => bytes = bytes.or(as_u64),
            "raw_flops" if !dma => raw_flops = as_u64,
            "elements" if !dma => elements = as_u64,
            "instruction_type" | "tensor_instruction_type" if !dma => {
                if let ArgValue::Str(s) = v {
                    transpose |= b.string(s).trim().eq_ignore_ascii_case("TRANSPOSE");
                }
            }
            _ => {}
        }
    }
    let bir = if text[4].is_empty() { text[5].as_str() } else { text[4].as_str() };
    let names = InstrNames { layer: &text[0], framework: &text[1], hlo: &text[2], penguin: &text[3], bir };
    let mut d = if dma {
        SliceDomain::default()
    } else {
        let src = (!text[6].is_empty()).then(|| (text[6].as_str(), line.unwrap_or(0)));
        let mut d = instruction_domain(b, opcode, &names, slot, src);
        d.pc = pc.and_then(|p| u32::try_from(p).ok()).unwrap_or(u32::MAX);
        d
    };
    if let Some(n) = bytes {
        d.bytes = n;
    }
    if let Some(f) = raw_flops.or(elements.map(|e| e.saturating_mul(2))) {
        d.flops = f;
        d.transpose = transpose;
    }
    d
}

/// Activity intervals collected per key (engine, core…) before they become step counters.
pub(crate) type SpansBy<K> = Vec<(K, Vec<(i64, i64)>)>;

/// An engine-activity counter: 1 while any of `spans` runs, else 0 — one step up and one down
/// per block of their union ([`crate::spans::union_of_sorted`]), so the samples are in time order
/// and a short instruction inside a long one does not end the activity early.
pub(crate) fn add_activity(b: &mut TraceBuilder, c: CounterId, spans: Vec<(i64, i64)>) {
    // sorted in place, then the union counted and written as it goes: no second vector of an
    // engine's millions of spans (unstable: equal spans are equal values)
    let mut spans: Vec<(i64, i64)> = spans.into_iter().map(|(s, e)| (s, e.max(s))).collect();
    spans.sort_unstable();
    let n = crate::spans::union_of_sorted(&spans).count();
    b.reserve_counter_samples(c, 2 * n);
    for (s, e) in crate::spans::union_of_sorted(&spans) {
        b.add_counter_sample(c, s, 1.0);
        b.add_counter_sample(c, e, 0.0);
    }
}

/// Cap metadata JSON values so a hostile or huge table cannot flood the metadata panel.
pub(crate) const METADATA_JSON_CAP: usize = 512 * 1024;

pub(crate) fn capped_json(b: &mut TraceBuilder, key: &str, mut text: String) -> String {
    if text.len() > METADATA_JSON_CAP {
        let len = text.len();
        let mut cut = METADATA_JSON_CAP;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("…(truncated)");
        b.warn(WarningKind::NeuronMetadataTruncated, || {
            format!("metadata '{key}' is {len} bytes; kept the first {METADATA_JSON_CAP}")
        });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_is_the_union_of_the_spans() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("d", crate::model::GroupKind::Device);
        let c = b.add_counter(g, "Tensor active", "");
        // a short span inside a long one, two touching spans, one apart, out of order
        add_activity(&mut b, c, vec![(30, 40), (0, 10), (5, 8), (10, 20), (50, 50)]);
        let t = b.finish();
        let k = &t.counters[c.idx()];
        assert_eq!(k.ts_ns, vec![0, 20, 30, 40, 50, 50]);
        assert_eq!(k.value, vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn names() {
        assert_eq!(engine_display("tensor").0, "Tensor");
        assert_eq!(engine_display("TensorMatrix").0, "TensorMatrix");
        assert_eq!(engine_display("POOL").0, "GpSimd");
        assert_eq!(engine_display("weird").1, 6);
        assert_eq!(parse_queue_label("qSyncSpillReload0-Q1-E64"), (Some(1), Some(64)));
        assert_eq!(parse_queue_label("Q0-E3"), (Some(0), Some(3)));
        assert_eq!(parse_queue_label("qSyncSpillReload0"), (None, None));
        assert_eq!(semaphore_display("S[8] (qSyncSpillReload0)").0, "S[8] (qSyncSpillReload0)");
        assert_eq!(semaphore_display("S[8] (x)").1 .0, 8);
        assert_eq!(semaphore_display("2").0, "Sem 2");
        assert_eq!(semaphore_display("2").1 .0, 2);
    }
}
