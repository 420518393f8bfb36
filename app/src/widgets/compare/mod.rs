//! Compare: the open profile (A) against a second one opened with "Compare…" (B).
//!
//! * The comparison table ([`loupe_core::analysis::compare`]): per operator (device profiles
//!   with typed operators) or per name (host/device), count and time in A and B, Δ = B − A and
//!   B / A, sorted by impact (|Δ|); filterable. Clicking a row highlights its events in A's
//!   timeline (like a search) and in B's lanes above (outlined; the rest dimmed; B's lanes scroll
//!   to the first lane that has any).
//! * B's timeline ([`lanes`]): B's tracks as labelled lanes (group and track name,
//!   up to 4 depths each) under the same window as A's timeline, shifted by the chosen alignment
//!   (absolute time, by start, or by an iteration both have), with B's own clock on its ruler. It
//!   is interactive like A's: hover → tooltip (B's time and the aligned time on A's clock), click
//!   → the slice is outlined and its details (the same fields as Event Details, from
//!   `components::details::slice_view`) shown under the lanes; ctrl/⌘+wheel zooms, shift+wheel or
//!   drag pans — the *shared* window, so A follows (through the `ViewportBus`) — and plain wheel
//!   scrolls B's lanes. The busiest 24 tracks are shown first; "all N tracks" lists every one.
//!   The B selection lives in `CompareState::selection`.
//! * Neuron profiles of the same program: per-engine deltas; Kineto: iterations paired.

mod lanes;

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::compare::lanes::{self as blanes, LanePlan, DEFAULT_LANES, LANE_GAP_PX};
use loupe_core::analysis::compare::{self, Align, Comparison};
use loupe_core::model::{SliceRef, Trace};
use loupe_core::time::format_duration_ns as dur;
use send_wrapper::SendWrapper;

use super::deferred::{deferred, shown, spinner};
use crate::canvas::scheduler::Scheduler;
use crate::describe;
use crate::state::{use_app_state, ViewportBus};
use crate::workbench::layout::WidgetKind;
use lanes::{BLanesCtl, RULER_H_PX};

const MAX_ROWS_SHOWN: usize = 400;
/// B's lanes area is at most this tall when it opens (drag its bottom edge to resize).
const LANES_MAX_H_PX: f64 = 300.0;

fn per_track(t: &Trace, refs: &[SliceRef]) -> Vec<Vec<u32>> {
    let mut v = vec![Vec::new(); t.tracks.len()];
    for r in refs {
        if let Some(x) = v.get_mut(r.track.0 as usize) {
            x.push(r.index);
        }
    }
    for x in &mut v {
        x.sort_unstable();
        x.dedup();
    }
    v
}

