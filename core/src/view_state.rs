//! The state of a view that a link (or a saved `.loupe` file) restores: visible time range,
//! selected event, collapsed groups, layout, search query and the current annotation set.
//!
//! In a URL it lives in the fragment, as `&`-separated `key=value` pairs (values
//! percent-encoded; unknown keys are ignored, so newer links open in older builds):
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `v` | `1` | format version |
//! | `p` | 16 hex digits | the profile the link was made on (hash of its content fingerprint); a link opened with another profile keeps only the layout |
//! | `f` | text | the name(s) of the file(s) that profile was opened from, so a link opened without them can say which it expects |
//! | `t` | `<start_ns>_<end_ns>` | visible time range (trace nanoseconds) |
//! | `s` | `s<track>.<index>`, `i<track>.<index>`, `c<counter>.<index>` | selected slice, instant or counter sample |
//! | `g` | `<group>.<group>…` | collapsed groups |
//! | `q` | text | search query |
//! | `l` | JSON | workbench layout (the app's layout tree) |
//! | `a` | `<set>` | annotation set name |
//! | `m` | `<name>@<t_ns>,…` | the set's markers (names percent-encoded) |
//! | `k` | `recorded`, `iteration:<k>`, `collective:<n>` | the ranks' clock alignment (`analysis::ranks::Align`); `t` is on the aligned clock |
//!
//! Parsing is lenient and total: a damaged value drops that key, never the whole link.

use serde::{Deserialize, Serialize};

use crate::analysis::annotations::{AnnotationSet, Marker, MAX_MARKERS, MAX_NAME_CHARS};
use crate::analysis::ranks::Align;

pub const FRAGMENT_VERSION: u32 = 1;
/// Longest search query / layout JSON taken from a link.
const MAX_TEXT: usize = 16 * 1024;
/// Longest file label taken from a link (characters).
const MAX_FILE_CHARS: usize = 512;

/// A selected event, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SelectedRef {
    Slice { track: u32, index: u32 },
    Instant { track: u32, index: u32 },
    CounterSample { counter: u32, index: u32 },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewState {
    /// Identity of the profile this state belongs to ([`profile_key`]).
    #[serde(default)]
    pub profile: Option<String>,
    /// The file name(s) the profile was opened from (`a.json + b.neff`), as the user saw them:
    /// what a link opened without its file asks for. Never read to match a profile.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub range_ns: Option<(i64, i64)>,
    #[serde(default)]
    pub selection: Option<SelectedRef>,
    #[serde(default)]
    pub collapsed_groups: Vec<u32>,
    #[serde(default)]
    pub query: Option<String>,
    /// The app's layout as JSON (opaque here).
    #[serde(default)]
    pub layout_json: Option<String>,
    #[serde(default)]
    pub annotations: Option<AnnotationSet>,
    /// The ranks' clock alignment (absent: as recorded).
    #[serde(default)]
    pub align: Option<Align>,
}

/// A short, URL-safe key of a profile's content fingerprint
/// ([`crate::analysis::annotations::fingerprint`]).
pub fn profile_key(fingerprint: &str) -> String {
    let mut h = crate::strings::Fnv::new();
    h.bytes(fingerprint.as_bytes());
    format!("{:016x}", h.0)
}

fn pct_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

fn pct(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    pct_encode(s, &mut o);
    o
}

