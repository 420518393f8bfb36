//! The Summary widget's device-profile overview, laid out as a Neuron user reads Neuron
//! Explorer's Summary: MFU / HFU / MBU and arithmetic intensity as big cells, the FLOPs
//! breakdown, DMA by kind (static, software DGE, hardware DGE: packets, bytes, active time), HBM
//! traffic (a doughnut of read / write / unused HBM bandwidth when those shares are well-defined,
//! else bars of read, write, spill reload, spill save: see `hbm_chart`), engine utilisation, throttling, then
//! the insights (`loupe_core::analysis::neuron_insights`: fired ones first, a click shows and
//! zooms to the events behind it; rules that held and rules not evaluated, with the reason,
//! folded below). Every number is a key of neuron-profile's `summary` from
//! `loupe_core::analysis::device_summary` (cells carry `data-key` / `data-value` = the raw value
//! as `loupe summary --json` prints it); a key the input cannot give shows "—" with the reason on
//! hover (`device_summary::why_missing`), never a made-up number. Sized for a side pane of
//! ~420 px: wrapping grids, no fixed widths.
//!
//! **Scope** (issue 40 §1): the numbers are those of the whole profile, the current view (it
//! follows the timeline as the user pans and zooms, [`VIEW_DEBOUNCE_MS`] after the last move),
//! the box selection's time range, or the interval between two consecutive annotation markers
//! (the last two offered only when there is one). A part of the timeline is summed by
//! `device_summary::DeviceSummaryBuilder::over` — the keys defined over a window, percentages of
//! the window's length, the Current Selection summary's window semantics — in steps of
//! [`STEP`] slices with the browser given a turn every `SLICE_MS`, a newer request abandoning an
//! older one. Keys that have no value over a window (runtime totals, the instructions' HBM
//! bytes, throttling, versions: `device_summary::why_not_windowed`) keep the whole profile's
//! value, marked † with the reason on hover and `data-scope="whole"`; every other cell has
//! `data-scope` = the scope shown. The scope line states the scope, its interval and the base of
//! the percentages. The insights are the whole profile's.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::device_summary::{
    key_definition, why_missing, why_not_windowed, DeviceSummary, DeviceSummaryBuilder, TimeBase, Unit, Value,
};
use loupe_core::analysis::neuron_insights::{format_measure, neuron_insights, Insight, Outcome};
use loupe_core::model::Engine;
use loupe_core::time::format_duration_ns;
use loupe_core::view::Rgb;

use send_wrapper::SendWrapper;

use crate::canvas::scheduler::Scheduler;
use crate::charts::{Chart, ChartCanvas, Part, Unit as ChartUnit};
use crate::describe;
use crate::platform::{now_ms, yield_now, SLICE_MS};
use crate::search_runner::show_events;
use crate::state::{AppState, TraceData, ViewRequest, ViewportBus};
use crate::widgets::deferred::zoom_to;
use crate::widgets::fmt_bytes;

/// After the last pan or zoom, this long before the current view is summed again (ms).
pub const VIEW_DEBOUNCE_MS: u32 = 200;
/// Slices (then spans of the unions) per step of a window's summary.
const STEP: usize = 20_000;

/// What part of the profile the numbers cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Whole,
    View,
    Selection,
    Annotation,
}

impl Scope {
    fn id(self) -> &'static str {
        match self {
            Scope::Whole => "whole",
            Scope::View => "view",
            Scope::Selection => "selection",
            Scope::Annotation => "annotation",
        }
    }
}

/// A window's summary, once computed.
#[derive(Clone)]
struct Scoped {
    scope: Scope,
    t0_ns: i64,
    t1_ns: i64,
    ds: Arc<DeviceSummary>,
    /// Wall time of the computation and its longest step between two turns of the browser (ms).
    ms: f64,
    longest_ms: f64,
}

/// The summaries a cell reads: the whole profile's, and the window's when a part is shown.
#[derive(Clone, Copy)]
struct Shown<'a> {
    whole: &'a DeviceSummary,
    win: Option<&'a Scoped>,
}