#[component]
pub fn CompareWidget() -> impl IntoView {
    let state = use_app_state();
    let is_shown = shown(WidgetKind::Compare);
    let key = move || (state.generation.get(), state.compare.gen.get());
    let result: super::deferred::Deferred<Option<Comparison>> = deferred(is_shown, key, move |_| {
        let a = state.data();
        state.compare.profile.get_value().map(|b| compare::compare(&a.trace, &b.trace))
    });
    let filter = RwSignal::new(String::new());
    let limit = RwSignal::new(MAX_ROWS_SHOWN);
    let align = RwSignal::new("absolute".to_string());
    let marked_b: RwSignal<Arc<Vec<Vec<u32>>>> = RwSignal::new(Arc::new(Vec::new()));
    let selected_row = RwSignal::new(None::<String>);

    // a new B opens aligned so that it is in view (compare::default_align); the user's choice
    // holds until the next B
    Effect::new(move |_| {
        state.compare.gen.track();
        let a = state.data();
        let Some(b) = state.compare.profile.get_value() else { return };
        let v = match compare::default_align(&a.trace, &b.trace) {
            Align::Absolute => "absolute".to_string(),
            Align::ByStart => "start".to_string(),
            Align::ByIteration(n) => format!("iter:{n}"),
        };
        align.set(v);
    });
    // alignment → offset (B time + offset = A time)
    let offset_ns = Memo::new(move |_| {
        state.compare.gen.track();
        state.generation.track();
        let a = state.data();
        let Some(b) = state.compare.profile.get_value() else { return 0 };
        let how = match align.get().as_str() {
            "start" => Align::ByStart,
            s => match s.strip_prefix("iter:").and_then(|n| n.parse().ok()) {
                Some(n) => Align::ByIteration(n),
                None => Align::Absolute,
            },
        };
        compare::offset_ns(&a.trace, &b.trace, how).unwrap_or(0)
    });
    let shared_iterations = Memo::new(move |_| {
        state.compare.gen.track();
        state.generation.track();
        let a = state.data();
        let Some(b) = state.compare.profile.get_value() else { return Vec::new() };
        a.trace
            .iterations
            .iter()
            .map(|i| i.number)
            .filter(|n| b.trace.iterations.iter().any(|j| j.number == *n))
            .take(50)
            .collect::<Vec<i64>>()
    });

    // B's timeline: its controller follows A's window on every frame and moves it on B's input
    let show_all = RwSignal::new(false);
    let plan: Memo<Arc<LanePlan>> = Memo::new(move |_| {
        state.compare.gen.track();
        let limit = (!show_all.get()).then_some(DEFAULT_LANES);
        Arc::new(state.compare.profile.get_value().map(|b| blanes::plan(&b.trace, limit)).unwrap_or_default())
    });
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let wrap_ref = NodeRef::<leptos::html::Div>::new();
    let labels_ref = NodeRef::<leptos::html::Div>::new();
    let tip_ref = NodeRef::<leptos::html::Div>::new();
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| SendWrapper::new((*s).clone()));
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| SendWrapper::new((*b).clone()));
    let ctl: StoredValue<Option<SendWrapper<Rc<BLanesCtl>>>, LocalStorage> = StoredValue::new_local(None);
    let with_ctl = move |f: &dyn Fn(&BLanesCtl)| {
        ctl.with_value(|c| {
            if let Some(c) = c {
                f(c)
            }
        })
    };
    Effect::new(move |_| {
        let (Some(canvas), Some(wrap), Some(labels), Some(tip)) =
            (canvas_ref.get(), wrap_ref.get(), labels_ref.get(), tip_ref.get())
        else {
            return;
        };
        let (Some(scheduler), Some(bus)) = (scheduler.as_ref(), bus.as_ref()) else { return };
        if ctl.with_value(|c| c.is_some()) {
            return;
        }
        let c = BLanesCtl::new(
            canvas,
            wrap.into(),
            labels.into(),
            tip.into(),
            (**scheduler).clone(),
            (**bus).clone(),
            state.data(),
            move |s| state.compare.selection.set(s),
        );
        if let Some(c) = &c {
            c.set_data(state.data(), state.compare.profile.get_value(), plan.get_untracked());
            c.set_offset(offset_ns.get_untracked());
            c.set_selected(state.compare.selection.get_untracked());
            c.set_colour_by(state.colour.by.get_untracked());
        }
        ctl.set_value(c.map(SendWrapper::new));
    });
    Effect::new(move |_| {
        let p = plan.get();
        let a = state.tracked_data();
        state.compare.gen.track();
        let b = state.compare.profile.get_value();
        with_ctl(&|c| c.set_data(a.clone(), b.clone(), p.clone()));
    });
    Effect::new(move |_| {
        let off = offset_ns.get();
        with_ctl(&|c| c.set_offset(off));
    });
    Effect::new(move |_| {
        let m = marked_b.get();
        with_ctl(&|c| c.set_marked(m.clone()));
    });
    Effect::new(move |_| {
        let s = state.compare.selection.get();
        with_ctl(&|c| c.set_selected(s));
    });
    Effect::new(move |_| {
        let by = state.colour.by.get();
        with_ctl(&|c| c.set_colour_by(by));
    });
    Effect::new(move |first: Option<()>| {
        crate::theme::track();
        if first.is_some() {
            with_ctl(&|c| c.retheme());
        }
    });
    on_cleanup(move || {
        with_ctl(&|c| c.detach());
        ctl.set_value(None);
    });

    let lane_labels = move || {
        let p = plan.get();
        let Some(b) = state.compare.profile.get_value() else { return Vec::new() };
        let t = &b.trace;
        p.lanes
            .iter()
            .map(|l| {
                let tr = t.track(l.track);
                let group =
                    t.groups.get(tr.group.idx()).map(|g| t.str(g.name).to_string()).unwrap_or_default();
                let name = t.str(tr.name).to_string();
                let deeper = if l.all_depths > l.depths {
                    format!(" · depths 1–{} of {}", l.depths, l.all_depths)
                } else {
                    String::new()
                };
                let title = format!("{} · {} slices{deeper}", t.track_label(l.track), tr.slices.len());
                let style = format!("height:{}px;margin-bottom:{LANE_GAP_PX}px", l.h_px);
                // two lines (name, then group) where the lane is tall enough
                let tall = l.h_px >= 30.0;
                view! {
                    <div class="compare-lane-label" class:tall=tall style=style title=title>
                        <span class="lane-name">{name}</span>
                        <span class="lane-group">{group}</span>
                    </div>
                }
            })
            .collect::<Vec<_>>()
    };
    let lanes_h = move || {
        let p = plan.get();
        format!("height:{}px", (RULER_H_PX + p.total_h_px + 2.0).clamp(80.0, LANES_MAX_H_PX))
    };
    let lanes_count = move || {
        let p = plan.get();
        let all = show_all.get();
        (p.available > DEFAULT_LANES).then(|| {
            let label = if all {
                format!("busiest {DEFAULT_LANES} tracks")
            } else {
                format!("all {} tracks", p.available)
            };
            view! {
                <span class="hint">{format!("{} of {} tracks", p.lanes.len(), p.available)}</span>
                <button class="button button-quiet" data-testid="compare-show-all"
                    title="B has more tracks than the busiest ones shown: list them all (the lanes scroll)"
                    on:click=move |_| show_all.update(|a| *a = !*a)>{label}</button>
            }
        })
    };
    // the selected B slice's details
    let b_details = move || {
        state.compare.gen.track();
        let s = state.compare.selection.get()?;
        let b = state.compare.profile.get_value()?;
        let a = state.tracked_data();
        let off = offset_ns.get();
        let tr = b.trace.tracks.get(s.track.idx())?;
        let start = *tr.slices.start_ns.get(s.index as usize)?;
        let extra = vec![
            ("start on A's clock", describe::time_label(&a.trace, start.saturating_add(off))),
            ("alignment offset", dur(off)),
            ("profile", format!("B · {}", b.source_label)),
        ];
        let go_to = Callback::new(move |r: SliceRef| {
            state.compare.selection.set(Some(r));
            with_ctl(&|c| c.reveal(r));
        });
        Some(view! {
            <div class="compare-b-details" data-testid="compare-b-details">
                <div class="compare-b-details-bar">
                    <strong>"B: selected slice"</strong>
                    <button class="button button-quiet" data-testid="compare-b-reveal" title="Move the shared view to this slice"
                        on:click=move |_| with_ctl(&|c| c.reveal(s))>"show"</button>
                    <button class="button button-quiet" title="Clear B's selection"
                        on:click=move |_| state.compare.selection.set(None)>"×"</button>
                </div>
                <div class="details">{crate::components::details::slice_view(&b, s, extra, go_to, &Default::default())}</div>
            </div>
        })
    };

    let body = move || {
        state.compare.gen.track();
        let Some(b) = state.compare.profile.get_value() else {
            let status = state.compare.status.get();
            return view! {
                <div class="analysis-empty" data-testid="compare-empty">
                    <p>"Compare this profile (A) with another run (B): open it with "<strong>"Compare…"</strong>" in the header."</p>
                    <p class="hint">"The table lists every operator (or name) with its count and time in A and B, the difference and the ratio, biggest change first; B's tracks are drawn under A's visible window."</p>
                    {status.map(|s| view! { <p class="hint" data-testid="compare-status">{s}</p> })}
                </div>
            }
            .into_any();
        };
        if result.pending.get() {
            return spinner("Comparing the two profiles…", "compare-pending");
        }
        let Some(c) = result.result.get() else {
            return spinner("Comparing the two profiles…", "compare-pending");
        };
        let Some(c) = c.as_ref().as_ref() else {
            return view! { <p class="analysis-empty">"No comparison."</p> }.into_any();
        };
        let a = state.data();
        let level = match c.level {
            compare::Level::Operator => "per operator",
            compare::Level::Name => "per name",
        };
        let f = filter.get().to_lowercase();
        let rows: Vec<&compare::Row> =
            c.rows.iter().filter(|r| f.is_empty() || r.key.to_lowercase().contains(&f)).collect();
        let total_rows = rows.len();
        let shown_rows = rows
            .iter()
            .take(limit.get())
            .map(|r| {
                let key = r.key.clone();
                let k2 = key.clone();
                let ea = r.events_a.clone();
                let eb = r.events_b.clone();
                let cls = if r.delta_ns > 0 { "delta-up" } else if r.delta_ns < 0 { "delta-down" } else { "" };
                let ratio = r.ratio.map_or("—".to_string(), |x| format!("{x:.2}×"));
                let delta = if r.delta_ns > 0 { format!("+{}", dur(r.delta_ns)) } else if r.delta_ns < 0 { format!("−{}", dur(-r.delta_ns)) } else { "0".into() };
                let b2 = b.clone();
                let click = move |_| {
                    let a = state.data();
                    selected_row.set(Some(k2.clone()));
                    crate::search_runner::show_events(state, &format!("A: {}", k2), per_track(&a.trace, &ea), true);
                    marked_b.set(Arc::new(per_track(&b2.trace, &eb)));
                };
                let selected = move || selected_row.get().as_deref() == Some(key.as_str());
                view! {
                    <tr class="clickable" class:selected=selected on:click=click title="Highlight its events in A's timeline and B's lanes">
                        <td class="name">{r.key.clone()}</td>
                        <td>{r.side}</td>
                        <td class="num">{r.count_a}</td>
                        <td class="num">{r.count_b}</td>
                        <td class="num">{dur(r.time_a_ns)}</td>
                        <td class="num">{dur(r.time_b_ns)}</td>
                        <td class=format!("num {cls}")>{delta}</td>
                        <td class="num">{ratio}</td>
                    </tr>
                }
            })
            .collect_view();
        let more = (total_rows > limit.get()).then(|| {
            view! { <button class="button button-quiet" on:click=move |_| limit.update(|l| *l += MAX_ROWS_SHOWN)>{format!("show more ({} of {total_rows})", limit.get())}</button> }
        });
        let highlight_both = move |label: String, ea: Vec<SliceRef>, eb: Vec<SliceRef>| {
            let a = state.data();
            crate::search_runner::show_events(state, &label, per_track(&a.trace, &ea), true);
            if let Some(b) = state.compare.profile.get_value() {
                marked_b.set(Arc::new(per_track(&b.trace, &eb)));
            }
        };
        let neuron = c.neuron.as_ref().filter(|n| n.same_program).map(|n| {
            let engines = n
                .engines
                .iter()
                .map(|e| view! { <tr><td class="name">{e.engine.to_string()}</td><td class="num">{e.count_a}</td><td class="num">{e.count_b}</td><td class="num">{dur(e.time_a_ns)}</td><td class="num">{dur(e.time_b_ns)}</td><td class="num">{dur(e.delta_ns)}</td></tr> })
                .collect_view();
            let instrs = n
                .instructions
                .iter()
                .take(50)
                .map(|r| {
                    let label = format!("{} pc {} {}", r.engine, r.pc, r.opcode);
                    let (ea, eb) = (r.events_a.clone(), r.events_b.clone());
                    view! {
                        <tr class="clickable" on:click=move |_| highlight_both(label.clone(), ea.clone(), eb.clone())>
                            <td>{r.engine.to_string()}</td><td class="num">{r.pc}</td><td class="name">{r.opcode.clone()}</td>
                            <td class="num">{r.count_a}</td><td class="num">{r.count_b}</td>
                            <td class="num">{dur(r.time_a_ns)}</td><td class="num">{dur(r.time_b_ns)}</td><td class="num">{dur(r.delta_ns)}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class="hint">{format!("Same program in both (per (engine, pc) slot): {} instruction slots compared; per engine, then the 50 slots that changed most (a row highlights its executions on both sides).", n.instructions.len())}</p>
                <table class="grid compact" data-testid="compare-engines"><thead><tr><th>"engine"</th><th>"count A"</th><th>"count B"</th><th>"A"</th><th>"B"</th><th>"Δ"</th></tr></thead><tbody>{engines}</tbody></table>
                <table class="grid compact" data-testid="compare-instructions"><thead><tr><th>"engine"</th><th>"pc"</th><th>"opcode"</th><th>"count A"</th><th>"count B"</th><th>"A"</th><th>"B"</th><th>"Δ"</th></tr></thead><tbody>{instrs}</tbody></table>
            }
        });
        let iters = c.iterations.as_ref().filter(|it| !it.iterations.is_empty()).map(|it| {
            let rows = it
                .iterations
                .iter()
                .take(200)
                .map(|p| {
                    let num = |n: Option<i64>| n.map_or("whole trace".to_string(), |n| n.to_string());
                    let label = format!("iteration {} ↔ {}", num(p.number_a), num(p.number_b));
                    let ea: Vec<SliceRef> = p.pairs.iter().map(|k| k.a).collect();
                    let eb: Vec<SliceRef> = p.pairs.iter().map(|k| k.b).collect();
                    view! {
                        <tr class="clickable" title="Highlight the paired kernels on both sides"
                            on:click=move |_| highlight_both(label.clone(), ea.clone(), eb.clone())>
                            <td class="num">{num(p.number_a)}</td><td class="num">{num(p.number_b)}</td>
                            <td class="num">{dur(p.dur_a_ns)}</td><td class="num">{dur(p.dur_b_ns)}</td><td class="num">{dur(p.delta_ns)}</td>
                            <td class="num">{p.kernels_a}</td><td class="num">{p.kernels_b}</td><td class="num">{p.pairs.len()}</td>
                            <td class="num">{p.edit_distance}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class="hint">{format!("Iterations paired by {}; GPU kernels aligned by name within each (edit distance = kernels only in A + only in B).", it.paired_by)}</p>
                <table class="grid compact" data-testid="compare-iterations"><thead><tr><th>"iter A"</th><th>"iter B"</th><th>"A"</th><th>"B"</th><th>"Δ"</th><th>"kernels A"</th><th>"kernels B"</th><th>"paired"</th><th>"edit distance"</th></tr></thead><tbody>{rows}</tbody></table>
            }
        });
        view! {
            <p class="compare-head" data-testid="compare-head">
                <span><strong>"A"</strong>{format!(" {} · {}", a.source_label, dur(c.total_a_ns))}</span>
                <span><strong>"B"</strong>{format!(" {} · {}", b.source_label, dur(c.total_b_ns))}</span>
                <span class="hint">{format!("{level} · Δ = B − A · sorted by |Δ|")}</span>
            </p>
            {neuron}
            {iters}
            <button class="button button-quiet" data-testid="compare-csv" title="The whole comparison table as CSV"
                on:click=move |_| {
                    if let Some(c) = result.result.get_untracked() {
                        if let Some(c) = c.as_ref().as_ref() {
                            let mut out = Vec::new();
                            if loupe_core::export::csv::write_rows(&compare::CSV_HEADER, compare::csv_rows(c), &mut out).is_ok() {
                                let name = format!("{}-compare.csv", crate::share::base_name(&state.data().source_label));
                                let _ = crate::share::download(&out, &name, "text/csv");
                            }
                        }
                    }
                }>"CSV"</button>
            <input class="search-input" type="search" placeholder="Filter rows" prop:value=move || filter.get()
                on:input=move |ev| { filter.set(event_target_value(&ev)); limit.set(MAX_ROWS_SHOWN); }/>
            <table class="grid compare-table" data-testid="compare-table">
                <thead><tr><th>"key"</th><th>"side"</th><th>"count A"</th><th>"count B"</th><th>"time A"</th><th>"time B"</th><th>"Δ time"</th><th>"B / A"</th></tr></thead>
                <tbody>{shown_rows}</tbody>
            </table>
            {more}
        }
        .into_any()
    };
    let align_options = move || {
        let mut v = vec![
            ("absolute".to_string(), "absolute time".to_string()),
            ("start".to_string(), "by start".to_string()),
        ];
        v.extend(
            shared_iterations.get().into_iter().map(|n| (format!("iter:{n}"), format!("by iteration {n}"))),
        );
        v.into_iter()
            .map(|(k, l)| view! { <option value=k.clone() selected=move || align.get() == k>{l}</option> })
            .collect_view()
    };
    let has_b = move || {
        state.compare.gen.track();
        state.compare.profile.with_value(Option::is_some)
    };
    view! {
        <div class="widget-compare" data-testid="widget-compare">
            <div class="compare-lanes" class:hidden=move || !has_b()>
                <div class="compare-lanes-bar">
                    <strong title="B's tracks under A's window: zoom and pan are shared with A's timeline">"B's timeline"</strong>
                    <span class="hint" title="ctrl/⌘+wheel zooms, drag or shift+wheel pans (A follows), wheel scrolls B's lanes">"ctrl+wheel zoom · drag pan"</span>
                    <label>" align "<select data-testid="compare-align" on:change=move |ev| align.set(event_target_value(&ev))>{align_options}</select></label>
                    <span class="hint">{move || format!("offset {}", dur(offset_ns.get()))}</span>
                    {lanes_count}
                    <button class="button button-quiet" on:click=move |_| { state.compare.profile.set_value(None); state.compare.selection.set(None); state.compare.gen.update(|g| *g += 1); }>"Close B"</button>
                </div>
                <div class="compare-lanes-body" style=lanes_h>
                    <div class="compare-lane-labels" data-testid="compare-lane-labels">
                        <div class="compare-lane-head" style=format!("height:{RULER_H_PX}px")>
                            {move || { state.compare.gen.track(); state.compare.profile.get_value().map(|b| format!("B · {}", b.source_label)) }}
                        </div>
                        <div class="compare-lane-viewport">
                            <div class="compare-lane-inner" node_ref=labels_ref>{lane_labels}</div>
                        </div>
                    </div>
                    <div class="compare-canvas-wrap" node_ref=wrap_ref>
                        <canvas node_ref=canvas_ref class="compare-canvas" data-testid="compare-lanes"></canvas>
                        <div class="tooltip" data-testid="compare-b-tooltip" node_ref=tip_ref style="display:none"></div>
                    </div>
                </div>
            </div>
            <div class="compare-body">{b_details}{body}</div>
        </div>
    }
}
