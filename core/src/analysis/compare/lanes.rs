//! Profile B's lanes in the Compare widget: which of B's tracks are drawn, where each lane sits,
//! and which slice is under the pointer. Pure layout and hit testing over the model; the widget
//! paints, scrolls and handles input.
//!
//! - A **lane** is one recorded track (derived tracks such as the operator timeline are left out)
//!   with slices. It shows its first [`MAX_DEPTHS`] depths, one row of [`DEPTH_H_PX`] each, and is
//!   at least [`MIN_LANE_H_PX`] tall so that its label stays readable.
//! - By default the busiest [`DEFAULT_LANES`] tracks (most slices) are shown, in the trace's own
//!   track order; with no limit every lane is listed. [`LanePlan::available`] says how many there
//!   are, so the widget can offer the rest instead of dropping them silently.
//! - Coordinates: `y_px` is content pixels from the top of the first lane (the widget adds its
//!   scroll); times are B's own clock.
//! - Hit testing ([`slice_at`]) uses the columns, not what was painted: at one depth slices never
//!   overlap, so the slice containing a time is one binary search away; a pointer in a gap picks
//!   the nearer neighbour within `slop_ns` (a pixel or two at the current zoom).

use crate::model::{SliceRef, TrackId};
use crate::Trace;

/// Lanes shown before "show all".
pub const DEFAULT_LANES: usize = 24;
/// Depth rows drawn per lane.
pub const MAX_DEPTHS: usize = 4;
/// Height of one depth row.
pub const DEPTH_H_PX: f64 = 12.0;
/// Space between lanes.
pub const LANE_GAP_PX: f64 = 4.0;
/// A lane is never shorter than this (its label is one 11 px line).
pub const MIN_LANE_H_PX: f64 = 18.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub track: TrackId,
    /// Depth rows drawn (1..=MAX_DEPTHS).
    pub depths: usize,
    /// The track's own depth count (may exceed `depths`).
    pub all_depths: usize,
    /// Top of the lane, content pixels.
    pub y_px: f64,
    pub h_px: f64,
}

