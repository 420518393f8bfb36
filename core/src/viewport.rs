//! The timeline's viewport maths as a pure type: which time range and which rows are visible,
//! and how keys, the wheel, drags and "show me this" requests move it. The app's timeline
//! controller owns one and only feeds it input; everything here is tested natively.
//!
//! Coordinates: `x_px` is canvas CSS pixels from the left edge; `scroll_y_px` is the content
//! offset of the rows below the ruler (0 = the first row at the top).

use crate::view::TimeScale;

/// Fraction of the span added on each side when fitting a range.
pub const FIT_PAD: i64 = 50;
/// Fraction of the visible span one A/D key press pans.
pub const KEY_PAN_FRACTION: f64 = 0.15;
/// Zoom factor of one W/S key press.
pub const KEY_ZOOM: f64 = 1.3;
/// Rows scrolled by one ↑/↓ key press.
pub const KEY_SCROLL_PX: f64 = 40.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub scale: TimeScale,
    pub scroll_y_px: f64,
    /// Canvas size in CSS pixels (ruler included in the height).
    pub width_px: f64,
    pub height_px: f64,
    /// Height of the ruler above the rows.
    pub ruler_h_px: f64,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            scale: TimeScale::default(),
            scroll_y_px: 0.0,
            width_px: 0.0,
            height_px: 0.0,
            ruler_h_px: 0.0,
        }
    }
}

/// What the wheel does, by modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WheelMode {
    /// Ctrl/⌘: zoom at the pointer.
    Zoom,
    /// Shift: pan.
    Pan,
    /// Plain: scroll the rows (horizontal deltas pan).
    Scroll,
}

impl WheelMode {
    /// The mode a wheel event asks for by its modifiers: Ctrl/⌘ zooms (before Shift), Shift pans.
    pub fn from_modifiers(ctrl_or_meta: bool, shift: bool) -> WheelMode {
        if ctrl_or_meta {
            WheelMode::Zoom
        } else if shift {
            WheelMode::Pan
        } else {
            WheelMode::Scroll
        }
    }
}

/// CSS pixels per unit of a wheel event's delta, by its `deltaMode` (0 pixels, 1 lines, 2 pages).
pub fn wheel_unit_px(delta_mode: u32) -> f64 {
    match delta_mode {
        1 => 16.0,
        2 => 400.0,
        _ => 1.0,
    }
}

/// Where a hover tooltip of `tip_w_px` × `tip_h_px` goes for a pointer at (`x_px`, `y_px`) in an
/// area of `area_w_px` × `area_h_px` (all CSS px, the area's top-left corner is 0, 0): right of and
/// below the pointer, flipped to its left / above it where it would leave the area, never past the
/// top-left corner. Returns the tooltip's (left, top).
pub fn tooltip_origin(
    (x_px, y_px): (f64, f64),
    (tip_w_px, tip_h_px): (f64, f64),
    (area_w_px, area_h_px): (f64, f64),
) -> (f64, f64) {
    let mut left = x_px + 14.0;
    if left + tip_w_px > area_w_px {
        left = (x_px - tip_w_px - 14.0).max(0.0);
    }
    let mut top = y_px + 16.0;
    if top + tip_h_px > area_h_px {
        top = (y_px - tip_h_px - 10.0).max(0.0);
    }
    (left, top)
}

/// Pixels the pointer must move before a press becomes a drag (less is a click).
pub const DRAG_THRESHOLD_PX: f64 = 4.0;

/// Which moves count towards [`DRAG_THRESHOLD_PX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DragAxes {
    /// Only horizontal moves (a drag that selects a time range).
    X,
    /// Horizontal or vertical moves (a drag that pans in both directions).
    Both,
}

/// A pointer press, until it is released: where it began and whether it has become a drag. Once
/// the pointer went past the threshold the press stays a drag, even if it comes back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Press {
    pub x0_px: f64,
    pub y0_px: f64,
    pub moved: bool,
}

impl Press {
    pub fn new(x0_px: f64, y0_px: f64) -> Press {
        Press { x0_px, y0_px, moved: false }
    }

    /// Whether (x, y) is past the threshold from the press, counting the moves along `axes`.
    pub fn beyond(&self, x_px: f64, y_px: f64, axes: DragAxes) -> bool {
        (x_px - self.x0_px).abs() >= DRAG_THRESHOLD_PX
            || (axes == DragAxes::Both && (y_px - self.y0_px).abs() >= DRAG_THRESHOLD_PX)
    }

