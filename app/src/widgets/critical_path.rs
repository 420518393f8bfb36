//! Critical Path: Holistic Trace Analysis 0.5.0's lightweight critical path of one rank's window
//! (`loupe_core::analysis::critical_path`, equal to HTA on its own test traces): the path's
//! length, what bounds it (`cpu_bound`, `gpu_compute_bound`, … with each class's definition on
//! hover) as bars, the longest edges (click → that event), *Show on timeline* (the path's events
//! outlined, the rest dimmed, `]`/`[` page through them), and a "what if" that shortens every
//! event of a name by x % and searches the longest path again. The window is a rank, optionally
//! narrowed to one instance of an annotation (e.g. `ProfilerStep#3`), as HTA's
//! `critical_path_analysis(rank, annotation, instance_id)`. Computed only while the tab is shown.

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::critical_path::{self, BoundBy, CriticalPath, CriticalPathOptions};
use loupe_core::model::SliceRef;
use loupe_core::time::format_duration_ns;

use super::deferred::{deferred, shown, spinner, zoom_to, Deferred};
use crate::charts::{Chart, ChartCanvas, Part, Unit};
use crate::search_runner::show_events_with_edges;
use crate::state::{use_app_state, Selection, ViewRequest};
use crate::workbench::layout::WidgetKind;

/// Longest edges listed.
const LONGEST: usize = 25;

fn name_of(d: &crate::state::TraceData, s: SliceRef) -> String {
    let t = d.trace.track(s.track);
    t.slices.name.get(s.index as usize).map(|&n| d.trace.str(n).to_string()).unwrap_or_default()
}

fn bound_label(b: BoundBy) -> &'static str {
    match b.definition() {
        Some(d) => d.label,
        None => "dependency",
    }
}

/// Profiles up to this many slices get their first rank's whole path when the tab is shown.
const AUTO_MAX_SLICES: usize = 200_000;

