//! Vertical layout of the timeline: one row per group header, track and counter, in
//! `Trace::ordered_groups` order, tracks and counters by `sort_index`. Shared by the painter, the
//! hit test and the DOM track list, so labels and canvas rows always line up.
//!
//! Coordinates: `y_px` is in "content" CSS pixels (0 = top of the first row, not scrolled);
//! the canvas maps it to screen with `RULER_H_PX - scroll_y_px`.

use std::collections::HashSet;

use loupe_core::model::{CounterId, GroupId, TrackId};
use loupe_core::Trace;

pub const RULER_H_PX: f64 = 30.0;
pub const GROUP_H_PX: f64 = 24.0;
pub const ROW_H_PX: f64 = 18.0;
pub const INSTANT_LANE_H_PX: f64 = 10.0;
pub const TRACK_PAD_PX: f64 = 3.0;
pub const COUNTER_H_PX: f64 = 44.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Group(GroupId),
    Track(TrackId),
    Counter(CounterId),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub y_px: f64,
    pub h_px: f64,
    /// Slice depths shown (tracks only).
    pub depth_count: usize,
    /// The track has instants, drawn in a lane above depth 0.
    pub has_instants: bool,
    pub label: String,
    /// Secondary text: track count (groups), kind (tracks), unit (counters).
    pub detail: String,
    pub collapsed: bool,
}

impl Row {
    /// Top of depth 0 (tracks).
    pub fn slices_y_px(&self) -> f64 {
        self.y_px + TRACK_PAD_PX + if self.has_instants { INSTANT_LANE_H_PX } else { 0.0 }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub rows: Vec<Row>,
    pub total_h_px: f64,
    /// Row of each track (by `TrackId`), or of its group header when the group is collapsed.
    pub track_row: Vec<usize>,
    pub counter_row: Vec<usize>,
}

impl Layout {
    pub fn build(trace: &Trace, collapsed: &HashSet<GroupId>) -> Layout {
        let mut rows = Vec::new();
        let mut y = 0.0;
        let mut track_row = vec![usize::MAX; trace.tracks.len()];
        let mut counter_row = vec![usize::MAX; trace.counters.len()];
        for gid in trace.ordered_groups() {
            let g = &trace.groups[gid.idx()];
            let is_collapsed = collapsed.contains(&gid);
            let n = g.tracks.len() + g.counters.len();
            let group_row = rows.len();
            rows.push(Row {
                kind: RowKind::Group(gid),
                y_px: y,
                h_px: GROUP_H_PX,
                depth_count: 0,
                has_instants: false,
                label: trace.str(g.name).to_string(),
                detail: n.to_string(),
                collapsed: is_collapsed,
            });
            y += GROUP_H_PX;
            let mut tracks = g.tracks.clone();
            tracks.sort_by_key(|t| (trace.tracks[t.idx()].sort_index, t.0));
            for tid in tracks {
                let t = &trace.tracks[tid.idx()];
                if is_collapsed {
                    track_row[tid.idx()] = group_row;
                    continue;
                }
                let depth_count = t.slices.depth_count();
                let has_instants = !t.instants.is_empty();
                let h = 2.0 * TRACK_PAD_PX
                    + depth_count.max(usize::from(!has_instants)) as f64 * ROW_H_PX
                    + if has_instants { INSTANT_LANE_H_PX } else { 0.0 };
                track_row[tid.idx()] = rows.len();
                let kind = match t.kind {
                    loupe_core::model::TrackKind::Thread => "thread",
                    loupe_core::model::TrackKind::Stream => "stream",
                    loupe_core::model::TrackKind::Dma => "DMA",
                    loupe_core::model::TrackKind::Async => "async",
                    loupe_core::model::TrackKind::Overlap => "overlap",
                };
                rows.push(Row {
                    kind: RowKind::Track(tid),
                    y_px: y,
                    h_px: h,
                    depth_count,
                    has_instants,
                    label: trace.str(t.name).to_string(),
                    detail: kind.to_string(),
                    collapsed: false,
                });
                y += h;
            }
            let mut counters = g.counters.clone();
            counters.sort_by_key(|c| (trace.counters[c.idx()].sort_index, c.0));
            for cid in counters {
                if is_collapsed {
                    counter_row[cid.idx()] = group_row;
                    continue;
                }
                let c = &trace.counters[cid.idx()];
                counter_row[cid.idx()] = rows.len();
                rows.push(Row {
                    kind: RowKind::Counter(cid),
                    y_px: y,
                    h_px: COUNTER_H_PX,
                    depth_count: 0,
                    has_instants: false,
                    label: trace.str(c.name).to_string(),
                    detail: trace.str(c.unit).to_string(),
                    collapsed: false,
                });
                y += COUNTER_H_PX;
            }
        }
        Layout { rows, total_h_px: y, track_row, counter_row }
    }

    /// Index of the row containing content-y `y_px`.
    pub fn row_at(&self, y_px: f64) -> Option<usize> {
        let k = self.rows.partition_point(|r| r.y_px <= y_px);
        let i = k.checked_sub(1)?;
        let r = &self.rows[i];
        (y_px < r.y_px + r.h_px).then_some(i)
    }

    /// Rows overlapping content-y `[y0_px, y1_px)`.
    pub fn visible_rows(&self, y0_px: f64, y1_px: f64) -> std::ops::Range<usize> {
        let lo = self.rows.partition_point(|r| r.y_px + r.h_px <= y0_px);
        let hi = self.rows.partition_point(|r| r.y_px < y1_px);
        lo..hi.max(lo)
    }

    /// Content-y of the middle of a slice's box (the group header when collapsed).
    pub fn slice_mid_y_px(&self, track: TrackId, depth: usize) -> Option<f64> {
        let r = self.rows.get(*self.track_row.get(track.idx())?)?;
        Some(match r.kind {
            RowKind::Track(_) => r.slices_y_px() + depth as f64 * ROW_H_PX + ROW_H_PX / 2.0,
            _ => r.y_px + r.h_px / 2.0,
        })
    }
}
