//! Compare: the open profile (A) against a second one opened with "Compare…" (B).
//!
//! * The comparison table ([`loupe_core::analysis::compare`]): per operator (device profiles
//!   with typed operators) or per name (host/device), count and time in A and B, Δ = B − A and
//!   B / A, sorted by impact (|Δ|); filterable. Clicking a row highlights its events in A's
//!   timeline (like a search) and in B's lanes below.
//! * B's lanes: B's tracks drawn under the same visible window as A's timeline (shared zoom and
//!   pan), shifted by the chosen alignment: absolute time, by start, or by an iteration both have.
//! * Neuron profiles of the same program: per-engine deltas; Kineto: iterations paired.

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::compare::{self, Align, Comparison};
use loupe_core::lod::{self, LodItem};
use loupe_core::model::{SliceRef, Trace};
use loupe_core::time::format_duration_ns as dur;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;

use super::deferred::{deferred, shown, spinner};
use crate::canvas::scheduler::Scheduler;
use crate::state::{use_app_state, TraceData, ViewportBus};
use crate::workbench::layout::WidgetKind;

const ROW_H_PX: f64 = 16.0;
const MAX_LANES: usize = 24;
const MAX_ROWS_SHOWN: usize = 400;

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

/// B's tracks worth drawing: recorded (not derived) tracks with slices, busiest first.
fn lanes(t: &Trace) -> Vec<usize> {
    let mut v: Vec<usize> = (0..t.tracks.len())
        .filter(|&i| !t.tracks[i].role.is_derived() && !t.tracks[i].slices.is_empty())
        .collect();
    v.sort_by_key(|&i| std::cmp::Reverse(t.tracks[i].slices.len()));
    v.truncate(MAX_LANES);
    v.sort_unstable();
    v
}

/// Paint B's lanes for A's window `[t0, t1)` shifted by `offset_ns` (B time + offset = A time).
fn paint_lanes(
    canvas: &web_sys::HtmlCanvasElement,
    b: &TraceData,
    lanes: &[usize],
    window: (i64, i64),
    offset_ns: i64,
    marked: &[Vec<u32>],
) {
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let w_css = f64::from(canvas.client_width().max(1));
    let h_css = (lanes.len() as f64 * ROW_H_PX).max(ROW_H_PX);
    canvas.set_width((w_css * dpr) as u32);
    canvas.set_height((h_css * dpr) as u32);
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str("#fafbfc");
    ctx.fill_rect(0.0, 0.0, w_css, h_css);
    let (t0, t1) = window;
    if t1 <= t0 {
        return;
    }
    let (b0, b1) = (t0.saturating_sub(offset_ns), t1.saturating_sub(offset_ns));
    let ns_per_px = (t1 - t0) as f64 / w_css;
    let x_of = |t: i64| (t - b0) as f64 / ns_per_px;
    let mut items = Vec::new();
    let any_marked = marked.iter().any(|m| !m.is_empty());
    for (row, &ti) in lanes.iter().enumerate() {
        let tr = &b.trace.tracks[ti];
        let y = row as f64 * ROW_H_PX;
        let depths = tr.slices.depth_count().clamp(1, 3);
        let h = (ROW_H_PX - 2.0) / depths as f64;
        for d in 0..depths {
            items.clear();
            lod::query(&tr.slices, &tr.lod, d, b0, b1, ns_per_px, 1.0, &mut items);
            for it in &items {
                let (s, e, idx) = match *it {
                    LodItem::Slice(i) => {
                        (tr.slices.start_ns[i as usize], tr.slices.end_ns(i as usize), Some(i))
                    }
                    LodItem::Merged { start_ns, end_ns, .. } => (start_ns, end_ns, None),
                };
                let hit = idx.is_some_and(|i| marked.get(ti).is_some_and(|m| m.binary_search(&i).is_ok()));
                let colour = match (any_marked, hit, idx) {
                    (true, true, _) => "#d9480f".to_string(),
                    (true, false, _) => "#d0d4da".to_string(),
                    (false, _, Some(i)) => {
                        crate::canvas::colour::css_of(b.color_index(tr.slices.name[i as usize]))
                    }
                    (false, _, None) => "#8a94a6".to_string(),
                };
                ctx.set_fill_style_str(&colour);
                let x0 = x_of(s).max(-1.0);
                let x1 = x_of(e).min(w_css + 1.0);
                ctx.fill_rect(x0, y + 1.0 + d as f64 * h, (x1 - x0).max(1.0), (h - 1.0).max(1.0));
            }
        }
    }
}

