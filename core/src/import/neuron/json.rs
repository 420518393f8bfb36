//! `neuron-profile view --output-format json` device export ("legacy JSON", neuron.md §3.3).
//!
//! One JSON object whose keys each hold a list of records; key order is not stable between
//! files. Times are integer nanoseconds relative to the profile start (`timestamp`, `duration`,
//! `start_ts`/`end_ts`), read as integers, never through f64.
//!
//! Model (layout shared with the Parquet importer, see [`super::device`]):
//! - `instruction` → slices on the engine track named by `label` (the export's timeline track:
//!   Tensor, TensorMatrix, Vector, Scalar, GpSimd, Sync; `subgroup` is kept as an argument), name
//!   = `opcode`, every other non-empty field as an argument; `predecessors` → flows.
//! - `dma` with `aggregated: "no"` → packet slices on the queue track named by `subgroup`
//!   (`qSyncSpillReload0-Q1-E0`); `aggregated: "yes"` → transfer slices on `<queue> transfers`,
//!   with a flow from the instruction that triggered it (matched by the `trigger` timestamps).
//! - `semaphore_update` → one counter per semaphore id; `ham` → Throttle slices + "Throttle limit"
//!   counter; `pending_dma`, `dma_throughput`, `instruction_usage` (sb/psum) and `active_time` →
//!   counters.
//! - every other key (summary, layer_summary, neff_header, neff_node, dma_queues_info,
//!   profile_info, metadata, model_info, nc_mem_usage, warnings, terminology, …) → trace metadata
//!   `neuron.<key>` as compact JSON, plus `<key>.<field>` scalars for single-record keys.

use super::device::{
    self, add_activity, semaphore_display, store_args, Devices, DMA_ARG_ORDER, INSTRUCTION_ARG_ORDER,
};
use crate::import::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::WarningKind;
use crate::model::{ArgValue, CounterRole, DeviceInfo, DmaQueueType, FlowEnd, SliceHandle, TraceBuilder};
use crate::strings::StrId;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

pub struct NeuronJson;

pub const NAME: &str = "neuron-profile-json";

/// Keys that only this export has: top-level tables and record fields (key order varies, so the
/// sniff looks for any of them in the prefix).
const MARKERS: &[&str] = &[
    "\"active_time\"",
    "\"ham\"",
    "\"semaphore_update\"",
    "\"dma_throughput\"",
    "\"instruction_usage\"",
    "\"pending_dma\"",
    "\"neff_header\"",
    "\"neff_node\"",
    "\"dma_queues_info\"",
    "\"nc_mem_usage\"",
    "\"summary_group_order\"",
    "\"summary_groups\"",
    "\"layer_summary\"",
    "\"profile_info\"",
    "\"model_info\"",
    "\"ntff_version\"",
    "\"ntff_filename\"",
    "\"evt_wait_time\"",
    "\"bir_instruction_name\"",
    "\"packet_aggregation_id\"",
    "\"dma_engine\"",
    "\"hbm_transfer_rate\"",
    "\"hbm_total_transfer_bytes\"",
    "\"usage_avg\"",
    "\"q_eng_idx\"",
    "\"fully_qualified_subgraph\"",
    "\"neuroncore_cycle_count\"",
    "\"number_of_neuroncores_per_lnc\"",
    "\"ticks_per_nanosec\"",
    "\"partition_0_usage\"",
    "\"load_to_sbuf_dma_count\"",
    "\"mfu_estimated_percent\"",
    "\"dma_transfer_count\"",
    "\"qsyncspillreload*\"",
];

/// Top-level keys of the export. The object's first key is always one of them (the order varies
/// between files); the generic ones count as one sniff hit, the distinctive ones as two.
const TOP_KEYS_GENERIC: &[&str] = &["instruction", "dma", "summary", "metadata", "warnings", "terminology"];
const TOP_KEYS_DISTINCT: &[&str] = &[
    "ham",
    "semaphore_update",
    "pending_dma",
    "dma_throughput",
    "instruction_usage",
    "active_time",
    "layer_summary",
    "summary_groups",
    "summary_group_order",
    "neff_header",
    "neff_node",
    "dma_queues_info",
    "nc_mem_usage",
    "model_info",
    "profile_info",
];

