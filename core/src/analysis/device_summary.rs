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
//!   `input`, `output`, `data` queues. The JSON export and Parquet have the transfer rows. An NTFF
//!   alone does not: there the blocks are inferred ([`DeviceInfo::dma_blocks`],
//!   `Ntff::static_dma_blocks`): per named static queue, its in-window packets on all DMA engines
//!   form one block, first start to last end in ps, bytes without the 4-byte completion-semaphore
//!   writes. CONSISTENT, not general: every corpus capture has one such block and equals the
//!   export's aggregated row; a queue running several blocks per execution would count as one
//!   (the NEFF's block table would split them). The NTFF names no input/output queues, so those
//!   two are 0 from an NTFF. Equal on all 92 (times to the ps).
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
//!   Only when the input's rows state FLOPs and transposes (JSON export, Parquet); from an NTFF
//!   alone see below.
//!
//! - `hardware_flops` from an NTFF alone: the executed instruction words' operands
//!   ([`crate::neuron::ntff::cost`]): per MATMUL `2 × PE rows × PE columns × moving elements`
//!   (the tool's own definition). `hfu_estimated_percent` from it as above. Equal on all 92
//!   (`hfu` within 1.2e-8: the tool's rounding of peak or time is unknown). The NTFF cannot say
//!   which MATMULs are transposes (the tool takes it from the NEFF's debug info; the words of a
//!   transpose and a regular MATMUL differ only in addresses), so `transpose_flops` and everything
//!   built on it are omitted from an NTFF alone.
//! - `sbuf_read_bytes`, `sbuf_write_bytes`, `psum_read_bytes`, `psum_write_bytes`,
//!   `psum_read_sbuf_write_bytes` / `_count`, `hbm_read_bytes`, `hbm_write_bytes`: the tool's
//!   per-instruction bytes summed (MATMUL, LDWEIGHTS, ACTIVATE, GpSimd's DMA_DIRECT2D from the
//!   words, see `ntff::cost` for the layout), plus each static `data`-queue block as an HBM read
//!   and an SBUF write (the tool gives its trigger instruction those bytes; its "data" queues load
//!   weights from HBM into SBUF). Only NEFF-program instructions count (runtime preamble has no
//!   bytes in the export). Any executed program opcode or operand outside the known layout
//!   makes all of them omitted. Equal on all 92; the layout is CONSISTENT only (one program family).
//! - `mbu_estimated_percent` = (`hbm_read_bytes` + `hbm_write_bytes`) / `total_time` / HBM peak
//!   bandwidth ([`hbm_bandwidth_bytes_per_s`]: 410 GB/s per NeuronCore on inf2 / trn1, the
//!   export's `metadata.hbm_ddr_bandwidth`). `peak_flops_bandwidth_ratio` = Tensor peak FLOP/s /
//!   that bandwidth. Both equal on all 92.
//! - `weight_size_bytes` = the runtime's `Weights` allocation; `inputs_outputs_weights_size_bytes`
//!   = `Tensors` + `Weights` (NTFF `/4/4/1/11`, the export's `nc_mem_usage`). The tool defines
//!   them from the NEFF's tensors; the runtime allocates exactly those. Equal on all 92.
//! - `spill_save_bytes`, `spill_reload_bytes` = 0 when the runtime allocated no `DRAM Spill`
//!   space (nothing can be spilled); omitted otherwise (spill traffic needs the NEFF's spill
//!   queues / instructions). Equal on all 92.
//! - `cc_op_count`, `cc_op_time`, `cc_op_active_time(_percent)`, `cc_cores_instruction_count`,
//!   `_time`, `_active_time(_percent)` = 0 when the program has no memory for collectives
//!   (`Collectives` + `DMA Rings Collectives` = 0 bytes): no collective operation can run.
//!   Omitted otherwise (collective records are not decoded). Equal on all 92.
//! - Throttling (group `throttling_nc0`, from the capture's throttle records, the export's `ham`
//!   rows with whole-ns durations): `throttle_active_nc0_time_ns` = sum of durations whose limit
//!   `k / n` < 1; per record type (0..=3 `activity_<t>`, 99 `unknown`; other types omitted)
//!   `throttle_<t>_active_time_nc0_percent` = its durations / profile end and
//!   `throttle_<t>_avg_util_limit_nc0_percent` = duration-weighted mean of `k / n`;
//!   `throttle_avg_util_limit_nc0_percent` = Σ duration × `k / n` / profile end. Profile end =
//!   last instruction end in whole ns (the export's `last_hw_timestamp`, not `total_time`: the
//!   numbers say so). A type without records has no keys, like the export. Equal on all 92 (to
//!   1e-15); only types 0 (k/n = 7/8) and 99 (1/1) occur in the corpus.
//! - `instance_type`, `runtime_version`, `driver_version`, `collectives_version`: texts from the
//!   NTFF metadata (`/9`, `/8`, `/11`, `/12`), as the tool prints them. Equal on all 92.
//!
//! Not computed (omitted, never faked), and why:
//! - `model_flops`, `mfu_hlo_estimated_percent`, `mfu_hlo_max_achievable_estimated_percent`: HLO
//!   MAC counts, in the NEFF's HLO stats (not decoded yet; the corpus has no NEFF of its captures).
//! - `transpose_flops`, `mfu_inst_estimated_percent`, `mfu_estimated_percent` (falls back to the
//!   instruction value without HLO), `mfu_*max_achievable*`, `mm_arithmetic_intensity` from an
//!   NTFF alone: all need `transpose_flops` (NEFF debug info, see above). From the JSON export /
//!   Parquet `transpose_flops` and `mfu_inst_*` are computed (their rows state it).
//! - `inputs_and_weights_size_bytes`, `mbu_min_read_util_percent`: need the input tensors' sizes
//!   apart from the outputs' (the NEFF's tensor table; the runtime reports them together).
//! - `compiler_version`: in the NEFF, not in the NTFF. `profiler_version`: the version of
//!   neuron-profile that made the export, which Loupe is not.
//! - `nc_idx`, `nd_idx`: the NTFF states neither (no metadata field varies with them in the
//!   corpus, all 0); a proto3 absent field would read 0 but nothing shows which field it is.
//! - The `throttling_nc1`, `gpio_*`, `periodic`, `sw_*` throttle keys: no record type is known
//!   to map to them.
//!
//! From an NTFF alone, 93 of the export's 108 keys are produced and equal on every 108-key
//! capture of the corpus (91 of 106 on the one without `unknown` throttle records); the oracle
//! test asserts at least 90.
//!
//! Precision by input: an NTFF gives picosecond times (every key above equals the export on all
//! 92 captures). The JSON export and Parquet hold times floored to ns, so their time keys come out
//! low by up to ~1 ns per instruction / packet (0.3-3 % on the short corpus profiles; counts,
//! bytes and FLOPs are exact); their `total_time`, `event_count` and `dma_queue_count` are read
//! from the export's own summary / model_info tables (it has them nowhere else).
//!
//! # Over a time window
//! [`device_summary_over`] (and [`DeviceSummaryBuilder::over`], in steps) gives the keys that are
//! defined over a part of the timeline `[t0, t1)` ([`windowed`]), with the same definitions as
//! above applied to the slices inside it, with the window semantics of the Current Selection
//! summary (`analysis::interval`): a slice counts when it overlaps the window (an empty one when
//! it lies in it), **whole** for counts and bytes (a DMA packet's bytes are not split by time);
//! its time is **clipped** to the window (instruction time, packet time, and every union: active
//! times); FLOPs are **prorated** by the clipped share of the instruction's time (the HFU counter
//! row's rule, so a window's HFU is the mean of that row over it and never counts an edge
//! instruction's FLOPs whole); every `*_percent` and the utilisations are over the window's length
//! ([`TimeBase::Window`]). With [`TimeBase::Reported`] they are over the runtime's `total_time`
//! instead, and a window covering every event gives exactly the whole-profile values
//! (`core/tests/device_summary_window.rs` checks it on every shared capture, and a half window
//! against a recomputation from the rows). From an NTFF the FLOPs per instruction are the words'
//! ([`crate::model::Group::tensor_flops`]). Whole-profile only ([`why_not_windowed`]): the
//! runtime's totals and counts (`total_time`, cycles, `event_count`, `trace_count`, queue count),
//! the instructions' SBUF/PSUM/HBM bytes and what is built on them (MBU, arithmetic intensity:
//! the model keeps their totals only), the DMA transfers inferred as blocks from an NTFF alone,
//! memory sizes, spill and collective keys, throttling (records without start times), versions,
//! and the recorded-time preference of a JSON export (a window is computed from the rows).
//!
//! Several device groups (the physical cores of one LNC) are summed together; `total_time` is the
//! largest reported execution time among them. Several unrelated profiles loaded together are
//! summed too (no typed notion of "profile" yet).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::{
    DeviceInfo, DeviceMemory, DmaQueueType, Engine, GroupKind, InstructionTraffic, SliceColumns, Trace,
    TrackRole,
};
use crate::time::saturating_scale;
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
    /// Nanoseconds (`throttle_active_nc0_time_ns`).
    Nanoseconds,
    /// A ratio (FLOP per byte).
    Ratio,
    /// A text (versions, instance type).
    Text,
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
            Unit::Nanoseconds => "ns",
            Unit::Ratio => "",
            Unit::Text => "",
        }
    }
}