    /// The pointer moved to (x, y): returns whether the press is now a drag.
    pub fn move_to(&mut self, x_px: f64, y_px: f64, axes: DragAxes) -> bool {
        self.moved = self.moved || self.beyond(x_px, y_px, axes);
        self.moved
    }
}

impl Viewport {
    /// Height of the rows area.
    pub fn rows_h_px(&self) -> f64 {
        (self.height_px - self.ruler_h_px).max(0.0)
    }

    /// The visible time window `[t0, t1)`.
    pub fn window(&self) -> (i64, i64) {
        (self.scale.start_ns, self.scale.end_ns(self.width_px))
    }

    /// Show `[t0, t1]` with a 2 % margin on each side. No-op before the canvas has a width.
    pub fn fit(&mut self, t0_ns: i64, t1_ns: i64) {
        if self.width_px <= 0.0 {
            return;
        }
        let pad = (t1_ns.saturating_sub(t0_ns) / FIT_PAD).max(1);
        self.scale = TimeScale::fit(t0_ns.saturating_sub(pad), t1_ns.saturating_add(pad), self.width_px);
    }

    /// Show `[t0, t1]` with a small margin (a range asked for by a widget).
    pub fn show_range(&mut self, t0_ns: i64, t1_ns: i64) {
        if self.width_px <= 0.0 {
            return;
        }
        let t1_ns = t1_ns.max(t0_ns.saturating_add(1));
        let pad = (t1_ns.saturating_sub(t0_ns) / 40).max(1);
        self.scale.zoom_to(t0_ns.saturating_sub(pad), t1_ns.saturating_add(pad), self.width_px);
    }

    /// Keep the view on the data and the scroll inside the content.
    pub fn clamp(&mut self, data_t0_ns: i64, data_t1_ns: i64, content_h_px: f64) {
        self.scale.clamp(data_t0_ns, data_t1_ns, self.width_px.max(1.0));
        let max_scroll = (content_h_px - self.rows_h_px()).max(0.0);
        self.scroll_y_px = self.scroll_y_px.clamp(0.0, max_scroll);
    }

    /// A navigation key; `anchor_x_px` is where W/S zoom (the pointer, else the centre).
    /// Returns whether the key moves the view.
    pub fn key(&mut self, key: &str, anchor_x_px: Option<f64>) -> bool {
        let w = self.width_px;
        let anchor = anchor_x_px.unwrap_or(w / 2.0).clamp(0.0, w.max(0.0));
        match key {
            "a" | "A" | "ArrowLeft" => self.scale.pan_px(-w * KEY_PAN_FRACTION),
            "d" | "D" | "ArrowRight" => self.scale.pan_px(w * KEY_PAN_FRACTION),
            "w" | "W" => self.scale.zoom_at(anchor, KEY_ZOOM),
            "s" | "S" => self.scale.zoom_at(anchor, 1.0 / KEY_ZOOM),
            "ArrowUp" => self.scroll_y_px -= KEY_SCROLL_PX,
            "ArrowDown" => self.scroll_y_px += KEY_SCROLL_PX,
            _ => return false,
        }
        true
    }

    /// A wheel event with deltas in pixels at `anchor_x_px`.
    pub fn wheel(&mut self, mode: WheelMode, dx_px: f64, dy_px: f64, anchor_x_px: f64) {
        let anchor =
            if (0.0..=self.width_px).contains(&anchor_x_px) { anchor_x_px } else { self.width_px / 2.0 };
        match mode {
            WheelMode::Zoom => self.scale.zoom_at(anchor, (-dy_px * 0.002).exp()),
            WheelMode::Pan => self.scale.pan_px(if dy_px != 0.0 { dy_px } else { dx_px }),
            WheelMode::Scroll => {
                self.scroll_y_px += dy_px;
                if dx_px != 0.0 {
                    self.scale.pan_px(dx_px);
                }
            }
        }
    }

    /// A drag on the ruler from `x0_px` (when the view started at `start_ns0`) to `x_px`.
    pub fn drag_pan(&mut self, start_ns0: i64, x0_px: f64, x_px: f64) {
        self.scale.start_ns =
            start_ns0.saturating_sub(((x_px - x0_px) * self.scale.ns_per_px).round() as i64);
    }

    /// A drag on the rows from `x0_px` to `x1_px`: zoom to that range.
    pub fn drag_zoom(&mut self, x0_px: f64, x1_px: f64) {
        let a = self.scale.time_from_x(x0_px.min(x1_px));
        let b = self.scale.time_from_x(x0_px.max(x1_px));
        self.scale.zoom_to(a, b.max(a + 1), self.width_px);
    }