#[component]
pub fn CriticalPathWidget() -> impl IntoView {
    let state = use_app_state();
    let rank = RwSignal::new(None::<i64>);
    let annotation = RwSignal::new(String::new());
    let instance = RwSignal::new(0usize);
    // what the form says, applied by "Compute". A small profile's whole first rank is computed
    // when the tab is shown; on a big one nothing runs until the user asks (the path is one
    // computation in the page: seconds on millions of events), with the window prefilled with
    // the first iteration when the profile has iterations
    let applied = RwSignal::new(None::<(Option<i64>, String, usize)>);
    Effect::new(move |_| {
        let d = state.tracked_data();
        rank.set(None);
        let big = d.trace.slice_count() > AUTO_MAX_SLICES;
        let step =
            if big && !d.trace.iterations.is_empty() { "ProfilerStep".to_string() } else { String::new() };
        annotation.set(step);
        instance.set(0);
        applied.set((!big).then(|| (None, String::new(), 0)));
    });
    let ranks = Memo::new(move |_| {
        state.generation.track();
        critical_path::ranks(&state.data().trace)
    });
    let Deferred { result, pending, compute_ms } = deferred(
        shown(WidgetKind::CriticalPath),
        move || (state.generation.get(), applied.get()),
        move |(_, req)| {
            let (r, a, i) = req.as_ref()?;
            let opts = CriticalPathOptions {
                rank: *r,
                annotation: (!a.trim().is_empty()).then(|| a.trim().to_string()),
                instance: *i,
            };
            Some(critical_path::critical_path(&state.data().trace, &opts).map_err(|e| e.to_string()))
        },
    );
    let ok = move || result.get().filter(|r| matches!(r.as_ref(), Some(Ok(_))));
    let with_path = move |f: &dyn Fn(&CriticalPath)| {
        if let Some(r) = result.get_untracked() {
            if let Some(Ok(cp)) = r.as_ref() {
                f(cp)
            }
        }
    };

    let show_path = move |zoom: bool| {
        with_path(&|cp| {
            let d = state.data();
            let mut per_track: Vec<Vec<u32>> = vec![Vec::new(); d.trace.tracks.len()];
            for e in &cp.events {
                if let Some(v) = per_track.get_mut(e.track.idx()) {
                    v.push(e.index);
                }
            }
            if zoom {
                zoom_to(state, &per_track);
            }
            let edges = cp.edges.iter().map(|e| (e.from, e.to)).collect();
            show_events_with_edges(
                state,
                &format!("critical path of rank {}", cp.rank),
                per_track,
                edges,
                false,
            );
        })
    };
    let reveal = move |s: SliceRef| {
        state.view.selection.set(Some(Selection::Slice(s)));
        state.view.request.set(Some(ViewRequest::Reveal(s)));
    };

    let chart = Signal::derive(move || {
        let r = ok()?;
        let cp = r.as_ref().as_ref()?.as_ref().ok()?;
        let shown: Vec<_> = cp.bound_by.iter().filter(|b| b.bound_by != BoundBy::Dependency).collect();
        let colours =
            loupe_core::view::distinct_colours(&shown.iter().map(|b| b.bound_by.key()).collect::<Vec<_>>());
        let parts: Vec<Part> = shown
            .iter()
            .zip(colours)
            .map(|(b, colour)| Part {
                label: format!("{} {:.1} %", bound_label(b.bound_by), b.percent),
                value: b.percent,
                colour,
            })
            .collect();
        (!parts.is_empty()).then(|| Arc::new(Chart::Bars { parts, unit: Unit::Percent }))
    });

    // what if: a name and a percentage
    let wi_name = RwSignal::new(String::new());
    let wi_pct = RwSignal::new(20.0f64);
    let wi_result = RwSignal::new(None::<(String, f64, i64, i64)>);
    let run_what_if = move || {
        let name = wi_name.get_untracked().trim().to_string();
        if name.is_empty() {
            return;
        }
        let pct = wi_pct.get_untracked();
        with_path(&|cp| {
            let t = cp.what_if_named(&state.data().trace, &name, pct);
            wi_result.set(Some((name.clone(), pct, cp.total_ns, t)));
        });
    };

    let form = move || {
        let rank_options = ranks
            .get()
            .into_iter()
            .map(|r| view! { <option value=r.to_string() selected=move || rank.get() == Some(r)>{format!("rank {r}")}</option> })
            .collect_view();
        view! {
            <form class="gpu-toolbar cp-form" on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                applied.set(Some((rank.get_untracked(), annotation.get_untracked(), instance.get_untracked())));
            }>
                <label>"Rank "
                    <select data-testid="cp-rank" on:change=move |ev| rank.set(event_target_value(&ev).parse().ok())>
                        {rank_options}
                    </select>
                </label>
                <label title="Slices whose name contains this text bound the window (HTA's annotation); empty: the whole rank">
                    "Annotation "
                    <input type="text" data-testid="cp-annotation" placeholder="e.g. ProfilerStep#2 (empty: whole rank)"
                        prop:value=move || annotation.get() on:input=move |e| annotation.set(event_target_value(&e))/>
                </label>
                <label title="Which occurrence of the annotation, from 0 (HTA's instance_id)">
                    "Instance "
                    <input type="number" min="0" class="cp-instance" data-testid="cp-instance"
                        prop:value=move || instance.get().to_string()
                        on:input=move |e| instance.set(event_target_value(&e).parse().unwrap_or(0))/>
                </label>
                <button type="submit" class="button" data-testid="cp-compute">"Compute"</button>
            </form>
        }
    };

    let body = move || {
        let Some(r) = result.get() else {
            return if pending.get() {
                spinner("Building the dependency graph and its longest path…", "cp-computing")
            } else {
                view! { <p class="empty-state">"The critical path is computed when this tab is shown."</p> }
                    .into_any()
            };
        };
        let cp = match r.as_ref() {
            None => {
                let n = state.data().trace.slice_count();
                return view! {
                    <p class="empty-state" data-testid="cp-ask" role="status">
                        {format!("This profile has {} events: the critical path is computed when you press \
                            Compute, for the rank and window above. It is one computation in the page, which \
                            stays busy while it runs (seconds on a profile this size).", loupe_core::units::thousands(n as u64))}
                    </p>
                }
                .into_any();
            }
            Some(Ok(cp)) => cp,
            Some(Err(e)) => {
                return view! { <p class="empty-state" data-testid="cp-error" role="status">{format!("No critical path: {e}.")}</p> }
                    .into_any()
            }
        };
        let d = state.data();
        let bound_rows = cp
            .bound_by
            .iter()
            .map(|b| {
                let title = b.bound_by.definition().map(|d| d.text).unwrap_or(
                    "Dependency and synchronisation edges: they order the path, they carry no time.",
                );
                view! {
                    <tr data-key=b.bound_by.key() data-ns=b.ns.to_string() data-pct=format!("{:.4}", b.percent)>
                        <th title=title>{bound_label(b.bound_by)}</th>
                        <td class="num">{format_duration_ns(b.ns)}</td>
                        <td class="num pct"><span class="bar" style=format!("width:{:.1}%", b.percent.clamp(0.0, 100.0))></span>{format!("{:.2} %", b.percent)}</td>
                    </tr>
                }
            })
            .collect_view();
        let edges = cp
            .longest_edges(LONGEST)
            .into_iter()
            .map(|e| {
                let ev = e.event.unwrap_or(e.to);
                let name = name_of(&d, ev);
                view! {
                    <tr tabindex="0" data-kind=e.kind.hta_name() on:click=move |_| reveal(ev)>
                        <td class="num" data-ns=e.weight_ns.to_string()>{format_duration_ns(e.weight_ns.max(0))}</td>
                        <td>{e.kind.hta_name().trim_start_matches("critical_path_").replace('_', " ")}</td>
                        <td>{bound_label(e.bound_by)}</td>
                        <th title=name.clone()>{name.clone()}</th>
                    </tr>
                }
            })
            .collect_view();
        let window = format!(
            "rank {} · window {} → {} ({}) · path: {} nodes, {} edges · graph: {} nodes, {} edges",
            cp.rank,
            format_duration_ns(cp.window_start_ns - d.trace.start_ns),
            format_duration_ns(cp.window_end_ns - d.trace.start_ns),
            format_duration_ns(cp.window_end_ns - cp.window_start_ns),
            cp.nodes,
            cp.edges.len(),
            cp.graph_nodes,
            cp.graph_edges
        );
        let total = cp.total_ns;
        view! {
            <div class="cp-headline" data-testid="cp-total" data-ns=total.to_string()>
                <span class="cp-big" title=loupe_core::analysis::measures::CRITICAL_PATH.text>{format_duration_ns(total)}</span>
                " critical path"
            </div>
            <p class="hint" data-testid="cp-window">{window}</p>
            <div class="gpu-toolbar">
                <button class="button" data-testid="cp-show" on:click=move |_| show_path(false)>"Show on timeline"</button>
                <button class="button button-quiet" data-testid="cp-zoom" on:click=move |_| show_path(true)>"Zoom to it"</button>
            </div>
            <h4>"Bound by"</h4>
            <ChartCanvas chart=chart height_px=120 label="critical path by what bounds it" testid="cp-bound-chart"/>
            <table class="grid analysis-table" data-testid="cp-bound">
                <thead><tr><th>"class"</th><th class="num">"time"</th><th class="num">"% of the path"</th></tr></thead>
                <tbody>{bound_rows}</tbody>
            </table>
            <h4>"What if"</h4>
            <form class="gpu-toolbar" on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); run_what_if(); }>
                <label>"Every event named "
                    <input type="text" data-testid="cp-whatif-name" placeholder="an operator or kernel name"
                        prop:value=move || wi_name.get() on:input=move |e| wi_name.set(event_target_value(&e))/>
                </label>
                <label>" shorter by "
                    <input type="number" min="0" max="100" class="cp-instance" data-testid="cp-whatif-pct"
                        prop:value=move || wi_pct.get().to_string()
                        on:input=move |e| wi_pct.set(event_target_value(&e).parse().unwrap_or(0.0))/>
                    " %"
                </label>
                <button type="submit" class="button" data-testid="cp-whatif-run">"Recompute"</button>
            </form>
            {move || wi_result.get().map(|(n, p, before, after)| {
                let delta = after - before;
                view! {
                    <p class="cp-whatif" data-testid="cp-whatif-result" data-ns=after.to_string()>
                        {format!("“{n}” {p:.0} % shorter: the path would be {} ({}{}, {:+.1} %). The graph's dependencies stay; only those events' own time shrinks.",
                            format_duration_ns(after), if delta <= 0 { "−" } else { "+" }, format_duration_ns(delta.abs()),
                            if before > 0 { delta as f64 * 100.0 / before as f64 } else { 0.0 })}
                    </p>
                }
            })}
            <h4>"Longest edges"</h4>
            <table class="grid analysis-table" data-testid="cp-edges">
                <thead><tr><th class="num">"time"</th><th>"edge"</th><th>"bound by"</th><th>"event"</th></tr></thead>
                <tbody>{edges}</tbody>
            </table>
            <p class="hint">
                {move || format!("HTA 0.5.0's lightweight critical path (its assumptions: CPU operators in order on their thread, launch → kernel, kernel → kernel on a stream, CUDA synchronisation). Click an edge: its event. Computed in {:.0} ms.", compute_ms.get())}
            </p>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll critical-path" data-testid="critical-path">
            {form}
            {body}
        </div>
    }
}
