//! The ranks' clock alignment control in the timeline's toolbar (issue 41 §1): as recorded, by
//! the start of `ProfilerStep#k`, or by the end of the n-th complete collective, and the offsets
//! that gives ("rank 1 +12.3 µs"). Shown when the profile has two or more ranks with GPU streams
//! or Neuron engines (a Neuron rank's step k is its k-th NEFF execution: one per NTFF, step 0).
//! It owns the one `Effect` that turns [`AppState::align`] into [`AppState::clock`]
//! (`crate::clock::shift`), which the painter, the tooltip and Event Details read.

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::measures::CLOCK_OFFSET;
use loupe_core::analysis::ranks::{self, Align};
use loupe_core::model::TrackRole;

use crate::clock::{self, fmt_offset};
use crate::state::use_app_state;

#[component]
pub fn ClockAlign() -> impl IntoView {
    let state = use_app_state();
    // several ranks (one per input file) with GPU streams or Neuron engines (one NTFF per
    // NeuronCore): the alignments apply
    let multi = Memo::new(move |_| {
        let d = state.tracked_data();
        ranks::distinct_ranks(&d.trace).len() >= 2
            && d.trace.tracks.iter().any(|t| t.role == TrackRole::GpuStream || t.role.engine().is_some())
    });
    // the chosen alignment → the offsets drawn (the report is computed on the first alignment
    // that needs it, once per load)
    Effect::new(move |_| {
        let align = state.clock.align.get();
        let generation = state.generation.get();
        let d = state.data();
        let shift = clock::shift(generation, &d.trace, align);
        state.clock.shift.set(Arc::new(shift));
    });
    let kind = move || match state.clock.align.get() {
        Align::AsRecorded => "recorded",
        Align::Iteration(_) => "iteration",
        Align::Collective(_) => "collective",
    };
    let on_kind = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        let a = match v.as_str() {
            "iteration" => {
                let rep = clock::report(state.generation.get_untracked(), &state.data().trace);
                let k = rep.as_ref().as_ref().ok().and_then(clock::first_common_step).unwrap_or(0);
                Align::Iteration(k)
            }
            "collective" => Align::Collective(0),
            _ => Align::AsRecorded,
        };
        state.clock.align.set(a);
    };
    let on_n = move |ev: leptos::ev::Event| {
        let Ok(n) = event_target_value(&ev).trim().parse::<i64>() else { return };
        match state.clock.align.get_untracked() {
            Align::Iteration(_) => state.clock.align.set(Align::Iteration(n)),
            Align::Collective(_) if n >= 0 => state.clock.align.set(Align::Collective(n as usize)),
            _ => {}
        }
    };
    let n_value = move || match state.clock.align.get() {
        Align::Iteration(k) => k.to_string(),
        Align::Collective(n) => n.to_string(),
        Align::AsRecorded => String::new(),
    };
    let offsets = move || {
        let c = state.clock.shift.get();
        if let Some(e) = &c.error {
            return view! { <span class="clock-error" data-testid="clock-error" role="status">{format!("Not aligned: {e}.")}</span> }
                .into_any();
        }
        if c.align == Align::AsRecorded {
            return ().into_any();
        }
        c.ranks
            .iter()
            .skip(1)
            .map(|o| {
                let ns = o.offset_ns.unwrap_or(0);
                view! {
                    <span class="clock-offset" data-testid="clock-offset" data-rank=o.rank.to_string() data-ns=ns.to_string()
                        title=CLOCK_OFFSET.text>{format!("rank {} {}", o.rank, fmt_offset(ns))}</span>
                }
            })
            .collect_view()
            .into_any()
    };
    move || {
        multi.get().then(|| {
            view! {
                <span class="tl-clock" data-testid="clock-align" data-align=move || state.clock.align.get().key()>
                    <label title=CLOCK_OFFSET.text>"Clocks "
                        <select data-testid="clock-align-kind" on:change=on_kind prop:value=kind>
                            <option value="recorded" selected=move || kind() == "recorded">"as recorded"</option>
                            <option value="iteration" selected=move || kind() == "iteration">"start of step #"</option>
                            <option value="collective" selected=move || kind() == "collective">"end of collective #"</option>
                        </select>
                    </label>
                    {move || (kind() != "recorded").then(|| view! {
                        <input type="number" class="clock-n" data-testid="clock-align-n" aria-label="step or collective number"
                            prop:value=n_value on:change=on_n />
                    })}
                    {offsets}
                </span>
            }
        })
    }
}