/// A metric value: an exact count, a real number or a text.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Count(u64),
    Number(f64),
    Text(String),
}

impl Value {
    /// The number (NaN for a text).
    pub fn as_f64(&self) -> f64 {
        match self {
            Value::Count(n) => *n as f64,
            Value::Number(x) => *x,
            Value::Text(_) => f64::NAN,
        }
    }
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Count(n) => s.serialize_u64(n),
            Value::Number(x) if x.is_finite() => s.serialize_f64(x),
            Value::Number(_) => s.serialize_none(),
            Value::Text(ref t) => s.serialize_str(t),
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
        self.metrics.iter().find(|m| m.key == key).map(|m| m.value.clone())
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
    fn text(&mut self, key: &'static str, text: &str, group: &'static str) {
        self.push(key, Value::Text(text.to_string()), Unit::Text, group);
    }
    fn frac(&mut self, key: &'static str, num: f64, den: f64, group: &'static str) {
        let v = if den > 0.0 { num / den } else { 0.0 };
        self.push(key, Value::Number(v), Unit::Fraction, group);
    }
}

/// One engine stream's figures as the summary states them (`<engine>_engine_*` keys).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineFigures {
    pub instruction_count: u64,
    /// Seconds, semaphore waits left out.
    pub instruction_time_s: f64,
    /// Seconds: the union of the non-wait instructions.
    pub active_time_s: f64,
    /// Active time / `total_time`, a fraction 0..1 (`None` without a reported execution time).
    pub active_fraction: Option<f64>,
}

impl DeviceSummary {
    /// The figures of engine stream `e` (`TensorMatrix` reads as `Tensor`): the same values as
    /// the rows, so every view of "active" shows the summary's own number.
    pub fn engine(&self, e: Engine) -> Option<EngineFigures> {
        let slot = engine_slot(e);
        let (_, _, keys) = ENGINE_KEYS.iter().find(|k| k.0 == slot)?;
        let count = match self.get(keys[2])? {
            Value::Count(n) => n,
            Value::Number(x) => x.max(0.0) as u64,
            Value::Text(_) => return None,
        };
        Some(EngineFigures {
            instruction_count: count,
            instruction_time_s: self.get(keys[3])?.as_f64(),
            active_time_s: self.get(keys[0])?.as_f64(),
            active_fraction: self.get(keys[1]).map(|v| v.as_f64()),
        })
    }
}

/// The definition of a headline key, for a hover (the module doc's text, shortened).
pub fn key_definition(key: &str) -> Option<&'static str> {
    Some(match key {
        "mfu_estimated_percent" => {
            "MFU (model FLOPs utilisation): model_flops (the HLO's multiply-adds × 2) when known, else              hardware_flops − transpose_flops, / (peak Tensor-engine FLOP/s × total_time). Peak = 2 × PE              rows × PE columns × PE clock (128 × 128 × 2.8 GHz on inf2 / trn1). neuron-profile's key, a              fraction shown as %."
        }
        "hfu_estimated_percent" => {
            "HFU (hardware FLOPs utilisation): hardware_flops (every Tensor-engine MATMUL, 2 × PE rows ×              PE columns × moving elements, transposes included) / (peak Tensor-engine FLOP/s ×              total_time). neuron-profile's key, a fraction shown as %."
        }
        "mbu_estimated_percent" => {
            "MBU (memory bandwidth utilisation): (hbm_read_bytes + hbm_write_bytes) / total_time / peak              HBM bandwidth of one NeuronCore (410 GB/s on inf2 / trn1). neuron-profile's key, a fraction              shown as %."
        }
        "mm_arithmetic_intensity" => {
            "Arithmetic intensity: the matmuls' FLOPs without transposes (hardware_flops −              transpose_flops) per HBM byte (hbm_read_bytes + hbm_write_bytes). Compare with              peak_flops_bandwidth_ratio: below it the program is memory-bound."
        }
        "peak_flops_bandwidth_ratio" => {
            "Peak Tensor-engine FLOP/s / peak HBM bandwidth: the arithmetic intensity a program needs              to be compute-bound (the roofline's ridge point)."
        }
        "hardware_flops" => "FLOPs the Tensor engine executed: per MATMUL 2 × PE rows × PE columns × moving elements, transposes included.",
        "transpose_flops" => "The part of hardware_flops spent on transposes (MATMULs against an identity).",
        "model_flops" => "The model's FLOPs: the HLO's multiply-add count × 2 (from the NEFF's HLO stats).",
        _ => return None,
    })
}

