//! Dashboard (DLProf-style): for a GPU trace, GPU utilisation, the resource-usage pie, the top
//! GPU ops, an iteration range that re-aggregates every panel, the iteration and op-type
//! summaries, sortable and filterable ops and kernels tables (a row click highlights its events
//! on the timeline), and rule-based recommendations with their thresholds. For a DLProf report
//! CSV profile, the same widget shows the imported tables. Definitions:
//! [`loupe_core::analysis::dlprof`].
//!
//! The per-trace index is built once per load (an `Effect` on `state.generation`); a range
//! change only re-aggregates (`DlprofIndex::dashboard`, one pass over the activities).

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::dlprof::{self as dl, ActivityClass, Dashboard, DlprofIndex, OpRow};
use loupe_core::analysis::measures;
use loupe_core::model::{Cell, ColumnUnit, DataTable, TableKind};
use loupe_core::view::{LegendColours, Rgb};

use super::deferred::{deferred, shown, spinner, Deferred};
use crate::charts::{fmt_ns, Chart, ChartCanvas, Part, Unit};
use crate::state::use_app_state;
use crate::workbench::layout::WidgetKind;

/// Rows a table shows at most (after sort and filter); the rest is counted.
const MAX_ROWS: usize = 500;

/// Resource-usage colours (fixed: these are categories, not names).
const RESOURCE_COLOURS: [Rgb; 6] = [
    Rgb(0x59, 0xa1, 0x4f),
    Rgb(0x4e, 0x79, 0xa7),
    Rgb(0x9c, 0x75, 0x5f),
    Rgb(0xf2, 0x8e, 0x2b),
    Rgb(0xb0, 0x7a, 0xa1),
    Rgb(0xc8, 0xcc, 0xd2),
];

/// One cell of a [`SortTable`]: what it shows and how it sorts.
#[derive(Debug, Clone, PartialEq)]
pub struct TCell {
    pub text: String,
    pub num: Option<f64>,
    pub title: Option<String>,
}

impl TCell {
    fn text(s: impl Into<String>) -> TCell {
        TCell { text: s.into(), num: None, title: None }
    }
    fn ns(v: i64) -> TCell {
        TCell { text: fmt_ns(v as f64), num: Some(v as f64), title: Some(format!("{v} ns")) }
    }
    fn count(v: u64) -> TCell {
        TCell { text: v.to_string(), num: Some(v as f64), title: None }
    }
    fn pct(v: f64) -> TCell {
        TCell { text: format!("{v:.1} %"), num: Some(v), title: None }
    }
    fn from_cell(c: &Cell, unit: ColumnUnit) -> TCell {
        match (c, unit) {
            (Cell::Empty, _) => TCell { text: String::new(), num: None, title: None },
            (Cell::Int(i), ColumnUnit::Ns) => TCell::ns(*i),
            (Cell::Float(f), ColumnUnit::Ns) => {
                TCell { text: fmt_ns(*f), num: Some(*f), title: Some(format!("{f} ns")) }
            }
            (Cell::Int(i), ColumnUnit::Percent) => TCell::pct(*i as f64),
            (Cell::Float(f), ColumnUnit::Percent) => TCell::pct(*f),
            (Cell::Int(i), _) => TCell { text: i.to_string(), num: Some(*i as f64), title: None },
            // `{:?}` keeps the written decimal point (`0.0`, `11.7`)
            (Cell::Float(f), _) => TCell { text: format!("{f:?}"), num: Some(*f), title: None },
            (Cell::Text(s), _) => {
                let first = s.lines().next().unwrap_or("").to_string();
                let title = (s.len() > 60 || s.contains('\n')).then(|| s.clone());
                TCell { text: first, num: None, title }
            }
        }
    }
}

/// Rows of a [`SortTable`] with the columns' names.
#[derive(Debug, Clone, PartialEq)]
pub struct TData {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<TCell>>,
}

