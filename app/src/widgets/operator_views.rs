//! Operator views (what the TensorBoard-Neuron plugin showed): the operator framework view and
//! the operator HLO view of a device profile — a pie of the time by operator (HTML legend beside
//! it) and a sortable, filterable table: occurrences, instructions, time, time %, compute /
//! control / data-transfer time, devices, members (the HLO ops a framework op became, the fused
//! members of an HLO op). Click a row: its events are highlighted on the timeline (`]`/`[` page
//! through them); double-click: the timeline zooms to them. Computed once per trace, level and
//! "include waits" by `loupe_core::analysis::operator_views`: semaphore waits are waiting, not
//! compute, and are left out unless the toggle counts them in; time without an operator is
//! split by kind of work in the pie.

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::operator_views::{
    applies, events_of, levels, operator_view_with, Lane, OperatorView,
};
use loupe_core::model::{OpLevel, TrackId};
use loupe_core::time::format_duration_ns;
use loupe_core::view::{LegendColours, Rgb};

use super::deferred::{deferred, shown, spinner, Deferred};
use crate::charts::{Chart, ChartCanvas, Part};
use crate::search_runner::show_events;
use crate::state::{use_app_state, ViewRequest};
use crate::workbench::layout::WidgetKind;

/// Pie slices before the rest is folded into "other".
const PIE_PARTS: usize = 10;
/// Table rows shown before "show all".
const ROWS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortKey {
    Name,
    Occurrences,
    Instructions,
    Time,
    Compute,
    Control,
    Data,
}

const OTHER: Rgb = Rgb(0xc8, 0xcc, 0xd2);

/// The colours of the pie's operators (distinct within the pie; the table's rows use the same).
fn colours(v: &OperatorView) -> LegendColours {
    LegendColours::new(&v.rows.iter().take(PIE_PARTS).map(|r| r.name.as_str()).collect::<Vec<_>>())
}

fn pie(v: &OperatorView) -> Vec<Part> {
    let colours = colours(v);
    let mut parts: Vec<Part> = v
        .rows
        .iter()
        .take(PIE_PARTS)
        .map(|r| Part { label: r.name.clone(), value: r.total_ns as f64, colour: colours.get(&r.name) })
        .collect();
    let rest: i64 = v.rows.iter().skip(PIE_PARTS).map(|r| r.total_ns).sum();
    if rest > 0 {
        parts.push(Part { label: "other operators".into(), value: rest as f64, colour: OTHER });
    }
    // time without an operator, by kind of work (so DMA nobody attributed is not read as compute)
    for (lane, (&ns, colour)) in Lane::ALL.iter().zip(v.unattributed_lane_ns.iter().zip(NO_OP)) {
        if ns > 0 {
            parts.push(Part { label: format!("no operator · {}", lane.name()), value: ns as f64, colour });
        }
    }
    parts
}

/// Greys for the parts without an operator (compute, control, data transfer).
const NO_OP: [Rgb; 3] = [Rgb(0xa4, 0xaa, 0xb3), Rgb(0xb6, 0xbb, 0xc3), Rgb(0xdc, 0xdf, 0xe3)];

fn css(c: Rgb) -> String {
    format!("background: rgb({}, {}, {})", c.0, c.1, c.2)
}

