//! The one canvas input layer, shared by the timeline ([`crate::canvas::timeline`]) and Compare's B
//! lanes (`widgets/compare/lanes.rs`): the browser's pointer and wheel events turned into
//! canvas-relative gestures, listeners that hold only a weak reference to their controller, and the
//! size watch ([`CanvasSize`]: the CSS box × devicePixelRatio both views size their canvas to).
//!
//! A controller implements [`CanvasInput`] and [`attach`]es it once; the listeners and the
//! `ResizeObserver` live in the returned [`Attached`] and are removed when it is dropped. The layer
//! does what both views did the same way: left button only, pointer capture for the press,
//! `preventDefault` on the press and the wheel (neither may scroll the page or select text),
//! positions in canvas CSS pixels, the wheel's delta in pixels and its mode by modifier
//! (`loupe_core::viewport::{wheel_unit_px, WheelMode::from_modifiers}`). Whether a press became a
//! drag is the controller's [`Press`](loupe_core::viewport::Press) (pure, tested natively in the
//! core), since what a drag does differs: the timeline zooms, boxes, pans on the ruler or moves a
//! marker; B's lanes pan.

use std::rc::{Rc, Weak};

use loupe_core::viewport::{wheel_unit_px, WheelMode};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{EventTarget, HtmlCanvasElement, HtmlElement, MouseEvent, PointerEvent, WheelEvent};

use crate::dom::{listen, Listener};

/// A canvas's size on the page: its wrapper's CSS box and the device pixel ratio (at least 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CanvasSize {
    pub w_px: f64,
    pub h_px: f64,
    pub dpr: f64,
}

impl CanvasSize {
    /// Measure `wrap`, the element the canvas fills.
    pub fn of(wrap: &HtmlElement) -> Self {
        let dpr = crate::dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
        Self { w_px: f64::from(wrap.client_width()), h_px: f64::from(wrap.client_height()), dpr }
    }

    /// Give `canvas` this CSS size and a backing store of the CSS size × the pixel ratio (so one
    /// canvas pixel is one device pixel).
    pub fn apply(self, canvas: &HtmlCanvasElement) {
        canvas.set_width((self.w_px * self.dpr).round().max(1.0) as u32);
        canvas.set_height((self.h_px * self.dpr).round().max(1.0) as u32);
        let style = canvas.style();
        let _ = style.set_property("width", &format!("{}px", self.w_px));
        let _ = style.set_property("height", &format!("{}px", self.h_px));
    }
}

/// A pointer event at a canvas point (CSS px from the canvas's top-left corner).
#[derive(Debug, Clone, Copy)]
pub struct PointerAt {
    pub x_px: f64,
    pub y_px: f64,
    pub shift: bool,
    /// Ctrl or ⌘ held.
    pub ctrl_or_meta: bool,
}

/// A wheel event, classified: its mode by modifier and its deltas in CSS pixels.
#[derive(Debug, Clone, Copy)]
pub struct WheelAt {
    pub mode: WheelMode,
    pub dx_px: f64,
    pub dy_px: f64,
    /// The pointer's canvas x (the zoom anchor).
    pub x_px: f64,
}

/// What a canvas view does with the gestures of [`attach`].
pub trait CanvasInput: 'static {
    /// The canvas positions are relative to (and that captures the pointer while pressed).
    fn canvas(&self) -> &HtmlCanvasElement;
    /// The left button went down (the pointer is captured).
    fn press(&self, p: PointerAt);
    /// The pointer moved over the canvas (pressed or not).
    fn motion(&self, p: PointerAt);
    /// The left button went up (the capture is released).
    fn release(&self, p: PointerAt);
    /// The browser took the pointer away (`pointercancel`): drop any drag.
    fn cancel(&self);
    /// The pointer left the canvas.
    fn leave(&self);
    fn wheel(&self, w: WheelAt);
    /// The observed element changed size.
    fn resized(&self);
}

/// The listeners and the size watch of one view; dropping it removes them.
pub struct Attached {
    listeners: Vec<Listener>,
    resize: Option<(web_sys::ResizeObserver, Closure<dyn FnMut(JsValue)>)>,
}

