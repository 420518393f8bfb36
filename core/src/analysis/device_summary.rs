//! The Neuron **device summary**: the metrics of neuron-profile's own `summary` table (JSON export
//! `summary`, Explorer `Summary.parquet`), with its key names, units and meaning, computed by Loupe
//! from the model. It is a pure function over [`Trace`], so the same code serves an NTFF (+NEFF),
//! the JSON export and the Explorer Parquet tables.
//!
//! # Inputs (all typed, nothing is recovered from names or args)
//! - Device groups ([`GroupKind::Device`]) and their [`DeviceInfo`] (runtime-reported execution
//!   time, instance type, notification count, DMA queue count).
//! - Engine tracks ([`TrackRole::Engine`]); a slice on one is one executed instruction, its opcode
//!   in `domain.opcode`. `TensorMatrix` rows count for the Tensor engine (its instruction stream).
//! - DMA packet tracks ([`TrackRole::DmaQueue`]) with their [`DmaQueueType`], bytes in
//!   `domain.bytes`; DMA transfer tracks ([`TrackRole::DmaTransfers`]).
//! - Times: slice start/duration in ns plus the optional sub-ns remainders `domain.start_sub_ps` /
//!   `domain.dur_sub_ps` (the NTFF importer fills them: neuron-profile computes its summary from
//!   picoseconds, and floored ns lose up to 3 % on short engine busy times).
//!
//! # Definitions (checked against the official export's `summary` on the 92 shared captures, see
//! `core/tests/device_summary_oracle.rs`; "verified" = every capture, counts equal and times equal
//! to the picosecond when computed from the NTFF)
//! - `total_time` (s): the execution time the runtime reports (NTFF metadata field `/4/4/1/14`,
//!   in ps; the export's `summary.total_time`). An input, not derived from events. Verified.
//! - `<engine>_engine_instruction_count`: every instruction slice of the engine, including
//!   semaphore waits. Verified.
//! - `<engine>_engine_instruction_time` (s): sum of instruction durations **excluding
//!   `EVENT_SEMAPHORE`** (the tool's text says "all instructions … overlapping ones added
//!   together"; the numbers only match when the semaphore-wait instruction is left out). Verified.
//! - `<engine>_engine_active_time` (s): length of the union of the same intervals (merged when
//!   `start <= current end`). `..._active_time_percent`: active time / `total_time`, **as a
//!   fraction** (the key says percent, the values are 0..1, like neuron-profile's). Verified.
//! - `activate_instruction_count` / `_time`: opcodes `ACTIVATE` and `ACTIVATE_QUANTIZE` (time = sum
//!   of durations). `matmul_instruction_count`: opcode `MATMUL`. Verified.
//! - `dma_packet_time` (s): sum of DMA packet durations; `dma_active_time`: union of packet
//!   intervals; `dma_active_time_percent` = that / `total_time`. Verified.
//! - Static vs dynamic, by the packet's queue type: static = `instruction`, `input`, `output`,
//!   `data` (compiler-generated); `software_dynamic`; `hardware_dynamic`; dynamic = both dynamic
//!   kinds. `*_packet_count`, `*_size` (bytes), `*_packet_percent` (of all packets), `*_size_percent`
//!   (of all packet bytes), `*_active_time` (union), and `*_active_time_percent` **relative to
//!   `dma_active_time`**, not to `total_time` (that is what the export holds). Verified for static
//!   and software_dynamic; hardware_dynamic never occurs in the corpus (it is 0 there, as here).
//! - `dma_transfer_count`, `dma_transfer_total_bytes`, `dma_transfer_time` (sum of durations) over
//!   the DMA transfers (aggregated blocks); `dma_transfer_average_bytes` = total bytes / count (the
//!   tool's text says "bytes of all packets / transfers", its numbers are transfer bytes /
//!   transfers). `input_queue_bytes`, `output_queue_bytes`, `weight_queue_bytes`: transfer bytes on
//!   `input`, `output`, `data` queues. Transfers need the NEFF's block information: present for the
//!   JSON export and Parquet, absent for an NTFF alone, and then these keys are omitted.
//! - `total_active_time`: union of all engine busy intervals (as above) and DMA packets;
//!   `total_active_time_percent` = that / `total_time`. Verified.
//! - `neuroncore_cycle_count` = floor(`total_time` × NeuronCore base clock), `dma_active_cycles` =
//!   floor(`dma_active_time` × clock); the clock from the instance type, as documented by the tool
//!   (Inferentia1 1.0 GHz, Trainium1/Inferentia2 1.4 GHz, Trainium2 1.2 GHz); omitted for other
//!   instance types. `dma_active_cycles` matches floor on all 92 captures; the export's
//!   `neuroncore_cycle_count` is 1 higher than floor on 2 of 92 (fractions .91 and .98, while .67
//!   floors): its rounding is unknown, the relative error is 4e-7.
//! - `event_count`: notifications in the NTFF (every semaphore/event record, also those before the
//!   profile window), as decoded; `dma_queue_count`: DMA queues the metadata names.
//!   `trace_count` = instructions + DMA rows (packets and transfers) + `event_count`, only when
//!   transfers are known (the export counts its aggregated rows too).
//!
//! - `hardware_flops`: sum of the Tensor-engine instructions' FLOPs (`domain.flops`: Parquet
//!   `raw_flops`, JSON export `2 × elements`); `transpose_flops`: those marked `transpose`.
//!   `hfu_estimated_percent` = `hardware_flops / (peak × total_time)`, `mfu_inst_estimated_percent`
//!   = `(hardware_flops − transpose_flops) / (peak × total_time)`, peak = 2 × PE rows × columns ×
//!   PE clock ([`tensor_engine_peak_flops`]), as fractions. Verified on the JSON exports (all 92).
//!   Only when the input states FLOPs: an NTFF alone does not (the operands need the NEFF).
//!
//! Not computed (omitted, never faked): `model_flops` and `mfu_estimated_percent` (HLO MAC counts),
//! `mfu_*_max_achievable`, MBU, `mm_arithmetic_intensity` (HBM bytes), HBM/SBUF/PSUM bytes, spill
//! bytes, tensor sizes (NEFF tensor tables), CC metrics, throttling.
//!
//! Precision by input: an NTFF gives picosecond times (every key above equals the export on all
//! 92 captures). The JSON export and Parquet hold times floored to ns, so their time keys come out
//! low by up to ~1 ns per instruction / packet (0.3-3 % on the short corpus profiles; counts,
//! bytes and FLOPs are exact); their `total_time`, `event_count` and `dma_queue_count` are read
//! from the export's own summary / model_info tables (it has them nowhere else).
//!
//! Several device groups (the physical cores of one LNC) are summed together; `total_time` is the
//! largest reported execution time among them. Several unrelated profiles loaded together are
//! summed too (no typed notion of "profile" yet).