/// The first key of a JSON object text, if it is a plain string followed by `:` and a list or
/// object.
fn first_key(p: &[u8]) -> Option<&str> {
    let ws = |i: &mut usize| {
        while p.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    let mut i = p.iter().position(|&c| c == b'{')? + 1;
    ws(&mut i);
    if p.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = p.get(start..)?.iter().take(64).position(|&c| c == b'"')?;
    let key = std::str::from_utf8(&p[start..start + len]).ok()?;
    i = start + len + 1;
    ws(&mut i);
    if p.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    ws(&mut i);
    matches!(p.get(i), Some(b'[') | Some(b'{')).then_some(key)
}

/// Top-level keys converted into the timeline (everything else becomes metadata).
const TIMELINE_KEYS: &[&str] = &[
    "instruction",
    "dma",
    "semaphore_update",
    "pending_dma",
    "dma_throughput",
    "instruction_usage",
    "ham",
    "active_time",
];

/// Single-record keys whose scalar fields are also flattened into `<key>.<field>` metadata.
const FLATTEN_KEYS: &[&str] = &["summary", "metadata", "neff_header", "profile_info", "model_info"];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

impl Importer for NeuronJson {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
        let Some(&first) = p.iter().find(|c| !c.is_ascii_whitespace()) else { return Sniff::No };
        if first != b'{' {
            return Sniff::No;
        }
        let mut hits = MARKERS.iter().filter(|m| contains(p, m.as_bytes())).count();
        match first_key(p) {
            Some(k) if TOP_KEYS_DISTINCT.contains(&k) => hits += 2,
            Some(k) if TOP_KEYS_GENERIC.contains(&k) => hits += 1,
            _ => {}
        }
        match hits {
            0 => Sniff::No,
            1 => Sniff::Maybe,
            _ => Sniff::Yes,
        }
    }

    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        let total = file.bytes.len() as u64;
        // the closer look: the top-level keys, read without building a tree, so a Chrome/Kineto
        // trace (or any other JSON) the sniff let through falls to the next importer cheaply
        let keys = top_level_keys(file.bytes);
        if !keys.is_export() {
            return Err(ImportError::NotMine(NAME));
        }
        let malformed = |e: serde_json::Error| ImportError::Malformed {
            format: NAME,
            offset: line_col_offset(file.bytes, e.line(), e.column()),
            message: format!("invalid JSON: {e}"),
        };
        if let Some(e) = keys.error {
            return Err(malformed(e));
        }
        let v: Value = serde_json::from_slice(file.bytes).map_err(malformed)?;
        let Value::Object(top) = v else { return Err(ImportError::NotMine(NAME)) };
        if !progress.report(total / 2, total) {
            return Err(ImportError::Cancelled);
        }
        Conv::new(b, &top).run(&top);
        if !progress.report(total, total) {
            return Err(ImportError::Cancelled);
        }
        Ok(())
    }
}

/// What identifies the capture a neuron-profile JSON export was made from (its `neff_header`,
/// `profile_info`, `metadata` and `summary` tables), to recognise an NTFF's own export when both
/// are dropped together ([`ExportIdentity::same_capture`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportIdentity {
    /// `neff_header.uuid`, lower-case hex.
    pub uuid: String,
    /// `profile_info.neff_name`: the NEFF path given to the capture.
    pub neff_name: String,
    /// `profile_info.ntff_filename`: the NTFF path given to `neuron-profile view` (informational:
    /// files get renamed and moved, so it does not decide).
    pub ntff_filename: String,
    /// `metadata.ntff_version`.
    pub ntff_version: Option<i64>,
    /// `summary.total_time` (seconds, printed to the ps) in picoseconds.
    pub total_time_ps: Option<u64>,
}

impl ExportIdentity {
    /// Whether this export was made from the NTFF capture `ntff`; `Ok(why)` or `Err(why not)`.
    ///
    /// Definition: the same NEFF (UUID equal; on the NTFF's recoverable prefix when its copy is
    /// truncated) **and** the same execution (the export's `summary.total_time` equals the NTFF's
    /// recorded execution time, `/4/4/1/14` in ps, within 1 ps or 1e-9 relative for the decimal
    /// printing), with no contradiction in the other recorded facts (`metadata.ntff_version`,
    /// `profile_info.neff_name` = the NTFF's NEFF path, when both sides have them). The UUID alone
    /// is not enough: every capture of one NEFF shares it; the execution time to the picosecond
    /// is what tells two captures of one NEFF apart.
    pub fn same_capture(&self, ntff: &super::ntff_identity::NtffIdentity) -> Result<String, String> {
        let t = &ntff.uuid_hex;
        if self.uuid.is_empty() || t.is_empty() {
            return Err("no NEFF UUID to compare".into());
        }
        let same_neff = if t.len() < 32 { self.uuid.starts_with(t.as_str()) } else { &self.uuid == t };
        if !same_neff {
            return Err(format!("NEFF UUID {} ≠ {t}", self.uuid));
        }
        let Some(total) = self.total_time_ps.filter(|_| ntff.execution_time_ps > 0) else {
            return Err("no execution time on both sides to compare".into());
        };
        let diff = total.abs_diff(ntff.execution_time_ps);
        if diff > 1 && diff as f64 > ntff.execution_time_ps as f64 * 1e-9 {
            return Err(format!("execution time {total} ps ≠ {} ps", ntff.execution_time_ps));
        }
        if self.ntff_version.is_some_and(|v| v != ntff.version as i64) {
            return Err(format!("ntff_version {:?} ≠ {}", self.ntff_version, ntff.version));
        }
        if !self.neff_name.is_empty() && !ntff.neff_path.is_empty() && self.neff_name != ntff.neff_path {
            return Err(format!("NEFF path '{}' ≠ '{}'", self.neff_name, ntff.neff_path));
        }
        Ok(format!("same NEFF UUID {} and execution time {} ps", self.uuid, ntff.execution_time_ps))
    }
}

