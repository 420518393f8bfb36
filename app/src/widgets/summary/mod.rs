//! Overall Summary: the whole profile at a glance. For a device profile, per engine instruction
//! count, instruction time, active time and % (neuron-profile's own figures: the window summary
//! of the whole profile with `WindowSummary::use_device_summary`), waiting (semaphore waits,
//! apart from executing), DMA transfers and bytes; for any trace, per track
//! busy time, utilisation and event count, and the names that take the most time. Computed once
//! per load from the model with the page's indexes (prefix sums, one aggregation, the device
//! summary: `state::TraceData`), never per frame nor in the render.

/// The device-profile overview (Neuron Explorer's Summary), part of this widget.
mod neuron_summary;
use leptos::prelude::*;
use loupe_core::analysis::device_summary::{Unit, Value};
use loupe_core::analysis::measures;
use loupe_core::time::format_duration_ns;

use crate::components::summary_tables::{engine_table, track_rows};
use crate::state::use_app_state;
use crate::widgets::fmt_bytes;

#[component]
pub fn SummaryWidget() -> impl IntoView {
    let state = use_app_state();
    let body = move || {
        let d = state.tracked_data();
        let t = &d.trace;
        let mut s = d.indexes.window_index.window(t, t.start_ns, t.end_ns, None);
        if let Some(ds) = &d.indexes.device_summary {
            s.use_device_summary(ds);
        }
        let header = vec![
            ("format", t.format.clone()),
            ("events", t.slice_count().to_string()),
            ("tracks", (t.tracks.len() + t.counters.len()).to_string()),
            ("duration", format_duration_ns(t.duration_ns())),
            ("warnings", t.warnings.total().to_string()),
        ];
        // neuron-profile's own summary metrics, with its key names (data-key) and raw values
        let device = d.indexes.device_summary.as_ref().map(|ds| {
            let mut groups: Vec<(&str, Vec<AnyView>)> = Vec::new();
            for m in ds.rows() {
                let raw = m.value.as_f64();
                let raw_text = match &m.value {
                    Value::Text(t) => t.clone(),
                    _ => raw.to_string(),
                };
                let shown = match m.unit {
                    Unit::Seconds => format_duration_ns((raw * 1e9).round() as i64),
                    Unit::Fraction => format!("{:.2} %", raw * 100.0),
                    Unit::Bytes => fmt_bytes(raw.max(0.0) as u64),
                    _ => match &m.value {
                        Value::Count(n) => n.to_string(),
                        Value::Number(x) => format!("{x:.4}"),
                        Value::Text(t) => t.clone(),
                    },
                };
                let cell = view! {
                    <tr>
                        <th title=m.key>{m.key.replace('_', " ")}</th>
                        <td class="num" data-key=m.key data-value=raw_text.clone() title=format!("{raw_text} {}", m.unit.label())>{shown}</td>
                    </tr>
                }
                .into_any();
                match groups.iter_mut().find(|g| g.0 == m.group) {
                    Some(g) => g.1.push(cell),
                    None => groups.push((m.group, vec![cell])),
                }
            }
            view! {
                <details class="ds-all">
                <summary>"All neuron-profile summary keys"</summary>
                <div data-testid="device-summary">
                    {groups.into_iter().map(|(g, rows)| view! {
                        <details class="ds-group" open=true>
                            <summary>{g.replace('_', " ")}</summary>
                            <table class="kv ds-table">{rows}</table>
                        </details>
                    }).collect_view()}
                </div>
                </details>
            }
        });
        let overview =
            d.indexes.device_summary.as_ref().map(|ds| neuron_summary::device_overview(state, &d, ds));
        let engines = (!s.engines.is_empty()).then(|| {
            view! {
                <h4>"Engines"</h4>
                {engine_table(&s.engines, "summary-engines")}
            }
        });
        let dma = (s.dma_count > 0).then(|| {
            view! {
                <h4>"DMA"</h4>
                <table class="kv">
                    <tr><th>"packets"</th><td class="num">{s.dma_count.to_string()}</td></tr>
                    <tr><th>"bytes"</th><td class="num" title=s.dma_bytes.to_string()>{fmt_bytes(s.dma_bytes)}</td></tr>
                </table>
            }
        });
        let top = &d.indexes.top_names;
        let total: i64 = top.iter().map(|x| x.total_ns).sum::<i64>().max(1);
        let top_rows = top
            .iter()
            .take(15)
            .map(|x| {
                view! {
                    <tr>
                        <th title=x.name.clone()>{x.name.clone()}</th>
                        <td class="num">{x.count.to_string()}</td>
                        <td class="num">{format_duration_ns(x.total_ns)}</td>
                        <td class="num">{format!("{:.1} %", x.total_ns as f64 / total as f64 * 100.0)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="kv summary-head">
                {header.into_iter().map(|(k, v)| view! { <tr><th>{k}</th><td>{v}</td></tr> }).collect_view()}
            </table>
            {overview}
            {engines}
            {dma}
            {device}
            <h4>"Busiest tracks"</h4>
            <table class="grid" data-testid="summary-tracks">
                <thead><tr><th>"track"</th><th>"events"</th>
                    <th title=measures::GPU_BUSY.text>{measures::GPU_BUSY.label}</th>
                    <th title=measures::GPU_UTILISATION.text>{measures::GPU_UTILISATION.label}</th></tr></thead>
                <tbody>{track_rows(&d, &s, 20)}</tbody>
            </table>
            <h4>"Top names by time"</h4>
            <table class="grid" data-testid="summary-names">
                <thead><tr><th>"name"</th><th>"count"</th><th>"total"</th><th>"% of sliced time"</th></tr></thead>
                <tbody>{top_rows}</tbody>
            </table>
        }
    };
    view! { <div class="widget-body widget-scroll summary-widget">{body}</div> }
}
