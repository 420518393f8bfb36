//! A tiny software rasteriser for the timeline's dense part: axis-aligned rectangles (row
//! backgrounds, grid lines, slices and merged blocks) drawn into an RGBA pixel buffer that the app
//! blits to its canvas in one call (`putImageData`). Drawing 30 000 one-to-two-pixel slices with
//! one canvas `fillRect` each costs tens of milliseconds in Chromium's software 2D canvas; writing
//! their pixel runs here and copying one buffer costs a few (measured in `bench/RESULTS.md`).
//!
//! Pure: no web dependency, coordinates are device pixels (`f64`), colours straight RGBA bytes in
//! the order `ImageData` wants. Rules:
//!
//! * **Pixel snapping.** A rectangle covers the columns `round(x0) .. round(x1)` and the rows
//!   `round(y0) .. round(y1)`, clipped to the buffer; a rectangle with `x1 > x0` that would cover
//!   no column covers one (`round(x0)`), so a sub-pixel slice never vanishes. No anti-aliasing:
//!   edges are crisp, and two rectangles that touch in time never overlap in pixels.
//! * **Alpha.** `alpha` (0–255) blends the colour over what is there (`src·a + dst·(1−a)`, per
//!   channel, rounded); the buffer itself stays opaque when it was cleared with an opaque colour.
//! * **Bands.** A timeline row band (one depth of a track) is uniform vertically before its slices
//!   are drawn (a background and full-height vertical lines only). [`PixelBuf::fill_band`] draws
//!   a band's spans into its first scanline only and copies that line down the band: the cost is
//!   one pass over the spans plus a `memcpy` per line, independent of how many spans there are.

/// One pixel, RGBA bytes (`ImageData` order, not premultiplied).
pub type Rgba = [u8; 4];

/// An opaque colour from its channels.
pub const fn rgb(r: u8, g: u8, b: u8) -> Rgba {
    [r, g, b, 255]
}

/// One horizontal span of a band: `[x0, x1)` in device pixels, a colour and an alpha (255 = opaque).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub x0_px: f64,
    pub x1_px: f64,
    pub colour: Rgba,
    pub alpha: u8,
}

/// An RGBA pixel buffer, row-major, `width × height`. Reused from frame to frame: [`resize`]
/// keeps the allocation.
///
/// [`resize`]: PixelBuf::resize
#[derive(Debug, Default, Clone)]
pub struct PixelBuf {
    width: usize,
    height: usize,
    px: Vec<Rgba>,
}

/// Columns covered by `[x0, x1)` clipped to `0..w` (see the module doc), or `None`.
fn columns(x0: f64, x1: f64, w: usize) -> Option<(usize, usize)> {
    // NaN never passes this
    if x1.partial_cmp(&x0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let a = x0.round();
    let b = x1.round().max(a + 1.0);
    let wf = w as f64;
    if b <= 0.0 || a >= wf {
        return None;
    }
    // both are whole numbers inside 0..=w here, so the casts are exact
    Some((a.max(0.0) as usize, b.min(wf) as usize))
}

/// Rows covered by `[y0, y1)` clipped to `0..h`, or `None` (no minimum height).
fn rows(y0: f64, y1: f64, h: usize) -> Option<(usize, usize)> {
    let (a, b) = (y0.round().max(0.0), y1.round().min(h as f64));
    (b > a).then_some((a as usize, b as usize))
}

/// `src` over `dst` with coverage `alpha` (0–255), per channel, rounded; alpha of `dst` kept.
#[inline]
pub fn blend(dst: Rgba, src: Rgba, alpha: u8) -> Rgba {
    let a = alpha as u32;
    let mix = |d: u8, s: u8| ((s as u32 * a + d as u32 * (255 - a) + 127) / 255) as u8;
    [mix(dst[0], src[0]), mix(dst[1], src[1]), mix(dst[2], src[2]), dst[3]]
}

#[inline]
fn fill_run(run: &mut [Rgba], colour: Rgba, alpha: u8) {
    match alpha {
        0 => {}
        255 => run.fill(colour),
        a => run.iter_mut().for_each(|p| *p = blend(*p, colour, a)),
    }
}

impl PixelBuf {
    pub fn new(width: usize, height: usize) -> PixelBuf {
        let mut b = PixelBuf::default();
        b.resize(width, height);
        b
    }

    /// Set the size (contents are unspecified afterwards: clear before drawing).
    pub fn resize(&mut self, width: usize, height: usize) {
        self.width = width;
        self.height = height;
        self.px.resize(width.saturating_mul(height), [0, 0, 0, 0]);
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        self.height
    }

    /// Every pixel to `colour`.
    pub fn clear(&mut self, colour: Rgba) {
        self.px.fill(colour);
    }

    /// The pixel at (x, y), if inside.
    pub fn get(&self, x: usize, y: usize) -> Option<Rgba> {
        if x >= self.width {
            return None;
        }
        self.px.get(y.checked_mul(self.width)?.checked_add(x)?).copied()
    }

    /// The RGBA bytes, row-major (what `ImageData` takes).
    pub fn bytes(&self) -> &[u8] {
        self.px.as_flattened()
    }

    /// Fill `[x0, x1) × [y0, y1)` (pixel-snapped, clipped, blended with `alpha`).
    pub fn fill_rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, colour: Rgba, alpha: u8) {
        let (Some((a, b)), Some((r0, r1))) = (columns(x0, x1, self.width), rows(y0, y1, self.height)) else {
            return;
        };
        let w = self.width;
        for y in r0..r1 {
            fill_run(&mut self.px[y * w + a..y * w + b], colour, alpha);
        }
    }

    /// Draw `spans` into the band `[y0, y1)`: into its first scanline, in order (later spans over
    /// earlier ones), then that scanline is copied to the band's other lines. The band must be
    /// vertically uniform before (see the module doc). Returns the number of spans drawn.
    pub fn fill_band(&mut self, y0: f64, y1: f64, spans: impl IntoIterator<Item = Span>) -> usize {
        let Some((r0, r1)) = rows(y0, y1, self.height) else {
            return 0;
        };
        let w = self.width;
        let mut n = 0;
        {
            let line = &mut self.px[r0 * w..(r0 + 1) * w];
            for s in spans {
                if let Some((a, b)) = columns(s.x0_px, s.x1_px, w) {
                    fill_run(&mut line[a..b], s.colour, s.alpha);
                    n += 1;
                }
            }
        }
        for y in r0 + 1..r1 {
            self.px.copy_within(r0 * w..(r0 + 1) * w, y * w);
        }
        n
    }
}