use super::busy::union;
use crate::model::{DeviceInfo, DmaQueueType, Engine, GroupKind, SliceColumns, Trace, TrackRole};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Unit of a metric, as neuron-profile's Summary schema states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A plain count.
    Count,
    Seconds,
    Bytes,
    Cycles,
    /// Floating-point operations (a multiply-add counts 2).
    Flops,
    /// A `*_percent` key: neuron-profile stores a fraction 0..1 under these names.
    Fraction,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::Count => "",
            Unit::Seconds => "s",
            Unit::Bytes => "B",
            Unit::Cycles => "cycles",
            Unit::Flops => "FLOP",
            Unit::Fraction => "fraction",
        }
    }
}

/// A metric value: an exact count or a real number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Count(u64),
    Number(f64),
}

impl Value {
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Count(n) => n as f64,
            Value::Number(x) => x,
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Count(n) => s.serialize_u64(n),
            Value::Number(x) if x.is_finite() => s.serialize_f64(x),
            Value::Number(_) => s.serialize_none(),
        }
    }
}

/// One row of the summary: neuron-profile's key, the value, its unit and its `summary_groups`
/// group (`overall_stats`, `data_movement`, `software_data_movement`, `hardware_data_movement`,
/// `tensor_engine`, `vector_engine`, `scalar_engine`, `sync_engine`, `gpsimd_engine`, `summary`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Metric {
    pub key: &'static str,
    pub value: Value,
    pub unit: Unit,
    pub group: &'static str,
}