/// Why `key` is not in a summary (the module doc's "Not computed" list, per key family).
pub fn why_missing(key: &str) -> &'static str {
    match key {
        "model_flops" | "mfu_hlo_estimated_percent" | "mfu_hlo_max_achievable_estimated_percent" => {
            "needs the HLO's MAC counts from the NEFF's HLO stats, which Loupe does not decode yet"
        }
        "transpose_flops"
        | "mfu_estimated_percent"
        | "mfu_inst_estimated_percent"
        | "mfu_max_achievable_estimated_percent"
        | "mfu_inst_max_achievable_estimated_percent"
        | "mm_arithmetic_intensity" => {
            "needs transpose_flops: an NTFF alone cannot tell a transpose MATMUL from a regular one (the              tool takes it from the NEFF's debug info); the JSON export and Explorer Parquet state it"
        }
        "hardware_flops" | "hfu_estimated_percent" => {
            "the input states no FLOPs for the Tensor-engine instructions"
        }
        "spill_save_bytes" | "spill_reload_bytes" => {
            "the runtime allocated DRAM spill space: spill traffic needs the NEFF's spill queues and              instructions"
        }
        "inputs_and_weights_size_bytes" | "mbu_min_read_util_percent" => {
            "needs the input tensors' sizes apart from the outputs' (the NEFF's tensor table)"
        }
        k if k.starts_with("hbm_") || k.starts_with("sbuf_") || k.starts_with("psum_") || k.starts_with("mbu_") => {
            "an executed instruction's opcode or operands are outside the instruction layout Loupe              decodes, so no per-instruction bytes are given"
        }
        k if k.starts_with("cc_") => "collective records are not decoded (omitted when collectives could run)",
        k if k.starts_with("throttle_") => "the capture has no throttle records of this type",
        k if k.starts_with("dma_transfer") || k.ends_with("_queue_bytes") => {
            "the input has no DMA transfer rows and none could be inferred"
        }
        "compiler_version" => "in the NEFF, not in the NTFF",
        "nc_idx" | "nd_idx" => "the NTFF does not state which NeuronCore / device it was captured on",
        _ => "not in this input",
    }
}

/// The opcode of neuron-profile's semaphore-wait instruction (`EVENT_SEMAPHORE`) in this trace's
/// strings, if any slice can have it. Such an instruction is waiting, not activity: it counts
/// as an instruction but not in instruction time nor active time
/// ([`crate::analysis::measures::ENGINE_WAITING`]).
pub fn semaphore_wait_opcode(trace: &Trace) -> Option<crate::StrId> {
    trace.strings.find("EVENT_SEMAPHORE")
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
/// Exact [start, end) of slice `i` in ps relative to `origin_ns`, using the sub-ns remainders
/// when the importer has them.
fn span_ps(c: &SliceColumns, i: usize, origin_ns: i64) -> (i64, i64) {
    // the two sub-ns columns only: a whole `SliceDomain` a slice was most of the device
    // summary's time in the page
    let (start_sub_ps, dur_sub_ps) = c.sub_ps_of(i);
    // not `saturating_mul`: a 128-bit library call in wasm32, four per span
    let s =
        saturating_scale(c.start_ns[i].saturating_sub(origin_ns), 1000).saturating_add(start_sub_ps as i64);
    let dur = saturating_scale(c.dur_ns.at(i).max(0), 1000).saturating_add(dur_sub_ps as i64);
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

/// Peak Tensor-engine FLOP/s of an instance type (defined with the HFU counter it also scales).
pub use crate::model::builder::tensor_engine_peak_flops;

/// Peak HBM bandwidth available to one NeuronCore (bytes/s), neuron-profile's
/// `hbm_max_bandwidth` (the export's `metadata.hbm_ddr_bandwidth`: 410 GB/s on inf2.xlarge). An
/// Inferentia2 or Trainium1 chip has 820 GB/s of HBM for its two NeuronCores. `None` for
/// instance families without documented figures here.
pub fn hbm_bandwidth_bytes_per_s(instance_type: &str) -> Option<f64> {
    let family = instance_type.split('.').next()?.trim().to_ascii_lowercase();
    match family.as_str() {
        "inf2" | "trn1" | "trn1n" => Some(410.0e9),
        _ => None,
    }
}

/// Throttle key names by record type: neuron-profile's `activity_<n>` for types 0..=3 and
/// `unknown` for type 99 (no throttling activity). Other types are not named here.
fn throttle_keys(kind: u32) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        0 => {
            ("throttle_activity_0_active_time_nc0_percent", "throttle_activity_0_avg_util_limit_nc0_percent")
        }
        1 => {
            ("throttle_activity_1_active_time_nc0_percent", "throttle_activity_1_avg_util_limit_nc0_percent")
        }
        2 => {
            ("throttle_activity_2_active_time_nc0_percent", "throttle_activity_2_avg_util_limit_nc0_percent")
        }
        3 => {
            ("throttle_activity_3_active_time_nc0_percent", "throttle_activity_3_avg_util_limit_nc0_percent")
        }
        99 => ("throttle_unknown_active_time_nc0_percent", "throttle_unknown_avg_util_limit_nc0_percent"),
        _ => return None,
    })
}

/// The unions the summary measures, one bit each in a run's `cats`: the five engine streams
/// (bits 0..5, [`TENSOR`]..[`GPSIMD`]), then these.
const C_DMA: usize = 5;
const C_STATIC: usize = 6;
const C_SW: usize = 7;
const C_HW: usize = 8;
const C_DYN: usize = 9;
const C_TOTAL: usize = 10;
const N_CATS: usize = 11;

/// Per engine stream: instruction count and the summed busy (non-semaphore-wait) time in ps.
#[derive(Default, Clone, Copy)]
struct EngineAcc {
    count: u64,
    busy_ps: i128,
}

#[derive(Default, Clone, Copy)]
struct DmaClass {
    packets: u64,
    bytes: u64,
}

/// Slices `from..to` of one track whose counted spans start in ascending order (ps): the unit
/// of the sweep's merge. `cats`: the unions its spans belong to; `skip_wait`: semaphore-wait
/// instructions are left out (engine tracks).
struct Run {
    track: u32,
    from: u32,
    to: u32,
    cats: u16,
    skip_wait: bool,
}

/// The second phase: every run merged in start order (a heap of one cursor per run), each span
/// folded into the current block of each union it belongs to.
struct Sweep {
    heap: BinaryHeap<Reverse<(i64, i64, u32)>>,
    /// next slice index per run
    next: Vec<u32>,
    /// current block per union (`None` before the first span)
    block: [Option<(i64, i64)>; N_CATS],
    /// length of the closed blocks per union, ps
    measure: [i128; N_CATS],
}

impl Sweep {
    fn fold(&mut self, cats: u16, s: i64, e: i64) {
        for c in 0..N_CATS {
            if cats & (1 << c) == 0 {
                continue;
            }
            match &mut self.block[c] {
                Some(b) if s <= b.1 => b.1 = b.1.max(e),
                b => {
                    if let Some((bs, be)) = b.replace((s, e)) {
                        self.measure[c] += (be - bs) as i128;
                    }
                }
            }
        }
    }
    /// The union's length once every span is folded.
    fn total(&self, c: usize) -> i128 {
        self.measure[c] + self.block[c].map_or(0, |(s, e)| (e - s) as i128)
    }
}

