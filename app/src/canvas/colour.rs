//! Slice colours by the "Colour by" choice, from typed columns (operator, layer, opcode, engine)
//! or strings (name, category), plus the legend of what the colours mean.
//!
//! Colours are indices into the theme's palette: the name palette of `loupe_core::view`, then
//! [`NEUTRAL`] (slices without the chosen attribute) and the [`HEAT`] ramp (duration).

use loupe_core::model::{OpId, TrackId, TrackRole};
use loupe_core::strings::FxHashMap;
use loupe_core::view::{Rgb, PALETTE};
use loupe_core::StrId;

use super::colour_index::{ColourKey, LegendEntry};
use crate::state::{ColourBy, TraceData};

/// Palette index of "no value" (e.g. a DMA packet when colouring by operator).
pub const NEUTRAL: usize = PALETTE.len();
/// First palette index of the duration heat ramp.
pub const HEAT0: usize = PALETTE.len() + 1;
/// The neutral colour and the heat ramp (short → long), appended to the name palette.
pub const NEUTRAL_RGB: Rgb = Rgb(0xc4, 0xc9, 0xd1);
pub const HEAT: [Rgb; 8] = [
    Rgb(0x31, 0x36, 0x95),
    Rgb(0x45, 0x75, 0xb4),
    Rgb(0x74, 0xad, 0xd1),
    Rgb(0xab, 0xd9, 0xe9),
    Rgb(0xfe, 0xe0, 0x90),
    Rgb(0xfd, 0xae, 0x61),
    Rgb(0xf4, 0x6d, 0x43),
    Rgb(0xd7, 0x30, 0x27),
];

/// The colour key of slice `i` of track `tid`.
pub fn key_of(d: &TraceData, by: ColourBy, tid: TrackId, i: usize) -> ColourKey {
    let t = d.trace.track(tid);
    let cols = &t.slices;
    match by {
        ColourBy::Name => ColourKey::Str(cols.name[i]),
        ColourBy::Category => non_empty(d, cols.category[i]),
        ColourBy::Track => ColourKey::Track(tid),
        ColourBy::Duration => ColourKey::Heat(heat_bucket(d, cols.dur_ns.at(i))),
        ColourBy::Auto | ColourBy::Opcode | ColourBy::Operator | ColourBy::Layer => {
            let dom = cols.domain.as_ref();
            let fields = dom.map(|dom| (dom.opcode(i), dom.operator(i)));
            domain_key(d, by, t.role, fields).unwrap_or(ColourKey::Str(cols.name[i]))
        }
    }
}

fn non_empty(d: &TraceData, s: StrId) -> ColourKey {
    if d.trace.str(s).is_empty() {
        ColourKey::None
    } else {
        ColourKey::Str(s)
    }
}

/// The key of a slice with these domain fields (opcode, innermost operator; `None`: the track
/// has none) on a track of `role`, under a colouring by domain fields (Auto, Opcode, Operator,
/// Layer); `None` when the slice's own name decides. What the executions of one instruction
/// share decides it, so the legend adds up per domain shape ([`LegendBuild`]).
fn domain_key(
    d: &TraceData,
    by: ColourBy,
    role: TrackRole,
    fields: Option<(StrId, OpId)>,
) -> Option<ColourKey> {
    let op_name = |level: &[OpId]| -> ColourKey {
        let Some((_, op)) = fields else { return ColourKey::None };
        let at = level.get(op.idx()).copied().unwrap_or(OpId::NONE);
        let op = if at.is_none() { op } else { at };
        match d.trace.operators.node(op) {
            Some(n) => non_empty(d, n.name),
            None => ColourKey::None,
        }
    };
    match by {
        // instructions by their framework operator (else opcode), everything else by name
        ColourBy::Auto => match (role, fields) {
            (TrackRole::Engine(_), Some((opcode, _))) => match op_name(&d.indexes.colours.op_framework) {
                ColourKey::None if !d.trace.str(opcode).is_empty() => Some(ColourKey::Str(opcode)),
                ColourKey::None => None,
                k => Some(k),
            },
            _ => None,
        },
        ColourBy::Opcode => Some(fields.map_or(ColourKey::None, |(opcode, _)| non_empty(d, opcode))),
        ColourBy::Operator => Some(op_name(&d.indexes.colours.op_framework)),
        ColourBy::Layer => Some(op_name(&d.indexes.colours.op_layer)),
        ColourBy::Name | ColourBy::Category | ColourBy::Track | ColourBy::Duration => None,
    }
}

