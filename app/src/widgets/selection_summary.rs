//! Current Selection: the summary of the visible window, following the timeline as the user
//! zooms and pans — updated at most once per frame from a `Scheduler` redraw (which runs after
//! the timeline's paint), imperatively (text nodes only, no reactive work), from prefix sums
//! (`WindowIndex`: O(tracks × depths × log n) per update). Below it, the box selection (Shift+drag
//! on the timeline): its summary and its events, clickable.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;
use loupe_core::analysis::ranks::Align;
use loupe_core::analysis::summary::{slices_in, WindowSummary};
use loupe_core::model::SliceRef;
use loupe_core::time::format_duration_ns;
use send_wrapper::SendWrapper;
use web_sys::{Document, Element};

use crate::canvas::scheduler::Scheduler;
use crate::components::summary_tables::{engine_table, engine_text_rows, track_rows};
use crate::describe;
use crate::state::{use_app_state, Selection, TraceData, ViewRequest, ViewportBus};
use crate::widgets::fmt_bytes;

fn el(doc: &Document, tag: &str, class: &str, text: &str) -> Option<Element> {
    let e = doc.create_element(tag).ok()?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    if !text.is_empty() {
        e.set_text_content(Some(text));
    }
    Some(e)
}

fn row(doc: &Document, cells: &[String], head: bool) -> Option<Element> {
    let tr = el(doc, "tr", "", "")?;
    for (k, c) in cells.iter().enumerate() {
        let tag = if head || k == 0 { "th" } else { "td" };
        let td = el(doc, tag, if k > 0 && !head { "num" } else { "" }, c)?;
        tr.append_child(&td).ok()?;
    }
    Some(tr)
}

fn table(doc: &Document, head: &[&str], rows: Vec<Vec<String>>, testid: &str) -> Option<Element> {
    let t = el(doc, "table", "grid", "")?;
    let _ = t.set_attribute("data-testid", testid);
    let h: Vec<String> = head.iter().map(|s| s.to_string()).collect();
    let hr = row(doc, &h, true)?;
    t.append_child(&hr).ok()?;
    for r in rows {
        let rr = row(doc, &r, false)?;
        t.append_child(&rr).ok()?;
    }
    Some(t)
}

/// Rebuild the window summary's DOM under `root`.
fn render_window(root: &Element, d: &TraceData, t0: i64, t1: i64, track_offset_ns: &[i64]) -> Option<()> {
    let doc = root.owner_document()?;
    // the view's clock: under a ranks' alignment each track is summed over what is drawn
    let s: WindowSummary =
        d.indexes.window_index.window_on_view_clock(&d.trace, t0, t1, None, track_offset_ns);
    root.set_text_content(None);
    let head = el(&doc, "p", "selection-window", "")?;
    let _ = head.set_attribute("data-testid", "selection-window");
    let _ = head.set_attribute("data-t0", &t0.to_string());
    let _ = head.set_attribute("data-t1", &t1.to_string());
    head.set_text_content(Some(&format!(
        "Visible window {} ({} → {}) · {} events",
        format_duration_ns(t1 - t0),
        describe::time_label(&d.trace, t0),
        describe::time_label(&d.trace, t1),
        s.slices
    )));
    root.append_child(&head).ok()?;
    if !s.engines.is_empty() {
        let (head, rows) = engine_text_rows(&s.engines);
        let labels: Vec<&str> = head.iter().map(|h| h.0).collect();
        let tb = table(&doc, &labels, rows, "selection-engines")?;
        // each header's hover is the measure's definition
        let mut th = tb.first_element_child().and_then(|tr| tr.first_element_child());
        for (_, text) in &head {
            let Some(cell) = th else { break };
            if !text.is_empty() {
                let _ = cell.set_attribute("title", text);
            }
            th = cell.next_element_sibling();
        }
        root.append_child(&tb).ok()?;
    }
    if s.dma_count > 0 {
        let p = el(&doc, "p", "", &format!("DMA: {} packets, {}", s.dma_count, fmt_bytes(s.dma_bytes)))?;
        root.append_child(&p).ok()?;
    }
    let mut v: Vec<_> = s.tracks.iter().filter(|t| t.count > 0).copied().collect();
    v.sort_by(|a, b| b.busy_ns.cmp(&a.busy_ns).then(b.count.cmp(&a.count)));
    let rows = v
        .iter()
        .take(12)
        .map(|t| {
            vec![
                d.trace.track_label(t.track),
                t.count.to_string(),
                format_duration_ns(t.busy_ns),
                format!("{:.1} %", s.utilisation(t) * 100.0),
            ]
        })
        .collect();
    let tb = table(&doc, &["busiest tracks", "events", "busy", "utilisation"], rows, "selection-tracks")?;
    root.append_child(&tb).ok()?;
    Some(())
}

