//! The details panel: every field of the selected item (slice, merged block, instant, counter
//! sample), its arguments, hierarchy and flows. Re-renders only when the selection or the trace
//! changes (a click), never while panning.

use leptos::prelude::*;
use loupe_core::model::SliceRef;

use crate::clock::{fmt_offset, ClockShift};
use crate::describe;
use crate::fmt::fmt_value;
use crate::state::{use_app_state, Selection, TraceData, ViewRequest};
use loupe_core::analysis::measures::CLOCK_OFFSET;

fn field(key: &'static str, value: String) -> AnyView {
    view! { <tr><th>{key}</th><td>{value}</td></tr> }.into_any()
}

/// A field whose value comes from the operator attribution: marked "unverified (NEFF mismatch)"
/// when that attribution is ([`loupe_core::model::Attribution::is_unverified`]).
fn attributed(key: &'static str, value: String, unverified: bool) -> AnyView {
    let mark = loupe_core::model::Attribution::UNVERIFIED;
    view! {
        <tr>
            <th>{key}</th>
            <td>{value}{unverified.then(|| view! { " " <span class="unverified" data-testid="unverified">{mark}</span> })}</td>
        </tr>
    }
    .into_any()
}

/// Every field of slice `s` of `data`'s trace (typed domain fields, hierarchy, arguments, flows),
/// with `extra` rows after the times; a flow end is a link that calls `go_to`. Shared by Event
/// Details (profile A) and the Compare widget (a slice of profile B). `clock`: the ranks' clock
/// alignment (start and end on the view's clock, the offset on a row of its own; the file's own
/// time stays in "start (ns, file clock)").
pub fn slice_view(
    data: &TraceData,
    s: SliceRef,
    extra: Vec<(&'static str, String)>,
    go_to: Callback<SliceRef>,
    clock: &ClockShift,
) -> AnyView {
    let trace = &data.trace;
    let Some(t) = trace.tracks.get(s.track.idx()) else { return ().into_any() };
    let i = s.index as usize;
    if i >= t.slices.len() {
        return ().into_any();
    }
    let cols = &t.slices;
    // the operator attribution of the slice's device (typed flag): its fields are marked
    let unverified = trace.attribution_of_track(s.track).is_unverified();
    let category = trace.str(cols.category[i]).to_string();
    let category_marked = unverified && !category.is_empty();
    let mut rows = vec![
        field("name", describe::slice_name(trace, s)),
        attributed("category", category, category_marked),
        field("track", trace.track_label(s.track)),
        field("start", describe::time_label(trace, cols.start_ns[i] + clock.track(s.track))),
        field("duration", describe::duration_label(cols.dur_ns.at(i))),
        field("end", describe::time_label(trace, cols.end_ns(i) + clock.track(s.track))),
        field("depth", cols.depth_of(i).to_string()),
        field("start (ns, file clock)", cols.start_ns[i].to_string()),
        field("duration (ns)", cols.dur_ns.at(i).to_string()),
    ];
    let o = clock.track(s.track);
    if o != 0 {
        rows.insert(
            6,
            view! {
                <tr data-testid="details-clock-offset" data-ns=o.to_string()>
                    <th title=CLOCK_OFFSET.text>"clock offset"</th>
                    <td>{format!("{} ({})", fmt_offset(o), clock.align.label())}</td>
                </tr>
            }
            .into_any(),
        );
    }
    rows.extend(extra.into_iter().map(|(k, v)| field(k, v)));
    // typed domain fields (engine, opcode, operator path, program slot, source, bytes)
    if let Some(e) = t.role.engine() {
        rows.push(field("engine", e.name().to_string()));
    }
    let d = cols.domain_of(i);
    if d.opcode != loupe_core::StrId::EMPTY {
        rows.push(field("opcode", trace.str(d.opcode).to_string()));
    }
    if !d.operator.is_none() {
        for id in trace.operators.path(d.operator).into_iter().rev() {
            if let Some(n) = trace.operators.node(id) {
                rows.push(attributed(n.level.name(), trace.str(n.name).to_string(), unverified));
            }
        }
    }
    if d.instruction != u32::MAX {
        rows.push(field("program slot", d.instruction.to_string()));
    }
    if let Some(src) = d.source.get().and_then(|id| trace.sources.get(id.idx())) {
        rows.push(attributed("source", format!("{}:{}", trace.str(src.file), src.line), unverified));
    }
    if d.bytes != u64::MAX {
        rows.push(field("bytes", d.bytes.to_string()));
    }
    if let Some(path) = describe::hierarchy_label(trace, s.track, i) {
        rows.push(field("hierarchy", path));
    }
    let marked: &'static [&'static str] = if unverified { loupe_core::model::Attribution::ARGS } else { &[] };
    let args = crate::lazy_args::args_section_marked(data, cols.args[i], marked);
    let flows: Vec<(String, String, SliceRef)> = trace
        .flows_of(s)
        .map(|f| {
            let (dir, other) = if f.from == s { ("out →", f.to) } else { ("in ←", f.from) };
            let name = trace.str(f.name);
            (format!("{dir} {name}"), describe::slice_ref_label(trace, other), other)
        })
        .collect();
    view! {
        <h3 class="details-title">{describe::slice_name(trace, s)}</h3>
        <table class="kv">{rows}</table>
        {args}
        {(!flows.is_empty()).then(|| view! {
            <h4>"Flows"</h4>
            <ul class="flows">
                {flows.into_iter().map(|(dir, label, other)| view! {
                    <li>
                        <span class="flow-dir">{dir}</span>" "
                        <button class="link" on:click=move |_| go_to.run(other)>{label}</button>
                    </li>
                }).collect_view()}
            </ul>
        })}
    }
    .into_any()
}