/// Heat bucket (0 = shortest … 7 = longest) of a duration, on a log scale over the trace.
pub fn heat_bucket(d: &TraceData, dur_ns: i64) -> u8 {
    let (lo, hi) = d.indexes.colours.log_dur;
    if dur_ns <= 0 || hi <= lo {
        return 0;
    }
    let x = (((dur_ns as f64).log10() - lo) / (hi - lo)).clamp(0.0, 1.0);
    ((x * HEAT.len() as f64) as usize).min(HEAT.len() - 1) as u8
}

/// Palette index of a colour key.
pub fn palette_of(d: &TraceData, key: ColourKey) -> usize {
    match key {
        ColourKey::Str(s) => d.indexes.color_index(s),
        ColourKey::Track(t) => match d.trace.tracks.get(t.idx()).map(|t| t.role) {
            // engines get fixed, distinct colours; other tracks by name
            Some(TrackRole::Engine(e)) => (e.rank().unsigned_abs() as usize * 7) % PALETTE.len(),
            Some(_) => d.indexes.color_index(d.trace.track(t).name),
            None => NEUTRAL,
        },
        ColourKey::Heat(b) => HEAT0 + b as usize,
        ColourKey::None => NEUTRAL,
    }
}

/// The palette index of slice `i` of track `tid` under `by`.
pub fn slice_colour(d: &TraceData, by: ColourBy, tid: TrackId, i: usize) -> usize {
    palette_of(d, key_of(d, by, tid, i))
}

/// The legend of `by`: the keys covering the most time (at most `top`), then "other" and
/// "none". Duration lists the heat buckets with their ranges. Scans every slice once.
pub fn legend(d: &TraceData, by: ColourBy, top: usize) -> Vec<LegendEntry> {
    if by == ColourBy::Duration {
        let (lo, hi) = d.indexes.colours.log_dur;
        let step = (hi - lo) / HEAT.len() as f64;
        return (0..HEAT.len())
            .map(|b| {
                let a = 10f64.powf(lo + step * b as f64) as i64;
                let z = 10f64.powf(lo + step * (b + 1) as f64) as i64;
                LegendEntry {
                    key: ColourKey::Heat(b as u8),
                    label: format!(
                        "{} – {}",
                        loupe_core::time::format_duration_ns(a),
                        loupe_core::time::format_duration_ns(z)
                    ),
                    palette: HEAT0 + b,
                    total_ns: 0,
                    count: 0,
                }
            })
            .collect();
    }
    let mut acc = LegendBuild::new(by);
    while acc.add_next(d, usize::MAX) {}
    acc.finish(d, top)
}

/// Legend entries the timeline shows (the keys covering the most time).
pub const LEGEND_TOP: usize = 14;

/// [`legend`] in bounded steps (the page builds the default colouring's legend between frames,
/// with its other indexes: on a big trace one pass over every slice is too long for one task).
/// The result does not depend on the step sizes.
pub struct LegendBuild {
    by: ColourBy,
    acc: FxHashMap<ColourKey, (i64, u64)>,
    track: usize,
    slice: usize,
    /// The track being added, when its domain shapes decide its keys: per shape (and one
    /// more for slices past the shape table) the key (`None`: by the slice's name) and the
    /// time and count so far. Hashing once per shape instead of once per slice.
    shapes: Option<Vec<(Option<ColourKey>, i64, u64)>>,
}

impl LegendBuild {
    pub fn new(by: ColourBy) -> LegendBuild {
        LegendBuild { by, acc: FxHashMap::default(), track: 0, slice: 0, shapes: None }
    }

