//! Level of detail for counters: a counter row is drawn as a step chart with one point per pixel
//! column (the column's maximum, then its last value), and with millions of samples in view
//! (an NTFF's engine-activity counters hold two per busy block) visiting every sample each frame
//! cost tens of milliseconds. [`CounterLod`] keeps the maximum of every 64 samples and of every
//! 4096, so [`CounterLod::range_max`] costs at most a few hundred steps whatever the run's
//! length, and [`step_points`] finds each column's end by binary search: a frame costs
//! O(columns × log n), independent of how many samples are in view. The points are exactly those
//! of the sample-by-sample reduction ([`step_points_linear`], kept as the reference).

const B1: usize = 64;
const B2: usize = B1 * B1;

/// The maximum of every [`B1`] and every [`B2`] samples of one counter, and its finite range.
#[derive(Debug, Clone, Default)]
pub struct CounterLod {
    b1: Vec<f64>,
    b2: Vec<f64>,
    /// Smallest and largest finite value ((0, 0) when none), as [`crate::model::CounterTrack::min_max`].
    pub lo: f64,
    pub hi: f64,
}

/// [`CounterLod::build`] in bounded steps (the page builds it between frames: one counter of an
/// NTFF's engine activity can hold tens of millions of samples).
#[derive(Debug, Clone)]
pub struct CounterLodBuilder {
    b1: Vec<f64>,
    /// The next sample, a multiple of [`B1`] until the end.
    next: usize,
    lo: f64,
    hi: f64,
}

impl Default for CounterLodBuilder {
    fn default() -> Self {
        CounterLodBuilder { b1: Vec::new(), next: 0, lo: f64::INFINITY, hi: f64::NEG_INFINITY }
    }
}

impl CounterLodBuilder {
    /// Fold the next `budget` samples of `values` (at least [`B1`]; the column every call is
    /// given must be the same); `false` once all are folded.
    pub fn add_next(&mut self, values: &[f64], budget: usize) -> bool {
        if self.next >= values.len() {
            return false;
        }
        if self.b1.is_empty() {
            self.b1.reserve_exact(values.len().div_ceil(B1));
        }
        let step = (budget / B1).max(1).saturating_mul(B1);
        let end = self.next.saturating_add(step).min(values.len());
        let part = &values[self.next..end];
        self.b1.extend(part.chunks(B1).map(fold_max));
        for &v in part {
            if v.is_finite() {
                self.lo = self.lo.min(v);
                self.hi = self.hi.max(v);
            }
        }
        self.next = end;
        end < values.len()
    }
    pub fn finish(self) -> CounterLod {
        let b2: Vec<f64> = self.b1.chunks(B1).map(fold_max).collect();
        let (lo, hi) = if self.lo > self.hi { (0.0, 0.0) } else { (self.lo, self.hi) };
        CounterLod { b1: self.b1, b2, lo, hi }
    }
}

/// `f64::max` over `v` starting from its first value: NaN is skipped, and only an all-NaN run
/// gives NaN (as the step chart's column reduction does it).
fn fold_max(v: &[f64]) -> f64 {
    let mut it = v.iter();
    let first = it.next().copied().unwrap_or(f64::NAN);
    it.fold(first, |m, &x| m.max(x))
}

impl CounterLod {
    pub fn build(values: &[f64]) -> CounterLod {
        let mut b = CounterLodBuilder::default();
        while b.add_next(values, usize::MAX) {}
        b.finish()
    }

    pub fn heap_bytes(&self) -> usize {
        (self.b1.capacity() + self.b2.capacity()) * 8
    }

    /// The maximum of `values[i..j]` (`i < j`), folded as [`fold_max`] does: `values` must be
    /// the column this index was built from.
    pub fn range_max(&self, values: &[f64], mut i: usize, j: usize) -> f64 {
        let j = j.min(values.len());
        if i >= j {
            return f64::NAN;
        }
        let mut m = values[i];
        i += 1;
        while i < j && !i.is_multiple_of(B1) {
            m = m.max(values[i]);
            i += 1;
        }
        while i + B1 <= j && !i.is_multiple_of(B2) {
            m = m.max(self.b1.get(i / B1).copied().unwrap_or(f64::NAN));
            i += B1;
        }
        while i + B2 <= j {
            m = m.max(self.b2.get(i / B2).copied().unwrap_or(f64::NAN));
            i += B2;
        }
        while i + B1 <= j {
            m = m.max(self.b1.get(i / B1).copied().unwrap_or(f64::NAN));
            i += B1;
        }
        while i < j {
            m = m.max(values[i]);
            i += 1;
        }
        m
    }
}

/// The step chart's points for samples `range` of a counter (`ts`, `values`): consecutive
/// samples whose x (`x_of`, monotone in time) is less than a pixel after the first of their
/// group form one column, drawn as `(x of its first sample, its maximum)` followed by
/// `(x + 1, its last value)` when the last differs. Binary search per column and `lod` for the
/// maximum.
pub fn step_points(
    ts: &[i64],
    values: &[f64],
    range: std::ops::Range<usize>,
    x_of: impl Fn(i64) -> f64,
    lod: &CounterLod,
) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    let end = range.end.min(ts.len()).min(values.len());
    let mut i = range.start;
    while i < end {
        let x = x_of(ts[i]);
        let j = i + 1 + ts[i + 1..end].partition_point(|&t| x_of(t) - x < 1.0);
        let m = lod.range_max(values, i, j);
        let last = values[j - 1];
        pts.push((x, m));
        if last != m {
            pts.push((x + 1.0, last));
        }
        i = j;
    }
    pts
}

