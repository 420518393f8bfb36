//! The timeline's pixel-buffer path: the tracks area's rectangles (row backgrounds, grid lines,
//! slices, merged blocks, collapsed-group strips) are written into a `loupe_core::raster::PixelBuf`
//! in device pixels and blitted with one `putImageData`; text, outlines, paths (instants,
//! counters, flows) and everything on top are drawn by the 2D canvas afterwards. Chosen over
//! one `fillRect` per item and over WebGL2 by measurement (`tests/bench/paint-probe.mjs`,
//! `bench/RESULTS.md`): with software rendering, 34 k rects cost ≈ 30–50 ms as canvas calls,
//! ≈ 2 ms as pixel runs, and WebGL2 (SwiftShader) ≈ 600 ms.
//!
//! `?raster=0` in the page URL switches back to the canvas path (for before/after measurements
//! and as a way out should a browser reject the blit).

use loupe_core::raster::{parse_css_colour, PixelBuf, Rgba, Span};
use wasm_bindgen::{Clamped, JsValue};
use web_sys::{CanvasRenderingContext2d, ImageData};

use super::theme::Theme;

/// The theme's colours as RGBA bytes.
#[derive(Debug, Clone)]
pub struct RasterColours {
    pub bg: Rgba,
    pub row_alt: Rgba,
    pub group_bg: Rgba,
    pub separator: Rgba,
    pub grid: Rgba,
    /// Same indexes as `Theme::palette`.
    pub palette: Vec<Rgba>,
}

/// A CSS colour as RGBA: the canvas normalises it (named colours, `hsl()`, …) to `#rrggbb` or
/// `rgba(…)`, which `parse_css_colour` reads. Unreadable colours become grey.
fn resolve(ctx: &CanvasRenderingContext2d, css: &str) -> Rgba {
    ctx.set_fill_style_str("#808080");
    ctx.set_fill_style_str(css);
    ctx.fill_style().as_string().and_then(|s| parse_css_colour(&s)).unwrap_or([128, 128, 128, 255])
}

impl RasterColours {
    pub fn from_theme(ctx: &CanvasRenderingContext2d, t: &Theme) -> RasterColours {
        RasterColours {
            bg: resolve(ctx, &t.bg),
            row_alt: resolve(ctx, &t.row_alt),
            group_bg: resolve(ctx, &t.group_bg),
            separator: resolve(ctx, &t.separator),
            grid: resolve(ctx, &t.grid),
            palette: t.palette.iter().map(|(c, _)| resolve(ctx, c)).collect(),
        }
    }
}

/// The pixel buffer of the tracks area and its per-frame scratch.
pub struct Raster {
    pub buf: PixelBuf,
    pub colours: RasterColours,
    /// Spans of the band being drawn (reused).
    pub spans: Vec<Span>,
    /// Device pixels per CSS pixel, and the CSS y of the buffer's first row.
    pub dpr: f64,
    pub top_css_px: f64,
    /// The blit has failed once with a view of wasm memory (e.g. shared memory): copy instead.
    copy_blit: bool,
}

impl Raster {
    pub fn new(colours: RasterColours) -> Raster {
        Raster {
            buf: PixelBuf::default(),
            colours,
            spans: Vec::new(),
            dpr: 1.0,
            top_css_px: 0.0,
            copy_blit: false,
        }
    }

    /// Size the buffer for a tracks area of `w × h` CSS px starting at CSS y `top`, and clear it.
    pub fn begin(&mut self, w_css: f64, top_css: f64, h_css: f64, dpr: f64) {
        self.dpr = dpr;
        self.top_css_px = top_css;
        let w = (w_css * dpr).round().max(0.0) as usize;
        let h = (h_css * dpr).round().max(0.0) as usize;
        self.buf.resize(w, h);
        self.buf.clear(self.colours.bg);
    }

    /// Fill a rectangle given in screen CSS px.
    pub fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, colour: Rgba, alpha: u8) {
        let (d, top) = (self.dpr, self.top_css_px);
        self.buf.fill_rect(x0 * d, (y0 - top) * d, x1 * d, (y1 - top) * d, colour, alpha);
    }

    /// Queue a span `[x0, x1)` (screen CSS px) of the current band.
    pub fn span(&mut self, x0: f64, x1: f64, colour: Rgba, alpha: u8) {
        self.spans.push(Span { x0_px: x0 * self.dpr, x1_px: x1 * self.dpr, colour, alpha });
    }

    /// Draw the queued spans as the band `[y0, y1)` (screen CSS px).
    pub fn flush_band(&mut self, y0: f64, y1: f64) {
        let (d, top) = (self.dpr, self.top_css_px);
        self.buf.fill_band((y0 - top) * d, (y1 - top) * d, self.spans.drain(..));
    }

    /// Copy the buffer to the canvas at its place (device pixels; the canvas transform and clip
    /// do not apply to `putImageData`).
    pub fn blit(&mut self, ctx: &CanvasRenderingContext2d) -> Result<(), JsValue> {
        let (w, h) = (self.buf.width() as u32, self.buf.height() as u32);
        if w == 0 || h == 0 {
            return Ok(());
        }
        let y = (self.top_css_px * self.dpr).round();
        if !self.copy_blit {
            // a view of wasm memory: no copy before putImageData's own
            match ImageData::new_with_u8_clamped_array_and_sh(Clamped(self.buf.bytes()), w, h) {
                Ok(img) => return ctx.put_image_data(&img, 0.0, y),
                Err(_) => self.copy_blit = true,
            }
        }
        let arr = js_sys::Uint8ClampedArray::new_with_length(w * h * 4);
        arr.copy_from(self.buf.bytes());
        let img = ImageData::new_with_js_u8_clamped_array_and_sh(&arr, w, h)?;
        ctx.put_image_data(&img, 0.0, y)
    }
}
