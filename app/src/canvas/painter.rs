//! Paints one frame of the timeline into a 2D canvas context. Stateless: everything comes in a
//! [`Frame`]; hit regions of what was drawn go out into a [`HitList`].
//!
//! Only visible rows are visited, and slices are drawn exclusively from `loupe_core::lod::query`
//! per visible (track, depth), so the cost depends on pixels, not on the number of events.
//! Labels are drawn only on items at least [`LABEL_MIN_PX`] wide, truncated with "…".
//!
//! Two ways to draw the tracks area's rectangles: with a [`Raster`] (the default) row
//! backgrounds, grid lines, slices and collapsed-group strips go into a pixel buffer blitted once
//! (`canvas/raster.rs`), without one each is a `fillRect`. Everything else (labels, search
//! outlines, instants, counters, selection, hover, flows, markers, ruler) is canvas drawing on
//! top, the same in both modes; so are the hit regions.

use loupe_core::analysis::annotations::Marker;
use loupe_core::lod::{self, LodItem};
use loupe_core::model::{SliceRef, TrackId};
use loupe_core::view::{fit_label, format_time_at_resolution, ruler_ticks, TimeScale};
use web_sys::CanvasRenderingContext2d;

use super::colour;
use super::hit_test::{HitList, HitTarget};
use super::layout::{
    Layout, Row, RowKind, COUNTER_H_PX, INSTANT_LANE_H_PX, ROW_H_PX, RULER_H_PX, TRACK_PAD_PX,
};
use super::raster::Raster;
use super::theme::{Theme, FONT, FONT_BOLD};
use crate::fmt::fmt_value;
use crate::state::{BoxSelection, ColourBy, SearchHits, Selection, TraceData};
use loupe_core::raster::alpha_byte;

/// Slices narrower than this are merged with close neighbours into one block.
pub const MERGE_PX: f64 = 1.5;
/// Items narrower than this get no label.
pub const LABEL_MIN_PX: f64 = 30.0;
/// Minimum spacing of ruler ticks.
pub const TICK_SPACING_PX: f64 = 96.0;

pub struct Frame<'a> {
    pub data: &'a TraceData,
    pub layout: &'a Layout,
    pub theme: &'a Theme,
    pub scale: TimeScale,
    pub scroll_y_px: f64,
    pub width_px: f64,
    pub height_px: f64,
    pub dpr: f64,
    /// Average label character width for [`FONT`].
    pub char_w_px: f64,
    pub selection: Option<Selection>,
    pub hover: Option<HitTarget>,
    pub hover_x_px: Option<f64>,
    /// Drag-to-zoom range being selected (x0, x1).
    pub drag_zoom_px: Option<(f64, f64)>,
    /// Box selection being dragged (x0, y0, x1, y1 in canvas px).
    pub box_drag_px: Option<(f64, f64, f64, f64)>,
    /// The committed box selection.
    pub box_selection: Option<&'a BoxSelection>,
    pub colour_by: ColourBy,
    /// The current search, when it has a query: hits are outlined, the rest dimmed.
    pub search: Option<&'a SearchHits>,
    /// Annotation markers: a line across the tracks and a labelled flag on the ruler.
    pub markers: &'a [Marker],
    /// The marker being dragged (drawn bolder).
    pub active_marker: Option<u32>,
    /// Per track / per counter: the clock offset (ns) added to its recorded times when drawn —
    /// the ranks' alignment (`loupe_core::analysis::ranks`); empty or 0 = as recorded.
    pub track_offset: &'a [i64],
    pub counter_offset: &'a [i64],
    /// The iterations the ruler's bands and the grid's lines show: the model's, or under a clock
    /// alignment the reference rank's on its aligned clock (`crate::clock::ClockShift::iterations`).
    pub iterations: &'a [loupe_core::model::Iteration],
}

impl Frame<'_> {
    /// The clock offset of a track (0 when none).
    pub fn track_offset(&self, t: TrackId) -> i64 {
        self.track_offset.get(t.idx()).copied().unwrap_or(0)
    }
    /// The time scale of a track's own (recorded) times: x of `t` = x of `t + offset` in the view.
    pub fn track_scale(&self, t: TrackId) -> TimeScale {
        shifted(self.scale, self.track_offset(t))
    }
}

/// `scale` for times that are drawn `offset_ns` later than recorded.
pub fn shifted(scale: TimeScale, offset_ns: i64) -> TimeScale {
    TimeScale { start_ns: scale.start_ns.saturating_sub(offset_ns), ..scale }
}

/// What a paint did, for `window.__loupe` and benchmarks.
#[derive(Debug, Default, Clone, Copy)]
pub struct PaintStats {
    pub items: usize,
    pub rows: usize,
    /// Dependency arrows drawn (the critical path's edges in view).
    pub edges: usize,
}

struct Ctx<'a> {
    c: &'a CanvasRenderingContext2d,
    fill: Option<usize>,
    /// The pixel buffer of the tracks area, when rectangles go there.
    raster: Option<&'a mut Raster>,
    /// Text and outlines over slices, drawn after all rectangles.
    overlays: Vec<Overlay>,
}

/// Canvas drawing over the slices, queued while the rectangles are drawn.
enum Overlay {
    /// A label: text, x, y, dark text.
    Label(String, f64, f64, bool),
    /// A search hit's outline: x, y, w, h.
    Outline(f64, f64, f64, f64),
}

impl Ctx<'_> {
    fn fill_palette(&mut self, theme: &Theme, k: usize) {
        if self.fill != Some(k) {
            self.c.set_fill_style_str(&theme.palette[k].0);
            self.fill = Some(k);
        }
    }
    fn fill_css(&mut self, css: &str) {
        self.c.set_fill_style_str(css);
        self.fill = None;
    }
}

