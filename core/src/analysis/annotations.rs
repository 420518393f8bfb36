//! Annotation markers on the timeline, named sets of them, their JSON file, and the content
//! fingerprint that keys a profile's saved sets (so they come back when the same profile is opened
//! again, whatever the file is called).
//!
//! The JSON file (export/import, and what the app keeps in localStorage per fingerprint):
//! ```json
//! {"loupe_annotations": 1, "fingerprint": "9f…", "current": "default",
//!  "sets": [{"name": "default", "markers": [{"id": 1, "name": "A", "t_ns": 1200}]}]}
//! ```
//! Times are i64 nanoseconds on the trace's own clock (as everywhere in the model).

use serde::{Deserialize, Serialize};

use crate::model::Trace;

/// Version written in `loupe_annotations`.
pub const FILE_VERSION: u32 = 1;
/// Limits on what a file may hold (an imported file is input like any other).
pub const MAX_SETS: usize = 1_000;
pub const MAX_MARKERS: usize = 10_000;
pub const MAX_NAME_CHARS: usize = 200;
/// The set a profile starts with.
pub const DEFAULT_SET: &str = "default";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub id: u32,
    pub name: String,
    pub t_ns: i64,
}

/// A named list of markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnotationSet {
    pub name: String,
    #[serde(default)]
    pub markers: Vec<Marker>,
}

impl AnnotationSet {
    pub fn new(name: &str) -> AnnotationSet {
        AnnotationSet { name: name.to_string(), markers: Vec::new() }
    }

    fn next_id(&self) -> u32 {
        self.markers.iter().map(|m| m.id).max().unwrap_or(0).saturating_add(1)
    }

    /// Add a marker at `t_ns` with the next free letter name (A, B, …, Z, A2, …); returns its id.
    pub fn add(&mut self, t_ns: i64) -> u32 {
        let id = self.next_id();
        let name = (0u32..)
            .map(|k| {
                let letter = char::from(b'A' + (k % 26) as u8);
                if k < 26 {
                    letter.to_string()
                } else {
                    format!("{letter}{}", k / 26 + 1)
                }
            })
            .find(|n| !self.markers.iter().any(|m| &m.name == n))
            .unwrap_or_default();
        self.markers.push(Marker { id, name, t_ns });
        id
    }

    pub fn get(&self, id: u32) -> Option<&Marker> {
        self.markers.iter().find(|m| m.id == id)
    }

    pub fn move_to(&mut self, id: u32, t_ns: i64) {
        if let Some(m) = self.markers.iter_mut().find(|m| m.id == id) {
            m.t_ns = t_ns;
        }
    }

    pub fn rename(&mut self, id: u32, name: &str) {
        if let Some(m) = self.markers.iter_mut().find(|m| m.id == id) {
            m.name = clip_name(name);
        }
    }

    pub fn remove(&mut self, id: u32) {
        self.markers.retain(|m| m.id != id);
    }
}

/// The file: every set of one profile, and which one is current.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnotationFile {
    pub loupe_annotations: u32,
    /// [`fingerprint`] of the profile the markers were placed on ("" when unknown).
    #[serde(default)]
    pub fingerprint: String,
    #[serde(default)]
    pub current: String,
    pub sets: Vec<AnnotationSet>,
}

impl AnnotationFile {
    pub fn new(fingerprint: &str) -> AnnotationFile {
        AnnotationFile {
            loupe_annotations: FILE_VERSION,
            fingerprint: fingerprint.to_string(),
            current: String::new(),
            sets: Vec::new(),
        }
    }

    pub fn set(&self, name: &str) -> Option<&AnnotationSet> {
        self.sets.iter().find(|s| s.name == name)
    }

    /// Store `set` under its name (replacing one of the same name).
    pub fn put(&mut self, set: AnnotationSet) {
        match self.sets.iter_mut().find(|s| s.name == set.name) {
            Some(s) => *s = set,
            None => self.sets.push(set),
        }
    }

    pub fn remove(&mut self, name: &str) {
        self.sets.retain(|s| s.name != name);
    }

    /// The current set (or the first, or an empty default one).
    pub fn current_set(&self) -> AnnotationSet {
        self.set(&self.current)
            .or_else(|| self.sets.first())
            .cloned()
            .unwrap_or_else(|| AnnotationSet::new(DEFAULT_SET))
    }

