//! Rule-based **insights** on a Neuron device profile, after Neuron Explorer's own (its Summary
//! viewer's "insights") plus a few of Loupe's. Every rule has its threshold as a named constant
//! and a premise: it is evaluated only when the profile states what the rule needs, otherwise it
//! is reported as *not evaluated* with the reason, never guessed. The measured values come from
//! the [`DeviceSummary`] (neuron-profile's keys, see `device_summary`'s module doc for their
//! definitions); the events behind a fired rule from the model's typed tracks.
//!
//! # Rules (id: condition → fires; premise)
//! - `low_model_flops` (Explorer): `model_flops / hardware_flops` < [`MODEL_FLOPS_MIN`] (50 %):
//!   much of the Tensor engine's work is not the model's (transposes, padding, recomputation).
//!   Premise: `model_flops` known. It is computed from the NEFF's HLO MAC counts, which Loupe does
//!   not decode yet, so this rule is not evaluated today (the reason says so).
//! - `low_nki_share` (Explorer): NKI instructions < [`NKI_SHARE_MIN`] (50 %) of the instructions.
//!   Premise: the data says which instructions come from NKI kernels. The model carries no such
//!   per-instruction marker (the NEFF debug info's NKI kernel location is not attached to the
//!   executed instructions), so the rule is not evaluated.
//! - `throttling` (Explorer: "active throttling"): the capture's throttle records limit the
//!   NeuronCore (`throttle_active_nc0_time_ns` > [`THROTTLE_MIN_NS`] = 0). Premise: the capture
//!   has throttle records. Events: the Throttle track's periods whose limit `k / n` < 1.
//! - `transpose_flops` (Explorer): `transpose_flops / hardware_flops` > [`TRANSPOSE_MAX`] (10 %).
//!   Premise: `transpose_flops` known (JSON export / Parquet rows; an NTFF alone cannot tell a
//!   transpose MATMUL from a regular one).
//! - `collective_outliers` (Explorer): a collective operation longer than
//!   [`COLLECTIVE_OUTLIER_FACTOR`] × the median of its group. Premise: collectives ran and their
//!   durations are in the input: `analysis::device_collectives` (Explorer's Parquet `CcOp`
//!   operations, grouped by name; groups of 3 or more). Otherwise not evaluated: `cc_op_count` = 0
//!   (none ran), or an NTFF's collective records, which Loupe does not decode yet.
//! - `spill_reload` (Explorer): `spill_reload_bytes / hbm_read_bytes` > [`SPILL_RELOAD_MAX`]
//!   (25 %). Premise: both keys known and HBM reads > 0.
//! - `low_active` (Loupe): `total_active_time_percent` < [`ACTIVE_MIN`] (50 %): engines and DMA
//!   together are idle most of the execution time the runtime reports. Premise: the key is known.
//!   Events: the longest gap without any engine instruction or DMA packet (a range).
//! - `dma_bound` (Loupe): `dma_active_time` ≥ [`DMA_BOUND_RATIO`] (2×) the busiest compute
//!   engine's active time. Premise: DMA and at least one engine active time > 0.
//! - `small_dge_packets` (Explorer's warning band "small DMA transfers": DGE transfers under
//!   4 KiB): mean bytes per descriptor-generated (software + hardware DGE) DMA packet <
//!   [`SMALL_DMA_BYTES`]. Premise: DGE packets exist. Events: the DGE packets under that size.
//!
//! Each fired insight carries at most [`MAX_EVENTS`] slice references (the count of all of them
//! is given apart) and, where it has one, the time range that covers them.

use crate::analysis::device_summary::{DeviceSummary, Value};
use crate::model::{ArgValue, DmaQueueType, GroupKind, SliceRef, Trace, TrackId, TrackRole};

