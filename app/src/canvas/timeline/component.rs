//! The timeline component: the track list (rows, their toggles and actions, what is left out)
//! beside the canvas, and the `Effect`s that hand the app state to the controller
//! ([`TimelineCtl`]), which no other widget holds (they reach it through the state or
//! [`TimelineHandle`]).

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

use super::ctl::TimelineCtl;
use crate::canvas::layout::{Layout, RowKind, RULER_H_PX};
use crate::canvas::scheduler::Scheduler;
use crate::state::{use_app_state, BoxSelection, MarkerEdit, Selection, ViewportBus};

/// Non-reactive handle to the controller, for the other components (details panel "go to").
#[derive(Clone, Copy)]
pub struct TimelineHandle(pub StoredValue<Option<SendWrapper<Rc<TimelineCtl>>>, LocalStorage>);

impl TimelineHandle {
    pub fn with(&self, f: impl FnOnce(&TimelineCtl)) {
        self.0.with_value(|c| {
            if let Some(c) = c {
                f(c)
            }
        });
    }
}

/// The timeline component: track list + canvas + tooltip.
#[component]
pub fn Timeline() -> impl IntoView {
    let state = use_app_state();
    // (not `unwrap_or_default`: a default Scheduler has no frame callback)
    #[allow(clippy::unwrap_or_default)]
    let scheduler =
        use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone()).unwrap_or_else(Scheduler::new);
    let handle = use_context::<TimelineHandle>().unwrap_or(TimelineHandle(StoredValue::new_local(None)));
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let wrap_ref = NodeRef::<leptos::html::Div>::new();
    let list_ref = NodeRef::<leptos::html::Div>::new();
    let tip_ref = NodeRef::<leptos::html::Div>::new();

    let layout = Memo::new(move |_| {
        let data = state.tracked_data();
        let plan =
            loupe_core::rows::plan_rows(&data.trace, &data.indexes.zero_counters, &state.row_options());
        Arc::new(Layout::from_plan(&data.trace, &plan))
    });
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| SendWrapper::new((*b).clone()));

    // create the controller once every element exists
    let scheduler = SendWrapper::new(scheduler);
    Effect::new(move |_| {
        let (Some(canvas), Some(wrap), Some(list), Some(tip)) =
            (canvas_ref.get(), wrap_ref.get(), list_ref.get(), tip_ref.get())
        else {
            return;
        };
        if handle.0.with_value(|c| c.is_some()) {
            return;
        }
        let on_select = move |s: Option<Selection>, modifier: bool| {
            state.view.select_modifier.set_value(modifier);
            state.view.selection.set(s);
        };
        let on_box = move |b: Option<BoxSelection>| state.view.box_selection.set(b);
        let on_help = move || state.show_help.update(|h| *h = !*h);
        let on_marker = move |e: MarkerEdit| {
            state.edit_annotations(|set| match e {
                MarkerEdit::Add { t_ns } => {
                    set.add(t_ns);
                }
                MarkerEdit::Move { id, t_ns } => set.move_to(id, t_ns),
            })
        };
        let ctl = TimelineCtl::new(
            canvas,
            wrap.into(),
            list.into(),
            tip.into(),
            (*scheduler).clone(),
            state.data(),
            layout.get_untracked(),
            bus.as_ref().map(|b| (**b).clone()),
            on_select,
            on_box,
            on_help,
            on_marker,
        );
        if let Some(c) = &ctl {
            c.set_markers(state.annotations.current.get_untracked().markers);
            c.set_colour_by(state.colour.by.get_untracked());
            c.set_search(Some(state.search.hits()));
        }
        handle.0.set_value(ctl.map(SendWrapper::new));
    });
    // trace / layout changes
    Effect::new(move |_| {
        let l = layout.get();
        let data = state.tracked_data();
        handle.with(|c| c.set_data(data, l));
    });
    // selection changes (from clicks, the details panel or Esc)
    Effect::new(move |_| {
        let s = state.view.selection.get();
        handle.with(|c| c.set_selection(s));
    });
    Effect::new(move |_| {
        let by = state.colour.by.get();
        handle.with(|c| c.set_colour_by(by));
    });
    // a legend applied to the palette table (built in steps after a colour-by change)
    Effect::new(move |first: Option<()>| {
        state.colour.legend_gen.track();
        if first.is_some() {
            handle.with(|c| c.request_redraw());
        }
    });
    Effect::new(move |_| {
        let clock = state.clock.shift.get();
        handle.with(|c| c.set_clock(clock));
    });
    // the page's theme: re-read the canvas colours (not on the first run: `new` just read them)
    Effect::new(move |first: Option<()>| {
        crate::theme::track();
        if first.is_some() {
            handle.with(|c| c.retheme());
        }
    });
    Effect::new(move |_| {
        state.search.track();
        let hits = state.search.hits();
        handle.with(|c| c.set_search(Some(hits)));
    });
    Effect::new(move |_| {
        let m = state.annotations.current.with(|a| a.markers.clone());
        handle.with(|c| c.set_markers(m));
    });
    Effect::new(move |_| {
        let b = state.view.box_selection.get();
        handle.with(|c| c.set_box_selection(b));
    });
    // view requests from other widgets: act, then clear
    Effect::new(move |_| {
        if let Some(req) = state.view.request.get() {
            handle.with(|c| c.apply(req));
            state.view.request.set(None);
        }
    });
    on_cleanup(move || {
        handle.with(|c| c.detach());
        handle.0.set_value(None);
    });

    let rows = move || {
        let l = layout.get();
        l.rows
            .iter()
            .enumerate()
            .map(|(ri, r)| {
                let style = format!("height:{}px", r.h_px);
                match r.kind {
                    RowKind::Group(gid) => {
                        let collapsed = r.collapsed;
                        let toggle = move |_| {
                            state.rows.collapsed.update(|c| {
                                if !c.remove(&gid) {
                                    c.insert(gid);
                                }
                            })
                        };
                        view! {
                            <div class="tl-row tl-group" style=style title=r.label.clone()>
                                <button class="tl-toggle" aria-expanded=(!collapsed).to_string() on:click=toggle>
                                    <span class="tl-chevron">{if collapsed { "▸" } else { "▾" }}</span>
                                    <span class="tl-name">{r.label.clone()}</span>
                                </button>
                                <span class="tl-count" title="rows">{r.detail.clone()}</span>
                            </div>
                        }
                        .into_any()
                    }
                    RowKind::Section(gid, sec) => {
                        let collapsed = r.collapsed;
                        let toggle = move |_| {
                            state.rows.collapsed_sections.update(|c| {
                                if !c.remove(&(gid, sec)) {
                                    c.insert((gid, sec));
                                }
                            })
                        };
                        view! {
                            <div class="tl-row tl-section" style=style data-section=sec.label() title=r.label.clone()>
                                <button class="tl-toggle" aria-expanded=(!collapsed).to_string() on:click=toggle>
                                    <span class="tl-chevron">{if collapsed { "▸" } else { "▾" }}</span>
                                    <span class="tl-name">{r.label.clone()}</span>
                                </button>
                                <span class="tl-count" title="rows">{r.detail.clone()}</span>
                            </div>
                        }
                        .into_any()
                    }
                    RowKind::Track(_) | RowKind::Counter(_) => {
                        let class = if matches!(r.kind, RowKind::Counter(_)) { "tl-row tl-track tl-counter" } else { "tl-row tl-track" };
                        let key = r.key();
                        // the row's siblings are looked up on click, not for every row on every layout
                        let mv = move |delta: i64| {
                            if let Some(k) = key {
                                let sib = layout.get_untracked().siblings(ri);
                                state.rows.order.update(|o| loupe_core::rows::move_row(o, &sib, k, delta));
                            }
                        };
                        let hide = move |_| {
                            if let Some(k) = key {
                                state.rows.hidden.update(|h| {
                                    h.insert(k);
                                });
                            }
                        };
                        view! {
                            <div class=class style=style title=r.label.clone()>
                                <span class="tl-name">{r.label.clone()}</span>
                                <span class="tl-detail">{r.detail.clone()}</span>
                                <span class="tl-actions">
                                    <button class="tl-act" title="Move up" on:click=move |_| mv(-1)>"↑"</button>
                                    <button class="tl-act" title="Move down" on:click=move |_| mv(1)>"↓"</button>
                                    <button class="tl-act tl-hide" title="Hide this row" on:click=hide>"×"</button>
                                </span>
                            </div>
                        }
                        .into_any()
                    }
                }
            })
            .collect_view()
    };
    // what the head says is left out, with a way back
    let left_out = move || {
        let l = layout.get();
        let mut parts = Vec::new();
        if l.hidden > 0 {
            parts.push(
                view! {
                    <button class="link" data-testid="show-hidden" title="Show the rows you hid"
                        on:click=move |_| state.rows.hidden.set(Default::default())>
                        {format!("{} hidden", l.hidden)}
                    </button>
                }
                .into_any(),
            );
        }
        let zero_shown = state.rows.show_zero_counters.get();
        if l.zero_folded > 0 || zero_shown {
            let label =
                if zero_shown { "hide all-zero".to_string() } else { format!("{} all-zero", l.zero_folded) };
            parts.push(
                view! {
                    <button class="link" data-testid="toggle-zero"
                        title="Counters whose samples are all zero are folded away; click to show or hide them"
                        on:click=move |_| state.rows.show_zero_counters.update(|z| *z = !*z)>
                        {label}
                    </button>
                }
                .into_any(),
            );
        }
        if l.filtered_out > 0 {
            parts.push(view! { <span>{format!("{} filtered", l.filtered_out)}</span> }.into_any());
        }
        parts.collect_view()
    };

    view! {
        <div class="timeline">
            <div class="track-list" data-testid="track-list">
                <div class="track-list-head" style=format!("height:{RULER_H_PX}px")>
                    <input type="search" class="track-filter" data-testid="track-filter" placeholder="Filter tracks"
                        aria-label="Filter tracks by name"
                        prop:value=move || state.rows.filter.get()
                        on:input=move |ev| state.rows.filter.set(event_target_value(&ev)) />
                    <span class="track-left-out">{left_out}</span>
                </div>
                <div class="track-list-viewport">
                    <div class="track-list-inner" node_ref=list_ref>{rows}</div>
                </div>
            </div>
            <div class="timeline-canvas-wrap" node_ref=wrap_ref>
                <canvas data-testid="timeline" node_ref=canvas_ref tabindex="0"></canvas>
                <crate::components::warning_bands::WarningBandStrip/>
                <div class="tooltip" data-testid="tooltip" node_ref=tip_ref style="display:none"></div>
            </div>
        </div>
    }
}
