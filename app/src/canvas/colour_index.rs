//! The colouring's data over a bare `Trace` (no app state): the per-load [`ColourIndex`]
//! (operator ancestors, the duration scale), the [`ColourKey`] a slice is coloured by and a
//! [`LegendEntry`]. `state.rs` holds them in `TraceData`; what computes keys, palettes and
//! legends from a `TraceData` is [`super::colour`].

use loupe_core::model::{OpId, OpLevel, TrackId};
use loupe_core::StrId;

/// Per-load lookups for colouring (built once with the trace).
#[derive(Debug, Default)]
pub struct ColourIndex {
    /// Per operator node: its framework-level and layer-level ancestor-or-self.
    pub op_framework: Vec<OpId>,
    pub op_layer: Vec<OpId>,
    /// log10 of the shortest and longest positive slice duration (heat scale).
    pub log_dur: (f64, f64),
}

/// The shortest and longest positive slice duration, added up a block of slices at a time (the
/// page's index steps: one pass over 14 M slices was a 30–60 ms task).
#[derive(Debug, Clone)]
pub struct DurationRange {
    lo: i64,
    hi: i64,
    track: usize,
    next: usize,
}

impl Default for DurationRange {
    fn default() -> Self {
        DurationRange { lo: i64::MAX, hi: 0, track: 0, next: 0 }
    }
}

impl DurationRange {
    /// Scan up to `budget` more slices; `false` once every track is scanned.
    pub fn add_next(&mut self, trace: &loupe_core::Trace, budget: usize) -> bool {
        let mut left = budget.max(1);
        while let Some(t) = trace.tracks.get(self.track) {
            let d = &t.slices.dur_ns;
            let end = self.next.saturating_add(left).min(d.len());
            for x in d.iter_range(self.next.min(end)..end) {
                if x > 0 {
                    self.lo = self.lo.min(x);
                    self.hi = self.hi.max(x);
                }
            }
            left -= end - self.next.min(end);
            if end < d.len() {
                self.next = end;
                return true;
            }
            (self.track, self.next) = (self.track + 1, 0);
            if left == 0 {
                return self.track < trace.tracks.len();
            }
        }
        false
    }
}

impl ColourIndex {
    pub fn build(trace: &loupe_core::Trace) -> ColourIndex {
        let mut d = DurationRange::default();
        while d.add_next(trace, usize::MAX) {}
        Self::with_durations(trace, d)
    }
    /// The index with the duration range scanned already.
    pub fn with_durations(trace: &loupe_core::Trace, d: DurationRange) -> ColourIndex {
        let ops = &trace.operators;
        let n = ops.len();
        let (mut fw, mut layer) = (vec![OpId::NONE; n], vec![OpId::NONE; n]);
        for i in 0..n {
            let id = OpId(i as u32);
            fw[i] = ops.at_level(id, OpLevel::Framework);
            layer[i] = ops.at_level(id, OpLevel::Layer);
        }
        let (lo, hi) = (d.lo, d.hi);
        let log_dur = if hi > 0 { ((lo as f64).log10(), (hi as f64).log10()) } else { (0.0, 1.0) };
        ColourIndex { op_framework: fw, op_layer: layer, log_dur }
    }
}

/// What a slice is coloured by: a string (name, opcode, operator name, …), a track, a heat
/// bucket, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ColourKey {
    Str(StrId),
    Track(TrackId),
    Heat(u8),
    None,
}

/// One legend entry: what a colour means and how much time it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    /// What the entry stands for ([`ColourKey::None`] for "N more", "none" and heat buckets).
    pub key: ColourKey,
    pub palette: usize,
    pub total_ns: i64,
    pub count: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The heat scale's duration range scanned in steps is the one-pass range.
    #[test]
    fn stepped_duration_range_is_the_one_pass_range() {
        let trace = loupe_core::demo::large_demo(30_000, &mut |_, _| {});
        let (mut lo, mut hi) = (i64::MAX, 0);
        for d in trace.tracks.iter().flat_map(|t| t.slices.dur_ns.iter()).filter(|&d| d > 0) {
            (lo, hi) = (lo.min(d), hi.max(d));
        }
        assert!(hi > lo);
        for budget in [1, 7, 4096, usize::MAX] {
            let mut r = DurationRange::default();
            let mut steps = 0;
            while r.add_next(&trace, budget) {
                steps += 1;
            }
            assert_eq!((r.lo, r.hi), (lo, hi), "in steps of {budget}");
            if budget == 4096 {
                assert!(steps >= trace.slice_count() / 4096 - 1, "{steps} steps");
            }
        }
        let whole = ColourIndex::build(&trace).log_dur;
        assert_eq!(whole, ((lo as f64).log10(), (hi as f64).log10()));
    }
}
