//! Profile B's timeline in the Compare widget: B's lanes drawn under A's visible window (shifted
//! by the alignment offset), with the same gestures as A's timeline.
//!
//! [`BLanesCtl`] keeps everything on the fast path (scroll, hover, drag, the lane plan) in plain
//! `Cell`/`RefCell`s, like the timeline controller: pointer and wheel events mutate it and ask the
//! [`Scheduler`] for a frame; its paint is a *late* redraw, so it runs after the timeline painted
//! and published the window on the [`ViewportBus`] in the same frame. Zooming and panning here
//! move the shared window: the controller computes the window it wants (with the same
//! `loupe_core::viewport` maths as A, at B's canvas width) and leaves it on the bus
//! ([`ViewportBus::request`]); the timeline applies it at its next paint, and B follows what it
//! publishes. So A and B always show the same window, and there is one requestAnimationFrame.
//!
//! Gestures: hover shows a tooltip (`compare-b-tooltip`); click selects a slice (reported through
//! `on_select` to `CompareState::selection`, outlined here), drag pans (horizontally: the
//! shared window; vertically: B's lanes), ctrl/⌘+wheel zooms at the pointer, shift+wheel pans,
//! plain wheel scrolls the lanes. Lanes and hit testing are `loupe_core::analysis::compare::lanes`.
//! The events come through the canvas input layer the timeline uses too
//! ([`crate::canvas::input`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use loupe_core::analysis::compare::lanes::{self, LanePlan, DEPTH_H_PX};
use loupe_core::lod::{self, LodItem};
use loupe_core::model::SliceRef;
use loupe_core::view::{fit_label, format_time_at_resolution, ruler_ticks, TimeScale};
use loupe_core::viewport::{DragAxes, Press, Viewport};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::canvas::colour;
use crate::canvas::input::{self, Attached, CanvasInput, CanvasSize, PointerAt, WheelAt};
use crate::canvas::scheduler::Scheduler;
use crate::canvas::theme::{Theme, FONT};
use crate::components::tooltip;
use crate::describe;
use crate::dom;
use crate::state::{ColourBy, TraceData, ViewportBus};

/// B's own time axis above the lanes (B's clock, from B's start).
pub const RULER_H_PX: f64 = 18.0;
/// Hover/click tolerance around a slice.
const SLOP_PX: f64 = 2.0;
/// Slices narrower than this get no label.
const LABEL_MIN_PX: f64 = 28.0;

#[derive(Debug, Clone, Copy)]
struct Drag {
    press: Press,
    /// The shared window and B's scroll when the press began.
    window0: (i64, i64),
    scroll0_px: f64,
}

/// What the last paint drew from (a frame with the same inputs is skipped).
type PaintKey = (u64, i64, usize, usize, Option<SliceRef>, Option<SliceRef>, u64, u64, u64, ColourBy);

pub struct BLanesCtl {
    canvas: HtmlCanvasElement,
    ctx: CanvasRenderingContext2d,
    wrap: HtmlElement,
    /// The label column's inner box (translated by the scroll, like A's track list).
    labels_inner: HtmlElement,
    tooltip: HtmlElement,
    scheduler: Rc<Scheduler>,
    bus: Rc<ViewportBus>,
    /// Re-read from the CSS tokens when the page's theme changes.
    theme: RefCell<Theme>,
    char_w_px: f64,
    a: RefCell<Arc<TraceData>>,
    b: RefCell<Option<Arc<TraceData>>>,
    plan: RefCell<Arc<LanePlan>>,
    /// B time + offset = A time.
    offset_ns: Cell<i64>,
    /// Per B track: highlighted slice indices, ascending (a comparison-table row).
    marked: RefCell<Arc<Vec<Vec<u32>>>>,
    selected: Cell<Option<SliceRef>>,
    hover: Cell<Option<SliceRef>>,
    pointer: Cell<Option<(f64, f64)>>,
    colour_by: Cell<ColourBy>,
    scroll_y_px: Cell<f64>,
    drag: Cell<Option<Drag>>,
    /// CSS size of the canvas and the device pixel ratio.
    size: Cell<(f64, f64, f64)>,
    last: Cell<Option<PaintKey>>,
    on_select: Box<dyn Fn(Option<SliceRef>)>,
    /// The canvas's listeners and size watch (dropped by [`Self::detach`]).
    input: RefCell<Option<Attached>>,
    redraw_id: Cell<Option<u32>>,
}

fn set_prop(o: &js_sys::Object, k: &str, v: JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), &v);
}