/// Builds the [`DeviceSummary`] in bounded steps, so a page can give the browser a turn between
/// them on a profile of millions of instructions: first every device track's slices a block at a
/// time (counts, sums, and the ascending runs of spans), then the unions (active times) as one
/// merge of those runs in start order, a block of spans at a time. [`device_summary`] runs every
/// step at once. The figures do not depend on the step size.
pub struct DeviceSummaryBuilder {
    origin: i64,
    /// EVENT_SEMAPHORE, ACTIVATE, ACTIVATE_QUANTIZE, MATMUL (when the strings have them)
    ops: [Option<crate::StrId>; 4],
    /// the track being scanned and the next slice in it
    track: usize,
    pos: usize,
    /// the open run of the track being scanned: first slice and the start of its last span
    run_from: usize,
    run_last: i64,
    runs: Vec<Run>,
    sweep: Option<Sweep>,
    engines: [EngineAcc; 5],
    activate_count: u64,
    activate_ps: i128,
    matmul_count: u64,
    hw_flops: u64,
    transpose_flops: u64,
    has_flops: bool,
    packets: u64,
    packet_bytes: u64,
    packet_ps: i128,
    stat: DmaClass,
    sw: DmaClass,
    hw: DmaClass,
    untyped_queues: bool,
    transfers: u64,
    transfer_bytes: u64,
    transfer_ps: i128,
    input_q: u64,
    output_q: u64,
    data_q: u64,
    has_transfer_tracks: bool,
    any: bool,
    /// Latest end of an instruction span, ps relative to `origin` (`i64::MIN`: none).
    max_end: i64,
    /// The time window `[w0, w1)`, ps relative to `origin` (`None`: the whole profile), and the
    /// base of its percentages.
    window: Option<(i64, i64)>,
    base: TimeBase,
    /// The track whose slice ranges are in `ranges` (those that can overlap the window, one per
    /// depth; the whole track without a window) and the range being scanned.
    ranges_of: Option<usize>,
    ranges: Vec<std::ops::Range<usize>>,
    range_k: usize,
    /// Over a window, the last phase: the group and position in its `tensor_flops`, the sum of
    /// all of them (`None` past `u64`) and the FLOPs in the window.
    flop_group: usize,
    flop_pos: usize,
    flops_listed: Option<u64>,
    flops_in: u64,
}

/// What the percentages of a summary over a time window are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBase {
    /// The window's length (what "active 40 %" means for a part of the timeline).
    Window,
    /// The runtime's reported execution time (`total_time`), as over the whole profile: a window
    /// covering every event then gives exactly the whole-profile summary.
    Reported,
}

/// Whether span `[s, e)` (ps) is inside window `[w0, w1)`: it overlaps it, or, when it is empty,
/// lies in it. The same rule as the window index's `range_at_depth`.
fn in_window(s: i64, e: i64, w: Option<(i64, i64)>) -> Option<(i64, i64)> {
    let Some((w0, w1)) = w else { return Some((s, e)) };
    let inside = s < w1 && (e > w0 || (e == s && s >= w0));
    inside.then(|| {
        let cs = s.max(w0);
        (cs, e.min(w1).max(cs))
    })
}

/// `amount` in proportion to the part `[cs, ce)` of span `[s, e)` (all of it for an empty span).
fn prorate(amount: u64, s: i64, e: i64, cs: i64, ce: i64) -> u64 {
    if e <= s || (cs <= s && ce >= e) {
        return amount;
    }
    (u128::from(amount) * (ce - cs).max(0) as u128 / (e - s) as u128) as u64
}

impl DeviceSummaryBuilder {
    pub fn new(trace: &Trace) -> DeviceSummaryBuilder {
        let id = |s: &str| trace.strings.find(s);
        DeviceSummaryBuilder {
            origin: trace.start_ns,
            ops: [semaphore_wait_opcode(trace), id("ACTIVATE"), id("ACTIVATE_QUANTIZE"), id("MATMUL")],
            track: 0,
            pos: 0,
            run_from: 0,
            run_last: i64::MIN,
            runs: Vec::new(),
            sweep: None,
            engines: Default::default(),
            activate_count: 0,
            activate_ps: 0,
            matmul_count: 0,
            hw_flops: 0,
            transpose_flops: 0,
            has_flops: false,
            packets: 0,
            packet_bytes: 0,
            packet_ps: 0,
            stat: DmaClass::default(),
            sw: DmaClass::default(),
            hw: DmaClass::default(),
            untyped_queues: false,
            transfers: 0,
            transfer_bytes: 0,
            transfer_ps: 0,
            input_q: 0,
            output_q: 0,
            data_q: 0,
            has_transfer_tracks: false,
            any: false,
            max_end: i64::MIN,
            window: None,
            base: TimeBase::Reported,
            ranges_of: None,
            ranges: Vec::new(),
            range_k: 0,
            flop_group: 0,
            flop_pos: 0,
            flops_listed: Some(0),
            flops_in: 0,
        }
    }

    /// The summary over the time window `[t0_ns, t1_ns)` (see "Over a time window" in the module
    /// doc), its percentages relative to `base`.
    pub fn over(trace: &Trace, t0_ns: i64, t1_ns: i64, base: TimeBase) -> DeviceSummaryBuilder {
        let mut b = DeviceSummaryBuilder::new(trace);
        let ps = |t: i64| saturating_scale(t.saturating_sub(trace.start_ns), 1000);
        b.window = Some((ps(t0_ns), ps(t1_ns.max(t0_ns))));
        b.base = base;
        b
    }

    /// The ranges of the current track's slices that can be inside the window (a superset by ns:
    /// the exact test is in ps), one per depth, in index order.
    fn window_ranges(&self, trace: &Trace) -> Vec<std::ops::Range<usize>> {
        let c = &trace.tracks[self.track].slices;
        let Some((w0, w1)) = self.window else { return std::iter::once(0..c.len()).collect() };
        // a span's ps start is below (start_ns + 1) × 1000 and its end below (end_ns + 2) × 1000
        let t0 = (w0.div_euclid(1000)).saturating_add(self.origin).saturating_sub(3);
        let t1 = (w1.div_euclid(1000)).saturating_add(self.origin).saturating_add(2);
        (0..c.depth_count()).map(|d| c.range_at_depth(d, t0, t1)).filter(|r| !r.is_empty()).collect()
    }

    /// The unions a track's spans belong to (0: none, the track is only counted or skipped).
    fn cats_of(track: &crate::model::Track) -> u16 {
        match track.role {
            TrackRole::Engine(e) => 1 << engine_slot(e) | 1 << C_TOTAL,
            TrackRole::DmaQueue => {
                let class = match track.dma_queue_type {
                    Some(q) if q.is_static() => 1 << C_STATIC,
                    Some(DmaQueueType::SoftwareDynamic) => 1 << C_SW | 1 << C_DYN,
                    Some(DmaQueueType::HardwareDynamic) => 1 << C_HW | 1 << C_DYN,
                    _ => 0,
                };
                class | 1 << C_DMA | 1 << C_TOTAL
            }
            _ => 0,
        }
    }

    fn is(op: crate::StrId, want: Option<crate::StrId>) -> bool {
        want.is_some_and(|w| w == op)
    }

    /// Close the open run of the track being scanned at slice `to`.
    fn close_run(&mut self, trace: &Trace, to: usize) {
        let track = &trace.tracks[self.track];
        if to > self.run_from {
            self.runs.push(Run {
                track: self.track as u32,
                from: self.run_from as u32,
                to: to as u32,
                cats: Self::cats_of(track),
                skip_wait: matches!(track.role, TrackRole::Engine(_)),
            });
        }
        self.run_from = to;
        self.run_last = i64::MIN;
    }