impl Shown<'_> {
    /// `key`'s value, and when it is the whole profile's in a window's place, why.
    fn get(&self, key: &str) -> (Option<Value>, Option<&'static str>) {
        match self.win {
            None => (self.whole.get(key), None),
            Some(w) => match w.ds.get(key) {
                Some(v) => (Some(v), None),
                None => match self.whole.get(key) {
                    Some(v) => (Some(v), Some(why_not_windowed(key))),
                    None => (None, None),
                },
            },
        }
    }
    fn scope(&self) -> &'static str {
        self.win.map_or("whole", |w| w.scope.id())
    }
    /// The summary engine figures come from.
    fn engines(&self) -> &DeviceSummary {
        self.win.map_or(self.whole, |w| &w.ds)
    }
}

/// A fraction as a percentage with enough digits to read a small one (0.0220 %).
pub fn fmt_fraction(v: f64) -> String {
    let p = v * 100.0;
    if p == 0.0 {
        "0 %".into()
    } else if p.abs() >= 10.0 {
        format!("{p:.1} %")
    } else if p.abs() >= 0.1 {
        format!("{p:.2} %")
    } else {
        let digits = (-p.abs().log10().floor()) as usize + 2;
        format!("{:.*} %", digits.min(9), p)
    }
}

/// A value as a user reads it, by unit.
fn shown(v: &Value, unit: Unit) -> String {
    let raw = v.as_f64();
    match (unit, v) {
        (_, Value::Text(t)) => t.clone(),
        (Unit::Seconds, _) => format_duration_ns((raw * 1e9).round() as i64),
        (Unit::Fraction, _) => fmt_fraction(raw),
        (Unit::Bytes, _) => fmt_bytes(raw.max(0.0) as u64),
        (Unit::Nanoseconds, _) => format_duration_ns(raw.round() as i64),
        (Unit::Flops, _) | (Unit::Count, _) if raw >= 1e6 => format!("{:.3}M", raw / 1e6),
        (Unit::Ratio, _) => format!("{raw:.2}"),
        (_, Value::Count(n)) => n.to_string(),
        (_, Value::Number(x)) => format!("{x:.4}"),
    }
}

/// The raw value as `data-value` (the same text as the full key table).
fn raw_text(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        v => v.as_f64().to_string(),
    }
}

fn unit_of(ds: &DeviceSummary, key: &str) -> Unit {
    ds.rows().iter().find(|m| m.key == key).map_or(Unit::Count, |m| m.unit)
}

/// One value cell: `data-key`, `data-value`, `data-scope`, the value, the definition (or why it
/// is missing, or why it is the whole profile's) on hover. `class`: the element's class.
fn value_cell(sh: Shown, key: &'static str, class: &'static str) -> AnyView {
    let ds = sh.whole;
    match sh.get(key) {
        (Some(v), whole_only) => {
            let unit = unit_of(ds, key);
            let mut title = match key_definition(key) {
                Some(d) => format!("{key} = {}\n{d}", raw_text(&v)),
                None => format!("{key} = {} {}", raw_text(&v), unit.label()),
            };
            if let Some(why) = whole_only {
                title =
                    format!("{title}\n† The whole profile's value: not defined over a part of it ({why}).");
                let class = format!("{class} ns-whole-only");
                return view! {
                    <span class=class data-key=key data-value=raw_text(&v) data-scope="whole" title=title>
                        {shown(&v, unit)}<sup class="ns-dagger">"†"</sup></span>
                }
                .into_any();
            }
            view! { <span class=class data-key=key data-value=raw_text(&v) data-scope=sh.scope() title=title>{shown(&v, unit)}</span> }
                .into_any()
        }
        (None, _) => {
            let title = format!("{key}: not available: {}", why_missing(key));
            view! { <span class=format!("{class} ns-missing") data-key=key data-missing="true" title=title>"—"</span> }
                .into_any()
        }
    }
}

/// A big headline cell: label, value.
fn big(sh: Shown, key: &'static str, label: &'static str) -> AnyView {
    let def = key_definition(key).unwrap_or("");
    view! {
        <div class="ns-big" title=def>
            <div class="ns-big-label">{label}</div>
            {value_cell(sh, key, "ns-big-value")}
        </div>
    }
    .into_any()
}

/// A key/value row.
fn kv(sh: Shown, key: &'static str, label: &'static str) -> AnyView {
    let def = key_definition(key).unwrap_or(key);
    view! { <tr><th title=def>{label}</th><td class="num">{value_cell(sh, key, "ns-val")}</td></tr> }
        .into_any()
}