/// `low_model_flops`: model FLOPs / hardware (active) FLOPs below this fires.
pub const MODEL_FLOPS_MIN: f64 = 0.50;
/// `low_nki_share`: NKI instructions / all instructions below this fires.
pub const NKI_SHARE_MIN: f64 = 0.50;
/// `throttling`: throttled time (ns) above this fires.
pub const THROTTLE_MIN_NS: f64 = 0.0;
/// `transpose_flops`: transpose FLOPs / hardware FLOPs above this fires.
pub const TRANSPOSE_MAX: f64 = 0.10;
/// `collective_outliers`: a collective longer than this × its group's median fires.
pub const COLLECTIVE_OUTLIER_FACTOR: f64 = 2.0;
/// `spill_reload`: spill reload bytes / HBM read bytes above this fires.
pub const SPILL_RELOAD_MAX: f64 = 0.25;
/// `low_active`: total active time / execution time below this fires.
pub const ACTIVE_MIN: f64 = 0.50;
/// `dma_bound`: DMA active time / the busiest engine's active time at or above this fires.
pub const DMA_BOUND_RATIO: f64 = 2.0;
/// `small_dge_packets`: mean bytes per DGE packet below this fires (4 KiB).
pub const SMALL_DMA_BYTES: f64 = 4096.0;
/// Slice references kept per insight.
pub const MAX_EVENTS: usize = 10_000;

/// How a rule's measured value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// A fraction 0..1 (shown as %).
    Fraction,
    /// A ratio (shown as ×).
    Ratio,
    Bytes,
    Nanoseconds,
}

/// A rule: its stable id, title, threshold and definition.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rule {
    pub id: &'static str,
    pub title: &'static str,
    /// `"<"`, `">"` or `">="`: the value fires when `value <op> threshold`.
    pub op: &'static str,
    pub threshold: f64,
    pub measure: Measure,
    /// Who states the rule: `"Neuron Explorer"` or `"Loupe"`.
    pub origin: &'static str,
    pub definition: &'static str,
}

pub const RULES: [Rule; 9] = [
    Rule {
        id: "low_model_flops",
        title: "Model FLOPs are a small share of the Tensor engine's work",
        op: "<",
        threshold: MODEL_FLOPS_MIN,
        measure: Measure::Fraction,
        origin: "Neuron Explorer",
        definition: "model_flops / hardware_flops: the HLO's useful multiply-adds over what the Tensor engine executed",
    },
    Rule {
        id: "low_nki_share",
        title: "Few instructions come from NKI kernels",
        op: "<",
        threshold: NKI_SHARE_MIN,
        measure: Measure::Fraction,
        origin: "Neuron Explorer",
        definition: "instructions generated by NKI kernels / all executed instructions",
    },
    Rule {
        id: "throttling",
        title: "The NeuronCore was throttled",
        op: ">",
        threshold: THROTTLE_MIN_NS,
        measure: Measure::Nanoseconds,
        origin: "Neuron Explorer",
        definition: "throttle_active_nc0_time_ns: time under a throttle record whose utilisation limit k/n < 1",
    },
    Rule {
        id: "transpose_flops",
        title: "Transposes take a large share of the Tensor engine's FLOPs",
        op: ">",
        threshold: TRANSPOSE_MAX,
        measure: Measure::Fraction,
        origin: "Neuron Explorer",
        definition: "transpose_flops / hardware_flops: Tensor-engine FLOPs spent on transposes (MATMULs against an identity)",
    },
    Rule {
        id: "collective_outliers",
        title: "A collective took much longer than its group's median",
        op: ">",
        threshold: COLLECTIVE_OUTLIER_FACTOR,
        measure: Measure::Ratio,
        origin: "Neuron Explorer",
        definition: "a collective operation's duration / the median duration of the same collective group",
    },
    Rule {
        id: "spill_reload",
        title: "Spill reloads are a large share of HBM reads",
        op: ">",
        threshold: SPILL_RELOAD_MAX,
        measure: Measure::Fraction,
        origin: "Neuron Explorer",
        definition: "spill_reload_bytes / hbm_read_bytes: HBM reads that bring spilled SBUF data back",
    },
    Rule {
        id: "low_active",
        title: "The device is idle most of the execution time",
        op: "<",
        threshold: ACTIVE_MIN,
        measure: Measure::Fraction,
        origin: "Loupe",
        definition: "total_active_time_percent: the union of every engine instruction and DMA packet / the execution time the runtime reports",
    },
    Rule {
        id: "dma_bound",
        title: "DMA is busy far longer than any compute engine",
        op: ">=",
        threshold: DMA_BOUND_RATIO,
        measure: Measure::Ratio,
        origin: "Loupe",
        definition: "dma_active_time / the largest <engine>_engine_active_time: data movement, not compute, bounds the run",
    },
    Rule {
        id: "small_dge_packets",
        title: "DGE DMA packets are small",
        op: "<",
        threshold: SMALL_DMA_BYTES,
        measure: Measure::Bytes,
        origin: "Neuron Explorer",
        definition: "(software_dynamic_dma_size + hardware_dynamic_dma_size) / their packet counts: mean bytes per descriptor-generated DMA packet; small packets waste DMA bandwidth on descriptor overhead",
    },
];

