//! Vertical layout of the timeline: the pixel rows of `loupe_core::rows::plan_rows` (group and
//! section headers, tracks, counters, in reading order; hidden, filtered and all-zero rows left
//! out). Shared by the painter, the hit test and the DOM track list, so labels and canvas rows
//! always line up.
//!
//! Coordinates: `y_px` is in "content" CSS pixels (0 = top of the first row, not scrolled);
//! the canvas maps it to screen with `RULER_H_PX - scroll_y_px`.

use loupe_core::model::{CounterId, GroupId, TrackId};
use loupe_core::rows::{PlanRow, RowKey, RowPlan, Section};
use loupe_core::Trace;

pub const RULER_H_PX: f64 = 30.0;
pub const GROUP_H_PX: f64 = 24.0;
pub const SECTION_H_PX: f64 = 20.0;
pub const ROW_H_PX: f64 = 18.0;
pub const INSTANT_LANE_H_PX: f64 = 10.0;
pub const TRACK_PAD_PX: f64 = 3.0;
pub const COUNTER_H_PX: f64 = 44.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Group(GroupId),
    /// A section header of a device group (engines, activity, DMA queues, …).
    Section(GroupId, Section),
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
    /// Secondary text: row count (groups, sections), kind (tracks), unit (counters).
    pub detail: String,
    pub collapsed: bool,
    /// Tracks folded into a collapsed group or section (painted as one merged strip).
    pub folded_tracks: Vec<TrackId>,
}

impl Row {
    /// Top of depth 0 (tracks).
    pub fn slices_y_px(&self) -> f64 {
        self.y_px + TRACK_PAD_PX + if self.has_instants { INSTANT_LANE_H_PX } else { 0.0 }
    }
    /// The track or counter of this row.
    pub fn key(&self) -> Option<RowKey> {
        match self.kind {
            RowKind::Track(t) => Some(RowKey::Track(t)),
            RowKind::Counter(c) => Some(RowKey::Counter(c)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub rows: Vec<Row>,
    pub total_h_px: f64,
    /// Row of each track (by `TrackId`), or of its group / section header when collapsed;
    /// `usize::MAX` when hidden, filtered out or folded away.
    pub track_row: Vec<usize>,
    pub counter_row: Vec<usize>,
    /// All-zero counters folded away, rows hidden by the user, rows left out by the filter.
    pub zero_folded: usize,
    pub hidden: usize,
    pub filtered_out: usize,
}

impl Layout {
    pub fn from_plan(trace: &Trace, plan: &RowPlan) -> Layout {
        let mut rows = Vec::with_capacity(plan.rows.len());
        let mut y = 0.0;
        let mut track_row = vec![usize::MAX; trace.tracks.len()];
        let mut counter_row = vec![usize::MAX; trace.counters.len()];
        let fold =
            |folded: &[RowKey], at: usize, track_row: &mut Vec<usize>, counter_row: &mut Vec<usize>| {
                let mut tracks = Vec::new();
                for k in folded {
                    match *k {
                        RowKey::Track(t) => {
                            if let Some(r) = track_row.get_mut(t.idx()) {
                                *r = at;
                            }
                            tracks.push(t);
                        }
                        RowKey::Counter(c) => {
                            if let Some(r) = counter_row.get_mut(c.idx()) {
                                *r = at;
                            }
                        }
                    }
                }
                tracks
            };
        for pr in &plan.rows {
            let at = rows.len();
            let row = match pr {
                PlanRow::Group { group, collapsed, shown, folded } => {
                    let g = &trace.groups[group.idx()];
                    let folded_tracks = fold(folded, at, &mut track_row, &mut counter_row);
                    Row {
                        kind: RowKind::Group(*group),
                        y_px: y,
                        h_px: GROUP_H_PX,
                        depth_count: 0,
                        has_instants: false,
                        label: trace.str(g.name).to_string(),
                        detail: shown.to_string(),
                        collapsed: *collapsed,
                        folded_tracks,
                    }
                }
                PlanRow::Section { group, section, collapsed, shown, folded } => {
                    let folded_tracks = fold(folded, at, &mut track_row, &mut counter_row);
                    Row {
                        kind: RowKind::Section(*group, *section),
                        y_px: y,
                        h_px: SECTION_H_PX,
                        depth_count: 0,
                        has_instants: false,
                        label: section.label().to_string(),
                        detail: shown.to_string(),
                        collapsed: *collapsed,
                        folded_tracks,
                    }
                }
                PlanRow::Track(tid) => {
                    let t = &trace.tracks[tid.idx()];
                    let depth_count = t.slices.depth_count();
                    let has_instants = !t.instants.is_empty();
                    let h = 2.0 * TRACK_PAD_PX
                        + depth_count.max(usize::from(!has_instants)) as f64 * ROW_H_PX
                        + if has_instants { INSTANT_LANE_H_PX } else { 0.0 };
                    track_row[tid.idx()] = at;
                    let kind = match t.kind {
                        loupe_core::model::TrackKind::Thread => "thread",
                        loupe_core::model::TrackKind::Stream => "stream",
                        loupe_core::model::TrackKind::Dma => "DMA",
                        loupe_core::model::TrackKind::Async => "async",
                        loupe_core::model::TrackKind::Overlap => "overlap",
                    };
                    Row {
                        kind: RowKind::Track(*tid),
                        y_px: y,
                        h_px: h,
                        depth_count,
                        has_instants,
                        label: trace.str(t.name).to_string(),
                        detail: kind.to_string(),
                        collapsed: false,
                        folded_tracks: Vec::new(),
                    }
                }
                PlanRow::Counter(cid) => {
                    let c = &trace.counters[cid.idx()];
                    counter_row[cid.idx()] = at;
                    Row {
                        kind: RowKind::Counter(*cid),
                        y_px: y,
                        h_px: COUNTER_H_PX,
                        depth_count: 0,
                        has_instants: false,
                        label: trace.str(c.name).to_string(),
                        detail: trace.str(c.unit).to_string(),
                        collapsed: false,
                        folded_tracks: Vec::new(),
                    }
                }
            };
            y += row.h_px;
            rows.push(row);
        }
        Layout {
            rows,
            total_h_px: y,
            track_row,
            counter_row,
            zero_folded: plan.zero_folded,
            hidden: plan.hidden,
            filtered_out: plan.filtered_out,
        }
    }

    /// The rows sharing `row`'s parent (its group or section), in their shown order.
    pub fn siblings(&self, row: usize) -> Vec<RowKey> {
        let is_header = |r: &Row| matches!(r.kind, RowKind::Group(_) | RowKind::Section(..));
        let Some(r) = self.rows.get(row) else { return Vec::new() };
        if is_header(r) {
            return Vec::new();
        }
        let mut a = row;
        while a > 0 && !is_header(&self.rows[a - 1]) {
            a -= 1;
        }
        let mut b = row;
        while b + 1 < self.rows.len() && !is_header(&self.rows[b + 1]) {
            b += 1;
        }
        self.rows[a..=b].iter().filter_map(Row::key).collect()
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
