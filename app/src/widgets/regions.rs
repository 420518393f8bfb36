//! Regions (Neuron Explorer's Region Highlighter): the profile cut into regions by one method at a
//! time (`loupe_core::analysis::regions`: framework operators, layers, HLO operators, iterations,
//! collective boundaries; a method the files cannot support is listed with the reason), a chart
//! of region durations by name, the regions in time order (click → zoom to it), up to three
//! regions compared side by side with the annotation-interval metrics
//! (`loupe_core::analysis::interval`), and *As annotations*: the regions' boundaries become the
//! current annotation set, so the Annotations widget and the timeline's markers show them as
//! intervals. Computed only while the tab is shown.

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::annotations::{AnnotationSet, MAX_MARKERS};
use loupe_core::analysis::interval::{interval_metrics, IntervalMetrics};
use loupe_core::analysis::regions::{self, Region, RegionMethod};
use loupe_core::time::format_duration_ns;
use loupe_core::view::LegendColours;

use super::deferred::{deferred, shown, spinner, Deferred};
use crate::charts::{Chart, ChartCanvas, Part, Unit};
use crate::state::{use_app_state, ViewRequest};
use crate::workbench::layout::WidgetKind;

/// Names in the durations chart.
const CHART_NAMES: usize = 12;
/// Regions listed before "show all".
const LISTED: usize = 200;
/// Regions compared side by side.
const COMPARED: usize = 3;

/// The regions' boundaries as an annotation set: a marker at each region's start (named after
/// it) and one at its end when the next region does not start there.
fn as_annotations(method: RegionMethod, rs: &[Region]) -> AnnotationSet {
    let mut set = AnnotationSet::new(&format!("regions: {}", method.label().to_lowercase()));
    let mut sorted: Vec<&Region> = rs.iter().collect();
    sorted.sort_by_key(|r| (r.start_ns, r.end_ns));
    for (k, r) in sorted.iter().enumerate() {
        if set.markers.len() + 2 > MAX_MARKERS {
            break;
        }
        let at_prev_end = set.markers.last().is_some_and(|m| m.t_ns == r.start_ns);
        let id = if at_prev_end { set.markers.last().map(|m| m.id) } else { Some(set.add(r.start_ns)) };
        if let Some(id) = id {
            set.rename(id, &r.name);
        }
        if sorted.get(k + 1).is_none_or(|n| n.start_ns != r.end_ns) {
            let id = set.add(r.end_ns);
            set.rename(id, &format!("end of {}", r.name));
        }
    }
    set
}