/// [`ExportIdentity`] of a neuron-profile JSON export, read in one pass that keeps only the four
/// small identity tables (every other value is skipped without being built). `None` when the
/// text is not a JSON object or has no `neff_header.uuid`.
pub fn export_identity(bytes: &[u8]) -> Option<ExportIdentity> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    const KEYS: [&str; 4] = ["neff_header", "profile_info", "metadata", "summary"];
    struct Seed<'k>(&'k mut Map<String, Value>);
    impl<'de> DeserializeSeed<'de> for Seed<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Seed<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(k) = map.next_key::<String>()? {
                if KEYS.contains(&k.as_str()) {
                    let v = map.next_value::<Value>()?;
                    self.0.insert(k, v);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut top = Map::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Seed(&mut top).deserialize(&mut de).ok()?;
    de.end().ok()?;
    let text =
        |table: &str, k: &str| first_record(&top, table).map_or("", |r| str_of(r, k)).trim().to_string();
    let uuid = text("neff_header", "uuid").to_ascii_lowercase();
    if uuid.is_empty() {
        return None;
    }
    let total_time_ps = first_record(&top, "summary")
        .and_then(|r| r.get("total_time"))
        .and_then(num_of)
        .filter(|t| t.is_finite() && *t > 0.0 && *t < 1.0e6)
        .map(|t| (t * 1e12).round() as u64);
    Some(ExportIdentity {
        uuid,
        neff_name: text("profile_info", "neff_name"),
        ntff_filename: text("profile_info", "ntff_filename"),
        ntff_version: first_record(&top, "metadata").and_then(|r| r.get("ntff_version")).and_then(int_of),
        total_time_ps,
    })
}

/// What identifies one instruction execution in both the NTFF and its export: the instruction
/// stream (engine), the runtime pc, and the start and duration in ns (the export's `timestamp`
/// and `duration` are the NTFF's picosecond times floored, exactly: `core/tests/ntff_oracle.rs`
/// reproduces every row). Executions with the same key are paired in order.
pub type JoinKey = (crate::model::Engine, i64, i64, i64);

/// The per-instruction attribution of an NTFF's own neuron-profile JSON export (operator names,
/// HLO, FLOPs via `elements`, operands, ids and `predecessors`), to be joined onto the NTFF's
/// instruction rows by [`JoinKey`] ([`super::binary`]): the NTFF stays the timeline
/// (picosecond times), each of its rows gets the export's fields for the same execution.
#[derive(Debug, Default)]
pub struct ExportAttribution {
    /// The export's file name.
    pub file: String,
    records: Vec<Map<String, Value>>,
    /// Key → indexes into `records` not joined yet, in file order (a stack, reversed).
    index: HashMap<JoinKey, Vec<u32>>,
    /// Records without a usable key (no engine, pc, timestamp or duration).
    pub unkeyed: usize,
    /// Records joined so far.
    pub joined: usize,
    /// The static DMA blocks into SBUF (aggregated `dma` rows with a `dest_offset`): `(DMA
    /// queue, SBUF address, bytes per partition)`, NEFF information the NTFF lacks (its SBUF
    /// occupancy, `ntff::memory`).
    pub static_sbuf: Vec<(u8, u64, u64)>,
    /// The NeuronCore the capture ran on (`model_info.nc_idx`), which the NTFF does not carry.
    pub nc_idx: Option<u32>,
}

impl ExportAttribution {
    /// Collect the instruction records of the parsed export `top` (moved out of it).
    fn new(file: &str, top: &mut Map<String, Value>) -> Self {
        let nc_idx = neuron_core_of(top);
        let mut out = ExportAttribution { file: file.to_string(), nc_idx, ..Default::default() };
        let rows = match top.get_mut("instruction") {
            Some(Value::Array(a)) => std::mem::take(a),
            _ => Vec::new(),
        };
        for v in rows {
            let Value::Object(r) = v else { continue };
            let engine = crate::model::Engine::from_alias(str_of(&r, "subgroup"))
                .or_else(|| crate::model::Engine::from_alias(str_of(&r, "label")));
            let key = (|| {
                let int = |k: &str| r.get(k).and_then(int_of);
                Some((engine?, int("pc")?, int("timestamp")?, int("duration").unwrap_or(0)))
            })();
            match (key, u32::try_from(out.records.len())) {
                (Some(k), Ok(i)) => {
                    out.index.entry(k).or_default().push(i);
                    out.records.push(r);
                }
                _ => out.unkeyed += 1,
            }
        }
        for v in out.index.values_mut() {
            v.reverse();
        }
        if let Some(Value::Array(dma)) = top.get("dma") {
            for r in dma.iter().filter_map(|v| v.as_object()) {
                if str_of(r, "aggregated") != "yes" || r.get("dest") != Some(&Value::from(vec!["SB"])) {
                    continue;
                }
                let parse = || -> Option<(u8, u64, u64)> {
                    let off = str_of(r, "dest_offset").trim_matches(|c| c == '[' || c == ']').trim();
                    let off = u64::from_str_radix(off.strip_prefix("0x")?, 16).ok()?;
                    let parts = r.get("dest_num_sb_partitions").and_then(int_of)?.max(1);
                    let bytes = r.get("write_size").and_then(int_of)?;
                    let queue = str_of(r, "dma_queue").trim().parse().ok()?;
                    Some((queue, off, u64::try_from(bytes / parts).ok()?))
                };
                if let Some(x) = parse() {
                    out.static_sbuf.push(x);
                }
            }
        }
        out
    }

    /// Instruction records of the export.
    pub fn rows(&self) -> usize {
        self.records.len() + self.unkeyed
    }

    /// The export's record of the execution `key` (the next one not joined yet), if any.
    pub fn take(&mut self, key: JoinKey) -> Option<&Map<String, Value>> {
        let i = self.index.get_mut(&key)?.pop()?;
        self.joined += 1;
        self.records.get(i as usize)
    }
}

/// Read `file`, the neuron-profile JSON export of the NTFF `ntff_name` dropped with it, for what
/// the NTFF lacks: the export's tables (NEFF header, NEFF nodes, DMA queue info, profile info,
/// layer summary, memory usage, the tool's warnings, …) as metadata, and its per-instruction
/// attribution, returned to be joined onto the NTFF's rows ([`ExportAttribution`]). Its timeline
/// is not imported a second time (the NTFF's is exact), and its `summary` stays a
/// `neuron.summary` record without `summary.<key>` entries, so the device summary is still
/// computed from the NTFF. Adds a [`WarningKind::NeuronJsonExportOfNtff`] warning saying so.
pub fn import_own_export(
    file: &InputFile<'_>,
    ntff_name: &str,
    why: &str,
    b: &mut TraceBuilder,
    progress: &mut dyn Progress,
) -> Result<ExportAttribution, ImportError> {
    let total = file.bytes.len() as u64;
    let v: Value = serde_json::from_slice(file.bytes).map_err(|e| ImportError::Malformed {
        format: NAME,
        offset: line_col_offset(file.bytes, e.line(), e.column()),
        message: format!("invalid JSON: {e}"),
    })?;
    let Value::Object(mut top) = v else { return Err(ImportError::NotMine(NAME)) };
    if !progress.report(total, total) {
        return Err(ImportError::Cancelled);
    }
    b.warn(WarningKind::NeuronJsonExportOfNtff, || {
        format!(
            "'{}' is the neuron-profile JSON export of '{ntff_name}' ({why}): the NTFF's timeline is \
             shown once, with the export's operator attribution, FLOPs and dependencies joined onto its \
             instructions and the export's tables as metadata",
            file.name
        )
    });
    b.add_metadata("neuron.format", format!("neuron-profile JSON export of {ntff_name} (joined onto it)"));
    b.add_metadata("neuron.export_file", file.name.to_string());
    let flatten: Vec<&str> = FLATTEN_KEYS.iter().copied().filter(|k| *k != "summary").collect();
    Conv { b, devices: Devices::new(String::new(), false) }.export_tables(&top, &flatten);
    Ok(ExportAttribution::new(file.name, &mut top))
}

/// The top-level keys of a JSON object text, as far as it parses.
struct TopKeys {
    /// `false` when the text is not a JSON object.
    object: bool,
    keys: Vec<String>,
    /// The syntax error that ended the scan, if any.
    error: Option<serde_json::Error>,
}

impl TopKeys {
    /// A neuron-profile export: an object with a timeline table or a key only the export has
    /// (or its summary), and no `traceEvents`. A top-level `metadata` or `warnings` alone is
    /// not enough: PyTorch traces start with a large `metadata` object. A syntax error after
    /// such keys is the export's damage; before any, the file is not recognisably ours.
    fn is_export(&self) -> bool {
        let has = |k: &str| self.keys.iter().any(|x| x == k);
        self.object
            && !has("traceEvents")
            && self.keys.iter().any(|k| {
                TIMELINE_KEYS.contains(&k.as_str())
                    || TOP_KEYS_DISTINCT.contains(&k.as_str())
                    || k == "summary"
            })
    }
}

/// Read the top-level keys of `bytes` without keeping any value (serde's `IgnoredAny`).
fn top_level_keys(bytes: &[u8]) -> TopKeys {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Seed<'k>(&'k mut TopKeys);
    impl<'de> DeserializeSeed<'de> for Seed<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Seed<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            self.0.object = true;
            while let Some(k) = map.next_key::<String>()? {
                self.0.keys.push(k);
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    let mut out = TopKeys { object: false, keys: Vec::new(), error: None };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let r = Seed(&mut out).deserialize(&mut de).and_then(|()| de.end());
    out.error = r.err();
    out
}

/// Byte offset of a serde_json (1-based line, column) position.
fn line_col_offset(bytes: &[u8], line: usize, col: usize) -> u64 {
    let mut l = 1;
    for (i, &c) in bytes.iter().enumerate() {
        if l == line {
            return (i + col.saturating_sub(1)).min(bytes.len()) as u64;
        }
        if c == b'\n' {
            l += 1;
        }
    }
    bytes.len() as u64
}

/// The records of a top-level key (empty when absent or not a list of objects).
fn records<'a>(top: &'a Map<String, Value>, key: &str) -> impl Iterator<Item = &'a Map<String, Value>> {
    top.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object)
}