/// Content-y → screen-y.
fn screen_y(f: &Frame, content_y_px: f64) -> f64 {
    RULER_H_PX + content_y_px - f.scroll_y_px
}

/// Clamp a horizontal extent to the canvas (very large coordinates lose precision in canvas).
fn clamp_x(x0: f64, x1: f64, w: f64) -> (f64, f64) {
    let x0 = x0.max(-2.0);
    let x1 = x1.min(w + 2.0);
    if x1 - x0 < 1.0 {
        (x0, x0 + 1.0)
    } else {
        (x0, x1)
    }
}

/// Paint a frame; with `raster`, the tracks area's rectangles go through its pixel buffer.
pub fn paint(
    c: &CanvasRenderingContext2d,
    f: &Frame,
    hits: &mut HitList,
    items: &mut Vec<LodItem>,
    raster: Option<&mut Raster>,
) -> PaintStats {
    let mut stats = PaintStats::default();
    hits.clear();
    let (w, h) = (f.width_px, f.height_px);
    let _ = c.set_transform(f.dpr, 0.0, 0.0, f.dpr, 0.0, 0.0);
    let mut cx = Ctx { c, fill: None, raster, overlays: Vec::new() };
    cx.fill_css(&f.theme.bg);
    c.fill_rect(0.0, 0.0, w, h);
    let trace = &f.data.trace;
    let t0_ns = f.scale.start_ns;
    let t1_ns = f.scale.end_ns(w);
    let ticks = ruler_ticks(&f.scale, w, trace.start_ns, TICK_SPACING_PX);

    // ---- tracks area ----
    c.save();
    c.begin_path();
    c.rect(0.0, RULER_H_PX, w, (h - RULER_H_PX).max(0.0));
    c.clip();
    let rows = f.layout.visible_rows(f.scroll_y_px, f.scroll_y_px + h - RULER_H_PX);
    stats.rows = rows.len();
    if let Some(r) = cx.raster.as_deref_mut() {
        r.begin(w, RULER_H_PX, (h - RULER_H_PX).max(0.0), f.dpr);
    }
    // backgrounds
    for (k, row) in f.layout.rows[rows.clone()].iter().enumerate() {
        let y = screen_y(f, row.y_px);
        let bg = match row.kind {
            RowKind::Group(_) => Some(&f.theme.group_bg),
            RowKind::Section(..) => Some(&f.theme.row_alt),
            _ if (rows.start + k) % 2 == 1 => Some(&f.theme.row_alt),
            _ => None,
        };
        if let Some(r) = cx.raster.as_deref_mut() {
            let (group_bg, row_alt) = (r.colours.group_bg, r.colours.row_alt);
            if let Some(bg) = bg {
                let rgba = if std::ptr::eq(bg, &f.theme.group_bg) { group_bg } else { row_alt };
                r.rect(0.0, y, w, y + row.h_px, rgba, 255);
            }
            // (separators are drawn after the bands: a band is copied down line by line)
        } else {
            if let Some(bg) = bg {
                cx.fill_css(bg);
                c.fill_rect(0.0, y, w, row.h_px);
            }
            cx.fill_css(&f.theme.separator);
            c.fill_rect(0.0, y + row.h_px - 1.0, w, 1.0);
        }
    }
    // grid lines and iteration boundaries (not when the iterations in view are packed closer
    // than a few pixels: the lines would wash the rows grey; the ruler's bands still show them)
    let iteration_lines = if iterations_packed(f.iterations, t0_ns, t1_ns, w) { &[] } else { f.iterations };
    let lines = ticks.iter().map(|t| t.x_px.round()).chain(
        visible_iterations(iteration_lines, t0_ns, t1_ns).map(|it| f.scale.x_from_time(it.start_ns).round()),
    );
    if let Some(r) = cx.raster.as_deref_mut() {
        let grid = r.colours.grid;
        for x in lines {
            r.rect(x, RULER_H_PX, x + 1.0, h, grid, 255);
        }
    } else {
        cx.fill_css(&f.theme.grid);
        for x in lines {
            c.fill_rect(x, RULER_H_PX, 1.0, h - RULER_H_PX);
        }
    }
    c.set_font(FONT);
    c.set_text_baseline("middle");
    // rectangles first (into the pixel buffer, when there is one) …
    for row in &f.layout.rows[rows.clone()] {
        match row.kind {
            RowKind::Track(tid) => {
                stats.items += paint_track(&mut cx, f, row, tid, t0_ns, t1_ns, hits, items)
            }
            RowKind::Group(_) | RowKind::Section(..) if row.collapsed => {
                paint_group_summary(&mut cx, f, row, t0_ns, t1_ns, items)
            }
            RowKind::Counter(_) | RowKind::Group(_) | RowKind::Section(..) => {}
        }
    }
    if let Some(r) = cx.raster.as_deref_mut() {
        let sep = r.colours.separator;
        for row in &f.layout.rows[rows.clone()] {
            let y = screen_y(f, row.y_px);
            r.rect(0.0, y + row.h_px - 1.0, w, y + row.h_px, sep, 255);
        }
        if let Err(e) = r.blit(c) {
            web_sys::console::error_2(&"loupe: could not blit the timeline".into(), &e);
        }
    }
    // … then canvas drawing on top: instants, counters, labels, search outlines
    for row in &f.layout.rows[rows] {
        match row.kind {
            RowKind::Track(tid) if row.has_instants => {
                stats.items += paint_instants(&mut cx, f, row, tid, hits)
            }
            RowKind::Counter(cid) => paint_counter(&mut cx, f, row, cid.idx(), t0_ns, t1_ns, hits),
            _ => {}
        }
    }
    paint_overlays(&mut cx, f);
    stats.edges = paint_edges(&mut cx, f);
    if f.layout.rows.is_empty() {
        cx.fill_css(&f.theme.text_dim);
        c.set_font(FONT_BOLD);
        let msg = if f.data.trace.program.is_some() {
            "This file holds a compiled program but no timeline events"
        } else {
            "No timeline events in this file"
        };
        let _ = c.fill_text(msg, 16.0, RULER_H_PX + 24.0);
        c.set_font(FONT);
    }
    paint_box(&mut cx, f);
    paint_selection(&mut cx, f);
    if let Some(hv) = f.hover {
        paint_hover(&mut cx, f, hv);
    }
    if let Some(Selection::Slice(s)) = f.selection {
        paint_flows(&mut cx, f, s);
    }
    if let Some(x) = f.hover_x_px {
        cx.fill_css(&f.theme.cursor_line);
        c.fill_rect(x.round(), RULER_H_PX, 1.0, h - RULER_H_PX);
    }
    if let Some((a, b)) = f.drag_zoom_px {
        let (x0, x1) = (a.min(b), a.max(b));
        cx.fill_css(&f.theme.drag_fill);
        c.fill_rect(x0, RULER_H_PX, x1 - x0, h - RULER_H_PX);
        cx.fill_css(&f.theme.drag_line);
        c.fill_rect(x0.round(), RULER_H_PX, 1.0, h - RULER_H_PX);
        c.fill_rect(x1.round(), RULER_H_PX, 1.0, h - RULER_H_PX);
        let dur = f.scale.time_from_x(x1) - f.scale.time_from_x(x0);
        let label = loupe_core::time::format_duration_ns(dur);
        c.set_font(FONT_BOLD);
        let lw = c.measure_text(&label).map(|m| m.width()).unwrap_or(40.0);
        cx.fill_css(&f.theme.drag_line);
        c.fill_rect((x0 + x1) / 2.0 - lw / 2.0 - 4.0, RULER_H_PX + 4.0, lw + 8.0, 16.0);
        cx.fill_css(&f.theme.text_light);
        let _ = c.fill_text(&label, (x0 + x1) / 2.0 - lw / 2.0, RULER_H_PX + 12.5);
        c.set_font(FONT);
    }
    paint_marker_lines(&mut cx, f);
    // vertical scroll position, when the tracks overflow
    let view_h = h - RULER_H_PX;
    let total_h = f.layout.total_h_px;
    if total_h > view_h && view_h > 0.0 {
        let thumb_h = (view_h * view_h / total_h).max(24.0);
        let thumb_y = RULER_H_PX + (view_h - thumb_h) * (f.scroll_y_px / (total_h - view_h)).clamp(0.0, 1.0);
        cx.fill_css(&f.theme.scroll_thumb);
        c.fill_rect(w - 5.0, thumb_y, 3.0, thumb_h);
    }
    c.restore();

    // ---- ruler ----
    paint_ruler(&mut cx, f, &ticks, t0_ns, t1_ns);
    paint_marker_flags(&mut cx, f);
    stats
}