/// A table with sortable headers (click: descending, again: ascending) and a filter box
/// (substring of any cell, any case). `on_row` gets the row's index in `data.rows`.
#[component]
fn SortTable(
    #[prop(into)] data: Signal<Arc<TData>>,
    testid: &'static str,
    #[prop(optional)] on_row: Option<Callback<usize>>,
    #[prop(optional)] default_sort: Option<usize>,
) -> impl IntoView {
    let sort = RwSignal::new(default_sort.map(|c| (c, true)));
    let filter = RwSignal::new(String::new());
    let order = Memo::new(move |_| {
        let d = data.get();
        let f = filter.get().to_lowercase();
        let mut idx: Vec<usize> = (0..d.rows.len())
            .filter(|&i| f.is_empty() || d.rows[i].iter().any(|c| c.text.to_lowercase().contains(&f)))
            .collect();
        if let Some((col, desc)) = sort.get() {
            idx.sort_by(|&a, &b| {
                let (x, y) = (d.rows[a].get(col), d.rows[b].get(col));
                let o = match (x.and_then(|c| c.num), y.and_then(|c| c.num)) {
                    (Some(p), Some(q)) => p.total_cmp(&q),
                    (Some(_), None) => std::cmp::Ordering::Greater,
                    (None, Some(_)) => std::cmp::Ordering::Less,
                    (None, None) => {
                        x.map(|c| c.text.as_str()).unwrap_or("").cmp(y.map(|c| c.text.as_str()).unwrap_or(""))
                    }
                };
                if desc {
                    o.reverse()
                } else {
                    o
                }
            });
        }
        idx
    });
    let head = move || {
        let d = data.get();
        d.columns
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let mark = move || match sort.get() {
                    Some((k, true)) if k == c => " ▼",
                    Some((k, false)) if k == c => " ▲",
                    _ => "",
                };
                let aria = move || match sort.get() {
                    Some((k, true)) if k == c => "descending",
                    Some((k, false)) if k == c => "ascending",
                    _ => "none",
                };
                view! {
                    <th class="sortable" aria-sort=aria data-col=c.to_string()
                        on:click=move |_| sort.update(|s| *s = match *s {
                            Some((k, true)) if k == c => Some((c, false)),
                            _ => Some((c, true)),
                        })>
                        {name.clone()}{mark}
                    </th>
                }
            })
            .collect_view()
    };
    let body = move || {
        let d = data.get();
        let idx = order.get();
        idx.iter()
            .take(MAX_ROWS)
            .map(|&i| {
                let cells = d.rows[i]
                    .iter()
                    .map(|c| {
                        let class = if c.num.is_some() { "num" } else { "" };
                        view! { <td class=class title=c.title.clone().unwrap_or_else(|| c.text.clone())>{c.text.clone()}</td> }
                    })
                    .collect_view();
                let click = move |_| {
                    if let Some(cb) = on_row {
                        cb.run(i);
                    }
                };
                view! { <tr class:clickable=on_row.is_some() data-row=i.to_string() on:click=click>{cells}</tr> }
            })
            .collect_view()
    };
    let more = move || {
        let n = order.with(Vec::len);
        (n > MAX_ROWS).then(|| view! { <p class="dash-more">{format!("showing {MAX_ROWS} of {n} rows (filter or sort to see others)")}</p> })
    };
    view! {
        <div class="dash-table" data-testid=testid>
            <input type="search" class="dash-filter" placeholder="Filter rows…" aria-label="Filter rows"
                data-testid=format!("{testid}-filter")
                prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev))/>
            <div class="dash-table-scroll">
                <table class="grid">
                    <thead><tr>{head}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            {more}
        </div>
    }
}

