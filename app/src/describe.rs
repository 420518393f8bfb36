//! Text descriptions of timeline items, shared by the hover tooltip and the details panel:
//! hierarchy (enclosing slices), times relative to the trace start, flows.

use loupe_core::model::{Layout as SliceLayout, SliceRef, TrackId};
use loupe_core::time::format_duration_ns;
use loupe_core::view::format_time_at_resolution;
use loupe_core::Trace;

/// Slices enclosing slice `index` of `track` at lower depths, outermost first (nested tracks only).
pub fn parents(trace: &Trace, track: TrackId, index: usize) -> Vec<usize> {
    let Some(t) = trace.tracks.get(track.idx()) else { return Vec::new() };
    let cols = &t.slices;
    if index >= cols.len() || t.layout != SliceLayout::Nested {
        return Vec::new();
    }
    let depth = cols.depth_of(index);
    let (s, e) = (cols.start_ns[index], cols.end_ns(index));
    let mut out = Vec::with_capacity(depth);
    for d in 0..depth {
        let r = cols.depth_range(d);
        let k = cols.start_ns[r.clone()].partition_point(|&x| x <= s);
        if k == 0 {
            continue;
        }
        let p = r.start + k - 1;
        if cols.end_ns(p) >= e {
            out.push(p);
        }
    }
    out
}

/// A time as an offset from the trace start, exact to the nanosecond.
pub fn time_label(trace: &Trace, t_ns: i64) -> String {
    format_time_at_resolution(t_ns - trace.start_ns, 1.0)
}

pub fn duration_label(dur_ns: i64) -> String {
    format_duration_ns(dur_ns)
}

/// "outer › … › parent": the names of the slices enclosing slice `index` of `track`; `None` at
/// depth 0 (or for a track without nesting).
pub fn hierarchy_label(trace: &Trace, track: TrackId, index: usize) -> Option<String> {
    let parents = parents(trace, track, index);
    (!parents.is_empty()).then(|| {
        parents
            .iter()
            .map(|&p| slice_name(trace, SliceRef { track, index: p as u32 }))
            .collect::<Vec<_>>()
            .join(" › ")
    })
}

/// "name" of a slice, or "(unnamed)".
pub fn slice_name(trace: &Trace, s: SliceRef) -> String {
    let Some(t) = trace.tracks.get(s.track.idx()) else { return String::new() };
    let Some(&n) = t.slices.name.get(s.index as usize) else { return String::new() };
    let name = trace.str(n);
    if name.is_empty() {
        "(unnamed)".into()
    } else {
        name.to_string()
    }
}

/// "track label › name @ start" for a flow end.
pub fn slice_ref_label(trace: &Trace, s: SliceRef) -> String {
    let Some(t) = trace.tracks.get(s.track.idx()) else { return "?".into() };
    let i = s.index as usize;
    if i >= t.slices.len() {
        return "?".into();
    }
    format!(
        "{} › {} @ {}",
        trace.track_label(s.track),
        slice_name(trace, s),
        time_label(trace, t.slices.start_ns[i])
    )
}

/// The sample of a counter in effect at `t_ns` (the last one at or before it).
pub fn counter_sample_at(trace: &Trace, counter: usize, t_ns: i64) -> Option<usize> {
    let c = trace.counters.get(counter)?;
    let k = c.ts_ns.partition_point(|&t| t <= t_ns);
    k.checked_sub(1)
}

/// Label of a counter: "group / name".
pub fn counter_label(trace: &Trace, counter: usize) -> String {
    let Some(c) = trace.counters.get(counter) else { return String::new() };
    let g = trace.groups.get(c.group.idx()).map(|g| trace.str(g.name)).unwrap_or("");
    format!("{g} / {}", trace.str(c.name))
}
