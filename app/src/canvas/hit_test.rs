//! Hit testing against what was actually painted: the painter records one [`Hit`] per drawn item
//! (slice, merged block, instant, counter row) in screen CSS pixels, so hover and click always
//! agree with the pixels, including merged level-of-detail blocks.

use loupe_core::model::{CounterId, SliceRef, TrackId};

use crate::state::Selection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitTarget {
    Slice(SliceRef),
    Merged { track: TrackId, depth: u32, first: u32, end: u32, start_ns: i64, end_ns: i64, longest: u32 },
    Instant { track: TrackId, index: u32 },
    Counter(CounterId),
}

impl HitTarget {
    /// What a click on this target selects (`x_time_ns`: the time under the pointer, for counters).
    pub fn selection(&self, counter_sample: Option<u32>) -> Option<Selection> {
        Some(match *self {
            HitTarget::Slice(s) => Selection::Slice(s),
            HitTarget::Merged { track, depth, first, end, .. } => {
                Selection::Merged { track, depth, first, end }
            }
            HitTarget::Instant { track, index } => Selection::Instant { track, index },
            HitTarget::Counter(c) => Selection::CounterSample { counter: c.0, index: counter_sample? },
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub x0_px: f64,
    pub x1_px: f64,
    pub y0_px: f64,
    pub y1_px: f64,
    pub target: HitTarget,
}

/// The hit regions of the last painted frame.
#[derive(Debug, Default)]
pub struct HitList {
    hits: Vec<Hit>,
}

impl HitList {
    pub fn clear(&mut self) {
        self.hits.clear();
    }
    #[inline]
    pub fn push(&mut self, x0_px: f64, x1_px: f64, y0_px: f64, y1_px: f64, target: HitTarget) {
        self.hits.push(Hit { x0_px, x1_px, y0_px, y1_px, target });
    }
    pub fn iter(&self) -> impl Iterator<Item = &Hit> {
        self.hits.iter()
    }
    pub fn len(&self) -> usize {
        self.hits.len()
    }
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }
    /// The widest individually drawn slice (test and benchmark hook).
    pub fn widest_slice(&self) -> Option<&Hit> {
        self.hits
            .iter()
            .filter(|h| matches!(h.target, HitTarget::Slice(_)))
            .max_by(|a, b| (a.x1_px - a.x0_px).total_cmp(&(b.x1_px - b.x0_px)))
    }
    /// The item under (x, y): an exact hit first (last drawn wins), else the nearest within 3 px
    /// horizontally on the same row, so 1-px slices can still be picked.
    pub fn find(&self, x_px: f64, y_px: f64) -> Option<&Hit> {
        let in_row = |h: &&Hit| y_px >= h.y0_px && y_px < h.y1_px;
        if let Some(h) = self.hits.iter().rev().filter(in_row).find(|h| x_px >= h.x0_px && x_px < h.x1_px) {
            return Some(h);
        }
        self.hits
            .iter()
            .filter(in_row)
            .map(|h| {
                let d = if x_px < h.x0_px { h.x0_px - x_px } else { x_px - h.x1_px };
                (d, h)
            })
            .filter(|(d, _)| *d <= 3.0)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, h)| h)
    }
}
