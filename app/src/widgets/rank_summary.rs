//! Rank Summary (issue 41 §1): one row per rank of a multi-rank job — its step times, HTA's
//! temporal breakdown (GPU span, idle in it, compute, non-compute) and exposed communication,
//! from `loupe_core::analysis::ranks` (the numbers `loupe ranks --json` prints) — and a ranks ×
//! iterations heatmap of step time (`charts::Chart::Heatmap`, plotters-canvas) where the slow
//! cells stand out. A cell is an HTML button laid over the drawn one (hover text, keyboard,
//! `data-*` hooks): a click zooms the timeline to that rank's iteration on the current clock
//! alignment and selects its `ProfilerStep#k`. Computed once per load, only while the tab is shown
//! (the report is shared with the clock alignment: `crate::clock::report`).

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::measures::{
    Definition, EXPOSED_COMMUNICATION, GPU_COMPUTE, GPU_IDLE_IN_SPAN, GPU_NON_COMPUTE, GPU_SPAN, STEP_TIME,
};
use loupe_core::analysis::ranks::{RankKind, RanksReport, StepGrid};
use loupe_core::time::format_duration_ns;

use super::deferred::{deferred, shown, spinner, Deferred};
use crate::charts::{Chart, ChartCanvas, HeatGeometry};
use crate::state::{use_app_state, Selection, ViewRequest};
use crate::workbench::layout::WidgetKind;

/// Iterations laid out at most (the first ones, in step order).
const MAX_COLUMNS: usize = 200;
/// Height of one heatmap row (CSS px).
const ROW_PX: u32 = 24;

fn pct(part: i64, whole: i64) -> String {
    if whole <= 0 {
        String::new()
    } else {
        format!(" ({:.1} %)", part as f64 * 100.0 / whole as f64)
    }
}

/// A header cell with its measure's definition a hover away.
fn head(d: &'static Definition) -> impl IntoView {
    view! { <th class="num" title=d.text data-metric=d.key>{d.label}</th> }
}