    pub fn to_json(&self) -> String {
        // plain data: serialising cannot fail
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parse a file someone gives us: a clear message for anything that is not one.
    pub fn from_json(text: &str) -> Result<AnnotationFile, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        if v.get("loupe_annotations").is_none() {
            return Err("not a Loupe annotations file (no \"loupe_annotations\" field)".into());
        }
        let mut f: AnnotationFile =
            serde_json::from_value(v).map_err(|e| format!("not a Loupe annotations file ({e})"))?;
        if f.loupe_annotations != FILE_VERSION {
            return Err(format!(
                "annotations file version {} is not supported (this Loupe reads version {FILE_VERSION})",
                f.loupe_annotations
            ));
        }
        if f.sets.len() > MAX_SETS {
            return Err(format!("too many annotation sets ({}, at most {MAX_SETS})", f.sets.len()));
        }
        for s in &mut f.sets {
            if s.markers.len() > MAX_MARKERS {
                return Err(format!(
                    "set \"{}\" has too many markers ({}, at most {MAX_MARKERS})",
                    clip_name(&s.name),
                    s.markers.len()
                ));
            }
            s.name = clip_name(&s.name);
            // ids must be unique for the widget's rows: renumber duplicates
            let mut seen = std::collections::HashSet::new();
            let mut next = s.markers.iter().map(|m| m.id).max().unwrap_or(0);
            for m in &mut s.markers {
                m.name = clip_name(&m.name);
                if !seen.insert(m.id) {
                    next = next.saturating_add(1);
                    m.id = next;
                    seen.insert(next);
                }
            }
        }
        // one set per name (the last wins, as `put` would do)
        let mut sets: Vec<AnnotationSet> = Vec::with_capacity(f.sets.len());
        for s in std::mem::take(&mut f.sets) {
            match sets.iter_mut().find(|x| x.name == s.name) {
                Some(x) => *x = s,
                None => sets.push(s),
            }
        }
        f.sets = sets;
        Ok(f)
    }
}

fn clip_name(s: &str) -> String {
    s.trim().chars().take(MAX_NAME_CHARS).collect()
}

/// The time of the event edge nearest to `t_ns` among `edges`, when one is within
/// `max_dist_ns`; else `t_ns` itself (markers snap to slice starts and ends).
pub fn snap_to_edge(t_ns: i64, edges: impl IntoIterator<Item = i64>, max_dist_ns: i64) -> i64 {
    edges
        .into_iter()
        .map(|e| (e.abs_diff(t_ns), e))
        .filter(|&(d, _)| d <= max_dist_ns.unsigned_abs())
        .min()
        .map_or(t_ns, |(_, e)| e)
}