    /// Scan slices `from..to` of the current track.
    fn scan(&mut self, trace: &Trace, from: usize, to: usize) {
        let track = &trace.tracks[self.track];
        let c = &track.slices;
        let origin = self.origin;
        match track.role {
            TrackRole::Engine(e) => {
                let [op_evsem, op_act, op_actq, op_mm] = self.ops;
                let slot = engine_slot(e);
                let dom = c.domain.as_ref();
                for i in from..to {
                    let (s0, en0) = span_ps(c, i, origin);
                    let Some((s, en)) = in_window(s0, en0, self.window) else { continue };
                    let op = c.opcode_of(i);
                    self.engines[slot].count += 1;
                    self.max_end = self.max_end.max(en);
                    if Self::is(op, op_act) || Self::is(op, op_actq) {
                        self.activate_count += 1;
                        self.activate_ps += (en - s) as i128;
                    }
                    if Self::is(op, op_mm) {
                        self.matmul_count += 1;
                    }
                    let flops = dom.map_or(u64::MAX, |d| d.flops(i));
                    if e.stream() == Engine::Tensor && flops != u64::MAX {
                        let flops = prorate(flops, s0, en0, s, en);
                        self.has_flops = true;
                        self.hw_flops = self.hw_flops.saturating_add(flops);
                        if dom.is_some_and(|d| d.transpose(i)) {
                            self.transpose_flops = self.transpose_flops.saturating_add(flops);
                        }
                    }
                    if !Self::is(op, op_evsem) {
                        self.engines[slot].busy_ps += (en - s) as i128;
                        if s < self.run_last {
                            self.close_run(trace, i);
                        }
                        self.run_last = s;
                    }
                }
            }
            TrackRole::DmaQueue => {
                let class = match track.dma_queue_type {
                    Some(q) if q.is_static() => Some(&mut self.stat),
                    Some(DmaQueueType::SoftwareDynamic) => Some(&mut self.sw),
                    Some(DmaQueueType::HardwareDynamic) => Some(&mut self.hw),
                    _ => None,
                };
                let typed = class.is_some();
                let (mut packets, mut bytes, mut ps) = (0u64, 0u64, 0i128);
                let mut breaks = Vec::new();
                let mut last = self.run_last;
                for i in from..to {
                    let (s0, en0) = span_ps(c, i, origin);
                    let Some((s, en)) = in_window(s0, en0, self.window) else { continue };
                    let b = c.bytes_of(i);
                    let b = if b == u64::MAX { 0 } else { b };
                    packets += 1;
                    bytes = bytes.saturating_add(b);
                    ps += (en - s) as i128;
                    if s < last {
                        breaks.push(i);
                    }
                    last = s;
                }
                if let Some(k) = class {
                    k.packets += packets;
                    k.bytes = k.bytes.saturating_add(bytes);
                }
                self.untyped_queues |= !typed && to > from;
                self.packets += packets;
                self.packet_bytes = self.packet_bytes.saturating_add(bytes);
                self.packet_ps += ps;
                for i in breaks {
                    self.close_run(trace, i);
                }
                self.run_last = last;
            }
            TrackRole::DmaTransfers => {
                for i in from..to {
                    let (s0, en0) = span_ps(c, i, origin);
                    let Some((s, en)) = in_window(s0, en0, self.window) else { continue };
                    let b = c.bytes_of(i);
                    let b = if b == u64::MAX { 0 } else { b };
                    self.transfers += 1;
                    self.transfer_bytes = self.transfer_bytes.saturating_add(b);
                    self.transfer_ps += (en - s) as i128;
                    match track.dma_queue_type {
                        Some(DmaQueueType::Input) => self.input_q = self.input_q.saturating_add(b),
                        Some(DmaQueueType::Output) => self.output_q = self.output_q.saturating_add(b),
                        Some(DmaQueueType::Data) => self.data_q = self.data_q.saturating_add(b),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// The first counted span of run `r` at or after slice `i`: (slice, start, end).
    fn next_span(
        trace: &Trace,
        (origin, window): (i64, Option<(i64, i64)>),
        evsem: Option<crate::StrId>,
        run: &Run,
        mut i: usize,
    ) -> Option<(usize, i64, i64)> {
        let c = &trace.tracks[run.track as usize].slices;
        while i < run.to as usize {
            if !(run.skip_wait && Self::is(c.opcode_of(i), evsem)) {
                let (s, e) = span_ps(c, i, origin);
                if let Some((s, e)) = in_window(s, e, window) {
                    return Some((i, s, e));
                }
            }
            i += 1;
        }
        None
    }

    /// Do at most about `budget` slices (or spans) of work; `false` when everything is done and
    /// [`DeviceSummaryBuilder::finish`] can be called.
    pub fn add_next(&mut self, trace: &Trace, budget: usize) -> bool {
        let budget = budget.max(1);
        let mut left = budget;
        while self.track < trace.tracks.len() {
            let track = &trace.tracks[self.track];
            let counted = trace.groups[track.group.idx()].kind == GroupKind::Device
                && matches!(track.role, TrackRole::Engine(_) | TrackRole::DmaQueue | TrackRole::DmaTransfers);
            let is_transfers = matches!(track.role, TrackRole::DmaTransfers);
            if counted && self.ranges_of != Some(self.track) {
                self.ranges = self.window_ranges(trace);
                self.ranges_of = Some(self.track);
                self.range_k = 0;
                self.pos = self.ranges.first().map_or(0, |r| r.start);
                self.run_from = self.pos;
            }
            // past a range: the next one, a new run (the runs are contiguous slice ranges)
            while counted && self.ranges.get(self.range_k).is_some_and(|r| self.pos >= r.end) {
                self.range_k += 1;
                if let Some(start) = self.ranges.get(self.range_k).map(|r| r.start) {
                    if !is_transfers {
                        self.close_run(trace, self.pos);
                    }
                    self.pos = start;
                    self.run_from = start;
                }
            }
            let Some(end) = self.ranges.get(self.range_k).filter(|_| counted).map(|r| r.end) else {
                if counted {
                    self.any = true;
                    if is_transfers {
                        self.has_transfer_tracks = true;
                    } else {
                        self.close_run(trace, self.pos);
                    }
                }
                self.track += 1;
                self.pos = 0;
                self.run_from = 0;
                self.run_last = i64::MIN;
                self.ranges.clear();
                self.ranges_of = None;
                continue;
            };
            if left == 0 {
                return true;
            }
            let to = self.pos + left.min(end - self.pos);
            self.scan(trace, self.pos, to);
            left -= to - self.pos;
            self.pos = to;
        }
        let (origin, window) = (self.origin, self.window);
        let evsem = self.ops[0];
        let sweep = self.sweep.get_or_insert_with(|| {
            let mut heap = BinaryHeap::with_capacity(self.runs.len());
            let mut next = Vec::with_capacity(self.runs.len());
            for (r, run) in self.runs.iter().enumerate() {
                match Self::next_span(trace, (origin, window), evsem, run, run.from as usize) {
                    Some((i, s, e)) => {
                        heap.push(Reverse((s, e, r as u32)));
                        next.push(i as u32 + 1);
                    }
                    None => next.push(run.to),
                }
            }
            Sweep { heap, next, block: [None; N_CATS], measure: [0; N_CATS] }
        });
        while left > 0 {
            let Some(Reverse((s, e, r))) = sweep.heap.pop() else {
                break;
            };
            let run = &self.runs[r as usize];
            sweep.fold(run.cats, s, e);
            if let Some((i, s, e)) =
                Self::next_span(trace, (origin, window), evsem, run, sweep.next[r as usize] as usize)
            {
                sweep.heap.push(Reverse((s, e, r)));
                sweep.next[r as usize] = i as u32 + 1;
            }
            left -= 1;
        }
        if !sweep.heap.is_empty() {
            return true;
        }
        // over a window: the device groups' per-instruction FLOPs (an NTFF's) in it, a block at
        // a time (millions of them in a large capture)
        let Some(w) = self.window else { return false };
        let ps = |t: i64| saturating_scale(t.saturating_sub(origin), 1000);
        while let Some(g) = trace.groups.get(self.flop_group) {
            let spans = &g.tensor_flops;
            if g.kind != GroupKind::Device || self.flop_pos >= spans.len() {
                self.flop_group += 1;
                self.flop_pos = 0;
                continue;
            }
            if left == 0 {
                return true;
            }
            let to = self.flop_pos + left.min(spans.len() - self.flop_pos);
            for &(s, e, f) in &spans[self.flop_pos..to] {
                self.flops_listed = self.flops_listed.and_then(|a| a.checked_add(f));
                let (s, e) = (ps(s), ps(e.max(s)));
                if let Some((cs, ce)) = in_window(s, e, Some(w)) {
                    self.flops_in = self.flops_in.saturating_add(prorate(f, s, e, cs, ce));
                }
            }
            left -= to - self.flop_pos;
            self.flop_pos = to;
        }
        false
    }

    /// The summary, once [`DeviceSummaryBuilder::add_next`] returned `false` (it finishes any
    /// work left first); `None` when the trace has no Neuron device group with engine or DMA
    /// tracks.
    pub fn finish(mut self, trace: &Trace) -> Option<DeviceSummary> {
        while self.add_next(trace, usize::MAX) {}
        if !self.any {
            return None;
        }
        let sweep = self.sweep.as_ref()?;
        let union = |c: usize| sweep.total(c);

        // device facts
        let infos: Vec<_> = trace
            .groups
            .iter()
            .filter(|g| g.kind == GroupKind::Device)
            .filter_map(|g| g.device.as_ref())
            .collect();
        let total_ps: Option<u64> = infos.iter().filter_map(|d| d.execution_time_ps).max();
        let total_s = match (self.window, self.base) {
            (Some((w0, w1)), TimeBase::Window) => Some((w1 - w0).max(0) as f64 * 1e-12),
            _ => total_ps.map(|p| p as f64 * 1e-12),
        };
        let clock =
            infos.iter().filter_map(|d| d.instance_type).find_map(|s| neuroncore_clock_hz(trace.str(s)));
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
        let (has_flops, hw_flops, transpose_flops) = (self.has_flops, self.hw_flops, self.transpose_flops);
        let (packets, transfers) = (self.packets, self.transfers);

        let mut out = DeviceSummary::default();
        // overall_stats
        const OVERALL: &str = "overall_stats";
        if let Some(t) = total_s {
            out.push("total_time", Value::Number(t), Unit::Seconds, OVERALL);
            if let Some(hz) = clock {
                out.push(
                    "neuroncore_cycle_count",
                    Value::Count((t * hz).floor() as u64),
                    Unit::Cycles,
                    OVERALL,
                );
            }
        }
        if has_flops {
            out.push("hardware_flops", Value::Count(hw_flops), Unit::Flops, OVERALL);
            out.push("transpose_flops", Value::Count(transpose_flops), Unit::Flops, OVERALL);
        }
        // static DMA blocks inferred from the packets, when the input has no transfer rows
        let blocks: Vec<&crate::model::DmaBlock> = infos.iter().flat_map(|d| d.dma_blocks.iter()).collect();
        // (over the whole profile only: a block has no time base of the model's)
        let use_blocks = !self.has_transfer_tracks && !blocks.is_empty() && self.window.is_none();
        let transfers = if use_blocks { blocks.len() as u64 } else { transfers };
        if let Some(n) = event_count {
            out.count("event_count", n, OVERALL);
            if self.has_transfer_tracks || use_blocks {
                let instr: u64 = self.engines.iter().map(|e| e.count).sum();
                out.count("trace_count", instr + packets + transfers + n, OVERALL);
            }
        }
        // instruction traffic and FLOPs from the instruction words (NTFF), summed over devices
        let traffic: Option<InstructionTraffic> = if infos.is_empty() {
            None
        } else {
            infos.iter().map(|d| d.traffic).try_fold(InstructionTraffic::default(), |mut a, t| {
                a += t?;
                Some(a)
            })
        };
        let bandwidth = infos
            .iter()
            .filter_map(|d| d.instance_type)
            .find_map(|s| hbm_bandwidth_bytes_per_s(trace.str(s)));
        if let (Some(p), Some(bw)) = (peak, bandwidth) {
            out.push("peak_flops_bandwidth_ratio", Value::Number(p / bw), Unit::Ratio, OVERALL);
        }
        // FLOPs from the instruction words when the rows state none (transposes unknown then)
        let words_flops = if has_flops { None } else { traffic.map(|t| t.hardware_flops) };
        // over a window: the device groups' per-instruction FLOPs in it, when the list adds up
        // to the whole-profile total (else it is not the list of those instructions)
        let words_flops = match (words_flops, self.window) {
            (Some(all), Some(_)) => (self.flops_listed == Some(all)).then_some(self.flops_in),
            (x, _) => x,
        };
        if let Some(f) = words_flops {
            out.push("hardware_flops", Value::Count(f), Unit::Flops, OVERALL);
        }

        // data_movement
        const DM: &str = "data_movement";
        let dma_active = union(C_DMA);
        let dma_active_s = dma_active as f64 * 1e-12;
        out.secs("dma_active_time", dma_active, DM);
        if let Some(t) = total_s {
            out.frac("dma_active_time_percent", dma_active_s, t, DM);
        }
        if let Some(hz) = clock {
            out.push("dma_active_cycles", Value::Count((dma_active_s * hz).floor() as u64), Unit::Cycles, DM);
        }
        out.secs("dma_packet_time", self.packet_ps, DM);
        if let Some(n) = dma_queue_count {
            out.count("dma_queue_count", n, DM);
        }
        if use_blocks {
            let bytes: u64 = blocks.iter().map(|b| b.bytes).sum();
            let ps: i128 = blocks.iter().map(|b| (b.end_ps - b.start_ps) as i128).sum();
            let q =
                |t: DmaQueueType| blocks.iter().filter(|b| b.queue_type == t).map(|b| b.bytes).sum::<u64>();
            out.count("dma_transfer_count", transfers, DM);
            out.bytes("dma_transfer_total_bytes", bytes, DM);
            out.secs("dma_transfer_time", ps, DM);
            let avg = if transfers > 0 { bytes as f64 / transfers as f64 } else { 0.0 };
            out.push("dma_transfer_average_bytes", Value::Number(avg), Unit::Bytes, DM);
            out.bytes("input_queue_bytes", q(DmaQueueType::Input), DM);
            out.bytes("output_queue_bytes", q(DmaQueueType::Output), DM);
            out.bytes("weight_queue_bytes", q(DmaQueueType::Data), DM);
        }
        if let Some(t) = traffic {
            out.bytes("sbuf_read_bytes", t.sbuf_read_bytes, DM);
            out.bytes("sbuf_write_bytes", t.sbuf_write_bytes, DM);
            out.bytes("psum_read_bytes", t.psum_read_bytes, DM);
            out.bytes("psum_write_bytes", t.psum_write_bytes, DM);
            out.bytes("psum_read_sbuf_write_bytes", t.psum_read_sbuf_write_bytes, DM);
            out.count("psum_read_sbuf_write_count", t.psum_read_sbuf_write_count, DM);
            out.bytes("hbm_read_bytes", t.hbm_read_bytes, DM);
            out.bytes("hbm_write_bytes", t.hbm_write_bytes, DM);
            if let (Some(total), Some(bw)) = (total_s, bandwidth) {
                let hbm = (t.hbm_read_bytes + t.hbm_write_bytes) as f64;
                out.frac("mbu_estimated_percent", hbm, total * bw, DM);
            }
        }
        // the runtime's memory allocation: weights and I/O tensors; no spill space → no spill
        let memory: Option<Vec<DeviceMemory>> =
            if infos.is_empty() { None } else { infos.iter().map(|d| d.memory).collect() };
        if let Some(m) = &memory {
            let weights: u64 = m.iter().map(|x| x.weights_bytes).sum();
            let io: u64 = m.iter().map(|x| x.io_tensors_bytes).sum();
            out.bytes("weight_size_bytes", weights, DM);
            out.bytes("inputs_outputs_weights_size_bytes", io + weights, DM);
            if m.iter().all(|x| x.dram_spill_bytes == 0) {
                out.bytes("spill_save_bytes", 0, DM);
                out.bytes("spill_reload_bytes", 0, DM);
            }
        }
        if self.has_transfer_tracks {
            let transfer_bytes = self.transfer_bytes;
            out.count("dma_transfer_count", transfers, DM);
            out.bytes("dma_transfer_total_bytes", transfer_bytes, DM);
            out.secs("dma_transfer_time", self.transfer_ps, DM);
            let avg = if transfers > 0 { transfer_bytes as f64 / transfers as f64 } else { 0.0 };
            out.push("dma_transfer_average_bytes", Value::Number(avg), Unit::Bytes, DM);
            out.bytes("input_queue_bytes", self.input_q, DM);
            out.bytes("output_queue_bytes", self.output_q, DM);
            out.bytes("weight_queue_bytes", self.data_q, DM);
        }
        if !self.untyped_queues {
            let (stat, sw, hw) = (self.stat, self.sw, self.hw);
            let (pk, by) = (packets as f64, self.packet_bytes as f64);
            let (stat_active, sw_active, hw_active) = (union(C_STATIC), union(C_SW), union(C_HW));
            let dyn_active = union(C_DYN);
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
                out.secs(
                    key("software_dynamic_dma_active_time", "hardware_dynamic_dma_active_time"),
                    active,
                    g,
                );
                out.frac(
                    key(
                        "software_dynamic_dma_active_time_percent",
                        "hardware_dynamic_dma_active_time_percent",
                    ),
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
            let e = self.engines[slot];
            let active = union(slot);
            if slot == TENSOR {
                out.count("matmul_instruction_count", self.matmul_count, group);
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
                out.count("activate_instruction_count", self.activate_count, group);
                out.secs("activate_instruction_time", self.activate_ps, group);
            }
        }

        // summary
        let total_active = union(C_TOTAL);
        out.secs("total_active_time", total_active, "summary");
        if let Some(t) = total_s {
            out.frac("total_active_time_percent", total_active as f64 * 1e-12, t, "summary");
        }

        // Tensor engine: hardware FLOPs utilisation from the instruction words
        if let (Some(f), Some(t), Some(p)) = (words_flops, total_s, peak) {
            out.frac("hfu_estimated_percent", f as f64, p * t, "tensor_engine");
        }

        // collectives: none when the program has no memory for collective communication
        if let Some(m) = &memory {
            if m.iter().all(|x| x.collectives_bytes == 0) {
                const CC: &str = "cc_engine";
                out.count("cc_op_count", 0, CC);
                out.secs("cc_op_time", 0, CC);
                out.secs("cc_op_active_time", 0, CC);
                out.frac("cc_op_active_time_percent", 0.0, 1.0, CC);
                out.count("cc_cores_instruction_count", 0, CC);
                out.secs("cc_cores_instruction_time", 0, CC);
                out.secs("cc_cores_instruction_active_time", 0, CC);
                out.frac("cc_cores_instruction_active_time_percent", 0.0, 1.0, CC);
            }
        }

        // throttling, over the profile up to the last instruction end (whole ns)
        let periods: Vec<&crate::model::ThrottlePeriod> =
            infos.iter().flat_map(|d| d.throttle.iter()).collect();
        if !periods.is_empty() && self.max_end > i64::MIN {
            const TH: &str = "throttling_nc0";
            let end_ns = (self.max_end as i128 + self.origin as i128 * 1000).div_euclid(1000) as f64;
            let limit = |p: &crate::model::ThrottlePeriod| {
                if p.limit_den == 0 {
                    1.0
                } else {
                    f64::from(p.limit_num) / f64::from(p.limit_den)
                }
            };
            let limited: i64 = periods.iter().filter(|p| limit(p) < 1.0).map(|p| p.dur_ns.max(0)).sum();
            out.push("throttle_active_nc0_time_ns", Value::Count(limited as u64), Unit::Nanoseconds, TH);
            let mut kinds: Vec<u32> = periods.iter().map(|p| p.kind).collect();
            kinds.sort_unstable();
            kinds.dedup();
            for k in kinds {
                let Some((active_key, limit_key)) = throttle_keys(k) else { continue };
                let of_kind = periods.iter().filter(|p| p.kind == k);
                let dur: f64 = of_kind.clone().map(|p| p.dur_ns.max(0) as f64).sum();
                let weighted: f64 = of_kind.map(|p| p.dur_ns.max(0) as f64 * limit(p)).sum();
                out.frac(active_key, dur, end_ns, TH);
                out.frac(limit_key, weighted, dur, TH);
            }
            let weighted: f64 = periods.iter().map(|p| p.dur_ns.max(0) as f64 * limit(p)).sum();
            out.frac("throttle_avg_util_limit_nc0_percent", weighted, end_ns, TH);
        }

        // system: what the capture states about its software and machine
        const SYSTEM: &str = "system";
        for (key, f) in [
            ("instance_type", (|d: &DeviceInfo| d.instance_type) as fn(&DeviceInfo) -> Option<crate::StrId>),
            ("runtime_version", |d: &DeviceInfo| d.runtime_version),
            ("driver_version", |d: &DeviceInfo| d.driver_version),
            ("collectives_version", |d: &DeviceInfo| d.collectives_version),
        ] {
            if let Some(v) = infos.iter().find_map(|d| f(d)) {
                out.text(key, trace.str(v), SYSTEM);
            }
        }
        if self.window.is_some() {
            out.metrics.retain(|m| windowed(m.key));
        } else {
            prefer_recorded_times(trace, &mut out);
        }
        Some(out)
    }
}

/// The device summary of a Neuron device profile; `None` when the trace has no Neuron device
/// group with engine or DMA tracks. [`DeviceSummaryBuilder`] computes the same in steps.
pub fn device_summary(trace: &Trace) -> Option<DeviceSummary> {
    DeviceSummaryBuilder::new(trace).finish(trace)
}

/// The device summary over the time window `[t0_ns, t1_ns)`, percentages over its length: the
/// keys [`windowed`] accepts (see "Over a time window" in the module doc).
pub fn device_summary_over(trace: &Trace, t0_ns: i64, t1_ns: i64) -> Option<DeviceSummary> {
    DeviceSummaryBuilder::over(trace, t0_ns, t1_ns, TimeBase::Window).finish(trace)
}

/// Whether `key` has a value over a time window ([`device_summary_over`]); the others are
/// facts of the whole profile ([`why_not_windowed`]).
pub fn windowed(key: &str) -> bool {
    const EXACT: [&str; 12] = [
        "hardware_flops",
        "transpose_flops",
        "hfu_estimated_percent",
        "mfu_inst_estimated_percent",
        "matmul_instruction_count",
        "activate_instruction_count",
        "activate_instruction_time",
        "dma_active_time",
        "dma_active_time_percent",
        "dma_active_cycles",
        "dma_packet_time",
        "total_active_time",
    ];
    const PREFIX: [&str; 9] = [
        "tensor_engine_",
        "vector_engine_",
        "scalar_engine_",
        "sync_engine_",
        "gpsimd_engine_",
        "static_dma_",
        "dynamic_dma_",
        "software_dynamic_dma_",
        "hardware_dynamic_dma_",
    ];
    EXACT.contains(&key)
        || key == "total_active_time_percent"
        || matches!(
            key,
            "dma_transfer_count"
                | "dma_transfer_total_bytes"
                | "dma_transfer_time"
                | "dma_transfer_average_bytes"
                | "input_queue_bytes"
                | "output_queue_bytes"
                | "weight_queue_bytes"
        )
        || PREFIX.iter().any(|p| key.starts_with(p))
}

/// Why `key` is given for the whole profile only (the Summary shows it once, marked so).
pub fn why_not_windowed(key: &str) -> &'static str {
    match key {
        "total_time" => "the runtime's execution time of the whole profile (over a window the percentages are of the window's length)",
        "neuroncore_cycle_count" => "cycles of the runtime's execution time of the whole profile",
        "event_count" | "trace_count" => "the capture's notifications have no times in the model",
        "dma_queue_count" => "the queues the capture names, not a count over time",
        "peak_flops_bandwidth_ratio" => "a property of the hardware",
        "dma_transfer_count" | "dma_transfer_total_bytes" | "dma_transfer_time" | "dma_transfer_average_bytes"
        | "input_queue_bytes" | "output_queue_bytes" | "weight_queue_bytes" => {
            "from an NTFF alone the transfers are blocks inferred per queue over the whole execution"
        }
        k if k.starts_with("sbuf_") || k.starts_with("psum_") || k.starts_with("hbm_") || k.starts_with("mbu_") || k == "mm_arithmetic_intensity" => {
            "the instructions' bytes are summed when the file is read: the model keeps the totals, not the bytes per instruction"
        }
        k if k.starts_with("weight_") || k.starts_with("inputs_") || k.starts_with("spill_") => {
            "the runtime's memory allocation for the program"
        }
        k if k.starts_with("cc_") => "collectives: zero when the program has no memory for them, not decoded otherwise",
        k if k.starts_with("throttle_") => "the throttle records carry durations, not start times, in the model",
        "model_flops" | "mfu_estimated_percent" | "mfu_hlo_estimated_percent" | "mfu_hlo_max_achievable_estimated_percent"
        | "mfu_max_achievable_estimated_percent" | "mfu_inst_max_achievable_estimated_percent" => "a figure of the program (the HLO), not of a time window",
        _ => "a fact of the capture (versions, instance type)",
    }
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
                ..DeviceInfo::default()
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

    /// Overlapping, out-of-order and waiting spans on several engines and DMA queues of every
    /// class: the stepped builder at any step size gives the one-shot summary, and its active
    /// times are the lengths of the sort-and-merge unions.
    #[test]
    fn stepped_summary_is_the_one_shot_union() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let wait = b.intern("EVENT_SEMAPHORE");
        let ops = [wait, b.intern("MATMUL"), b.intern("ACTIVATE"), b.intern("NOP")];
        let mut tracks = Vec::new();
        for (i, e) in
            [Engine::Tensor, Engine::TensorMatrix, Engine::Scalar, Engine::GpSimd].into_iter().enumerate()
        {
            let t = b.add_track(g, &format!("e{i}"), TrackKind::Stream, &format!("e{i}"));
            b.set_track_role(t, TrackRole::Engine(e));
            tracks.push((t, Some(e)));
        }
        for (i, q) in [DmaQueueType::Data, DmaQueueType::SoftwareDynamic, DmaQueueType::HardwareDynamic]
            .into_iter()
            .enumerate()
        {
            let t = b.add_track(g, &format!("q{i}"), TrackKind::Dma, &format!("q{i}"));
            b.set_track_dma_queue_type(t, q);
            tracks.push((t, None));
        }
        let mut x = 12345u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        // per union: the spans, for the reference
        let mut spans: Vec<Vec<(i64, i64)>> = vec![Vec::new(); N_CATS];
        for k in 0..3000 {
            let (t, e) = tracks[rnd(tracks.len() as u64) as usize];
            // mostly ascending, sometimes far back (a new run), equal ns starts with shuffled sub-ps
            let start = if rnd(10) == 0 { rnd(50_000) as i64 } else { k as i64 * 17 + rnd(40) as i64 };
            let dur = rnd(60) as i64;
            let sub = (rnd(1000) as u16, rnd(1000) as u16);
            let op = ops[rnd(4) as usize];
            let h = b.add_slice(t, start, dur, op, StrId::EMPTY, ArgsId::NONE);
            let bytes = if e.is_none() { rnd(4096) } else { u64::MAX };
            b.set_slice_domain(
                h,
                SliceDomain {
                    opcode: op,
                    bytes,
                    start_sub_ps: sub.0,
                    dur_sub_ps: sub.1,
                    ..Default::default()
                },
            );
        }
        let trace = b.finish();
        let one = device_summary(&trace).expect("summary");
        for budget in [1, 3, 17, 1000] {
            let mut sb = DeviceSummaryBuilder::new(&trace);
            let mut steps = 0;
            while sb.add_next(&trace, budget) {
                steps += 1;
            }
            assert!(budget > 100 || steps > 3000 / budget);
            assert_eq!(sb.finish(&trace).as_ref(), Some(&one), "budget {budget}");
        }
        // the reference unions, from the model as laid out
        for t in &trace.tracks {
            let cats = DeviceSummaryBuilder::cats_of(t);
            for i in 0..t.slices.len() {
                if matches!(t.role, TrackRole::Engine(_)) && t.slices.opcode_of(i) == wait {
                    continue;
                }
                let sp = span_ps(&t.slices, i, trace.start_ns);
                for (c, v) in spans.iter_mut().enumerate() {
                    if cats & (1 << c) != 0 {
                        v.push(sp);
                    }
                }
            }
        }
        let len = |c: usize| -> f64 {
            crate::analysis::busy::union(spans[c].clone()).iter().map(|&(s, e)| (e - s) as f64).sum::<f64>()
                * 1e-12
        };
        assert!(len(TENSOR) > 0.0 && len(C_HW) > 0.0);
        for (key, c) in [
            ("tensor_engine_active_time", TENSOR),
            ("scalar_engine_active_time", SCALAR),
            ("gpsimd_engine_active_time", GPSIMD),
            ("vector_engine_active_time", VECTOR),
            ("dma_active_time", C_DMA),
            ("static_dma_active_time", C_STATIC),
            ("software_dynamic_dma_active_time", C_SW),
            ("hardware_dynamic_dma_active_time", C_HW),
            ("total_active_time", C_TOTAL),
        ] {
            assert!(approx(one.get(key), len(c)), "{key}: {:?} vs {}", one.get(key), len(c));
        }
        let dyn_frac = one.get("dynamic_dma_active_time_percent").unwrap().as_f64();
        assert!((dyn_frac - len(C_DYN) / len(C_DMA)).abs() < 1e-9);
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
                Value::Text(_) => continue,
                Value::Count(_) if v >= 0.0 && v < u64::MAX as f64 => Value::Count(v.round() as u64),
                Value::Count(_) => continue,
                Value::Number(_) => Value::Number(v),
            };
        }
    }
}
