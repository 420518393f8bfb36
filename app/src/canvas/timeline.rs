//! The timeline: a DOM track list on the left, one canvas (ruler + tracks) on the right.
//!
//! [`TimelineCtl`] owns everything on the fast path (viewport, hover, drag, hit regions) in plain
//! `Cell`/`RefCell`s, outside the reactive graph: pointer, wheel and key events mutate it and ask
//! the [`Scheduler`] for a frame; nothing reactive runs while panning or zooming. Reactive state
//! reaches it through three `Effect`s (trace + layout, selection), and it reports clicks back
//! through `on_select`.
//!
//! Navigation (as in the Neuron profiler, plus extras): drag on the tracks zooms to the dragged
//! range, drag on the ruler pans, ctrl/⌘+wheel zooms at the pointer, shift+wheel pans, plain
//! wheel scrolls tracks vertically, A/D or ←/→ pan by 15 % of the visible span, W/S zoom,
//! 0 or R resets, double-click on the ruler resets, Esc clears the selection.
//!
//! Annotations: right-click drops a marker at the pointer, dragging a marker's flag on the ruler
//! moves it; both snap to the nearest painted event edge within [`SNAP_PX`]. The marker list comes
//! in through an `Effect` (`set_markers`) and edits go out through `on_marker`; while a flag is
//! dragged only the controller's copy moves (no reactive work until the pointer is released).
//!
//! Pointer and wheel events come through the canvas input layer shared with Compare's B lanes
//! ([`crate::canvas::input`]); the keys, right-click and double-click are the timeline's own.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::annotations::{snap_to_edge, Marker};
use loupe_core::lod::LodItem;
use loupe_core::view::TimeScale;
use loupe_core::viewport::{DragAxes, Press, Viewport};
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent};

use super::hit_test::{HitList, HitTarget};
use super::input::{self, Attached, CanvasInput, PointerAt, WheelAt};
use super::layout::{Layout, RowKind, RULER_H_PX};
use super::painter::{self, Frame};
use super::raster::{Raster, RasterColours};
use super::scheduler::Scheduler;
use super::theme::{Theme, FONT};
use crate::clock::ClockShift;
use crate::components::tooltip;
use crate::describe;
use crate::dom;
use crate::platform::now_ms;
use crate::state::{
    use_app_state, BoxSelection, ColourBy, MarkerEdit, SearchHits, Selection, TraceData, ViewRequest,
    ViewportBus,
};

/// Markers snap to an event edge this close to the pointer.
pub const SNAP_PX: f64 = 8.0;
/// A press on the ruler this close to a marker's line grabs the marker.
const GRAB_PX: f64 = 6.0;

#[derive(Debug, Clone, Copy)]
enum Drag {
    /// Pressed on the ruler: panning.
    Pan { x0_px: f64, start_ns0: i64 },
    /// Pressed on the tracks: a click, or a zoom range once moved (horizontally) past the threshold.
    Zoom { press: Press, x1_px: f64 },
    /// Shift+pressed on the tracks: a box selection (tracks × time).
    Boxing { x0_px: f64, y0_px: f64, x1_px: f64, y1_px: f64 },
    /// Pressed on a marker's flag: moving the marker (its time while dragged).
    Marker { id: u32, t_ns: i64, moved: bool },
}

#[derive(Debug)]
struct View {
    /// The viewport maths (time scale, scroll, size): `loupe_core::viewport`, tested natively.
    vp: Viewport,
    dpr: f64,
    /// Pointer position over the canvas (CSS px).
    pointer: Option<(f64, f64)>,
    hover: Option<HitTarget>,
    drag: Option<Drag>,
    /// The view has been fitted to the current trace.
    fitted: bool,
    /// A range another view asked for exactly (a link, a saved view) and the scale it gave: while
    /// the scale is unchanged (nobody panned or zoomed), a resize shows the same range again
    /// rather than keeping the zoom (a pane added after a link was applied must not change it).
    pinned: Option<(i64, i64, TimeScale)>,
}

pub struct TimelineCtl {
    canvas: HtmlCanvasElement,
    ctx: CanvasRenderingContext2d,
    wrap: HtmlElement,
    list_inner: HtmlElement,
    tooltip: HtmlElement,
    scheduler: Rc<Scheduler>,
    /// The canvas colours, re-read from the CSS tokens when the page's theme changes ([`Self::retheme`]).
    theme: RefCell<Theme>,
    char_w_px: f64,
    view: RefCell<View>,
    data: RefCell<Arc<TraceData>>,
    layout: RefCell<Arc<Layout>>,
    selection: Cell<Option<Selection>>,
    /// What the tooltip currently describes.
    tooltip_target: Cell<Option<HitTarget>>,
    hits: RefCell<HitList>,
    items: RefCell<Vec<LodItem>>,
    /// The tracks area's pixel buffer (`None` with `?raster=0`: one `fillRect` per item).
    raster: RefCell<Option<Raster>>,
    /// (selection, Ctrl/Cmd held on the click)
    on_select: Box<dyn Fn(Option<Selection>, bool)>,
    /// Reports a finished (or cleared) box selection.
    on_box: Box<dyn Fn(Option<BoxSelection>)>,
    /// Toggles the keyboard help (`?`).
    on_help: Box<dyn Fn()>,
    /// Reports a marker added (right-click) or moved (flag dragged).
    on_marker: Box<dyn Fn(MarkerEdit)>,
    /// The current annotation markers.
    markers: RefCell<Vec<Marker>>,
    /// The pointer is over a marker's flag (the cursor says it can be dragged).
    grab_cursor: Cell<bool>,
    colour_by: Cell<ColourBy>,
    /// The ranks' clock offsets (per track and counter), added to recorded times when drawn.
    clock: RefCell<Arc<ClockShift>>,
    search: RefCell<Option<Arc<SearchHits>>>,
    box_selection: RefCell<Option<BoxSelection>>,
    /// Where the visible window is published after each paint (widgets that follow it).
    bus: Option<Rc<ViewportBus>>,
    /// The canvas's listeners (the shared input layer's and the timeline's own) and size watch.
    input: RefCell<Option<Attached>>,
    /// `window.__loupe.findSlice()` / `findFlowSlice()` (test hooks), kept alive here.
    find_slice_hook: RefCell<Option<(Closure<dyn FnMut() -> JsValue>, Closure<dyn FnMut() -> JsValue>)>>,
    /// `window.__loupe.paintedSlice(track, index)` (test hook), kept alive here.
    painted_slice_hook: RefCell<Option<Closure<dyn FnMut(u32, u32) -> JsValue>>>,
    redraw_id: Cell<u32>,
    /// `window.__loupe`, refreshed after every paint.
    exposed: js_sys::Object,
}