#[component]
pub fn RegionsWidget() -> impl IntoView {
    let state = use_app_state();
    let methods = Memo::new(move |_| {
        state.generation.track();
        regions::methods(&state.data().trace)
    });
    let method = RwSignal::new(None::<RegionMethod>);
    let compared = RwSignal::new(Vec::<usize>::new());
    let show_all = RwSignal::new(false);
    let message = RwSignal::new(None::<String>);
    // a new profile: its first available method
    Effect::new(move |_| {
        let m = methods.get();
        method.set(m.iter().find(|(_, why)| why.is_none()).map(|(m, _)| *m));
        compared.set(Vec::new());
        message.set(None);
    });
    let Deferred { result, pending, .. } = deferred(
        shown(WidgetKind::Regions),
        move || (state.generation.get(), method.get()),
        move |(_, m)| m.map(|m| (m, regions::regions(&state.data().trace, m))),
    );
    let chart = Signal::derive(move || {
        let r = result.get()?;
        let (_, rs) = r.as_ref().as_ref()?;
        let d = regions::durations(rs);
        let shown: Vec<_> = d.iter().take(CHART_NAMES).collect();
        let colours = LegendColours::new(&shown.iter().map(|x| x.name.as_str()).collect::<Vec<_>>());
        let parts: Vec<Part> = shown
            .iter()
            .map(|x| Part {
                label: format!("{} ×{}", x.name, x.count),
                value: x.total_ns as f64,
                colour: colours.get(&x.name),
            })
            .collect();
        (!parts.is_empty()).then(|| Arc::new(Chart::Bars { parts, unit: Unit::Ns }))
    });
    let zoom = move |r: &Region| {
        state
            .view
            .request
            .set(Some(ViewRequest::Range { t0_ns: r.start_ns, t1_ns: r.end_ns.max(r.start_ns + 1) }));
    };
    let toggle_compare = move |i: usize| {
        compared.update(|c| {
            if let Some(p) = c.iter().position(|&x| x == i) {
                c.remove(p);
            } else {
                if c.len() == COMPARED {
                    c.remove(0);
                }
                c.push(i);
            }
        })
    };
    let to_annotations = move |_| {
        let Some(r) = result.get_untracked() else { return };
        let Some((m, rs)) = r.as_ref().as_ref() else { return };
        let set = as_annotations(*m, rs);
        let n = set.markers.len();
        state.edit_annotations(|a| *a = set);
        message.set(Some(format!(
            "{} markers: the regions are the current annotation set (Annotations widget; save it there to keep it).",
            n
        )));
    };

    let picker = move || {
        let cur = method.get();
        let options = methods
            .get()
            .into_iter()
            .map(|(m, why)| {
                let title = why.clone().unwrap_or_default();
                let label = match &why {
                    Some(_) => format!("{} (not available)", m.label()),
                    None => m.label().to_string(),
                };
                view! { <option value=m.key() selected=cur == Some(m) disabled=why.is_some() title=title>{label}</option> }
            })
            .collect_view();
        let reasons = methods
            .get()
            .into_iter()
            .filter_map(|(m, why)| {
                why.map(|w| view! { <li data-method=m.key()>{format!("{}: {w}.", m.label())}</li> })
            })
            .collect_view();
        view! {
            <div class="gpu-toolbar">
                <label>"Regions by "
                    <select data-testid="regions-method" on:change=move |ev| {
                        method.set(RegionMethod::from_key(&event_target_value(&ev)));
                        compared.set(Vec::new());
                    }>{options}</select>
                </label>
                <button class="button button-quiet" data-testid="regions-annotate" on:click=to_annotations
                    title="Put a marker at every region boundary: the Annotations widget then lists each region as an interval with its metrics">
                    "As annotations"
                </button>
            </div>
            <details class="hint"><summary>"Methods not available here"</summary><ul>{reasons}</ul></details>
        }
    };

    let compare_view = move |rs: &[Region]| {
        let picked: Vec<(usize, Region)> =
            compared.get().into_iter().filter_map(|i| rs.get(i).map(|r| (i, r.clone()))).collect();
        if picked.is_empty() {
            return view! { <p class="hint">"Tick up to three regions to compare them side by side."</p> }
                .into_any();
        }
        let d = state.data();
        let m: Vec<IntervalMetrics> = picked
            .iter()
            .map(|(_, r)| interval_metrics(&d.trace, &d.indexes.window_index, r.start_ns, r.end_ns))
            .collect();
        let head = picked
            .iter()
            .map(|(_, r)| view! { <th class="num" title=r.name.clone()>{r.name.clone()}</th> })
            .collect_view();
        let row = |label: &'static str, title: &'static str, cell: &dyn Fn(&IntervalMetrics) -> String| {
            let cells = m.iter().map(|x| view! { <td class="num">{cell(x)}</td> }).collect_view();
            view! { <tr><th title=title>{label}</th>{cells}</tr> }
        };
        let mut engines: Vec<_> = m.iter().flat_map(|x| x.engines.iter().filter_map(|e| e.engine)).collect();
        engines.sort_by_key(|e| e.rank());
        engines.dedup();
        let engine_rows = engines
            .into_iter()
            .map(|e| {
                let cells = m
                    .iter()
                    .map(|x| {
                        let v = x.engines.iter().find(|w| w.engine == Some(e)).map(|w| w.active_percent);
                        view! { <td class="num">{v.map_or("—".to_string(), |v| format!("{v:.1} %"))}</td> }
                    })
                    .collect_view();
                view! { <tr><th title=loupe_core::analysis::measures::ENGINE_ACTIVE_PERCENT.text>{format!("{} active", e.name())}</th>{cells}</tr> }
            })
            .collect_view();
        let busiest = |x: &IntervalMetrics| {
            x.tracks
                .first()
                .map_or("—".to_string(), |t| format!("{} ({:.0} %)", t.label, t.utilisation * 100.0))
        };
        view! {
            <table class="grid analysis-table" data-testid="regions-compare">
                <thead><tr><th>"region"</th>{head}</tr></thead>
                <tbody>
                    {row("length", "The region's duration", &|x| format_duration_ns(x.len_ns))}
                    {row("events", "Slices overlapping the region, all tracks", &|x| x.events.to_string())}
                    {row("DMA bytes", "Bytes of the DMA slices overlapping the region", &|x| x.dma_bytes.map_or("—".into(), super::fmt_bytes))}
                    {engine_rows}
                    {row("busiest track", "The track with the most busy time inside the region", &busiest)}
                </tbody>
            </table>
        }
        .into_any()
    };

    let body = move || {
        let Some(r) = result.get() else {
            return if pending.get() {
                spinner("Cutting the profile into regions…", "regions-computing")
            } else {
                view! { <p class="empty-state">"No method of making regions applies to this profile."</p> }
                    .into_any()
            };
        };
        let Some((m, rs)) = r.as_ref().as_ref() else {
            return view! { <p class="empty-state">"No method of making regions applies to this profile."</p> }.into_any();
        };
        if rs.is_empty() {
            return view! { <p class="empty-state" data-testid="regions-empty">{format!("No regions by {}.", m.label().to_lowercase())}</p> }
                .into_any();
        }
        let d = state.data();
        let t0 = d.trace.start_ns;
        let sel = compared.get();
        let limit = if show_all.get() { usize::MAX } else { LISTED };
        let rows = rs
            .iter()
            .enumerate()
            .take(limit)
            .map(|(i, r)| {
                let rz = r.clone();
                let ticked = sel.contains(&i);
                view! {
                    <tr class="region-row" data-name=r.name.clone() data-start=r.start_ns.to_string() data-end=r.end_ns.to_string()
                        tabindex="0" on:click=move |_| zoom(&rz)>
                        <td><input type="checkbox" data-testid="region-compare" prop:checked=ticked
                            title="Compare (up to three)"
                            on:click=move |ev| { ev.stop_propagation(); toggle_compare(i); }/></td>
                        <th title=r.name.clone()>{r.name.clone()}</th>
                        <td class="num">{format_duration_ns(r.start_ns - t0)}</td>
                        <td class="num" data-ns=r.dur_ns().to_string()>{format_duration_ns(r.dur_ns())}</td>
                    </tr>
                }
            })
            .collect_view();
        let more = (rs.len() > LISTED && !show_all.get()).then(|| {
            view! { <button class="link" on:click=move |_| show_all.set(true)>{format!("Show all {} regions", rs.len())}</button> }
        });
        let durations = regions::durations(rs);
        let names = durations.len();
        let bars_h = 22 * durations.len().min(CHART_NAMES) as u32 + 24;
        let rs_cmp = rs.clone();
        view! {
            <p class="hint" data-testid="regions-count" data-count=rs.len().to_string()>
                {format!("{} regions, {} names, by {}.", rs.len(), names, m.label().to_lowercase())}
            </p>
            <h4>"Time by region name"</h4>
            <ChartCanvas chart=chart height_px=bars_h label="region durations by name" testid="regions-chart"/>
            <h4>"Compare"</h4>
            {move || compare_view(&rs_cmp)}
            <h4>"Regions"</h4>
            <table class="grid analysis-table" data-testid="regions-table">
                <thead><tr><th></th><th>"region"</th><th class="num">"start"</th><th class="num">"duration"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {more}
        }
        .into_any()
    };

    view! {
        <div class="widget-body analysis-widget regions-widget" data-testid="regions">
            {picker}
            {move || message.get().map(|m| view! { <p class="hint" role="status" data-testid="regions-message">{m}</p> })}
            {body}
        </div>
    }
}