#[component]
pub fn RankSummaryWidget() -> impl IntoView {
    let state = use_app_state();
    let Deferred { result, pending, compute_ms } = deferred(
        shown(WidgetKind::RankSummary),
        move || state.generation.get(),
        move |g| crate::clock::report(*g, &state.data().trace),
    );
    let body = move || {
        let Some(r) = result.get() else {
            return if pending.get() {
                spinner("Summarising the ranks…", "ranks-computing")
            } else {
                view! { <p class="empty-state">"The ranks are summarised when this tab is shown."</p> }
                    .into_any()
            };
        };
        let rep: Arc<Result<RanksReport, String>> = (*r).clone();
        let rep = match rep.as_ref() {
            Ok(rep) => rep.clone(),
            Err(e) => {
                return view! { <p class="empty-state" data-testid="ranks-empty" data-why="error" role="status">{format!("No rank summary: {e}.")}</p> }
                    .into_any()
            }
        };
        if rep.ranks.len() < 2 {
            return view! {
                <p class="empty-state" data-testid="ranks-empty" data-why="one-rank" role="status">
                    {format!(
                        "{} rank with GPU work in this profile: the rank summary compares the ranks of one job. \
                         Open the trace files of every rank together (one file per rank).",
                        rep.ranks.len()
                    )}
                </p>
            }
            .into_any();
        }
        let grid = StepGrid::of(&rep.steps);
        view! {
            <p class="hint" data-testid="ranks-count" data-ranks=rep.ranks.len().to_string() data-steps=grid.steps.len().to_string()>
                {format!(
                    "{} ranks, {} iterations. Click a cell: that rank's iteration in the timeline (on the clock chosen beside \"Clocks\").",
                    rep.ranks.len(),
                    grid.steps.len()
                )}
            </p>
            <h4 title=STEP_TIME.text>"Step time per iteration"</h4>
            {heatmap(state, grid, neuron_ranks(&rep))}
            <h4>"Per rank"</h4>
            {table(&rep)}
            <p class="hint">{move || format!("Computed in {:.0} ms.", compute_ms.get())}</p>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll rank-summary" data-testid="rank-summary">
            {body}
        </div>
    }
}

/// The ranks that are Neuron captures: their iterations are NEFF executions.
fn neuron_ranks(rep: &RanksReport) -> Vec<i64> {
    rep.ranks.iter().filter(|r| r.kind == RankKind::Neuron).map(|r| r.rank).collect()
}

/// What iteration k of a rank is called.
fn iteration_name(neuron: &[i64], rank: i64, k: i64) -> String {
    if neuron.contains(&rank) {
        format!("NEFF execution {k}")
    } else {
        format!("ProfilerStep#{k}")
    }
}

fn heatmap(state: crate::state::AppState, grid: StepGrid, neuron: Vec<i64>) -> AnyView {
    if grid.steps.is_empty() {
        return view! {
            <p class="empty-state" data-testid="ranks-empty" data-why="no-iterations" role="status">
                "No ProfilerStep#k on any rank's host tracks: there are no iterations to lay out. \
                 (PyTorch writes them when the profiler is driven by a schedule with prof.step().)"
            </p>
        }
        .into_any();
    }
    let cols = grid.steps.len().min(MAX_COLUMNS);
    let cut = grid.steps.len() - cols;
    let rows = grid.ranks.len();
    let heat: Vec<Option<f64>> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| grid.cell(r, c).map(|s| grid.heat(s.dur_ns)))
        .collect();
    let chart = Arc::new(Chart::Heatmap {
        rows: grid.ranks.iter().map(|r| format!("rank {r}")).collect(),
        cols: grid.steps[..cols].iter().map(|k| k.to_string()).collect(),
        heat,
    });
    let height = rows as u32 * ROW_PX + HeatGeometry::TOP_PX as u32 + HeatGeometry::BOTTOM_PX as u32;
    let cells = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| {
            let rank = grid.ranks[r];
            let k = grid.steps[c];
            let style = format!("grid-row:{};grid-column:{}", r + 1, c + 1);
            match grid.cell(r, c).copied() {
                Some(step) => {
                    let median = grid.column_median_ns(c).unwrap_or(step.dur_ns);
                    let vs = if median > 0 && step.dur_ns != median {
                        format!(", {:+.1} % vs the step's median rank", (step.dur_ns - median) as f64 * 100.0 / median as f64)
                    } else {
                        String::new()
                    };
                    let title =
                        format!("rank {rank} · {}: {}{vs}", iteration_name(&neuron, rank, k), format_duration_ns(step.dur_ns));
                    let go = move |_| {
                        let o = state.clock.shift.get_untracked().rank(rank).unwrap_or(0);
                        state.view.selection.set(Some(Selection::Slice(step.slice)));
                        state.view.request.set(Some(ViewRequest::Focus {
                            t0_ns: step.start_ns + o,
                            t1_ns: step.start_ns + step.dur_ns + o,
                            slice: step.slice,
                        }));
                    };
                    view! {
                        <button class="heat-cell" data-testid="heat-cell" style=style title=title.clone() aria-label=title
                            data-rank=rank.to_string() data-step=k.to_string() data-ns=step.dur_ns.to_string()
                            data-start-ns=step.start_ns.to_string() data-track=step.slice.track.0.to_string()
                            data-index=step.slice.index.to_string() on:click=go></button>
                    }
                    .into_any()
                }
                None => view! {
                    <span class="heat-cell heat-none" style=style title=format!("rank {rank} has no {}", iteration_name(&neuron, rank, k))
                        data-rank=rank.to_string() data-step=k.to_string()></span>
                }
                .into_any(),
            }
        })
        .collect_view();
    let overlay = format!(
        "left:{}px;top:{}px;right:{}px;bottom:{}px;grid-template-columns:repeat({cols},1fr);grid-template-rows:repeat({rows},1fr)",
        HeatGeometry::LEFT_PX,
        HeatGeometry::TOP_PX,
        HeatGeometry::RIGHT_PX,
        HeatGeometry::BOTTOM_PX
    );
    view! {
        <div class="heat-wrap">
            <ChartCanvas chart=Signal::derive(move || Some(chart.clone())) height_px=height
                label="Step time per rank and iteration" testid="ranks-heatmap"/>
            <div class="heat-cells" style=overlay>{cells}</div>
        </div>
        <div class="heat-legend" data-testid="ranks-heat-legend">
            <span>{format!("fastest {}", format_duration_ns(grid.min_ns))}</span>
            <span class="heat-scale" aria-hidden="true"></span>
            <span>{format!("slowest {}", format_duration_ns(grid.max_ns))}</span>
            <span class="heat-none-swatch" aria-hidden="true"></span><span>"no such step"</span>
        </div>
        {(cut > 0).then(|| view! { <p class="hint">{format!("The first {cols} iterations are shown ({cut} more are not).")}</p> })}
    }
    .into_any()
}