fn set_prop(o: &js_sys::Object, k: &str, v: JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), &v);
}

impl TimelineCtl {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        canvas: HtmlCanvasElement,
        wrap: HtmlElement,
        list_inner: HtmlElement,
        tooltip: HtmlElement,
        scheduler: Rc<Scheduler>,
        data: Arc<TraceData>,
        layout: Arc<Layout>,
        bus: Option<Rc<ViewportBus>>,
        on_select: impl Fn(Option<Selection>, bool) + 'static,
        on_box: impl Fn(Option<BoxSelection>) + 'static,
        on_help: impl Fn() + 'static,
        on_marker: impl Fn(MarkerEdit) + 'static,
    ) -> Option<Rc<TimelineCtl>> {
        let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        ctx.set_font(FONT);
        let sample = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_:.";
        let char_w_px =
            ctx.measure_text(sample).map(|m| m.width() / sample.len() as f64).unwrap_or(6.5).max(1.0);
        let theme = Theme::from_css();
        let raster_off = dom::window()
            .and_then(|w| w.location().search().ok())
            .is_some_and(|q| q.trim_start_matches('?').split('&').any(|kv| kv == "raster=0"));
        let raster = (!raster_off).then(|| Raster::new(RasterColours::from_theme(&ctx, &theme)));
        ctx.set_font(FONT);
        let exposed = js_sys::Object::new();
        if let Some(w) = dom::window() {
            let _ = js_sys::Reflect::set(&w, &JsValue::from_str("__loupe"), &exposed);
        }
        let ctl = Rc::new(TimelineCtl {
            canvas,
            ctx,
            wrap,
            list_inner,
            tooltip,
            scheduler,
            theme: RefCell::new(theme),
            char_w_px,
            view: RefCell::new(View {
                vp: Viewport { ruler_h_px: RULER_H_PX, ..Viewport::default() },
                dpr: 1.0,
                pointer: None,
                hover: None,
                drag: None,
                fitted: false,
                pinned: None,
            }),
            data: RefCell::new(data),
            layout: RefCell::new(layout),
            selection: Cell::new(None),
            tooltip_target: Cell::new(None),
            hits: RefCell::new(HitList::default()),
            items: RefCell::new(Vec::new()),
            raster: RefCell::new(raster),
            on_select: Box::new(on_select),
            on_box: Box::new(on_box),
            on_help: Box::new(on_help),
            on_marker: Box::new(on_marker),
            markers: RefCell::new(Vec::new()),
            grab_cursor: Cell::new(false),
            colour_by: Cell::new(ColourBy::Auto),
            clock: RefCell::new(Default::default()),
            search: RefCell::new(None),
            box_selection: RefCell::new(None),
            bus,
            input: RefCell::new(None),
            find_slice_hook: RefCell::new(None),
            painted_slice_hook: RefCell::new(None),
            redraw_id: Cell::new(0),
            exposed,
        });
        let weak = Rc::downgrade(&ctl);
        let id = ctl.scheduler.register(Rc::new(move || {
            if let Some(c) = weak.upgrade() {
                c.paint();
            }
        }));
        ctl.redraw_id.set(id);
        // test hook: centre (canvas CSS px) of the widest slice painted in the last frame, and its
        // painted left and right edges (`x0`, `x1`)
        let weak = Rc::downgrade(&ctl);
        let hook = Closure::<dyn FnMut() -> JsValue>::new(move || {
            let Some(c) = weak.upgrade() else { return JsValue::NULL };
            let hits = c.hits.borrow();
            match hits.widest_slice() {
                Some(h) => {
                    let o = js_sys::Object::new();
                    set_prop(
                        &o,
                        "x",
                        ((h.x0_px.max(0.0) + h.x1_px.min(c.view.borrow().vp.width_px)) / 2.0).into(),
                    );
                    set_prop(&o, "y", ((h.y0_px + h.y1_px) / 2.0).into());
                    set_prop(&o, "x0", h.x0_px.into());
                    set_prop(&o, "x1", h.x1_px.into());
                    o.into()
                }
                None => JsValue::NULL,
            }
        });
        set_prop(&ctl.exposed, "findSlice", hook.as_ref().clone());
        // test hook: centre of a painted slice that has flows (to check the arrows)
        let weak = Rc::downgrade(&ctl);
        let flow_hook = Closure::<dyn FnMut() -> JsValue>::new(move || {
            let Some(c) = weak.upgrade() else { return JsValue::NULL };
            let data = c.data.borrow();
            let hits = c.hits.borrow();
            let w = c.view.borrow().vp.width_px;
            let found = hits.iter().find(|h| match h.target {
                HitTarget::Slice(s) => h.x1_px - h.x0_px >= 3.0 && data.trace.flows_of(s).next().is_some(),
                _ => false,
            });
            match found {
                Some(h) => {
                    let o = js_sys::Object::new();
                    set_prop(&o, "x", ((h.x0_px.max(0.0) + h.x1_px.min(w)) / 2.0).into());
                    set_prop(&o, "y", ((h.y0_px + h.y1_px) / 2.0).into());
                    o.into()
                }
                None => JsValue::NULL,
            }
        });
        set_prop(&ctl.exposed, "findFlowSlice", flow_hook.as_ref().clone());
        *ctl.find_slice_hook.borrow_mut() = Some((hook, flow_hook));
        // test hook: where the last frame painted slice `index` of track `track` (canvas CSS px:
        // `x0`, `x1`, `y`), or null when it was not painted on its own (off screen, merged)
        let weak = Rc::downgrade(&ctl);
        let painted = Closure::<dyn FnMut(u32, u32) -> JsValue>::new(move |track: u32, index: u32| {
            let Some(c) = weak.upgrade() else { return JsValue::NULL };
            let want = HitTarget::Slice(loupe_core::model::SliceRef {
                track: loupe_core::model::TrackId(track),
                index,
            });
            let found = c.hits.borrow().iter().find(|h| h.target == want).copied();
            match found {
                Some(h) => {
                    let o = js_sys::Object::new();
                    set_prop(&o, "x0", h.x0_px.into());
                    set_prop(&o, "x1", h.x1_px.into());
                    set_prop(&o, "y", ((h.y0_px + h.y1_px) / 2.0).into());
                    o.into()
                }
                None => JsValue::NULL,
            }
        });
        set_prop(&ctl.exposed, "paintedSlice", painted.as_ref().clone());
        *ctl.painted_slice_hook.borrow_mut() = Some(painted);
        ctl.attach();
        ctl.resize();
        ctl.request_redraw();
        Some(ctl)
    }

    /// The page's theme changed: re-read the canvas colours (and the raster's copies) and repaint.
    pub fn retheme(&self) {
        let theme = Theme::from_css();
        if let Some(r) = self.raster.borrow_mut().as_mut() {
            r.colours = RasterColours::from_theme(&self.ctx, &theme);
        }
        *self.theme.borrow_mut() = theme;
        self.ctx.set_font(FONT);
        self.request_redraw();
    }

    pub fn request_redraw(&self) {
        self.scheduler.request_redraw();
    }

    /// Remove listeners and observers (the component is going away).
    pub fn detach(&self) {
        self.input.borrow_mut().take();
        self.scheduler.unregister(self.redraw_id.get());
    }

    /// A new trace and/or layout. A new trace (by identity) resets the view.
    pub fn set_data(&self, data: Arc<TraceData>, layout: Arc<Layout>) {
        let new_trace = !Arc::ptr_eq(&self.data.borrow(), &data);
        *self.data.borrow_mut() = data;
        *self.layout.borrow_mut() = layout;
        if new_trace {
            let mut v = self.view.borrow_mut();
            v.fitted = false;
            v.pinned = None;
            v.vp.scroll_y_px = 0.0;
            v.hover = None;
            self.fit(&mut v);
            self.hide_tooltip();
        }
        self.request_redraw();
    }

    pub fn set_selection(&self, s: Option<Selection>) {
        self.selection.set(s);
        self.request_redraw();
    }

    /// The ranks' clock offsets to draw with (a view setting: selection, search and markers
    /// keep their meaning; what moves is where a rank's events are drawn).
    pub fn set_clock(&self, clock: Arc<ClockShift>) {
        *self.clock.borrow_mut() = clock;
        self.hide_tooltip();
        self.request_redraw();
    }

    pub fn set_colour_by(&self, by: ColourBy) {
        self.colour_by.set(by);
        self.request_redraw();
    }

    /// The current search (`None` or an empty query: no highlight).
    pub fn set_search(&self, hits: Option<Arc<SearchHits>>) {
        *self.search.borrow_mut() = hits.filter(|h| !h.query.trim().is_empty() && h.error.is_none());
        self.request_redraw();
    }

    /// The annotation markers to draw (from the app state).
    pub fn set_markers(&self, markers: Vec<Marker>) {
        *self.markers.borrow_mut() = markers;
        self.request_redraw();
    }

    /// The marker whose line is within [`GRAB_PX`] of `x_px`, nearest first.
    fn marker_at(&self, v: &View, x_px: f64) -> Option<(u32, i64)> {
        self.markers
            .borrow()
            .iter()
            .map(|m| ((v.vp.scale.x_from_time(m.t_ns) - x_px).abs(), m))
            .filter(|(d, _)| *d <= GRAB_PX)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, m)| (m.id, m.t_ns))
    }

    /// The time under `x_px`, snapped to the nearest start or end of a painted event within
    /// [`SNAP_PX`] (merged blocks count with their outer edges, instants with their time).
    fn snapped_time(&self, v: &View, x_px: f64) -> i64 {
        let t_ns = v.vp.scale.time_from_x(x_px);
        let data = self.data.borrow();
        let clock = self.clock.borrow();
        let hits = self.hits.borrow();
        let near = hits.iter().filter(|h| h.x1_px >= x_px - SNAP_PX - 1.0 && h.x0_px <= x_px + SNAP_PX + 1.0);
        let edges = near.flat_map(|h| {
            let (a, b) = match h.target {
                HitTarget::Slice(r) => data
                    .trace
                    .tracks
                    .get(r.track.idx())
                    .filter(|t| (r.index as usize) < t.slices.len())
                    .map_or((None, None), |t| {
                        let (i, o) = (r.index as usize, clock.track(r.track));
                        (Some(t.slices.start_ns[i] + o), Some(t.slices.end_ns(i) + o))
                    }),
                HitTarget::Merged { track, start_ns, end_ns, .. } => {
                    (Some(start_ns + clock.track(track)), Some(end_ns + clock.track(track)))
                }
                HitTarget::Instant { track, index } => (
                    data.trace
                        .tracks
                        .get(track.idx())
                        .and_then(|t| t.instants.ts_ns.get(index as usize).copied())
                        .map(|t| t + clock.track(track)),
                    None,
                ),
                HitTarget::Counter(_) => (None, None),
            };
            a.into_iter().chain(b)
        });
        let max_ns = (SNAP_PX * v.vp.scale.ns_per_px).round().min(i64::MAX as f64) as i64;
        snap_to_edge(t_ns, edges, max_ns)
    }

    pub fn set_box_selection(&self, b: Option<BoxSelection>) {
        *self.box_selection.borrow_mut() = b;
        self.request_redraw();
    }

    /// Act on a request from another widget (they never call the timeline directly).
    pub fn apply(&self, req: ViewRequest) {
        match req {
            ViewRequest::Range { t0_ns, t1_ns } => self.view.borrow_mut().vp.show_range(t0_ns, t1_ns),
            ViewRequest::Exact { t0_ns, t1_ns } => {
                let mut v = self.view.borrow_mut();
                let w = v.vp.width_px;
                if w > 0.0 {
                    let t1_ns = t1_ns.max(t0_ns.saturating_add(1));
                    v.vp.scale.zoom_to(t0_ns, t1_ns, w);
                    v.pinned = Some((t0_ns, t1_ns, v.vp.scale));
                }
            }
            ViewRequest::Reveal(r) => {
                self.reveal(Selection::Slice(r));
                return;
            }
            ViewRequest::Focus { t0_ns, t1_ns, slice } => {
                self.view.borrow_mut().vp.show_range(t0_ns, t1_ns);
                // in view now: only scrolls to the slice's row
                self.reveal(Selection::Slice(slice));
                self.hide_tooltip();
                return;
            }
            ViewRequest::ZoomToData => self.fit_busy(&mut self.view.borrow_mut()),
            ViewRequest::Reset => self.fit_all(&mut self.view.borrow_mut()),
        }
        self.hide_tooltip();
        self.request_redraw();
    }

    /// The first view of a trace: its busy range when that is much narrower than the whole trace
    /// (one outlier must not squash the data into a pixel column), else everything.
    fn fit(&self, v: &mut View) {
        let narrow = {
            let data = self.data.borrow();
            data.busy.is_some_and(|b| loupe_core::analysis::busy::busy_is_narrow(&data.trace, b))
        };
        if narrow {
            self.fit_busy(v);
        } else {
            self.fit_all(v);
        }
    }

    /// Fit everything.
    fn fit_all(&self, v: &mut View) {
        if v.vp.width_px <= 0.0 {
            return;
        }
        let (t0, t1) = self.data_range();
        v.vp.fit(t0, t1);
        v.fitted = true;
    }

    /// Fit the busy range ("Zoom to data").
    fn fit_busy(&self, v: &mut View) {
        if v.vp.width_px <= 0.0 {
            return;
        }
        let busy = self.data.borrow().busy;
        match busy {
            Some((a, b)) => {
                v.vp.fit(a, b);
                v.fitted = true;
            }
            None => self.fit_all(v),
        }
    }

    fn clamp(&self, v: &mut View) {
        let (t0, t1) = self.data_range();
        v.vp.clamp(t0, t1, self.layout.borrow().total_h_px);
    }

    /// The trace's time range on the view's clock: widened by the ranks' alignment offsets, so a
    /// rank drawn later or earlier than recorded can still be reached.
    fn data_range(&self) -> (i64, i64) {
        let data = self.data.borrow();
        let clock = self.clock.borrow();
        let offs = clock.track_ns.iter().chain(&clock.counter_ns);
        let (lo, hi) = offs.fold((0i64, 0i64), |(lo, hi), &o| (lo.min(o), hi.max(o)));
        (data.trace.start_ns.saturating_add(lo), data.trace.end_ns.saturating_add(hi))
    }

    /// Match the canvas backing store to its CSS size × devicePixelRatio.
    pub fn resize(&self) {
        let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
        let (w, h) = (self.wrap.client_width() as f64, self.wrap.client_height() as f64);
        let mut v = self.view.borrow_mut();
        if w == v.vp.width_px && h == v.vp.height_px && dpr == v.dpr {
            return;
        }
        // keep the time at the left edge and the zoom when the width changes
        v.vp.width_px = w;
        v.vp.height_px = h;
        v.dpr = dpr;
        self.canvas.set_width((w * dpr).round().max(1.0) as u32);
        self.canvas.set_height((h * dpr).round().max(1.0) as u32);
        let style = HtmlElement::style(&self.canvas);
        let _ = style.set_property("width", &format!("{w}px"));
        let _ = style.set_property("height", &format!("{h}px"));
        if !v.fitted {
            self.fit(&mut v);
        }
        if let Some((t0_ns, t1_ns, scale)) = v.pinned {
            if scale == v.vp.scale && w > 0.0 {
                v.vp.scale.zoom_to(t0_ns, t1_ns, w);
                v.pinned = Some((t0_ns, t1_ns, v.vp.scale));
            } else {
                v.pinned = None;
            }
        }
        drop(v);
        self.request_redraw();
    }

    /// Paint now (called by the scheduler).
    pub fn paint(&self) {
        let t0 = now_ms();
        let mut v = self.view.borrow_mut();
        if v.vp.width_px <= 0.0 || v.vp.height_px <= 0.0 {
            return;
        }
        // a window another view asked for (B's lanes in the Compare widget zoom and pan A too)
        if let Some((t0_ns, t1_ns)) = self.bus.as_ref().and_then(|b| b.take_request()) {
            let w = v.vp.width_px;
            v.vp.scale.zoom_to(t0_ns, t1_ns, w);
            v.hover = None;
            self.tooltip_target.set(None);
            let _ = self.tooltip.style().set_property("display", "none");
        }
        self.clamp(&mut v);
        let data = self.data.borrow();
        let layout = self.layout.borrow();
        let theme = self.theme.borrow();
        let frame = Frame {
            data: &data,
            layout: &layout,
            theme: &theme,
            scale: v.vp.scale,
            scroll_y_px: v.vp.scroll_y_px,
            width_px: v.vp.width_px,
            height_px: v.vp.height_px,
            dpr: v.dpr,
            char_w_px: self.char_w_px,
            selection: self.selection.get(),
            hover: if v.drag.is_some() { None } else { v.hover },
            hover_x_px: v.pointer.map(|p| p.0),
            drag_zoom_px: match v.drag {
                Some(Drag::Zoom { press, x1_px }) if press.moved => Some((press.x0_px, x1_px)),
                _ => None,
            },
            box_drag_px: match v.drag {
                Some(Drag::Boxing { x0_px, y0_px, x1_px, y1_px }) => Some((x0_px, y0_px, x1_px, y1_px)),
                _ => None,
            },
            box_selection: None,
            colour_by: self.colour_by.get(),
            search: None,
            markers: &[],
            active_marker: None,
            track_offset: &[],
            counter_offset: &[],
            iterations: &data.trace.iterations,
        };
        let search = self.search.borrow();
        let boxed = self.box_selection.borrow();
        // a marker being dragged is drawn where the pointer has it, not where the state has it
        let stored = self.markers.borrow();
        let (markers, active_marker): (std::borrow::Cow<[Marker]>, _) = match v.drag {
            Some(Drag::Marker { id, t_ns, .. }) => (
                stored
                    .iter()
                    .map(|m| if m.id == id { Marker { t_ns, ..m.clone() } } else { m.clone() })
                    .collect::<Vec<_>>()
                    .into(),
                Some(id),
            ),
            _ => (stored.as_slice().into(), None),
        };
        let clock = self.clock.borrow();
        let frame = Frame {
            search: search.as_deref(),
            box_selection: boxed.as_ref(),
            markers: &markers,
            active_marker,
            track_offset: &clock.track_ns,
            counter_offset: &clock.counter_ns,
            iterations: clock.iterations.as_deref().unwrap_or(&data.trace.iterations),
            ..frame
        };
        let mut raster = self.raster.borrow_mut();
        let stats = painter::paint(
            &self.ctx,
            &frame,
            &mut self.hits.borrow_mut(),
            &mut self.items.borrow_mut(),
            raster.as_mut(),
        );
        let rastered = raster.is_some();
        drop(raster);
        if let Some(bus) = &self.bus {
            bus.publish(v.vp.scale.start_ns, v.vp.scale.end_ns(v.vp.width_px));
        }
        let _ = self
            .list_inner
            .style()
            .set_property("transform", &format!("translateY({}px)", -v.vp.scroll_y_px));
        let ms = now_ms() - t0;
        let o = &self.exposed;
        set_prop(o, "paintMs", ms.into());
        set_prop(o, "frames", (self.scheduler.frames.get() as f64 + 1.0).into());
        set_prop(o, "items", (stats.items as f64).into());
        set_prop(o, "rows", (stats.rows as f64).into());
        set_prop(o, "edgesDrawn", (stats.edges as f64).into());
        set_prop(o, "startNs", (v.vp.scale.start_ns as f64).into());
        // exact, as text (trace times above 2^53 ns do not fit a JavaScript number)
        set_prop(o, "startNsText", v.vp.scale.start_ns.to_string().into());
        set_prop(o, "nsPerPx", v.vp.scale.ns_per_px.into());
        set_prop(o, "scrollY", v.vp.scroll_y_px.into());
        set_prop(o, "widthPx", v.vp.width_px.into());
        set_prop(o, "heightPx", v.vp.height_px.into());
        set_prop(o, "dpr", v.dpr.into());
        set_prop(o, "sliceCount", (data.trace.slice_count() as f64).into());
        set_prop(o, "memoryBytes", (data.heap_bytes as f64).into());
        // threads the last load's parser worker used (loader::last_threads)
        set_prop(o, "threads", f64::from(crate::loader::last_threads()).into());
        set_prop(o, "raster", rastered.into());
        set_prop(o, "trackCount", (data.trace.tracks.len() as f64).into());
        set_prop(o, "counterCount", (data.trace.counters.len() as f64).into());
        set_prop(o, "format", data.trace.format.as_str().into());
        set_prop(o, "demo", data.is_demo.into());
        set_prop(o, "loadMs", data.load_ms.into());
        set_prop(o, "fromCache", data.from_cache.into());
        // the model's resident bytes as the core counts them; lazy argument sets (issue 10)
        set_prop(o, "memoryBytes", (data.trace.heap_bytes() as f64).into());
        set_prop(o, "lazyArgs", (data.trace.args.lazy.len() as f64).into());
        set_prop(o, "endNs", (v.vp.scale.end_ns(v.vp.width_px) as f64).into());
        // markers as drawn: id, name, time and canvas x (test hook)
        let arr = js_sys::Array::new();
        for m in markers.iter() {
            let e = js_sys::Object::new();
            set_prop(&e, "id", m.id.into());
            set_prop(&e, "name", m.name.as_str().into());
            set_prop(&e, "tNs", (m.t_ns as f64).into());
            set_prop(&e, "x", v.vp.scale.x_from_time(m.t_ns).into());
            arr.push(&e);
        }
        set_prop(o, "markers", arr.into());
    }

    // ---- input ----

    fn hide_tooltip(&self) {
        self.tooltip_target.set(None);
        let _ = self.tooltip.style().set_property("display", "none");
    }

    fn update_hover(&self, x: f64, y: f64) {
        let mut v = self.view.borrow_mut();
        v.pointer = Some((x, y));
        // a marker's flag can be dragged: say so with the cursor
        let on_flag = y < RULER_H_PX + 2.0 && self.marker_at(&v, x).is_some();
        if on_flag != self.grab_cursor.get() {
            self.grab_cursor.set(on_flag);
            let style = HtmlElement::style(&self.canvas);
            let _ = if on_flag {
                style.set_property("cursor", "ew-resize")
            } else {
                style.remove_property("cursor").map(|_| ())
            };
        }
        let hit =
            if y >= RULER_H_PX && v.drag.is_none() { self.hits.borrow().find(x, y).copied() } else { None };
        v.hover = hit.map(|h| h.target);
        let t_ns = v.vp.scale.time_from_x(x);
        let (w, h) = (v.vp.width_px, v.vp.height_px);
        drop(v);
        match hit {
            Some(h_) => {
                // refill only when the target changes (counters: their value depends on the time)
                if self.tooltip_target.get() != Some(h_.target) || matches!(h_.target, HitTarget::Counter(_))
                {
                    tooltip::fill(&self.tooltip, &self.data.borrow(), &self.clock.borrow(), &h_.target, t_ns);
                    self.tooltip_target.set(Some(h_.target));
                }
                let style = self.tooltip.style();
                let _ = style.set_property("display", "block");
                // place right-below the pointer, flipped near the edges
                let (tw, th) = (self.tooltip.offset_width() as f64, self.tooltip.offset_height() as f64);
                let mut left = x + 14.0;
                if left + tw > w {
                    left = (x - tw - 14.0).max(0.0);
                }
                let mut top = y + 16.0;
                if top + th > h {
                    top = (y - th - 10.0).max(0.0);
                }
                let _ = style.set_property("left", &format!("{left}px"));
                let _ = style.set_property("top", &format!("{top}px"));
            }
            None => self.hide_tooltip(),
        }
        self.request_redraw();
    }

    /// Right-click: a marker at the (snapped) pointer time.
    fn on_context_menu(&self, ev: &MouseEvent) {
        ev.prevent_default();
        let (x, _) = input::canvas_pos(&self.canvas, ev);
        let v = self.view.borrow();
        if v.drag.is_some() || x < 0.0 || x > v.vp.width_px {
            return;
        }
        let t_ns = self.snapped_time(&v, x);
        drop(v);
        (self.on_marker)(MarkerEdit::Add { t_ns });
    }

    /// A box selection over `[t0, t1)` and the tracks whose rows touch content-y `c0..c1`
    /// (`None` when it touches none).
    fn boxed_tracks(&self, t0: i64, t1: i64, c0: f64, c1: f64) -> Option<BoxSelection> {
        let layout = self.layout.borrow();
        let n = self.data.borrow().trace.tracks.len();
        let mut tracks = vec![false; n];
        let mut any = false;
        for r in &layout.rows[layout.visible_rows(c0, c1 + 0.5)] {
            let mut mark = |t: loupe_core::model::TrackId| {
                if let Some(b) = tracks.get_mut(t.idx()) {
                    *b = true;
                    any = true;
                }
            };
            match r.kind {
                RowKind::Track(t) => mark(t),
                _ => r.folded_tracks.iter().for_each(|&t| mark(t)),
            }
        }
        any.then_some(BoxSelection { t0_ns: t0, t1_ns: t1.max(t0 + 1), tracks })
    }

    /// Keyboard navigation; returns whether the key was used.
    pub fn on_key(&self, key: &str) -> bool {
        let mut v = self.view.borrow_mut();
        let anchor = v.pointer.map(|p| p.0);
        if v.vp.key(key, anchor) {
            drop(v);
            self.hide_tooltip();
            self.request_redraw();
            return true;
        }
        match key {
            "0" | "r" | "R" => self.fit_all(&mut v),
            "z" | "Z" => self.fit_busy(&mut v),
            "?" => {
                drop(v);
                (self.on_help)();
                return true;
            }
            "Escape" => {
                drop(v);
                self.selection.set(None);
                (self.on_select)(None, false);
                self.request_redraw();
                return true;
            }
            _ => return false,
        }
        drop(v);
        self.hide_tooltip();
        self.request_redraw();
        true
    }

    pub fn reset_zoom(&self) {
        self.fit_all(&mut self.view.borrow_mut());
        self.request_redraw();
    }

    /// Scroll and pan so that `s` is visible (e.g. after choosing a flow end in the details).
    pub fn reveal(&self, s: Selection) {
        let data = self.data.borrow();
        let layout = self.layout.borrow();
        let (track, start_ns, end_ns, depth) = match s {
            Selection::Slice(r) => {
                let Some(t) = data.trace.tracks.get(r.track.idx()) else { return };
                let i = r.index as usize;
                if i >= t.slices.len() {
                    return;
                }
                let o = self.clock.borrow().track(r.track);
                (r.track, t.slices.start_ns[i] + o, t.slices.end_ns(i) + o, t.slices.depth_of(i))
            }
            _ => return,
        };
        self.view.borrow_mut().vp.reveal(start_ns, end_ns, layout.slice_mid_y_px(track, depth));
        self.request_redraw();
    }

    fn attach(self: &Rc<Self>) {
        let mut attached = input::attach(self, &input::wheel_area(&self.wrap), &self.wrap);
        let weak = Rc::downgrade(self);
        let canvas: &web_sys::EventTarget = self.canvas.as_ref();
        attached.push(input::on(&weak, canvas, "contextmenu", false, |c: &Self, ev: MouseEvent| {
            c.on_context_menu(&ev)
        }));
        attached.push(input::on(&weak, canvas, "dblclick", true, |c: &Self, ev: MouseEvent| {
            let (_, y) = input::canvas_pos(&c.canvas, &ev);
            if y < RULER_H_PX {
                c.reset_zoom();
            }
        }));
        if let Some(win) = dom::window() {
            attached.push(input::on(&weak, win.as_ref(), "keydown", false, |c: &Self, k: KeyboardEvent| {
                if dom::is_typing_target(&k) {
                    return;
                }
                if k.ctrl_key() || k.meta_key() || k.alt_key() {
                    return;
                }
                if c.on_key(&k.key()) {
                    k.prevent_default();
                }
            }));
        }
        *self.input.borrow_mut() = Some(attached);
    }
}