    /// The per-shape keys of track `t`, when colouring by domain fields.
    fn shape_keys(
        &self,
        d: &TraceData,
        t: &loupe_core::model::Track,
    ) -> Option<Vec<(Option<ColourKey>, i64, u64)>> {
        if !matches!(self.by, ColourBy::Auto | ColourBy::Opcode | ColourBy::Operator | ColourBy::Layer) {
            return None;
        }
        let dom = t.slices.domain.as_ref()?;
        let sh = &dom.shapes;
        let key = |s: usize| domain_key(d, self.by, t.role, Some((sh.get(s).opcode, sh.get(s).operator)));
        Some((0..=sh.len()).map(|s| (key(s), 0, 0)).collect())
    }

    /// Add at most `budget` more slices; `false` once every slice is in.
    pub fn add_next(&mut self, d: &TraceData, budget: usize) -> bool {
        let mut left = budget.max(1);
        while let Some(t) = d.trace.tracks.get(self.track) {
            let tid = TrackId(self.track as u32);
            let end = t.slices.len().min(self.slice.saturating_add(left));
            if self.slice == 0 {
                self.shapes = self.shape_keys(d, t);
            }
            match (&mut self.shapes, t.slices.domain.as_ref()) {
                (Some(shapes), Some(dom)) => {
                    let past = shapes.len() - 1;
                    for i in self.slice..end {
                        let dur = t.slices.dur_ns.at(i);
                        let e = &mut shapes[dom.shape_index(i).min(past)];
                        if e.0.is_some() {
                            e.1 = e.1.saturating_add(dur);
                            e.2 += 1;
                        } else {
                            add(&mut self.acc, ColourKey::Str(t.slices.name[i]), dur, 1);
                        }
                    }
                }
                _ => {
                    for i in self.slice..end {
                        add(&mut self.acc, key_of(d, self.by, tid, i), t.slices.dur_ns.at(i), 1);
                    }
                }
            }
            left -= end - self.slice;
            if end == t.slices.len() {
                for (k, ns, n) in self.shapes.take().into_iter().flatten() {
                    if let (Some(k), true) = (k, n > 0) {
                        add(&mut self.acc, k, ns, n);
                    }
                }
                self.track += 1;
                self.slice = 0;
            } else {
                self.slice = end;
            }
            if left == 0 {
                return self.track < d.trace.tracks.len();
            }
        }
        false
    }

    /// The entries: the `top` keys covering the most time (ties: more events first, then the
    /// key's order), then "N more" and "none".
    pub fn finish(self, d: &TraceData, top: usize) -> Vec<LegendEntry> {
        if self.by == ColourBy::Duration {
            return legend(d, ColourBy::Duration, top);
        }
        legend_entries(d, self.acc, top)
    }
}

/// Add `n` slices covering `ns` to `key`'s total.
fn add(acc: &mut FxHashMap<ColourKey, (i64, u64)>, key: ColourKey, ns: i64, n: u64) {
    let e = acc.entry(key).or_default();
    e.0 = e.0.saturating_add(ns);
    e.1 += n;
}

