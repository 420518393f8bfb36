//! GPU Breakdown: the breakdowns of a trace with GPU streams (`loupe_core::analysis::gpu`) in
//! Loupe's definitions (`analysis::measures`, the same busy as the Overall Summary and the
//! Dashboard) or, with a switch, Holistic Trace Analysis's (and TraceLens's), per rank: the temporal breakdown (idle / compute /
//! non-compute, a pie), kernel types (pie + table), top kernels by time (bars + table, the rest
//! folded), idle time per stream (host wait / kernel wait / other), communication–computation
//! overlap, kernel launch delay (histogram + the largest delays), GPU utilisation over time, and
//! TraceLens's exposed communication / memcpy time, tensor-core time. In HTA's definitions its
//! preprocessing (whole-µs rounding, the last ProfilerStep dropped) is on, with switches.
//!
//! Rows (kernel types, kernels, streams) click to highlight their events on the timeline
//! (`]`/`[` page through them), double-click to zoom to them; a launch-delay outlier selects
//! its kernel. Computed once per trace and options, only while the widget is on screen, after
//! the spinner is painted (see [`super::deferred`]).

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::gpu::{
    gpu_analysis_with_events, Definitions, GpuAnalysis, GpuEvents, GpuOptions, KernelType, Which,
};
use loupe_core::analysis::measures::{self, Definition};
use loupe_core::time::format_duration_ns;
use loupe_core::view::{color_for, LegendColours, Rgb};

use super::deferred::{deferred, shown, sort_header, spinner, zoom_to, Deferred};
use crate::charts::{Chart, ChartCanvas, Part, Unit};
use crate::search_runner::show_events;
use crate::state::{use_app_state, Selection, ViewRequest};
use crate::workbench::layout::WidgetKind;

type Outcome = Result<(GpuAnalysis, GpuEvents), String>;

const IDLE: Rgb = Rgb(0xc8, 0xcc, 0xd2);
const COMPUTE: Rgb = Rgb(0x4e, 0x79, 0xa7);
const NON_COMPUTE: Rgb = Rgb(0xf2, 0x8e, 0x2b);
const COMM: Rgb = Rgb(0xe1, 0x57, 0x59);
const MEMORY: Rgb = Rgb(0x59, 0xa1, 0x4f);
const HOST_WAIT: Rgb = Rgb(0xed, 0xc9, 0x48);
const KERNEL_WAIT: Rgb = Rgb(0x76, 0xb7, 0xb2);
const OTHER_WAIT: Rgb = Rgb(0xba, 0xb0, 0xac);
/// Bars of the top-kernels chart.
const BARS: usize = 11;

fn css(c: Rgb) -> String {
    format!("background: rgb({}, {}, {})", c.0, c.1, c.2)
}

fn type_colour(label: &str) -> Rgb {
    match label {
        "COMPUTATION" => COMPUTE,
        "COMMUNICATION" => COMM,
        "MEMORY" => MEMORY,
        "OTHER" => IDLE,
        _ => color_for(label),
    }
}

/// The colours of a top-kernels chart's bars (distinct within the chart; its table rows use the
/// same).
fn bar_colours(t: &loupe_core::analysis::gpu::TopKernels) -> LegendColours {
    LegendColours::new(
        &t.kernels.iter().take(BARS).filter(|k| !k.folded).map(|k| k.name.as_str()).collect::<Vec<_>>(),
    )
}

/// A kernel name for a chart label: the part before its argument list, at most 60 characters.
fn short(name: &str) -> String {
    let base = name.split('(').next().unwrap_or(name).trim();
    let base = base.strip_prefix("void ").unwrap_or(base);
    if base.chars().count() > 60 {
        let s: String = base.chars().take(59).collect();
        format!("{s}…")
    } else {
        base.to_string()
    }
}

/// A row whose events can be highlighted (owned, for event handlers).
#[derive(Debug, Clone)]
enum Row {
    Kernel { rank: i64, name: String },
    Folded { rank: i64, ty: KernelType, kept: Vec<String> },
    Types { types: Vec<KernelType> },
    Stream { rank: i64, stream: Option<i64>, track: u32 },
}

