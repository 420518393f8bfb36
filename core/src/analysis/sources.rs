//! Source code view: the debug-info source paths of a trace (`Trace::sources`, set by importers
//! as the typed `source` column) matched to source files the user dropped, time per line, and the
//! events of a line or a set of lines.
//!
//! **Matching** is by the longest common path suffix, component by component: paths are split on
//! `/` and `\` (empty and `.` components dropped), and a dropped file scores the number of
//! trailing components it shares with the debug-info path. `a/model.py` matches
//! `/home/x/a/model.py` (score 2) but not `/home/x/bmodel.py`; the file name must match (score ≥ 1).
//! The best score wins; a tie between several dropped files is [`PathMatch::Ambiguous`] (we never
//! guess). Components compare case-sensitively first; only when no dropped file matches that way
//! does an ASCII case-insensitive comparison count (a file copied from a case-insensitive file
//! system).
//!
//! **Time per line** is the sum of the durations of the slices whose `source` column points at
//! the line (events on different engines that overlap in time both count), with their number.
//! One scan of the `source` columns per trace ([`SourceTimes::build`]); the app memoizes it.

use crate::model::{SliceRef, SourceId};
use crate::strings::StrId;
use crate::Trace;
use std::collections::BTreeMap;

/// How one debug-info path matched the dropped files (indices into the dropped list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathMatch {
    File(usize),
    /// Several dropped files share the longest suffix: none is chosen.
    Ambiguous(Vec<usize>),
    None,
}

fn components(path: &str) -> Vec<&str> {
    path.split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".").collect()
}

fn common_suffix(a: &[&str], b: &[&str], fold_case: bool) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| if fold_case { x.eq_ignore_ascii_case(y) } else { x == y })
        .count()
}

/// Match one debug-info path against the dropped files' paths (see the module doc).
pub fn match_path(debug_path: &str, dropped: &[&str]) -> PathMatch {
    let want = components(debug_path);
    if want.is_empty() {
        return PathMatch::None;
    }
    let have: Vec<Vec<&str>> = dropped.iter().map(|p| components(p)).collect();
    for fold_case in [false, true] {
        let scores: Vec<usize> = have.iter().map(|h| common_suffix(&want, h, fold_case)).collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        if best == 0 {
            continue;
        }
        let winners: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
        return match winners.as_slice() {
            [one] => PathMatch::File(*one),
            _ => PathMatch::Ambiguous(winners),
        };
    }
    PathMatch::None
}

/// Events and summed duration of one source location (or a line, or a file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineTime {
    pub count: u64,
    pub total_ns: i64,
}

impl LineTime {
    fn add(&mut self, o: LineTime) {
        self.count += o.count;
        self.total_ns = self.total_ns.saturating_add(o.total_ns);
    }
}

/// Per [`SourceId`] (index of `Trace::sources`): the events pointing at it and their time.
#[derive(Debug, Clone, Default)]
pub struct SourceTimes {
    pub per_source: Vec<LineTime>,
}

impl SourceTimes {
    /// One pass over every track's `source` column.
    pub fn build(trace: &Trace) -> SourceTimes {
        let mut per_source = vec![LineTime::default(); trace.sources.len()];
        // derived tracks (operator spans) repeat their instructions' lines: not counted twice
        for tr in trace.tracks.iter().filter(|t| !t.role.is_derived()) {
            let Some(d) = &tr.slices.domain else { continue };
            for i in 0..tr.slices.len() {
                if let Some(t) = d.source(i).get().and_then(|s| per_source.get_mut(s.idx())) {
                    let dur = tr.slices.dur_ns.get(i).unwrap_or(0).max(0);
                    t.add(LineTime { count: 1, total_ns: dur });
                }
            }
        }
        SourceTimes { per_source }
    }
}

/// One distinct debug-info file of the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugFile {
    pub file: StrId,
    pub path: String,
    pub matched: PathMatch,
    /// Distinct known lines (line 0 = unknown is not counted).
    pub lines: usize,
    pub time: LineTime,
}

