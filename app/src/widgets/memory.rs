//! Memory: SBUF and PSUM occupancy over time on a Neuron device profile
//! (`loupe_core::analysis::neuron_memory`), one heat-strip row per sampled SBUF partition
//! (0 / 32 / 64 / 96) and per PSUM bank, cut into equal columns over the timeline's current view
//! (it follows pans and zooms, [`VIEW_DEBOUNCE_MS`] after the last move; default) or over the
//! whole span where the device's occupancy rows have samples — either cut to that span. A cell's colour is its peak (SBUF: % of a partition, on a
//! scale up to the highest peak shown; PSUM: a bank in use or not); hovering a cell reads out
//! its time range, peak and time-weighted mean; clicking it zooms the timeline there (the shared
//! `view_request`). Without occupancy rows the empty state says what is missing, and an NTFF's
//! rows carry the note of what the NTFF does not hold (`neuron_memory::MISSING_FROM_NTFF`).

use std::cell::Cell as StdCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::neuron_memory::{self, Cell, DeviceMemory, Memory};
use loupe_core::model::Trace;
use loupe_core::time::format_duration_ns;
use send_wrapper::SendWrapper;

use crate::canvas::scheduler::Scheduler;
use crate::charts::{Chart, ChartCanvas, HeatGeometry};
use crate::state::{use_app_state, ViewRequest, ViewportBus};

/// After the last pan or zoom, the grid follows the view this much later.
pub const VIEW_DEBOUNCE_MS: u32 = 200;

/// What the columns span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    /// the timeline's current view (cut to the samples' span)
    View,
    /// every sample of the device's rows
    Whole,
}

/// Time columns per device.
const COLUMNS: usize = 96;
/// Height of one row.
const ROW_PX: u32 = 22;
/// SBUF bytes per partition on trn1 / inf2, for the readout's bytes.
const SBUF_PARTITION_BYTES: f64 = 196_608.0;

/// One device's grid: per row its cells, over `[t0, t1)`.
struct Grid {
    t0_ns: i64,
    t1_ns: i64,
    cells: Vec<Vec<Cell>>,
    sbuf_max: f64,
}

/// The grid over the samples' span, or over `within` (the counters' clock) cut to that span;
/// `None` without samples there.
fn grid(trace: &Trace, dev: &DeviceMemory, within: Option<(i64, i64)>) -> Option<Grid> {
    let counters: Vec<_> = dev.rows.iter().filter_map(|r| trace.counters.get(r.counter)).collect();
    let t0 = counters.iter().filter_map(|c| c.ts_ns.first()).min().copied()?;
    let t1 = counters.iter().filter_map(|c| c.ts_ns.last()).max().copied()?;
    // a little room after the last change, so that it shows as a cell of its own
    let t1 = t1 + ((t1 - t0) / COLUMNS as i64).max(1);
    let (t0, t1) = within.map_or((t0, t1), |(a, b)| (a.max(t0), b.min(t1)));
    if t1 <= t0 {
        return None;
    }
    let cells: Vec<Vec<Cell>> = counters.iter().map(|c| neuron_memory::cells(c, t0, t1, COLUMNS)).collect();
    let sbuf_max = dev
        .rows
        .iter()
        .zip(&cells)
        .filter(|(r, _)| r.memory == Memory::Sbuf)
        .flat_map(|(_, cs)| cs.iter().map(|c| c.peak))
        .fold(0.0, f64::max);
    Some(Grid { t0_ns: t0, t1_ns: t1, cells, sbuf_max })
}

/// Bytes of a partition in the unit of its size (KiB), so that "2.0 KiB of 192 KiB" reads as one scale.
fn kib(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes:.0} B")
    } else {
        format!("{:.1} KiB", bytes / 1024.0)
    }
}

fn pct(v: f64) -> String {
    if v == 0.0 {
        "0 %".into()
    } else if v < 0.01 {
        format!("{v:.4} %")
    } else if v < 1.0 {
        format!("{v:.3} %")
    } else {
        format!("{v:.1} %")
    }
}