/// The device summary: the metrics Loupe computes, in neuron-profile's group order. Serialises to
/// one object `{key: value}` with neuron-profile's key names and units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceSummary {
    pub metrics: Vec<Metric>,
}

impl DeviceSummary {
    /// The value of `key`, if computed.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.metrics.iter().find(|m| m.key == key).map(|m| m.value)
    }
    /// Rows for a table view: (key, value, unit, group).
    pub fn rows(&self) -> &[Metric] {
        &self.metrics
    }
    fn push(&mut self, key: &'static str, value: Value, unit: Unit, group: &'static str) {
        self.metrics.push(Metric { key, value, unit, group });
    }
    fn count(&mut self, key: &'static str, n: u64, group: &'static str) {
        self.push(key, Value::Count(n), Unit::Count, group);
    }
    fn secs(&mut self, key: &'static str, ps: i128, group: &'static str) {
        self.push(key, Value::Number(ps as f64 * 1e-12), Unit::Seconds, group);
    }
    fn bytes(&mut self, key: &'static str, n: u64, group: &'static str) {
        self.push(key, Value::Count(n), Unit::Bytes, group);
    }
    fn frac(&mut self, key: &'static str, num: f64, den: f64, group: &'static str) {
        let v = if den > 0.0 { num / den } else { 0.0 };
        self.push(key, Value::Number(v), Unit::Fraction, group);
    }
}

impl Serialize for DeviceSummary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.metrics.len()))?;
        for x in &self.metrics {
            m.serialize_entry(x.key, &x.value)?;
        }
        m.end()
    }
}

/// Intervals in picoseconds relative to the trace start.
type Spans = Vec<(i64, i64)>;

/// Total length of disjoint blocks.
fn total(blocks: &Spans) -> i128 {
    blocks.iter().map(|&(s, e)| (e - s) as i128).sum()
}

/// Exact [start, end) of slice `i` in ps relative to `origin_ns`, using the sub-ns remainders
/// when the importer has them.
fn span_ps(c: &SliceColumns, i: usize, origin_ns: i64) -> (i64, i64) {
    let d = c.domain_of(i);
    let s =
        c.start_ns[i].saturating_sub(origin_ns).saturating_mul(1000).saturating_add(d.start_sub_ps as i64);
    let dur = c.dur_ns[i].max(0).saturating_mul(1000).saturating_add(d.dur_sub_ps as i64);
    (s, s.saturating_add(dur))
}

/// NeuronCore base clock (Hz) of an instance type, as neuron-profile documents it for
/// `neuroncore_cycle_count`. `None` for instance families it does not name.
pub fn neuroncore_clock_hz(instance_type: &str) -> Option<f64> {
    let family = instance_type.split('.').next()?.trim().to_ascii_lowercase();
    match family.as_str() {
        "inf1" => Some(1.0e9),
        // Inferentia2 has Trainium1's NeuronCore-v2
        "inf2" | "trn1" | "trn1n" => Some(1.4e9),
        "trn2" | "trn2u" => Some(1.2e9),
        _ => None,
    }
}

/// Peak Tensor-engine FLOP/s of an instance type: `2 × PE rows × PE columns × PE clock`
/// (neuron-profile's `tensor_engine_max_ops_per_sec`). Trainium1 / Inferentia2: a 128 × 128 PE
/// array at 2.8 GHz (the export's `metadata.pe_num_rows/cols`, `pe_clock_freq`). `None` for
/// instance families without documented figures here.
pub fn tensor_engine_peak_flops(instance_type: &str) -> Option<f64> {
    let family = instance_type.split('.').next()?.trim().to_ascii_lowercase();
    match family.as_str() {
        "inf2" | "trn1" | "trn1n" => Some(2.0 * 128.0 * 128.0 * 2.8e9),
        _ => None,
    }
}