/// Screen x of each marker inside the canvas (with a margin for the flag).
fn visible_markers<'a>(f: &'a Frame) -> impl Iterator<Item = (f64, &'a Marker)> + 'a {
    f.markers
        .iter()
        .map(move |m| (f.scale.x_from_time(m.t_ns).round(), m))
        .filter(move |(x, _)| *x >= -1.0 && *x <= f.width_px + 1.0)
}

fn paint_marker_lines(cx: &mut Ctx, f: &Frame) {
    cx.fill_css(&f.theme.marker);
    for (x, m) in visible_markers(f) {
        let w = if f.active_marker == Some(m.id) { 2.0 } else { 1.0 };
        cx.c.fill_rect(x, RULER_H_PX, w, f.height_px - RULER_H_PX);
    }
}

/// Height of a marker's flag on the ruler.
pub const FLAG_H_PX: f64 = 14.0;

fn paint_marker_flags(cx: &mut Ctx, f: &Frame) {
    let c = cx.c;
    c.set_font(FONT_BOLD);
    c.set_text_baseline("middle");
    for (x, m) in visible_markers(f) {
        let label = fit_label(&m.name, 120.0, f.char_w_px).unwrap_or_default();
        let lw = c.measure_text(&label).map(|t| t.width()).unwrap_or(20.0).max(6.0);
        let y = RULER_H_PX - FLAG_H_PX - 1.0;
        // the flag hangs right of the line, or left of it at the canvas's right edge
        let fx = if x + lw + 8.0 > f.width_px { x - lw - 8.0 + 1.0 } else { x };
        cx.fill_css(&f.theme.marker);
        c.fill_rect(x, 0.0, if f.active_marker == Some(m.id) { 2.0 } else { 1.0 }, RULER_H_PX);
        c.fill_rect(fx, y, lw + 8.0, FLAG_H_PX);
        cx.fill_css(&f.theme.marker_text);
        let _ = c.fill_text(&label, fx + 4.0, y + FLAG_H_PX / 2.0 + 0.5);
    }
    c.set_font(FONT);
}

/// Instants: a lane above depth 0, thinned to one marker per 2 px (canvas paths).
fn paint_instants(cx: &mut Ctx, f: &Frame, row: &Row, tid: TrackId, hits: &mut HitList) -> usize {
    let c = cx.c;
    let track = f.data.trace.track(tid);
    let w = f.width_px;
    let sc = f.track_scale(tid);
    let mut drawn = 0;
    {
        let y = screen_y(f, row.y_px + TRACK_PAD_PX);
        let inst = &track.instants;
        let r = inst.range(sc.time_from_x(-5.0), sc.time_from_x(w + 5.0));
        let mut i = r.start;
        while i < r.end {
            let x = sc.x_from_time(inst.ts_ns[i]);
            cx.fill_palette(f.theme, f.data.indexes.color_index(inst.name[i]));
            c.begin_path();
            c.move_to(x, y + 1.0);
            c.line_to(x + 4.0, y + INSTANT_LANE_H_PX / 2.0);
            c.line_to(x, y + INSTANT_LANE_H_PX - 1.0);
            c.line_to(x - 4.0, y + INSTANT_LANE_H_PX / 2.0);
            c.close_path();
            c.fill();
            hits.push(
                x - 4.0,
                x + 4.0,
                y,
                y + INSTANT_LANE_H_PX,
                HitTarget::Instant { track: tid, index: i as u32 },
            );
            drawn += 1;
            // skip everything within the next 2 px
            let next_t = sc.time_from_x(x + 2.0);
            let skip = inst.ts_ns[i + 1..r.end].partition_point(|&t| t < next_t);
            i += 1 + skip;
        }
    }
    drawn
}

#[allow(clippy::too_many_arguments)]
fn paint_track(
    cx: &mut Ctx,
    f: &Frame,
    row: &Row,
    tid: TrackId,
    t0_ns: i64,
    t1_ns: i64,
    hits: &mut HitList,
    items: &mut Vec<LodItem>,
) -> usize {
    let trace = &f.data.trace;
    let track = trace.track(tid);
    let cols = &track.slices;
    let w = f.width_px;
    // the track's own clock: the view's window moved back by the rank's alignment offset
    let sc = f.track_scale(tid);
    let (t0_ns, t1_ns) =
        (t0_ns.saturating_sub(f.track_offset(tid)), t1_ns.saturating_sub(f.track_offset(tid)));
    let mut drawn = 0;
    for depth in 0..row.depth_count {
        let y = screen_y(f, row.slices_y_px() + depth as f64 * ROW_H_PX);
        if y + ROW_H_PX < RULER_H_PX || y > f.height_px {
            continue;
        }
        items.clear();
        lod::query(
            cols,
            &track.lod,
            depth,
            t0_ns,
            t1_ns.saturating_add(1),
            f.scale.ns_per_px,
            MERGE_PX,
            items,
        );
        let bh = ROW_H_PX - 1.0;
        for it in items.iter() {
            let (start_ns, end_ns, name_idx, target, merged_n) = match *it {
                LodItem::Slice(i) => {
                    let i = i as usize;
                    (
                        cols.start_ns[i],
                        cols.end_ns(i),
                        i,
                        HitTarget::Slice(SliceRef { track: tid, index: i as u32 }),
                        0,
                    )
                }
                LodItem::Merged { first, end, start_ns, end_ns, longest } => (
                    start_ns,
                    end_ns,
                    longest as usize,
                    HitTarget::Merged {
                        track: tid,
                        depth: depth as u32,
                        first,
                        end,
                        start_ns,
                        end_ns,
                        longest,
                    },
                    (end - first) as usize,
                ),
            };
            let (x0, x1) = clamp_x(sc.x_from_time(start_ns), sc.x_from_time(end_ns), w);
            let bw = if x1 - x0 >= 4.0 { x1 - x0 - 1.0 } else { x1 - x0 };
            let color = colour::slice_colour(f.data, f.colour_by, tid, name_idx);
            // a search dims what it did not find and outlines what it found
            let hit = f.search.map(|s| match *it {
                LodItem::Slice(i) => s.is_hit(tid, i),
                LodItem::Merged { first, end, .. } => s.any_in(tid, first, end),
            });
            let alpha = match (hit, merged_n > 0) {
                (Some(false), _) => 0.18,
                (_, true) => 0.65,
                _ => 1.0,
            };
            if let Some(r) = cx.raster.as_deref_mut() {
                let rgba = r.colours.palette.get(color).copied().unwrap_or([128, 128, 128, 255]);
                r.span(x0, x0 + bw, rgba, alpha_byte(alpha));
            } else {
                cx.fill_palette(f.theme, color);
                let c = cx.c;
                if alpha < 1.0 {
                    c.set_global_alpha(alpha);
                    c.fill_rect(x0, y, bw, bh);
                    c.set_global_alpha(1.0);
                } else {
                    c.fill_rect(x0, y, bw, bh);
                }
            }
            if hit == Some(true) {
                cx.overlays.push(Overlay::Outline(x0 + 0.75, y + 0.75, (bw - 1.5).max(0.5), bh - 1.5));
            }
            hits.push(x0, x0 + bw.max(1.0), y, y + ROW_H_PX, target);
            drawn += 1;
            // label, kept inside the visible part of the box
            let vx0 = x0.max(0.0);
            let vx1 = (x0 + bw).min(w);
            if vx1 - vx0 >= LABEL_MIN_PX {
                let room = vx1 - vx0 - 6.0;
                let text: std::borrow::Cow<str> = if merged_n == 0 {
                    trace.str(cols.name[name_idx]).into()
                } else if (format!("{merged_n} slices").len() as f64) * f.char_w_px <= room {
                    format!("{merged_n} slices").into()
                } else {
                    format!("{merged_n}").into()
                };
                if let Some(label) = fit_label(&text, room, f.char_w_px) {
                    let dark = f.theme.palette[color].1 && merged_n == 0;
                    cx.overlays.push(Overlay::Label(label.into_owned(), vx0 + 3.0, y + bh / 2.0 + 0.5, dark));
                }
            }
        }
        if let Some(r) = cx.raster.as_deref_mut() {
            r.flush_band(y, y + bh);
        }
    }
    drawn
}

/// Labels and search outlines queued by [`paint_track`], over all rectangles.
fn paint_overlays(cx: &mut Ctx, f: &Frame) {
    let overlays = std::mem::take(&mut cx.overlays);
    let c = cx.c;
    let mut stroke_set = false;
    let mut dark_now = None;
    for o in &overlays {
        match o {
            Overlay::Outline(x, y, w, h) => {
                if !stroke_set {
                    c.set_stroke_style_str(&f.theme.flow);
                    c.set_line_width(1.5);
                    stroke_set = true;
                }
                c.stroke_rect(*x, *y, *w, *h);
            }
            Overlay::Label(..) => {}
        }
    }
    for o in &overlays {
        if let Overlay::Label(text, x, y, dark) = o {
            if dark_now != Some(*dark) {
                cx.fill_css(if *dark { &f.theme.text_dark } else { &f.theme.text_light });
                dark_now = Some(*dark);
            }
            let _ = c.fill_text(text, *x, *y);
        }
    }
}

/// A collapsed group: the depth-0 activity of all its tracks, merged, as one faint strip.
fn paint_group_summary(cx: &mut Ctx, f: &Frame, row: &Row, t0_ns: i64, t1_ns: i64, items: &mut Vec<LodItem>) {
    let c = cx.c;
    let trace = &f.data.trace;
    let y = screen_y(f, row.y_px) + 5.0;
    let h = row.h_px - 10.0;
    if cx.raster.is_none() {
        c.set_global_alpha(0.45);
    }
    for &tid in &row.folded_tracks {
        let track = trace.track(tid);
        if track.slices.depth_count() == 0 {
            continue;
        }
        let sc = f.track_scale(tid);
        let off = f.track_offset(tid);
        items.clear();
        lod::query(
            &track.slices,
            &track.lod,
            0,
            t0_ns.saturating_sub(off),
            t1_ns.saturating_sub(off).saturating_add(1),
            f.scale.ns_per_px,
            MERGE_PX,
            items,
        );
        for it in items.iter() {
            let (s, e, name_idx) = match *it {
                LodItem::Slice(i) => {
                    (track.slices.start_ns[i as usize], track.slices.end_ns(i as usize), i as usize)
                }
                LodItem::Merged { start_ns, end_ns, longest, .. } => (start_ns, end_ns, longest as usize),
            };
            let (x0, x1) = clamp_x(sc.x_from_time(s), sc.x_from_time(e), f.width_px);
            let color = colour::slice_colour(f.data, f.colour_by, tid, name_idx);
            if let Some(r) = cx.raster.as_deref_mut() {
                let rgba = r.colours.palette.get(color).copied().unwrap_or([128, 128, 128, 255]);
                r.span(x0, x1, rgba, alpha_byte(0.45));
            } else {
                cx.fill_palette(f.theme, color);
                c.fill_rect(x0, y, x1 - x0, h);
            }
        }
    }
    match cx.raster.as_deref_mut() {
        Some(r) => r.flush_band(y, y + h),
        None => c.set_global_alpha(1.0),
    }
}

/// Above this many step-chart points a counter row is drawn as rectangles instead of a path.
const DENSE_COUNTER_POINTS: usize = 512;

fn paint_counter(cx: &mut Ctx, f: &Frame, row: &Row, ci: usize, t0_ns: i64, t1_ns: i64, hits: &mut HitList) {
    let c = cx.c;
    let trace = &f.data.trace;
    let ctr = &trace.counters[ci];
    let w = f.width_px;
    let off = f.counter_offset.get(ci).copied().unwrap_or(0);
    let sc = shifted(f.scale, off);
    let (t0_ns, t1_ns) = (t0_ns.saturating_sub(off), t1_ns.saturating_sub(off));
    let y_top = screen_y(f, row.y_px) + 6.0;
    let y_bottom = screen_y(f, row.y_px) + COUNTER_H_PX - 3.0;
    hits.push(
        0.0,
        w,
        screen_y(f, row.y_px),
        screen_y(f, row.y_px) + row.h_px,
        HitTarget::Counter(loupe_core::model::CounterId(ci as u32)),
    );
    let lod = f.data.indexes.counter_lods.get(ci);
    let (lo, hi) = lod.map_or_else(|| ctr.min_max(), |l| (l.lo, l.hi));
    let base = lo.min(0.0);
    let span = (hi - base).max(f64::MIN_POSITIVE);
    let y_of =
        |v: f64| if v.is_finite() { y_bottom - (v - base) / span * (y_bottom - y_top) } else { y_bottom };
    let r = ctr.range(t0_ns, t1_ns.saturating_add(1));
    if !r.is_empty() {
        // step chart, reduced to one point per pixel column (the column's maximum, then its
        // last value); with many samples per column, by binary search and block maxima
        let x_of = |t: i64| sc.x_from_time(t).clamp(-1.0, w + 1.0);
        let pts = match lod {
            Some(l) if r.len() > 4 * w as usize => {
                loupe_core::counter_lod::step_points(&ctr.ts_ns, &ctr.value, r, x_of, l)
            }
            _ => loupe_core::counter_lod::step_points_linear(&ctr.ts_ns, &ctr.value, r, x_of),
        };
        let end_x = sc.x_from_time(ctr.ts_ns.last().copied().unwrap_or(t1_ns)).min(w + 1.0);
        let trace_path = |close: bool| {
            c.begin_path();
            let (x_first, _) = pts[0];
            if close {
                c.move_to(x_first, y_bottom);
            }
            let mut prev_y: Option<f64> = None;
            for &(x, v) in &pts {
                let y = y_of(v);
                match prev_y {
                    Some(py) => {
                        c.line_to(x, py);
                        c.line_to(x, y);
                    }
                    None if close => c.line_to(x, y),
                    None => c.move_to(x, y),
                }
                prev_y = Some(y);
            }
            if let Some(py) = prev_y {
                c.line_to(end_x, py);
            }
            if close {
                c.line_to(end_x, y_bottom);
                c.close_path();
            }
        };
        if pts.len() <= DENSE_COUNTER_POINTS {
            cx.fill_css(&f.theme.counter_fill);
            trace_path(true);
            c.fill();
            c.set_stroke_style_str(&f.theme.counter_line);
            c.set_line_width(1.0);
            trace_path(false);
            c.stroke();
        } else {
            // a step every pixel or two (an activity counter toggling within each column): as
            // a path, the software rasteriser spent ~15 ms a frame on its thousands of edges;
            // axis-aligned rectangles draw the same shape for a fraction of that
            let next_x = |k: usize| pts.get(k + 1).map_or(end_x, |p| p.0);
            cx.fill_css(&f.theme.counter_fill);
            for (k, &(x, v)) in pts.iter().enumerate() {
                let y = y_of(v);
                let x2 = next_x(k);
                if x2 > x && y < y_bottom {
                    c.fill_rect(x, y, x2 - x, y_bottom - y);
                }
            }
            cx.fill_css(&f.theme.counter_line);
            let mut prev_y: Option<f64> = None;
            for (k, &(x, v)) in pts.iter().enumerate() {
                let y = y_of(v);
                if let Some(py) = prev_y.filter(|&py| py != y) {
                    c.fill_rect(x - 0.5, py.min(y) - 0.5, 1.0, (py - y).abs() + 1.0);
                }
                let x2 = next_x(k);
                if x2 > x {
                    c.fill_rect(x, y - 0.5, x2 - x, 1.0);
                }
                prev_y = Some(y);
            }
        }
    }
    // scale label
    let unit = trace.str(ctr.unit);
    let label = format!("max {} {}", fmt_value(hi), unit);
    let label = label.trim_end();
    let lw = c.measure_text(label).map(|m| m.width()).unwrap_or(60.0);
    cx.fill_css(&f.theme.label_bg);
    c.fill_rect(2.0, y_top - 5.0, lw + 6.0, 14.0);
    cx.fill_css(&f.theme.text_dim);
    let _ = c.fill_text(label, 5.0, y_top + 2.0);
}

/// Screen rectangle of a slice from the model (independent of LOD), or `None` if its track row
/// is not shown.
fn slice_rect(f: &Frame, s: SliceRef) -> Option<(f64, f64, f64, f64)> {
    let track = f.data.trace.tracks.get(s.track.idx())?;
    let i = s.index as usize;
    if i >= track.slices.len() {
        return None;
    }
    let depth = track.slices.depth_of(i);
    let row = f.layout.rows.get(*f.layout.track_row.get(s.track.idx())?)?;
    if !matches!(row.kind, RowKind::Track(_)) {
        return None;
    }
    let y = screen_y(f, row.slices_y_px() + depth as f64 * ROW_H_PX);
    let (x0, x1) = clamp_x(
        f.track_scale(s.track).x_from_time(track.slices.start_ns[i]),
        f.track_scale(s.track).x_from_time(track.slices.end_ns(i)),
        f.width_px,
    );
    Some((x0, y, (x1 - x0).max(2.0), ROW_H_PX - 1.0))
}

fn range_rect(
    f: &Frame,
    track: TrackId,
    depth: u32,
    start_ns: i64,
    end_ns: i64,
) -> Option<(f64, f64, f64, f64)> {
    let row = f.layout.rows.get(*f.layout.track_row.get(track.idx())?)?;
    if !matches!(row.kind, RowKind::Track(_)) {
        return None;
    }
    let y = screen_y(f, row.slices_y_px() + depth as f64 * ROW_H_PX);
    let (x0, x1) = clamp_x(
        f.track_scale(track).x_from_time(start_ns),
        f.track_scale(track).x_from_time(end_ns),
        f.width_px,
    );
    Some((x0, y, (x1 - x0).max(2.0), ROW_H_PX - 1.0))
}

/// The box selection being dragged, or the committed one (its time range over its tracks' rows).
fn paint_box(cx: &mut Ctx, f: &Frame) {
    let c = cx.c;
    let mut rects: Vec<(f64, f64, f64, f64)> = Vec::new();
    if let Some((x0, y0, x1, y1)) = f.box_drag_px {
        rects.push((x0.min(x1), y0.min(y1), (x1 - x0).abs(), (y1 - y0).abs()));
    } else if let Some(b) = f.box_selection {
        let mut seen: Vec<usize> = Vec::new();
        let (x0, x1) = clamp_x(f.scale.x_from_time(b.t0_ns), f.scale.x_from_time(b.t1_ns), f.width_px);
        for (ti, &on) in b.tracks.iter().enumerate() {
            if !on {
                continue;
            }
            // tracks folded into one collapsed row share that row: draw it once
            let Some(&ri) = f.layout.track_row.get(ti) else { continue };
            if seen.contains(&ri) {
                continue;
            }
            seen.push(ri);
            let Some(row) = f.layout.rows.get(ri) else { continue };
            let y = screen_y(f, row.y_px);
            if y + row.h_px < RULER_H_PX || y > f.height_px {
                continue;
            }
            rects.push((x0, y, x1 - x0, row.h_px));
        }
    }
    for (x, y, w, h) in rects {
        cx.fill_css(&f.theme.drag_fill);
        c.fill_rect(x, y, w, h);
        c.set_stroke_style_str(&f.theme.drag_line);
        c.set_line_width(1.0);
        c.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
    }
}

fn paint_selection(cx: &mut Ctx, f: &Frame) {
    let c = cx.c;
    let rect = match f.selection {
        Some(Selection::Slice(s)) => slice_rect(f, s),
        Some(Selection::Merged { track, depth, first, end }) => {
            let cols = &f.data.trace.tracks.get(track.idx()).map(|t| &t.slices);
            cols.and_then(|cols| {
                let (a, b) = (first as usize, (end as usize).saturating_sub(1));
                if b >= cols.len() || a > b {
                    return None;
                }
                range_rect(f, track, depth, cols.start_ns[a], cols.end_ns(b))
            })
        }
        _ => None,
    };
    if let Some((x, y, w, h)) = rect {
        c.set_stroke_style_str(&f.theme.selection);
        c.set_line_width(2.0);
        c.stroke_rect(x - 1.0, y - 1.0, w + 2.0, h + 2.0);
    }
}

fn paint_hover(cx: &mut Ctx, f: &Frame, hv: HitTarget) {
    let c = cx.c;
    let rect = match hv {
        HitTarget::Slice(s) => slice_rect(f, s),
        HitTarget::Merged { track, depth, start_ns, end_ns, .. } => {
            range_rect(f, track, depth, start_ns, end_ns)
        }
        _ => None,
    };
    if let Some((x, y, w, h)) = rect {
        c.set_stroke_style_str(&f.theme.hover);
        c.set_line_width(1.0);
        c.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
    }
}

/// Where an arrow leaves (`at_end`) or enters a slice: its end or start on its track's clock, at
/// the middle of its row (screen px); `None` when its row is not shown.
fn slice_anchor(f: &Frame, s: SliceRef, at_end: bool) -> Option<(f64, f64)> {
    let t = f.data.trace.tracks.get(s.track.idx())?;
    let i = s.index as usize;
    if i >= t.slices.len() {
        return None;
    }
    let x =
        f.track_scale(s.track).x_from_time(if at_end { t.slices.end_ns(i) } else { t.slices.start_ns[i] });
    let y = screen_y(f, f.layout.slice_mid_y_px(s.track, t.slices.depth_of(i))?);
    Some((x.clamp(-1e5, 1e5), y))
}

/// Edges shown with the current hits (the critical path's dependencies): an arrow from the end
/// of each `from` to the start of its `to`, so launch delays and kernel gaps show as such. Only
/// edges with an end in view horizontally are drawn.
fn paint_edges(cx: &mut Ctx, f: &Frame) -> usize {
    let Some(hits) = f.search else { return 0 };
    if hits.edges.is_empty() {
        return 0;
    }
    let mut drawn = 0;
    let c = cx.c;
    c.set_stroke_style_str(&f.theme.flow);
    cx.fill_css(&f.theme.flow);
    c.set_line_width(1.25);
    let w = f.width_px;
    for &(from, to) in &hits.edges {
        let (Some((x0, y0)), Some((x1, y1))) = (slice_anchor(f, from, true), slice_anchor(f, to, false))
        else {
            continue;
        };
        if x0.max(x1) < 0.0 || x0.min(x1) > w {
            continue;
        }
        c.begin_path();
        c.move_to(x0, y0);
        if (y1 - y0).abs() < 1.0 {
            c.line_to(x1, y1);
        } else {
            let dx = ((x1 - x0).abs() / 2.0).clamp(12.0, 80.0);
            c.bezier_curve_to(x0 + dx, y0, x1 - dx, y1, x1, y1);
        }
        c.stroke();
        arrow_head(c, x1, y1, 6.0, 3.5);
        drawn += 1;
    }
    drawn
}

/// A filled arrow head with its tip at (x, y), pointing right: `len` long, `half` wide each side.
fn arrow_head(c: &CanvasRenderingContext2d, x: f64, y: f64, len: f64, half: f64) {
    c.begin_path();
    c.move_to(x, y);
    c.line_to(x - len, y - half);
    c.line_to(x - len, y + half);
    c.close_path();
    c.fill();
}

fn paint_flows(cx: &mut Ctx, f: &Frame, sel: SliceRef) {
    let c = cx.c;
    let trace = &f.data.trace;
    let point = |s: SliceRef, at_end: bool| slice_anchor(f, s, at_end);
    c.set_stroke_style_str(&f.theme.flow);
    cx.fill_css(&f.theme.flow);
    c.set_line_width(1.5);
    for fl in trace.flows_of(sel) {
        let (Some((x0, y0)), Some((x1, y1))) = (point(fl.from, true), point(fl.to, false)) else { continue };
        let dx = ((x1 - x0).abs() / 2.0).clamp(24.0, 160.0);
        c.begin_path();
        c.move_to(x0, y0);
        c.bezier_curve_to(x0 + dx, y0, x1 - dx, y1, x1, y1);
        c.stroke();
        // arrow head pointing right into the target's start
        arrow_head(c, x1, y1, 7.0, 4.0);
        c.begin_path();
        let _ = c.arc(x0, y0, 2.5, 0.0, std::f64::consts::TAU);
        c.fill();
    }
}

/// Iterations in view closer than this on average are *packed*: no lines across the rows, and
/// the ruler shows one band over each stretch they cover instead of alternating bands.
const MIN_ITERATION_LINE_GAP_PX: f64 = 4.0;

/// Whether the iterations in view are packed (see [`MIN_ITERATION_LINE_GAP_PX`]).
fn iterations_packed(all: &[loupe_core::model::Iteration], t0_ns: i64, t1_ns: i64, w: f64) -> bool {
    visible_iterations(all, t0_ns, t1_ns).count() as f64 * MIN_ITERATION_LINE_GAP_PX > w
}

/// The iterations overlapping `[t0_ns, t1_ns]`, from a list sorted by start (the builder sorts it).
fn visible_iterations(
    all: &[loupe_core::model::Iteration],
    t0_ns: i64,
    t1_ns: i64,
) -> impl Iterator<Item = &loupe_core::model::Iteration> + Clone {
    let end = all.partition_point(|it| it.start_ns <= t1_ns);
    all[..end].iter().filter(move |it| it.end_ns >= t0_ns)
}

fn paint_ruler(cx: &mut Ctx, f: &Frame, ticks: &[loupe_core::view::Tick], t0_ns: i64, t1_ns: i64) {
    let c = cx.c;
    let w = f.width_px;
    let trace = &f.data.trace;
    cx.fill_css(&f.theme.ruler_bg);
    c.fill_rect(0.0, 0.0, w, RULER_H_PX);
    // iterations: alternating bands in the upper part of the ruler, with their step numbers
    let band_h = 11.0;
    c.set_font(FONT);
    c.set_text_baseline("middle");
    // packed iterations (a 4 GB Kineto trace has 13 k in view at full zoom-out): one band over
    // each stretch they cover, without labels — alternating 1 px bands say nothing, and each
    // cost a fill style and a fillRect every frame (a third of a frame's work on a 1 GB trace)
    let packed = iterations_packed(f.iterations, t0_ns, t1_ns, w);
    if packed {
        cx.fill_css(&f.theme.iteration_a);
        let mut stretch: Option<(f64, f64)> = None;
        for it in visible_iterations(f.iterations, t0_ns, t1_ns) {
            let (x0, x1) = clamp_x(f.scale.x_from_time(it.start_ns), f.scale.x_from_time(it.end_ns), w);
            stretch = match stretch {
                Some((a, b)) if x0 <= b + 1.0 => Some((a, b.max(x1))),
                other => {
                    if let Some((a, b)) = other {
                        c.fill_rect(a, 0.0, b - a, band_h);
                    }
                    Some((x0, x1))
                }
            };
        }
        if let Some((a, b)) = stretch {
            c.fill_rect(a, 0.0, b - a, band_h);
        }
    }
    // else at most one band per pixel column: an iteration ending in a column already painted
    // adds nothing but work
    let mut painted_to_px = f64::NEG_INFINITY;
    let mut style = None;
    let spaced = if packed { &[] } else { f.iterations };
    for it in visible_iterations(spaced, t0_ns, t1_ns) {
        let (x0, x1) = clamp_x(f.scale.x_from_time(it.start_ns), f.scale.x_from_time(it.end_ns), w);
        if x1.round() <= painted_to_px {
            continue;
        }
        painted_to_px = x1.round();
        let even = it.number % 2 == 0;
        if style != Some(even) {
            cx.fill_css(if even { &f.theme.iteration_a } else { &f.theme.iteration_b });
            style = Some(even);
        }
        c.fill_rect(x0, 0.0, x1 - x0, band_h);
        let room = x1.min(w) - x0.max(0.0) - 6.0;
        if room < f.char_w_px * 3.0 {
            continue;
        }
        let label = format!("step {}", it.number);
        if let Some(l) = fit_label(&label, room, f.char_w_px) {
            cx.fill_css(&f.theme.iteration_text);
            style = None;
            let _ = c.fill_text(&l, x0.max(0.0) + 3.0, band_h / 2.0 + 0.5);
        }
    }
    cx.fill_css(&f.theme.ruler_text);
    for t in ticks {
        let x = t.x_px.round();
        c.fill_rect(x, RULER_H_PX - 7.0, 1.0, 7.0);
        let _ = c.fill_text(&t.label, x + 4.0, RULER_H_PX - 9.0);
    }
    cx.fill_css(&f.theme.separator);
    c.fill_rect(0.0, RULER_H_PX - 1.0, w, 1.0);
    // time under the pointer
    if let Some(x) = f.hover_x_px {
        let t = f.scale.time_from_x(x);
        let label = format_time_at_resolution(t - trace.start_ns, f.scale.ns_per_px);
        let lw = c.measure_text(&label).map(|m| m.width()).unwrap_or(60.0);
        let bx = (x - lw / 2.0 - 4.0).clamp(0.0, (w - lw - 8.0).max(0.0));
        cx.fill_css(&f.theme.cursor_line);
        c.fill_rect(bx, RULER_H_PX - 17.0, lw + 8.0, 16.0);
        cx.fill_css(&f.theme.text_light);
        let _ = c.fill_text(&label, bx + 4.0, RULER_H_PX - 9.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loupe_core::model::Iteration;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The iterations in view are those overlapping it, from a list sorted by start (a long
    /// early one included, ones that end before or start after excluded).
    #[test]
    fn visible_iterations_are_those_overlapping_the_view() {
        let it = |number, start_ns, end_ns| Iteration { number, start_ns, end_ns };
        let all = vec![it(0, 0, 100), it(1, 5, 1_000), it(2, 100, 200), it(3, 250, 300), it(4, 301, 400)];
        let numbers = |t0, t1| visible_iterations(&all, t0, t1).map(|i| i.number).collect::<Vec<_>>();
        assert_eq!(numbers(150, 260), vec![1, 2, 3]);
        assert_eq!(numbers(301, 301), vec![1, 4]);
        assert_eq!(numbers(1_001, 2_000), Vec::<i64>::new());
        assert_eq!(numbers(-10, -1), Vec::<i64>::new());
        assert_eq!(numbers(-10, 0), vec![0]);
        // packed: more than one iteration per MIN_ITERATION_LINE_GAP_PX of width, counting only
        // those in view
        assert!(iterations_packed(&all, 0, 400, 5.0 * MIN_ITERATION_LINE_GAP_PX - 1.0));
        assert!(!iterations_packed(&all, 0, 400, 5.0 * MIN_ITERATION_LINE_GAP_PX));
        assert!(!iterations_packed(&all, 150, 260, 3.0 * MIN_ITERATION_LINE_GAP_PX));
    }
}