/// Parse a CSS colour as the canvas reports it back (`#rgb`, `#rrggbb`, `#rrggbbaa`,
/// `rgb(r, g, b)`, `rgba(r, g, b, a)`, also space-separated with `/ a`) into RGBA bytes.
/// `None` for anything else (named colours: let the canvas normalise them first).
pub fn parse_css_colour(s: &str) -> Option<Rgba> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix('#') {
        let d = |i: usize| u8::from_str_radix(hex.get(i..i + 1)?, 16).ok();
        let dd = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        return match hex.len() {
            3 => Some([d(0)? * 17, d(1)? * 17, d(2)? * 17, 255]),
            6 => Some([dd(0)?, dd(2)?, dd(4)?, 255]),
            8 => Some([dd(0)?, dd(2)?, dd(4)?, dd(6)?]),
            _ => None,
        };
    }
    let inner = s.strip_prefix("rgba(").or_else(|| s.strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<&str> =
        inner.split(|c: char| c == ',' || c == '/' || c.is_whitespace()).filter(|p| !p.is_empty()).collect();
    if parts.len() != 3 && parts.len() != 4 {
        return None;
    }
    let chan = |p: &str| -> Option<u8> {
        let v: f64 = p.parse().ok()?;
        v.is_finite().then(|| v.round().clamp(0.0, 255.0) as u8)
    };
    let alpha = match parts.get(3) {
        None => 255,
        Some(p) => {
            let v: f64 = match p.strip_suffix('%') {
                Some(pc) => pc.parse::<f64>().ok()? / 100.0,
                None => p.parse().ok()?,
            };
            if !v.is_finite() {
                return None;
            }
            (v.clamp(0.0, 1.0) * 255.0).round() as u8
        }
    };
    Some([chan(parts[0])?, chan(parts[1])?, chan(parts[2])?, alpha])
}

