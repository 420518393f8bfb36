//! Tables more than one widget shows: the per-engine table (Overall Summary, the Current
//! Selection summary, annotation intervals) and the busiest tracks. Widgets never import each
//! other; what they share lives here, below them.

use leptos::prelude::*;
use loupe_core::analysis::measures::{
    self, Definition, ENGINE_ACTIVE_PERCENT, ENGINE_ACTIVE_TIME, ENGINE_INSTRUCTIONS,
    ENGINE_INSTRUCTION_TIME, ENGINE_WAITING,
};
use loupe_core::analysis::summary::{EngineWindow, WindowSummary};
use loupe_core::model::TrackId;
use loupe_core::time::format_duration_ns;

use crate::state::TraceData;

/// The engine table's columns, in order (each header's hover is its definition).
const ENGINE_COLUMNS: [&Definition; 5] = [
    &ENGINE_INSTRUCTIONS,
    &ENGINE_INSTRUCTION_TIME,
    &ENGINE_ACTIVE_TIME,
    &ENGINE_ACTIVE_PERCENT,
    &ENGINE_WAITING,
];

/// The per-engine table (Overall Summary, box selection, annotation intervals): one row per
/// engine (`data-engine`), cells `data-metric` = the measure's key with `data-value` (times in
/// ns, active % in percent), headers titled with the definitions.
pub fn engine_table(engines: &[EngineWindow], testid: &'static str) -> AnyView {
    let head = ENGINE_COLUMNS
        .iter()
        .map(|d| view! { <th title=d.text data-metric=d.key>{d.label}</th> })
        .collect_view();
    let rows = engines
        .iter()
        .map(|e| {
            let name = e.engine.map_or("?", |e| e.name());
            let cell = |d: &Definition, value: String, shown: String| {
                view! { <td class="num" data-metric=d.key data-value=value>{shown}</td> }
            };
            view! {
                <tr data-engine=name>
                    <th>{name}</th>
                    {cell(&ENGINE_INSTRUCTIONS, e.instruction_count.to_string(), e.instruction_count.to_string())}
                    {cell(&ENGINE_INSTRUCTION_TIME, e.instruction_time_ns.to_string(), format_duration_ns(e.instruction_time_ns))}
                    {cell(&ENGINE_ACTIVE_TIME, e.active_time_ns.to_string(), format_duration_ns(e.active_time_ns))}
                    {cell(&ENGINE_ACTIVE_PERCENT, e.active_percent.to_string(), format!("{:.2} %", e.active_percent))}
                    {cell(&ENGINE_WAITING, e.waiting_ns.to_string(), format_duration_ns(e.waiting_ns))}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="grid" data-testid=testid>
            <thead><tr><th>"engine"</th>{head}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// Headers and cells of the engine table as text (the selection summary's DOM table).
pub fn engine_text_rows(engines: &[EngineWindow]) -> (Vec<(&'static str, &'static str)>, Vec<Vec<String>>) {
    let head =
        std::iter::once(("engine", "")).chain(ENGINE_COLUMNS.iter().map(|d| (d.label, d.text))).collect();
    let rows = engines
        .iter()
        .map(|e| {
            vec![
                e.engine.map_or("?", |e| e.name()).to_string(),
                e.instruction_count.to_string(),
                format_duration_ns(e.instruction_time_ns),
                format_duration_ns(e.active_time_ns),
                format!("{:.2} %", e.active_percent),
                format_duration_ns(e.waiting_ns),
            ]
        })
        .collect();
    (head, rows)
}

/// Top `n` tracks by busy time, as table rows.
pub fn track_rows(d: &TraceData, s: &WindowSummary, n: usize) -> AnyView {
    let mut v: Vec<_> = s.tracks.iter().filter(|t| t.count > 0).copied().collect();
    v.sort_by(|a, b| b.busy_ns.cmp(&a.busy_ns).then(b.count.cmp(&a.count)));
    v.into_iter()
        .take(n)
        .map(|t| {
            let label = d.trace.track_label(TrackId(t.track.0));
            let util = s.utilisation(&t) * 100.0;
            view! {
                <tr data-track=label.clone()>
                    <th title=label.clone()>{label.clone()}</th>
                    <td class="num">{t.count.to_string()}</td>
                    <td class="num" data-metric=measures::GPU_BUSY.key data-value=t.busy_ns.to_string()>{format_duration_ns(t.busy_ns)}</td>
                    <td class="num" data-metric=measures::GPU_UTILISATION.key data-value=format!("{util:.4}")>{format!("{util:.1} %")}</td>
                </tr>
            }
        })
        .collect_view()
        .into_any()
}