/// The NeuronCore of an export (`model_info.nc_idx`, its first record), when it states one.
fn neuron_core_of(top: &Map<String, Value>) -> Option<u32> {
    first_record(top, "model_info")?.get("nc_idx").and_then(int_of).and_then(|n| u32::try_from(n).ok())
}

/// The NEFF UUID of an export (`neff_header.uuid`), lower-case hex, when it states one.
fn neff_uuid_of(top: &Map<String, Value>) -> Option<String> {
    let u = str_of(first_record(top, "neff_header")?, "uuid").trim().to_ascii_lowercase();
    (!u.is_empty() && u.bytes().all(|c| c.is_ascii_hexdigit())).then_some(u)
}

fn first_record<'a>(top: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    match top.get(key)? {
        Value::Array(a) => a.first()?.as_object(),
        Value::Object(o) => Some(o),
        _ => None,
    }
}

/// An integer field: JSON integer or decimal string. Exact (no f64) for integers.
pub(crate) fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().and_then(|u| i64::try_from(u).ok())),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn num_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn str_of<'a>(r: &'a Map<String, Value>, k: &str) -> &'a str {
    r.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Display text of a metadata scalar.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A JSON value as an argument (`None` for null and blank text; lists and objects as JSON text).
fn arg_value(b: &mut TraceBuilder, v: &Value) -> Option<ArgValue> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(x) => ArgValue::Bool(*x),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                ArgValue::Int(i)
            } else if let Some(u) = n.as_u64() {
                ArgValue::UInt(u)
            } else {
                ArgValue::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => {
            if s.trim().is_empty() {
                return None;
            }
            ArgValue::Str(b.intern(s))
        }
        Value::Array(_) | Value::Object(_) => {
            let t = serde_json::to_string(v).unwrap_or_default();
            ArgValue::Json(b.intern(&t))
        }
    })
}