/// The ranks' problems as one job (a Neuron rank of another NEFF, …).
fn warnings(rep: &RanksReport) -> impl IntoView {
    rep.warnings
        .iter()
        .map(
            |w| view! { <p class="hint warning" data-testid="ranks-warning" role="status">{w.message()}</p> },
        )
        .collect_view()
}

fn table(rep: &RanksReport) -> impl IntoView {
    let rows = rep
        .ranks
        .iter()
        .map(|x| {
            let steps = rep.steps.iter().find(|s| s.rank == x.rank).map(|s| s.steps.as_slice()).unwrap_or(&[]);
            let mean = if steps.is_empty() {
                None
            } else {
                Some(steps.iter().map(|s| s.dur_ns as i128).sum::<i128>() / steps.len() as i128)
            };
            let max = steps.iter().map(|s| s.dur_ns).max();
            let cell = |ns: i64, of: i64| {
                view! { <td class="num" data-ns=ns.to_string()>{format!("{}{}", format_duration_ns(ns), pct(ns, of))}</td> }
            };
            view! {
                <tr data-testid="ranks-row" data-rank=x.rank.to_string() title=x.file.clone().unwrap_or_default()>
                    <th>{match x.neuron_core {
                        Some(c) => format!("rank {} · NeuronCore {c}", x.rank),
                        None => format!("rank {}", x.rank),
                    }}</th>
                    <td class="num">{x.iterations}</td>
                    <td class="num">{mean.map(|m| format_duration_ns(m as i64)).unwrap_or_else(|| "–".into())}</td>
                    <td class="num">{max.map(format_duration_ns).unwrap_or_else(|| "–".into())}</td>
                    {cell(x.kernel_ns, 0)}
                    {cell(x.idle_ns, x.kernel_ns)}
                    {cell(x.compute_ns, x.kernel_ns)}
                    {cell(x.non_compute_ns, x.kernel_ns)}
                    {match x.exposed_comm_ns {
                        Some(ns) => cell(ns, x.kernel_ns).into_any(),
                        None => view! {
                            <td class="num" title="not in this input: the capture's collective records are not decoded">"not known"</td>
                        }
                        .into_any(),
                    }}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="grid analysis-table" data-testid="ranks-table">
            <thead><tr>
                <th>"rank"</th><th class="num">"iterations"</th>
                <th class="num" title=STEP_TIME.text>"mean step"</th><th class="num" title=STEP_TIME.text>"max step"</th>
                {head(&GPU_SPAN)}{head(&GPU_IDLE_IN_SPAN)}{head(&GPU_COMPUTE)}{head(&GPU_NON_COMPUTE)}{head(&EXPOSED_COMMUNICATION)}
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <p class="hint">"Percentages are of the rank's GPU span (a Neuron rank's: its execution's span; compute = its engines' busy time, non-compute = time only DMA moves). Hover a header for its definition."</p>
        {warnings(rep)}
    }
}