fn ops_data(d: &Dashboard) -> TData {
    let columns = [
        "op",
        "type",
        "calls",
        "GPU total",
        "GPU avg",
        "GPU min",
        "GPU max",
        "CPU total",
        "CPU avg",
        "CPU min",
        "CPU max",
        "kernels",
        "TC eligible",
        "TC GPU time",
    ];
    let rows = d
        .ops
        .iter()
        .map(|o| {
            vec![
                TCell::text(&o.name),
                TCell::text(&o.op_type),
                TCell::count(o.calls),
                TCell::ns(o.gpu_total_ns),
                TCell::ns(o.gpu.avg_ns()),
                TCell::ns(o.gpu.min_ns),
                TCell::ns(o.gpu.max_ns),
                TCell::ns(o.cpu.total_ns),
                TCell::ns(o.cpu.avg_ns()),
                TCell::ns(o.cpu.min_ns),
                TCell::ns(o.cpu.max_ns),
                TCell::count(o.kernels),
                TCell::text(if o.tc_eligible { "yes" } else { "no" }),
                TCell::ns(o.tensor_core_ns),
            ]
        })
        .collect();
    TData { columns: columns.iter().map(|s| s.to_string()).collect(), rows }
}

fn kernels_data(d: &Dashboard) -> TData {
    let columns = [
        "kernel",
        "kind",
        "tensor core",
        "calls",
        "GPU total",
        "GPU avg",
        "GPU min",
        "GPU max",
        "launch (CPU) total",
        "launch avg",
        "top op",
    ];
    let rows = d
        .kernels
        .iter()
        .map(|k| {
            vec![
                TCell::text(&k.name),
                TCell::text(match k.class {
                    ActivityClass::Kernel => "kernel",
                    ActivityClass::Memory => "memory",
                }),
                TCell::text(match (k.tensor_core, k.precision) {
                    (tc, Some(p)) => format!("{} ({})", tc.label(), p.label()),
                    (tc, None) => tc.label().to_string(),
                }),
                TCell::count(k.gpu.count),
                TCell::ns(k.gpu.total_ns),
                TCell::ns(k.gpu.avg_ns()),
                TCell::ns(k.gpu.min_ns),
                TCell::ns(k.gpu.max_ns),
                TCell::ns(k.launch.total_ns),
                TCell::ns(k.launch.avg_ns()),
                TCell::text(&k.top_op),
            ]
        })
        .collect();
    TData { columns: columns.iter().map(|s| s.to_string()).collect(), rows }
}

fn op_types_data(d: &Dashboard) -> TData {
    let rows = d
        .op_types
        .iter()
        .map(|t| {
            vec![
                TCell::text(&t.op_type),
                TCell::count(t.ops),
                TCell::count(t.calls),
                TCell::ns(t.gpu_total_ns),
                TCell::ns(t.cpu_total_ns),
            ]
        })
        .collect();
    TData { columns: ["op type", "ops", "calls", "GPU total", "CPU total"].map(String::from).to_vec(), rows }
}

fn iterations_data(d: &Dashboard) -> TData {
    let rows = d
        .iterations
        .iter()
        .map(|i| {
            vec![
                TCell { text: i.number.to_string(), num: Some(i.number as f64), title: None },
                TCell::ns(i.duration_ns),
                TCell::ns(i.gpu_busy_ns),
                TCell::count(i.kernels),
                TCell::pct(i.gpu_percent),
            ]
        })
        .collect();
    TData {
        columns: ["iteration", "duration", "GPU busy", "GPU activities", "GPU %"].map(String::from).to_vec(),
        rows,
    }
}

