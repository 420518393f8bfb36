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

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::device_summary::{key_definition, why_missing, DeviceSummary, Unit, Value};
use loupe_core::analysis::neuron_insights::{format_measure, neuron_insights, Insight, Outcome};
use loupe_core::model::Engine;
use loupe_core::time::format_duration_ns;
use loupe_core::view::Rgb;

use super::deferred::zoom_to;
use crate::charts::{Chart, ChartCanvas, Part, Unit as ChartUnit};
use crate::search_runner::show_events;
use crate::state::{AppState, TraceData, ViewRequest};
use crate::widgets::fmt_bytes;

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

/// One value cell: `data-key`, `data-value`, the value, the definition (or why it is missing)
/// on hover. `class`: the element's class.
fn value_cell(ds: &DeviceSummary, key: &'static str, class: &'static str) -> AnyView {
    match ds.get(key) {
        Some(v) => {
            let unit = unit_of(ds, key);
            let title = match key_definition(key) {
                Some(d) => format!("{key} = {}\n{d}", raw_text(&v)),
                None => format!("{key} = {} {}", raw_text(&v), unit.label()),
            };
            view! { <span class=class data-key=key data-value=raw_text(&v) title=title>{shown(&v, unit)}</span> }
                .into_any()
        }
        None => {
            let title = format!("{key}: not available: {}", why_missing(key));
            view! { <span class=format!("{class} ns-missing") data-key=key data-missing="true" title=title>"—"</span> }
                .into_any()
        }
    }
}

/// A big headline cell: label, value.
fn big(ds: &DeviceSummary, key: &'static str, label: &'static str) -> AnyView {
    let def = key_definition(key).unwrap_or("");
    view! {
        <div class="ns-big" title=def>
            <div class="ns-big-label">{label}</div>
            {value_cell(ds, key, "ns-big-value")}
        </div>
    }
    .into_any()
}

/// A key/value row.
fn kv(ds: &DeviceSummary, key: &'static str, label: &'static str) -> AnyView {
    let def = key_definition(key).unwrap_or(key);
    view! { <tr><th title=def>{label}</th><td class="num">{value_cell(ds, key, "ns-val")}</td></tr> }
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
        state.view_request.set(Some(ViewRequest::Range { t0_ns: t0 - pad, t1_ns: t1 + pad }));
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

/// The overview of a device profile (`d.device_summary` is `Some`).
pub fn device_overview(state: AppState, d: &TraceData, ds: &DeviceSummary) -> AnyView {
    let insights = neuron_insights(&d.trace, ds);
    let fired: Vec<Insight> = insights.iter().filter(|i| i.fired()).cloned().collect();
    let passed: Vec<Insight> =
        insights.iter().filter(|i| matches!(i.outcome, Outcome::Passed { .. })).cloned().collect();
    let skipped: Vec<Insight> =
        insights.iter().filter(|i| matches!(i.outcome, Outcome::NotEvaluated { .. })).cloned().collect();
    let (n_passed, n_skipped) = (passed.len(), skipped.len());

    // engine utilisation: active % per engine stream, as bars (HTML, exact widths)
    let engines = Engine::STREAMS
        .iter()
        .filter_map(|&e| ds.engine(e).map(|f| (e, f)))
        .map(|(e, f)| {
            let frac = f.active_fraction.unwrap_or(0.0);
            let key = format!("{}_engine_active_time_percent", e.name().to_ascii_lowercase());
            let width = format!("width:{:.3}%", (frac * 100.0).clamp(0.0, 100.0));
            let title = format!(
                "{key} = {frac}\n{} instructions, active {} (union of the non-wait instructions) / total_time",
                f.instruction_count,
                format_duration_ns((f.active_time_s * 1e9).round() as i64)
            );
            view! {
                <div class="ns-eng" title=title>
                    <span class="ns-eng-name">{e.name()}</span>
                    <span class="ns-eng-bar"><span style=width></span></span>
                    <span class="num" data-key=key data-value=frac.to_string()>{fmt_fraction(frac)}</span>
                </div>
            }
        })
        .collect_view();

    let dma_row = |label: &'static str, p: &'static str, b: &'static str, t: &'static str| {
        view! {
            <tr><th>{label}</th>
                <td class="num">{value_cell(ds, p, "ns-val")}</td>
                <td class="num">{value_cell(ds, b, "ns-val")}</td>
                <td class="num">{value_cell(ds, t, "ns-val")}</td></tr>
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
        .map(|m| kv(ds, m.key, m.key.trim_start_matches("throttle_").trim_end_matches("_nc0_percent")))
        .collect();
    let has_throttle = !throttle_rows.is_empty();

    view! {
        <section class="ns" data-testid="neuron-summary">
            <div class="ns-headline" data-testid="ns-headline">
                {big(ds, "mfu_estimated_percent", "MFU")}
                {big(ds, "hfu_estimated_percent", "HFU")}
                {big(ds, "mbu_estimated_percent", "MBU")}
                {big(ds, "mm_arithmetic_intensity", "FLOP / HBM byte")}
            </div>
            <h4>"Insights"</h4>
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
            <h4>"FLOPs"</h4>
            <table class="kv">
                {kv(ds, "hardware_flops", "hardware (Tensor engine)")}
                {kv(ds, "transpose_flops", "of which transposes")}
                {kv(ds, "model_flops", "model (HLO)")}
                {kv(ds, "peak_flops_bandwidth_ratio", "peak FLOP/s ÷ HBM B/s")}
            </table>
            <h4>"Engine utilisation (active / total time)"</h4>
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
                {kv(ds, "dma_active_time", "DMA active (all queues)")}
                {kv(ds, "dma_transfer_count", "transfers (blocks)")}
                {kv(ds, "dma_transfer_average_bytes", "bytes per transfer")}
            </table>
            <h4>"HBM traffic"</h4>
            {hbm_view}
            <table class="kv" data-testid="ns-hbm">
                {kv(ds, "hbm_read_bytes", "read")}
                {kv(ds, "hbm_write_bytes", "write")}
                {kv(ds, "spill_reload_bytes", "spill reload")}
                {kv(ds, "spill_save_bytes", "spill save")}
            </table>
            <h4>"Throttling"</h4>
            {if has_throttle {
                view! { <table class="kv" data-testid="ns-throttle">{throttle_rows}</table> }.into_any()
            } else {
                view! { <p class="dim ns-note">"The capture has no throttle records."</p> }.into_any()
            }}
        </section>
    }
    .into_any()
}