#[component]
pub fn SelectionSummaryWidget() -> impl IntoView {
    let state = use_app_state();
    let window_ref = NodeRef::<leptos::html::Div>::new();
    let scheduler = use_context::<SendWrapper<Rc<Scheduler>>>().map(|s| (*s).clone());
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    // follow the viewport: a redraw callback after the timeline's, acting only on change
    if let (Some(sch), Some(bus)) = (scheduler.clone(), bus) {
        let seen: Rc<Cell<Option<(u64, u64, Align)>>> = Rc::new(Cell::new(None));
        let redraw = Rc::new(move || {
            let Some(root) = window_ref.get_untracked() else { return };
            let gen = state.generation.get_untracked();
            // the offsets are those of (load, alignment)
            let clock = state.clock.shift.get_untracked();
            let key = Some((bus.generation.get(), gen, clock.align));
            if seen.get() == key {
                return;
            }
            let (t0, t1) = bus.window();
            if t1 <= t0 {
                return;
            }
            seen.set(key);
            let d = state.data();
            let root: &Element = &root;
            let _ = render_window(root, &d, t0, t1, &clock.track_ns);
        });
        let id = sch.register_late(redraw);
        sch.request_redraw();
        let sch = SendWrapper::new(sch);
        on_cleanup(move || sch.unregister(id));
    }

    let box_part = move || {
        let sel = state.view.box_selection.get()?;
        let d = state.tracked_data();
        // the box is drawn on the view's clock: under a ranks' alignment each track is read on its own
        let clock = state.clock.shift.get();
        let s = d.indexes.window_index.window_on_view_clock(
            &d.trace,
            sel.t0_ns,
            sel.t1_ns,
            Some(&sel.tracks),
            &clock.track_ns,
        );
        let ntracks = sel.tracks.iter().filter(|&&b| b).count();
        let (events, total) = slices_in(&d.trace, sel.t0_ns, sel.t1_ns, &sel.tracks, 200, &clock.track_ns);
        let list = events
            .into_iter()
            .map(|r: SliceRef| {
                let label = describe::slice_ref_label(&d.trace, r);
                view! {
                    <li><button class="link" on:click=move |_| {
                        state.view.selection.set(Some(Selection::Slice(r)));
                        state.view.request.set(Some(ViewRequest::Reveal(r)));
                    }>{label}</button></li>
                }
            })
            .collect_view();
        Some(view! {
            <div class="box-selection" data-testid="box-selection">
                <h4>
                    {format!("Box selection: {ntracks} track{} × {}", if ntracks == 1 { "" } else { "s" }, format_duration_ns(sel.t1_ns - sel.t0_ns))}
                    " "
                    <button class="button button-quiet" on:click=move |_| state.view.box_selection.set(None)>"Clear"</button>
                    <button class="button button-quiet" on:click=move |_| state.view.request.set(Some(ViewRequest::Range { t0_ns: sel.t0_ns, t1_ns: sel.t1_ns }))>"Zoom to it"</button>
                </h4>
                <p data-testid="box-count">{format!("{} events", s.slices)}{(s.dma_count > 0).then(|| format!(" · DMA {} packets, {}", s.dma_count, fmt_bytes(s.dma_bytes)))}</p>
                {(!s.engines.is_empty()).then(|| engine_table(&s.engines, "box-engines"))}
                <table class="grid"><thead><tr><th>"track"</th><th>"events"</th>
                    <th title=loupe_core::analysis::measures::GPU_BUSY.text>"busy"</th>
                    <th title=loupe_core::analysis::measures::GPU_UTILISATION.text>"utilisation"</th></tr></thead>
                <tbody>{track_rows(&d, &s, 12)}</tbody></table>
                <h4>{format!("Events ({} of {total})", total.min(200))}</h4>
                <ul class="event-list">{list}</ul>
            </div>
        })
    };
    view! {
        <div class="widget-body widget-scroll selection-summary">
            <div node_ref=window_ref class="selection-live">
                <p class="empty-state">"The summary of the visible part of the timeline appears here and follows your zoom."</p>
            </div>
            {box_part}
            <p class="hint">"Shift+drag on the timeline to select tracks × time."</p>
        </div>
    }
}