fn legend_entries(d: &TraceData, mut acc: FxHashMap<ColourKey, (i64, u64)>, top: usize) -> Vec<LegendEntry> {
    let none = acc.remove(&ColourKey::None);
    let mut v: Vec<(ColourKey, (i64, u64))> = acc.into_iter().collect();
    v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(b.1 .1.cmp(&a.1 .1)).then(a.0.cmp(&b.0)));
    let label = |k: ColourKey| match k {
        ColourKey::Str(s) => d.trace.str(s).to_string(),
        ColourKey::Track(t) => d.trace.track_label(t),
        _ => String::new(),
    };
    // distinct within the legend: a name's own colour (the hash, not what an earlier legend
    // moved it to) unless a more prominent entry or an engine holds it
    // entries painted through the same string share its colour (two tracks of one name); the
    // strings are made distinct, engines keep their fixed colours
    let shown: Vec<ColourKey> = v.iter().take(top).map(|x| x.0).collect();
    let mut strings: Vec<StrId> = Vec::new();
    let mut slot: FxHashMap<StrId, usize> = FxHashMap::default();
    for s in shown.iter().filter_map(|&k| legend_string(d, k)) {
        slot.entry(s).or_insert_with(|| {
            strings.push(s);
            strings.len() - 1
        });
    }
    let fixed_keys: Vec<ColourKey> =
        shown.iter().copied().filter(|&k| legend_string(d, k).is_none()).collect();
    let mut pref: Vec<usize> =
        strings.iter().map(|&s| loupe_core::view::palette_index(d.trace.str(s))).collect();
    pref.extend(fixed_keys.iter().map(|&k| palette_of(d, k)));
    let fixed: Vec<bool> = (0..pref.len()).map(|i| i >= strings.len()).collect();
    let assigned = loupe_core::view::distinct_palette(&pref, &fixed);
    let palette_for =
        |k: ColourKey| legend_string(d, k).map_or_else(|| palette_of(d, k), |s| assigned[slot[&s]]);
    let mut out: Vec<LegendEntry> = v
        .iter()
        .take(top)
        .map(|&(k, (ns, n))| (k, (ns, n), palette_for(k)))
        .map(|(k, (ns, n), palette)| LegendEntry { label: label(k), key: k, palette, total_ns: ns, count: n })
        .collect();
    if v.len() > top {
        let (ns, n) = v[top..].iter().fold((0i64, 0u64), |a, x| (a.0.saturating_add(x.1 .0), a.1 + x.1 .1));
        out.push(LegendEntry {
            key: ColourKey::None,
            label: format!("{} more", v.len() - top),
            palette: usize::MAX,
            total_ns: ns,
            count: n,
        });
    }
    if let Some((ns, n)) = none {
        out.push(LegendEntry {
            label: "none".into(),
            key: ColourKey::None,
            palette: NEUTRAL,
            total_ns: ns,
            count: n,
        });
    }
    out
}

/// The string whose colour-table entry paints a legend entry's slices: the key's own string, or
/// the name of a track that is not an engine (engines have fixed colours); `None` otherwise.
pub fn legend_string(d: &TraceData, k: ColourKey) -> Option<StrId> {
    match k {
        ColourKey::Str(s) => Some(s),
        ColourKey::Track(t) => match d.trace.tracks.get(t.idx()) {
            Some(tr) if !matches!(tr.role, TrackRole::Engine(_)) => Some(tr.name),
            _ => None,
        },
        _ => None,
    }
}