/// How the HBM traffic is drawn.
struct HbmChart {
    chart: Arc<Chart>,
    /// `doughnut` or `bars`.
    kind: &'static str,
    /// Doughnut: (read, write, unused) shares of the HBM bandwidth over `total_time`, 0..=1.
    shares: Option<(f64, f64, f64)>,
    /// Why the doughnut is not drawn (bars instead).
    why_bars: &'static str,
}

/// HBM traffic. A doughnut of the HBM bandwidth available over `total_time` — read, write and
/// unused — when those shares are well-defined from the summary's own keys: MBU known and within
/// 0..=1 (read + write = MBU of the whole, split by their bytes; unused = 1 − MBU) and no spill
/// traffic (`spill_reload_bytes` = `spill_save_bytes` = 0). With spill bytes the shares are not
/// well-defined: a spill reload is an HBM read, but neither the tool's documentation nor the
/// captures say whether `hbm_read_bytes` / `hbm_write_bytes` already count spill traffic (no
/// capture of the corpus spills), so adding spill slices could count bytes twice. Then, or
/// without MBU, bars of the byte keys that are known.
fn hbm_chart(ds: &DeviceSummary) -> Option<HbmChart> {
    const READ: Rgb = Rgb(0x4e, 0x79, 0xa7);
    const WRITE: Rgb = Rgb(0xf2, 0x8e, 0x2b);
    const UNUSED: Rgb = Rgb(0xba, 0xb0, 0xac);
    let get = |k: &str| ds.get(k).map(|v| v.as_f64()).filter(|v| v.is_finite());
    let (read, write) = (get("hbm_read_bytes"), get("hbm_write_bytes"));
    let no_spill = get("spill_reload_bytes") == Some(0.0) && get("spill_save_bytes") == Some(0.0);
    let mbu = get("mbu_estimated_percent");
    let why_bars = if !no_spill {
        "Bars, not shares: with spill traffic (or spill bytes unknown) it is not known whether the HBM \
         read/write bytes already count it"
    } else if mbu.is_none_or(|m| !(0.0..=1.0).contains(&m)) {
        "Bars, not shares: no MBU within 0–100 % to relate the bytes to the HBM bandwidth"
    } else {
        ""
    };
    if let (true, Some(r), Some(w), Some(m)) = (why_bars.is_empty(), read, write, mbu) {
        if r + w > 0.0 {
            let (rs, ws) = (m * r / (r + w), m * w / (r + w));
            let us = (1.0 - m).max(0.0);
            let part = |label: &str, bytes: Option<f64>, share: f64, colour| Part {
                label: match bytes {
                    Some(b) => format!("{label} {} ({})", fmt_bytes(b.max(0.0) as u64), fmt_fraction(share)),
                    None => format!("{label} ({})", fmt_fraction(share)),
                },
                value: share,
                colour,
            };
            let parts = vec![
                part("read", read, rs, READ),
                part("write", write, ws, WRITE),
                part("unused", None, us, UNUSED),
            ];
            return Some(HbmChart {
                chart: Arc::new(Chart::Pie(parts)),
                kind: "doughnut",
                shares: Some((rs, ws, us)),
                why_bars: "",
            });
        }
    }
    let parts: Vec<Part> = [
        ("hbm_read_bytes", "read", READ),
        ("hbm_write_bytes", "write", WRITE),
        ("spill_reload_bytes", "spill reload", Rgb(0xe1, 0x57, 0x59)),
        ("spill_save_bytes", "spill save", Rgb(0x76, 0xb7, 0xb2)),
    ]
    .into_iter()
    .filter_map(|(k, label, colour)| {
        let v = get(k)?;
        Some(Part { label: format!("{label} {}", fmt_bytes(v.max(0.0) as u64)), value: v, colour })
    })
    .collect();
    (parts.iter().any(|p| p.value > 0.0)).then(|| HbmChart {
        chart: Arc::new(Chart::Bars { parts, unit: ChartUnit::Count }),
        kind: "bars",
        shares: None,
        why_bars,
    })
}