#[component]
pub fn MemoryWidget() -> impl IntoView {
    let state = use_app_state();
    let model = Memo::new(move |_| {
        state.generation.track();
        let d = state.data();
        let t = &d.trace;
        (neuron_memory::memory_rows(t), neuron_memory::has_device(t), neuron_memory::from_ntff(t))
    });
    let readout = RwSignal::new(String::new());
    let span_mode = RwSignal::new(Span::View);
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone());
    // the timeline's window (view clock), VIEW_DEBOUNCE_MS after its last change
    let view_window: RwSignal<Option<(i64, i64)>> =
        RwSignal::new(bus.as_ref().map(|b| b.window()).filter(|(t0, t1)| t1 > t0));
    if let (Some(sch), Some(bus)) = (scheduler, bus) {
        let seen = Rc::new(StdCell::new(bus.generation.get()));
        let pending = Rc::new(StdCell::new(0u64));
        let redraw = Rc::new(move || {
            let g = bus.generation.get();
            if seen.get() == g {
                return;
            }
            seen.set(g);
            let my = pending.get() + 1;
            pending.set(my);
            let (pending, bus) = (pending.clone(), bus.clone());
            gloo_timers::callback::Timeout::new(VIEW_DEBOUNCE_MS, move || {
                let (t0, t1) = bus.window();
                // a newer move restarted the wait; the widget may be gone
                if pending.get() == my && t1 > t0 {
                    let _ = view_window.try_set(Some((t0, t1)));
                }
            })
            .forget();
        });
        let id = sch.register_late(redraw);
        sch.request_redraw();
        let sch = SendWrapper::new(sch);
        on_cleanup(move || sch.unregister(id));
    }

    let device_view = move |dev: DeviceMemory, from_ntff: bool| {
        let d = state.data();
        let trace = &d.trace;
        // the device's clock offset under a ranks' alignment (its rows share their group's)
        let off = dev.rows.first().map_or(0, |r| state.clock.shift.with(|c| c.counter(r.counter)));
        let within = match span_mode.get() {
            Span::Whole => None,
            Span::View => view_window.get().map(|(t0, t1)| (t0 - off, t1 - off)),
        };
        let Some(g) = grid(trace, &dev, within) else {
            let why = if within.is_some() {
                format!(
                    "{}: no occupancy samples in the current view (Whole capture shows them all).",
                    dev.name
                )
            } else {
                format!("{}: no samples.", dev.name)
            };
            return view! { <p class="empty-state" data-testid="memory-none-in-view">{why}</p> }.into_any();
        };
        let start = trace.start_ns;
        let rows = dev.rows.len();
        let heat: Vec<Option<f64>> = dev
            .rows
            .iter()
            .zip(&g.cells)
            .flat_map(|(r, cs)| {
                let scale = if r.memory == Memory::Sbuf { g.sbuf_max } else { 100.0 };
                cs.iter().map(move |c| Some(if scale > 0.0 { (c.peak / scale).clamp(0.0, 1.0) } else { 0.0 }))
            })
            .collect();
        let chart = Arc::new(Chart::Heatmap {
            rows: dev.rows.iter().map(|r| r.label.clone()).collect(),
            cols: g
                .cells
                .first()
                .map_or(Vec::new(), |cs| cs.iter().map(|c| format_duration_ns(c.t0_ns - start)).collect()),
            heat,
        });
        let height = rows as u32 * ROW_PX + HeatGeometry::TOP_PX as u32 + HeatGeometry::BOTTOM_PX as u32;
        let cells = dev
            .rows
            .iter()
            .zip(&g.cells)
            .enumerate()
            .flat_map(|(ri, (r, cs))| cs.iter().enumerate().map(move |(ci, c)| (ri, ci, r.clone(), *c)))
            .map(|(ri, ci, r, c)| {
                let style = format!("grid-row:{};grid-column:{}", ri + 1, ci + 1);
                let bytes = if r.memory == Memory::Sbuf {
                    format!(" ({} of 192 KiB)", kib((c.peak / 100.0 * SBUF_PARTITION_BYTES).round()))
                } else {
                    String::new()
                };
                let text = format!(
                    "{} · {} – {}: peak {}{bytes}, mean {}",
                    r.label,
                    format_duration_ns(c.t0_ns - start),
                    format_duration_ns(c.t1_ns - start),
                    pct(c.peak),
                    pct(c.mean)
                );
                let (hover, focus, title) = (text.clone(), text.clone(), format!("{} ({})", text, r.title));
                let go = move |_| {
                    state.view.request.set(Some(ViewRequest::Range {
                        t0_ns: c.t0_ns + off,
                        t1_ns: c.t1_ns.max(c.t0_ns + 1) + off,
                    }))
                };
                view! {
                    <button class="heat-cell" data-testid="memory-cell" style=style title=title
                        aria-label=text data-row=r.label.clone() data-t0-ns=c.t0_ns.to_string()
                        data-t1-ns=c.t1_ns.to_string() data-peak=format!("{}", c.peak)
                        on:mouseenter=move |_| readout.set(hover.clone())
                        on:focus=move |_| readout.set(focus.clone())
                        on:click=go></button>
                }
            })
            .collect_view();
        let overlay = format!(
            "left:{}px;top:{}px;right:{}px;bottom:{}px;grid-template-columns:repeat({COLUMNS},1fr);grid-template-rows:repeat({rows},1fr)",
            HeatGeometry::LEFT_PX,
            HeatGeometry::TOP_PX,
            HeatGeometry::RIGHT_PX,
            HeatGeometry::BOTTOM_PX
        );
        let has_sbuf = dev.rows.iter().any(|r| r.memory == Memory::Sbuf);
        let has_psum = dev.rows.iter().any(|r| r.memory == Memory::Psum);
        let span = format!(
            "{}: {} – {} after the profile's start, {} columns of {}.",
            dev.name,
            format_duration_ns(g.t0_ns - start),
            format_duration_ns(g.t1_ns - start),
            COLUMNS,
            format_duration_ns((g.t1_ns - g.t0_ns) / COLUMNS as i64)
        );
        view! {
            <h4>{dev.name.clone()}</h4>
            <p class="hint" data-testid="memory-span" data-t0-ns=g.t0_ns.to_string() data-t1-ns=g.t1_ns.to_string()>{span}</p>
            <div class="heat-wrap">
                <ChartCanvas chart=Signal::derive(move || Some(chart.clone())) height_px=height
                    label="SBUF and PSUM occupancy over time" testid="memory-heatmap"/>
                <div class="heat-cells" style=overlay>{cells}</div>
            </div>
            <div class="heat-legend" data-testid="memory-legend">
                {has_sbuf.then(|| view! {
                    <span>"SBUF: 0 %"</span>
                    <span class="heat-scale" aria-hidden="true"></span>
                    <span data-testid="memory-sbuf-max">{format!("{} of a partition (peak shown)", pct(g.sbuf_max))}</span>
                })}
                {has_psum.then(|| view! {
                    <span>"PSUM bank: free"</span>
                    <span class="heat-scale" aria-hidden="true"></span>
                    <span>"in use"</span>
                })}
            </div>
            {from_ntff.then(|| view! { <p class="hint" data-testid="memory-ntff-note">{neuron_memory::MISSING_FROM_NTFF}</p> })}
        }
        .into_any()
    };

    let body = move || {
        let (devices, has_device, from_ntff) = model.get();
        if devices.is_empty() {
            let why = if has_device {
                neuron_memory::NO_MEMORY_ROWS.to_string()
            } else {
                "The Memory view is for Neuron device profiles (an NTFF, its JSON export or an Explorer Parquet \
                 directory): this profile has no Neuron device."
                    .to_string()
            };
            return view! { <p class="empty-state" data-testid="memory-empty" role="status">{why}</p> }
                .into_any();
        }
        let views = move || devices.clone().into_iter().map(|dev| device_view(dev, from_ntff)).collect_view();
        let button = move |sp: Span, id: &'static str, label: &'static str, title: &'static str| {
            view! {
                <button class="seg" class:active=move || span_mode.get() == sp data-span=id title=title
                    aria-pressed=move || (span_mode.get() == sp).to_string()
                    on:click=move |_| span_mode.set(sp)>{label}</button>
            }
        };
        view! {
            <div class="seg-group" role="group" aria-label="Memory view span" data-testid="memory-span-mode">
                {button(Span::View, "view", "Current view", "The part of the timeline in view; follows pans and zooms")}
                {button(Span::Whole, "whole", "Whole capture", "Every occupancy sample of the device")}
            </div>
            <p class="hint">"Occupancy: a byte counts from the instruction that writes it until the last instruction \
                that reads it ends (neuron-profile's definition). Hover a cell for its values; click it to zoom the \
                timeline there."</p>
            <p class="hint" data-testid="memory-readout" role="status">{move || readout.get()}</p>
            {views}
        }
        .into_any()
    };

    view! {
        <div class="widget-body widget-scroll analysis-widget memory-widget" data-testid="memory">
            {body}
        </div>
    }
}