/// All fields of a record as arguments, except `skip`, in the preferred `order`.
fn record_args(
    b: &mut TraceBuilder,
    r: &Map<String, Value>,
    skip: &[&str],
    order: &[&str],
) -> crate::model::ArgsId {
    let mut args = Vec::with_capacity(r.len());
    for (k, v) in r {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if let Some(a) = arg_value(b, v) {
            args.push((k.clone(), a));
        }
    }
    store_args(b, order, args)
}

/// Fields of an instruction record that are its place on the timeline, not arguments.
const INSTRUCTION_TIMELINE_FIELDS: &[&str] = &["timestamp", "duration", "label", "opcode", "pcore_idx"];

/// An instruction record's arguments and typed domain (operator chain, program slot, source,
/// FLOPs), exactly as the export alone gives them: the one definition the export's own import and
/// its join onto the NTFF's rows ([`ExportAttribution`]) share.
pub(crate) fn instruction_attribution(
    b: &mut TraceBuilder,
    r: &Map<String, Value>,
    opcode: StrId,
) -> (crate::model::ArgsId, crate::model::SliceDomain) {
    let args = record_args(b, r, INSTRUCTION_TIMELINE_FIELDS, INSTRUCTION_ARG_ORDER);
    let d = device::domain_from_args(b, opcode, args, false);
    (args, d)
}

struct Conv<'b> {
    b: &'b mut TraceBuilder,
    devices: Devices,
}

impl<'b> Conv<'b> {
    fn new(b: &'b mut TraceBuilder, top: &Map<String, Value>) -> Self {
        let info = first_record(top, "model_info").or_else(|| first_record(top, "summary"));
        let nc = info.and_then(|r| r.get("nc_idx")).and_then(int_of);
        let nd = info.and_then(|r| r.get("nd_idx")).and_then(int_of);
        // several files in one view are told apart by `import_files` (the group's source file)
        let name = match (nd, nc) {
            (Some(nd), Some(nc)) => format!("NeuronCore nd{nd}:nc{nc}"),
            (None, Some(nc)) => format!("NeuronCore nc{nc}"),
            _ => "NeuronCore".to_string(),
        };
        let multi = first_record(top, "metadata")
            .and_then(|m| m.get("num_physical_cores"))
            .and_then(int_of)
            .is_some_and(|n| n > 1);
        Conv { b, devices: Devices::new(name, multi) }
    }

    /// Start and duration of a record; counts and skips records without a usable time.
    fn span(&mut self, r: &Map<String, Value>, what: &str) -> Option<(i64, i64)> {
        let ts = self.time(r, "timestamp").or_else(|| self.time(r, "start_ts"));
        let Some(ts) = ts else {
            self.b.warn(WarningKind::NeuronMissingTimestamp, || {
                format!("a '{what}' record has no integer timestamp; skipped")
            });
            return None;
        };
        let dur = self
            .time(r, "duration")
            .or_else(|| self.time(r, "duration_ns"))
            .or_else(|| self.time(r, "end_ts").map(|e| e - ts))
            .unwrap_or(0);
        Some((ts, dur))
    }

    fn time(&mut self, r: &Map<String, Value>, k: &str) -> Option<i64> {
        let v = r.get(k)?;
        if let Some(t) = int_of(v) {
            return Some(t);
        }
        // a fractional time would be a different producer: keep it, floored, and say so
        let f = v.as_f64().filter(|f| f.is_finite() && f.abs() < 9.0e18)?;
        self.b.warn(WarningKind::NeuronFractionalTime, || {
            format!("field '{k}' holds the non-integer time {f}; floored to ns")
        });
        Some(f.floor() as i64)
    }

    fn pcore(r: &Map<String, Value>) -> i64 {
        r.get("pcore_idx").and_then(int_of).unwrap_or(0)
    }

