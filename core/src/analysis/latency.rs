//! Furiosa-style latency summary: every slice of the profile grouped by name, with exact
//! statistics of its durations, over the whole profile and split by where it ran (device tracks
//! vs host tracks), plus a histogram per name.
//!
//! Definitions (what the UI and `loupe analyze --json` state):
//! - `count`, `total_ns`, `min_ns`, `max_ns`; `mean_ns` = total / count rounded **down** to a
//!   whole ns; `percent` = total / (sum of the totals of every name in the same list) × 100.
//! - Percentiles are **nearest-rank**: the p-th percentile is the smallest duration with at least
//!   p % of the durations at or below it, i.e. the value at 1-based rank ⌈p/100 · n⌉ of the sorted
//!   durations. `median_ns` is p50 by the same rule (no averaging of the two middle values).
//! - Device tracks: GPU streams, Neuron engines, DMA queues and every track of a device group
//!   ([`TrackRole`], [`GroupKind::Device`]); everything else (CPU threads, async spans, …) is host.
//! - Nested slices count by themselves (a parent's duration includes its children's).

use crate::model::{GroupKind, Trace, TrackRole};
use crate::strings::{FxHashMap, StrId};

/// Where a slice ran, for the per-device split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Where {
    /// A GPU stream, an accelerator engine or DMA queue, or any track of a device group.
    Device,
    /// A CPU thread or any other host track.
    Host,
}

/// Statistics of one name's durations.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpLatency {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    pub max_ns: i64,
    /// total / count, rounded down.
    pub mean_ns: i64,
    /// p50, nearest-rank.
    pub median_ns: i64,
    pub p90_ns: i64,
    pub p95_ns: i64,
    pub p99_ns: i64,
    pub p999_ns: i64,
    /// Share of the summed totals of the list this entry is in.
    pub percent: f64,
    pub histogram: Histogram,
}

/// Counts of durations in `bins` buckets between `min_ns` and `max_ns`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Histogram {
    /// `edges_ns[i]..edges_ns[i+1]` is bucket i (the last bucket includes its upper edge).
    pub edges_ns: Vec<i64>,
    pub counts: Vec<u64>,
    /// Whether the edges are spaced geometrically (wide ranges) instead of evenly.
    pub log: bool,
}

/// The latency summary of a profile.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    /// Every slice grouped by name, by total time (descending), then name.
    pub operators: Vec<OpLatency>,
    /// The same, over device tracks only and over host tracks only.
    pub by_device: ByDevice,
    pub percentile_rule: &'static str,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ByDevice {
    pub device: Vec<OpLatency>,
    pub host: Vec<OpLatency>,
}

pub const PERCENTILE_RULE: &str =
    "nearest-rank: the smallest duration with at least p % of the durations at or below it";

/// Buckets of each histogram.
pub const HISTOGRAM_BINS: usize = 16;

/// Where the slices of each track ran.
pub fn track_where(trace: &Trace) -> Vec<Where> {
    trace
        .tracks
        .iter()
        .map(|t| {
            let device_group = trace.groups.get(t.group.idx()).is_some_and(|g| g.kind == GroupKind::Device);
            let device_role = matches!(
                t.role,
                TrackRole::GpuStream | TrackRole::Engine(_) | TrackRole::DmaQueue | TrackRole::DmaTransfers
            );
            if device_group || device_role {
                Where::Device
            } else {
                Where::Host
            }
        })
        .collect()
}

/// The nearest-rank `permille`/1000 quantile of ascending `sorted` (not empty).
pub fn nearest_rank(sorted: &[i64], permille: u32) -> i64 {
    let n = sorted.len() as u128;
    // 1-based rank ⌈p·n⌉ in integers: (p·n + 999) / 1000, at least 1
    let rank = ((permille as u128 * n).div_ceil(1000)).max(1);
    let i = (rank as usize).saturating_sub(1).min(sorted.len().saturating_sub(1));
    sorted.get(i).copied().unwrap_or(0)
}