    /// Make an event `[start, end)` visible: zoom in when it is far too small to see (so that it
    /// and its neighbourhood fill the view), pan when it is off-screen, keep the zoom otherwise;
    /// scroll so its row (content-y `row_mid_y_px`) is in view.
    pub fn reveal(&mut self, start_ns: i64, end_ns: i64, row_mid_y_px: Option<f64>) {
        let w = self.width_px;
        let (t0, t1) = self.window();
        let dur = end_ns.saturating_sub(start_ns);
        let dur_px = dur as f64 / self.scale.ns_per_px.max(1e-9);
        if w > 0.0 && dur_px < 2.0 && self.scale.span_ns(w) > 100.0 * (dur.max(50) as f64) {
            let span = (dur.max(50).saturating_mul(40)).max(2_000);
            let mid = start_ns.saturating_add(dur / 2);
            self.scale.zoom_to(mid - span / 2, mid + span / 2, w);
        } else if end_ns < t0 || start_ns > t1 {
            let span = self.scale.span_ns(w) as i64;
            self.scale.start_ns = start_ns.saturating_sub(span / 3);
        }
        if let Some(y) = row_mid_y_px {
            let h = self.rows_h_px();
            if y < self.scroll_y_px || y > self.scroll_y_px + h {
                self.scroll_y_px = (y - h / 2.0).max(0.0);
            }
        }
    }