#[component]
pub fn CompareWidget() -> impl IntoView {
    let state = use_app_state();
    let is_shown = shown(WidgetKind::Compare);
    let key = move || (state.generation.get(), state.compare_gen.get());
    let result: super::deferred::Deferred<Option<Comparison>> = deferred(is_shown, key, move |_| {
        let a = state.data();
        state.compare.get_value().map(|b| compare::compare(&a.trace, &b.trace))
    });
    let filter = RwSignal::new(String::new());
    let limit = RwSignal::new(MAX_ROWS_SHOWN);
    let align = RwSignal::new("absolute".to_string());
    let marked_b: RwSignal<Arc<Vec<Vec<u32>>>> = RwSignal::new(Arc::new(Vec::new()));
    let selected_row = RwSignal::new(None::<String>);

    // alignment → offset (B time + offset = A time)
    let offset_ns = Memo::new(move |_| {
        state.compare_gen.track();
        state.generation.track();
        let a = state.data();
        let Some(b) = state.compare.get_value() else { return 0 };
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
        state.compare_gen.track();
        state.generation.track();
        let a = state.data();
        let Some(b) = state.compare.get_value() else { return Vec::new() };
        a.trace
            .iterations
            .iter()
            .map(|i| i.number)
            .filter(|n| b.trace.iterations.iter().any(|j| j.number == *n))
            .take(50)
            .collect::<Vec<i64>>()
    });

    // B's lanes follow A's visible window on every frame the timeline paints
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone());
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    let last_painted: StoredValue<(u64, i64, u64, usize), LocalStorage> =
        StoredValue::new_local((u64::MAX, 0, 0, 0));
    let paint = move |force: bool| {
        let (Some(canvas), Some(bus)) = (canvas_ref.get_untracked(), bus.as_ref()) else { return };
        let Some(b) = state.compare.get_value() else { return };
        let off = offset_ns.get_untracked();
        let marks = marked_b.get_untracked();
        let sig =
            (bus.generation.get(), off, state.compare_gen.get_untracked(), Arc::as_ptr(&marks) as usize);
        if !force && last_painted.get_value() == sig {
            return;
        }
        last_painted.set_value(sig);
        let l = lanes(&b.trace);
        let canvas: web_sys::HtmlCanvasElement = canvas.clone();
        paint_lanes(&canvas, &b, &l, bus.window(), off, &marks);
    };
    let paint = Rc::new(paint);
    if let Some(s) = scheduler.clone() {
        let p = paint.clone();
        let id = s.register(Rc::new(move || p(false)));
        let s2 = SendWrapper::new(s.clone());
        on_cleanup(move || s2.unregister(id));
    }
    let p2 = paint.clone();
    Effect::new(move |_| {
        offset_ns.track();
        marked_b.track();
        state.compare_gen.track();
        is_shown.track();
        let p = p2.clone();
        // after the canvas is in the DOM
        gloo_timers::callback::Timeout::new(0, move || p(true)).forget();
    });

    let lane_labels = move || {
        state.compare_gen.track();
        let Some(b) = state.compare.get_value() else { return Vec::new() };
        lanes(&b.trace)
            .into_iter()
            .map(|i| b.trace.track_label(loupe_core::model::TrackId(i as u32)))
            .collect::<Vec<_>>()
    };

    let body = move || {
        state.compare_gen.track();
        let Some(b) = state.compare.get_value() else {
            let status = state.compare_status.get();
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
            if let Some(b) = state.compare.get_value() {
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
        state.compare_gen.track();
        state.compare.with_value(Option::is_some)
    };
    view! {
        <div class="widget-compare" data-testid="widget-compare">
            <div class="compare-lanes" class:hidden=move || !has_b()>
                <div class="compare-lanes-bar">
                    <strong>"B's tracks under A's window"</strong>
                    <label>" align "<select data-testid="compare-align" on:change=move |ev| align.set(event_target_value(&ev))>{align_options}</select></label>
                    <span class="hint">{move || format!("offset {}", dur(offset_ns.get()))}</span>
                    <button class="button button-quiet" on:click=move |_| { state.compare.set_value(None); state.compare_gen.update(|g| *g += 1); }>"Close B"</button>
                </div>
                <div class="compare-lanes-body">
                    <div class="compare-lane-labels">{move || lane_labels().into_iter().map(|l| view! { <div title=l.clone()>{l.clone()}</div> }).collect_view()}</div>
                    <canvas node_ref=canvas_ref class="compare-canvas" data-testid="compare-lanes"></canvas>
                </div>
            </div>
            <div class="compare-body">{body}</div>
        </div>
    }
}