fn table_data(t: &DataTable) -> TData {
    // a `Key,Value` section (DLProf summary): the key names the value's unit (`… (ns)`, `… %`)
    let kv = t.columns.len() == 2 && t.columns[0].name == "Key" && t.columns[1].name == "Value";
    TData {
        columns: t.columns.iter().map(|c| c.name.clone()).collect(),
        rows: t
            .rows
            .iter()
            .map(|r| {
                let key_unit = match (kv, r.first()) {
                    (true, Some(Cell::Text(k))) => Some(ColumnUnit::from_header(k)),
                    _ => None,
                };
                r.iter()
                    .zip(&t.columns)
                    .enumerate()
                    .map(|(i, (c, col))| {
                        TCell::from_cell(c, if i == 1 { key_unit.unwrap_or(col.unit) } else { col.unit })
                    })
                    .collect()
            })
            .collect(),
    }
}

fn table_rank(k: TableKind) -> u8 {
    match k {
        TableKind::DlprofSummary => 0,
        TableKind::DlprofRecommendations => 1,
        TableKind::DlprofOps => 2,
        TableKind::DlprofOpTypes => 3,
        TableKind::DlprofKernels => 4,
        TableKind::DlprofTensorCore => 5,
        TableKind::DlprofGroupOps => 6,
        TableKind::DlprofIterations => 7,
        TableKind::NeuronFrameworkOps => 8,
        TableKind::NeuronHloOps => 9,
        TableKind::XprofTool => 10,
    }
}

fn legend(parts: Vec<(String, Rgb, String)>, testid: &'static str) -> impl IntoView {
    view! {
        <ul class="dash-legend" data-testid=testid>
            {parts.into_iter().map(|(label, c, value)| view! {
                <li>
                    <span class="dash-swatch" style=format!("background:rgb({},{},{})", c.0, c.1, c.2)></span>
                    <span class="dash-legend-label" title=label.clone()>{label.clone()}</span>
                    <span class="dash-legend-value">{value}</span>
                </li>
            }).collect_view()}
        </ul>
    }
}