    /// All fields of a record as arguments, except `skip`.
    fn record_args(&mut self, r: &Map<String, Value>, skip: &[&str], order: &[&str]) -> crate::model::ArgsId {
        record_args(self.b, r, skip, order)
    }

    fn run(mut self, top: &Map<String, Value>) {
        let by_id = self.instructions(top);
        self.dma(top, &by_id);
        self.semaphores(top);
        self.throttle(top);
        self.counters(top);
        self.device_info(top);
        self.metadata(top);
    }

    /// Device facts from the export's own tables: `summary.total_time` (s, the runtime-reported
    /// execution time; the export has it nowhere else), `summary.instance_type`, and
    /// `model_info.event_count` / `dma_queue_count` (else the same keys of `summary`).
    fn device_info(&mut self, top: &Map<String, Value>) {
        let summary = first_record(top, "summary");
        let info = first_record(top, "model_info");
        let get = |k: &str| info.and_then(|r| r.get(k)).or_else(|| summary.and_then(|r| r.get(k)));
        let count = |k: &str| get(k).and_then(int_of).and_then(|n| u64::try_from(n).ok());
        let total = summary
            .and_then(|r| r.get("total_time"))
            .and_then(num_of)
            .filter(|t| t.is_finite() && *t > 0.0 && *t < 1.0e6)
            .map(|t| (t * 1e12).round() as u64);
        let instance = summary.map(|r| str_of(r, "instance_type")).filter(|s| !s.trim().is_empty());
        let instance_type = instance.map(|s| self.b.intern(s.trim()));
        let neff_uuid = neff_uuid_of(top).map(|u| self.b.intern(&u));
        let d = DeviceInfo {
            execution_time_ps: total,
            instance_type,
            event_count: count("event_count"),
            dma_queue_count: count("dma_queue_count"),
            neff_uuid,
            neuron_core: neuron_core_of(top),
            ..DeviceInfo::default()
        };
        if d == DeviceInfo::default() {
            return;
        }
        let groups: Vec<_> = self.devices.groups().collect();
        for g in groups {
            self.b.set_group_device(g, d.clone());
        }
    }

