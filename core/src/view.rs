//! Pure view maths shared by every timeline widget: the time↔pixel mapping ([`TimeScale`]),
//! ruler ticks with readable labels ([`ruler_ticks`]), the name→colour palette ([`color_for`]) and
//! label fitting ([`fit_label`]). No drawing and no web API here, so all of it is tested natively.
//!
//! Coordinate spaces: `*_ns` are trace times (i64 nanoseconds on the file's clock), `*_px` are CSS
//! pixels from the left edge of the timeline's data area. Times are subtracted in the integer
//! domain *before* converting to f64, so a 10¹⁸ ns timestamp still maps to an exact pixel.

/// Smallest zoom: one CSS pixel shows 1/100 of a nanosecond (1 ns = 100 px).
pub const MIN_NS_PER_PX: f64 = 0.01;

/// Maps trace time to horizontal CSS pixels: `x_px = (t_ns - start_ns) / ns_per_px`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeScale {
    /// Trace time at x = 0.
    pub start_ns: i64,
    /// Nanoseconds per CSS pixel (> 0).
    pub ns_per_px: f64,
}

impl Default for TimeScale {
    fn default() -> Self {
        TimeScale { start_ns: 0, ns_per_px: 1.0 }
    }
}

impl TimeScale {
    /// The scale that shows `[t0_ns, t1_ns]` across `width_px`.
    pub fn fit(t0_ns: i64, t1_ns: i64, width_px: f64) -> TimeScale {
        let span_ns = t1_ns.saturating_sub(t0_ns).max(1) as f64;
        TimeScale { start_ns: t0_ns, ns_per_px: (span_ns / width_px.max(1.0)).max(MIN_NS_PER_PX) }
    }

    #[inline]
    pub fn x_from_time(&self, t_ns: i64) -> f64 {
        t_ns.saturating_sub(self.start_ns) as f64 / self.ns_per_px
    }

    /// Trace time under `x_px` (rounded to the nearest nanosecond).
    #[inline]
    pub fn time_from_x(&self, x_px: f64) -> i64 {
        self.start_ns.saturating_add(round_to_i64(x_px * self.ns_per_px))
    }

    /// Width in CSS pixels of a duration.
    #[inline]
    pub fn px_from_duration(&self, dur_ns: i64) -> f64 {
        dur_ns as f64 / self.ns_per_px
    }

    /// Trace time at the right edge of a `width_px` wide view.
    pub fn end_ns(&self, width_px: f64) -> i64 {
        self.time_from_x(width_px)
    }

    /// Visible span of a `width_px` wide view, in nanoseconds.
    pub fn span_ns(&self, width_px: f64) -> f64 {
        self.ns_per_px * width_px
    }

    /// Zoom by `factor` (> 1 zooms in) keeping the time under `x_px` fixed: afterwards
    /// `time_from_x(x_px)` returns exactly the time it returned before.
    ///
    /// Works on offsets from `start_ns` (small, exact in f64) and adds them back in i64: going
    /// through `start_ns as f64` would round an epoch-nanosecond time (~1.7e18, f64 spacing 256 ns)
    /// by up to 128 ns per zoom.
    pub fn zoom_at(&mut self, x_px: f64, factor: f64) {
        if !(factor.is_finite() && factor > 0.0 && x_px.is_finite()) {
            return;
        }
        let anchor_off_ns = round_to_i64(x_px * self.ns_per_px);
        let anchor_ns = self.start_ns.saturating_add(anchor_off_ns);
        self.ns_per_px = (self.ns_per_px / factor).max(MIN_NS_PER_PX);
        self.start_ns = anchor_ns.saturating_sub(round_to_i64(x_px * self.ns_per_px));
    }

    /// Move the view by `dx_px` pixels: positive shows later times.
    pub fn pan_px(&mut self, dx_px: f64) {
        self.start_ns = self.start_ns.saturating_add(round_to_i64(dx_px * self.ns_per_px));
    }

    /// Show `[t0_ns, t1_ns]` across `width_px` (e.g. after a drag-to-zoom).
    pub fn zoom_to(&mut self, t0_ns: i64, t1_ns: i64, width_px: f64) {
        let (a, b) = if t0_ns <= t1_ns { (t0_ns, t1_ns) } else { (t1_ns, t0_ns) };
        *self = TimeScale::fit(a, b, width_px);
    }