/// Statistics of one list of durations (sorted here). `None` for an empty list.
pub fn stats(name: String, durs: &mut [i64]) -> Option<OpLatency> {
    if durs.is_empty() {
        return None;
    }
    durs.sort_unstable();
    let count = durs.len() as u64;
    let total: i128 = durs.iter().map(|&d| d as i128).sum();
    let mean = total.div_euclid(count as i128);
    let (min_ns, max_ns) = (durs[0], durs[durs.len() - 1]);
    Some(OpLatency {
        name,
        count,
        total_ns: clamp_i64(total),
        min_ns,
        max_ns,
        mean_ns: clamp_i64(mean),
        median_ns: nearest_rank(durs, 500),
        p90_ns: nearest_rank(durs, 900),
        p95_ns: nearest_rank(durs, 950),
        p99_ns: nearest_rank(durs, 990),
        p999_ns: nearest_rank(durs, 999),
        percent: 0.0,
        histogram: histogram(durs, HISTOGRAM_BINS),
    })
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// A histogram of ascending `sorted` in `bins` buckets: geometric edges when the values are
/// positive and span more than a factor 100, even edges otherwise.
pub fn histogram(sorted: &[i64], bins: usize) -> Histogram {
    let bins = bins.max(1);
    let (Some(&lo), Some(&hi)) = (sorted.first(), sorted.last()) else {
        return Histogram { edges_ns: Vec::new(), counts: Vec::new(), log: false };
    };
    let log = lo > 0 && hi / lo.max(1) > 100;
    let mut edges: Vec<i64> = Vec::with_capacity(bins + 1);
    for k in 0..=bins {
        let e = if k == bins {
            hi
        } else if log {
            let f = k as f64 / bins as f64;
            ((lo as f64) * ((hi as f64) / (lo as f64)).powf(f)).round() as i64
        } else {
            lo + ((hi as i128 - lo as i128) * k as i128 / bins as i128) as i64
        };
        edges.push(e.clamp(lo, hi));
    }
    for k in 1..edges.len() {
        if edges[k] < edges[k - 1] {
            edges[k] = edges[k - 1];
        }
    }
    // sorted input: each bucket is one partition point away
    let mut counts = vec![0u64; bins];
    let mut from = 0usize;
    for (k, c) in counts.iter_mut().enumerate() {
        let to = if k + 1 == bins { sorted.len() } else { sorted.partition_point(|&d| d < edges[k + 1]) };
        let to = to.max(from);
        *c = (to - from) as u64;
        from = to;
    }
    Histogram { edges_ns: edges, counts, log }
}

/// Percentages of the list's total time, then the order: by total time (descending), then name.
fn rank(out: &mut [OpLatency]) {
    let sum: i128 = out.iter().map(|o| o.total_ns as i128).sum();
    for o in out.iter_mut() {
        o.percent = if sum > 0 { o.total_ns as f64 * 100.0 / sum as f64 } else { 0.0 };
    }
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
}

/// The latency summary over every slice of `trace`.
pub fn latency_summary(trace: &Trace) -> LatencySummary {
    let mut b = LatencyBuild::new(trace);
    loop {
        if let Some(s) = b.step(trace, usize::MAX) {
            return s;
        }
    }
}

/// [`latency_summary`] in bounded steps, for a page that must not be blocked by one pass over
/// millions of slices: each [`LatencyBuild::step`] adds at most `budget` slices to the per-name
/// lists, or (once every slice is in) turns names into statistics until `budget` durations were
/// sorted (at least one name per step: one name's sort is the smallest unit). The result does not
/// depend on the step sizes.
pub struct LatencyBuild {
    wh: Vec<Where>,
    /// Durations per name: over every track, device tracks, host tracks.
    lists: [FxHashMap<StrId, Vec<i64>>; 3],
    track: usize,
    slice: usize,
    collected: bool,
    /// After collection: (list, name, durations) still to turn into statistics.
    todo: Vec<(usize, StrId, Vec<i64>)>,
    done: [Vec<OpLatency>; 3],
}

impl LatencyBuild {
    pub fn new(trace: &Trace) -> LatencyBuild {
        LatencyBuild {
            wh: track_where(trace),
            lists: Default::default(),
            track: 0,
            slice: 0,
            collected: false,
            todo: Vec::new(),
            done: Default::default(),
        }
    }

    /// Do about `budget` units of work; the summary once everything is done (`trace` must be the
    /// one given to [`LatencyBuild::new`]).
    pub fn step(&mut self, trace: &Trace, budget: usize) -> Option<LatencySummary> {
        let mut left = budget.max(1);
        if !self.collected {
            while let Some(t) = trace.tracks.get(self.track) {
                let c = &t.slices;
                let end =
                    if t.role.is_derived() { c.len() } else { c.len().min(self.slice.saturating_add(left)) };
                if !t.role.is_derived() {
                    let device = self.wh.get(self.track) == Some(&Where::Device);
                    let [all, dev, host] = &mut self.lists;
                    let side = if device { dev } else { host };
                    for i in self.slice..end {
                        all.entry(c.name[i]).or_default().push(c.dur_ns.at(i));
                        side.entry(c.name[i]).or_default().push(c.dur_ns.at(i));
                    }
                    left -= end - self.slice;
                }
                if end == c.len() {
                    (self.track, self.slice) = (self.track + 1, 0);
                } else {
                    self.slice = end;
                }
                if left == 0 {
                    return None;
                }
            }
            self.collected = true;
            for (k, m) in self.lists.iter_mut().enumerate() {
                self.todo.extend(std::mem::take(m).into_iter().map(|(name, d)| (k, name, d)));
            }
        }
        while let Some((k, name, mut d)) = self.todo.pop() {
            left = left.saturating_sub(d.len().max(1));
            if let Some(s) = stats(trace.str(name).to_string(), &mut d) {
                self.done[k].push(s);
            }
            if left == 0 && !self.todo.is_empty() {
                return None;
            }
        }
        let [mut all, mut device, mut host] = std::mem::take(&mut self.done);
        rank(&mut all);
        rank(&mut device);
        rank(&mut host);
        Some(LatencySummary {
            operators: all,
            by_device: ByDevice { device, host },
            percentile_rule: PERCENTILE_RULE,
        })
    }
}

/// The slices named `name` (over every non-derived track, or only those on `side`), for
/// highlighting a row: `per_track[t]` = ascending slice indices of track `t`.
pub fn events_named(trace: &Trace, name: &str, side: Option<Where>) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); trace.tracks.len()];
    let Some(id) = trace.strings.find(name) else { return out };
    let wh = track_where(trace);
    for ((t, w), v) in trace.tracks.iter().zip(&wh).zip(&mut out) {
        if t.role.is_derived() || side.is_some_and(|s| s != *w) {
            continue;
        }
        let c = &t.slices;
        v.extend((0..c.len()).filter(|&i| c.name[i] == id).map(|i| i as u32));
        v.sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, TraceBuilder, TrackKind};

    /// In steps of any size, the summary is the one-pass summary.
    #[test]
    fn stepped_build_equals_one_pass() {
        let trace = crate::demo::demo_trace_steps(40);
        let whole = latency_summary(&trace);
        assert!(whole.operators.len() > 3, "{} names", whole.operators.len());
        assert!(!whole.by_device.device.is_empty() && !whole.by_device.host.is_empty());
        for budget in [1, 7, 1000, 65_536] {
            let mut b = LatencyBuild::new(&trace);
            let mut steps = 0usize;
            let s = loop {
                steps += 1;
                if let Some(s) = b.step(&trace, budget) {
                    break s;
                }
            };
            assert_eq!(s, whole, "in steps of {budget}");
            if budget == 1000 {
                assert!(steps >= trace.slice_count() / 1000, "{steps} steps");
            }
        }
    }

    #[test]
    fn nearest_rank_definition() {
        // 1..=10: p50 = 5 (rank 5), p90 = 9, p95 = 10 (⌈9.5⌉ = 10), p99 = 10
        let v: Vec<i64> = (1..=10).collect();
        assert_eq!(nearest_rank(&v, 500), 5);
        assert_eq!(nearest_rank(&v, 900), 9);
        assert_eq!(nearest_rank(&v, 950), 10);
        assert_eq!(nearest_rank(&v, 990), 10);
        assert_eq!(nearest_rank(&v, 0), 1);
        // 1..=1000: p99.9 = 999, p99 = 990
        let v: Vec<i64> = (1..=1000).collect();
        assert_eq!(nearest_rank(&v, 999), 999);
        assert_eq!(nearest_rank(&v, 990), 990);
        // 1001 values: ⌈0.999 · 1001⌉ = ⌈999.999⌉ = 1000
        let v: Vec<i64> = (1..=1001).collect();
        assert_eq!(nearest_rank(&v, 999), 1000);
        // two values: the median is the lower one, not their mean
        assert_eq!(nearest_rank(&[10, 20], 500), 10);
        assert_eq!(nearest_rank(&[7], 999), 7);
    }

    #[test]
    fn stats_mean_floors() {
        let s = stats("x".into(), &mut [3, 1, 2, 1]).unwrap();
        assert_eq!((s.count, s.total_ns, s.min_ns, s.max_ns, s.mean_ns), (4, 7, 1, 3, 1));
        assert_eq!(s.median_ns, 1);
        assert_eq!(s.histogram.counts.iter().sum::<u64>(), 4);
        assert!(stats("y".into(), &mut []).is_none());
    }

    #[test]
    fn histogram_counts_every_value_once() {
        let v: Vec<i64> = (0..1000).map(|i| 1 + i * i).collect();
        let h = histogram(&v, 16);
        assert!(h.log);
        assert_eq!(h.counts.len(), 16);
        assert_eq!(h.edges_ns.len(), 17);
        assert_eq!(h.counts.iter().sum::<u64>(), 1000);
        assert_eq!(*h.edges_ns.first().unwrap(), 1);
        assert_eq!(*h.edges_ns.last().unwrap(), 1 + 999 * 999);
        let h = histogram(&[5, 5, 5], 4);
        assert_eq!(h.counts.iter().sum::<u64>(), 3);
        let h = histogram(&[0, 10, 20, 30, 40], 4);
        assert!(!h.log);
        assert_eq!(h.edges_ns, vec![0, 10, 20, 30, 40]);
        assert_eq!(h.counts, vec![1, 1, 1, 2]);
    }

    #[test]
    fn split_by_device_and_percent() {
        let mut b = TraceBuilder::new("t");
        let host = b.add_group("host", GroupKind::Process);
        let dev = b.add_group("GPU 0", GroupKind::Device);
        let th = b.add_track(host, "thread 1", TrackKind::Thread, "1");
        let st = b.add_track(dev, "stream 7", TrackKind::Stream, "7");
        let (k, l) = (b.intern("k"), b.intern("launch"));
        for (i, d) in [100, 300, 200].into_iter().enumerate() {
            b.add_slice(st, i as i64 * 1000, d, k, StrId::EMPTY, ArgsId::NONE);
        }
        b.add_slice(th, 0, 360, l, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 5000, 40, k, StrId::EMPTY, ArgsId::NONE);
        let t = b.finish();
        let s = latency_summary(&t);
        assert_eq!(s.operators.len(), 2);
        let kk = &s.operators[0];
        assert_eq!((kk.name.as_str(), kk.count, kk.total_ns, kk.min_ns, kk.max_ns), ("k", 4, 640, 40, 300));
        assert_eq!((kk.mean_ns, kk.median_ns, kk.p90_ns), (160, 100, 300));
        assert!((kk.percent - 64.0).abs() < 1e-9);
        assert!((s.operators[1].percent - 36.0).abs() < 1e-9);
        assert_eq!(s.by_device.device.len(), 1);
        assert_eq!((s.by_device.device[0].count, s.by_device.device[0].total_ns), (3, 600));
        assert!((s.by_device.device[0].percent - 100.0).abs() < 1e-9);
        let h: Vec<(&str, u64)> = s.by_device.host.iter().map(|o| (o.name.as_str(), o.count)).collect();
        assert_eq!(h, vec![("launch", 1), ("k", 1)]);
    }

    #[test]
    fn events_named_by_side() {
        let mut b = TraceBuilder::new("t");
        let host = b.add_group("host", GroupKind::Process);
        let dev = b.add_group("GPU 0", GroupKind::Device);
        let th = b.add_track(host, "thread 1", TrackKind::Thread, "1");
        let st = b.add_track(dev, "stream 7", TrackKind::Stream, "7");
        let (k, l) = (b.intern("k"), b.intern("launch"));
        for i in 0..3 {
            b.add_slice(st, i * 1000, 100, k, StrId::EMPTY, ArgsId::NONE);
        }
        b.add_slice(th, 0, 360, l, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 5000, 40, k, StrId::EMPTY, ArgsId::NONE);
        let t = b.finish();
        let count = |v: &Vec<Vec<u32>>| v.iter().map(Vec::len).sum::<usize>();
        let all = events_named(&t, "k", None);
        assert_eq!(count(&all), 4);
        assert_eq!(count(&events_named(&t, "k", Some(Where::Device))), 3);
        assert_eq!(count(&events_named(&t, "k", Some(Where::Host))), 1);
        assert_eq!(count(&events_named(&t, "nothing", None)), 0);
        for (ti, v) in all.iter().enumerate() {
            let c = &t.tracks[ti].slices;
            assert!(v.iter().all(|&i| t.str(c.name[i as usize]) == "k"));
            assert!(v.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