    /// Content-y of a canvas y (rows area).
    pub fn content_y(&self, canvas_y_px: f64) -> f64 {
        canvas_y_px - self.ruler_h_px + self.scroll_y_px
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vp() -> Viewport {
        let mut v = Viewport { width_px: 1000.0, height_px: 430.0, ruler_h_px: 30.0, ..Default::default() };
        v.fit(0, 1_000_000);
        v
    }

    #[test]
    fn tooltip_goes_below_right_and_flips_at_the_edges() {
        let area = (800.0, 400.0);
        assert_eq!(tooltip_origin((100.0, 50.0), (200.0, 80.0), area), (114.0, 66.0));
        // too wide on the right: to the pointer's left
        assert_eq!(tooltip_origin((700.0, 50.0), (200.0, 80.0), area), (486.0, 66.0));
        // too low: above the pointer
        assert_eq!(tooltip_origin((100.0, 350.0), (200.0, 80.0), area), (114.0, 260.0));
        // larger than the area: pinned to the top-left corner, not negative
        assert_eq!(tooltip_origin((10.0, 10.0), (900.0, 500.0), area), (0.0, 0.0));
    }

    #[test]
    fn fit_pads_two_percent() {
        let v = vp();
        let (t0, t1) = v.window();
        assert_eq!(t0, -20_000);
        assert!((t1 - 1_020_000).abs() <= 2, "{t1}");
        let mut no_width = Viewport::default();
        no_width.fit(0, 10);
        assert_eq!(no_width, Viewport::default(), "no width: nothing to fit");
    }

    #[test]
    fn keys_pan_zoom_scroll() {
        let mut v = vp();
        let before = v.scale;
        assert!(v.key("d", None));
        assert!(v.scale.start_ns > before.start_ns);
        assert!(v.key("a", None));
        assert!((v.scale.start_ns - before.start_ns).abs() <= 1);
        assert!(v.key("w", Some(500.0)));
        assert!(v.scale.ns_per_px < before.ns_per_px);
        // zoom keeps the anchor's time
        let t_mid = before.time_from_x(500.0);
        assert!((v.scale.time_from_x(500.0) - t_mid).abs() <= 1);
        assert!(v.key("ArrowDown", None));
        assert_eq!(v.scroll_y_px, KEY_SCROLL_PX);
        assert!(!v.key("q", None));
    }

    #[test]
    fn wheel_modes() {
        let mut v = vp();
        let s = v.scale;
        v.wheel(WheelMode::Zoom, 0.0, -100.0, 250.0);
        assert!(v.scale.ns_per_px < s.ns_per_px);
        assert!((v.scale.time_from_x(250.0) - s.time_from_x(250.0)).abs() <= 1, "zooms at the pointer");
        let s = v.scale;
        v.wheel(WheelMode::Pan, 0.0, 100.0, 0.0);
        assert_eq!(v.scale.ns_per_px, s.ns_per_px);
        assert!(v.scale.start_ns > s.start_ns);
        v.wheel(WheelMode::Scroll, 0.0, 60.0, 0.0);
        assert_eq!(v.scroll_y_px, 60.0);
        // outside the canvas the anchor is the centre
        let s = v.scale;
        v.wheel(WheelMode::Zoom, 0.0, -100.0, -50.0);
        assert!((v.scale.time_from_x(500.0) - s.time_from_x(500.0)).abs() <= 1);
    }

    #[test]
    fn wheel_input_classified() {
        assert_eq!(WheelMode::from_modifiers(true, true), WheelMode::Zoom, "Ctrl/⌘ wins over Shift");
        assert_eq!(WheelMode::from_modifiers(false, true), WheelMode::Pan);
        assert_eq!(WheelMode::from_modifiers(false, false), WheelMode::Scroll);
        assert_eq!(wheel_unit_px(0), 1.0);
        assert_eq!(wheel_unit_px(1), 16.0);
        assert_eq!(wheel_unit_px(2), 400.0);
        assert_eq!(wheel_unit_px(7), 1.0, "an unknown mode counts pixels");
    }

    #[test]
    fn press_becomes_a_drag_past_the_threshold_and_stays_one() {
        let mut p = Press::new(100.0, 50.0);
        assert!(!p.move_to(103.9, 50.0, DragAxes::X), "under the threshold: still a click");
        assert!(!p.move_to(100.0, 90.0, DragAxes::X), "vertical moves do not count for X");
        assert!(p.move_to(100.0, 90.0, DragAxes::Both), "they do for Both");
        assert!(p.move_to(100.0, 50.0, DragAxes::X), "back at the start: still a drag");
        let mut q = Press::new(100.0, 50.0);
        assert!(q.move_to(96.0, 50.0, DragAxes::X), "exactly the threshold, leftwards");
        assert!(Press::new(0.0, 0.0).beyond(0.0, -4.0, DragAxes::Both));
        assert!(!Press::new(0.0, 0.0).beyond(3.0, 3.0, DragAxes::Both));
    }

    #[test]
    fn drags() {
        let mut v = vp();
        let (a, b) = (v.scale.time_from_x(100.0), v.scale.time_from_x(200.0));
        v.drag_zoom(200.0, 100.0);
        let (t0, t1) = v.window();
        assert!((t0 - a).abs() <= 2 && (t1 - b).abs() <= 2, "{t0}..{t1} vs {a}..{b}");
        let s0 = v.scale.start_ns;
        v.drag_pan(s0, 500.0, 400.0);
        assert_eq!(
            v.scale.start_ns,
            s0 + (100.0 * v.scale.ns_per_px).round() as i64,
            "drag left shows later"
        );
    }

    #[test]
    fn clamp_keeps_scroll_in_the_content() {
        let mut v = vp();
        v.scroll_y_px = 10_000.0;
        v.clamp(0, 1_000_000, 1_000.0);
        assert_eq!(v.scroll_y_px, 600.0, "content 1000 px, rows area 400 px");
        v.scroll_y_px = -5.0;
        v.clamp(0, 1_000_000, 1_000.0);
        assert_eq!(v.scroll_y_px, 0.0);
    }

    #[test]
    fn reveal_zooms_into_tiny_events_pans_to_far_ones_and_scrolls() {
        // a 10 ns event in a 1 ms view: too small to see → zoom so it has context
        let mut v = vp();
        v.reveal(500_000, 500_010, None);
        let (t0, t1) = v.window();
        assert!(t0 <= 500_000 && t1 >= 500_010);
        assert!(t1 - t0 <= 2_500, "{t0}..{t1}");
        // a visible-size event off-screen: pan, same zoom
        let mut v = vp();
        v.show_range(0, 100_000);
        let z = v.scale.ns_per_px;
        v.reveal(800_000, 850_000, None);
        assert_eq!(v.scale.ns_per_px, z);
        let (t0, t1) = v.window();
        assert!(t0 <= 800_000 && t1 >= 800_000, "{t0}..{t1}");
        // an event on screen: nothing moves
        let before = v;
        v.reveal(t0 + 1_000, t0 + 20_000, Some(100.0));
        assert_eq!(v, before);
        // a row below the rows area: scroll it to the middle
        v.reveal(t0 + 1_000, t0 + 20_000, Some(2_000.0));
        assert_eq!(v.scroll_y_px, 2_000.0 - 200.0);
    }

    #[test]
    fn epoch_scale_times_do_not_drift() {
        let base = 1_700_000_000_000_000_000i64;
        let mut v = Viewport { width_px: 1000.0, height_px: 400.0, ruler_h_px: 30.0, ..Default::default() };
        v.fit(base, base + 1_000_000);
        let anchor = v.scale.time_from_x(300.0);
        for _ in 0..20 {
            v.key("w", Some(300.0));
        }
        for _ in 0..20 {
            v.key("s", Some(300.0));
        }
        assert!((v.scale.time_from_x(300.0) - anchor).abs() <= 2, "anchor drifted");
    }
}