#[component]
pub fn OperatorViewsWidget() -> impl IntoView {
    let state = use_app_state();
    let level = RwSignal::new(OpLevel::Framework);
    let filter = RwSignal::new(String::new());
    let sort = RwSignal::new((SortKey::Time, true));
    let show_all = RwSignal::new(false);
    let selected = RwSignal::new(None::<String>);
    let include_waits = RwSignal::new(false);
    // a new trace: start at its outermost level (framework ops when the profile has them)
    let available = Memo::new(move |_| levels(&state.tracked_data().trace));
    Effect::new(move |_| {
        let ls = available.get();
        let preferred =
            if ls.contains(&OpLevel::Framework) { Some(OpLevel::Framework) } else { ls.first().copied() };
        if let Some(l) = preferred {
            level.set(l);
        }
        selected.set(None);
    });
    // one computation per trace and level, while the widget is on screen (not at load time: it
    // and its pie were ≈ 50 ms of the install of a 3 M-instruction profile, in a hidden tab)
    let Deferred { result, pending, .. } = deferred(
        shown(WidgetKind::OperatorViews),
        move || (state.generation.get(), level.get(), include_waits.get()),
        move |&(_, lvl, waits)| {
            let d = state.data();
            applies(&d.trace).then(|| Arc::new(operator_view_with(&d.trace, lvl, waits)))
        },
    );
    let view_memo = move || result.get().and_then(|r| (*r).clone());
    let chart = Signal::derive(move || view_memo().map(|v| Arc::new(Chart::Pie(pie(&v)))));

    let highlight = move |name: String, zoom: bool| {
        let d = state.data();
        let lvl = level.get_untracked();
        let per_track = events_of(&d.trace, lvl, &name);
        if zoom {
            let (mut t0, mut t1) = (i64::MAX, i64::MIN);
            for (ti, v) in per_track.iter().enumerate() {
                let s = &d.trace.track(TrackId(ti as u32)).slices;
                for &i in v {
                    t0 = t0.min(s.start_ns[i as usize]);
                    t1 = t1.max(s.end_ns(i as usize));
                }
            }
            if t0 < t1 {
                let pad = (t1 - t0) / 50;
                state.view.request.set(Some(ViewRequest::Range { t0_ns: t0 - pad, t1_ns: t1 + pad }));
            }
        }
        selected.set(Some(name.clone()));
        let label = format!("{} {name}", lvl.name());
        show_events(state, &label, per_track, !zoom);
    };

    let level_button = move |l: OpLevel, text: &'static str| {
        view! {
            <button class:hidden=move || !available.get().contains(&l) class="seg" class:active=move || level.get() == l aria-pressed=move || (level.get() == l).to_string()
                data-level=l.name() on:click=move |_| { level.set(l); selected.set(None); }>{text}</button>
        }
    };
    let header = move |key: SortKey, text: &'static str, num: bool| {
        let arrow = move || match sort.get() {
            (k, true) if k == key => " ▾",
            (k, false) if k == key => " ▴",
            _ => "",
        };
        view! {
            <th class:num=num class="sortable" data-sort=format!("{key:?}").to_lowercase()
                on:click=move |_| sort.update(|s| *s = if s.0 == key { (key, !s.1) } else { (key, key != SortKey::Name) })>
                {text}{arrow}
            </th>
        }
    };

    let body = move || {
        let Some(computed) = result.get() else {
            return if pending.get() {
                spinner("Computing the operator views…", "op-views-computing")
            } else {
                ().into_any()
            };
        };
        let Some(v) = (*computed).clone() else {
            return view! {
                <p class="empty-state">
                    "The operator views need a device profile with operators: an NTFF dropped together with its NEFF, "
                    "the neuron-profile JSON export, or the Parquet export. This profile has no device instructions "
                    "attributed to framework or HLO operators."
                </p>
            }
            .into_any();
        };
        // operator names from a NEFF of another program (typed flag on the device): marked
        let unverified = state.tracked_data().trace.unverified_attribution();
        let mark = loupe_core::model::Attribution::UNVERIFIED;
        let total = v.total_ns.max(1) as f64;
        let legend = pie(&v)
            .into_iter()
            .map(|p| {
                let pct = p.value / total * 100.0;
                view! {
                    <li title=p.label.clone()><span class="swatch" style=css(p.colour)></span>
                        <span class="legend-name">{p.label.clone()}</span>
                        <span class="num">{format!("{pct:.1} %")}</span></li>
                }
            })
            .collect_view();
        let needle = filter.get().to_lowercase();
        let colours = colours(&v);
        let mut rows: Vec<_> =
            v.rows.iter().filter(|r| needle.is_empty() || r.name.to_lowercase().contains(&needle)).collect();
        let (key, desc) = sort.get();
        rows.sort_by(|a, b| {
            let o = match key {
                SortKey::Name => a.name.cmp(&b.name),
                SortKey::Occurrences => a.occurrences.cmp(&b.occurrences),
                SortKey::Instructions => a.instructions.cmp(&b.instructions),
                SortKey::Time => a.total_ns.cmp(&b.total_ns),
                SortKey::Compute => a.lane_ns[0].cmp(&b.lane_ns[0]),
                SortKey::Control => a.lane_ns[1].cmp(&b.lane_ns[1]),
                SortKey::Data => a.lane_ns[2].cmp(&b.lane_ns[2]),
            };
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        let matched = rows.len();
        let limit = if show_all.get() { usize::MAX } else { ROWS };
        let sel = selected.get();
        let table_rows = rows
            .into_iter()
            .take(limit)
            .map(|r| {
                let name = r.name.clone();
                let (n1, n2) = (name.clone(), name.clone());
                let members = if r.members.is_empty() {
                    String::new()
                } else {
                    let mut s = r.members.iter().map(|m| m.0.as_str()).collect::<Vec<_>>().join(", ");
                    if r.member_count as usize > r.members.len() {
                        s.push_str(&format!(" … (+{})", r.member_count as usize - r.members.len()));
                    }
                    s
                };
                let members_title = r
                    .members
                    .iter()
                    .map(|m| format!("{} — {}", m.0, format_duration_ns(m.1)))
                    .collect::<Vec<_>>()
                    .join("\n");
                let is_sel = sel.as_deref() == Some(name.as_str());
                view! {
                    <tr class="op-view-row" class:selected=is_sel data-name=name.clone() tabindex="0"
                        on:click=move |_| highlight(n1.clone(), false)
                        on:dblclick=move |_| highlight(n2.clone(), true)>
                        <th title=name.clone() data-unverified=unverified.to_string()><span class="swatch" style=css(colours.get(&name))></span>{name.clone()}
                            {unverified.then(|| view! { " " <span class="unverified" data-testid="unverified">{mark}</span> })}</th>
                        <td class="num">{r.occurrences.to_string()}</td>
                        <td class="num">{r.instructions.to_string()}</td>
                        <td class="num" data-ns=r.total_ns.to_string()>{format_duration_ns(r.total_ns)}</td>
                        <td class="num pct"><span class="bar" style=format!("width:{:.1}%", r.percent.min(100.0))></span>{format!("{:.2} %", r.percent)}</td>
                        <td class="num">{format_duration_ns(r.lane_ns[0])}</td>
                        <td class="num">{format_duration_ns(r.lane_ns[1])}</td>
                        <td class="num">{format_duration_ns(r.lane_ns[2])}</td>
                        <td>{r.devices.join(", ")}</td>
                        <td class="members" title=members_title>{members}</td>
                    </tr>
                }
            })
            .collect_view();
        let more = (matched > limit).then(|| {
            view! { <button class="link" on:click=move |_| show_all.set(true)>{format!("show all {matched} operators")}</button> }
        });
        let level_name = match v.level {
            OpLevel::Hlo => "HLO operator",
            OpLevel::Layer => "layer",
            _ => "framework operator",
        };
        view! {
            <div class="op-views-top">
                <div class="op-views-pie">
                    <ChartCanvas chart=chart height_px=170 label=format!("time by {level_name}") testid="op-views-pie"/>
                </div>
                <ul class="chart-legend" data-testid="op-views-legend">{legend}</ul>
            </div>
            {unverified.then(|| view! {
                <p class="hint unverified" data-testid="op-views-unverified">
                    {format!("Operator names are {mark}: the NEFF loaded is not the one this capture was made from.")}
                </p>
            })}
            <p class="hint">
                {format!("{} {level_name}s · device time {} · ", v.rows.len(), format_duration_ns(v.total_ns))}
                {format!("{} in {} slices without one", format_duration_ns(v.unattributed_ns), v.unattributed_slices)}
                {(v.waits_left_out.0 > 0).then(|| format!(
                    " · {} semaphore waits ({}) left out: waiting, not compute",
                    v.waits_left_out.0,
                    format_duration_ns(v.waits_left_out.1)
                ))}
            </p>
            <div class="table-tools">
                <input type="search" class="filter" placeholder="Filter operators" data-testid="op-views-filter"
                    prop:value=move || filter.get() on:input=move |e| filter.set(event_target_value(&e))/>
                <span class="hint">{format!("{matched} shown")}</span>
            </div>
            <table class="grid op-views-table" data-testid="op-views-table">
                <thead><tr>
                    {header(SortKey::Name, "operator", false)}
                    {header(SortKey::Occurrences, "occurrences", true)}
                    {header(SortKey::Instructions, "instructions", true)}
                    {header(SortKey::Time, "time", true)}
                    <th class="num">"time %"</th>
                    {header(SortKey::Compute, "compute", true)}
                    {header(SortKey::Control, "control", true)}
                    {header(SortKey::Data, "data transfer", true)}
                    <th>"device / core"</th>
                    <th>"members"</th>
                </tr></thead>
                <tbody>{table_rows}</tbody>
            </table>
            {more}
            <details class="definitions">
                <summary>"How these are computed"</summary>
                <ul>
                    <li>"semaphore waits (EVENT_SEMAPHORE instructions) are waiting, not compute: left out unless \"include waits\" is on, as neuron-profile leaves them out of instruction time"</li>
                    <li>"time: durations of the instructions on the engines (compute: Tensor, Vector, Scalar, GpSimd; control: Sync) and of the DMA transfers (data transfer) whose operator, at this level, has that name; overlapping work on different engines adds up"</li>
                    <li>"time %: of the same sum over every device slice, including the ones without an operator at this level"</li>
                    <li>"occurrences: distinct places in the program (operator nodes) with that name that ran"</li>
                    <li>"members: the operators one level down (the HLO ops of a framework op, the instructions fused into an HLO op), by time"</li>
                    <li>"click a row to highlight its events on the timeline (] / [ page through them), double-click to zoom to them"</li>
                </ul>
            </details>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll op-views" data-testid="operator-views">
            <div class="seg-group" role="group" aria-label="Level">
                {level_button(OpLevel::Layer, "Layers")}
                {level_button(OpLevel::Framework, "Framework ops")}
                {level_button(OpLevel::Hlo, "HLO ops")}
            </div>
            <label class="toggle" title=loupe_core::analysis::measures::ENGINE_WAITING.text>
                <input type="checkbox" data-testid="op-views-include-waits" prop:checked=move || include_waits.get()
                    on:change=move |e| include_waits.set(event_target_checked(&e))/>
                " include waits"
            </label>
            {body}
        </div>
    }
}
