//! The timeline's view state, one `RefCell` in the controller: the viewport maths
//! (`loupe_core::viewport`), the device pixel ratio, the pointer, what it hovers, and the drag in
//! progress. Plain data: what changes it is in `navigate.rs` (fit, requests, resize) and
//! `gestures.rs` (gestures).

use loupe_core::view::TimeScale;
use loupe_core::viewport::{Press, Viewport};

use crate::canvas::hit_test::HitTarget;

#[derive(Debug, Clone, Copy)]
pub(super) enum Drag {
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
pub(super) struct View {
    /// The viewport maths (time scale, scroll, size): `loupe_core::viewport`, tested natively.
    pub(super) vp: Viewport,
    pub(super) dpr: f64,
    /// Pointer position over the canvas (CSS px).
    pub(super) pointer: Option<(f64, f64)>,
    pub(super) hover: Option<HitTarget>,
    pub(super) drag: Option<Drag>,
    /// The view has been fitted to the current trace.
    pub(super) fitted: bool,
    /// A range another view asked for exactly (a link, a saved view) and the scale it gave: while
    /// the scale is unchanged (nobody panned or zoomed), a resize shows the same range again
    /// rather than keeping the zoom (a pane added after a link was applied must not change it).
    pub(super) pinned: Option<(i64, i64, TimeScale)>,
}