/// Show (outline on the timeline, the rest dimmed) and zoom to an insight's events, or zoom to
/// its range when it has no events.
fn show_insight(state: AppState, i: &Insight) {
    let Outcome::Fired { events, range, .. } = &i.outcome else { return };
    if !events.is_empty() {
        let d = state.data();
        let mut per_track: Vec<Vec<u32>> = vec![Vec::new(); d.trace.tracks.len()];
        for e in events {
            if let Some(v) = per_track.get_mut(e.track.idx()) {
                v.push(e.index);
            }
        }
        zoom_to(state, &per_track);
        show_events(state, &format!("insight: {}", i.rule.title), per_track, false);
    } else if let Some((t0, t1)) = *range {
        let pad = ((t1 - t0) / 50).max(1);
        state.view.request.set(Some(ViewRequest::Range { t0_ns: t0 - pad, t1_ns: t1 + pad }));
    }
}

fn insight_view(state: AppState, i: Insight) -> AnyView {
    let r = i.rule;
    let threshold = format!("{} {}", r.op, format_measure(r.measure, r.threshold));
    match &i.outcome {
        Outcome::Fired { value, message, event_count, range, .. } => {
            let value_text = format_measure(r.measure, *value);
            let has_target = *event_count > 0 || range.is_some();
            let button = if *event_count > 0 {
                format!("show {event_count} event{}", if *event_count == 1 { "" } else { "s" })
            } else {
                "zoom to it".into()
            };
            let i2 = i.clone();
            view! {
                <li class="ns-insight" data-insight=r.id data-value=value.to_string() data-events=event_count.to_string()>
                    <div class="ns-insight-head">
                        <span class="ns-insight-title" title=r.definition>{r.title}</span>
                        <span class="ns-insight-value" title=format!("threshold {threshold} ({})", r.origin)>{value_text}" "<small>{threshold.clone()}</small></span>
                    </div>
                    <div class="ns-insight-text">{message.clone()}</div>
                    {has_target.then(|| view! {
                        <button class="link-button" data-testid="ns-insight-show" on:click=move |_| show_insight(state, &i2)>{button}</button>
                    })}
                </li>
            }
            .into_any()
        }
        Outcome::Passed { value } => view! {
            <li data-insight=r.id data-outcome="passed" title=r.definition>
                <span class="ns-insight-title">{r.title}</span>
                <span class="num">{format!(" {} (fires at {threshold})", format_measure(r.measure, *value))}</span>
            </li>
        }
        .into_any(),
        Outcome::NotEvaluated { reason } => view! {
            <li data-insight=r.id data-outcome="not-evaluated" title=r.definition>
                <span class="ns-insight-title">{r.title}</span>": "<span class="dim">{reason.clone()}</span>
            </li>
        }
        .into_any(),
    }
}

