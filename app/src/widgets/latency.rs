//! Latency: the Furiosa-style latency summary (`loupe_core::analysis::latency`): per name
//! count, min, max, mean, median, p90, p95, p99, p99.9, total and % — over every slice, or only
//! device or host tracks (a switch) — with the nearest-rank percentile rule stated, values in
//! ms / µs / ns (a switch, or automatic), a filter, sortable columns, and a histogram of the
//! selected row. Click a row: its events are highlighted on the timeline (`]`/`[` page through
//! them); double-click: the timeline zooms to them. Computed once per trace, off the first
//! paint, only while the widget is on screen (see [`super::deferred`]).

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::latency::{events_named, LatencyBuild, LatencySummary, OpLatency, Where};
use loupe_core::time::format_duration_ns;

use super::deferred::{deferred_steps, shown, sort_header, spinner, zoom_to, Deferred};

/// Slices (or sorted durations) per [`LatencyBuild::step`] call; the step checks the clock between calls.
const LATENCY_SLICES_PER_CALL: usize = 32_768;
use crate::charts::{Chart, ChartCanvas, Unit};
use crate::search_runner::show_events;
use crate::state::use_app_state;
use crate::workbench::layout::WidgetKind;

/// Table rows shown before "show all".
const ROWS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    All,
    Device,
    Host,
}

impl Side {
    fn key(self) -> &'static str {
        match self {
            Side::All => "all",
            Side::Device => "device",
            Side::Host => "host",
        }
    }
    fn filter(self) -> Option<Where> {
        match self {
            Side::All => None,
            Side::Device => Some(Where::Device),
            Side::Host => Some(Where::Host),
        }
    }
}

/// How durations are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeUnit {
    Auto,
    Ms,
    Us,
    Ns,
}

impl TimeUnit {
    fn format(self, ns: i64) -> String {
        match self {
            TimeUnit::Auto => format_duration_ns(ns),
            TimeUnit::Ms => format!("{:.3} ms", ns as f64 / 1e6),
            TimeUnit::Us => format!("{:.3} µs", ns as f64 / 1e3),
            TimeUnit::Ns => format!("{ns} ns"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Count,
    Min,
    Max,
    Mean,
    Median,
    P90,
    P95,
    P99,
    P999,
    Total,
}

impl Key {
    fn of(self, o: &OpLatency) -> i64 {
        match self {
            Key::Name => 0,
            Key::Count => i64::try_from(o.count).unwrap_or(i64::MAX),
            Key::Min => o.min_ns,
            Key::Max => o.max_ns,
            Key::Mean => o.mean_ns,
            Key::Median => o.median_ns,
            Key::P90 => o.p90_ns,
            Key::P95 => o.p95_ns,
            Key::P99 => o.p99_ns,
            Key::P999 => o.p999_ns,
            Key::Total => o.total_ns,
        }
    }
}

fn rows_of(s: &LatencySummary, side: Side) -> &[OpLatency] {
    match side {
        Side::All => &s.operators,
        Side::Device => &s.by_device.device,
        Side::Host => &s.by_device.host,
    }
}

#[component]
pub fn LatencyWidget() -> impl IntoView {
    let state = use_app_state();
    let side = RwSignal::new(Side::All);
    let unit = RwSignal::new(TimeUnit::Auto);
    let filter = RwSignal::new(String::new());
    let sort = RwSignal::new((Key::Total, true));
    let show_all = RwSignal::new(false);
    let selected = RwSignal::new(None::<String>);
    // in steps between frames: one pass over 10 M slices was a one-second task
    let Deferred { result, pending, compute_ms } = deferred_steps(
        shown(WidgetKind::Latency),
        move || state.generation.get(),
        move |_| LatencyBuild::new(&state.data().trace),
        move |b| b.step(&state.data().trace, LATENCY_SLICES_PER_CALL),
    );
    Effect::new(move |_| {
        state.generation.track();
        selected.set(None);
    });

    let chart = Signal::derive(move || {
        let s = result.get()?;
        let name = selected.get()?;
        let row = rows_of(&s, side.get()).iter().find(|o| o.name == name)?;
        let h = &row.histogram;
        let bins: Vec<(f64, f64, u64)> = h
            .counts
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| Some((*h.edges_ns.get(i)? as f64, *h.edges_ns.get(i + 1)? as f64, c)))
            .collect();
        (!bins.is_empty()).then(|| Arc::new(Chart::Histogram { bins, unit: Unit::Ns }))
    });

    let highlight = move |name: String, zoom: bool| {
        let d = state.data();
        let sd = side.get_untracked();
        let per_track = events_named(&d.trace, &name, sd.filter());
        if zoom {
            zoom_to(state, &per_track);
        }
        selected.set(Some(name.clone()));
        let label = match sd {
            Side::All => name,
            Side::Device => format!("{name} (device)"),
            Side::Host => format!("{name} (host)"),
        };
        show_events(state, &label, per_track, !zoom);
    };

    let side_button = move |s: Side, text: &'static str| {
        view! {
            <button class="seg" class:active=move || side.get() == s aria-pressed=move || (side.get() == s).to_string()
                data-side=s.key() on:click=move |_| side.set(s)>{text}</button>
        }
    };
    let unit_button = move |u: TimeUnit, text: &'static str| {
        view! {
            <button class="seg" class:active=move || unit.get() == u data-unit=text on:click=move |_| unit.set(u)>{text}</button>
        }
    };

