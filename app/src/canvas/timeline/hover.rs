//! What the pointer points at: the hover tooltip, the marker flags (grab, snap to a painted edge,
//! drop one on right-click) and the tracks a box selection covers.

use loupe_core::analysis::annotations::snap_to_edge;
use web_sys::{HtmlElement, MouseEvent};

use super::ctl::TimelineCtl;
use super::view::View;
use crate::canvas::hit_test::HitTarget;
use crate::canvas::input;
use crate::canvas::layout::{RowKind, RULER_H_PX};
use crate::components::tooltip;
use crate::state::{BoxSelection, MarkerEdit};

/// Markers snap to an event edge this close to the pointer.
pub const SNAP_PX: f64 = 8.0;
/// A press on the ruler this close to a marker's line grabs the marker.
const GRAB_PX: f64 = 6.0;

impl TimelineCtl {
    /// The marker whose line is within [`GRAB_PX`] of `x_px`, nearest first.
    pub(super) fn marker_at(&self, v: &View, x_px: f64) -> Option<(u32, i64)> {
        self.marks
            .markers
            .borrow()
            .iter()
            .map(|m| ((v.vp.scale.x_from_time(m.t_ns) - x_px).abs(), m))
            .filter(|(d, _)| *d <= GRAB_PX)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, m)| (m.id, m.t_ns))
    }

    /// The time under `x_px`, snapped to the nearest start or end of a painted event within
    /// [`SNAP_PX`] (merged blocks count with their outer edges, instants with their time).
    pub(super) fn snapped_time(&self, v: &View, x_px: f64) -> i64 {
        let t_ns = v.vp.scale.time_from_x(x_px);
        let data = self.model.data.borrow();
        let clock = self.model.clock.borrow();
        let hits = self.painted.hits.borrow();
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

    pub(super) fn hide_tooltip(&self) {
        self.tip.target.set(None);
        tooltip::hide(&self.tip.tooltip);
    }

    pub(super) fn update_hover(&self, x: f64, y: f64) {
        let mut v = self.view.borrow_mut();
        v.pointer = Some((x, y));
        // a marker's flag can be dragged: say so with the cursor
        let on_flag = y < RULER_H_PX + 2.0 && self.marker_at(&v, x).is_some();
        if on_flag != self.tip.grab_cursor.get() {
            self.tip.grab_cursor.set(on_flag);
            let style = HtmlElement::style(&self.surface.canvas);
            let _ = if on_flag {
                style.set_property("cursor", "ew-resize")
            } else {
                style.remove_property("cursor").map(|_| ())
            };
        }
        let hit = if y >= RULER_H_PX && v.drag.is_none() {
            self.painted.hits.borrow().find(x, y).copied()
        } else {
            None
        };
        v.hover = hit.map(|h| h.target);
        let t_ns = v.vp.scale.time_from_x(x);
        let (w, h) = (v.vp.width_px, v.vp.height_px);
        drop(v);
        match hit {
            Some(h_) => {
                // refill only when the target changes (counters: their value depends on the time)
                if self.tip.target.get() != Some(h_.target) || matches!(h_.target, HitTarget::Counter(_)) {
                    tooltip::fill(
                        &self.tip.tooltip,
                        &self.model.data.borrow(),
                        &self.model.clock.borrow(),
                        &h_.target,
                        t_ns,
                    );
                    self.tip.target.set(Some(h_.target));
                }
                tooltip::show_at(&self.tip.tooltip, x, y, w, h);
            }
            None => self.hide_tooltip(),
        }
        self.request_redraw();
    }

    /// Right-click: a marker at the (snapped) pointer time.
    pub(super) fn on_context_menu(&self, ev: &MouseEvent) {
        ev.prevent_default();
        let (x, _) = input::canvas_pos(&self.surface.canvas, ev);
        let v = self.view.borrow();
        if v.drag.is_some() || x < 0.0 || x > v.vp.width_px {
            return;
        }
        let t_ns = self.snapped_time(&v, x);
        drop(v);
        (self.out.on_marker)(MarkerEdit::Add { t_ns });
    }

    /// A box selection over `[t0, t1)` and the tracks whose rows touch content-y `c0..c1`
    /// (`None` when it touches none).
    pub(super) fn boxed_tracks(&self, t0: i64, t1: i64, c0: f64, c1: f64) -> Option<BoxSelection> {
        let layout = self.model.layout.borrow();
        let n = self.model.data.borrow().trace.tracks.len();
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
}