/// Drag on the ruler pans (or moves a marker grabbed by its flag), drag on the tracks zooms to the
/// dragged range (with Shift: a box selection), a click selects, the wheel zooms, pans or scrolls.
impl CanvasInput for TimelineCtl {
    fn canvas(&self) -> &HtmlCanvasElement {
        &self.canvas
    }

    fn press(&self, p: PointerAt) {
        let (x, y) = (p.x_px, p.y_px);
        let mut v = self.view.borrow_mut();
        let grabbed = if y < RULER_H_PX + 2.0 { self.marker_at(&v, x) } else { None };
        v.drag = Some(if let Some((id, t_ns)) = grabbed {
            Drag::Marker { id, t_ns, moved: false }
        } else if y < RULER_H_PX {
            Drag::Pan { x0_px: x, start_ns0: v.vp.scale.start_ns }
        } else if p.shift {
            Drag::Boxing { x0_px: x, y0_px: y, x1_px: x, y1_px: y }
        } else {
            Drag::Zoom { press: Press::new(x, y), x1_px: x }
        });
        drop(v);
        self.hide_tooltip();
    }

    fn motion(&self, p: PointerAt) {
        let (x, y) = (p.x_px, p.y_px);
        let mut v = self.view.borrow_mut();
        match v.drag {
            Some(Drag::Pan { x0_px, start_ns0 }) => {
                v.vp.drag_pan(start_ns0, x0_px, x);
                v.pointer = Some((x, y));
                drop(v);
                self.request_redraw();
            }
            Some(Drag::Zoom { mut press, .. }) => {
                press.move_to(x, y, DragAxes::X);
                v.drag = Some(Drag::Zoom { press, x1_px: x.clamp(0.0, v.vp.width_px) });
                v.pointer = Some((x, y));
                drop(v);
                self.request_redraw();
            }
            Some(Drag::Boxing { x0_px, y0_px, .. }) => {
                let (w, h) = (v.vp.width_px, v.vp.height_px);
                v.drag = Some(Drag::Boxing {
                    x0_px,
                    y0_px,
                    x1_px: x.clamp(0.0, w),
                    y1_px: y.clamp(RULER_H_PX, h),
                });
                v.pointer = Some((x, y));
                drop(v);
                self.request_redraw();
            }
            Some(Drag::Marker { id, .. }) => {
                let t_ns = self.snapped_time(&v, x.clamp(0.0, v.vp.width_px));
                v.drag = Some(Drag::Marker { id, t_ns, moved: true });
                v.pointer = Some((x, y));
                drop(v);
                self.request_redraw();
            }
            None => {
                drop(v);
                self.update_hover(x, y);
            }
        }
    }