    /// Instructions; returns id → slice for flows and DMA triggers.
    fn instructions(&mut self, top: &Map<String, Value>) -> HashMap<i64, SliceHandle> {
        let cat = self.b.intern("instruction");
        let mut by_id: HashMap<i64, SliceHandle> = HashMap::new();
        let mut preds: Vec<(SliceHandle, i64, String)> = Vec::new();
        for r in records(top, "instruction") {
            let Some((ts, dur)) = self.span(r, "instruction") else { continue };
            let label = match str_of(r, "label") {
                "" => str_of(r, "subgroup"),
                l => l,
            };
            let track = self.devices.get(self.b, Self::pcore(r)).engine(self.b, label);
            let name = match str_of(r, "opcode") {
                "" => self.b.intern("instruction"),
                op => self.b.intern(op),
            };
            let opcode = if str_of(r, "opcode").is_empty() { StrId::EMPTY } else { name };
            let (args, d) = instruction_attribution(self.b, r, opcode);
            let h = self.b.add_slice(track, ts, dur, name, cat, args);
            self.b.set_slice_domain(h, d);
            if let Some(id) = r.get("id").and_then(int_of) {
                by_id.insert(id, h);
            }
            for p in r.get("predecessors").and_then(Value::as_array).into_iter().flatten() {
                if let Some(pid) = p.get("id").and_then(int_of) {
                    let kind = p.get("type").and_then(Value::as_str).unwrap_or("dependency").to_string();
                    preds.push((h, pid, kind));
                }
            }
        }
        let cat = self.b.intern("dependency");
        for (h, pid, kind) in preds {
            match by_id.get(&pid) {
                Some(&from) => {
                    let name = self.b.intern(&kind);
                    self.b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(h), name, cat);
                }
                None => self.b.warn(WarningKind::NeuronFlowUnresolved, || {
                    format!("predecessor instruction {pid} is not in the export; flow dropped")
                }),
            }
        }
        by_id
    }

    fn dma(&mut self, top: &Map<String, Value>, instr: &HashMap<i64, SliceHandle>) {
        let cat_packet = self.b.intern("dma_packet");
        let cat_transfer = self.b.intern("dma_transfer");
        let trig_name = self.b.intern("dma trigger");
        let trig_cat = self.b.intern("dma_trigger");
        // instructions that trigger a DMA, by their start: the first one, and the first one per
        // DMA start it names (maps, not lists: many instructions may share one start)
        let mut trig_first: HashMap<i64, SliceHandle> = HashMap::new();
        let mut trig_exact: HashMap<(i64, i64), SliceHandle> = HashMap::new();
        for r in records(top, "instruction") {
            if let (Some(ts), Some(t), Some(id)) = (
                r.get("timestamp").and_then(int_of),
                r.get("trigger").and_then(int_of),
                r.get("id").and_then(int_of),
            ) {
                if let Some(&h) = instr.get(&id) {
                    trig_first.entry(ts).or_insert(h);
                    trig_exact.entry((ts, t)).or_insert(h);
                }
            }
        }
        for r in records(top, "dma") {
            let Some((ts, dur)) = self.span(r, "dma") else { continue };
            let aggregated = matches!(str_of(r, "aggregated"), "yes" | "true");
            let label = str_of(r, "subgroup");
            let engine = r.get("dma_engine").and_then(int_of);
            let queue = r.get("dma_queue").and_then(int_of);
            let pcore = Self::pcore(r);
            let dev = self.devices.get(self.b, pcore);
            let track = if aggregated {
                let q = if label.is_empty() { "DMA" } else { label };
                dev.dma_transfers(self.b, q)
            } else {
                let l = if label.is_empty() {
                    format!("Q{}-E{}", queue.unwrap_or(-1), engine.unwrap_or(-1))
                } else {
                    label.to_string()
                };
                dev.dma_queue(self.b, &l, engine, queue)
            };
            let name = match str_of(r, "variable") {
                "" => self.b.intern("dma"),
                v => self.b.intern(v),
            };
            let args = self.record_args(
                r,
                &["timestamp", "duration", "aggregated", "subgroup", "pcore_idx"],
                DMA_ARG_ORDER,
            );
            let cat = if aggregated { cat_transfer } else { cat_packet };
            if let Some(q) = DmaQueueType::from_name(str_of(r, "queue_type")) {
                self.b.set_track_dma_queue_type(track, q);
            }
            let h = self.b.add_slice(track, ts, dur, name, cat, args);
            let d = device::domain_from_args(self.b, StrId::EMPTY, args, true);
            self.b.set_slice_domain(h, d);
            if aggregated {
                if let Some(t) = r.get("trigger").and_then(int_of) {
                    let from = trig_exact.get(&(t, ts)).or_else(|| trig_first.get(&t)).copied();
                    match from {
                        Some(from) => {
                            self.b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(h), trig_name, trig_cat)
                        }
                        None => self.b.warn(WarningKind::NeuronDmaTriggerUnresolved, || {
                            format!("no instruction starts at the DMA trigger time {t} ns")
                        }),
                    }
                }
            }
        }
    }

    fn semaphores(&mut self, top: &Map<String, Value>) {
        // counters in semaphore order, created before the samples
        let mut ids: Vec<(i64, String, (i64, String))> = Vec::new();
        let mut seen: HashSet<(i64, String)> = HashSet::new();
        for r in records(top, "semaphore_update") {
            let id = match r.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => scalar_text(v).unwrap_or_default(),
                None => String::new(),
            };
            let p = Self::pcore(r);
            if !seen.contains(&(p, id.clone())) {
                seen.insert((p, id.clone()));
                let key = semaphore_display(&id).1;
                ids.push((p, id, key));
            }
        }
        ids.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
        let mut counters = HashMap::new();
        for (p, id, _) in ids {
            let c = self.devices.get(self.b, p).semaphore(self.b, &id);
            counters.insert((p, id), c);
        }
        for r in records(top, "semaphore_update") {
            let Some(ts) = self.time(r, "timestamp") else {
                self.b.warn(WarningKind::NeuronMissingTimestamp, || {
                    "a 'semaphore_update' record has no integer timestamp; skipped".into()
                });
                continue;
            };
            let id = match r.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => scalar_text(v).unwrap_or_default(),
                None => String::new(),
            };
            let value = r.get("value").and_then(num_of).unwrap_or(f64::NAN);
            if let Some(&c) = counters.get(&(Self::pcore(r), id)) {
                self.b.add_counter_sample(c, ts, value);
            }
        }
    }

    fn throttle(&mut self, top: &Map<String, Value>) {
        let cat = self.b.intern("throttle");
        for r in records(top, "ham") {
            let Some((ts, dur)) = self.span(r, "ham") else { continue };
            let k = r.get("k").and_then(int_of);
            let n = r.get("n").and_then(int_of);
            let dev = self.devices.get(self.b, Self::pcore(r));
            let track = dev.throttle(self.b);
            let limit = dev.counter(self.b, "Throttle limit", "%", CounterRole::Throttle);
            let name = match (k, n) {
                (Some(k), Some(n)) => format!("throttle {k}/{n}"),
                _ => "throttle".to_string(),
            };
            let name = self.b.intern(&name);
            let base = self.record_args(r, &["timestamp", "duration", "pcore_idx"], &["k", "n", "type"]);
            let mut args = self.b.args_of(base);
            if let (Some(k), Some(n)) = (k, n) {
                if n != 0 {
                    let pct = k as f64 * 100.0 / n as f64;
                    let key = self.b.intern("limit_percent");
                    args.push((key, ArgValue::Float(pct)));
                    self.b.add_counter_sample(limit, ts, pct);
                    self.b.add_counter_sample(limit, ts.saturating_add(dur.max(0)), 100.0);
                }
            }
            let args = self.b.add_args(args);
            self.b.add_slice(track, ts, dur, name, cat, args);
        }
    }

    fn sample(&mut self, pcore: i64, name: &str, unit: &str, role: CounterRole, ts: i64, v: Option<f64>) {
        if let Some(v) = v {
            let c = self.devices.get(self.b, pcore).counter(self.b, name, unit, role);
            self.b.add_counter_sample(c, ts, v);
        }
    }

    fn counters(&mut self, top: &Map<String, Value>) {
        for r in records(top, "pending_dma") {
            let Some(ts) = self.time(r, "timestamp") else { continue };
            self.sample(
                Self::pcore(r),
                "Pending DMA",
                "",
                CounterRole::PendingDma,
                ts,
                r.get("value").and_then(num_of),
            );
        }
        for r in records(top, "dma_throughput") {
            let Some(ts) = self.time(r, "timestamp") else { continue };
            let p = Self::pcore(r);
            self.sample(
                p,
                "DMA throughput",
                "B/s",
                CounterRole::DmaThroughput,
                ts,
                r.get("transfer_rate").and_then(num_of),
            );
            self.sample(
                p,
                "DMA transferred",
                "B",
                CounterRole::Generic,
                ts,
                r.get("total_transfer_bytes").and_then(num_of),
            );
            self.sample(
                p,
                "HBM throughput",
                "B/s",
                CounterRole::DmaThroughput,
                ts,
                r.get("hbm_transfer_rate").and_then(num_of),
            );
            self.sample(
                p,
                "HBM transferred",
                "B",
                CounterRole::Generic,
                ts,
                r.get("hbm_total_transfer_bytes").and_then(num_of),
            );
        }
        // usage fractions (0..1) → percent, as in the Parquet *_util_percent columns
        for r in records(top, "instruction_usage") {
            let Some(ts) = self.time(r, "timestamp") else { continue };
            let p = Self::pcore(r);
            let (mem, part) = match str_of(r, "type") {
                "sb" | "sbuf" => ("SBUF", "partition"),
                "psum" => ("PSUM", "bank"),
                other => {
                    let o = other.to_string();
                    self.b.warn(WarningKind::NeuronUnknownUsageType, || {
                        format!("instruction_usage type '{o}' is not sb/psum; skipped")
                    });
                    continue;
                }
            };
            let pct = |v: &Value| num_of(v).map(|x| x * 100.0);
            self.sample(
                p,
                &format!("{mem} usage"),
                "%",
                CounterRole::Utilisation,
                ts,
                r.get("usage_avg").and_then(pct),
            );
            let mut parts: Vec<(i64, f64)> = r
                .iter()
                .filter_map(|(k, v)| {
                    let n = k.strip_prefix(part)?.strip_prefix('_')?.strip_suffix("_usage")?.parse().ok()?;
                    Some((n, pct(v)?))
                })
                .collect();
            parts.sort_by_key(|x| x.0);
            for (n, v) in parts {
                self.sample(
                    p,
                    &format!("{mem} {part} {n} usage"),
                    "%",
                    CounterRole::MemoryOccupancy,
                    ts,
                    Some(v),
                );
            }
        }
        // engine activity (union of instruction intervals), one 0/1 step counter per engine
        let mut spans: device::SpansBy<(i64, String)> = Vec::new();
        let mut span_of: HashMap<(i64, String), usize> = HashMap::new();
        for r in records(top, "active_time") {
            let (Some(s), Some(e)) = (self.time(r, "start_ts"), self.time(r, "end_ts")) else { continue };
            let key = (Self::pcore(r), device::engine_display(str_of(r, "engine")).0);
            match span_of.get(&key) {
                Some(&k) => spans[k].1.push((s, e)),
                None => {
                    span_of.insert(key.clone(), spans.len());
                    spans.push((key, vec![(s, e)]));
                }
            }
        }
        spans.sort_by_key(|x| (x.0 .0, device::engine_display(&x.0 .1).1));
        for ((p, engine), s) in spans {
            let c = self.devices.get(self.b, p).counter(
                self.b,
                &format!("{engine} active"),
                "",
                CounterRole::EngineActivity,
            );
            add_activity(self.b, c, s);
        }
    }

    fn metadata(&mut self, top: &Map<String, Value>) {
        self.b.add_metadata("neuron.format", "neuron-profile JSON export");
        self.export_tables(top, FLATTEN_KEYS);
    }

    /// The export's non-timeline tables as metadata (`neuron.<key>` compact JSON, the timeline
    /// tables' row counts, `<key>.<field>` scalars of the single-record keys in `flatten`, the
    /// export's own warnings).
    fn export_tables(&mut self, top: &Map<String, Value>, flatten: &[&str]) {
        for (k, v) in top {
            if TIMELINE_KEYS.contains(&k.as_str()) {
                let n = v.as_array().map_or(0, Vec::len);
                self.b.add_metadata(format!("neuron.{k}.rows"), n.to_string());
                continue;
            }
            let text = serde_json::to_string(v).unwrap_or_default();
            let key = format!("neuron.{k}");
            let text = device::capped_json(self.b, &key, text);
            self.b.add_metadata(key, text);
        }
        for k in flatten {
            let Some(r) = first_record(top, k) else { continue };
            for (f, v) in r {
                if let Some(t) = scalar_text(v) {
                    self.b.add_metadata(format!("{k}.{f}"), t);
                }
            }
        }
        for (i, w) in records(top, "warnings").enumerate() {
            let cat = str_of(w, "category");
            self.b.add_metadata(
                format!("warning.{i} {cat}").trim_end().to_string(),
                str_of(w, "message").to_string(),
            );
        }
    }
}

#[cfg(test)]
mod tests;