/// The overview's numbers for what `sh` shows (the insights are the whole profile's).
fn overview_body(state: AppState, sh: Shown, insights: &[Insight]) -> AnyView {
    let ds = sh.whole;
    let fired: Vec<Insight> = insights.iter().filter(|i| i.fired()).cloned().collect();
    let passed: Vec<Insight> =
        insights.iter().filter(|i| matches!(i.outcome, Outcome::Passed { .. })).cloned().collect();
    let skipped: Vec<Insight> =
        insights.iter().filter(|i| matches!(i.outcome, Outcome::NotEvaluated { .. })).cloned().collect();
    let (n_passed, n_skipped) = (passed.len(), skipped.len());

    // collective operations' durations (Explorer's Parquet CcOp), the whole profile's
    let collectives = {
        let d = state.data();
        let t = &d.trace;
        let cc = loupe_core::analysis::device_collectives::collective_durations(t);
        let groups = cc.iter().map(|c| c.group).collect::<std::collections::BTreeSet<_>>().len();
        let rows = cc
            .into_iter()
            .map(|c| {
                let name = if groups > 1 {
                    format!("{}: {}", t.str(t.groups[c.group.idx()].name), c.name)
                } else {
                    c.name.clone()
                };
                let td =
                    |ns: i64| view! { <td class="num" data-ns=ns.to_string()>{format_duration_ns(ns)}</td> };
                view! {
                    <tr data-testid="ns-collective" data-name=c.name.clone()>
                        <th>{name}</th><td class="num" data-count=c.count.to_string()>{c.count}</td>
                        {td(c.min_ns)}{td(c.q1_ns)}{td(c.median_ns)}{td(c.q3_ns)}{td(c.max_ns)}
                    </tr>
                }
            })
            .collect::<Vec<_>>();
        (!rows.is_empty()).then(|| {
            view! {
                <h4>{if sh.win.is_some() { "Collectives (whole profile †)" } else { "Collectives" }}</h4>
                <table class="grid ns-collectives" data-testid="ns-collectives"
                    title="Durations of the collective operations per operation name; quartiles interpolate linearly (numpy's default)">
                    <thead><tr><th>"operation"</th><th class="num">"count"</th><th class="num">"min"</th>
                        <th class="num">"25 %"</th><th class="num">"median"</th><th class="num">"75 %"</th><th class="num">"max"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
        })
    };

    // engine utilisation: active % per engine stream, as bars (HTML, exact widths)
    let base = if sh.win.is_some() { "the window's length" } else { "total_time" };
    let scope = sh.scope();
    let engines = Engine::STREAMS
        .iter()
        .filter_map(|&e| sh.engines().engine(e).map(|f| (e, f)))
        .map(|(e, f)| {
            let frac = f.active_fraction.unwrap_or(0.0);
            let key = format!("{}_engine_active_time_percent", e.name().to_ascii_lowercase());
            let width = format!("width:{:.3}%", (frac * 100.0).clamp(0.0, 100.0));
            let title = format!(
                "{key} = {frac}\n{} instructions, active {} (union of the non-wait instructions) / {base}",
                f.instruction_count,
                format_duration_ns((f.active_time_s * 1e9).round() as i64)
            );
            view! {
                <div class="ns-eng" title=title>
                    <span class="ns-eng-name">{e.name()}</span>
                    <span class="ns-eng-bar"><span style=width></span></span>
                    <span class="num" data-key=key data-value=frac.to_string() data-scope=scope>{fmt_fraction(frac)}</span>
                </div>
            }
        })
        .collect_view();

    let dma_row = |label: &'static str, p: &'static str, b: &'static str, t: &'static str| {
        view! {
            <tr><th>{label}</th>
                <td class="num">{value_cell(sh, p, "ns-val")}</td>
                <td class="num">{value_cell(sh, b, "ns-val")}</td>
                <td class="num">{value_cell(sh, t, "ns-val")}</td></tr>
        }
    };
    let hbm = hbm_chart(ds);
    let hbm_view = hbm.map(|h| {
        let (kind, why) = (h.kind, h.why_bars);
        let share = |f: fn((f64, f64, f64)) -> f64| h.shares.map(|s| f(s).to_string());
        let (read, write, unused) = (share(|s| s.0), share(|s| s.1), share(|s| s.2));
        let (height, label) = if kind == "doughnut" {
            (150, "HBM bandwidth over the profile: read, write, unused")
        } else {
            (96, "HBM traffic by kind")
        };
        let chart = h.chart;
        // the doughnut's legend (its slices under 0.5 % are too thin to see: the shares are here)
        let legend = match &*chart {
            Chart::Pie(parts) => parts
                .iter()
                .map(|p| {
                    let style = format!("background: rgb({}, {}, {})", p.colour.0, p.colour.1, p.colour.2);
                    view! {
                        <li title=p.label.clone()><span class="swatch" style=style></span>
                            <span class="legend-name">{p.label.clone()}</span></li>
                    }
                })
                .collect_view()
                .into_any(),
            _ => ().into_any(),
        };
        view! {
            <div data-testid="ns-hbm-figure" data-kind=kind data-read=read data-write=write data-unused=unused
                title=if kind == "doughnut" {
                    "Shares of the HBM bandwidth available over total_time (peak HBM bandwidth × total_time): read and write = MBU split by their bytes, unused = 1 − MBU. No spill traffic in this profile."
                } else { why }>
                <ChartCanvas chart=Signal::derive(move || Some(chart.clone())) height_px=height label=label testid="ns-hbm-chart"/>
                {(kind == "doughnut").then(|| view! { <ul class="chart-legend" data-testid="ns-hbm-legend">{legend}</ul> })}
                {(kind == "bars" && !why.is_empty()).then(|| view! { <p class="dim ns-note">{why}</p> })}
            </div>
        }
    });
    let throttle_rows: Vec<AnyView> = ds
        .rows()
        .iter()
        .filter(|m| m.group == "throttling_nc0")
        .map(|m| kv(sh, m.key, m.key.trim_start_matches("throttle_").trim_end_matches("_nc0_percent")))
        .collect();
    let has_throttle = !throttle_rows.is_empty();
    // the insights are the whole profile's: over a part they come last, folded (the part's
    // numbers first)
    let n_fired = fired.len();
    let insights = view! {
        <ul class="ns-insights" data-testid="ns-insights">
            {if fired.is_empty() {
                view! { <li class="dim">"No rule fired."</li> }.into_any()
            } else {
                fired.into_iter().map(|i| insight_view(state, i)).collect_view().into_any()
            }}
        </ul>
        <details class="ns-more">
            <summary>{format!("{n_passed} rules checked without firing, {n_skipped} not evaluated")}</summary>
            <ul class="ns-insights-other" data-testid="ns-insights-other">
                {passed.into_iter().chain(skipped).map(|i| insight_view(state, i)).collect_view()}
            </ul>
        </details>
    };
    let (insights_top, insights_end) = if sh.win.is_some() {
        let folded = view! {
            <details class="ns-insights-whole" data-testid="ns-insights-whole">
                <summary>{format!("Insights of the whole profile: {n_fired} fired")}</summary>
                {insights}
            </details>
        };
        (None, Some(folded.into_any()))
    } else {
        (Some(view! { <h4>"Insights"</h4> {insights} }.into_any()), None)
    };

    view! {
        <div class="ns-body">
            <div class="ns-headline" data-testid="ns-headline">
                {big(sh, "mfu_estimated_percent", "MFU")}
                {big(sh, "hfu_estimated_percent", "HFU")}
                {big(sh, "mbu_estimated_percent", "MBU")}
                {big(sh, "mm_arithmetic_intensity", "FLOP / HBM byte")}
            </div>
            {insights_top}
            <h4>"FLOPs"</h4>
            <table class="kv">
                {kv(sh, "hardware_flops", "hardware (Tensor engine)")}
                {kv(sh, "transpose_flops", "of which transposes")}
                {kv(sh, "model_flops", "model (HLO)")}
                {kv(sh, "peak_flops_bandwidth_ratio", "peak FLOP/s ÷ HBM B/s")}
            </table>
            <h4>{if sh.win.is_some() { "Engine utilisation (active / window length)" } else { "Engine utilisation (active / total time)" }}</h4>
            <div class="ns-engines" data-testid="ns-engines">{engines}</div>
            <h4>"DMA by kind"</h4>
            <table class="grid ns-dma" data-testid="ns-dma">
                <thead><tr><th></th><th class="num">"packets"</th><th class="num">"bytes"</th><th class="num" title="union of the kind's packets">"active"</th></tr></thead>
                <tbody>
                    {dma_row("static", "static_dma_packet_count", "static_dma_size", "static_dma_active_time")}
                    {dma_row("software DGE", "software_dynamic_dma_packet_count", "software_dynamic_dma_size", "software_dynamic_dma_active_time")}
                    {dma_row("hardware DGE", "hardware_dynamic_dma_packet_count", "hardware_dynamic_dma_size", "hardware_dynamic_dma_active_time")}
                </tbody>
            </table>
            <table class="kv">
                {kv(sh, "dma_active_time", "DMA active (all queues)")}
                {kv(sh, "dma_transfer_count", "transfers (blocks)")}
                {kv(sh, "dma_transfer_average_bytes", "bytes per transfer")}
            </table>
            <h4>{if sh.win.is_some() { "HBM traffic (whole profile †)" } else { "HBM traffic" }}</h4>
            {hbm_view}
            <table class="kv" data-testid="ns-hbm">
                {kv(sh, "hbm_read_bytes", "read")}
                {kv(sh, "hbm_write_bytes", "write")}
                {kv(sh, "spill_reload_bytes", "spill reload")}
                {kv(sh, "spill_save_bytes", "spill save")}
            </table>
            <h4>{if sh.win.is_some() { "Throttling (whole profile †)" } else { "Throttling" }}</h4>
            {if has_throttle {
                view! { <table class="kv" data-testid="ns-throttle">{throttle_rows}</table> }.into_any()
            } else {
                view! { <p class="dim ns-note">"The capture has no throttle records."</p> }.into_any()
            }}
            {collectives}
            {insights_end}
        </div>
    }
    .into_any()
}

/// Intervals between consecutive annotation markers, in time order: (label, t0, t1).
fn marker_intervals(state: AppState) -> Vec<(String, i64, i64)> {
    let mut m: Vec<(String, i64)> =
        state.annotations.current.with(|set| set.markers.iter().map(|m| (m.name.clone(), m.t_ns)).collect());
    m.sort_by_key(|x| x.1);
    m.windows(2)
        .filter(|w| w[1].1 > w[0].1)
        .map(|w| (format!("{} → {}", w[0].0, w[1].0), w[0].1, w[1].1))
        .collect()
}

/// Sums `[t0, t1)` in steps after `delay_ms`, then shows it as `scope`, unless a newer request
/// (`gen` moved on) came meanwhile.
fn request(
    state: AppState,
    gen: Arc<AtomicU64>,
    shown: RwSignal<Option<Scoped>>,
    pending: RwSignal<bool>,
    (scope, t0, t1): (Scope, i64, i64),
    delay_ms: u32,
) {
    let my = gen.fetch_add(1, Ordering::Relaxed) + 1;
    if !pending.get_untracked() {
        pending.set(true);
    }
    let model = state.generation.get_untracked();
    let run = move || {
        wasm_bindgen_futures::spawn_local(async move {
            // a newer request, or another model loaded: this one is abandoned
            let current =
                || gen.load(Ordering::Relaxed) == my && state.generation.try_get_untracked() == Some(model);
            if !current() {
                return;
            }
            let d = state.data();
            let t_start = now_ms();
            let (mut since, mut longest) = (t_start, 0f64);
            let mut b = DeviceSummaryBuilder::over(&d.trace, t0, t1, TimeBase::Window);
            while b.add_next(&d.trace, STEP) {
                let t = now_ms();
                if t - since >= SLICE_MS {
                    longest = longest.max(t - since);
                    yield_now().await;
                    if !current() {
                        return;
                    }
                    since = now_ms();
                }
            }
            let ds = b.finish(&d.trace);
            let t = now_ms();
            longest = longest.max(t - since);
            if !current() {
                return;
            }
            let scoped = ds.map(|ds| Scoped {
                scope,
                t0_ns: t0,
                t1_ns: t1,
                ds: Arc::new(ds),
                ms: t - t_start,
                longest_ms: longest,
            });
            // (the widget may be gone meanwhile)
            let _ = shown.try_set(scoped);
            let _ = pending.try_set(false);
        });
    };
    if delay_ms == 0 {
        run();
    } else {
        gloo_timers::callback::Timeout::new(delay_ms, run).forget();
    }
}

/// The overview of a device profile (`d.device_summary` is `Some`), with its scope switch.
pub fn device_overview(state: AppState, d: &TraceData, ds: &DeviceSummary) -> AnyView {
    let insights: Arc<Vec<Insight>> = Arc::new(neuron_insights(&d.trace, ds));
    let whole = Arc::new(ds.clone());
    let total_s = ds.get("total_time").map(|v| v.as_f64());
    let scope = RwSignal::new(Scope::Whole);
    let shown: RwSignal<Option<Scoped>> = RwSignal::new(None);
    let pending = RwSignal::new(false);
    let pick = RwSignal::new(0usize);
    let gen = Arc::new(AtomicU64::new(0));
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone());

    // the current view, on a scope change and then after each pan / zoom (debounced)
    let view_window = {
        let bus = bus.clone().map(SendWrapper::new);
        move || bus.as_ref().map(|b| b.window()).filter(|(t0, t1)| t1 > t0)
    };
    {
        let gen = gen.clone();
        let view_window = view_window.clone();
        Effect::new(move |_| {
            let sc = scope.get();
            let target = match sc {
                Scope::Whole => None,
                Scope::View => view_window(),
                Scope::Selection => state.view.box_selection.get().map(|b| (b.t0_ns, b.t1_ns)),
                Scope::Annotation => marker_intervals(state).get(pick.get()).map(|x| (x.1, x.2)),
            };
            match target {
                Some((t0, t1)) if t1 > t0 => request(state, gen.clone(), shown, pending, (sc, t0, t1), 0),
                _ => {
                    // nothing to sum (the selection or the markers are gone): the whole profile
                    gen.fetch_add(1, Ordering::Relaxed);
                    pending.set(false);
                    shown.set(None);
                    if sc != Scope::Whole {
                        scope.set(Scope::Whole);
                    }
                }
            }
        });
    }
    if let (Some(sch), Some(bus)) = (scheduler, bus) {
        let seen = Rc::new(Cell::new(bus.generation.get()));
        let gen = gen.clone();
        let redraw = Rc::new(move || {
            if scope.get_untracked() != Scope::View {
                seen.set(bus.generation.get());
                return;
            }
            let g = bus.generation.get();
            if seen.get() == g {
                return;
            }
            seen.set(g);
            let (t0, t1) = bus.window();
            if t1 > t0 {
                request(state, gen.clone(), shown, pending, (Scope::View, t0, t1), VIEW_DEBOUNCE_MS);
            }
        });
        let id = sch.register_late(redraw);
        let sch = SendWrapper::new(sch);
        on_cleanup(move || sch.unregister(id));
    }

    let button = move |sc: Scope, label: &'static str, title: &'static str| {
        view! {
            <button class="seg" class:active=move || scope.get() == sc data-scope=sc.id() title=title
                aria-pressed=move || (scope.get() == sc).to_string() on:click=move |_| scope.set(sc)>{label}</button>
        }
    };
    let has_selection = move || state.view.box_selection.with(|b| b.is_some());
    let intervals = move || marker_intervals(state);
    let bar = view! {
        <div class="ns-scope" data-testid="ns-scope">
            <div class="seg-group" role="group" aria-label="Summary scope">
                {button(Scope::Whole, "Whole profile", "The whole profile: neuron-profile's summary")}
                {button(Scope::View, "Current view", "The part of the timeline in view; follows pans and zooms")}
                {move || has_selection().then(|| button(Scope::Selection, "Selection", "The box selection's time range (Shift+drag), all tracks"))}
                {move || (!intervals().is_empty()).then(|| button(Scope::Annotation, "Annotation interval", "The interval between two consecutive annotation markers"))}
            </div>
            {move || (scope.get() == Scope::Annotation).then(|| {
                let opts = intervals().into_iter().enumerate().map(|(k, (label, _, _))| {
                    view! { <option value=k.to_string() selected=move || pick.get() == k>{label}</option> }
                }).collect_view();
                view! {
                    <select data-testid="ns-scope-interval" aria-label="Annotation interval"
                        on:change=move |ev| pick.set(event_target_value(&ev).parse().unwrap_or(0))>{opts}</select>
                }
            })}
        </div>
    };
    let line = move || {
        let d = state.data();
        let sc = scope.get();
        let busy = pending.get();
        let s = shown.get().filter(|s| s.scope == sc && sc != Scope::Whole);
        let (t0, t1) = s.as_ref().map_or((d.trace.start_ns, d.trace.end_ns), |s| (s.t0_ns, s.t1_ns));
        let text = match (&s, sc) {
            (None, Scope::Whole) => format!(
                "Whole profile · percentages over total_time{}",
                total_s
                    .map(|t| format!(
                        " ({}, the runtime's execution time)",
                        format_duration_ns((t * 1e9).round() as i64)
                    ))
                    .unwrap_or_default()
            ),
            (None, _) => "Summing…".to_string(),
            (Some(s), _) => format!(
                "{} {} ({} → {}) · percentages over its length · † whole profile",
                match s.scope {
                    Scope::View => "Current view",
                    Scope::Selection => "Box selection",
                    Scope::Annotation => "Annotation interval",
                    Scope::Whole => "Whole profile",
                },
                format_duration_ns(s.t1_ns - s.t0_ns),
                describe::time_label(&d.trace, s.t0_ns),
                describe::time_label(&d.trace, s.t1_ns),
            ),
        };
        let ms = s.as_ref().map(|s| format!("summed in {:.0} ms, longest step {:.1} ms", s.ms, s.longest_ms));
        view! {
            <p class="ns-scope-line" data-testid="ns-scope-line" data-scope=s.as_ref().map_or("whole", |s| s.scope.id())
                data-t0=t0.to_string() data-t1=t1.to_string() data-pending=busy.to_string()
                data-ms=s.as_ref().map(|s| format!("{:.1}", s.ms)) title=ms>
                {text}{busy.then(|| view! { <span class="dim">" · updating…"</span> })}
            </p>
        }
    };
    let body = move || {
        let sc = scope.get();
        let s = shown.get().filter(|s| s.scope == sc && sc != Scope::Whole);
        overview_body(state, Shown { whole: &whole, win: s.as_ref() }, &insights)
    };
    view! {
        <section class="ns" data-testid="neuron-summary">
            {bar}
            {line}
            {body}
        </section>
    }
    .into_any()
}