    let rows = move || {
        let Some(s) = result.get() else { return ().into_any() };
        let u = unit.get();
        let sel = selected.get();
        let needle = filter.get().to_lowercase();
        let mut rows: Vec<&OpLatency> = rows_of(&s, side.get())
            .iter()
            .filter(|o| needle.is_empty() || o.name.to_lowercase().contains(&needle))
            .collect();
        let (key, desc) = sort.get();
        rows.sort_by(|a, b| {
            let o = if key == Key::Name { a.name.cmp(&b.name) } else { key.of(a).cmp(&key.of(b)) };
            let o = o.then_with(|| a.name.cmp(&b.name));
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        let matched = rows.len();
        if matched == 0 {
            return view! { <tr><td colspan="12" class="hint">"No name matches."</td></tr> }.into_any();
        }
        let limit = if show_all.get() { usize::MAX } else { ROWS };
        let body = rows
            .into_iter()
            .take(limit)
            .map(|o| {
                let (n1, n2) = (o.name.clone(), o.name.clone());
                let cell = |ns: i64| view! { <td class="num" data-ns=ns.to_string()>{u.format(ns)}</td> };
                view! {
                    <tr class:selected=sel.as_deref() == Some(o.name.as_str()) data-name=o.name.clone() tabindex="0"
                        on:click=move |_| highlight(n1.clone(), false)
                        on:dblclick=move |_| highlight(n2.clone(), true)>
                        <th title=o.name.clone()>{o.name.clone()}</th>
                        <td class="num" data-count=o.count.to_string()>{o.count.to_string()}</td>
                        {cell(o.min_ns)}
                        {cell(o.max_ns)}
                        {cell(o.mean_ns)}
                        {cell(o.median_ns)}
                        {cell(o.p90_ns)}
                        {cell(o.p95_ns)}
                        {cell(o.p99_ns)}
                        {cell(o.p999_ns)}
                        {cell(o.total_ns)}
                        <td class="num pct"><span class="bar" style=format!("width:{:.1}%", o.percent.min(100.0))></span>{format!("{:.2} %", o.percent)}</td>
                    </tr>
                }
            })
            .collect_view();
        let more = (matched > limit).then(|| {
            view! { <tr><td colspan="12"><button class="link" on:click=move |_| show_all.set(true)>{format!("show all {matched} names")}</button></td></tr> }
        });
        view! { {body}{more} }.into_any()
    };
    let count = move || {
        let s = result.get()?;
        let n = rows_of(&s, side.get()).len();
        Some(format!("{n} names"))
    };
    let hist_caption = move || {
        let s = result.get()?;
        let name = selected.get()?;
        let row = rows_of(&s, side.get()).iter().find(|o| o.name == name)?;
        let spacing = if row.histogram.log { "log-spaced buckets" } else { "even buckets" };
        Some(format!("{name}: {} durations, {spacing}", row.count))
    };

    let body = move || {
        if result.with(Option::is_none) {
            return if pending.get() {
                spinner("Computing the latency summary…", "latency-computing")
            } else {
                view! { <p class="empty-state">"The latency summary is computed when this tab is shown."</p> }
                    .into_any()
            };
        }
        if result.with(|r| r.as_ref().is_some_and(|s| s.operators.is_empty())) {
            return view! { <p class="empty-state" data-testid="latency-empty">"This profile has no slices (durations) to summarise."</p> }
                .into_any();
        }
        let rule = result.with(|r| r.as_ref().map(|s| s.percentile_rule)).unwrap_or_default();
        view! {
            <div class="gpu-toolbar">
                <div class="seg-group" role="group" aria-label="Where">
                    {side_button(Side::All, "All")}
                    {side_button(Side::Device, "Device")}
                    {side_button(Side::Host, "Host")}
                </div>
                <div class="seg-group" role="group" aria-label="Unit">
                    {unit_button(TimeUnit::Auto, "auto")}
                    {unit_button(TimeUnit::Ms, "ms")}
                    {unit_button(TimeUnit::Us, "µs")}
                    {unit_button(TimeUnit::Ns, "ns")}
                </div>
            </div>
            <p class="hint" data-testid="latency-rule">
                "Percentiles are exact, "{rule}" (median = p50 by the same rule; mean rounded down to whole ns). "
                "Device: GPU streams, accelerator engines and DMA queues; host: CPU threads and the rest. "
                <span data-testid="latency-compute-ms">{move || format!("Computed in {:.0} ms.", compute_ms.get())}</span>
            </p>
            <div class="table-tools">
                <input type="search" class="filter" placeholder="Filter names" data-testid="latency-filter"
                    prop:value=move || filter.get() on:input=move |e| filter.set(event_target_value(&e))/>
                <span class="hint">{count}</span>
                <button class="button button-quiet" data-testid="latency-csv" title="Every name of this view as CSV (ns)"
                    on:click=move |_| {
                        if let Some(s) = result.get_untracked() {
                            let rows = rows_of(&s, side.get_untracked()).iter().map(|o| {
                                vec![
                                    o.name.clone(), o.count.to_string(), o.total_ns.to_string(), o.min_ns.to_string(),
                                    o.max_ns.to_string(), o.mean_ns.to_string(), o.median_ns.to_string(),
                                    o.p90_ns.to_string(), o.p95_ns.to_string(), o.p99_ns.to_string(),
                                    o.p999_ns.to_string(), format!("{:.3}", o.percent),
                                ]
                            });
                            let mut out = Vec::new();
                            let head = ["name", "count", "total_ns", "min_ns", "max_ns", "mean_ns", "median_ns",
                                "p90_ns", "p95_ns", "p99_ns", "p999_ns", "percent"];
                            if loupe_core::export::csv::write_rows(&head, rows, &mut out).is_ok() {
                                let name = format!("{}-latency.csv", crate::share::base_name(&state.data().source_label));
                                let _ = crate::share::download(&out, &name, "text/csv");
                            }
                        }
                    }>"CSV"</button>
            </div>
            <div class="latency-hist" class:hidden=move || chart.with(Option::is_none)>
                <p class="hint">{hist_caption}</p>
                <ChartCanvas chart=chart height_px=140 label="duration histogram of the selected name" testid="latency-hist"/>
            </div>
            <table class="grid analysis-table latency-table" data-testid="latency-table">
                <thead><tr>
                    {sort_header(sort, Key::Name, "name", "name", false)}
                    {sort_header(sort, Key::Count, "count", "count", true)}
                    {sort_header(sort, Key::Min, "min", "min", true)}
                    {sort_header(sort, Key::Max, "max", "max", true)}
                    {sort_header(sort, Key::Mean, "mean", "mean", true)}
                    {sort_header(sort, Key::Median, "median", "median", true)}
                    {sort_header(sort, Key::P90, "p90", "p90", true)}
                    {sort_header(sort, Key::P95, "p95", "p95", true)}
                    {sort_header(sort, Key::P99, "p99", "p99", true)}
                    {sort_header(sort, Key::P999, "p999", "p99.9", true)}
                    {sort_header(sort, Key::Total, "total", "total", true)}
                    <th class="num">"%"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint">"Click a row: its histogram above and its events highlighted on the timeline (] / [ page through them); double-click: zoom to them."</p>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll latency" data-testid="latency">
            {body}
        </div>
    }
}
