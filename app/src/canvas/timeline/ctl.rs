//! The timeline's controller: [`TimelineCtl`] and its state, grouped by concern (the canvas it
//! paints on, the view, the model drawn, what is marked on it, the last frame's hit regions, the
//! tooltip, where it reports, the test hooks). Its behaviour is in the sibling files, one concern
//! each: `navigate.rs` (where it looks), `paint.rs` (the frame), `hover.rs` (tooltip, markers, box
//! selection), `gestures.rs` (gestures and keys). Here: construction and the setters the component's
//! `Effect`s call.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use loupe_core::analysis::annotations::Marker;
use loupe_core::lod::LodItem;
use loupe_core::viewport::Viewport;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use super::view::View;
use crate::canvas::hit_test::{HitList, HitTarget};
use crate::canvas::input::Attached;
use crate::canvas::layout::{Layout, RULER_H_PX};
use crate::canvas::raster::{Raster, RasterColours};
use crate::canvas::scheduler::Scheduler;
use crate::canvas::theme::{Theme, FONT};
use crate::clock::ClockShift;
use crate::dom;
use crate::state::{BoxSelection, ColourBy, MarkerEdit, SearchHits, Selection, TraceData, ViewportBus};

/// Where the timeline paints: the canvas and its context, the elements around it, the colours.
pub(super) struct Surface {
    pub(super) canvas: HtmlCanvasElement,
    pub(super) ctx: CanvasRenderingContext2d,
    pub(super) wrap: HtmlElement,
    /// The track list's inner box (translated by the scroll).
    pub(super) list_inner: HtmlElement,
    /// The canvas colours, re-read from the CSS tokens when the page's theme changes
    /// ([`TimelineCtl::retheme`]).
    pub(super) theme: RefCell<Theme>,
    pub(super) char_w_px: f64,
    /// The tracks area's pixel buffer (`None` with `?raster=0`: one `fillRect` per item).
    pub(super) raster: RefCell<Option<Raster>>,
}

/// What is drawn: the model, its row layout, and the ranks' clock offsets.
pub(super) struct Model {
    pub(super) data: RefCell<Arc<TraceData>>,
    pub(super) layout: RefCell<Arc<Layout>>,
    /// The ranks' clock offsets (per track and counter), added to recorded times when drawn.
    pub(super) clock: RefCell<Arc<ClockShift>>,
}

/// What is marked on it (handed in by the component's `Effect`s).
pub(super) struct Marks {
    pub(super) selection: Cell<Option<Selection>>,
    pub(super) colour_by: Cell<ColourBy>,
    pub(super) search: RefCell<Option<Arc<SearchHits>>>,
    pub(super) box_selection: RefCell<Option<BoxSelection>>,
    /// The current annotation markers.
    pub(super) markers: RefCell<Vec<Marker>>,
}

/// The last frame's painted items and their hit regions (hover, click, snapping, test hooks).
pub(super) struct Painted {
    pub(super) hits: RefCell<HitList>,
    pub(super) items: RefCell<Vec<LodItem>>,
}

/// The hover tooltip.
pub(super) struct Tip {
    pub(super) tooltip: HtmlElement,
    /// What the tooltip currently describes.
    pub(super) target: Cell<Option<HitTarget>>,
    /// The pointer is over a marker's flag (the cursor says it can be dragged).
    pub(super) grab_cursor: Cell<bool>,
}

/// Where the timeline reports: callbacks into the app state, and the viewport bus.
pub(super) struct Outputs {
    /// (selection, Ctrl/Cmd held on the click)
    pub(super) on_select: Box<dyn Fn(Option<Selection>, bool)>,
    /// Reports a finished (or cleared) box selection.
    pub(super) on_box: Box<dyn Fn(Option<BoxSelection>)>,
    /// Toggles the keyboard help (`?`).
    pub(super) on_help: Box<dyn Fn()>,
    /// Reports a marker added (right-click) or moved (flag dragged).
    pub(super) on_marker: Box<dyn Fn(MarkerEdit)>,
    /// Where the visible window is published after each paint (widgets that follow it).
    pub(super) bus: Option<Rc<ViewportBus>>,
}

/// `window.__loupe` (refreshed after every paint) and the test hooks' closures, kept alive here.
pub(super) struct TestHooks {
    pub(super) exposed: js_sys::Object,
    /// `findSlice()` / `findFlowSlice()`.
    pub(super) find_slice:
        RefCell<Option<(Closure<dyn FnMut() -> JsValue>, Closure<dyn FnMut() -> JsValue>)>>,
    /// `paintedSlice(track, index)`.
    pub(super) painted_slice: RefCell<Option<Closure<dyn FnMut(u32, u32) -> JsValue>>>,
}

/// The timeline's controller: everything on the fast path, outside the reactive graph.
pub struct TimelineCtl {
    pub(super) surface: Surface,
    pub(super) view: RefCell<View>,
    pub(super) model: Model,
    pub(super) marks: Marks,
    pub(super) painted: Painted,
    pub(super) tip: Tip,
    pub(super) out: Outputs,
    pub(super) scheduler: Rc<Scheduler>,
    pub(super) redraw_id: Cell<u32>,
    /// The canvas's listeners (the shared input layer's and the timeline's own) and size watch.
    pub(super) input: RefCell<Option<Attached>>,
    pub(super) hooks: TestHooks,
}

