//! The timeline's gestures: the shared canvas input layer's pointer and wheel events
//! ([`crate::canvas::input`]) and the timeline's own keys, right-click and double-click.
//! Drag on the ruler pans (or moves a marker grabbed by its flag), drag on the tracks zooms to the
//! dragged range (with Shift: a box selection), a click selects, the wheel zooms, pans or scrolls.

use std::rc::Rc;

use loupe_core::viewport::{DragAxes, Press};
use web_sys::{HtmlCanvasElement, KeyboardEvent, MouseEvent};

use super::ctl::TimelineCtl;
use super::view::Drag;
use crate::canvas::hit_test::HitTarget;
use crate::canvas::input::{self, CanvasInput, PointerAt, WheelAt};
use crate::canvas::layout::RULER_H_PX;
use crate::describe;
use crate::dom;
use crate::state::MarkerEdit;

impl TimelineCtl {
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
                (self.out.on_help)();
                return true;
            }
            "Escape" => {
                drop(v);
                self.marks.selection.set(None);
                (self.out.on_select)(None, false);
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

    pub(super) fn attach(self: &Rc<Self>) {
        let mut attached = input::attach(self, &input::wheel_area(&self.surface.wrap), &self.surface.wrap);
        let weak = Rc::downgrade(self);
        let canvas: &web_sys::EventTarget = self.surface.canvas.as_ref();
        attached.push(input::on(&weak, canvas, "contextmenu", false, |c: &Self, ev: MouseEvent| {
            c.on_context_menu(&ev)
        }));
        attached.push(input::on(&weak, canvas, "dblclick", true, |c: &Self, ev: MouseEvent| {
            let (_, y) = input::canvas_pos(&c.surface.canvas, &ev);
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
        &self.surface.canvas
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
                    if let Some(m) = self.marks.markers.borrow_mut().iter_mut().find(|m| m.id == id) {
                        m.t_ns = t_ns;
                    }
                    (self.out.on_marker)(MarkerEdit::Move { id, t_ns });
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
                *self.marks.box_selection.borrow_mut() = sel.clone();
                (self.out.on_box)(sel);
                self.update_hover(x, y);
                return;
            }
            Some(Drag::Zoom { .. }) => {
                let t_ns = v.vp.scale.time_from_x(x);
                drop(v);
                let hit = self.painted.hits.borrow().find(x, y).copied();
                let sel = hit.and_then(|h| {
                    let sample = match h.target {
                        HitTarget::Counter(c) => describe::counter_sample_at(
                            &self.model.data.borrow().trace,
                            c.idx(),
                            t_ns - self.model.clock.borrow().counter(c.idx()),
                        )
                        .map(|k| k as u32),
                        _ => None,
                    };
                    h.target.selection(sample)
                });
                self.marks.selection.set(sel);
                (self.out.on_select)(sel, p.ctrl_or_meta);
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
        // a new backing store is blank: the size watch runs after this frame's animation
        // callbacks, so paint now rather than show the frame blank and paint in the next one
        if self.resize() {
            self.paint();
        }
    }
}
