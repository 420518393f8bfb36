//! Where the timeline looks: the first fit of a trace, "Zoom to data" and reset, requests from
//! other widgets ([`ViewRequest`]), revealing a slice, the time range reachable on the current
//! clock, and matching the canvas to its size.

use super::ctl::TimelineCtl;
use super::view::View;
use crate::canvas::input::CanvasSize;
use crate::state::{Selection, ViewRequest};

impl TimelineCtl {
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
    pub(super) fn fit(&self, v: &mut View) {
        let narrow = {
            let data = self.model.data.borrow();
            data.indexes.busy.is_some_and(|b| loupe_core::analysis::busy::busy_is_narrow(&data.trace, b))
        };
        if narrow {
            self.fit_busy(v);
        } else {
            self.fit_all(v);
        }
    }

    /// Fit everything.
    pub(super) fn fit_all(&self, v: &mut View) {
        if v.vp.width_px <= 0.0 {
            return;
        }
        let (t0, t1) = self.data_range();
        v.vp.fit(t0, t1);
        v.fitted = true;
    }

    /// Fit the busy range ("Zoom to data").
    pub(super) fn fit_busy(&self, v: &mut View) {
        if v.vp.width_px <= 0.0 {
            return;
        }
        let busy = self.model.data.borrow().indexes.busy;
        match busy {
            Some((a, b)) => {
                v.vp.fit(a, b);
                v.fitted = true;
            }
            None => self.fit_all(v),
        }
    }

    pub(super) fn clamp(&self, v: &mut View) {
        let (t0, t1) = self.data_range();
        v.vp.clamp(t0, t1, self.model.layout.borrow().total_h_px);
    }

    /// The trace's time range on the view's clock: widened by the ranks' alignment offsets, so a
    /// rank drawn later or earlier than recorded can still be reached.
    pub(super) fn data_range(&self) -> (i64, i64) {
        let data = self.model.data.borrow();
        let clock = self.model.clock.borrow();
        let offs = clock.track_ns.iter().chain(&clock.counter_ns);
        let (lo, hi) = offs.fold((0i64, 0i64), |(lo, hi), &o| (lo.min(o), hi.max(o)));
        (data.trace.start_ns.saturating_add(lo), data.trace.end_ns.saturating_add(hi))
    }

    /// Match the canvas backing store to its CSS size × devicePixelRatio; true when it changed
    /// (which clears the canvas).
    pub fn resize(&self) -> bool {
        let size = CanvasSize::of(&self.surface.wrap);
        let (w, h, dpr) = (size.w_px, size.h_px, size.dpr);
        let mut v = self.view.borrow_mut();
        if w == v.vp.width_px && h == v.vp.height_px && dpr == v.dpr {
            return false;
        }
        // keep the time at the left edge and the zoom when the width changes
        v.vp.width_px = w;
        v.vp.height_px = h;
        v.dpr = dpr;
        size.apply(&self.surface.canvas);
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
        true
    }

    pub fn reset_zoom(&self) {
        self.fit_all(&mut self.view.borrow_mut());
        self.request_redraw();
    }

    /// Scroll and pan so that `s` is visible (e.g. after choosing a flow end in the details).
    pub fn reveal(&self, s: Selection) {
        let data = self.model.data.borrow();
        let layout = self.model.layout.borrow();
        let (track, start_ns, end_ns, depth) = match s {
            Selection::Slice(r) => {
                let Some(t) = data.trace.tracks.get(r.track.idx()) else { return };
                let i = r.index as usize;
                if i >= t.slices.len() {
                    return;
                }
                let o = self.model.clock.borrow().track(r.track);
                (r.track, t.slices.start_ns[i] + o, t.slices.end_ns(i) + o, t.slices.depth_of(i))
            }
            _ => return,
        };
        self.view.borrow_mut().vp.reveal(start_ns, end_ns, layout.slice_mid_y_px(track, depth));
        self.request_redraw();
    }
}