impl Row {
    fn which(&self) -> Which<'_> {
        match self {
            Row::Kernel { rank, name } => Which::Kernel { rank: *rank, name },
            Row::Folded { rank, ty, kept } => Which::Folded { rank: *rank, ty: *ty, kept },
            Row::Types { types } => Which::Types { rank: None, types },
            Row::Stream { rank, stream, track } => {
                Which::Stream { rank: *rank, stream: *stream, track: *track }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TopKey {
    Name,
    Count,
    Total,
    Mean,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdleKey {
    Stream,
    Idle,
    Host,
    Kernel,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeKey {
    Type,
    Time,
}

#[component]
pub fn GpuBreakdownWidget() -> impl IntoView {
    let state = use_app_state();
    let exact = RwSignal::new(false);
    let keep_last = RwSignal::new(false);
    let hta = RwSignal::new(false);
    let rank_idx = RwSignal::new(0usize);
    let top_ty = RwSignal::new(KernelType::Computation);
    let filter = RwSignal::new(String::new());
    let top_sort = RwSignal::new((TopKey::Total, true));
    let idle_sort = RwSignal::new((IdleKey::Idle, true));
    let type_sort = RwSignal::new((TypeKey::Time, true));
    let selected = RwSignal::new(None::<String>);
    let Deferred { result, pending, compute_ms } = deferred(
        shown(WidgetKind::GpuBreakdown),
        move || (state.generation.get(), exact.get(), keep_last.get(), hta.get()),
        move |&(_, exact, keep_last, hta)| -> Outcome {
            let d = state.data();
            let opts = if hta {
                GpuOptions { hta_rounding: !exact, drop_last_step: !keep_last, ..GpuOptions::hta() }
            } else {
                GpuOptions::default()
            };
            gpu_analysis_with_events(&d.trace, &opts)
        },
    );
    // a new trace: its first rank, nothing selected
    Effect::new(move |_| {
        state.generation.track();
        rank_idx.set(0);
        selected.set(None);
    });

    let highlight = move |row: Row, label: String, zoom: bool| {
        let Some(r) = result.get_untracked() else { return };
        let Ok((_, ev)) = r.as_ref() else { return };
        let d = state.data();
        let per_track = ev.select(&d.trace, &row.which());
        if zoom {
            zoom_to(state, &per_track);
        }
        selected.set(Some(label.clone()));
        show_events(state, &label, per_track, !zoom);
    };
    let rank_of = move |g: &GpuAnalysis| {
        let ranks = &g.temporal_breakdown.ranks;
        ranks.get(rank_idx.get().min(ranks.len().saturating_sub(1))).map_or(0, |r| r.rank)
    };

    // charts: built once per result (and rank / type choice)
    let with_g = move |f: &dyn Fn(&GpuAnalysis) -> Option<Chart>| -> Option<Arc<Chart>> {
        let a = result.get()?;
        let (g, _) = a.as_ref().as_ref().ok()?;
        f(g).map(Arc::new)
    };
    let temporal_chart = Signal::derive(move || {
        with_g(&|g| {
            let r = g.temporal_breakdown.ranks.iter().find(|r| r.rank == rank_of(g))?;
            let t = r.temporal;
            let idle = if g.definitions == Definitions::Hta {
                "idle (HTA)"
            } else {
                measures::GPU_IDLE_IN_SPAN.label
            };
            Some(Chart::Pie(vec![
                Part { label: idle.into(), value: t.idle_ns.max(0) as f64, colour: IDLE },
                Part { label: "compute".into(), value: t.compute_ns.max(0) as f64, colour: COMPUTE },
                Part {
                    label: "non-compute".into(),
                    value: t.non_compute_ns.max(0) as f64,
                    colour: NON_COMPUTE,
                },
            ]))
        })
    });
    let types_chart = Signal::derive(move || {
        with_g(&|g| {
            Some(Chart::Pie(
                g.kernel_types
                    .iter()
                    .map(|k| Part {
                        label: k.kind.clone(),
                        value: k.total_ns as f64,
                        colour: type_colour(&k.kind),
                    })
                    .collect(),
            ))
        })
    });
    let top_chart = Signal::derive(move || {
        let ty = top_ty.get();
        with_g(&|g| {
            let rank = rank_of(g);
            let t = g.top_kernels.iter().find(|t| t.rank == rank && t.kind == ty)?;
            let colours = bar_colours(t);
            let parts: Vec<Part> = t
                .kernels
                .iter()
                .take(BARS)
                .map(|k| Part {
                    label: if k.folded { format!("others ({} kernels)", k.names) } else { short(&k.name) },
                    value: k.total_ns as f64,
                    colour: if k.folded { IDLE } else { colours.get(&k.name) },
                })
                .collect();
            (!parts.is_empty()).then_some(Chart::Bars { parts, unit: Unit::Ns })
        })
    });
    let launch_chart = Signal::derive(move || {
        with_g(&|g| {
            let l = g.launch_delay.iter().find(|l| l.rank == rank_of(g))?;
            let h = &l.histogram;
            let bins: Vec<(f64, f64, u64)> = h
                .counts
                .iter()
                .enumerate()
                .filter_map(|(i, &c)| Some((*h.edges_ns.get(i)? as f64, *h.edges_ns.get(i + 1)? as f64, c)))
                .collect();
            (!bins.is_empty()).then_some(Chart::Histogram { bins, unit: Unit::Ns })
        })
    });
    let util_chart = Signal::derive(move || {
        with_g(&|g| {
            let u = g.gpu_utilisation.iter().find(|u| u.rank == rank_of(g))?;
            let mut points: Vec<(i64, f64)> = Vec::with_capacity(u.busy.len() * 2);
            for (k, b) in u.busy.iter().enumerate() {
                let t0 = u.start_ns + k as i64 * u.bin_ns;
                points.push((t0, b * 100.0));
                points.push((t0 + u.bin_ns, b * 100.0));
            }
            (!points.is_empty()).then_some(Chart::Area { points, y_max: 100.0, y_label: "busy %".into() })
        })
    });

    let switch = move |sig: RwSignal<bool>, value: bool, key: &'static str, text: &'static str| {
        view! {
            <button class="seg" class:active=move || sig.get() == value aria-pressed=move || (sig.get() == value).to_string()
                data-option=key on:click=move |_| sig.set(value)>{text}</button>
        }
    };

    // the sections: each re-renders on its own signals; the charts stay mounted
    let with_ok = move |f: &dyn Fn(&GpuAnalysis) -> AnyView| -> AnyView {
        match result.get() {
            Some(r) => match r.as_ref() {
                Ok((g, _)) => f(g),
                Err(_) => ().into_any(),
            },
            None => ().into_any(),
        }
    };
    let rank_select = move |g: &GpuAnalysis| -> AnyView {
        let ranks = &g.temporal_breakdown.ranks;
        if ranks.len() < 2 {
            return ().into_any();
        }
        let options = ranks
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let file = r.file.clone().unwrap_or_default();
                view! { <option value=i.to_string() selected=i == rank_idx.get_untracked()>{format!("rank {} {file}", r.rank)}</option> }
            })
            .collect_view();
        view! {
            <label class="gpu-rank">"Rank "
                <select data-testid="gpu-rank" on:change=move |e| rank_idx.set(event_target_value(&e).parse().unwrap_or(0))>{options}</select>
            </label>
        }
        .into_any()
    };
    let method = move |g: &GpuAnalysis| -> AnyView {
        let m = &g.method;
        let defs = match g.definitions {
            Definitions::Hta => "HTA's definitions (Holistic Trace Analysis, for parity): ",
            Definitions::Loupe => "Loupe's definitions (the Overall Summary's and the Dashboard's busy; HTA differs: its stream rule, ^nccl.*Kernel only, whole µs, the last step dropped): ",
        };
        view! {
            <p class="hint" data-testid="gpu-method" data-definitions=g.definitions.name()>
                {defs}"times "{m.time_rounding}"; "
                {m.last_step.clone()}"; GPU activities: "{m.activities}". "
                <span data-testid="gpu-compute-ms">{format!("Computed in {:.0} ms.", compute_ms.get_untracked())}</span>
            </p>
        }
        .into_any()
    };
    let temporal = move |g: &GpuAnalysis| -> AnyView {
        let Some(r) = g.temporal_breakdown.ranks.iter().find(|r| r.rank == rank_of(g)) else {
            return ().into_any();
        };
        let t = r.temporal;
        let is_hta = g.definitions == Definitions::Hta;
        // HTA's words get HTA's mark: the same label never names two computations
        let name = |d: &Definition, hta_label: &'static str| -> String {
            if is_hta {
                hta_label.to_string()
            } else {
                d.label.to_string()
            }
        };
        let line = |key: &'static str, d: &'static Definition, text: String, ns: i64, pct: f64, c: Rgb| {
            view! {
                <tr data-key=key data-ns=ns.to_string() data-pct=format!("{pct:.2}")>
                    <th title=d.text><span class="swatch" style=css(c)></span>{text}</th>
                    <td class="num">{format_duration_ns(ns)}</td>
                    <td class="num">{format!("{pct:.2} %")}</td>
                </tr>
            }
        };
        let dropped = r
            .dropped_step_start_ns
            .map(|_| format!("{} GPU activities of the last ProfilerStep left out · ", r.dropped_activities));
        view! {
            <table class="grid gpu-temporal" data-testid="gpu-temporal">
                <tbody>
                    {line("idle", &measures::GPU_IDLE_IN_SPAN, name(&measures::GPU_IDLE_IN_SPAN, "idle (HTA)"), t.idle_ns, t.idle_pct, IDLE)}
                    {line("compute", &measures::GPU_COMPUTE, name(&measures::GPU_COMPUTE, "compute (HTA)"), t.compute_ns, t.compute_pct, COMPUTE)}
                    {line("non_compute", &measures::GPU_NON_COMPUTE, name(&measures::GPU_NON_COMPUTE, "non-compute (HTA)"), t.non_compute_ns, t.non_compute_pct, NON_COMPUTE)}
                    <tr data-key="busy" data-ns=t.busy_ns.to_string()>
                        <th title=measures::GPU_BUSY.text>{name(&measures::GPU_BUSY, "busy (HTA activities)")}</th>
                        <td class="num">{format_duration_ns(t.busy_ns)}</td>
                        <td class="num">{if t.kernel_ns > 0 { format!("{:.2} %", t.busy_ns as f64 * 100.0 / t.kernel_ns as f64) } else { String::new() }}</td>
                    </tr>
                    <tr data-key="kernel" data-ns=t.kernel_ns.to_string()>
                        <th title=measures::GPU_SPAN.text>{if is_hta { "kernel time (HTA: first start → last end)".to_string() } else { format!("{} (first start → last end)", measures::GPU_SPAN.label) }}</th>
                        <td class="num">{format_duration_ns(t.kernel_ns)}</td><td class="num">"100 %"</td>
                    </tr>
                </tbody>
            </table>
            <p class="hint">{dropped}{format!("{} GPU activities", r.activities)}</p>
        }
        .into_any()
    };
    let tensor = move |g: &GpuAnalysis| -> AnyView {
        let Some(t) = g.tensor_cores.iter().find(|t| t.rank == rank_of(g)) else { return ().into_any() };
        let cell = |key: &'static str, title: &'static str, text: &'static str, ns: i64| {
            view! { <tr data-key=key data-ns=ns.to_string()><th title=title>{text}</th><td class="num">{format_duration_ns(ns)}</td></tr> }
        };
        let prec: Vec<String> =
            t.by_precision.iter().map(|(p, ns)| format!("{p} {}", format_duration_ns(*ns))).collect();
        view! {
            <table class="grid gpu-small" data-testid="gpu-tensor-cores"><tbody>
                {cell("tensor_core", measures::TENSOR_CORE_TIME.text, measures::TENSOR_CORE_TIME.label, t.tensor_core_ns)}
                {cell("not_tensor_core", "Union of kernels whose name family never uses tensor cores (element-wise, reductions, FP32 SIMT GEMMs, communication).", "not tensor core", t.not_tensor_core_ns)}
                {cell("unknown", measures::TENSOR_CORE_UNKNOWN.text, measures::TENSOR_CORE_UNKNOWN.label, t.unknown_ns)}
            </tbody></table>
            {(!prec.is_empty()).then(|| view! { <p class="hint">{format!("tensor-core kernels by the type their name states: {}", prec.join(", "))}</p> })}
        }
        .into_any()
    };
    let type_rows = move |g: &GpuAnalysis| -> AnyView {
        let sel = selected.get();
        let mut kt: Vec<_> = g.kernel_types.iter().collect();
        let (key, desc) = type_sort.get();
        kt.sort_by(|a, b| {
            let o = match key {
                TypeKey::Type => a.kind.cmp(&b.kind),
                TypeKey::Time => a.total_ns.cmp(&b.total_ns),
            };
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        kt.into_iter()
            .map(|k| {
                let label = format!("{} kernels", k.kind);
                let row = Row::Types { types: k.types.clone() };
                let (l1, l2, r1, r2) = (label.clone(), label.clone(), row.clone(), row);
                view! {
                    <tr class:selected=sel.as_deref() == Some(label.as_str()) data-type=k.kind.clone() tabindex="0"
                        on:click=move |_| highlight(r1.clone(), l1.clone(), false)
                        on:dblclick=move |_| highlight(r2.clone(), l2.clone(), true)>
                        <th title=k.kind.clone()><span class="swatch" style=css(type_colour(&k.kind))></span>{k.kind.clone()}</th>
                        <td class="num" data-ns=k.total_ns.to_string()>{format_duration_ns(k.total_ns)}</td>
                        <td class="num pct"><span class="bar" style=format!("width:{:.1}%", k.percent.min(100.0))></span>{format!("{:.1} %", k.percent)}</td>
                    </tr>
                }
            })
            .collect_view()
            .into_any()
    };
    let top_total = move |g: &GpuAnalysis| -> AnyView {
        let ty = top_ty.get();
        let rank = rank_of(g);
        let total = g.top_kernels.iter().find(|t| t.rank == rank && t.kind == ty).map_or(0, |t| t.total_ns);
        view! { <span class="hint">{format!("{} in {} kernels", format_duration_ns(total), ty.label().to_lowercase())}</span> }
            .into_any()
    };
    let kernel_rows = move |g: &GpuAnalysis| -> AnyView {
        let sel = selected.get();
        let ty = top_ty.get();
        let rank = rank_of(g);
        let top = g.top_kernels.iter().find(|t| t.rank == rank && t.kind == ty);
        let kept: Vec<String> = top
            .map(|t| t.kernels.iter().filter(|k| !k.folded).map(|k| k.name.clone()).collect())
            .unwrap_or_default();
        let colours = top.map(bar_colours).unwrap_or_default();
        let needle = filter.get().to_lowercase();
        let mut kernels: Vec<_> = top
            .map(|t| {
                t.kernels
                    .iter()
                    .filter(|k| needle.is_empty() || k.name.to_lowercase().contains(&needle))
                    .collect()
            })
            .unwrap_or_default();
        let (key, desc) = top_sort.get();
        kernels.sort_by(|a, b| {
            let o = match key {
                TopKey::Name => a.name.cmp(&b.name),
                TopKey::Count => a.count.cmp(&b.count),
                TopKey::Total => a.total_ns.cmp(&b.total_ns),
                TopKey::Mean => a.mean_ns.cmp(&b.mean_ns),
                TopKey::Min => a.min_ns.cmp(&b.min_ns),
                TopKey::Max => a.max_ns.cmp(&b.max_ns),
            };
            // the folded rest stays last, whatever the order
            a.folded.cmp(&b.folded).then(if desc { o.reverse() } else { o })
        });
        if kernels.is_empty() {
            let why = if top.is_some_and(|t| !t.kernels.is_empty()) {
                "No kernel matches the filter."
            } else {
                "No kernels of this type on this rank."
            };
            return view! { <tr><td colspan="7" class="hint">{why}</td></tr> }.into_any();
        }
        kernels
            .into_iter()
            .map(|k| {
                let (row, label, shown_name) = if k.folded {
                    (
                        Row::Folded { rank, ty, kept: kept.clone() },
                        format!("rank {rank}: other {} kernels", ty.label()),
                        format!("others ({} kernel names)", k.names),
                    )
                } else {
                    (Row::Kernel { rank, name: k.name.clone() }, format!("rank {rank}: {}", k.name), k.name.clone())
                };
                let (l1, l2, r1, r2) = (label.clone(), label.clone(), row.clone(), row);
                let colour = if k.folded { IDLE } else { colours.get(&k.name) };
                view! {
                    <tr class:selected=sel.as_deref() == Some(label.as_str()) class="gpu-kernel-row" data-name=k.name.clone()
                        data-folded=k.folded.to_string() tabindex="0"
                        on:click=move |_| highlight(r1.clone(), l1.clone(), false)
                        on:dblclick=move |_| highlight(r2.clone(), l2.clone(), true)>
                        <th title=k.name.clone()><span class="swatch" style=css(colour)></span>{shown_name}</th>
                        <td class="num" data-count=k.count.to_string()>{k.count.to_string()}</td>
                        <td class="num" data-ns=k.total_ns.to_string()>{format_duration_ns(k.total_ns)}</td>
                        <td class="num pct"><span class="bar" style=format!("width:{:.1}%", k.percent.min(100.0))></span>{format!("{:.1} %", k.percent)}</td>
                        <td class="num">{format_duration_ns(k.mean_ns)}</td>
                        <td class="num">{format_duration_ns(k.min_ns)}</td>
                        <td class="num">{format_duration_ns(k.max_ns)}</td>
                    </tr>
                }
            })
            .collect_view()
            .into_any()
    };
    let stream_rows = move |g: &GpuAnalysis| -> AnyView {
        let sel = selected.get();
        let rank = rank_of(g);
        let mut streams: Vec<_> = g.idle_breakdown.iter().filter(|s| s.rank == rank).collect();
        let (key, desc) = idle_sort.get();
        streams.sort_by(|a, b| {
            let o = match key {
                IdleKey::Stream => a.stream.cmp(&b.stream),
                IdleKey::Idle => a.idle_ns.cmp(&b.idle_ns),
                IdleKey::Host => a.host_wait_ns.cmp(&b.host_wait_ns),
                IdleKey::Kernel => a.kernel_wait_ns.cmp(&b.kernel_wait_ns),
                IdleKey::Other => a.other_ns.cmp(&b.other_ns),
            };
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        streams
            .into_iter()
            .map(|s| {
                let label = format!("rank {rank}: {}", s.stream);
                let row = Row::Stream { rank, stream: s.stream_id, track: s.track };
                let (l1, l2, r1, r2) = (label.clone(), label.clone(), row.clone(), row);
                let part = |ns: i64, c: Rgb, what: &'static str| {
                    let w = if s.idle_ns > 0 { ns as f64 / s.idle_ns as f64 * 100.0 } else { 0.0 };
                    view! { <span style=format!("{};width:{w:.2}%", css(c)) title=format!("{what}: {}", format_duration_ns(ns))></span> }
                };
                view! {
                    <tr class:selected=sel.as_deref() == Some(label.as_str()) data-stream=s.stream.clone() tabindex="0"
                        on:click=move |_| highlight(r1.clone(), l1.clone(), false)
                        on:dblclick=move |_| highlight(r2.clone(), l2.clone(), true)>
                        <th>{s.stream.clone()}</th>
                        <td class="num" data-ns=s.idle_ns.to_string()>{format_duration_ns(s.idle_ns)}</td>
                        <td class="stack">
                            {part(s.host_wait_ns, HOST_WAIT, "host wait")}
                            {part(s.kernel_wait_ns, KERNEL_WAIT, "kernel wait")}
                            {part(s.other_ns, OTHER_WAIT, "other")}
                        </td>
                        <td class="num">{format!("{} ({})", format_duration_ns(s.host_wait_ns), s.gaps[0])}</td>
                        <td class="num">{format!("{} ({})", format_duration_ns(s.kernel_wait_ns), s.gaps[1])}</td>
                        <td class="num">{format!("{} ({})", format_duration_ns(s.other_ns), s.gaps[2])}</td>
                    </tr>
                }
            })
            .collect_view()
            .into_any()
    };
    let overlap = move |g: &GpuAnalysis| -> AnyView {
        match g.comm_comp_overlap.iter().find(|o| o.rank == rank_of(g)) {
            Some(o) => match o.overlap_pct {
                Some(p) => view! {
                    <p class="gpu-figure" data-testid="gpu-overlap" data-pct=format!("{p:.2}")>
                        <strong>{format!("{p:.2} %")}</strong>
                        {format!(" of the {} of communication runs under computation ({})", format_duration_ns(o.comm_ns), format_duration_ns(o.overlap_ns))}
                    </p>
                }
                .into_any(),
                None => view! { <p class="hint" data-testid="gpu-overlap">"No communication kernels on this rank."</p> }.into_any(),
            },
            None => ().into_any(),
        }
    };
    let launch_stats = move |g: &GpuAnalysis| -> AnyView {
        let Some(l) = g.launch_delay.iter().find(|l| l.rank == rank_of(g)) else { return ().into_any() };
        let stats = if l.count == 0 {
            "No kernel has a CPU launch (no launch flows or correlation ids).".to_string()
        } else {
            format!(
                "{} launches · median {} · p90 {} · p99 {} · max {} · mean {} · {} over {} · {} launch calls over 50 µs",
                l.count,
                format_duration_ns(l.median_ns),
                format_duration_ns(l.p90_ns),
                format_duration_ns(l.p99_ns),
                format_duration_ns(l.max_ns),
                format_duration_ns(l.mean_ns),
                l.outliers,
                format_duration_ns(l.outlier_threshold_ns),
                l.runtime_outliers
            )
        };
        view! { <p class="hint" data-testid="gpu-launch-stats">{stats}</p> }.into_any()
    };
    let outliers = move |g: &GpuAnalysis| -> AnyView {
        let Some(l) = g.launch_delay.iter().find(|l| l.rank == rank_of(g)) else { return ().into_any() };
        if l.top.is_empty() {
            return view! { <li class="hint">{format!("none over {}", format_duration_ns(l.outlier_threshold_ns))}</li> }
                .into_any();
        }
        l.top
            .iter()
            .map(|o| {
                let kernel = o.kernel;
                view! {
                    <li><button class="link" data-testid="gpu-outlier" title=o.name.clone()
                        on:click=move |_| {
                            state.view.selection.set(Some(Selection::Slice(kernel)));
                            state.view.request.set(Some(ViewRequest::Reveal(kernel)));
                        }>
                        <span class="num">{format_duration_ns(o.delay_ns)}</span>" "{short(&o.name)}
                    </button></li>
                }
            })
            .collect_view()
            .into_any()
    };
    let exposed = move |g: &GpuAnalysis| -> AnyView {
        let Some(e) = g.exposed_time.iter().find(|e| e.rank == rank_of(g)) else { return ().into_any() };
        let cell = |key: &'static str, text: &'static str, ns: i64| {
            view! { <tr data-key=key data-ns=ns.to_string()><th>{text}</th><td class="num">{format_duration_ns(ns)}</td></tr> }
        };
        view! {
            <table class="grid gpu-small" data-testid="gpu-exposed"><tbody>
                {cell("busy", measures::GPU_BUSY.label, e.busy_ns)}
                {cell("idle", measures::GPU_IDLE_IN_SPAN.label, e.idle_ns)}
                {cell("computation", "computation", e.computation_ns)}
                {cell("comm", "communication", e.comm_ns)}
                {cell("exposed_comm", "exposed communication (not under computation)", e.exposed_comm_ns)}
                {cell("memcpy", "memcpy / memset", e.memcpy_ns)}
                {cell("exposed_memcpy", "exposed memcpy (not under computation or communication)", e.exposed_memcpy_ns)}
            </tbody></table>
        }
        .into_any()
    };
    let type_button = move |t: KernelType, text: &'static str| {
        view! {
            <button class="seg" class:active=move || top_ty.get() == t data-type=t.label()
                on:click=move |_| top_ty.set(t)>{text}</button>
        }
    };

    // the skeleton: rebuilt only when the result itself changes (a new trace or options)
    let body = move || {
        let Some(outcome) = result.get() else {
            return if pending.get() {
                spinner("Computing the GPU breakdowns…", "gpu-computing")
            } else {
                view! { <p class="empty-state">"The GPU breakdowns are computed when this tab is shown."</p> }
                    .into_any()
            };
        };
        if let Err(why) = outcome.as_ref() {
            return view! {
                <div class="empty-state" data-testid="gpu-empty">
                    <p><strong>{format!("No GPU breakdown: {why}.")}</strong></p>
                    <p>"This analysis needs a PyTorch profiler (Kineto) trace or another trace with GPU kernels on GPU stream tracks."</p>
                </div>
            }
            .into_any();
        }
        view! {
            <div class="gpu-toolbar">
                {move || with_ok(&rank_select)}
                <div class="seg-group" role="group" aria-label="Definitions" data-testid="gpu-definitions">
                    {switch(hta, false, "loupe", "Loupe's definitions")}
                    {switch(hta, true, "hta", "HTA's definitions")}
                </div>
                {move || hta.get().then(|| view! {
                    <div class="seg-group" role="group" aria-label="Time rounding">
                        {switch(exact, false, "hta-rounding", "whole µs (HTA)")}
                        {switch(exact, true, "exact", "exact ns")}
                    </div>
                    <div class="seg-group" role="group" aria-label="Last ProfilerStep">
                        {switch(keep_last, false, "drop-last-step", "drop last step (HTA)")}
                        {switch(keep_last, true, "keep-last-step", "keep last step")}
                    </div>
                })}
            </div>
            {move || with_ok(&method)}
            <h3 class="gpu-h">"Temporal breakdown"</h3>
            <div class="gpu-row">
                <div class="gpu-pie"><ChartCanvas chart=temporal_chart height_px=150 label="temporal breakdown" testid="gpu-temporal-pie"/></div>
                <div>{move || with_ok(&temporal)}</div>
            </div>
            <h3 class="gpu-h">"Kernel types "<span class="hint">"(time covered, all ranks)"</span></h3>
            <div class="gpu-row">
                <div class="gpu-pie"><ChartCanvas chart=types_chart height_px=150 label="kernel types" testid="gpu-types-pie"/></div>
                <table class="grid analysis-table" data-testid="gpu-kernel-types">
                    <thead><tr>
                        {sort_header(type_sort, TypeKey::Type, "type", "type", false)}
                        {sort_header(type_sort, TypeKey::Time, "time", "time", true)}
                        <th class="num">"%"</th>
                    </tr></thead>
                    <tbody>{move || with_ok(&type_rows)}</tbody>
                </table>
            </div>
            <h3 class="gpu-h">"Top kernels"</h3>
            <div class="gpu-toolbar">
                <div class="seg-group" role="group" aria-label="Kernel type">
                    {type_button(KernelType::Computation, "Computation")}
                    {type_button(KernelType::Communication, "Communication")}
                    {type_button(KernelType::Memory, "Memory")}
                </div>
                {move || with_ok(&top_total)}
            </div>
            <div class="gpu-chart-wide"><ChartCanvas chart=top_chart height_px=200 label="top kernels by time" testid="gpu-top-bars"/></div>
            <div class="table-tools">
                <input type="search" class="filter" placeholder="Filter kernels" data-testid="gpu-top-filter"
                    prop:value=move || filter.get() on:input=move |e| filter.set(event_target_value(&e))/>
            </div>
            <div class="gpu-scroll">
            <table class="grid analysis-table" data-testid="gpu-top-table">
                <thead><tr>
                    {sort_header(top_sort, TopKey::Name, "name", "kernel", false)}
                    {sort_header(top_sort, TopKey::Count, "count", "count", true)}
                    {sort_header(top_sort, TopKey::Total, "total", "time", true)}
                    <th class="num">"%"</th>
                    {sort_header(top_sort, TopKey::Mean, "mean", "mean", true)}
                    {sort_header(top_sort, TopKey::Min, "min", "min", true)}
                    {sort_header(top_sort, TopKey::Max, "max", "max", true)}
                </tr></thead>
                <tbody>{move || with_ok(&kernel_rows)}</tbody>
            </table>
            </div>
            <h3 class="gpu-h">"Idle time per stream"</h3>
            <ul class="chart-legend gpu-legend">
                <li><span class="swatch" style=css(HOST_WAIT)></span>"host wait: the next kernel was launched after the previous one ended"</li>
                <li><span class="swatch" style=css(KERNEL_WAIT)></span>"kernel wait: a gap under 30 µs between queued kernels"</li>
                <li><span class="swatch" style=css(OTHER_WAIT)></span>"other"</li>
            </ul>
            <div class="gpu-scroll">
            <table class="grid analysis-table" data-testid="gpu-idle-table">
                <thead><tr>
                    {sort_header(idle_sort, IdleKey::Stream, "stream", "stream", false)}
                    {sort_header(idle_sort, IdleKey::Idle, "idle", "idle", true)}
                    <th>"split"</th>
                    {sort_header(idle_sort, IdleKey::Host, "host", "host wait (gaps)", true)}
                    {sort_header(idle_sort, IdleKey::Kernel, "kernel", "kernel wait (gaps)", true)}
                    {sort_header(idle_sort, IdleKey::Other, "other", "other (gaps)", true)}
                </tr></thead>
                <tbody>{move || with_ok(&stream_rows)}</tbody>
            </table>
            </div>
            <h3 class="gpu-h">"Communication–computation overlap"</h3>
            {move || with_ok(&overlap)}
            <h3 class="gpu-h">"Kernel launch delay "<span class="hint">"(CPU launch end → kernel start)"</span></h3>
            {move || with_ok(&launch_stats)}
            <div class="gpu-row">
                <div class="gpu-chart"><ChartCanvas chart=launch_chart height_px=150 label="launch delay distribution" testid="gpu-launch-hist"/></div>
                <div class="gpu-outliers">
                    <p class="hint">"Largest delays (click: select the kernel)"</p>
                    <ol data-testid="gpu-outliers">{move || with_ok(&outliers)}</ol>
                </div>
            </div>
            <h3 class="gpu-h">"GPU utilisation over time"</h3>
            <div class="gpu-chart-wide"><ChartCanvas chart=util_chart height_px=120 label="GPU utilisation over time" testid="gpu-util-area"/></div>
            <h3 class="gpu-h">"Exposed time "<span class="hint">"(TraceLens)"</span></h3>
            {move || with_ok(&exposed)}
            <h3 class="gpu-h" title=measures::TENSOR_CORE_TIME.text>"Tensor cores "<span class="hint">"(by kernel-name family)"</span></h3>
            {move || with_ok(&tensor)}
            <details class="definitions">
                <summary>"How these are computed (Loupe's definitions, and where HTA's differ)"</summary>
                <ul>
                    <li>"GPU activities (Loupe): the kernels, memory copies and memory sets on GPU streams, as the importer typed them from the trace's own activity kind; annotation ranges (gpu_user_annotation), sync and event markers are not work. Exact ns, nothing dropped. One rank per input file. HTA: the events whose Kineto stream argument is not −1 (also host-side Triton ops), times in whole µs (starts rounded up, ends down), the last ProfilerStep dropped when there are several; the switches turn both off."</li>
                    <li>"busy: the union of the activities (the Overall Summary's busy of a stream, the Dashboard's); GPU span (HTA's “kernel time”): first start → last end; idle in GPU span: GPU span − busy; compute: the union of COMPUTATION kernels; non-compute: the rest. % of the GPU span."</li>
                    <li>"kernel types (Loupe): MEMORY = memory copies and sets (typed), COMMUNICATION = NCCL / RCCL / MSCCL / NVSHMEM kernels, multimem_*, cross_device_reduce, custom all-reduce, all_gather / reduce_scatter / all_to_all families, COMPUTATION = the other kernels. HTA: COMMUNICATION = nccl…Kernel only (a multimem_all_reduce_kernel is COMPUTATION there), MEMORY = Memcpy / Memset by name. The type table shows the time covered by each combination of types."</li>
                    <li>"tensor cores: by kernel-name family (Volta HMMA → Blackwell tcgen05 / nvjet / FP4-FP8 GEMMs, AMD MFMA); a name that says neither is “unknown”."</li>
                    <li>"top kernels: by summed time; past 10 names or past 80 % of the cumulative time the rest is folded into “others”."</li>
                    <li>"idle per stream: each gap between consecutive kernels of a stream is host wait (the next launch started after the previous kernel ended), kernel wait (under 30 µs) or other."</li>
                    <li>"overlap: the time communication kernels run under computation kernels / communication time. Launch delay: kernel start − end of its CPU launch (through the launch flow or correlation id), outliers over 100 µs."</li>
                    <li>"exposed time (TraceLens): communication not under computation, memcpy not under computation or communication."</li>
                    <li>"click a row to highlight its events on the timeline (] / [ page through them), double-click to zoom to them"</li>
                </ul>
            </details>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll gpu-breakdown" data-testid="gpu-breakdown">
            {body}
        </div>
    }
}
