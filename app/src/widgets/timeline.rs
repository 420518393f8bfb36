//! The device/trace timeline widget: a toolbar (Colour by, Zoom to data, Fit all, key help), the
//! colour legend, and the canvas timeline of [`crate::canvas::timeline`].

use leptos::prelude::*;

use crate::canvas::colour::{self, LEGEND_TOP};
use crate::canvas::colour_index::LegendEntry;
use crate::canvas::timeline::Timeline;
use crate::state::{use_app_state, ColourBy, ViewRequest};

#[component]
pub fn TimelineWidget() -> impl IntoView {
    let state = use_app_state();
    // the legend is computed once per (trace, colour choice), never per frame
    let legend = Memo::new(move |_| {
        let d = state.tracked_data();
        let l = match (state.colour_by.get(), &d.auto_legend) {
            // built with the indexes, between frames
            (ColourBy::Auto, Some(l)) => l.clone(),
            (by, _) => colour::legend(&d, by, LEGEND_TOP),
        };
        // the legend's names in its (distinct) colours on the canvas too; the canvas repaints
        // on the same colour-by change, after this
        d.apply_legend(&l);
        l
    });
    let options = ColourBy::ALL
        .iter()
        .map(|c| view! { <option value=c.key() selected=move || state.colour_by.get() == *c>{c.label()}</option> })
        .collect_view();
    let on_colour = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(c) = ColourBy::ALL.iter().find(|c| c.key() == v) {
            state.colour_by.set(*c);
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
                    on:click=move |_| state.view_request.set(Some(ViewRequest::ZoomToData))>"Zoom to data"</button>
                <button class="button button-quiet" data-testid="fit-all" title="Show everything (0)"
                    on:click=move |_| state.view_request.set(Some(ViewRequest::Reset))>"Fit all"</button>
                <button class="button button-quiet" data-testid="help-button" title="Keys and gestures (?)"
                    on:click=move |_| state.show_help.update(|h| *h = !*h)>"?"</button>
                <crate::components::clock_align::ClockAlign/>
            </div>
            <div class="tl-legend" data-testid="colour-legend" data-colour-by=move || state.colour_by.get().key()>
                {entries}
            </div>
            <crate::components::warning_bands::WarningBandLegend/>
            <div class="timeline-host"><Timeline/></div>
        </div>
    }
}
