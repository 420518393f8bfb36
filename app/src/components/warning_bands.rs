//! The **warning band strip** under the timeline's ruler (issue 40 §2): the bands of
//! `loupe_core::analysis::warning_bands` (small dynamic DMA packets, throttling, long semaphore
//! waits, idle engines), one colour per rule from `style/tokens.css` (`--band-<rule>`), each with
//! its rule, threshold and findings as its tooltip; a click selects the events behind it the way
//! a widget's chosen events are selected (`search_runner::show_events`: outlined, paged in Event
//! Details, the first revealed). The strip is DOM over the canvas, positioned in % of the visible
//! window, which it follows from the `ViewportBus` in a late scheduler callback (after the
//! timeline's paint) only when the window changed. Bands narrower than 3 px are drawn 3 px wide.
//!
//! The bands are computed once per trace (kept per load generation, shared by strip and legend).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::warning_bands::{warning_bands, Rule, WarningBand};
use send_wrapper::SendWrapper;

use crate::canvas::layout::RULER_H_PX;
use crate::canvas::scheduler::Scheduler;
use crate::state::{use_app_state, ViewportBus};

thread_local! {
    /// The bands of the trace of one load generation: the strip and the legend share them.
    static BANDS: std::cell::RefCell<Option<(u64, Arc<Vec<WarningBand>>)>> = const { std::cell::RefCell::new(None) };
}

/// The bands of the current trace, computed once per trace (whoever asks first).
pub fn use_bands() -> Memo<Arc<Vec<WarningBand>>> {
    let state = use_app_state();
    Memo::new(move |_| {
        let d = state.tracked_data();
        let gen = state.generation.get_untracked();
        BANDS.with(|c| {
            let mut c = c.borrow_mut();
            match &*c {
                Some((g, b)) if *g == gen => b.clone(),
                _ => {
                    let b = Arc::new(warning_bands(&d.trace));
                    *c = Some((gen, b.clone()));
                    b
                }
            }
        })
    })
}

/// The strip over the top of the tracks area, under the ruler.
#[component]
pub fn WarningBandStrip() -> impl IntoView {
    let state = use_app_state();
    let bands = use_bands();
    let window: RwSignal<(i64, i64)> = RwSignal::new((0, 0));
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone());
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    if let (Some(sch), Some(bus)) = (scheduler, bus) {
        let seen = Rc::new(Cell::new(u64::MAX));
        let redraw = Rc::new(move || {
            if seen.get() == bus.generation.get() {
                return;
            }
            seen.set(bus.generation.get());
            window.set(bus.window());
        });
        let id = sch.register_late(redraw);
        sch.request_redraw();
        let sch = SendWrapper::new(sch);
        on_cleanup(move || sch.unregister(id));
    }
    let items = move || {
        let b = bands.get();
        let (t0, t1) = window.get();
        let span = (t1 - t0).max(1) as f64;
        b.iter()
            .enumerate()
            .filter(|(_, x)| x.end_ns >= t0 && x.start_ns <= t1)
            .map(|(i, x)| {
                let left = ((x.start_ns - t0) as f64 / span * 100.0).max(-1.0);
                let right = ((x.end_ns - t0) as f64 / span * 100.0).min(101.0);
                let style = format!(
                    "left:{left:.4}%;width:max(3px,{:.4}%);background:var(--band-{})",
                    (right - left).max(0.0),
                    x.rule.id()
                );
                let on_click = move |ev: leptos::ev::MouseEvent| {
                    ev.stop_propagation();
                    let b = bands.get_untracked();
                    let Some(band) = b.get(i) else { return };
                    let n = state.data().trace.tracks.len();
                    crate::search_runner::show_events(state, band.rule.title(), band.per_track(n), true);
                };
                view! {
                    <div class="warning-band" data-testid="warning-band" data-rule=x.rule.id()
                        data-events=x.events.len().to_string() data-start=x.start_ns.to_string()
                        data-end=x.end_ns.to_string() title=x.text.clone() style=style on:click=on_click></div>
                }
            })
            .collect_view()
    };
    view! {
        <div class="warning-strip" data-testid="warning-strip" style=format!("top:{RULER_H_PX}px")
            data-bands=move || bands.get().len().to_string()
            class:warning-strip-empty=move || bands.get().is_empty()>
            {items}
        </div>
    }
}

/// The legend of the rules that fired (all four in the `title`s): swatch, title, rule text.
#[component]
pub fn WarningBandLegend() -> impl IntoView {
    let bands = use_bands();
    move || {
        let b = bands.get();
        if b.is_empty() {
            return None;
        }
        let items = Rule::ALL
            .iter()
            .map(|&r| {
                let n = b.iter().filter(|x| x.rule == r).count();
                let title = format!("{}: {}. {n} band{} here.", r.title(), r.definition(), if n == 1 { "" } else { "s" });
                view! {
                    <span class="legend-item" class:legend-off=n == 0 title=title data-testid="warning-legend-item"
                        data-rule=r.id()>
                        <span class="legend-swatch" style=format!("background:var(--band-{})", r.id())></span>
                        <span class="legend-label">{format!("{} ({n})", r.title())}</span>
                    </span>
                }
            })
            .collect_view();
        Some(view! {
            <div class="tl-legend tl-warning-legend" data-testid="warning-legend">
                <span class="legend-label" title="Warning bands: drawn under the ruler; hover a band for its rule and threshold, click it to select the events behind it">"Warnings:"</span>
                {items}
            </div>
        })
    }
}