impl Attached {
    /// Keep another listener of the same view (removed with the rest).
    pub fn push(&mut self, l: Listener) {
        self.listeners.push(l);
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Some((ro, _cb)) = self.resize.take() {
            ro.disconnect();
        }
    }
}

/// Listen for `name` on `target` with a weak reference to `ctl`: the handler runs only while the
/// controller lives and the event is an `E`.
pub fn on<C: 'static, E: JsCast>(
    ctl: &Weak<C>,
    target: &EventTarget,
    name: &'static str,
    passive: bool,
    f: impl Fn(&C, E) + 'static,
) -> Listener {
    let w = ctl.clone();
    listen(target, name, passive, move |e| {
        if let (Some(c), Ok(ev)) = (w.upgrade(), e.dyn_into::<E>()) {
            f(&c, ev)
        }
    })
}

/// `ev`'s position on `canvas` (CSS px).
pub fn canvas_pos(canvas: &HtmlCanvasElement, ev: &MouseEvent) -> (f64, f64) {
    let r = canvas.get_bounding_client_rect();
    (f64::from(ev.client_x()) - r.left(), f64::from(ev.client_y()) - r.top())
}

fn pointer_at(canvas: &HtmlCanvasElement, ev: &MouseEvent) -> PointerAt {
    let (x_px, y_px) = canvas_pos(canvas, ev);
    PointerAt { x_px, y_px, shift: ev.shift_key(), ctrl_or_meta: ev.ctrl_key() || ev.meta_key() }
}

/// Wire `ctl`'s canvas: pointer down/move/up/cancel/leave on the canvas, the wheel on `wheel_area`
/// (not passive: it prevents the page's scrolling), and `ctl.resized()` when `sized` changes size.
pub fn attach<C: CanvasInput>(ctl: &Rc<C>, wheel_area: &EventTarget, sized: &HtmlElement) -> Attached {
    let weak = Rc::downgrade(ctl);
    let canvas: &EventTarget = ctl.canvas().as_ref();
    let listeners = vec![
        on(&weak, canvas, "pointerdown", false, |c: &C, ev: PointerEvent| {
            if ev.button() != 0 {
                return;
            }
            let p = pointer_at(c.canvas(), &ev);
            let _ = c.canvas().set_pointer_capture(ev.pointer_id());
            c.press(p);
            ev.prevent_default();
        }),
        on(&weak, canvas, "pointermove", true, |c: &C, ev: PointerEvent| {
            c.motion(pointer_at(c.canvas(), &ev))
        }),
        on(&weak, canvas, "pointerup", true, |c: &C, ev: PointerEvent| {
            let p = pointer_at(c.canvas(), &ev);
            let _ = c.canvas().release_pointer_capture(ev.pointer_id());
            c.release(p);
        }),
        on(&weak, canvas, "pointercancel", true, |c: &C, _ev: PointerEvent| c.cancel()),
        on(&weak, canvas, "pointerleave", true, |c: &C, _ev: PointerEvent| c.leave()),
        on(&weak, wheel_area, "wheel", false, |c: &C, ev: WheelEvent| {
            ev.prevent_default();
            let unit = wheel_unit_px(ev.delta_mode());
            let (x_px, _) = canvas_pos(c.canvas(), &ev);
            c.wheel(WheelAt {
                mode: WheelMode::from_modifiers(ev.ctrl_key() || ev.meta_key(), ev.shift_key()),
                dx_px: ev.delta_x() * unit,
                dy_px: ev.delta_y() * unit,
                x_px,
            });
        }),
    ];
    let w = weak.clone();
    let cb = Closure::<dyn FnMut(JsValue)>::new(move |_entries: JsValue| {
        if let Some(c) = w.upgrade() {
            c.resized();
        }
    });
    let resize = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok().map(|ro| {
        ro.observe(sized);
        (ro, cb)
    });
    Attached { listeners, resize }
}

/// The element around a view's canvas that takes its wheel events (the label or track column
/// included): the parent of `wrap`, else `wrap` itself.
pub fn wheel_area(wrap: &HtmlElement) -> EventTarget {
    wrap.parent_element().map(|p| p.into()).unwrap_or_else(|| wrap.clone().into())
}