/// The GPU panels for a dashboard.
fn gpu_panels(
    d: Arc<Dashboard>,
    index: Arc<DlprofIndex>,
    range: RwSignal<Option<(i64, i64)>>,
    track_count: usize,
) -> impl IntoView {
    let state = use_app_state();
    let whole = d.resources.total_ns().max(1);
    let res_parts: Vec<Part> = d
        .resources
        .parts()
        .iter()
        .zip(RESOURCE_COLOURS)
        .map(|(&(label, _, v), colour)| Part { label: label.to_string(), value: v as f64, colour })
        .collect();
    let res_legend = d
        .resources
        .parts()
        .iter()
        .zip(RESOURCE_COLOURS)
        .map(|(&(label, _, v), c)| {
            (label.to_string(), c, format!("{:.1} % · {}", v as f64 / whole as f64 * 100.0, fmt_ns(v as f64)))
        })
        .collect();
    let pie = Signal::derive({
        let c = Arc::new(Chart::Pie(res_parts));
        move || Some(c.clone())
    });
    let top: Vec<&OpRow> = d.top_ops.iter().collect();
    // distinct colours within the chart's legend (names that share a hash colour are moved)
    let top_colours = LegendColours::new(&top.iter().map(|o| o.name.as_str()).collect::<Vec<_>>());
    let top_title = if d.top_ops_are_kernels {
        format!("Top {} GPU kernels and memory ops", dl::TOP_OPS)
    } else {
        format!("Top {} GPU ops", dl::TOP_OPS)
    };
    let bars = Signal::derive({
        let c = Arc::new(Chart::Bars {
            parts: top
                .iter()
                .map(|o| Part {
                    label: o.name.clone(),
                    value: o.gpu_total_ns as f64,
                    colour: top_colours.get(&o.name),
                })
                .collect(),
            unit: Unit::Ns,
        });
        move || Some(c.clone())
    });
    let top_legend = top
        .iter()
        .map(|o| (o.name.clone(), top_colours.get(&o.name), fmt_ns(o.gpu_total_ns as f64)))
        .collect::<Vec<_>>();
    let util = d.gpu_utilisation_percent;
    let bars_h = 24 * top_legend.len().max(1) as u32 + 24;
    let ops = Arc::new(ops_data(&d));
    let kernels = Arc::new(kernels_data(&d));
    let op_types = Arc::new(op_types_data(&d));
    let iterations = Arc::new(iterations_data(&d));
    let (d_ops, d_kernels) = (d.clone(), d.clone());
    let (i_ops, i_kernels) = (index.clone(), index.clone());
    let on_op = Callback::new(move |row: usize| {
        let Some(o) = d_ops.ops.get(row) else { return };
        let per_track = i_ops.events_of_op(range.get_untracked(), &o.name, track_count);
        crate::search_runner::show_events(state, &format!("Dashboard op {}", o.name), per_track, true);
    });
    let on_kernel = Callback::new(move |row: usize| {
        let Some(k) = d_kernels.kernels.get(row) else { return };
        let per_track = i_kernels.events_of_kernel(range.get_untracked(), &k.name, track_count);
        crate::search_runner::show_events(state, &format!("Dashboard kernel {}", k.name), per_track, true);
    });
    // only a real change re-aggregates (a blur repeats the input's `change`)
    let set_range = move |r: Option<(i64, i64)>| {
        if range.get_untracked() != r {
            range.set(r);
        }
    };
    let iters = index.iterations().to_vec();
    let (first, last) = (iters.iter().map(|i| i.number).min(), iters.iter().map(|i| i.number).max());
    let selector = match (first, last) {
        (Some(lo), Some(hi)) => {
            let set_from = move |ev: web_sys::Event| {
                let v = event_target_value(&ev).trim().parse::<i64>().unwrap_or(lo).clamp(lo, hi);
                let to = range.get_untracked().map_or(hi, |r| r.1).max(v);
                set_range(Some((v, to)));
            };
            let set_to = move |ev: web_sys::Event| {
                let v = event_target_value(&ev).trim().parse::<i64>().unwrap_or(hi).clamp(lo, hi);
                let from = range.get_untracked().map_or(lo, |r| r.0).min(v);
                set_range(Some((from, v)));
            };
            view! {
                <div class="dash-range" data-testid="dash-range">
                    <label>"Iterations "
                        <input type="number" data-testid="dash-iter-from" min=lo max=hi
                            prop:value=move || range.get().map_or(lo, |r| r.0).to_string() on:change=set_from/>
                    </label>
                    <label>" to "
                        <input type="number" data-testid="dash-iter-to" min=lo max=hi
                            prop:value=move || range.get().map_or(hi, |r| r.1).to_string() on:change=set_to/>
                    </label>
                    <button data-testid="dash-iter-all" disabled=move || range.get().is_none()
                        on:click=move |_| range.set(None)>"All"</button>
                    <span class="dash-dim">{format!(" of {} iteration(s) {lo}–{hi}; every panel follows the range", iters.len())}</span>
                </div>
            }
            .into_any()
        }
        _ => view! { <p class="dash-dim" data-testid="dash-range">"No iterations (ProfilerStep#N) in this trace: the panels cover the whole trace."</p> }.into_any(),
    };
    let recs = d
        .recommendations
        .iter()
        .map(|r| {
            view! {
                <li data-key=r.key>
                    <strong>{r.problem.clone()}</strong>" "{r.advice.clone()}
                    <span class="dash-dim dash-evidence" data-testid="dash-evidence">{format!(" Evidence: {}.", r.evidence)}</span>
                </li>
            }
        })
        .collect_view();
    let window = format!(
        "{} over {} on {} device(s): {} kernels ({} in tensor cores, {} unknown), {} memory ops",
        match d.range {
            Some((a, b)) if a == b => format!("iteration {a}"),
            Some((a, b)) => format!("iterations {a}–{b}"),
            None => "whole trace".to_string(),
        },
        fmt_ns(d.window_ns as f64),
        d.devices.len(),
        d.kernel_count,
        fmt_ns(d.tensor_core_kernel_time_ns as f64),
        fmt_ns(d.tensor_core_unknown_time_ns as f64),
        d.memory_count
    );
    view! {
        {selector}
        <section class="dash-panels">
            <div class="dash-panel dash-util" data-testid="dash-utilisation" data-value=format!("{util:.3}")>
                <h4 title=measures::GPU_UTILISATION.text>{format!("GPU {}", measures::GPU_UTILISATION.label)}</h4>
                <div class="dash-big">{format!("{util:.1} %")}</div>
                <div class="dash-meter"><div class="dash-meter-fill" style=format!("width:{:.2}%", util.clamp(0.0, 100.0))></div></div>
                <p class="dash-dim">{window}</p>
                <p class="dash-dim" title=measures::GPU_BUSY.text>{format!("{}: {} (kernels, memory copies and sets; annotation ranges are not work), averaged over devices; idle {:.1} %.", measures::GPU_BUSY.label, fmt_ns(d.gpu_busy_ns as f64), 100.0 - util)}</p>
            </div>
            <div class="dash-panel" data-testid="dash-resources">
                <h4 title=measures::NEITHER_GPU_NOR_CPU.text>"Resource usage"</h4>
                <div class="dash-chart-row">
                    <div class="dash-pie"><ChartCanvas chart=pie height_px=150 label="Resource usage pie" testid="dash-resources-pie"/></div>
                    {legend(res_legend, "dash-resources-legend")}
                </div>
                <p class="dash-dim" title=measures::TENSOR_CORE_TIME.text>"Tensor-core kernels are recognised by name family (HMMA…tcgen05, nvjet, FP4/FP8/BF16 GEMMs, MFMA) or the trace's own flag; kernels it cannot tell are “unknown”, not “no tensor core”."</p>
            </div>
            <div class="dash-panel dash-wide" data-testid="dash-top-ops">
                <h4 title=if d.top_ops_are_kernels { "No framework ops in this trace: the GPU work itself, by name (not the API calls that launched it)." } else { "Framework ops by the GPU time of the kernels and memory ops they launched." }>{top_title}</h4>
                {if top_legend.is_empty() {
                    view! { <p class="dash-dim">"No GPU time in this range."</p> }.into_any()
                } else {
                    view! {
                        <div class="dash-chart-row">
                            <div class="dash-bars"><ChartCanvas chart=bars height_px=bars_h label="Top GPU ops by GPU time" testid="dash-top-ops-bars"/></div>
                            {legend(top_legend, "dash-top-ops-legend")}
                        </div>
                    }.into_any()
                }}
            </div>
        </section>
        <h4>"Recommendations"</h4>
        <ul class="dash-recs" data-testid="dash-recommendations">{recs}</ul>
        <p class="dash-dim">{format!(
            "Rules: GPU idle > {} %; memory ops > {} % of GPU busy time; launch-bound when > {} % of at least {} kernels run < {} µs; \
             tensor-core share of GEMM/conv op GPU time < {} % (when those ops are ≥ {} % of GPU time); CPU-only > {} %.",
            dl::GPU_IDLE_PERCENT, dl::MEMORY_PERCENT, dl::SMALL_KERNEL_PERCENT, dl::SMALL_KERNEL_MIN_COUNT,
            dl::SMALL_KERNEL_NS / 1000, dl::LOW_TC_PERCENT, dl::TC_ELIGIBLE_MIN_PERCENT, dl::CPU_BOUND_PERCENT
        )}</p>
        {(!iterations.rows.is_empty()).then(|| view! {
            <h4>"Iterations"</h4>
            <SortTable data=Signal::derive(move || iterations.clone()) testid="dash-iterations"/>
        })}
        <h4>"Op types"</h4>
        <SortTable data=Signal::derive(move || op_types.clone()) testid="dash-op-types" default_sort=3/>
        <h4>"Ops "<span class="dash-dim">"(click a row to highlight its CPU calls and GPU kernels)"</span></h4>
        <SortTable data=Signal::derive(move || ops.clone()) testid="dash-ops" on_row=on_op default_sort=3/>
        <h4>"Kernels "<span class="dash-dim">"(click a row to highlight them and their launches)"</span></h4>
        <SortTable data=Signal::derive(move || kernels.clone()) testid="dash-kernels" on_row=on_kernel default_sort=4/>
    }
}

