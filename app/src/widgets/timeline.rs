//! The device/trace timeline widget: a toolbar (Colour by, Zoom to data, Fit all, key help), the
//! colour legend, and the canvas timeline of [`crate::canvas::timeline`].

use leptos::prelude::*;

use crate::canvas::colour::{self, LEGEND_TOP};
use crate::canvas::colour_index::LegendEntry;
use crate::canvas::timeline::Timeline;
use crate::state::{use_app_state, ColourBy, ViewRequest};

/// Up to this many slices, a colouring's legend is computed at once (≈ 10 ms in the page).
const LEGEND_AT_ONCE_SLICES: usize = 300_000;
/// A stepped legend's work per task before it yields to the browser.
const LEGEND_STEP_MS: f64 = 12.0;
/// Slices per [`colour::LegendBuild::add_next`] call (the step checks the clock between calls).
const LEGEND_SLICES_PER_CALL: usize = 32_768;

#[component]
pub fn TimelineWidget() -> impl IntoView {
    let state = use_app_state();
    // the legend is computed once per (trace, colour choice), never per frame: at once on a
    // small trace; on a big one in steps between frames (one pass over 10 M slices was a
    // 190–350 ms task), the canvas meanwhile colouring by the new choice with every name in its
    // own colour, then repainting with the legend's distinct colours (`legend_gen`)
    let legend = RwSignal::new(Vec::<LegendEntry>::new());
    let legend_pending = RwSignal::new(false);
    let job = StoredValue::new(0u64);
    Effect::new(move |_| {
        let d = state.tracked_data();
        let by = state.colour.by.get();
        let id = job.get_value() + 1;
        job.set_value(id);
        let apply = move |d: &crate::state::TraceData, l: Vec<LegendEntry>| {
            d.apply_legend(&l);
            legend.set(l);
            legend_pending.set(false);
            state.colour.legend_gen.update(|g| *g += 1);
        };
        match (by, &d.indexes.auto_legend) {
            // built with the indexes, between frames
            (ColourBy::Auto, Some(l)) => apply(&d, l.clone()),
            (by, _) if by == ColourBy::Duration || d.trace.slice_count() <= LEGEND_AT_ONCE_SLICES => {
                apply(&d, colour::legend(&d, by, LEGEND_TOP))
            }
            (by, _) => {
                legend.set(Vec::new());
                legend_pending.set(true);
                leptos::task::spawn_local(async move {
                    let mut b = colour::LegendBuild::new(by);
                    loop {
                        let t0 = crate::platform::now_ms();
                        let mut more = true;
                        while more && crate::platform::now_ms() - t0 < LEGEND_STEP_MS {
                            more = b.add_next(&d, LEGEND_SLICES_PER_CALL);
                        }
                        if !more {
                            break;
                        }
                        crate::platform::yield_now().await;
                        // a newer colouring or trace took over
                        if job.get_value() != id {
                            return;
                        }
                    }
                    if job.get_value() == id {
                        apply(&d, b.finish(&d, LEGEND_TOP));
                    }
                });
            }
        }
    });
    let options = ColourBy::ALL
        .iter()
        .map(|c| view! { <option value=c.key() selected=move || state.colour.by.get() == *c>{c.label()}</option> })
        .collect_view();
    let on_colour = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(c) = ColourBy::ALL.iter().find(|c| c.key() == v) {
            state.colour.by.set(*c);
        }
    };
    let entries = move || {
        legend
            .get()
            .into_iter()
            .map(|e: LegendEntry| {
                let swatch = if e.palette == usize::MAX {
                    "background:transparent;border:1px dashed currentColor".to_string()
                } else {
                    format!("background:{}", colour::css_of(e.palette))
                };
                let title = if e.count > 0 {
                    format!(
                        "{} — {} events, {}",
                        e.label,
                        e.count,
                        loupe_core::time::format_duration_ns(e.total_ns)
                    )
                } else {
                    e.label.clone()
                };
                view! {
                    <span class="legend-item" title=title data-palette=e.palette.to_string()>
                        <span class="legend-swatch" style=swatch></span>
                        <span class="legend-label">{e.label}</span>
                    </span>
                }
            })
            .collect_view()
    };
    view! {
        <div class="widget-body timeline-widget">
            <div class="tl-toolbar" role="toolbar" aria-label="Timeline">
                <label class="tl-colour">"Colour by "
                    <select data-testid="colour-by" on:change=on_colour>{options}</select>
                </label>
                <button class="button button-quiet" data-testid="zoom-to-data"
                    title="Fit the busiest part of the data, without outliers or long idle stretches (Z)"
                    on:click=move |_| state.view.request.set(Some(ViewRequest::ZoomToData))>"Zoom to data"</button>
                <button class="button button-quiet" data-testid="fit-all" title="Show everything (0)"
                    on:click=move |_| state.view.request.set(Some(ViewRequest::Reset))>"Fit all"</button>
                <button class="button button-quiet" data-testid="help-button" title="Keys and gestures (?)"
                    on:click=move |_| state.show_help.update(|h| *h = !*h)>"?"</button>
                <crate::components::clock_align::ClockAlign/>
            </div>
            <div class="tl-legend" data-testid="colour-legend" data-colour-by=move || state.colour.by.get().key()
                data-pending=move || legend_pending.get().to_string()>
                {move || legend_pending.get().then(|| view! {
                    <span class="legend-item legend-pending" data-testid="colour-legend-pending" role="status">
                        <span class="spinner" aria-hidden="true"></span>"Adding up the colours' time…"
                    </span>
                })}
                {entries}
            </div>
            <crate::components::warning_bands::WarningBandLegend/>
            <div class="timeline-host"><Timeline/></div>
        </div>
    }
}