pub(super) fn set_prop(o: &js_sys::Object, k: &str, v: JsValue) {
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
            surface: Surface {
                canvas,
                ctx,
                wrap,
                list_inner,
                theme: RefCell::new(theme),
                char_w_px,
                raster: RefCell::new(raster),
            },
            view: RefCell::new(View {
                vp: Viewport { ruler_h_px: RULER_H_PX, ..Viewport::default() },
                dpr: 1.0,
                pointer: None,
                hover: None,
                drag: None,
                fitted: false,
                pinned: None,
            }),
            model: Model {
                data: RefCell::new(data),
                layout: RefCell::new(layout),
                clock: RefCell::new(Default::default()),
            },
            marks: Marks {
                selection: Cell::new(None),
                colour_by: Cell::new(ColourBy::Auto),
                search: RefCell::new(None),
                box_selection: RefCell::new(None),
                markers: RefCell::new(Vec::new()),
            },
            painted: Painted { hits: RefCell::new(HitList::default()), items: RefCell::new(Vec::new()) },
            tip: Tip { tooltip, target: Cell::new(None), grab_cursor: Cell::new(false) },
            out: Outputs {
                on_select: Box::new(on_select),
                on_box: Box::new(on_box),
                on_help: Box::new(on_help),
                on_marker: Box::new(on_marker),
                bus,
            },
            scheduler,
            redraw_id: Cell::new(0),
            input: RefCell::new(None),
            hooks: TestHooks { exposed, find_slice: RefCell::new(None), painted_slice: RefCell::new(None) },
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
            let hits = c.painted.hits.borrow();
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
        set_prop(&ctl.hooks.exposed, "findSlice", hook.as_ref().clone());
        // test hook: centre of a painted slice that has flows (to check the arrows)
        let weak = Rc::downgrade(&ctl);
        let flow_hook = Closure::<dyn FnMut() -> JsValue>::new(move || {
            let Some(c) = weak.upgrade() else { return JsValue::NULL };
            let data = c.model.data.borrow();
            let hits = c.painted.hits.borrow();
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
        set_prop(&ctl.hooks.exposed, "findFlowSlice", flow_hook.as_ref().clone());
        *ctl.hooks.find_slice.borrow_mut() = Some((hook, flow_hook));
        // test hook: where the last frame painted slice `index` of track `track` (canvas CSS px:
        // `x0`, `x1`, `y`), or null when it was not painted on its own (off screen, merged)
        let weak = Rc::downgrade(&ctl);
        let painted = Closure::<dyn FnMut(u32, u32) -> JsValue>::new(move |track: u32, index: u32| {
            let Some(c) = weak.upgrade() else { return JsValue::NULL };
            let want = HitTarget::Slice(loupe_core::model::SliceRef {
                track: loupe_core::model::TrackId(track),
                index,
            });
            let found = c.painted.hits.borrow().iter().find(|h| h.target == want).copied();
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
        set_prop(&ctl.hooks.exposed, "paintedSlice", painted.as_ref().clone());
        *ctl.hooks.painted_slice.borrow_mut() = Some(painted);
        ctl.attach();
        let _ = ctl.resize();
        ctl.request_redraw();
        Some(ctl)
    }

    /// The page's theme changed: re-read the canvas colours (and the raster's copies) and repaint.
    pub fn retheme(&self) {
        let theme = Theme::from_css();
        if let Some(r) = self.surface.raster.borrow_mut().as_mut() {
            r.colours = RasterColours::from_theme(&self.surface.ctx, &theme);
        }
        *self.surface.theme.borrow_mut() = theme;
        self.surface.ctx.set_font(FONT);
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
        let new_trace = !Arc::ptr_eq(&self.model.data.borrow(), &data);
        *self.model.data.borrow_mut() = data;
        *self.model.layout.borrow_mut() = layout;
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
        self.marks.selection.set(s);
        self.request_redraw();
    }

    /// The ranks' clock offsets to draw with (a view setting: selection, search and markers
    /// keep their meaning; what moves is where a rank's events are drawn).
    pub fn set_clock(&self, clock: Arc<ClockShift>) {
        *self.model.clock.borrow_mut() = clock;
        self.hide_tooltip();
        self.request_redraw();
    }

    pub fn set_colour_by(&self, by: ColourBy) {
        self.marks.colour_by.set(by);
        self.request_redraw();
    }

    /// The current search (`None` or an empty query: no highlight).
    pub fn set_search(&self, hits: Option<Arc<SearchHits>>) {
        *self.marks.search.borrow_mut() = hits.filter(|h| !h.query.trim().is_empty() && h.error.is_none());
        self.request_redraw();
    }

    /// The annotation markers to draw (from the app state).
    pub fn set_markers(&self, markers: Vec<Marker>) {
        *self.marks.markers.borrow_mut() = markers;
        self.request_redraw();
    }

    pub fn set_box_selection(&self, b: Option<BoxSelection>) {
        *self.marks.box_selection.borrow_mut() = b;
        self.request_redraw();
    }
}