/// A content fingerprint of a trace: the same profile imported again gives the same value, a
/// different one (almost surely) another. FNV-1a 64 over the format, the counts of every kind of
/// event, the time span, the group and track names, and the names, starts and durations of a
/// sample of slices (up to 4 per track, for up to 256 tracks). O(tracks), independent of events.
pub fn fingerprint(trace: &Trace) -> String {
    let mut h = crate::strings::Fnv::new();
    h.str(&trace.format);
    for n in [
        trace.groups.len(),
        trace.tracks.len(),
        trace.counters.len(),
        trace.slice_count(),
        trace.instant_count(),
        trace.counter_sample_count(),
        trace.flows.len(),
    ] {
        h.u64(n as u64);
    }
    h.u64(trace.start_ns as u64);
    h.u64(trace.end_ns as u64);
    for g in &trace.groups {
        h.str(trace.str(g.name));
    }
    for c in &trace.counters {
        h.str(trace.str(c.name));
    }
    for t in trace.tracks.iter().take(256) {
        h.str(trace.str(t.name));
        let s = &t.slices;
        let n = s.len();
        if n == 0 {
            continue;
        }
        for i in [0, n / 3, 2 * n / 3, n - 1] {
            h.str(trace.str(s.name[i]));
            h.u64(s.start_ns[i] as u64);
            h.u64(s.dur_ns.at(i) as u64);
        }
    }
    format!("{:016x}", h.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    fn build(names: &[&str], shift_ns: i64) -> Trace {
        let mut b = TraceBuilder::new("chrome-json");
        let g = b.add_group("proc", GroupKind::Process);
        let th = b.add_track(g, "main", TrackKind::Thread, "1");
        for (k, n) in names.iter().enumerate() {
            let id = b.intern(n);
            b.add_slice(th, shift_ns + k as i64 * 100, 50, id, StrId::EMPTY, ArgsId::NONE);
        }
        b.finish()
    }

    #[test]
    fn fingerprint_is_stable_for_the_same_trace_and_differs_otherwise() {
        let a = fingerprint(&build(&["a", "b", "c"], 0));
        assert_eq!(a.len(), 16);
        // the same content imported again
        assert_eq!(a, fingerprint(&build(&["a", "b", "c"], 0)));
        // different names, same counts and times
        assert_ne!(a, fingerprint(&build(&["a", "x", "c"], 0)));
        // same names, shifted in time
        assert_ne!(a, fingerprint(&build(&["a", "b", "c"], 1)));
        // one more event
        assert_ne!(a, fingerprint(&build(&["a", "b", "c", "d"], 0)));
        // another format with the same events
        let mut t = build(&["a", "b", "c"], 0);
        t.format = "kineto".into();
        assert_ne!(a, fingerprint(&t));
    }

    #[test]
    fn fingerprint_of_an_empty_trace() {
        let t = TraceBuilder::new("x").finish();
        assert_eq!(fingerprint(&t), fingerprint(&TraceBuilder::new("x").finish()));
        assert_ne!(fingerprint(&t), fingerprint(&TraceBuilder::new("y").finish()));
    }

    #[test]
    fn markers_add_move_rename_remove() {
        let mut s = AnnotationSet::new("default");
        let a = s.add(100);
        let b = s.add(50);
        assert_eq!((a, b), (1, 2));
        assert_eq!(s.get(a).unwrap().name, "A");
        assert_eq!(s.get(b).unwrap().name, "B");
        s.move_to(b, 75);
        s.rename(a, "  start of step  ");
        assert_eq!(s.get(b).unwrap().t_ns, 75);
        assert_eq!(s.get(a).unwrap().name, "start of step");
        s.remove(a);
        assert!(s.get(a).is_none());
        // ids are never reused while a higher one exists; the free letter name is
        let c = s.add(0);
        assert_eq!(c, 3);
        assert_eq!(s.get(c).unwrap().name, "A");
        // past Z
        let mut s = AnnotationSet::new("x");
        for k in 0..27 {
            s.add(k);
        }
        assert_eq!(s.markers[26].name, "A2");
    }

    #[test]
    fn json_round_trip() {
        let mut f = AnnotationFile::new("0123456789abcdef");
        let mut s = AnnotationSet::new("default");
        s.add(1_700_000_000_123_456_789); // an epoch time: exact through JSON
        s.add(-5);
        f.put(s.clone());
        let mut s2 = AnnotationSet::new("step 3");
        s2.add(42);
        f.put(s2);
        f.current = "step 3".into();
        let back = AnnotationFile::from_json(&f.to_json()).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.current_set().name, "step 3");
        assert_eq!(back.set("default").unwrap().markers[0].t_ns, 1_700_000_000_123_456_789);
        // put replaces by name
        f.put(AnnotationSet::new("default"));
        assert_eq!(f.sets.len(), 2);
        assert!(f.set("default").unwrap().markers.is_empty());
    }

    #[test]
    fn bad_files_give_clear_messages() {
        let err = |s: &str| AnnotationFile::from_json(s).unwrap_err();
        assert!(err("").starts_with("not valid JSON"), "{}", err(""));
        assert!(err("{\"sets\": [").starts_with("not valid JSON"));
        assert!(err("[1, 2]").contains("not a Loupe annotations file"));
        assert!(err("{\"traceEvents\": []}").contains("no \"loupe_annotations\""));
        assert!(err("{\"loupe_annotations\": 1}").contains("missing field `sets`"));
        assert!(err("{\"loupe_annotations\": 2, \"sets\": []}").contains("version 2 is not supported"));
        let bad_t = r#"{"loupe_annotations": 1, "sets": [{"name": "a", "markers": [{"id": 1, "name": "A", "t_ns": "soon"}]}]}"#;
        assert!(err(bad_t).contains("not a Loupe annotations file"));
        let huge = r#"{"loupe_annotations": 1, "sets": [{"name": "a", "markers": [{"id": 1, "name": "A", "t_ns": 1e300}]}]}"#;
        assert!(err(huge).contains("not a Loupe annotations file"));
        let many: Vec<String> = (0..MAX_SETS + 1).map(|k| format!("{{\"name\": \"s{k}\"}}")).collect();
        let many = format!("{{\"loupe_annotations\": 1, \"sets\": [{}]}}", many.join(","));
        assert!(err(&many).contains("too many annotation sets"));
    }

    #[test]
    fn imported_files_are_normalised() {
        let f = AnnotationFile::from_json(
            r#"{"loupe_annotations": 1, "sets": [
                {"name": "a", "markers": [{"id": 1, "name": "A", "t_ns": 5}, {"id": 1, "name": "B", "t_ns": 6}]},
                {"name": "a", "markers": []},
                {"name": "b"}]}"#,
        )
        .unwrap();
        // duplicate set names: the last wins; a missing marker list is empty
        assert_eq!(f.sets.len(), 2);
        assert!(f.set("a").unwrap().markers.is_empty());
        assert_eq!(f.current_set().name, "a");
        let f = AnnotationFile::from_json(
            r#"{"loupe_annotations": 1, "sets": [{"name": "a", "markers": [{"id": 1, "name": "A", "t_ns": 5}, {"id": 1, "name": "B", "t_ns": 6}]}]}"#,
        )
        .unwrap();
        let ids: Vec<u32> = f.sets[0].markers.iter().map(|m| m.id).collect();
        assert_eq!(ids, vec![1, 2]);
    }

    #[test]
    fn snapping() {
        let edges = [100, 200, 205];
        assert_eq!(snap_to_edge(103, edges, 8), 100);
        assert_eq!(snap_to_edge(203, edges, 8), 205);
        assert_eq!(snap_to_edge(150, edges, 8), 150);
        assert_eq!(snap_to_edge(150, [], 8), 150);
        assert_eq!(snap_to_edge(i64::MIN, [i64::MAX], 8), i64::MIN);
    }
}