    fn release(&self, p: PointerAt) {
        let (x, y) = (p.x_px, p.y_px);
        let mut v = self.view.borrow_mut();
        let drag = v.drag.take();
        match drag {
            Some(Drag::Marker { id, t_ns, moved }) => {
                drop(v);
                if moved {
                    // the controller's copy moves now; the state's Effect brings the same back
                    if let Some(m) = self.markers.borrow_mut().iter_mut().find(|m| m.id == id) {
                        m.t_ns = t_ns;
                    }
                    (self.on_marker)(MarkerEdit::Move { id, t_ns });
                }
                self.update_hover(x, y);
                return;
            }
            Some(Drag::Zoom { press, x1_px }) if press.moved => {
                v.vp.drag_zoom(press.x0_px, x1_px);
            }
            Some(Drag::Boxing { x0_px, y0_px, .. }) => {
                let (x1_px, y1_px) = (x.clamp(0.0, v.vp.width_px), y.clamp(RULER_H_PX, v.vp.height_px));
                let small = !Press::new(x0_px, y0_px).beyond(x1_px, y1_px, DragAxes::X);
                let (t0, t1) =
                    (v.vp.scale.time_from_x(x0_px.min(x1_px)), v.vp.scale.time_from_x(x0_px.max(x1_px)));
                // content-y of the box → the tracks whose rows it touches
                let (c0, c1) = (
                    y0_px.min(y1_px) - RULER_H_PX + v.vp.scroll_y_px,
                    y0_px.max(y1_px) - RULER_H_PX + v.vp.scroll_y_px,
                );
                drop(v);
                let sel = if small { None } else { self.boxed_tracks(t0, t1, c0, c1) };
                *self.box_selection.borrow_mut() = sel.clone();
                (self.on_box)(sel);
                self.update_hover(x, y);
                return;
            }
            Some(Drag::Zoom { .. }) => {
                let t_ns = v.vp.scale.time_from_x(x);
                drop(v);
                let hit = self.hits.borrow().find(x, y).copied();
                let sel = hit.and_then(|h| {
                    let sample = match h.target {
                        HitTarget::Counter(c) => describe::counter_sample_at(
                            &self.data.borrow().trace,
                            c.idx(),
                            t_ns - self.clock.borrow().counter(c.idx()),
                        )
                        .map(|k| k as u32),
                        _ => None,
                    };
                    h.target.selection(sample)
                });
                self.selection.set(sel);
                (self.on_select)(sel, p.ctrl_or_meta);
                self.update_hover(x, y);
                return;
            }
            _ => {}
        }
        drop(v);
        self.update_hover(x, y);
    }

