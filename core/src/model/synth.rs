//! Synthetic nested traces for benchmarks and tests: `tracks` thread tracks of call trees (up to
//! four levels deep, 0–3 children per node) whose leaf durations span 200 ns … 400 µs, so that
//! every zoom level has both slices wide enough to draw and runs of sub-pixel slices to merge.
//! Built through [`TraceBuilder`] like any import. Deterministic for a given seed.

use super::{ArgsId, GroupKind, Trace, TraceBuilder, TrackId};
use crate::strings::StrId;

use crate::rng::Rng;

struct Gen<'a> {
    b: &'a mut TraceBuilder,
    rng: Rng,
    /// Names per depth (the last entry serves every deeper level).
    names: Vec<Vec<StrId>>,
    left: usize,
}

impl Gen<'_> {
    /// One call tree on `track` starting at `start`, added children first (as Chrome `X` events
    /// come); returns its end.
    fn node(&mut self, track: TrackId, depth: u32, start: i64) -> i64 {
        self.left = self.left.saturating_sub(1);
        let level = &self.names[(depth as usize).min(self.names.len() - 1)];
        let name = level[self.rng.below(level.len() as u64) as usize];
        let mut t = start + self.rng.range(50, 2_000);
        let children = if depth >= 3 { 0 } else { self.rng.below(4) };
        for _ in 0..children {
            if self.left == 0 {
                break;
            }
            t = self.node(track, depth + 1, t) + self.rng.range(50, 1_000);
        }
        if children == 0 {
            t += 200 << self.rng.below(12);
        }
        let end = t + self.rng.range(50, 1_000);
        self.b.add_slice(track, start, end - start, name, StrId::EMPTY, ArgsId::NONE);
        end
    }
}

/// A trace with exactly `slices` slices over `tracks` thread tracks (one process), no args.
pub fn nested_trace(slices: usize, tracks: usize, seed: u64) -> Trace {
    let tracks = tracks.max(1);
    let mut b = TraceBuilder::new("synthetic");
    let g = b.add_group("synthetic", GroupKind::Process);
    let names: Vec<StrId> = (0..64).map(|i| b.intern(&format!("op_{i:02}::compute"))).collect();
    let ids: Vec<TrackId> = (0..tracks)
        .map(|i| b.add_track(g, &format!("thread {i}"), super::TrackKind::Thread, &i.to_string()))
        .collect();
    fill_tracks(&mut b, &ids, slices, seed, vec![names], &mut |_, _| {});
    b.finish()
}

/// Add exactly `slices` call-tree slices spread over `tracks` (as [`nested_trace`] does), with
/// names drawn per depth from `names` (must not be empty, nor any of its entries). `progress(done,
/// total)` is called every 65 536 slices and at the end.
pub(crate) fn fill_tracks(
    b: &mut TraceBuilder,
    tracks: &[TrackId],
    slices: usize,
    seed: u64,
    names: Vec<Vec<StrId>>,
    progress: &mut dyn FnMut(u64, u64),
) {
    if tracks.is_empty() || names.is_empty() || names.iter().any(Vec::is_empty) {
        return;
    }
    let n = tracks.len();
    let mut gen = Gen { b, rng: Rng(seed | 1), names, left: 0 };
    let mut done = 0usize;
    let mut next_report = 0usize;
    for (k, &t) in tracks.iter().enumerate() {
        let share = slices / n + usize::from(k < slices % n);
        gen.left = share;
        let mut clock = 1_000_000i64;
        while gen.left > 0 {
            clock = gen.node(t, 0, clock) + gen.rng.range(100, 5_000);
            let now = done + (share - gen.left);
            if now >= next_report {
                progress(now as u64, slices as u64);
                next_report = now + 65_536;
            }
        }
        done += share;
    }
    progress(slices as u64, slices as u64);
}

#[cfg(test)]
mod tests {
    #[test]
    fn exact_count_nested_no_warnings() {
        let tr = super::nested_trace(10_000, 3, 7);
        assert_eq!(tr.slice_count(), 10_000);
        assert_eq!(tr.tracks.len(), 3);
        assert_eq!(tr.warnings.total(), 0);
        assert!(tr.tracks.iter().all(|t| t.slices.depth_count() >= 3));
    }
}