    /// Keep the view sensible for a trace spanning `[trace_start_ns, trace_end_ns]`: no zooming out
    /// beyond 1.25× the trace, no zooming in beyond [`MIN_NS_PER_PX`], and at least half of the
    /// view over the trace.
    pub fn clamp(&mut self, trace_start_ns: i64, trace_end_ns: i64, width_px: f64) {
        let width_px = width_px.max(1.0);
        let trace_span_ns = trace_end_ns.saturating_sub(trace_start_ns).max(1) as f64;
        let max_ns_per_px = (trace_span_ns * 1.25 / width_px).max(MIN_NS_PER_PX);
        if !self.ns_per_px.is_finite() {
            self.ns_per_px = max_ns_per_px;
        }
        self.ns_per_px = self.ns_per_px.clamp(MIN_NS_PER_PX, max_ns_per_px);
        let half_view_ns = (self.span_ns(width_px) / 2.0) as i64;
        let lo = trace_start_ns.saturating_sub(half_view_ns);
        let hi = trace_end_ns.saturating_sub(half_view_ns).max(lo);
        self.start_ns = self.start_ns.clamp(lo, hi);
    }
}

/// A nanosecond offset computed in f64, rounded to the nearest integer (saturating; NaN → 0).
#[inline]
fn round_to_i64(offset_ns: f64) -> i64 {
    // `as` saturates at the i64 range and maps NaN to 0
    offset_ns.round() as i64
}

// ---------------------------------------------------------------------------------------------
// Ruler ticks

/// One ruler tick.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub x_px: f64,
    pub time_ns: i64,
    /// Label relative to the ruler origin, e.g. "1.5 ms".
    pub label: String,
}

/// The 1-2-5 step (in ns, at least 1 ns) for ticks at least `min_spacing_px` apart.
pub fn tick_step_ns(ns_per_px: f64, min_spacing_px: f64) -> i64 {
    let want_ns = (ns_per_px * min_spacing_px).max(1.0);
    let mut decade: i64 = 1;
    loop {
        for m in [1i64, 2, 5] {
            let step = decade.saturating_mul(m);
            if step as f64 >= want_ns || step == i64::MAX {
                return step;
            }
        }
        if decade > i64::MAX / 10 {
            return i64::MAX;
        }
        decade *= 10;
    }
}

/// The display unit of a ruler: (ns per unit, suffix).
fn unit_for(max_abs_ns: i64) -> (i64, &'static str) {
    if max_abs_ns >= 1_000_000_000 {
        (1_000_000_000, "s")
    } else if max_abs_ns >= 1_000_000 {
        (1_000_000, "ms")
    } else if max_abs_ns >= 1_000 {
        (1_000, "µs")
    } else {
        (1, "ns")
    }
}

/// Format `offset_ns` in `unit_ns` with at most `decimals` decimals, exactly (integer arithmetic),
/// trailing zeros trimmed: "1.5 ms", "0 ms", "-20 µs".
pub fn format_offset(offset_ns: i64, unit_ns: i64, suffix: &str, decimals: u32) -> String {
    let neg = offset_ns < 0;
    let a = offset_ns.unsigned_abs();
    let unit = unit_ns.unsigned_abs().max(1);
    let int = a / unit;
    let rem = a % unit;
    let mut s = String::new();
    if neg && a != 0 {
        s.push('-');
    }
    s.push_str(&int.to_string());
    if decimals > 0 && unit > 1 {
        // digits of rem / unit, `decimals` of them (unit is a power of ten)
        let unit_digits = unit.ilog10();
        let frac = format!("{:0width$}", rem, width = unit_digits as usize);
        let frac = &frac[..(decimals.min(unit_digits)) as usize];
        let frac = frac.trim_end_matches('0');
        if !frac.is_empty() {
            s.push('.');
            s.push_str(frac);
        }
    }
    s.push(' ');
    s.push_str(suffix);
    s
}