/// [`step_points`] sample by sample: the reference, and cheaper when few samples are in view.
pub fn step_points_linear(
    ts: &[i64],
    values: &[f64],
    range: std::ops::Range<usize>,
    x_of: impl Fn(i64) -> f64,
) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    let mut col: Option<(f64, f64, f64)> = None; // (x, max, last)
    let end = range.end.min(ts.len()).min(values.len());
    for i in range.start..end {
        let x = x_of(ts[i]);
        let v = values[i];
        match col {
            Some((cx0, m, _)) if x - cx0 < 1.0 => col = Some((cx0, m.max(v), v)),
            _ => {
                if let Some((cx0, m, last)) = col {
                    pts.push((cx0, m));
                    if last != m {
                        pts.push((cx0 + 1.0, last));
                    }
                }
                col = Some((x, v, v));
            }
        }
    }
    if let Some((cx0, m, last)) = col {
        pts.push((cx0, m));
        if last != m {
            pts.push((cx0 + 1.0, last));
        }
    }
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(p, q)| p.0 == q.0 && (p.1 == q.1 || (p.1.is_nan() && q.1.is_nan())))
    }

    #[test]
    fn built_in_steps_is_built_at_once() {
        let v: Vec<f64> =
            (0..5 * B2 + 131).map(|i| if i % 97 == 0 { f64::NAN } else { (i % 1013) as f64 }).collect();
        let whole = {
            let b1: Vec<f64> = v.chunks(B1).map(fold_max).collect();
            let b2: Vec<f64> = b1.chunks(B1).map(fold_max).collect();
            (b1, b2)
        };
        for budget in [1, B1, B1 + 1, 1000, B2, usize::MAX] {
            let mut b = CounterLodBuilder::default();
            let mut steps = 0;
            while b.add_next(&v, budget) {
                steps += 1;
            }
            let l = b.finish();
            assert_eq!((l.b1.len(), l.b2.len()), (whole.0.len(), whole.1.len()));
            assert!(l.b1.iter().zip(&whole.0).all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
            assert!(l.b2.iter().zip(&whole.1).all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
            assert_eq!((l.lo, l.hi), (0.0, 1012.0));
            if budget <= B1 {
                assert_eq!(steps, v.len().div_ceil(B1) - 1);
            }
        }
        let e = CounterLod::build(&[]);
        assert_eq!((e.lo, e.hi, e.b1.len()), (0.0, 0.0, 0));
        let nan = CounterLod::build(&[f64::NAN, f64::INFINITY]);
        assert_eq!((nan.lo, nan.hi), (0.0, 0.0));
    }

    #[test]
    fn range_max_is_the_fold_at_every_range() {
        let mut x = 7u64;
        let mut v: Vec<f64> = (0..3 * B2 + 77)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 1000) as f64 - 500.0
            })
            .collect();
        v[5] = f64::NAN;
        v[B2 + 3] = f64::NAN;
        for k in 0..B1 {
            v[2 * B1 + k] = f64::NAN; // an all-NaN block
        }
        let lod = CounterLod::build(&v);
        for &(i, j) in &[
            (0, 1),
            (0, v.len()),
            (5, 6),
            (2 * B1, 3 * B1),
            (2 * B1 + 1, 2 * B1 + 9),
            (3, B2 + 5),
            (B1 - 1, 2 * B2 + 1),
            (100, 3 * B2),
        ] {
            let want = fold_max(&v[i..j]);
            let got = lod.range_max(&v, i, j);
            assert!(got == want || (got.is_nan() && want.is_nan()), "{i}..{j}: {got} vs {want}");
        }
        for i in (0..v.len()).step_by(97) {
            for j in (i + 1..v.len()).step_by(1013) {
                assert_eq!(lod.range_max(&v, i, j).to_bits(), fold_max(&v[i..j]).to_bits(), "{i}..{j}");
            }
        }
        let fin: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        assert_eq!(lod.lo, fin.iter().copied().fold(f64::INFINITY, f64::min));
        assert_eq!(lod.hi, fin.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    }

    #[test]
    fn step_points_equal_the_linear_reduction() {
        // an activity-like counter: 0/1 steps, bursts denser than a pixel, gaps wider
        let mut ts = Vec::new();
        let mut v = Vec::new();
        let mut t = 0i64;
        let mut x = 99u64;
        for k in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t += if k % 1000 < 990 { (x % 5) as i64 } else { 10_000 + (x % 7_000) as i64 };
            ts.push(t);
            v.push(if k % 2 == 0 { 1.0 } else { (x % 3) as f64 * 0.5 });
        }
        let lod = CounterLod::build(&v);
        for (start, ns_per_px, w) in [
            (0i64, 1.0, 2000.0),
            (0, 250.0, 1500.0),
            (t / 3, 0.3, 900.0),
            (-5000, 1e6, 800.0),
            (t - 100, 40.0, 1000.0),
        ] {
            let x_of = |ts_ns: i64| ((ts_ns - start) as f64 / ns_per_px).clamp(-1.0, w + 1.0);
            for r in [0..ts.len(), 10..20, 1234..40_000, 7..8] {
                let a = step_points(&ts, &v, r.clone(), x_of, &lod);
                let b = step_points_linear(&ts, &v, r.clone(), x_of);
                assert!(
                    same(&a, &b),
                    "start {start} ns/px {ns_per_px} range {r:?}: {} vs {} points",
                    a.len(),
                    b.len()
                );
            }
        }
    }
}