    fn cancel(&self) {
        self.view.borrow_mut().drag = None;
        self.request_redraw();
    }

    fn leave(&self) {
        let mut v = self.view.borrow_mut();
        if v.drag.is_none() {
            v.pointer = None;
            v.hover = None;
        }
        drop(v);
        self.hide_tooltip();
        self.request_redraw();
    }

    fn wheel(&self, w: WheelAt) {
        self.view.borrow_mut().vp.wheel(w.mode, w.dx_px, w.dy_px, w.x_px);
        self.hide_tooltip();
        self.request_redraw();
    }

    fn resized(&self) {
        self.resize();
    }
}

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
        let plan = loupe_core::rows::plan_rows(&data.trace, &data.zero_counters, &state.row_options());
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
            state.select_modifier.set_value(modifier);
            state.selection.set(s);
        };
        let on_box = move |b: Option<BoxSelection>| state.box_selection.set(b);
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
            c.set_markers(state.annotations.get_untracked().markers);
            c.set_colour_by(state.colour_by.get_untracked());
            c.set_search(Some(state.search.get_value()));
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
        let s = state.selection.get();
        handle.with(|c| c.set_selection(s));
    });
    Effect::new(move |_| {
        let by = state.colour_by.get();
        handle.with(|c| c.set_colour_by(by));
    });
    // a legend applied to the palette table (built in steps after a colour-by change)
    Effect::new(move |first: Option<()>| {
        state.legend_gen.track();
        if first.is_some() {
            handle.with(|c| c.request_redraw());
        }
    });
    Effect::new(move |_| {
        let clock = state.clock.get();
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
        state.search_gen.track();
        let hits = state.search.get_value();
        handle.with(|c| c.set_search(Some(hits)));
    });
    Effect::new(move |_| {
        let m = state.annotations.with(|a| a.markers.clone());
        handle.with(|c| c.set_markers(m));
    });
    Effect::new(move |_| {
        let b = state.box_selection.get();
        handle.with(|c| c.set_box_selection(b));
    });
    // view requests from other widgets: act, then clear
    Effect::new(move |_| {
        if let Some(req) = state.view_request.get() {
            handle.with(|c| c.apply(req));
            state.view_request.set(None);
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
                            state.collapsed.update(|c| {
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
                            state.collapsed_sections.update(|c| {
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
                                state.row_order.update(|o| loupe_core::rows::move_row(o, &sib, k, delta));
                            }
                        };
                        let hide = move |_| {
                            if let Some(k) = key {
                                state.hidden_rows.update(|h| {
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
                        on:click=move |_| state.hidden_rows.set(Default::default())>
                        {format!("{} hidden", l.hidden)}
                    </button>
                }
                .into_any(),
            );
        }
        let zero_shown = state.show_zero_counters.get();
        if l.zero_folded > 0 || zero_shown {
            let label =
                if zero_shown { "hide all-zero".to_string() } else { format!("{} all-zero", l.zero_folded) };
            parts.push(
                view! {
                    <button class="link" data-testid="toggle-zero"
                        title="Counters whose samples are all zero are folded away; click to show or hide them"
                        on:click=move |_| state.show_zero_counters.update(|z| *z = !*z)>
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
                        prop:value=move || state.track_filter.get()
                        on:input=move |ev| state.track_filter.set(event_target_value(&ev)) />
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