/// A dashboard and the index it came from; equal when both are the same allocation (a memo
/// compares by identity, not by value).
#[derive(Clone)]
struct Computed(Arc<Dashboard>, Arc<DlprofIndex>);

impl PartialEq for Computed {
    fn eq(&self, o: &Computed) -> bool {
        Arc::ptr_eq(&self.0, &o.0) && Arc::ptr_eq(&self.1, &o.1)
    }
}

#[component]
pub fn DashboardWidget() -> impl IntoView {
    let state = use_app_state();
    let range: RwSignal<Option<(i64, i64)>> = RwSignal::new(None);
    // once per load, and only while the tab is shown (never at load time, behind a spinner): the
    // index (classify and bind GPU activities); the panels then follow the iteration range
    let Deferred { result: index, pending, .. } = deferred(
        shown(WidgetKind::Dashboard),
        move || state.generation.get(),
        move |_| {
            let d = state.data();
            DlprofIndex::applies(&d.trace).then(|| Arc::new(DlprofIndex::build(&d.trace)))
        },
    );
    Effect::new(move |_| {
        state.generation.track();
        range.set(None);
    });
    let dash = Memo::new(move |_| {
        let i = index.get()?.as_ref().clone()?;
        Some(Computed(Arc::new(i.dashboard(range.get())), i))
    });
    let body = move || {
        let d = state.tracked_data();
        if index.with(Option::is_none) && pending.get() {
            return spinner("Computing the dashboard…", "dash-computing");
        }
        // summary and advice first, then the per-op and per-kernel reports (file order within)
        let mut tables: Vec<DataTable> = d.trace.tables.clone();
        tables.sort_by_key(|t| table_rank(t.kind));
        let gpu = dash.get();
        if gpu.is_none() && tables.is_empty() {
            return view! {
                <div class="dash-empty" data-testid="dash-empty">
                    <p><strong>"This analysis needs GPU kernels (Kineto, Nsight, DLProf)."</strong></p>
                    <p>"This profile has no GPU stream with kernels or memory operations and no DLProf report tables. \
                        Open a PyTorch profiler (Kineto) trace recorded with CUDA activities, or DLProf's --reports CSV files."</p>
                </div>
            }
            .into_any();
        }
        let gpu_view = gpu.map(|Computed(g, i)| gpu_panels(g, i, range, d.trace.tracks.len()));
        let table_views = (!tables.is_empty()).then(|| {
            let blocks = tables
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let data = Arc::new(table_data(t));
                    let file = t.source_file.rsplit(['/', '\\']).next().unwrap_or(&t.source_file).to_string();
                    let open = k < 8;
                    view! {
                        <details class="dash-report" open=open data-kind=t.kind.key()>
                            <summary>{format!("{} — {} ({} rows)", t.section, file, t.rows.len())}</summary>
                            <SortTable data=Signal::derive(move || data.clone()) testid="dash-report-table"/>
                        </details>
                    }
                })
                .collect_view();
            view! {
                <h4>"DLProf reports"</h4>
                {d.trace.slice_count().eq(&0).then(|| view! {
                    <p class="dash-dim">"These are DLProf's own report tables (no timeline: the CSV exports hold aggregates only)."</p>
                })}
                <div data-testid="dash-reports">{blocks}</div>
            }
        });
        view! { {gpu_view}{table_views} }.into_any()
    };
    view! { <div class="widget-body widget-scroll dashboard-widget">{body}</div> }
}