impl BLanesCtl {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        canvas: HtmlCanvasElement,
        wrap: HtmlElement,
        labels_inner: HtmlElement,
        tooltip: HtmlElement,
        scheduler: Rc<Scheduler>,
        bus: Rc<ViewportBus>,
        a: Arc<TraceData>,
        on_select: impl Fn(Option<SliceRef>) + 'static,
    ) -> Option<Rc<BLanesCtl>> {
        let ctx = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        ctx.set_font(FONT);
        let char_w_px =
            ctx.measure_text("abcdefghijklmnopqrstuvwxyz").map(|m| m.width() / 26.0).unwrap_or(6.0);
        let ctl = Rc::new(BLanesCtl {
            canvas,
            ctx,
            wrap,
            labels_inner,
            tooltip,
            scheduler,
            bus,
            theme: RefCell::new(Theme::from_css()),
            char_w_px,
            a: RefCell::new(a),
            b: RefCell::new(None),
            plan: RefCell::new(Arc::new(LanePlan::default())),
            offset_ns: Cell::new(0),
            marked: RefCell::new(Arc::new(Vec::new())),
            selected: Cell::new(None),
            hover: Cell::new(None),
            pointer: Cell::new(None),
            colour_by: Cell::new(ColourBy::Auto),
            scroll_y_px: Cell::new(0.0),
            drag: Cell::new(None),
            size: Cell::new((0.0, 0.0, 1.0)),
            last: Cell::new(None),
            on_select: Box::new(on_select),
            input: RefCell::new(None),
            redraw_id: Cell::new(None),
        });
        let weak = Rc::downgrade(&ctl);
        let id = ctl.scheduler.register_late(Rc::new(move || {
            if let Some(c) = weak.upgrade() {
                c.paint();
            }
        }));
        ctl.redraw_id.set(Some(id));
        // wheel anywhere over B's lanes (labels included)
        let attached = input::attach(&ctl, &input::wheel_area(&ctl.wrap), &ctl.wrap);
        *ctl.input.borrow_mut() = Some(attached);
        ctl.resize();
        Some(ctl)
    }

    pub fn detach(&self) {
        if let Some(id) = self.redraw_id.take() {
            self.scheduler.unregister(id);
        }
        self.input.borrow_mut().take();
    }

    fn invalidate(&self) {
        self.last.set(None);
        self.scheduler.request_redraw();
    }

    pub fn set_data(&self, a: Arc<TraceData>, b: Option<Arc<TraceData>>, plan: Arc<LanePlan>) {
        *self.a.borrow_mut() = a;
        *self.b.borrow_mut() = b;
        *self.plan.borrow_mut() = plan;
        self.hover.set(None);
        self.hide_tooltip();
        self.invalidate();
    }
    pub fn set_offset(&self, offset_ns: i64) {
        self.offset_ns.set(offset_ns);
        self.invalidate();
    }
    /// The page's theme changed: re-read the colours and repaint.
    pub fn retheme(&self) {
        *self.theme.borrow_mut() = Theme::from_css();
        self.invalidate();
    }
    pub fn set_colour_by(&self, by: ColourBy) {
        self.colour_by.set(by);
        self.invalidate();
    }
    pub fn set_selected(&self, s: Option<SliceRef>) {
        self.selected.set(s);
        self.invalidate();
    }
    /// Highlight these slices (per track, ascending); scrolls to the first lane that has any
    /// when none of the visible lanes does.
    pub fn set_marked(&self, marked: Arc<Vec<Vec<u32>>>) {
        let has = |t: usize| marked.get(t).is_some_and(|m| !m.is_empty());
        let plan = self.plan.borrow().clone();
        let (_, h, _) = self.size.get();
        let scroll = self.scroll_y_px.get();
        let vis = plan.visible(scroll, scroll + (h - RULER_H_PX).max(0.0));
        if !plan.lanes[vis].iter().any(|l| has(l.track.idx())) {
            if let Some(l) = plan.lanes.iter().find(|l| has(l.track.idx())) {
                self.scroll_y_px.set(l.y_px);
            }
        }
        *self.marked.borrow_mut() = marked;
        self.invalidate();
    }

    /// Scroll B's lanes to `s`'s track and move the shared window so that `s` is visible (its
    /// aligned time on A's clock).
    pub fn reveal(&self, s: SliceRef) {
        let Some(b) = self.b.borrow().clone() else { return };
        let Some(t) = b.trace.tracks.get(s.track.idx()) else { return };
        let i = s.index as usize;
        if i >= t.slices.len() {
            return;
        }
        let off = self.offset_ns.get();
        let mut vp = self.viewport();
        let (start, end) = (t.slices.start_ns[i].saturating_add(off), t.slices.end_ns(i).saturating_add(off));
        let mid = self.plan.borrow().track_mid_y_px(s.track);
        vp.reveal(start, end, mid);
        self.scroll_y_px.set(vp.scroll_y_px);
        self.request_window(&vp);
    }

    /// The shared window at B's width, as a `Viewport` (B's scroll included).
    fn viewport(&self) -> Viewport {
        let (w, h, _) = self.size.get();
        let (t0, t1) = self.bus.target_window();
        let w = w.max(1.0);
        Viewport {
            scale: TimeScale::fit(t0, t1.max(t0 + 1), w),
            scroll_y_px: self.scroll_y_px.get(),
            width_px: w,
            height_px: h,
            ruler_h_px: RULER_H_PX,
        }
    }

    /// Ask the timeline for `vp`'s window (applied and published at its next paint).
    fn request_window(&self, vp: &Viewport) {
        let (t0, t1) = vp.window();
        if (t0, t1) != self.bus.target_window() {
            self.bus.request(t0, t1);
        }
        self.clamp_scroll();
        self.hide_tooltip();
        self.invalidate();
    }

    fn clamp_scroll(&self) {
        let (_, h, _) = self.size.get();
        let max = (self.plan.borrow().total_h_px - (h - RULER_H_PX)).max(0.0);
        self.scroll_y_px.set(self.scroll_y_px.get().clamp(0.0, max));
    }

    fn resize(&self) {
        let size = CanvasSize::of(&self.wrap);
        if (size.w_px, size.h_px, size.dpr) == self.size.get() {
            return;
        }
        self.size.set((size.w_px, size.h_px, size.dpr));
        size.apply(&self.canvas);
        self.clamp_scroll();
        self.invalidate();
    }

    // ---- paint ----

    fn paint(&self) {
        let (w, h, dpr) = self.size.get();
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let Some(b) = self.b.borrow().clone() else { return };
        let plan = self.plan.borrow().clone();
        let marked = self.marked.borrow().clone();
        let key: PaintKey = (
            self.bus.generation.get(),
            self.offset_ns.get(),
            Arc::as_ptr(&plan) as usize,
            Arc::as_ptr(&marked) as usize,
            self.selected.get(),
            self.hover.get(),
            self.scroll_y_px.get().to_bits(),
            w.to_bits(),
            dpr.to_bits(),
            self.colour_by.get(),
        );
        if self.last.get() == Some(key) {
            return;
        }
        self.last.set(Some(key));
        let (t0, t1) = self.bus.window();
        if t1 <= t0 {
            return;
        }
        let c = &self.ctx;
        let th = self.theme.borrow();
        let th = &*th;
        let _ = c.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        c.set_font(FONT);
        c.set_text_baseline("middle");
        c.set_fill_style_str(&th.bg);
        c.fill_rect(0.0, 0.0, w, h);
        let off = self.offset_ns.get();
        // B's window on B's clock
        let scale_a = TimeScale::fit(t0, t1, w);
        let scale = TimeScale { start_ns: t0.saturating_sub(off), ns_per_px: scale_a.ns_per_px };
        let (b0, b1) = (scale.start_ns, scale.end_ns(w));
        let scroll = self.scroll_y_px.get();
        let rows_h = (h - RULER_H_PX).max(0.0);
        let trace = &b.trace;
        let any_marked = marked.iter().any(|m| !m.is_empty());
        let by = self.colour_by.get();
        let mut items = Vec::new();
        let mut drawn = 0usize;
        // the widest painted slice (test hook: where to point at B)
        let mut widest: Option<(f64, f64, f64, SliceRef)> = None;
        let (mut marked_in_view, mut sel_rect, mut hover_rect) = (0usize, None, None);
        c.save();
        c.begin_path();
        c.rect(0.0, RULER_H_PX, w, rows_h);
        c.clip();
        for li in plan.visible(scroll, scroll + rows_h) {
            let lane = &plan.lanes[li];
            let ti = lane.track.idx();
            let Some(tr) = trace.tracks.get(ti) else { continue };
            let top = RULER_H_PX + lane.y_px - scroll;
            if li % 2 == 1 {
                c.set_fill_style_str(&th.row_alt);
                c.fill_rect(0.0, top, w, lane.h_px);
            }
            c.set_fill_style_str(&th.separator);
            c.fill_rect(0.0, top + lane.h_px + lanes::LANE_GAP_PX / 2.0, w, 1.0);
            let m = marked.get(ti).map(Vec::as_slice).unwrap_or(&[]);
            for d in 0..lane.depths {
                let y = RULER_H_PX + lane.depth_y_px(d) - scroll;
                let bh = DEPTH_H_PX - 1.0;
                items.clear();
                lod::query(&tr.slices, &tr.lod, d, b0, b1, scale.ns_per_px, 1.0, &mut items);
                for it in &items {
                    let (s, e, name_idx, merged, hit) = match *it {
                        LodItem::Slice(i) => {
                            let iu = i as usize;
                            (
                                tr.slices.start_ns[iu],
                                tr.slices.end_ns(iu),
                                iu,
                                false,
                                m.binary_search(&i).is_ok(),
                            )
                        }
                        LodItem::Merged { start_ns, end_ns, first, end, longest, .. } => {
                            let k = m.partition_point(|&x| x < first);
                            (start_ns, end_ns, longest as usize, true, k < m.len() && m[k] < end)
                        }
                    };
                    let x0 = scale.x_from_time(s).max(-2.0);
                    let x1 = scale.x_from_time(e).min(w + 2.0);
                    let bw = if x1 - x0 >= 4.0 { x1 - x0 - 1.0 } else { (x1 - x0).max(1.0) };
                    let pal = colour::slice_colour(&b, by, lane.track, name_idx);
                    let (css, dark) = th.palette.get(pal).cloned().unwrap_or(("grey".into(), true));
                    let alpha = if any_marked && !hit {
                        0.18
                    } else if merged {
                        0.65
                    } else {
                        1.0
                    };
                    c.set_global_alpha(alpha);
                    c.set_fill_style_str(&css);
                    c.fill_rect(x0, y, bw, bh);
                    c.set_global_alpha(1.0);
                    drawn += 1;
                    if hit {
                        marked_in_view += 1;
                        c.set_stroke_style_str(&th.marker);
                        c.set_line_width(1.5);
                        c.stroke_rect(x0 + 0.75, y + 0.75, (bw - 1.5).max(0.5), bh - 1.5);
                    }
                    let vx0 = x0.max(0.0);
                    let vx1 = (x0 + bw).min(w);
                    if !merged && vx1 - vx0 >= LABEL_MIN_PX {
                        if let Some(l) =
                            fit_label(trace.str(tr.slices.name[name_idx]), vx1 - vx0 - 6.0, self.char_w_px)
                        {
                            c.set_fill_style_str(if dark { &th.text_dark } else { &th.text_light });
                            let _ = c.fill_text(&l, vx0 + 3.0, y + bh / 2.0 + 0.5);
                        }
                    }
                    if !merged
                        && widest.is_none_or(|(_, _, ww, _)| vx1 - vx0 > ww)
                        && y >= RULER_H_PX
                        && y + bh <= h
                    {
                        let r = SliceRef { track: lane.track, index: name_idx as u32 };
                        widest = Some(((vx0 + vx1) / 2.0, y + bh / 2.0, vx1 - vx0, r));
                    }
                }
            }
        }
        // selected and hovered slices, wherever they are drawn
        let rect_of = |r: SliceRef| -> Option<(f64, f64, f64, f64)> {
            let tr = trace.tracks.get(r.track.idx())?;
            let i = r.index as usize;
            if i >= tr.slices.len() {
                return None;
            }
            let lane = plan.lanes.iter().find(|l| l.track == r.track)?;
            let d = tr.slices.depth_of(i);
            if d >= lane.depths {
                return None;
            }
            let x0 = scale.x_from_time(tr.slices.start_ns[i]).max(-4.0);
            let x1 = scale.x_from_time(tr.slices.end_ns(i)).min(w + 4.0);
            (x1 >= 0.0 && x0 <= w).then_some((
                x0,
                RULER_H_PX + lane.depth_y_px(d) - scroll,
                (x1 - x0).max(1.0),
                DEPTH_H_PX - 1.0,
            ))
        };
        if let Some((x, y, rw, rh)) = self.hover.get().and_then(rect_of) {
            c.set_stroke_style_str(&th.cursor_line);
            c.set_line_width(1.0);
            c.stroke_rect(x - 0.5, y - 0.5, rw + 1.0, rh + 1.0);
            hover_rect = Some((x, y));
        }
        if let Some((x, y, rw, rh)) = self.selected.get().and_then(rect_of) {
            c.set_stroke_style_str(&th.selection);
            c.set_line_width(2.0);
            c.stroke_rect(x - 1.0, y - 1.0, rw + 2.0, rh + 2.0);
            sel_rect = Some((x, y));
        }
        if plan.lanes.is_empty() {
            c.set_fill_style_str(&th.text_dim);
            let _ = c.fill_text("B has no tracks with slices.", 12.0, RULER_H_PX + 14.0);
        }
        // vertical scroll position, when the lanes overflow
        let total = plan.total_h_px;
        if total > rows_h && rows_h > 0.0 {
            let thumb_h = (rows_h * rows_h / total).max(18.0);
            let thumb_y = RULER_H_PX + (rows_h - thumb_h) * (scroll / (total - rows_h)).clamp(0.0, 1.0);
            c.set_fill_style_str(&th.scroll_thumb);
            c.fill_rect(w - 5.0, thumb_y, 3.0, thumb_h);
        }
        c.restore();
        // ruler: B's clock from B's start
        c.set_fill_style_str(&th.ruler_bg);
        c.fill_rect(0.0, 0.0, w, RULER_H_PX);
        c.set_fill_style_str(&th.ruler_text);
        for t in ruler_ticks(&scale, w, trace.start_ns, 90.0) {
            let x = t.x_px.round();
            c.fill_rect(x, RULER_H_PX - 5.0, 1.0, 5.0);
            let _ = c.fill_text(&t.label, x + 3.0, RULER_H_PX / 2.0 - 1.0);
        }
        c.set_fill_style_str(&th.separator);
        c.fill_rect(0.0, RULER_H_PX - 1.0, w, 1.0);
        if let Some((x, _)) = self.pointer.get().filter(|_| self.drag.get().is_none()) {
            c.set_fill_style_str(&th.cursor_line);
            c.fill_rect(x.round(), RULER_H_PX, 1.0, rows_h);
            let label = format!(
                "B {}",
                format_time_at_resolution(scale.time_from_x(x) - trace.start_ns, scale.ns_per_px)
            );
            let lw = c.measure_text(&label).map(|m| m.width()).unwrap_or(60.0);
            let bx = (x - lw / 2.0 - 4.0).clamp(0.0, (w - lw - 8.0).max(0.0));
            c.fill_rect(bx, 1.0, lw + 8.0, RULER_H_PX - 2.0);
            c.set_fill_style_str(&th.text_light);
            let _ = c.fill_text(&label, bx + 4.0, RULER_H_PX / 2.0);
        }
        let _ = self.labels_inner.style().set_property("transform", &format!("translateY({}px)", -scroll));
        // test hooks: window.__loupe.compareB
        if let Some(win) = dom::window() {
            if let Ok(o) = js_sys::Reflect::get(&win, &JsValue::from_str("__loupe")) {
                if let Some(o) = o.dyn_ref::<js_sys::Object>() {
                    let e = js_sys::Object::new();
                    set_prop(&e, "startNs", (t0 as f64).into());
                    set_prop(&e, "endNs", (t1 as f64).into());
                    set_prop(&e, "bStartNs", (b0 as f64).into());
                    set_prop(&e, "nsPerPx", scale.ns_per_px.into());
                    set_prop(&e, "offsetNs", (off as f64).into());
                    set_prop(&e, "scrollY", scroll.into());
                    set_prop(&e, "lanes", (plan.lanes.len() as f64).into());
                    set_prop(&e, "available", (plan.available as f64).into());
                    set_prop(&e, "totalH", plan.total_h_px.into());
                    set_prop(&e, "items", (drawn as f64).into());
                    set_prop(&e, "markedInView", (marked_in_view as f64).into());
                    set_prop(&e, "selected", sel_rect.is_some().into());
                    set_prop(&e, "hovered", hover_rect.is_some().into());
                    if let Some((x, y, _, r)) = widest {
                        let s = js_sys::Object::new();
                        set_prop(&s, "x", x.into());
                        set_prop(&s, "y", y.into());
                        set_prop(&s, "name", describe::slice_name(trace, r).into());
                        set_prop(&e, "slice", s.into());
                    }
                    set_prop(o, "compareB", e.into());
                }
            }
        }
    }

    // ---- input ----

    fn hide_tooltip(&self) {
        tooltip::hide(&self.tooltip);
    }

    /// The B slice under canvas point (x, y).
    fn hit(&self, x: f64, y: f64) -> Option<SliceRef> {
        if y < RULER_H_PX {
            return None;
        }
        let b = self.b.borrow().clone()?;
        let vp = self.viewport();
        let off = self.offset_ns.get();
        let t_b = vp.scale.time_from_x(x).saturating_sub(off);
        let slop = (SLOP_PX * vp.scale.ns_per_px).round() as i64;
        lanes::hit(&b.trace, &self.plan.borrow(), y - RULER_H_PX + self.scroll_y_px.get(), t_b, slop)
    }

    fn update_hover(&self, x: f64, y: f64) {
        self.pointer.set(Some((x, y)));
        let hit = self.hit(x, y);
        let changed = hit != self.hover.get();
        self.hover.set(hit);
        match (hit, self.b.borrow().clone()) {
            (Some(s), Some(b)) => {
                if changed
                    || self.tooltip.style().get_property_value("display").ok().as_deref() == Some("none")
                {
                    self.fill_tooltip(&b, s);
                }
                let (w, h, _) = self.size.get();
                tooltip::show_at(&self.tooltip, x, y, w, h);
            }
            _ => self.hide_tooltip(),
        }
        // the cursor line and the time under the pointer follow it
        self.invalidate();
    }

    fn fill_tooltip(&self, b: &TraceData, s: SliceRef) {
        let tip = &self.tooltip;
        tooltip::fill(tip, b, &Default::default(), &crate::canvas::hit_test::HitTarget::Slice(s), 0);
        let Some(t) = b.trace.tracks.get(s.track.idx()) else { return };
        let i = s.index as usize;
        if i >= t.slices.len() {
            return;
        }
        let a = self.a.borrow();
        let on_a = t.slices.start_ns[i].saturating_add(self.offset_ns.get());
        tooltip::row(tip, "start on A", &describe::time_label(&a.trace, on_a));
        tooltip::row(tip, "profile", "B");
    }
}

