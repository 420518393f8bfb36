//! A device profile's collective operations: per operation name their durations (count, min,
//! quartiles, median, max: Neuron Explorer's Summary shows "min / quartiles / max"), and the
//! operations much longer than their group's median (Explorer's "collective outliers" insight).
//!
//! Where they come from: slices of tracks typed [`TrackRole::CollectiveOps`] — Explorer's Parquet
//! `CcOp` table. An NTFF's own collective records are not decoded (`neuron::ntff` says what it
//! reads), so an NTFF alone has none; neither has the JSON export Loupe reads.
//!
//! Definitions (Loupe's; Explorer does not publish its own):
//! - a **group** is the operation's name (`AllReduce`, `AllGather`, …) on one device group;
//! - **quartiles** interpolate linearly between the two nearest durations of the sorted list
//!   (numpy's default `percentile`, method "linear"), rounded to the nanosecond;
//! - an **outlier** is an operation longer than `factor` × its group's median (groups of at
//!   least [`MIN_GROUP`] operations: a median of one or two says little).

use crate::model::{GroupId, SliceRef, Trace, TrackId, TrackRole};
use crate::strings::{FxHashMap, StrId};

/// The fewest operations of a group for its outliers to be looked for.
pub const MIN_GROUP: usize = 3;

/// One group's durations.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CollectiveDurations {
    pub group: GroupId,
    pub name: String,
    pub count: usize,
    pub total_ns: i64,
    pub min_ns: i64,
    pub q1_ns: i64,
    pub median_ns: i64,
    pub q3_ns: i64,
    pub max_ns: i64,
}

/// The collective operations of one device group and name, with their durations, ascending.
struct Ops {
    group: GroupId,
    name: StrId,
    refs: Vec<SliceRef>,
    sorted_ns: Vec<i64>,
}

/// Every collective operation of the profile by (device group, name), in the order the groups
/// and names first appear.
fn by_group(trace: &Trace) -> Vec<Ops> {
    let mut out: Vec<Ops> = Vec::new();
    let mut index: FxHashMap<(GroupId, StrId), usize> = FxHashMap::default();
    for (ti, tr) in trace.tracks.iter().enumerate() {
        if tr.role != TrackRole::CollectiveOps {
            continue;
        }
        let s = &tr.slices;
        for i in 0..s.len() {
            let k = *index.entry((tr.group, s.name[i])).or_insert_with(|| {
                out.push(Ops { group: tr.group, name: s.name[i], refs: Vec::new(), sorted_ns: Vec::new() });
                out.len() - 1
            });
            out[k].refs.push(SliceRef { track: TrackId(ti as u32), index: i as u32 });
            out[k].sorted_ns.push(s.dur_ns.at(i).max(0));
        }
    }
    for o in &mut out {
        o.sorted_ns.sort_unstable();
    }
    out
}

fn dur_ns(trace: &Trace, r: SliceRef) -> i64 {
    trace.tracks[r.track.idx()].slices.dur_ns.at(r.index as usize).max(0)
}

/// The `p`-th percentile (0..=100) of sorted `v` (non-empty), numpy's "linear" method.
fn percentile(v: &[i64], p: f64) -> i64 {
    let pos = (v.len() - 1) as f64 * p / 100.0;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    (v[lo] as f64 + (v[hi] as f64 - v[lo] as f64) * frac).round() as i64
}

/// Per device group and operation name, the operations' durations; empty when the profile has
/// no collective operations.
pub fn collective_durations(trace: &Trace) -> Vec<CollectiveDurations> {
    by_group(trace)
        .into_iter()
        .map(|o| {
            let d = &o.sorted_ns;
            CollectiveDurations {
                group: o.group,
                name: trace.str(o.name).to_string(),
                count: d.len(),
                total_ns: d.iter().fold(0i64, |a, &x| a.saturating_add(x)),
                min_ns: d[0],
                q1_ns: percentile(d, 25.0),
                median_ns: percentile(d, 50.0),
                q3_ns: percentile(d, 75.0),
                max_ns: d[d.len() - 1],
            }
        })
        .collect()
}

/// The operations longer than `factor` × their group's median (groups of [`MIN_GROUP`] or more),
/// and the largest ratio of any operation to its group's median (`None` without such a group).
pub fn collective_outliers(trace: &Trace, factor: f64) -> (Vec<SliceRef>, Option<f64>) {
    let mut out = Vec::new();
    let mut worst: Option<f64> = None;
    for o in by_group(trace) {
        let median = percentile(&o.sorted_ns, 50.0);
        if o.refs.len() < MIN_GROUP || median <= 0 {
            continue;
        }
        for &r in &o.refs {
            let ratio = dur_ns(trace, r) as f64 / median as f64;
            worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
            if ratio > factor {
                out.push(r);
            }
        }
    }
    (out, worst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, TraceBuilder, TrackKind};

    fn trace(durs: &[(&str, i64)]) -> Trace {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let t = b.add_track(g, "CC operations", TrackKind::Thread, "cc");
        b.set_track_role(t, TrackRole::CollectiveOps);
        let other = b.add_track(g, "other", TrackKind::Thread, "o");
        let mut at = 0;
        for &(name, d) in durs {
            let n = b.intern(name);
            b.add_slice(t, at, d, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(other, at, 1_000_000, n, StrId::EMPTY, ArgsId::NONE);
            at += d + 10;
        }
        b.finish()
    }

    #[test]
    fn quartiles_are_numpys_linear_ones() {
        let t = trace(&[
            ("AllReduce", 10),
            ("AllReduce", 40),
            ("AllGather", 5),
            ("AllReduce", 20),
            ("AllReduce", 30),
        ]);
        let d = collective_durations(&t);
        assert_eq!(d.len(), 2, "by name, the other track's slices are not collectives");
        let ar = &d[0];
        assert_eq!(ar.name, "AllReduce");
        // numpy.percentile([10, 20, 30, 40], [0, 25, 50, 75, 100]) = 10, 17.5, 25, 32.5, 40
        assert_eq!(
            (ar.count, ar.min_ns, ar.q1_ns, ar.median_ns, ar.q3_ns, ar.max_ns),
            (4, 10, 18, 25, 33, 40)
        );
        assert_eq!(ar.total_ns, 100);
        let ag = &d[1];
        assert_eq!((ag.count, ag.min_ns, ag.q1_ns, ag.median_ns, ag.q3_ns, ag.max_ns), (1, 5, 5, 5, 5, 5));
    }

    #[test]
    fn outliers_against_their_groups_median() {
        let t = trace(&[
            ("AllReduce", 10),
            ("AllReduce", 11),
            ("AllReduce", 12),
            ("AllReduce", 30),
            ("AllGather", 500),
        ]);
        // AllReduce median 11.5 → 12 ns; 30 / 12 = 2.5 > 2; AllGather alone is no group
        let (out, worst) = collective_outliers(&t, 2.0);
        assert_eq!(out.len(), 1);
        assert_eq!(dur_ns(&t, out[0]), 30);
        assert_eq!(worst, Some(2.5));
        let (none, _) = collective_outliers(&t, 3.0);
        assert!(none.is_empty());
        let (empty, w) = collective_outliers(&trace(&[]), 2.0);
        assert!(empty.is_empty() && w.is_none());
        assert!(collective_durations(&trace(&[])).is_empty());
    }
}