impl Lane {
    /// Top of depth row `d` (content pixels).
    pub fn depth_y_px(&self, d: usize) -> f64 {
        self.y_px + 1.0 + d as f64 * DEPTH_H_PX
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LanePlan {
    pub lanes: Vec<Lane>,
    pub total_h_px: f64,
    /// Every lane B has (recorded tracks with slices), shown or not.
    pub available: usize,
}

/// The lanes of `trace`: the busiest `limit` (all when `None`), in track order.
pub fn plan(trace: &Trace, limit: Option<usize>) -> LanePlan {
    let mut tracks: Vec<usize> = (0..trace.tracks.len())
        .filter(|&i| !trace.tracks[i].role.is_derived() && !trace.tracks[i].slices.is_empty())
        .collect();
    let available = tracks.len();
    if let Some(n) = limit.filter(|&n| n < tracks.len()) {
        // busiest first (ties: track order), then back to track order
        tracks.sort_by_key(|&i| (std::cmp::Reverse(trace.tracks[i].slices.len()), i));
        tracks.truncate(n);
        tracks.sort_unstable();
    }
    let mut y = 0.0;
    let lanes = tracks
        .into_iter()
        .map(|i| {
            let all_depths = trace.tracks[i].slices.depth_count().max(1);
            let depths = all_depths.min(MAX_DEPTHS);
            let h = (depths as f64 * DEPTH_H_PX + 2.0).max(MIN_LANE_H_PX);
            let lane = Lane { track: TrackId(i as u32), depths, all_depths, y_px: y, h_px: h };
            y += h + LANE_GAP_PX;
            lane
        })
        .collect();
    LanePlan { lanes, total_h_px: y, available }
}

impl LanePlan {
    /// The lane under content-y `y_px` and the depth row in it (`None` in a gap or past a lane's
    /// drawn depths).
    pub fn lane_at(&self, y_px: f64) -> Option<(usize, usize)> {
        let k = self.lanes.partition_point(|l| l.y_px <= y_px);
        let li = k.checked_sub(1)?;
        let lane = &self.lanes[li];
        let dy = y_px - lane.y_px - 1.0;
        if dy < 0.0 || y_px >= lane.y_px + lane.h_px {
            return None;
        }
        let d = (dy / DEPTH_H_PX) as usize;
        (d < lane.depths).then_some((li, d))
    }

    /// Lanes that intersect content rows `[y0, y1)`.
    pub fn visible(&self, y0_px: f64, y1_px: f64) -> std::ops::Range<usize> {
        let a = self.lanes.partition_point(|l| l.y_px + l.h_px <= y0_px);
        let b = self.lanes.partition_point(|l| l.y_px < y1_px);
        a..b.max(a)
    }

    /// Content-y of the middle of a track's lane, if it is shown.
    pub fn track_mid_y_px(&self, track: TrackId) -> Option<f64> {
        self.lanes.iter().find(|l| l.track == track).map(|l| l.y_px + l.h_px / 2.0)
    }
}

/// The slice of `track` at `depth` under time `t_ns`: the one containing it, else the nearer of
/// its two neighbours if within `slop_ns`.
pub fn slice_at(trace: &Trace, track: TrackId, depth: usize, t_ns: i64, slop_ns: i64) -> Option<u32> {
    let cols = &trace.tracks.get(track.idx())?.slices;
    let r = cols.depth_range(depth);
    if r.is_empty() {
        return None;
    }
    let starts = cols.start_ns.get(r.clone())?;
    // the last slice starting at or before t
    let k = starts.partition_point(|&s| s <= t_ns);
    let before = k.checked_sub(1).map(|j| r.start + j);
    if let Some(j) = before {
        let end = cols.end_ns(j);
        if end > t_ns || (end == t_ns && cols.start_ns[j] == t_ns) {
            return Some(j as u32);
        }
    }
    let after = (k < starts.len()).then_some(r.start + k);
    let dist_before = before.map(|j| t_ns.saturating_sub(cols.end_ns(j)));
    let dist_after = after.map(|j| cols.start_ns[j].saturating_sub(t_ns));
    let pick = match (dist_before, dist_after) {
        (Some(a), Some(b)) if b < a => after.zip(dist_after),
        (Some(_), _) => before.zip(dist_before),
        (None, Some(_)) => after.zip(dist_after),
        (None, None) => None,
    };
    pick.filter(|&(_, d)| d <= slop_ns.max(0)).map(|(j, _)| j as u32)
}

/// The slice under content-y `y_px` and B-time `t_ns`.
pub fn hit(trace: &Trace, plan: &LanePlan, y_px: f64, t_ns: i64, slop_ns: i64) -> Option<SliceRef> {
    let (li, d) = plan.lane_at(y_px)?;
    let track = plan.lanes[li].track;
    slice_at(trace, track, d, t_ns, slop_ns).map(|index| SliceRef { track, index })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, TraceBuilder, TrackKind};
    use crate::StrId;

    /// Track 0: `n` one-level slices; track 1: a parent [0, 1000) with children [100, 200) and
    /// [500, 600); track 2: empty.
    fn trace(n: usize) -> Trace {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("p", GroupKind::Process);
        let t0 = b.add_track(g, "flat", TrackKind::Thread, "1");
        let t1 = b.add_track(g, "nested", TrackKind::Thread, "2");
        b.add_track(g, "empty", TrackKind::Thread, "3");
        for i in 0..n {
            let name = b.intern(&format!("f{i}"));
            b.add_slice(t0, i as i64 * 100, 50, name, StrId::EMPTY, ArgsId::NONE);
        }
        for (name, s, d) in [("parent", 0, 1000), ("c1", 100, 100), ("c2", 500, 100)] {
            let name = b.intern(name);
            b.add_slice(t1, s, d, name, StrId::EMPTY, ArgsId::NONE);
        }
        b.finish()
    }

    fn name(t: &Trace, r: SliceRef) -> &str {
        t.str(t.track(r.track).slices.name[r.index as usize])
    }

    #[test]
    fn plan_lists_recorded_tracks_with_heights() {
        let t = trace(5);
        let p = plan(&t, None);
        assert_eq!(p.available, 2, "the empty track is no lane");
        assert_eq!(p.lanes.iter().map(|l| l.track.0).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!((p.lanes[0].depths, p.lanes[1].depths), (1, 2));
        assert_eq!(p.lanes[0].h_px, MIN_LANE_H_PX);
        assert_eq!(p.lanes[1].y_px, MIN_LANE_H_PX + LANE_GAP_PX);
        assert_eq!(p.total_h_px, p.lanes[1].y_px + p.lanes[1].h_px + LANE_GAP_PX);
    }

    #[test]
    fn limit_keeps_the_busiest_in_track_order() {
        let t = trace(5);
        let p = plan(&t, Some(1));
        assert_eq!(p.available, 2);
        assert_eq!(p.lanes.len(), 1);
        assert_eq!(p.lanes[0].track, TrackId(0), "5 slices beat 3");
        assert_eq!(p.lanes[0].y_px, 0.0);
        let p = plan(&trace(1), Some(1));
        assert_eq!(p.lanes[0].track, TrackId(1), "3 slices beat 1");
    }

    #[test]
    fn lane_at_and_visible() {
        let t = trace(5);
        let p = plan(&t, None);
        assert_eq!(p.lane_at(5.0), Some((0, 0)));
        assert_eq!(p.lane_at(MIN_LANE_H_PX + 1.0), None, "the gap between lanes");
        let y1 = p.lanes[1].y_px;
        assert_eq!(p.lane_at(y1 + 2.0), Some((1, 0)));
        assert_eq!(p.lane_at(y1 + 1.0 + DEPTH_H_PX + 1.0), Some((1, 1)));
        assert_eq!(p.lane_at(-3.0), None);
        assert_eq!(p.lane_at(p.total_h_px + 10.0), None);
        assert_eq!(p.visible(0.0, 5.0), 0..1);
        assert_eq!(p.visible(0.0, 1e6), 0..2);
        assert_eq!(p.visible(y1 + 1.0, y1 + 2.0), 1..2);
        assert_eq!(p.visible(1e6, 2e6), 2..2);
        assert_eq!(p.track_mid_y_px(TrackId(1)), Some(y1 + p.lanes[1].h_px / 2.0));
        assert_eq!(p.track_mid_y_px(TrackId(2)), None);
    }

    #[test]
    fn slice_at_contains_then_nearest_within_slop() {
        let t = trace(5);
        let flat = TrackId(0);
        // inside [200, 250)
        let r = slice_at(&t, flat, 0, 210, 0).map(|index| SliceRef { track: flat, index });
        assert_eq!(r.map(|r| name(&t, r)), Some("f2"));
        // in the gap [250, 300): nearer to f2's end at 260, to f3's start at 290
        let at = |x, slop| {
            slice_at(&t, flat, 0, x, slop).map(|index| name(&t, SliceRef { track: flat, index }).to_string())
        };
        assert_eq!(at(260, 0), None);
        assert_eq!(at(260, 15).as_deref(), Some("f2"));
        assert_eq!(at(290, 15).as_deref(), Some("f3"));
        assert_eq!(at(275, 20), None, "25 ns from both");
        // before the first, after the last
        assert_eq!(at(-5, 10).as_deref(), Some("f0"));
        assert_eq!(at(-50, 10), None);
        assert_eq!(at(455, 10).as_deref(), Some("f4"));
        // a depth the track does not have, a track that does not exist
        assert_eq!(slice_at(&t, flat, 1, 210, 0), None);
        assert_eq!(slice_at(&t, TrackId(9), 0, 210, 0), None);
    }

    #[test]
    fn hit_picks_the_depth_under_the_pointer() {
        let t = trace(5);
        let p = plan(&t, None);
        let y1 = p.lanes[1].y_px;
        let parent = hit(&t, &p, y1 + 2.0, 550, 0).unwrap();
        assert_eq!(name(&t, parent), "parent");
        let child = hit(&t, &p, y1 + 1.0 + DEPTH_H_PX + 2.0, 550, 0).unwrap();
        assert_eq!((name(&t, child), child.track), ("c2", TrackId(1)));
        assert_eq!(hit(&t, &p, y1 + 1.0 + DEPTH_H_PX + 2.0, 300, 0), None, "no child at 300");
        assert_eq!(hit(&t, &p, MIN_LANE_H_PX + 1.0, 10, 1000), None, "between lanes");
    }
}