/// The debug-info files of `trace` matched to `dropped` (paths as the user gave them), by total
/// time (descending), then path.
pub fn debug_files(trace: &Trace, times: &SourceTimes, dropped: &[&str]) -> Vec<DebugFile> {
    let mut by_file: BTreeMap<StrId, (std::collections::BTreeSet<u32>, LineTime)> = BTreeMap::new();
    for (i, loc) in trace.sources.iter().enumerate() {
        let e = by_file.entry(loc.file).or_default();
        if loc.line > 0 {
            e.0.insert(loc.line);
        }
        e.1.add(times.per_source.get(i).copied().unwrap_or_default());
    }
    let mut out: Vec<DebugFile> = by_file
        .into_iter()
        .map(|(file, (lines, time))| {
            let path = trace.str(file).to_string();
            DebugFile { file, matched: match_path(&path, dropped), path, lines: lines.len(), time }
        })
        .collect();
    out.sort_by(|a, b| b.time.total_ns.cmp(&a.time.total_ns).then_with(|| a.path.cmp(&b.path)));
    out
}

/// Debug-info files resolved to dropped file `dropped_idx`.
fn files_of(files: &[DebugFile], dropped_idx: usize) -> Vec<StrId> {
    files.iter().filter(|f| f.matched == PathMatch::File(dropped_idx)).map(|f| f.file).collect()
}

/// Time per line of dropped file `dropped_idx` (over every debug-info file resolved to it).
pub fn lines_of(
    trace: &Trace,
    times: &SourceTimes,
    files: &[DebugFile],
    dropped_idx: usize,
) -> BTreeMap<u32, LineTime> {
    let mine = files_of(files, dropped_idx);
    let mut out: BTreeMap<u32, LineTime> = BTreeMap::new();
    for (i, loc) in trace.sources.iter().enumerate() {
        if loc.line > 0 && mine.contains(&loc.file) {
            out.entry(loc.line).or_default().add(times.per_source.get(i).copied().unwrap_or_default());
        }
    }
    out
}

/// Which `Trace::sources` entries lie on `lines` of dropped file `dropped_idx` (a mask by
/// [`SourceId`], for [`events_at`]).
pub fn sources_at(trace: &Trace, files: &[DebugFile], dropped_idx: usize, lines: &[u32]) -> Vec<bool> {
    let mine = files_of(files, dropped_idx);
    trace.sources.iter().map(|loc| mine.contains(&loc.file) && lines.contains(&loc.line)).collect()
}

/// The events whose `source` is in `mask`: per track, ascending slice indices.
pub fn events_at(trace: &Trace, mask: &[bool]) -> Vec<Vec<u32>> {
    trace
        .tracks
        .iter()
        .map(|tr| {
            let Some(d) = &tr.slices.domain else { return Vec::new() };
            if tr.role.is_derived() {
                return Vec::new();
            }
            (0..tr.slices.len())
                .filter(|&i| d.source(i).get().is_some_and(|s| mask.get(s.idx()).copied().unwrap_or(false)))
                .map(|i| i as u32)
                .collect()
        })
        .collect()
}