#[component]
pub fn Details() -> impl IntoView {
    let state = use_app_state();
    let go_to = move |s: Selection| {
        state.view.selection.set(Some(s));
        if let Selection::Slice(r) = s {
            state.view.request.set(Some(ViewRequest::Reveal(r)));
        }
    };

    let body = move || {
        let data = state.tracked_data();
        let trace = &data.trace;
        let Some(sel) = state.view.selection.get() else {
            return view! {
                <p class="details-empty">"Click a slice to see its details. Drag on the tracks to zoom, drag the ruler to pan, W/S/A/D keys, 0 resets."</p>
            }
            .into_any();
        };
        match sel {
            Selection::Slice(s) => {
                let clock = state.clock.shift.get();
                slice_view(&data, s, Vec::new(), Callback::new(move |r| go_to(Selection::Slice(r))), &clock)
            }
            Selection::Merged { track, depth, first, end } => {
                let Some(t) = trace.tracks.get(track.idx()) else { return ().into_any() };
                let cols = &t.slices;
                let (a, b) = (first as usize, end as usize);
                if a >= b || b > cols.len() {
                    return ().into_any();
                }
                let longest = t.lod.longest(cols, depth as usize, a..b).unwrap_or(a);
                let busy: i64 = cols.dur_ns.iter_range(a..b).sum();
                let o = state.clock.shift.get().track(track);
                let rows = vec![
                    field("slices", (b - a).to_string()),
                    field("track", trace.track_label(track)),
                    field("depth", depth.to_string()),
                    field("window start", describe::time_label(trace, cols.start_ns[a] + o)),
                    field("window end", describe::time_label(trace, cols.end_ns(b - 1) + o)),
                    field("window span", describe::duration_label(cols.end_ns(b - 1) - cols.start_ns[a])),
                    field("busy (sum of durations)", describe::duration_label(busy)),
                    field(
                        "longest",
                        format!(
                            "{} ({})",
                            describe::slice_name(trace, SliceRef { track, index: longest as u32 }),
                            describe::duration_label(cols.dur_ns.at(longest))
                        ),
                    ),
                ];
                let longest_ref = SliceRef { track, index: longest as u32 };
                view! {
                    <h3 class="details-title">{format!("{} merged slices", b - a)}</h3>
                    <table class="kv">{rows}</table>
                    <p class="hint">"Zoom in to see them one by one, or "
                        <button class="link" on:click=move |_| go_to(Selection::Slice(longest_ref))>"select the longest"</button>"."
                    </p>
                }
                .into_any()
            }
            Selection::Instant { track, index } => {
                let Some(t) = trace.tracks.get(track.idx()) else { return ().into_any() };
                let i = index as usize;
                if i >= t.instants.len() {
                    return ().into_any();
                }
                let inst = &t.instants;
                let rows = vec![
                    field("name", trace.str(inst.name[i]).to_string()),
                    field("category", trace.str(inst.category[i]).to_string()),
                    field("track", trace.track_label(track)),
                    field(
                        "time",
                        describe::time_label(trace, inst.ts_ns[i] + state.clock.shift.get().track(track)),
                    ),
                    field("time (ns, file clock)", inst.ts_ns[i].to_string()),
                    field("kind", "instant".to_string()),
                ];
                let args = crate::lazy_args::args_section(&data, inst.args[i]);
                view! {
                    <h3 class="details-title">{trace.str(inst.name[i]).to_string()}</h3>
                    <table class="kv">{rows}</table>
                    {args}
                }
                .into_any()
            }
            Selection::CounterSample { counter, index } => {
                let ci = counter as usize;
                let Some(c) = trace.counters.get(ci) else { return ().into_any() };
                let k = index as usize;
                if k >= c.ts_ns.len() {
                    return ().into_any();
                }
                let (lo, hi) = c.min_max();
                let unit = trace.str(c.unit).to_string();
                let mut rows = vec![
                    field("counter", describe::counter_label(trace, ci)),
                    field("value", format!("{} {unit}", fmt_value(c.value[k])).trim_end().to_string()),
                    field(
                        "since",
                        describe::time_label(trace, c.ts_ns[k] + state.clock.shift.get().counter(ci)),
                    ),
                ];
                if let Some(&next) = c.ts_ns.get(k + 1) {
                    rows.push(field(
                        "until",
                        describe::time_label(trace, next + state.clock.shift.get().counter(ci)),
                    ));
                }
                rows.push(field(
                    "range over trace",
                    format!("{} – {} {unit}", fmt_value(lo), fmt_value(hi)).trim_end().to_string(),
                ));
                rows.push(field("samples", c.ts_ns.len().to_string()));
                view! {
                    <h3 class="details-title">{trace.str(c.name).to_string()}</h3>
                    <table class="kv">{rows}</table>
                }
                .into_any()
            }
        }
    };

    view! {
        <aside class="details" data-testid="details">
            {body}
        </aside>
    }
}