/// An alpha in 0..=1 as a byte.
pub fn alpha_byte(a: f64) -> u8 {
    if a.is_nan() {
        return 0;
    }
    (a.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Rgba = rgb(255, 255, 255);
    const R: Rgba = rgb(255, 0, 0);
    const B: Rgba = rgb(0, 0, 255);

    fn row(b: &PixelBuf, y: usize) -> Vec<Rgba> {
        (0..b.width()).map(|x| b.get(x, y).unwrap()).collect()
    }

    #[test]
    fn rect_snaps_clips_and_keeps_thin_slices() {
        let mut b = PixelBuf::new(10, 4);
        b.clear(W);
        b.fill_rect(1.4, 0.6, 3.6, 2.4, R, 255); // columns 1..4, rows 1..2
        assert_eq!(row(&b, 0), vec![W; 10]);
        assert_eq!(&row(&b, 1)[..5], &[W, R, R, R, W]);
        assert_eq!(row(&b, 2), vec![W; 10]);
        // a 0.2 px slice still covers one column
        b.fill_rect(6.1, 0.0, 6.3, 4.0, B, 255);
        assert_eq!(b.get(6, 3), Some(B));
        assert_eq!(b.get(7, 3), Some(W));
        // zero-width and inverted: nothing
        b.fill_rect(8.0, 0.0, 8.0, 4.0, B, 255);
        b.fill_rect(9.0, 0.0, 8.0, 4.0, B, 255);
        b.fill_rect(f64::NAN, 0.0, 9.0, 4.0, B, 255);
        assert_eq!(b.get(8, 0), Some(W));
        // far outside and huge: clipped, no panic
        b.fill_rect(-1e12, -5.0, 1e12, 1.0, B, 255);
        assert_eq!(row(&b, 0), vec![B; 10]);
        b.fill_rect(20.0, 0.0, 30.0, 4.0, R, 255);
        b.fill_rect(-30.0, 0.0, -20.0, 4.0, R, 255);
        assert_eq!(row(&b, 0), vec![B; 10]);
    }

    #[test]
    fn touching_rects_do_not_overlap() {
        let mut b = PixelBuf::new(10, 1);
        b.clear(W);
        b.fill_rect(2.0, 0.0, 4.5, 1.0, R, 128);
        b.fill_rect(4.5, 0.0, 7.0, 1.0, R, 128);
        // each column blended exactly once
        let half = blend(W, R, 128);
        assert_eq!(&row(&b, 0)[2..7], &[half; 5]);
    }

    #[test]
    fn blending_rounds_and_keeps_alpha() {
        assert_eq!(blend(W, R, 255), R);
        assert_eq!(blend(W, R, 0), W);
        assert_eq!(blend([0, 0, 0, 255], [255, 255, 255, 255], 128), [128, 128, 128, 255]);
        assert_eq!(blend([10, 20, 30, 7], [10, 20, 30, 255], 99), [10, 20, 30, 7]);
        assert_eq!(alpha_byte(0.65), 166);
        assert_eq!(alpha_byte(0.18), 46);
        assert_eq!(alpha_byte(2.0), 255);
        assert_eq!(alpha_byte(f64::NAN), 0);
    }

    #[test]
    fn band_equals_rect_by_rect() {
        // the band shortcut gives exactly what drawing each span as a rectangle gives
        let spans = [
            Span { x0_px: 0.2, x1_px: 0.4, colour: R, alpha: 255 },
            Span { x0_px: 1.0, x1_px: 5.5, colour: B, alpha: 166 },
            Span { x0_px: 3.0, x1_px: 4.0, colour: R, alpha: 46 },
            Span { x0_px: 9.7, x1_px: 40.0, colour: R, alpha: 255 },
            Span { x0_px: -3.0, x1_px: -1.0, colour: B, alpha: 255 },
        ];
        let mut a = PixelBuf::new(12, 8);
        a.clear(W);
        a.fill_rect(5.0, 0.0, 6.0, 8.0, B, 60); // a grid line: vertical, so the band is uniform
        let mut b = a.clone();
        assert_eq!(a.fill_band(2.0, 6.0, spans), 4);
        for s in spans {
            b.fill_rect(s.x0_px, 2.0, s.x1_px, 6.0, s.colour, s.alpha);
        }
        assert_eq!(a.bytes(), b.bytes());
        // bands outside the buffer draw nothing
        assert_eq!(a.fill_band(8.0, 12.0, spans), 0);
        assert_eq!(a.fill_band(-4.0, 0.0, spans), 0);
    }

    #[test]
    fn bytes_are_rgba_row_major() {
        let mut b = PixelBuf::new(2, 2);
        b.clear([1, 2, 3, 4]);
        b.fill_rect(1.0, 1.0, 2.0, 2.0, [9, 8, 7, 255], 255);
        assert_eq!(b.bytes(), &[1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 9, 8, 7, 255]);
        let mut e = PixelBuf::new(0, 0);
        e.fill_rect(0.0, 0.0, 5.0, 5.0, R, 255);
        assert_eq!(e.fill_band(0.0, 1.0, [Span { x0_px: 0.0, x1_px: 1.0, colour: R, alpha: 255 }]), 0);
        assert!(e.bytes().is_empty());
    }

    #[test]
    fn css_colours() {
        assert_eq!(parse_css_colour("#ffffff"), Some(W));
        assert_eq!(parse_css_colour(" #4e79A7 "), Some(rgb(0x4e, 0x79, 0xa7)));
        assert_eq!(parse_css_colour("#f00"), Some(R));
        assert_eq!(parse_css_colour("#ff000080"), Some([255, 0, 0, 128]));
        assert_eq!(parse_css_colour("rgb(1, 2, 3)"), Some(rgb(1, 2, 3)));
        assert_eq!(parse_css_colour("rgba(47, 111, 222, 0.22)"), Some([47, 111, 222, 56]));
        assert_eq!(parse_css_colour("rgb(47 111 222 / 50%)"), Some([47, 111, 222, 128]));
        for bad in ["grey", "", "#12", "#ggg", "rgb(1,2)", "rgb(1,2,3", "rgba(1,2,3,x)", "#ffé"] {
            assert_eq!(parse_css_colour(bad), None, "{bad}");
        }
    }
}