/// Where a slice's source is: (dropped file index, line), when its debug-info file is resolved.
pub fn locate(trace: &Trace, files: &[DebugFile], r: SliceRef) -> Option<(usize, u32)> {
    let tr = trace.tracks.get(r.track.idx())?;
    let src: SourceId = tr.slices.domain.as_ref()?.source(r.index as usize).get()?;
    let loc = trace.sources.get(src.idx())?;
    match files.iter().find(|f| f.file == loc.file)?.matched {
        PathMatch::File(i) => Some((i, loc.line)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_component_wise() {
        assert_eq!(match_path("/home/x/a/model.py", &["a/model.py"]), PathMatch::File(0));
        assert_eq!(match_path("/home/x/a/model.py", &["bmodel.py"]), PathMatch::None);
        assert_eq!(match_path("/home/x/bmodel.py", &["a/model.py", "model.py"]), PathMatch::None);
        // the longer shared suffix wins
        assert_eq!(match_path("/home/x/a/model.py", &["b/model.py", "x/a/model.py"]), PathMatch::File(1));
        // a dropped path longer than the debug path still shares its whole suffix
        assert_eq!(match_path("a/model.py", &["proj/a/model.py"]), PathMatch::File(0));
        // `.` and doubled separators do not count as components
        assert_eq!(match_path("./a//model.py", &["a/model.py", "model.py"]), PathMatch::File(0));
    }

    #[test]
    fn ties_are_ambiguous() {
        assert_eq!(match_path("model.py", &["a/model.py", "b/model.py"]), PathMatch::Ambiguous(vec![0, 1]));
        assert_eq!(
            match_path("/src/model.py", &["a/model.py", "kernel.py", "b/model.py"]),
            PathMatch::Ambiguous(vec![0, 2])
        );
        assert_eq!(match_path("/src/a/model.py", &["a/model.py", "b/model.py"]), PathMatch::File(0));
    }

    #[test]
    fn case_exact_first_then_folded() {
        assert_eq!(match_path("/x/Model.py", &["model.py"]), PathMatch::File(0));
        assert_eq!(match_path("/x/Model.py", &["model.py", "Model.py"]), PathMatch::File(1));
        // a case-sensitive match of the file name beats a longer case-folded one
        assert_eq!(match_path("/x/A/Model.py", &["a/model.py", "Model.py"]), PathMatch::File(1));
    }

    #[test]
    fn windows_separators_and_no_match() {
        assert_eq!(match_path(r"C:\work\proj\model.py", &["proj/model.py", "model.py"]), PathMatch::File(0));
        assert_eq!(match_path("/a/model.py", &[r"proj\a\model.py"]), PathMatch::File(0));
        assert_eq!(match_path("/a/model.py", &["kernel.py", "model.pyc"]), PathMatch::None);
        assert_eq!(match_path("/a/model.py", &[]), PathMatch::None);
        assert_eq!(match_path("", &["model.py"]), PathMatch::None);
        assert_eq!(match_path("///", &["model.py"]), PathMatch::None);
    }

    fn pair(iterations: u32) -> Trace {
        use crate::import::{import_files, InputFile, NoProgress};
        use crate::neuron::{neff, ntff};
        let neff = neff::writer::minimal_neff();
        let ntff = ntff::writer::write(&ntff::writer::minimal_pair_capture(iterations));
        let files = [InputFile { name: "m.neff", bytes: &neff }, InputFile { name: "m.ntff", bytes: &ntff }];
        let t = import_files(&files, &mut NoProgress).expect("imports");
        t.validate().expect("valid");
        t
    }

    #[test]
    fn time_per_line_on_a_neff_ntff_pair() {
        let t = pair(4);
        let times = SourceTimes::build(&t);
        let dropped = ["proj/kernel.py", "proj/model.py", "notes.py"];
        let files = debug_files(&t, &times, &dropped);
        let model = files.iter().find(|f| f.path == "model.py").expect("model.py in the debug info");
        assert_eq!(model.matched, PathMatch::File(1));
        // slots 1 and 2 (1 µs + 3 µs) point at model.py:58, once per iteration
        assert_eq!(model.time, LineTime { count: 8, total_ns: 4 * 4_000 });
        let lines = lines_of(&t, &times, &files, 1);
        assert_eq!(
            lines.into_iter().collect::<Vec<_>>(),
            vec![(58, LineTime { count: 8, total_ns: 16_000 })]
        );
        assert!(lines_of(&t, &times, &files, 2).is_empty());
        // the per-line time is the sum of the durations of exactly the events `events_at` returns
        let mask = sources_at(&t, &files, 1, &[58]);
        let ev = events_at(&t, &mask);
        let mut sum = 0i64;
        let mut n = 0u64;
        for (k, idx) in ev.iter().enumerate() {
            assert!(idx.windows(2).all(|w| w[0] < w[1]), "ascending");
            for &i in idx {
                sum += t.tracks[k].slices.dur_ns.at(i as usize);
                n += 1;
                let r = SliceRef { track: crate::model::TrackId(k as u32), index: i };
                assert_eq!(locate(&t, &files, r), Some((1, 58)));
            }
        }
        assert_eq!((n, sum), (8, 16_000));
        // a line nothing points at has no events
        let none = sources_at(&t, &files, 1, &[57]);
        assert!(events_at(&t, &none).iter().all(Vec::is_empty));
        // unresolved: nothing dropped, or the same name twice
        let files = debug_files(&t, &times, &[]);
        assert!(files.iter().all(|f| f.matched == PathMatch::None));
        assert!(lines_of(&t, &times, &files, 0).is_empty());
        let files = debug_files(&t, &times, &["a/model.py", "b/model.py"]);
        assert_eq!(
            files.iter().find(|f| f.path == "model.py").unwrap().matched,
            PathMatch::Ambiguous(vec![0, 1])
        );
        let r = SliceRef { track: crate::model::TrackId(0), index: 0 };
        assert_eq!(locate(&t, &files, r), None);
    }

    #[test]
    fn traces_without_debug_info_have_no_files() {
        let t = crate::demo::demo_trace();
        let times = SourceTimes::build(&t);
        assert!(debug_files(&t, &times, &["model.py"]).is_empty());
    }
}