/// A time offset printed as precisely as `resolution_ns` warrants, in a unit chosen by its
/// magnitude: `format_time_at_resolution(1_234_567, 1000.0)` = "1.234 ms"; with resolution 1 ns
/// every digit is kept ("1.234567 ms").
pub fn format_time_at_resolution(offset_ns: i64, resolution_ns: f64) -> String {
    let (unit_ns, suffix) = unit_for(offset_ns.unsigned_abs().min(i64::MAX as u64) as i64);
    let res = resolution_ns.max(1.0);
    let mut decimals = 0u32;
    while decimals < 9 && (unit_ns as f64) / 10f64.powi(decimals as i32) > res {
        decimals += 1;
    }
    format_offset(offset_ns, unit_ns, suffix, decimals)
}

/// Ticks for a ruler `width_px` wide, at least `min_spacing_px` apart, labelled relative to
/// `origin_ns` (normally the trace start) in one unit chosen for the whole ruler.
pub fn ruler_ticks(scale: &TimeScale, width_px: f64, origin_ns: i64, min_spacing_px: f64) -> Vec<Tick> {
    let step_ns = tick_step_ns(scale.ns_per_px, min_spacing_px);
    let t0_ns = scale.start_ns;
    let t1_ns = scale.end_ns(width_px);
    let max_abs_ns =
        t0_ns.saturating_sub(origin_ns).unsigned_abs().max(t1_ns.saturating_sub(origin_ns).unsigned_abs());
    let (unit_ns, suffix) = unit_for(max_abs_ns.max(step_ns as u64).min(i64::MAX as u64) as i64);
    // decimals needed so that every multiple of the step prints exactly
    let mut decimals = 0u32;
    let mut p: i64 = 1;
    while decimals < 9 && (step_ns.saturating_mul(p)) % unit_ns != 0 {
        decimals += 1;
        p *= 10;
    }
    // first tick at or after t0, on the step grid relative to the origin
    let rel0 = t0_ns.saturating_sub(origin_ns);
    let mut k = rel0.div_euclid(step_ns);
    if k.saturating_mul(step_ns) < rel0 {
        k += 1;
    }
    let mut out = Vec::new();
    loop {
        let rel = k.saturating_mul(step_ns);
        let t = origin_ns.saturating_add(rel);
        if t > t1_ns || out.len() > 10_000 {
            break;
        }
        out.push(Tick {
            x_px: scale.x_from_time(t),
            time_ns: t,
            label: format_offset(rel, unit_ns, suffix, decimals),
        });
        if rel == i64::MAX {
            break;
        }
        k += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Colours

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// CSS hex form, e.g. "#4e79a7".
    pub fn to_css(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
    /// Relative luminance (0..1), sRGB approximated with gamma 2.2.
    pub fn luminance(self) -> f64 {
        let c = |v: u8| (v as f64 / 255.0).powf(2.2);
        0.2126 * c(self.0) + 0.7152 * c(self.1) + 0.0722 * c(self.2)
    }
    /// Whether dark text reads better than light text on this colour.
    pub fn wants_dark_text(self) -> bool {
        self.luminance() > 0.25
    }
}

/// Twenty distinguishable, medium-saturation colours (Tableau 10 + its light companions,
/// reordered so neighbours in hash order differ; Tableau 20's light teal and light red, near
/// twins of Tableau 10's teal and pink, replaced by an indigo and an olive so that no two entries
/// look alike). Canvas-only: page colours live in tokens.css.
pub const PALETTE: [Rgb; 20] = [
    Rgb(0x4e, 0x79, 0xa7),
    Rgb(0xf2, 0x8e, 0x2b),
    Rgb(0x59, 0xa1, 0x4f),
    Rgb(0xe1, 0x57, 0x59),
    Rgb(0x76, 0xb7, 0xb2),
    Rgb(0xed, 0xc9, 0x48),
    Rgb(0xb0, 0x7a, 0xa1),
    Rgb(0xff, 0x9d, 0xa7),
    Rgb(0x9c, 0x75, 0x5f),
    Rgb(0xba, 0xb0, 0xac),
    Rgb(0xa0, 0xcb, 0xe8),
    Rgb(0xff, 0xbe, 0x7d),
    Rgb(0x8c, 0xd1, 0x7d),
    Rgb(0xbc, 0xbd, 0x22),
    Rgb(0x49, 0x98, 0x94),
    Rgb(0xb6, 0x99, 0x2d),
    Rgb(0xd4, 0xa6, 0xc8),
    Rgb(0x6b, 0x6e, 0xcf),
    Rgb(0xd3, 0x72, 0x95),
    Rgb(0x79, 0x70, 0x6e),
];

/// Stable index into [`PALETTE`] for a name (FNV-1a; the same name always gets the same colour,
/// across loads and builds).
pub fn palette_index(name: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    // fold the high bits in: FNV's low bits are weak for short keys
    let h = h ^ (h >> 16);
    (h % PALETTE.len() as u32) as usize
}

/// The colour of a slice name.
pub fn color_for(name: &str) -> Rgb {
    PALETTE[palette_index(name)]
}

/// Palette indices for the entries of one legend, most prominent first, so that no two share a
/// colour while the palette has room. `preferred[i]` is entry `i`'s own colour (its name's
/// [`palette_index`], or a fixed one); `fixed[i]` entries keep theirs whatever happens (an
/// engine's colour). An entry keeps its own colour unless a fixed or a more prominent entry holds
/// it; then it takes the first colour, from its own onwards, that no entry of the legend prefers,
/// else the first unused one. Once every colour is used the rest keep their own (20 colours:
/// beyond that a legend cannot be distinct). The same legend always gets the same colours.
pub fn distinct_palette(preferred: &[usize], fixed: &[bool]) -> Vec<usize> {
    let n = PALETTE.len();
    let mut used = vec![false; n];
    let mut wanted = vec![false; n];
    for (i, &p) in preferred.iter().enumerate() {
        if p < n {
            wanted[p] = true;
            if fixed.get(i).copied().unwrap_or(false) {
                used[p] = true;
            }
        }
    }
    let mut out = preferred.to_vec();
    // fixed entries first (already marked), then the rest in order of prominence
    for (i, &p) in preferred.iter().enumerate() {
        if p >= n || fixed.get(i).copied().unwrap_or(false) {
            continue;
        }
        if !used[p] {
            used[p] = true;
            continue;
        }
        let probe = |free: &dyn Fn(usize) -> bool| (1..n).map(|k| (p + k) % n).find(|&c| free(c));
        if let Some(c) = probe(&|c| !used[c] && !wanted[c]).or_else(|| probe(&|c| !used[c])) {
            used[c] = true;
            out[i] = c;
        }
    }
    out
}

/// [`distinct_palette`] for a legend of names (most prominent first): each name's colour.
pub fn distinct_colours<S: AsRef<str>>(names: &[S]) -> Vec<Rgb> {
    let pref: Vec<usize> = names.iter().map(|s| palette_index(s.as_ref())).collect();
    distinct_palette(&pref, &[]).into_iter().map(|i| PALETTE[i]).collect()
}

/// The colours of one legend's names, looked up by name ([`distinct_colours`]); a name not in
/// the legend gets its own colour ([`color_for`]).
#[derive(Debug, Clone, Default)]
pub struct LegendColours(std::collections::HashMap<String, Rgb>);

impl LegendColours {
    /// The legend of `names`, most prominent first (a repeated name keeps its first colour).
    pub fn new<S: AsRef<str>>(names: &[S]) -> LegendColours {
        let mut seen = std::collections::HashSet::new();
        let uniq: Vec<&str> = names.iter().map(|s| s.as_ref()).filter(|s| seen.insert(*s)).collect();
        LegendColours(uniq.iter().zip(distinct_colours(&uniq)).map(|(s, c)| (s.to_string(), c)).collect())
    }
    pub fn get(&self, name: &str) -> Rgb {
        self.0.get(name).copied().unwrap_or_else(|| color_for(name))
    }
}

// ---------------------------------------------------------------------------------------------
// Labels

/// The part of `text` that fits in `max_px` when each character is about `char_px` wide: the whole
/// text, a prefix ending in "…", or `None` when not even two characters fit.
pub fn fit_label(text: &str, max_px: f64, char_px: f64) -> Option<std::borrow::Cow<'_, str>> {
    if char_px <= 0.0 || max_px <= 0.0 {
        return None;
    }
    let max_chars = (max_px / char_px).floor() as usize;
    if max_chars < 2 {
        return None;
    }
    let mut end = None;
    for (n, (i, _)) in text.char_indices().enumerate() {
        if n == max_chars - 1 {
            end = Some(i);
        }
        if n == max_chars {
            let cut = end.unwrap_or(i);
            let mut s = String::with_capacity(cut + 3);
            s.push_str(&text[..cut]);
            s.push('…');
            return Some(std::borrow::Cow::Owned(s));
        }
    }
    Some(std::borrow::Cow::Borrowed(text))
}

#[cfg(test)]
mod tests {

    #[test]
    fn legend_colours_are_distinct_while_the_palette_has_room() {
        // names that collide in the hash exist: find two
        let names: Vec<String> = (0..200).map(|i| format!("kernel_{i}")).collect();
        let a = &names[0];
        let b = names.iter().skip(1).find(|n| palette_index(n) == palette_index(a)).expect("a collision");
        let c = distinct_colours(&[a.as_str(), b.as_str()]);
        assert_eq!(c[0], PALETTE[palette_index(a)], "the most prominent keeps its own colour");
        assert_ne!(c[0], c[1], "{a} and {b} share a hash colour but not a legend colour");
        // 20 names: all distinct; the 21st cannot be
        let twenty: Vec<&str> = names.iter().take(20).map(|s| s.as_str()).collect();
        let mut cs = distinct_colours(&twenty);
        cs.sort_by_key(|c| (c.0, c.1, c.2));
        cs.dedup();
        assert_eq!(cs.len(), 20);
        let lc = LegendColours::new(&twenty);
        assert_eq!(lc.get("not in the legend"), PALETTE[palette_index("not in the legend")]);
        // a fixed entry keeps its colour even when a more prominent one wants it
        let p = distinct_palette(&[3, 3, 3], &[false, true, false]);
        assert_eq!(p[1], 3);
        assert!(p[0] != 3 && p[2] != 3 && p[0] != p[2], "{p:?}");
        // a moved entry avoids colours other entries prefer: 0 collides with 1 (both 5), 6 is wanted by 2
        let p = distinct_palette(&[5, 5, 6], &[]);
        assert_eq!(p, vec![5, 7, 6]);
    }

    use super::*;

    #[test]
    fn round_trip_and_big_timestamps() {
        let s = TimeScale { start_ns: 1_694_039_959_123_456_789, ns_per_px: 0.5 };
        for x in [0.0, 1.0, 10.5, 1000.0] {
            let t = s.time_from_x(x);
            assert!((s.x_from_time(t) - x).abs() <= 0.5 / s.ns_per_px + 1e-9, "{x}");
        }
        assert_eq!(s.x_from_time(1_694_039_959_123_456_790), 2.0);
    }

    #[test]
    fn zoom_keeps_anchor() {
        let mut s = TimeScale { start_ns: 1000, ns_per_px: 10.0 };
        let anchor = s.time_from_x(300.0);
        s.zoom_at(300.0, 2.0);
        assert_eq!(s.ns_per_px, 5.0);
        assert_eq!(s.time_from_x(300.0), anchor);
        s.zoom_at(300.0, 0.5);
        assert_eq!(s.ns_per_px, 10.0);
        assert_eq!(s.time_from_x(300.0), anchor);
        s.zoom_at(0.0, 1e12);
        assert_eq!(s.ns_per_px, MIN_NS_PER_PX);
    }

    /// Epoch-nanosecond traces (~1.7e18 ns, where f64 values are 256 ns apart): zooming in and out
    /// around an anchor keeps the anchor's time to the nanosecond, step after step.
    #[test]
    fn zoom_keeps_anchor_at_epoch_scale() {
        const EPOCH_NS: i64 = 1_700_000_000_000_000_000;
        for start_ns in [EPOCH_NS, EPOCH_NS + 77, EPOCH_NS + 255, -EPOCH_NS - 3] {
            for x_px in [0.0, 1.0, 333.3, 799.5, 1920.0] {
                let mut s = TimeScale { start_ns, ns_per_px: 12_345.678 };
                let anchor_ns = s.time_from_x(x_px);
                // zoom all the way in, then all the way back out, with uneven factors
                for step in 0..120 {
                    let factor = if step < 60 { 1.13 } else { 1.0 / 1.13 };
                    s.zoom_at(x_px, factor);
                    let now_ns = s.time_from_x(x_px);
                    assert!(
                        (now_ns - anchor_ns).abs() <= 1,
                        "start {start_ns} x {x_px} step {step}: anchor {anchor_ns} drifted to {now_ns}"
                    );
                }
                // back near the original scale, and the view did not wander off
                assert!((s.ns_per_px / 12_345.678 - 1.0).abs() < 1e-6, "{}", s.ns_per_px);
                assert!((s.start_ns - start_ns).abs() <= 1, "{}", s.start_ns);
            }
        }
    }

    #[test]
    fn epoch_scale_mapping_is_exact() {
        const EPOCH_NS: i64 = 1_700_000_000_000_000_000;
        let mut s = TimeScale::fit(EPOCH_NS + 1, EPOCH_NS + 1_001, 1000.0);
        assert_eq!((s.start_ns, s.ns_per_px), (EPOCH_NS + 1, 1.0));
        assert_eq!(s.x_from_time(EPOCH_NS + 501), 500.0);
        assert_eq!(s.time_from_x(500.0), EPOCH_NS + 501);
        assert_eq!(s.end_ns(1000.0), EPOCH_NS + 1_001);
        s.pan_px(3.0);
        assert_eq!(s.start_ns, EPOCH_NS + 4);
        s.pan_px(-3.0);
        // an in-range view is left alone by clamp
        s.clamp(EPOCH_NS, EPOCH_NS + 2_000, 1000.0);
        assert_eq!((s.start_ns, s.ns_per_px), (EPOCH_NS + 1, 1.0));
        // deepest zoom: 1 ns = 100 px, still exact
        s.zoom_at(250.0, 1e9);
        assert_eq!(s.ns_per_px, MIN_NS_PER_PX);
        assert_eq!(s.time_from_x(250.0), EPOCH_NS + 251);
        // the start is whole nanoseconds, so the anchor's pixel moves by at most half a nanosecond
        assert!((s.x_from_time(EPOCH_NS + 251) - 250.0).abs() <= 0.5 / MIN_NS_PER_PX);
        // non-finite input changes nothing
        let before = s;
        s.zoom_at(f64::NAN, 2.0);
        s.zoom_at(10.0, f64::INFINITY);
        assert_eq!(s, before);
    }

    #[test]
    fn pan_and_clamp() {
        let mut s = TimeScale::fit(0, 1_000_000, 1000.0);
        assert_eq!(s.ns_per_px, 1000.0);
        s.pan_px(100.0);
        assert_eq!(s.start_ns, 100_000);
        s.pan_px(-1e9);
        s.clamp(0, 1_000_000, 1000.0);
        assert_eq!(s.start_ns, -500_000);
        s.ns_per_px = 1e9;
        s.clamp(0, 1_000_000, 1000.0);
        assert_eq!(s.ns_per_px, 1250.0);
        s.start_ns = i64::MAX;
        s.clamp(0, 1_000_000, 1000.0);
        assert!(s.start_ns <= 1_000_000);
        let mut z = TimeScale::default();
        z.zoom_to(500, 100, 400.0);
        assert_eq!((z.start_ns, z.ns_per_px), (100, 1.0));
    }

    #[test]
    fn steps_are_1_2_5() {
        assert_eq!(tick_step_ns(0.01, 80.0), 1);
        assert_eq!(tick_step_ns(1.0, 80.0), 100);
        assert_eq!(tick_step_ns(1.3, 80.0), 200);
        assert_eq!(tick_step_ns(4.0, 80.0), 500);
        assert_eq!(tick_step_ns(12_500.0, 80.0), 1_000_000);
        assert_eq!(tick_step_ns(1e20, 80.0), i64::MAX);
    }

    #[test]
    fn tick_labels_are_readable() {
        // 0..3 ms over 600 px: 5 µs/px, 80 px → 400 µs → step 500 µs
        let s = TimeScale { start_ns: 10_000_000, ns_per_px: 5000.0 };
        let ticks = ruler_ticks(&s, 600.0, 10_000_000, 80.0);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["0 ms", "0.5 ms", "1 ms", "1.5 ms", "2 ms", "2.5 ms", "3 ms"]);
        assert_eq!(ticks[1].x_px, 100.0);
        // nanoseconds
        let s = TimeScale { start_ns: 0, ns_per_px: 1.0 };
        let labels: Vec<String> = ruler_ticks(&s, 300.0, 0, 80.0).into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["0 ns", "100 ns", "200 ns", "300 ns"]);
        // deep zoom far into a long trace: one unit for the whole ruler, exact decimals
        let s = TimeScale { start_ns: 5_000_000_000, ns_per_px: 0.1 };
        let labels: Vec<String> = ruler_ticks(&s, 100.0, 0, 80.0).into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["5 s", "5.00000001 s"]);
        // before the origin
        let s = TimeScale { start_ns: -2_000, ns_per_px: 10.0 };
        let labels: Vec<String> = ruler_ticks(&s, 300.0, 0, 80.0).into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["-2 µs", "-1 µs", "0 µs", "1 µs"]);
    }

    #[test]
    fn offsets_format_exactly() {
        assert_eq!(format_offset(1_500_000, 1_000_000, "ms", 1), "1.5 ms");
        assert_eq!(format_offset(1_250_000, 1_000_000, "ms", 1), "1.2 ms");
        assert_eq!(format_offset(0, 1_000_000_000, "s", 3), "0 s");
        assert_eq!(format_offset(-20_000, 1_000, "µs", 0), "-20 µs");
    }

    #[test]
    fn precise_times() {
        assert_eq!(format_time_at_resolution(1_234_567, 1000.0), "1.234 ms");
        assert_eq!(format_time_at_resolution(1_234_567, 1.0), "1.234567 ms");
        assert_eq!(format_time_at_resolution(999, 1.0), "999 ns");
        assert_eq!(format_time_at_resolution(5_000_000_001, 1.0), "5.000000001 s");
        assert_eq!(format_time_at_resolution(-1_500, 100.0), "-1.5 µs");
    }

    #[test]
    fn palette_is_stable_and_spread() {
        assert_eq!(color_for("aten::matmul"), color_for("aten::matmul"));
        let names: Vec<String> = (0..200).map(|i| format!("kernel_{i}")).collect();
        let mut used = [0usize; 20];
        for n in &names {
            used[palette_index(n)] += 1;
        }
        assert!(used.iter().all(|&c| c > 0), "{used:?}");
        assert_eq!(color_for("x").to_css().len(), 7);
        assert!(Rgb(0xed, 0xc9, 0x48).wants_dark_text());
        assert!(!Rgb(0x4e, 0x79, 0xa7).wants_dark_text());
    }

    /// No two palette entries look alike: CIE76 ΔE (sRGB → CIELAB, D65) of every pair ≥ 12
    /// (Tableau 10's teal and Tableau 20's light teal were 4.6 apart: one colour to the eye).
    #[test]
    fn palette_entries_are_told_apart() {
        fn lab(c: Rgb) -> [f64; 3] {
            let lin = |v: u8| {
                let v = v as f64 / 255.0;
                if v <= 0.04045 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            };
            let (r, g, b) = (lin(c.0), lin(c.1), lin(c.2));
            let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
            let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
            let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
            [116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))]
        }
        for (i, &ci) in PALETTE.iter().enumerate() {
            for (j, &cj) in PALETTE.iter().enumerate().skip(i + 1) {
                let (a, b) = (lab(ci), lab(cj));
                let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
                assert!(d >= 12.0, "palette {i} {ci:?} and {j} {cj:?}: ΔE {d:.1}");
            }
        }
    }

    #[test]
    fn labels_fit() {
        assert_eq!(fit_label("matmul", 100.0, 7.0).as_deref(), Some("matmul"));
        assert_eq!(fit_label("aten::convolution", 42.0, 7.0).as_deref(), Some("aten:…"));
        assert_eq!(fit_label("ab", 10.0, 7.0), None);
        assert_eq!(fit_label("ééééé", 28.0, 7.0).as_deref(), Some("ééé…"));
    }
}