/// The rule with `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// What a rule found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The premise held and the value crossed the threshold.
    Fired {
        value: f64,
        message: String,
        /// Up to [`MAX_EVENTS`] events behind the insight.
        #[serde(skip)]
        events: Vec<SliceRef>,
        /// How many events there are in all.
        event_count: u64,
        /// Time range (ns) covering the events, or the range the rule points at.
        range: Option<(i64, i64)>,
    },
    /// The premise held and the value did not cross the threshold.
    Passed { value: f64 },
    /// The premise did not hold: the rule could not be evaluated.
    NotEvaluated { reason: String },
}

/// One rule's result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Insight {
    pub rule: &'static Rule,
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl Insight {
    pub fn fired(&self) -> bool {
        matches!(self.outcome, Outcome::Fired { .. })
    }
}

fn num(ds: &DeviceSummary, key: &str) -> Option<f64> {
    match ds.get(key)? {
        Value::Text(_) => None,
        v => Some(v.as_f64()).filter(|x| x.is_finite()),
    }
}

fn crosses(r: &Rule, v: f64) -> bool {
    match r.op {
        "<" => v < r.threshold,
        ">" => v > r.threshold,
        _ => v >= r.threshold,
    }
}

/// Format a value of a rule's measure for the sentences.
pub fn format_measure(m: Measure, v: f64) -> String {
    match m {
        Measure::Fraction => format!("{:.2} %", v * 100.0),
        Measure::Ratio => format!("{v:.2}×"),
        Measure::Bytes => format!("{v:.0} B"),
        Measure::Nanoseconds => format!("{v:.0} ns"),
    }
}

/// Tracks of device groups with role `pick`.
fn device_tracks<'a>(trace: &'a Trace, pick: impl Fn(&crate::model::Track) -> bool + 'a) -> Vec<TrackId> {
    trace
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::Device)
        .flat_map(|g| g.tracks.iter().copied())
        .filter(|&t| pick(&trace.tracks[t.idx()]))
        .collect()
}

/// Collected events: the first [`MAX_EVENTS`], the count and the covering range.
#[derive(Default)]
struct Events {
    refs: Vec<SliceRef>,
    count: u64,
    range: Option<(i64, i64)>,
}

impl Events {
    fn add(&mut self, track: TrackId, i: usize, start: i64, end: i64) {
        self.count += 1;
        if self.refs.len() < MAX_EVENTS {
            self.refs.push(SliceRef { track, index: i as u32 });
        }
        self.range = Some(match self.range {
            Some((s, e)) => (s.min(start), e.max(end)),
            None => (start, end),
        });
    }
}

/// Evaluate every rule on a device profile. `ds`: its device summary.
pub fn neuron_insights(trace: &Trace, ds: &DeviceSummary) -> Vec<Insight> {
    RULES.iter().map(|r| Insight { rule: r, outcome: evaluate(trace, ds, r) }).collect()
}

fn not_evaluated(reason: impl Into<String>) -> Outcome {
    Outcome::NotEvaluated { reason: reason.into() }
}