#[derive(Default)]
struct EngineAcc {
    count: u64,
    /// Sum of busy (non-semaphore-wait) instruction durations, ps.
    busy_ps: i128,
    busy: Spans,
}

#[derive(Default)]
struct DmaClass {
    packets: u64,
    bytes: u64,
    spans: Spans,
}

/// The device summary of a Neuron device profile; `None` when the trace has no Neuron device
/// group with engine or DMA tracks.
pub fn device_summary(trace: &Trace) -> Option<DeviceSummary> {
    let origin = trace.start_ns;
    let mut engines: [EngineAcc; 5] = Default::default();
    let (mut activate_count, mut activate_ps, mut matmul_count) = (0u64, 0i128, 0u64);
    // merged blocks of every engine and DMA track, for the total active time
    let mut all_blocks: Spans = Vec::new();
    // Tensor-engine matrix FLOPs (when the input states them)
    let (mut hw_flops, mut transpose_flops, mut has_flops) = (0u64, 0u64, false);
    // DMA packets
    let (mut packets, mut packet_bytes, mut packet_ps) = (0u64, 0u64, 0i128);
    let mut packet_blocks: Spans = Vec::new();
    let (mut stat, mut sw, mut hw) = (DmaClass::default(), DmaClass::default(), DmaClass::default());
    let mut untyped_queues = false;
    // DMA transfers
    let (mut transfers, mut transfer_bytes, mut transfer_ps) = (0u64, 0u64, 0i128);
    let (mut input_q, mut output_q, mut data_q) = (0u64, 0u64, 0u64);
    let mut has_transfer_tracks = false;
    let mut any = false;

    let id = |s: &str| trace.strings.find(s);
    let (op_evsem, op_act, op_actq, op_mm) =
        (id("EVENT_SEMAPHORE"), id("ACTIVATE"), id("ACTIVATE_QUANTIZE"), id("MATMUL"));
    let is = |op: crate::StrId, want: Option<crate::StrId>| want.is_some_and(|w| w == op);

    for track in &trace.tracks {
        if trace.groups[track.group.idx()].kind != GroupKind::Device {
            continue;
        }
        let c = &track.slices;
        match track.role {
            TrackRole::Engine(e) => {
                any = true;
                let acc = &mut engines[engine_slot(e)];
                let mut busy: Spans = Vec::with_capacity(c.len());
                for i in 0..c.len() {
                    let (s, en) = span_ps(c, i, origin);
                    let op = c.domain_of(i).opcode;
                    acc.count += 1;
                    if is(op, op_act) || is(op, op_actq) {
                        activate_count += 1;
                        activate_ps += (en - s) as i128;
                    }
                    if is(op, op_mm) {
                        matmul_count += 1;
                    }
                    let d = c.domain_of(i);
                    if e.stream() == Engine::Tensor && d.flops != u64::MAX {
                        has_flops = true;
                        hw_flops = hw_flops.saturating_add(d.flops);
                        if d.transpose {
                            transpose_flops = transpose_flops.saturating_add(d.flops);
                        }
                    }
                    if !is(op, op_evsem) {
                        acc.busy_ps += (en - s) as i128;
                        busy.push((s, en));
                    }
                }
                // merge per track first: blocks are far fewer than instructions on a busy engine
                acc.busy.extend(union(busy));
            }
            TrackRole::DmaQueue => {
                any = true;
                let class = match track.dma_queue_type {
                    Some(q) if q.is_static() => Some(&mut stat),
                    Some(DmaQueueType::SoftwareDynamic) => Some(&mut sw),
                    Some(DmaQueueType::HardwareDynamic) => Some(&mut hw),
                    _ => None,
                };
                untyped_queues |= class.is_none() && !c.is_empty();
                let mut class = class;
                let mut spans: Spans = Vec::with_capacity(c.len());
                for i in 0..c.len() {
                    let (s, en) = span_ps(c, i, origin);
                    let b = c.domain_of(i).bytes;
                    let b = if b == u64::MAX { 0 } else { b };
                    packets += 1;
                    packet_bytes = packet_bytes.saturating_add(b);
                    packet_ps += (en - s) as i128;
                    spans.push((s, en));
                    if let Some(k) = class.as_deref_mut() {
                        k.packets += 1;
                        k.bytes = k.bytes.saturating_add(b);
                    }
                }
                let blocks = union(spans);
                if let Some(k) = class {
                    k.spans.extend_from_slice(&blocks);
                }
                packet_blocks.extend(blocks);
            }
            TrackRole::DmaTransfers => {
                any = true;
                has_transfer_tracks = true;
                for i in 0..c.len() {
                    let (s, en) = span_ps(c, i, origin);
                    let b = c.domain_of(i).bytes;
                    let b = if b == u64::MAX { 0 } else { b };
                    transfers += 1;
                    transfer_bytes = transfer_bytes.saturating_add(b);
                    transfer_ps += (en - s) as i128;
                    match track.dma_queue_type {
                        Some(DmaQueueType::Input) => input_q = input_q.saturating_add(b),
                        Some(DmaQueueType::Output) => output_q = output_q.saturating_add(b),
                        Some(DmaQueueType::Data) => data_q = data_q.saturating_add(b),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if !any {
        return None;
    }

    // device facts
    let infos: Vec<_> = trace
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::Device)
        .filter_map(|g| g.device.as_ref())
        .collect();
    let total_ps: Option<u64> = infos.iter().filter_map(|d| d.execution_time_ps).max();
    let total_s = total_ps.map(|p| p as f64 * 1e-12);
    let clock = infos.iter().filter_map(|d| d.instance_type).find_map(|s| neuroncore_clock_hz(trace.str(s)));
    let peak =
        infos.iter().filter_map(|d| d.instance_type).find_map(|s| tensor_engine_peak_flops(trace.str(s)));
    let sum = |f: fn(&DeviceInfo) -> Option<u64>| -> Option<u64> {
        if infos.is_empty() {
            None
        } else {
            infos.iter().map(|d| f(d)).sum()
        }
    };
    let event_count = sum(|d| d.event_count);
    let dma_queue_count = sum(|d| d.dma_queue_count);

    let mut out = DeviceSummary::default();
    // overall_stats
    const OVERALL: &str = "overall_stats";
    if let Some(t) = total_s {
        out.push("total_time", Value::Number(t), Unit::Seconds, OVERALL);
        if let Some(hz) = clock {
            out.push("neuroncore_cycle_count", Value::Count((t * hz).floor() as u64), Unit::Cycles, OVERALL);
        }
    }
    if has_flops {
        out.push("hardware_flops", Value::Count(hw_flops), Unit::Flops, OVERALL);
        out.push("transpose_flops", Value::Count(transpose_flops), Unit::Flops, OVERALL);
    }
    if let Some(n) = event_count {
        out.count("event_count", n, OVERALL);
        if has_transfer_tracks {
            let instr: u64 = engines.iter().map(|e| e.count).sum();
            out.count("trace_count", instr + packets + transfers + n, OVERALL);
        }
    }

    // data_movement
    const DM: &str = "data_movement";
    let packet_blocks = union(packet_blocks);
    let dma_active = total(&packet_blocks);
    all_blocks.extend(packet_blocks);
    let dma_active_s = dma_active as f64 * 1e-12;
    out.secs("dma_active_time", dma_active, DM);
    if let Some(t) = total_s {
        out.frac("dma_active_time_percent", dma_active_s, t, DM);
    }
    if let Some(hz) = clock {
        out.push("dma_active_cycles", Value::Count((dma_active_s * hz).floor() as u64), Unit::Cycles, DM);
    }
    out.secs("dma_packet_time", packet_ps, DM);
    if let Some(n) = dma_queue_count {
        out.count("dma_queue_count", n, DM);
    }
    if has_transfer_tracks {
        out.count("dma_transfer_count", transfers, DM);
        out.bytes("dma_transfer_total_bytes", transfer_bytes, DM);
        out.secs("dma_transfer_time", transfer_ps, DM);
        let avg = if transfers > 0 { transfer_bytes as f64 / transfers as f64 } else { 0.0 };
        out.push("dma_transfer_average_bytes", Value::Number(avg), Unit::Bytes, DM);
        out.bytes("input_queue_bytes", input_q, DM);
        out.bytes("output_queue_bytes", output_q, DM);
        out.bytes("weight_queue_bytes", data_q, DM);
    }
    if !untyped_queues {
        let (pk, by) = (packets as f64, packet_bytes as f64);
        let stat_active = total(&union(std::mem::take(&mut stat.spans)));
        let sw_active = total(&union(sw.spans.clone()));
        let hw_active = total(&union(hw.spans.clone()));
        let mut dyn_spans = std::mem::take(&mut sw.spans);
        dyn_spans.append(&mut hw.spans);
        let dyn_active = total(&union(dyn_spans));
        let da = dma_active as f64;
        out.secs("static_dma_active_time", stat_active, DM);
        out.frac("static_dma_active_time_percent", stat_active as f64, da, DM);
        out.frac("dynamic_dma_active_time_percent", dyn_active as f64, da, DM);
        out.count("static_dma_packet_count", stat.packets, DM);
        out.frac("static_dma_packet_percent", stat.packets as f64, pk, DM);
        out.frac("dynamic_dma_packet_percent", (sw.packets + hw.packets) as f64, pk, DM);
        out.bytes("static_dma_size", stat.bytes, DM);
        out.frac("static_dma_size_percent", stat.bytes as f64, by, DM);
        out.frac("dynamic_dma_size_percent", (sw.bytes + hw.bytes) as f64, by, DM);
        for (g, k, active) in
            [("software_data_movement", &sw, sw_active), ("hardware_data_movement", &hw, hw_active)]
        {
            let sw_keys = g == "software_data_movement";
            let key = |a: &'static str, b: &'static str| if sw_keys { a } else { b };
            out.secs(key("software_dynamic_dma_active_time", "hardware_dynamic_dma_active_time"), active, g);
            out.frac(
                key("software_dynamic_dma_active_time_percent", "hardware_dynamic_dma_active_time_percent"),
                active as f64,
                da,
                g,
            );
            out.count(
                key("software_dynamic_dma_packet_count", "hardware_dynamic_dma_packet_count"),
                k.packets,
                g,
            );
            out.frac(
                key("software_dynamic_dma_packet_percent", "hardware_dynamic_dma_packet_percent"),
                k.packets as f64,
                pk,
                g,
            );
            out.bytes(key("software_dynamic_dma_size", "hardware_dynamic_dma_size"), k.bytes, g);
            out.frac(
                key("software_dynamic_dma_size_percent", "hardware_dynamic_dma_size_percent"),
                k.bytes as f64,
                by,
                g,
            );
        }
    }

    // engines, in neuron-profile's group order
    for (slot, group, keys) in ENGINE_KEYS {
        let e = &mut engines[slot];
        let blocks = union(std::mem::take(&mut e.busy));
        let active = total(&blocks);
        all_blocks.extend(blocks);
        if slot == TENSOR {
            out.count("matmul_instruction_count", matmul_count, group);
            if let (true, Some(t), Some(peak)) = (has_flops, total_s, peak) {
                let den = peak * t;
                out.frac("hfu_estimated_percent", hw_flops as f64, den, group);
                let regular = hw_flops.saturating_sub(transpose_flops) as f64;
                out.frac("mfu_inst_estimated_percent", regular, den, group);
            }
        }
        out.secs(keys[0], active, group);
        if let Some(t) = total_s {
            out.frac(keys[1], active as f64 * 1e-12, t, group);
        }
        out.count(keys[2], e.count, group);
        out.secs(keys[3], e.busy_ps, group);
        if slot == SCALAR {
            out.count("activate_instruction_count", activate_count, group);
            out.secs("activate_instruction_time", activate_ps, group);
        }
    }

    // summary
    let total_active = total(&union(all_blocks));
    out.secs("total_active_time", total_active, "summary");
    if let Some(t) = total_s {
        out.frac("total_active_time_percent", total_active as f64 * 1e-12, t, "summary");
    }
    prefer_recorded_times(trace, &mut out);
    Some(out)
}

const TENSOR: usize = 0;
const VECTOR: usize = 1;
const SCALAR: usize = 2;
const SYNC: usize = 3;
const GPSIMD: usize = 4;

fn engine_slot(e: Engine) -> usize {
    match e.stream() {
        Engine::Vector => VECTOR,
        Engine::Scalar => SCALAR,
        Engine::Sync => SYNC,
        Engine::GpSimd => GPSIMD,
        _ => TENSOR,
    }
}

/// (slot, group, [active_time, active_time_percent, instruction_count, instruction_time]).
const ENGINE_KEYS: [(usize, &str, [&str; 4]); 5] = [
    (
        TENSOR,
        "tensor_engine",
        [
            "tensor_engine_active_time",
            "tensor_engine_active_time_percent",
            "tensor_engine_instruction_count",
            "tensor_engine_instruction_time",
        ],
    ),
    (
        VECTOR,
        "vector_engine",
        [
            "vector_engine_active_time",
            "vector_engine_active_time_percent",
            "vector_engine_instruction_count",
            "vector_engine_instruction_time",
        ],
    ),
    (
        SCALAR,
        "scalar_engine",
        [
            "scalar_engine_active_time",
            "scalar_engine_active_time_percent",
            "scalar_engine_instruction_count",
            "scalar_engine_instruction_time",
        ],
    ),
    (
        SYNC,
        "sync_engine",
        [
            "sync_engine_active_time",
            "sync_engine_active_time_percent",
            "sync_engine_instruction_count",
            "sync_engine_instruction_time",
        ],
    ),
    (
        GPSIMD,
        "gpsimd_engine",
        [
            "gpsimd_engine_active_time",
            "gpsimd_engine_active_time_percent",
            "gpsimd_engine_instruction_count",
            "gpsimd_engine_instruction_time",
        ],
    ),
];

#[cfg(test)]
#[allow(clippy::items_after_test_module)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, SliceDomain, TraceBuilder, TrackKind};
    use crate::StrId;

    fn approx(a: Option<Value>, b: f64) -> bool {
        a.is_some_and(|a| (a.as_f64() - b).abs() <= 1e-9 * b.abs().max(1e-12))
    }

    #[test]
    fn not_a_device_profile() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("proc", GroupKind::Process);
        let t = b.add_track(g, "thread", TrackKind::Thread, "1");
        let n = b.intern("x");
        b.add_slice(t, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        assert!(device_summary(&b.finish()).is_none());
    }

    #[test]
    fn engines_dma_and_facts() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let it = b.intern("inf2.xlarge");
        b.set_group_device(
            g,
            DeviceInfo {
                execution_time_ps: Some(1_000_000),
                instance_type: Some(it),
                event_count: Some(7),
                dma_queue_count: Some(3),
            },
        );
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let pm = b.add_track(g, "TensorMatrix", TrackKind::Stream, "pe");
        b.set_track_role(pm, TrackRole::Engine(Engine::TensorMatrix));
        let act = b.add_track(g, "Scalar", TrackKind::Stream, "act");
        b.set_track_role(act, TrackRole::Engine(Engine::Scalar));
        let (wait, mm, a, nop) =
            (b.intern("EVENT_SEMAPHORE"), b.intern("MATMUL"), b.intern("ACTIVATE"), b.intern("NOP"));
        let slice = |b: &mut TraceBuilder, t, s, d, op, sub: (u16, u16), bytes| {
            let h = b.add_slice(t, s, d, op, StrId::EMPTY, ArgsId::NONE);
            let dom = SliceDomain {
                opcode: op,
                bytes,
                start_sub_ps: sub.0,
                dur_sub_ps: sub.1,
                ..Default::default()
            };
            b.set_slice_domain(h, dom);
        };
        // Tensor: a wait (not busy), then [10.5, 20.5) ns on Tensor and [15, 30) on TensorMatrix
        slice(&mut b, pe, 0, 10, wait, (0, 0), u64::MAX);
        slice(&mut b, pe, 10, 10, nop, (500, 0), u64::MAX);
        slice(&mut b, pm, 15, 15, mm, (0, 0), u64::MAX);
        slice(&mut b, act, 100, 50, a, (0, 250), u64::MAX);
        // DMA: a static queue and a software-dynamic one, overlapping
        let q1 = b.add_track(g, "q1", TrackKind::Dma, "q1");
        b.set_track_dma_queue_type(q1, DmaQueueType::Data);
        let q0 = b.add_track(g, "q0", TrackKind::Dma, "q0");
        b.set_track_dma_queue_type(q0, DmaQueueType::SoftwareDynamic);
        let d = b.intern("dma");
        slice(&mut b, q1, 200, 100, d, (0, 0), 2048);
        slice(&mut b, q0, 250, 100, d, (0, 0), 6144);
        let s = device_summary(&b.finish()).expect("device summary");

        assert_eq!(s.get("tensor_engine_instruction_count"), Some(Value::Count(3)));
        assert_eq!(s.get("matmul_instruction_count"), Some(Value::Count(1)));
        assert!(approx(s.get("tensor_engine_instruction_time"), 25e-9)); // 10 + 15, wait excluded
        assert!(approx(s.get("tensor_engine_active_time"), 19.5e-9)); // [10.5, 30)
        assert!(approx(s.get("tensor_engine_active_time_percent"), 19.5e-9 / 1e-6));
        assert!(approx(s.get("activate_instruction_time"), 50.25e-9));
        assert_eq!(s.get("activate_instruction_count"), Some(Value::Count(1)));
        assert!(approx(s.get("dma_packet_time"), 200e-9));
        assert!(approx(s.get("dma_active_time"), 150e-9));
        assert!(approx(s.get("static_dma_active_time_percent"), 100.0 / 150.0));
        assert!(approx(s.get("dynamic_dma_size_percent"), 0.75));
        assert_eq!(s.get("static_dma_packet_count"), Some(Value::Count(1)));
        assert_eq!(s.get("dma_queue_count"), Some(Value::Count(3)));
        assert_eq!(s.get("event_count"), Some(Value::Count(7)));
        assert_eq!(s.get("neuroncore_cycle_count"), Some(Value::Count(1400)));
        assert!(approx(s.get("total_time"), 1e-6));
        // no transfers known: no transfer keys, no trace_count
        assert_eq!(s.get("dma_transfer_count"), None);
        assert_eq!(s.get("trace_count"), None);
        // union of engine busy time and DMA: [10.5,30) + [100,150.25) + [200,350)
        assert!(approx(s.get("total_active_time"), (19.5 + 50.25 + 150.0) * 1e-9));
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["tensor_engine_instruction_count"], 3);
        assert!(s.rows().iter().all(|m| !m.group.is_empty()));
    }
}

/// A neuron-profile JSON export (or Explorer Parquet) carries its own `summary` table, computed
/// by the tool in picoseconds, while its timeline rows have whole-nanosecond times: recomputing
/// time-derived keys from the rows is off by up to a few percent on short engines. For those
/// keys (seconds and `*_percent` fractions) the file's own recorded value is used when it has
/// one; counts, bytes and FLOPs stay computed from the rows. An NTFF has no such table, so
/// everything from an NTFF is computed.
fn prefer_recorded_times(trace: &Trace, out: &mut DeviceSummary) {
    let recorded: std::collections::HashMap<&str, &str> = trace
        .metadata
        .entries
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("summary.")?, v.as_str())))
        .collect();
    if recorded.is_empty() {
        return;
    }
    for m in &mut out.metrics {
        if !matches!(m.unit, Unit::Seconds | Unit::Fraction | Unit::Cycles) {
            continue;
        }
        if let Some(v) =
            recorded.get(m.key).and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| v.is_finite())
        {
            m.value = match m.value {
                Value::Count(_) if v >= 0.0 && v < u64::MAX as f64 => Value::Count(v.round() as u64),
                Value::Count(_) => continue,
                Value::Number(_) => Value::Number(v),
            };
        }
    }
}