fn pct_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn two<T: std::str::FromStr>(s: &str, sep: char) -> Option<(T, T)> {
    let (a, b) = s.split_once(sep)?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

impl ViewState {
    /// The fragment, without the leading `#`.
    pub fn to_fragment(&self) -> String {
        let mut parts = vec![format!("v={FRAGMENT_VERSION}")];
        if let Some(p) = &self.profile {
            parts.push(format!("p={}", pct(p)));
        }
        if let Some(f) = self.file.as_deref().filter(|f| !f.is_empty()) {
            parts.push(format!("f={}", pct(f)));
        }
        if let Some((a, b)) = self.range_ns {
            parts.push(format!("t={a}_{b}"));
        }
        match self.selection {
            Some(SelectedRef::Slice { track, index }) => parts.push(format!("s=s{track}.{index}")),
            Some(SelectedRef::Instant { track, index }) => parts.push(format!("s=i{track}.{index}")),
            Some(SelectedRef::CounterSample { counter, index }) => {
                parts.push(format!("s=c{counter}.{index}"))
            }
            None => {}
        }
        if !self.collapsed_groups.is_empty() {
            let g: Vec<String> = self.collapsed_groups.iter().map(u32::to_string).collect();
            parts.push(format!("g={}", g.join(".")));
        }
        if let Some(q) = self.query.as_deref().filter(|q| !q.is_empty()) {
            parts.push(format!("q={}", pct(q)));
        }
        if let Some(l) = &self.layout_json {
            parts.push(format!("l={}", pct(l)));
        }
        if let Some(set) = &self.annotations {
            parts.push(format!("a={}", pct(&set.name)));
            if !set.markers.is_empty() {
                let m: Vec<String> =
                    set.markers.iter().map(|m| format!("{}@{}", pct(&m.name), m.t_ns)).collect();
                parts.push(format!("m={}", m.join(",")));
            }
        }
        if let Some(a) = self.align.filter(|a| *a != Align::AsRecorded) {
            parts.push(format!("k={}", a.key()));
        }
        parts.join("&")
    }

    /// Parse a fragment (with or without the leading `#`). Never fails: bad keys are dropped.
    pub fn from_fragment(fragment: &str) -> ViewState {
        let mut v = ViewState::default();
        let mut set_name: Option<String> = None;
        let mut markers: Option<Vec<Marker>> = None;
        for kv in fragment.trim_start_matches('#').split('&') {
            let Some((k, val)) = kv.split_once('=') else { continue };
            match k {
                "p" => v.profile = pct_decode(val).filter(|p| p.len() <= 64),
                "f" => {
                    v.file = pct_decode(val)
                        .map(|f| f.chars().filter(|c| !c.is_control()).take(MAX_FILE_CHARS).collect())
                        .filter(|f: &String| !f.is_empty())
                }
                "t" => v.range_ns = two::<i64>(val, '_').filter(|(a, b)| a < b),
                "s" => {
                    let (kind, rest) = val.split_at(val.len().min(1));
                    v.selection = two::<u32>(rest, '.').and_then(|(a, b)| match kind {
                        "s" => Some(SelectedRef::Slice { track: a, index: b }),
                        "i" => Some(SelectedRef::Instant { track: a, index: b }),
                        "c" => Some(SelectedRef::CounterSample { counter: a, index: b }),
                        _ => None,
                    })
                }
                "g" => {
                    v.collapsed_groups =
                        val.split('.').filter_map(|g| g.parse().ok()).take(100_000).collect::<Vec<u32>>()
                }
                "q" => v.query = pct_decode(val).filter(|q| q.len() <= MAX_TEXT),
                "k" => v.align = Align::parse(val).filter(|a| *a != Align::AsRecorded),
                "l" => v.layout_json = pct_decode(val).filter(|l| l.len() <= MAX_TEXT),
                "a" => set_name = pct_decode(val).map(|n| n.chars().take(MAX_NAME_CHARS).collect()),
                "m" => {
                    let list = val
                        .split(',')
                        .filter(|m| !m.is_empty())
                        .take(MAX_MARKERS)
                        .enumerate()
                        .filter_map(|(i, m)| {
                            let (name, t) = m.rsplit_once('@')?;
                            Some(Marker {
                                id: i as u32 + 1,
                                name: pct_decode(name)?.chars().take(MAX_NAME_CHARS).collect(),
                                t_ns: t.parse().ok()?,
                            })
                        })
                        .collect();
                    markers = Some(list);
                }
                _ => {}
            }
        }
        if let Some(name) = set_name {
            v.annotations = Some(AnnotationSet { name, markers: markers.unwrap_or_default() });
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> ViewState {
        ViewState {
            profile: Some(profile_key("chrome-json|3|…")),
            file: Some("run 1/trace #2.json.gz + a&b=c.neff".into()),
            range_ns: Some((-5, 1_234_567_890_123)),
            selection: Some(SelectedRef::Slice { track: 3, index: 41 }),
            collapsed_groups: vec![0, 7],
            query: Some("name:\"a b&c=d\" dur>1us #%".into()),
            layout_json: Some(r#"{"Split":{"dir":"H","a":1}}"#.into()),
            annotations: Some(AnnotationSet {
                name: "run 1, π".into(),
                markers: vec![
                    Marker { id: 1, name: "A".into(), t_ns: 10 },
                    Marker { id: 2, name: "step@2,b".into(), t_ns: -3 },
                ],
            }),
            align: Some(Align::Iteration(551)),
        }
    }

    #[test]
    fn round_trips_every_field() {
        let v = full();
        let f = v.to_fragment();
        assert!(!f.contains(' ') && !f.contains('#'), "{f}");
        assert_eq!(ViewState::from_fragment(&f), v);
        assert_eq!(ViewState::from_fragment(&format!("#{f}")), v);
        for sel in
            [SelectedRef::Instant { track: 1, index: 2 }, SelectedRef::CounterSample { counter: 9, index: 0 }]
        {
            let v = ViewState { selection: Some(sel), ..Default::default() };
            assert_eq!(ViewState::from_fragment(&v.to_fragment()), v);
        }
        let v = ViewState { align: Some(Align::Collective(3)), ..Default::default() };
        assert!(v.to_fragment().contains("k=collective:3"));
        assert_eq!(ViewState::from_fragment(&v.to_fragment()), v);
        // as recorded is the default: not written, and read as absent
        let v = ViewState { align: Some(Align::AsRecorded), ..Default::default() };
        assert!(!v.to_fragment().contains("k="));
        assert_eq!(ViewState::from_fragment("k=recorded").align, None);
    }

    #[test]
    fn damaged_values_drop_only_their_key() {
        let v =
            ViewState::from_fragment("v=1&t=9_3&s=x1.2&q=%ZZ&g=1.x.2&m=A@1&zz=1&t2&l=%7B%7D&k=iteration:x");
        assert_eq!(v.align, None);
        assert_eq!(v.range_ns, None, "end before start");
        assert_eq!(v.selection, None);
        assert_eq!(v.query, None);
        assert_eq!(v.collapsed_groups, vec![1, 2]);
        assert_eq!(v.layout_json.as_deref(), Some("{}"));
        assert_eq!(v.annotations, None, "markers without a set name are ignored");
        assert_eq!(ViewState::from_fragment(""), ViewState::default());
        assert_eq!(ViewState::from_fragment("#&&=&s=&t=_"), ViewState::default());
        // a file label: control characters dropped, bounded
        let long = format!("f=a%0Ab{}", "x".repeat(2000));
        let f = ViewState::from_fragment(&long).file.unwrap();
        assert!(f.starts_with("ab") && f.chars().count() == MAX_FILE_CHARS, "{}", &f[..10]);
    }

    #[test]
    fn profile_key_is_stable_and_distinguishes() {
        assert_eq!(profile_key("x"), profile_key("x"));
        assert_ne!(profile_key("x"), profile_key("y"));
        assert_eq!(profile_key("x").len(), 16);
    }
}