fn evaluate(trace: &Trace, ds: &DeviceSummary, r: &Rule) -> Outcome {
    let fired = |value: f64, message: String, ev: Events| Outcome::Fired {
        value,
        message,
        events: ev.refs,
        event_count: ev.count,
        range: ev.range,
    };
    let shown = |v: f64| format_measure(r.measure, v);
    let th = shown(r.threshold);
    match r.id {
        "low_model_flops" => {
            let (Some(model), Some(hw)) = (num(ds, "model_flops"), num(ds, "hardware_flops")) else {
                return not_evaluated(
                    "model_flops is not known: it comes from the NEFF's HLO MAC counts, which Loupe does not \
                     decode yet (an NTFF alone has no HLO)",
                );
            };
            if hw <= 0.0 {
                return not_evaluated("hardware_flops is 0: the Tensor engine did no MATMUL");
            }
            let v = model / hw;
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let msg = format!(
                "Only {} of the Tensor engine's {hw:.0} FLOPs are the model's ({model:.0}; threshold {th}): \
                 look for transposes, padding or recomputation.",
                shown(v)
            );
            fired(v, msg, Events::default())
        }
        "low_nki_share" => not_evaluated(
            "the profile does not say which instructions come from NKI kernels: the model carries no \
             per-instruction NKI marker (the NEFF debug info's kernel location is not attached to the \
             executed instructions)",
        ),
        "throttling" => {
            let Some(ns) = num(ds, "throttle_active_nc0_time_ns") else {
                return not_evaluated("the capture has no throttle records");
            };
            if !crosses(r, ns) {
                return Outcome::Passed { value: ns };
            }
            let mut ev = Events::default();
            // duration-weighted utilisation limit k/n over the throttled periods
            let mut weighted = (0.0f64, 0.0f64);
            let (kk, kn) = (trace.strings.find("k"), trace.strings.find("n"));
            for t in device_tracks(trace, |t| t.role == TrackRole::Throttle) {
                let c = &trace.tracks[t.idx()].slices;
                for i in 0..c.len() {
                    let (mut k, mut n) = (None, None);
                    for (key, v) in trace.args.get(c.args[i]) {
                        let v = match v {
                            ArgValue::UInt(u) => u as f64,
                            ArgValue::Int(x) => x as f64,
                            ArgValue::Float(x) => x,
                            _ => continue,
                        };
                        if Some(key) == kk {
                            k = Some(v);
                        } else if Some(key) == kn {
                            n = Some(v);
                        }
                    }
                    if let (Some(k), Some(n)) = (k, n) {
                        if n > 0.0 && k / n < 1.0 {
                            ev.add(t, i, c.start_ns[i], c.start_ns[i] + c.dur_ns.at(i).max(0));
                            let d = c.dur_ns.at(i).max(0) as f64;
                            weighted.0 += d * k / n;
                            weighted.1 += d;
                        }
                    }
                }
            }
            let limit = (weighted.1 > 0.0).then(|| weighted.0 / weighted.1);
            let msg = format!(
                "Throttle records limited the NeuronCore for {ns:.0} ns{} ({} throttled period{}): the engines \
                 could not run at full rate then (power or thermal management).",
                limit.map_or(String::new(), |l| format!(
                    ", to {:.1} % of its rate on average while throttled",
                    l * 100.0
                )),
                ev.count,
                if ev.count == 1 { "" } else { "s" },
            );
            fired(ns, msg, ev)
        }
        "transpose_flops" => {
            let (Some(tr), Some(hw)) = (num(ds, "transpose_flops"), num(ds, "hardware_flops")) else {
                return not_evaluated(
                    "transpose_flops is not known: an NTFF alone cannot tell a transpose MATMUL from a \
                     regular one (the tool takes it from the NEFF's debug info); the JSON export and \
                     Explorer Parquet state it",
                );
            };
            if hw <= 0.0 {
                return not_evaluated("hardware_flops is 0: the Tensor engine did no MATMUL");
            }
            let v = tr / hw;
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let msg = format!(
                "{} of the Tensor engine's FLOPs are transposes (threshold {th}): a layout that needs no \
                 transpose, or a DMA transpose, frees the PE array.",
                shown(v)
            );
            fired(v, msg, Events::default())
        }
        "collective_outliers" => {
            // the collective operations the input carries (Explorer's Parquet CcOp table)
            let (outliers, worst) =
                super::device_collectives::collective_outliers(trace, COLLECTIVE_OUTLIER_FACTOR);
            let Some(worst) = worst else {
                return match num(ds, "cc_op_count") {
                    Some(0.0) => not_evaluated("no collective operation ran in this profile (cc_op_count = 0)"),
                    _ => not_evaluated(format!(
                        "no group of {} or more collective operations in these files (they come from Explorer's \
                         Parquet CcOp table; an NTFF's own collective records are not decoded yet)",
                        super::device_collectives::MIN_GROUP
                    )),
                };
            };
            if outliers.is_empty() {
                return Outcome::Passed { value: worst };
            }
            let mut ev = Events::default();
            for r in &outliers {
                let s = &trace.tracks[r.track.idx()].slices;
                let i = r.index as usize;
                ev.add(r.track, i, s.start_ns[i], s.end_ns(i));
            }
            let msg = format!(
                "{} collective operation(s) took more than {th} their group's median (the longest {}): a \
                 straggling core, contention or a slow link.",
                outliers.len(),
                shown(worst)
            );
            fired(worst, msg, ev)
        }
        "spill_reload" => {
            let (Some(reload), Some(reads)) = (num(ds, "spill_reload_bytes"), num(ds, "hbm_read_bytes"))
            else {
                return not_evaluated(
                    "spill_reload_bytes or hbm_read_bytes is not known (spill traffic needs the NEFF's spill \
                     queues when the runtime allocated spill space; HBM bytes need every executed \
                     instruction's operands decoded)",
                );
            };
            if reads <= 0.0 {
                return not_evaluated("hbm_read_bytes is 0: nothing was read from HBM");
            }
            let v = reload / reads;
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let msg = format!(
                "{} of the HBM reads reload spilled data ({reload:.0} of {reads:.0} B; threshold {th}): SBUF \
                 pressure makes the program save and reload intermediates.",
                shown(v)
            );
            fired(v, msg, Events::default())
        }
        "low_active" => {
            let Some(v) = num(ds, "total_active_time_percent") else {
                return not_evaluated("total_active_time_percent is not known (no execution time reported)");
            };
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let gap = longest_idle_gap(trace);
            let span = activity_span(trace);
            let ev = Events { range: gap.or(span), ..Events::default() };
            let span_text = span.map_or(String::new(), |(s, e)| {
                format!(" The recorded instructions and DMA packets span {} ns from first to last.", e - s)
            });
            let gap_text = gap.map_or(String::new(), |(s, e)| {
                format!(" Inside that span the longest gap without any is {} ns.", e - s)
            });
            let gap_text = format!("{span_text}{gap_text}");
            let msg = format!(
                "Engines and DMA together are active {} of the execution time the runtime reports (threshold \
                 {th}): the device waits on the host, on the runtime or on dependencies.{gap_text}",
                shown(v)
            );
            fired(v, msg, ev)
        }
        "dma_bound" => {
            let Some(dma) = num(ds, "dma_active_time") else {
                return not_evaluated("dma_active_time is not known");
            };
            let busiest = ["tensor", "vector", "scalar", "gpsimd", "sync"]
                .iter()
                .filter_map(|e| num(ds, &format!("{e}_engine_active_time")).map(|v| (*e, v)))
                .fold(None, |acc: Option<(&str, f64)>, x| match acc {
                    Some(a) if a.1 >= x.1 => Some(a),
                    _ => Some(x),
                });
            let Some((engine, eng)) = busiest.filter(|b| b.1 > 0.0) else {
                return not_evaluated("no engine was active (no engine active time > 0)");
            };
            if dma <= 0.0 {
                return not_evaluated("no DMA packet ran (dma_active_time = 0)");
            }
            let v = dma / eng;
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let msg = format!(
                "DMA is active {} as long as the busiest engine ({engine}: {:.3} µs vs DMA {:.3} µs; threshold \
                 {th}): the run is bound by data movement: fewer, larger or overlapped transfers help.",
                shown(v),
                eng * 1e6,
                dma * 1e6
            );
            fired(v, msg, Events::default())
        }
        "small_dge_packets" => {
            let count = |k: &str| num(ds, k).unwrap_or(0.0);
            let packets =
                count("software_dynamic_dma_packet_count") + count("hardware_dynamic_dma_packet_count");
            let bytes = count("software_dynamic_dma_size") + count("hardware_dynamic_dma_size");
            if packets <= 0.0 {
                return not_evaluated("no DGE (software or hardware dynamic) DMA packet in this profile");
            }
            let v = bytes / packets;
            if !crosses(r, v) {
                return Outcome::Passed { value: v };
            }
            let mut ev = Events::default();
            let dge = |t: &crate::model::Track| {
                t.role == TrackRole::DmaQueue
                    && matches!(
                        t.dma_queue_type,
                        Some(DmaQueueType::SoftwareDynamic | DmaQueueType::HardwareDynamic)
                    )
            };
            for t in device_tracks(trace, dge) {
                let c = &trace.tracks[t.idx()].slices;
                for i in 0..c.len() {
                    let b = c.bytes_of(i);
                    if b != u64::MAX && (b as f64) < SMALL_DMA_BYTES {
                        ev.add(t, i, c.start_ns[i], c.start_ns[i] + c.dur_ns.at(i).max(0));
                    }
                }
            }
            let msg = format!(
                "DGE DMA packets carry {} on average (threshold {th}); {} of {packets:.0} are under 4 KiB: \
                 per-descriptor overhead dominates small transfers.",
                shown(v),
                ev.count
            );
            fired(v, msg, ev)
        }
        _ => not_evaluated("unknown rule"),
    }
}