/// CSS colour of a palette index (for DOM swatches).
pub fn css_of(palette: usize) -> String {
    let rgb = if palette < PALETTE.len() {
        PALETTE[palette]
    } else if palette == NEUTRAL {
        NEUTRAL_RGB
    } else {
        HEAT.get(palette - HEAT0).copied().unwrap_or(NEUTRAL_RGB)
    };
    rgb.to_css()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The legend built in steps (as the page's loader does) is the one-pass legend, whatever
    /// the step size, and accounts for every slice.
    #[test]
    fn stepped_legend_is_the_one_pass_legend() {
        let trace = loupe_core::demo::large_demo(30_000, &mut |_, _| {});
        let slices = trace.slice_count() as u64;
        let d = TraceData::new(trace, "t".into(), false, 0.0);
        for by in [ColourBy::Auto, ColourBy::Name, ColourBy::Track, ColourBy::Category] {
            let whole = legend(&d, by, LEGEND_TOP);
            assert!(!whole.is_empty());
            assert_eq!(whole.iter().map(|e| e.count).sum::<u64>(), slices, "{by:?}");
            for budget in [1, 7, 4096] {
                let mut b = LegendBuild::new(by);
                while b.add_next(&d, budget) {}
                assert_eq!(b.finish(&d, LEGEND_TOP), whole, "{by:?} in steps of {budget}");
            }
        }
        assert_eq!(d.indexes.auto_legend.as_ref(), Some(&legend(&d, ColourBy::Auto, LEGEND_TOP)));
    }

    /// Within one legend no two entries share a colour (the demo's names collide in the hash),
    /// and once it is applied the timeline paints each entry's slices in the legend's colour;
    /// the next legend puts the names it does not show back in their own colour.
    #[test]
    fn legend_colours_are_distinct_and_painted() {
        let trace = loupe_core::demo::large_demo(30_000, &mut |_, _| {});
        let d = TraceData::new(trace, "t".into(), false, 0.0);
        for by in [ColourBy::Name, ColourBy::Category, ColourBy::Track, ColourBy::Auto] {
            let l = legend(&d, by, LEGEND_TOP);
            d.apply_legend(&l);
            let shown: Vec<&LegendEntry> = l.iter().filter(|e| e.palette < PALETTE.len()).collect();
            // what is painted through one string (two tracks of one name) shares its colour;
            // anything else is distinct
            let mut ids: Vec<(String, usize)> = shown
                .iter()
                .map(|e| {
                    (
                        legend_string(&d, e.key).map_or(format!("{:?}", e.key), |s| format!("s{}", s.0)),
                        e.palette,
                    )
                })
                .collect();
            ids.sort();
            ids.dedup();
            let mut p: Vec<usize> = ids.iter().map(|x| x.1).collect();
            p.sort_unstable();
            p.dedup();
            assert_eq!(p.len(), ids.len(), "{by:?}: {ids:?}");
            for e in &shown {
                assert_eq!(
                    palette_of(&d, e.key),
                    e.palette,
                    "{by:?}: {} painted as its legend says",
                    e.label
                );
            }
        }
        let hashed = |s: StrId| loupe_core::view::palette_index(d.trace.str(s));
        let moved = (0..d.trace.strings.len() as u32)
            .map(StrId)
            .filter(|&s| d.indexes.color_index(s) != hashed(s))
            .count();
        let auto = legend(&d, ColourBy::Auto, LEGEND_TOP);
        let mut auto_moved: Vec<StrId> = auto
            .iter()
            .filter_map(|e| legend_string(&d, e.key).filter(|&s| e.palette != hashed(s)))
            .collect();
        auto_moved.sort_unstable();
        auto_moved.dedup();
        let auto_moved = auto_moved.len();
        assert_eq!(moved, auto_moved, "only the applied legend's names are off their own colour");
    }

    /// The legend as the definition says: every slice's own key ([`key_of`]), hashed.
    fn legend_per_slice(d: &TraceData, by: ColourBy) -> Vec<LegendEntry> {
        let mut acc: FxHashMap<ColourKey, (i64, u64)> = FxHashMap::default();
        for (t, track) in d.trace.tracks.iter().enumerate() {
            for i in 0..track.slices.len() {
                let e = acc.entry(key_of(d, by, TrackId(t as u32), i)).or_default();
                e.0 = e.0.saturating_add(track.slices.dur_ns.at(i));
                e.1 += 1;
            }
        }
        legend_entries(d, acc, LEGEND_TOP)
    }

    /// On a NEFF + NTFF pair (engine tracks with domain shapes, DMA queues without), the legend
    /// added up per domain shape is the per-slice legend, in any steps and for every colouring.
    #[test]
    fn shape_legend_is_the_per_slice_legend() {
        use loupe_core::import::{import_files, InputFile, NoProgress};
        use loupe_core::neuron::{neff, ntff};
        let mut capture = ntff::writer::minimal_pair_capture(3);
        ntff::writer::vary_executions(&mut capture);
        let (neff_bytes, ntff_bytes) = (neff::writer::minimal_neff(), ntff::writer::write(&capture));
        let files = [
            InputFile { name: "m.neff", bytes: &neff_bytes },
            InputFile { name: "m.ntff", bytes: &ntff_bytes },
        ];
        let trace = import_files(&files, &mut NoProgress).expect("the pair imports");
        let shaped = trace
            .tracks
            .iter()
            .filter(|t| t.slices.domain.as_ref().is_some_and(|d| d.shapes.len() > 1))
            .count();
        assert!(shaped > 0, "the fixture has tracks with several domain shapes");
        let d = TraceData::new(trace, "t".into(), false, 0.0);
        for by in [ColourBy::Auto, ColourBy::Opcode, ColourBy::Operator, ColourBy::Layer, ColourBy::Name] {
            let want = legend_per_slice(&d, by);
            assert!(want.iter().any(|e| e.palette != NEUTRAL), "{by:?}: some slices have a key");
            for budget in [1, 5, 4096, usize::MAX] {
                let mut b = LegendBuild::new(by);
                while b.add_next(&d, budget) {}
                assert_eq!(b.finish(&d, LEGEND_TOP), want, "{by:?} in steps of {budget}");
            }
        }
    }
}