/// Hover shows the tooltip; a press that does not move past the threshold is a click (selects);
/// a drag pans the shared window horizontally and B's lanes vertically; the wheel moves the
/// shared window (zoom/pan) or scrolls the lanes.
impl CanvasInput for BLanesCtl {
    fn canvas(&self) -> &HtmlCanvasElement {
        &self.canvas
    }

    fn press(&self, p: PointerAt) {
        self.drag.set(Some(Drag {
            press: Press::new(p.x_px, p.y_px),
            window0: self.bus.target_window(),
            scroll0_px: self.scroll_y_px.get(),
        }));
        self.hide_tooltip();
    }

    fn motion(&self, p: PointerAt) {
        let (x, y) = (p.x_px, p.y_px);
        let Some(mut d) = self.drag.get() else {
            self.update_hover(x, y);
            return;
        };
        let moved = d.press.move_to(x, y, DragAxes::Both);
        self.drag.set(Some(d));
        if !moved {
            return;
        }
        // pan: the shared window by the horizontal move, B's lanes by the vertical one
        let (w, h, _) = self.size.get();
        let (t0, t1) = d.window0;
        let mut vp = Viewport {
            scale: TimeScale::fit(t0, t1.max(t0 + 1), w.max(1.0)),
            scroll_y_px: d.scroll0_px - (y - d.press.y0_px),
            width_px: w.max(1.0),
            height_px: h,
            ruler_h_px: RULER_H_PX,
        };
        vp.drag_pan(vp.scale.start_ns, d.press.x0_px, x);
        self.scroll_y_px.set(vp.scroll_y_px);
        self.pointer.set(Some((x, y)));
        self.hover.set(None);
        self.request_window(&vp);
    }

    fn release(&self, p: PointerAt) {
        let (x, y) = (p.x_px, p.y_px);
        if let Some(d) = self.drag.take() {
            if !d.press.moved {
                let hit = self.hit(x, y);
                self.selected.set(hit);
                (self.on_select)(hit);
            }
        }
        self.update_hover(x, y);
    }

    fn cancel(&self) {
        self.drag.set(None);
        self.invalidate();
    }

    fn leave(&self) {
        if self.drag.get().is_none() {
            self.pointer.set(None);
            self.hover.set(None);
        }
        self.hide_tooltip();
        self.invalidate();
    }

    fn wheel(&self, w: WheelAt) {
        let mut vp = self.viewport();
        vp.wheel(w.mode, w.dx_px, w.dy_px, w.x_px);
        self.scroll_y_px.set(vp.scroll_y_px);
        self.hover.set(None);
        self.request_window(&vp);
    }

    fn resized(&self) {
        self.resize();
    }
}