/// First start to last end of every engine instruction and DMA packet of the device groups, ns.
pub fn activity_span(trace: &Trace) -> Option<(i64, i64)> {
    let mut span: Option<(i64, i64)> = None;
    for t in device_tracks(trace, |t| matches!(t.role, TrackRole::Engine(_) | TrackRole::DmaQueue)) {
        let c = &trace.tracks[t.idx()].slices;
        for i in 0..c.len() {
            let (s, e) = (c.start_ns[i], c.start_ns[i] + c.dur_ns.at(i).max(0));
            span = Some(span.map_or((s, e), |(a, b)| (a.min(s), b.max(e))));
        }
    }
    span
}

/// The longest interval inside the device activity's span with no engine instruction and no DMA
/// packet running, ns. `None` when the activity has no gap.
pub fn longest_idle_gap(trace: &Trace) -> Option<(i64, i64)> {
    let tracks = device_tracks(trace, |t| matches!(t.role, TrackRole::Engine(_) | TrackRole::DmaQueue));
    let mut spans: Vec<(i64, i64)> = Vec::new();
    for t in tracks {
        let c = &trace.tracks[t.idx()].slices;
        spans.extend((0..c.len()).map(|i| (c.start_ns[i], c.start_ns[i] + c.dur_ns.at(i).max(0))));
    }
    spans.sort_unstable();
    let mut best: Option<(i64, i64)> = None;
    let mut end = i64::MIN;
    for (s, e) in spans {
        if end != i64::MIN && s > end && best.is_none_or(|b| s - end > b.1 - b.0) {
            best = Some((end, s));
        }
        end = end.max(e);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::device_summary::{Metric, Unit};

    fn summary(kv: &[(&'static str, f64)]) -> DeviceSummary {
        DeviceSummary {
            metrics: kv
                .iter()
                .map(|&(key, v)| Metric { key, value: Value::Number(v), unit: Unit::Count, group: "t" })
                .collect(),
        }
    }

    fn empty_trace() -> Trace {
        crate::model::TraceBuilder::new("test").finish()
    }

    fn outcome<'a>(v: &'a [Insight], id: &str) -> &'a Outcome {
        &v.iter().find(|i| i.rule.id == id).unwrap().outcome
    }

    #[test]
    fn every_rule_reports_and_premises_hold() {
        let t = empty_trace();
        let v = neuron_insights(&t, &DeviceSummary::default());
        assert_eq!(v.len(), RULES.len());
        assert!(v.iter().all(|i| matches!(i.outcome, Outcome::NotEvaluated { .. })), "{v:?}");
        let Outcome::NotEvaluated { reason } = outcome(&v, "low_model_flops") else { panic!() };
        assert!(reason.contains("model_flops"));
    }

    #[test]
    fn thresholds_fire_on_the_right_side() {
        let t = empty_trace();
        let ds = summary(&[
            ("model_flops", 40.0),
            ("hardware_flops", 100.0),
            ("transpose_flops", 11.0),
            ("spill_reload_bytes", 26.0),
            ("hbm_read_bytes", 100.0),
            ("total_active_time_percent", 0.49),
            ("dma_active_time", 2.0e-6),
            ("tensor_engine_active_time", 1.0e-6),
            ("vector_engine_active_time", 0.5e-6),
            ("software_dynamic_dma_packet_count", 10.0),
            ("software_dynamic_dma_size", 40950.0),
            ("throttle_active_nc0_time_ns", 5.0),
            ("cc_op_count", 0.0),
        ]);
        let v = neuron_insights(&t, &ds);
        for id in [
            "low_model_flops",
            "transpose_flops",
            "spill_reload",
            "low_active",
            "dma_bound",
            "small_dge_packets",
            "throttling",
        ] {
            assert!(matches!(outcome(&v, id), Outcome::Fired { .. }), "{id}: {:?}", outcome(&v, id));
        }
        let Outcome::Fired { value, .. } = outcome(&v, "small_dge_packets") else { panic!() };
        assert_eq!(*value, 4095.0);
        assert!(matches!(outcome(&v, "collective_outliers"), Outcome::NotEvaluated { .. }));
        assert!(matches!(outcome(&v, "low_nki_share"), Outcome::NotEvaluated { .. }));

        let ds = summary(&[
            ("model_flops", 50.0),
            ("hardware_flops", 100.0),
            ("transpose_flops", 10.0),
            ("spill_reload_bytes", 25.0),
            ("hbm_read_bytes", 100.0),
            ("total_active_time_percent", 0.5),
            ("dma_active_time", 1.99e-6),
            ("tensor_engine_active_time", 1.0e-6),
            ("software_dynamic_dma_packet_count", 10.0),
            ("software_dynamic_dma_size", 40960.0),
            ("throttle_active_nc0_time_ns", 0.0),
        ]);
        let v = neuron_insights(&t, &ds);
        for id in [
            "low_model_flops",
            "transpose_flops",
            "spill_reload",
            "low_active",
            "dma_bound",
            "small_dge_packets",
            "throttling",
        ] {
            assert!(matches!(outcome(&v, id), Outcome::Passed { .. }), "{id}: {:?}", outcome(&v, id));
        }
    }

    #[test]
    fn zero_denominators_are_not_evaluated() {
        let t = empty_trace();
        let ds = summary(&[
            ("model_flops", 0.0),
            ("hardware_flops", 0.0),
            ("transpose_flops", 0.0),
            ("spill_reload_bytes", 0.0),
            ("hbm_read_bytes", 0.0),
            ("dma_active_time", 1.0),
            ("software_dynamic_dma_packet_count", 0.0),
        ]);
        let v = neuron_insights(&t, &ds);
        for id in ["low_model_flops", "transpose_flops", "spill_reload", "dma_bound", "small_dge_packets"] {
            assert!(matches!(outcome(&v, id), Outcome::NotEvaluated { .. }), "{id}");
        }
    }

    /// A built device profile: DGE packets of 1 KiB and 8 KiB, a throttled and an unthrottled
    /// period, an engine with a gap. The events behind each insight are exactly those.
    #[test]
    fn built_trace_links_events() {
        use crate::analysis::device_summary::device_summary;
        use crate::model::{ArgsId, DeviceInfo, Engine, SliceDomain, TraceBuilder, TrackKind};
        use crate::strings::StrId;
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        b.set_group_device(g, DeviceInfo { execution_time_ps: Some(10_000_000), ..DeviceInfo::default() });
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let q = b.add_track(g, "q", TrackKind::Dma, "q");
        b.set_track_role(q, TrackRole::DmaQueue);
        b.set_track_dma_queue_type(q, DmaQueueType::SoftwareDynamic);
        let th = b.add_track(g, "Throttle", TrackKind::Stream, "throttle");
        b.set_track_role(th, TrackRole::Throttle);
        let (op, d, tn) = (b.intern("NOP"), b.intern("dma"), b.intern("throttle"));
        for (s, dur) in [(0, 10), (1000, 10)] {
            let h = b.add_slice(pe, s, dur, op, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { opcode: op, bytes: u64::MAX, ..Default::default() });
        }
        for (s, bytes) in [(20, 1024), (40, 8192), (60, 1024)] {
            let h = b.add_slice(q, s, 10, d, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { opcode: d, bytes, ..Default::default() });
        }
        let (kk, kn) = (b.intern("k"), b.intern("n"));
        for (s, k, n) in [(0, 7u64, 8u64), (500, 1, 1)] {
            let args = b.add_args([(kk, ArgValue::UInt(k)), (kn, ArgValue::UInt(n))]);
            b.add_slice(th, s, 500, tn, StrId::EMPTY, args);
        }
        let mut info = DeviceInfo { execution_time_ps: Some(10_000_000), ..DeviceInfo::default() };
        info.throttle = vec![
            crate::model::ThrottlePeriod { dur_ns: 500, kind: 0, limit_num: 7, limit_den: 8 },
            crate::model::ThrottlePeriod { dur_ns: 510, kind: 99, limit_num: 1, limit_den: 1 },
        ];
        b.set_group_device(g, info);
        let t = b.finish();
        let ds = device_summary(&t).expect("summary");
        let v = neuron_insights(&t, &ds);

        let Outcome::Fired { value, events, event_count, range, .. } = outcome(&v, "small_dge_packets")
        else {
            panic!("{v:?}")
        };
        assert!((value - 10240.0 / 3.0).abs() < 1e-9);
        assert_eq!(*event_count, 2);
        assert_eq!(events.iter().map(|r| (r.track, r.index)).collect::<Vec<_>>(), vec![(q, 0), (q, 2)]);
        assert_eq!(*range, Some((20, 70)));

        let Outcome::Fired { value, events, range, message, .. } = outcome(&v, "throttling") else {
            panic!("{v:?}")
        };
        assert_eq!(*value, 500.0);
        assert!(message.contains("87.5 % of its rate"), "{message}");
        assert_eq!(events.iter().map(|r| (r.track, r.index)).collect::<Vec<_>>(), vec![(th, 0)]);
        assert_eq!(*range, Some((0, 500)));

        // active 10 + 30 + 10 ns of 10 µs; the longest gap: after the last packet to the 2nd instruction
        let Outcome::Fired { range, .. } = outcome(&v, "low_active") else { panic!("{v:?}") };
        assert_eq!(*range, Some((70, 1000)));
        assert_eq!(longest_idle_gap(&t), Some((70, 1000)));
        assert_eq!(activity_span(&t), Some((0, 1010)));
        // DMA 30 ns vs Tensor 20 ns: 1.5x, under the threshold
        let Outcome::Passed { value } = outcome(&v, "dma_bound") else { panic!("{v:?}") };
        assert!((value - 1.5).abs() < 1e-9);
    }
}
