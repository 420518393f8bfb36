//! Charts for the analysis widgets, drawn with `plotters` on an HTML canvas (`plotters-canvas`):
//! a pie (share of time), horizontal bars (top N), a histogram (a distribution), a filled
//! line (a quantity over time), and a heatmap (rows × columns of cells on a colour scale). Widgets give the data; [`ChartCanvas`] sizes the canvas to its
//! box at the device pixel ratio and redraws when the box or the data change. Legends are HTML
//! beside the chart (readable, selectable, clickable), so the pie itself carries no text.
//!
//! Colours of named things come from [`loupe_core::view::color_for`], the same as the timeline,
//! so an operator has one colour everywhere — except where two names of one legend would share
//! it: a chart's legend is made distinct by [`loupe_core::view::LegendColours`] (the less
//! prominent name moves), as the timeline's legend is (`TraceData::apply_legend`).

use std::sync::Arc;

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

use loupe_core::view::Rgb;

/// One slice of a pie or one bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub label: String,
    pub value: f64,
    pub colour: Rgb,
}

/// A chart to draw: the data, owned, so a widget can build it once per trace.
#[derive(Debug, Clone, PartialEq)]
pub enum Chart {
    /// Shares of a whole (values ≥ 0). Parts under 0.5 % of the total are merged into the last.
    Pie(Vec<Part>),
    /// Horizontal bars, top to bottom, with the value formatted by `unit` on the axis.
    Bars { parts: Vec<Part>, unit: Unit },
    /// Bins `[lo, hi)` with counts; x in `unit`.
    Histogram { bins: Vec<(f64, f64, u64)>, unit: Unit },
    /// A quantity over time: `(t_ns, value)` points, y from 0 to `y_max`, filled.
    Area { points: Vec<(i64, f64)>, y_max: f64, y_label: String },
    /// Rows × columns of cells, each with a heat in 0..=1 (or none: an empty cell), coloured
    /// from `--chart-heat-low` through `-mid` to `-high`; row labels left, column labels below,
    /// laid out by [`HeatGeometry`] (an HTML overlay puts its cells at the same places).
    Heatmap { rows: Vec<String>, cols: Vec<String>, heat: Vec<Option<f64>> },
}

/// Where a [`Chart::Heatmap`]'s cells are in its box (CSS px): a label column of `LEFT_PX`, a
/// margin of `TOP_PX` above and `RIGHT_PX` right, a label row of `BOTTOM_PX` below; the rest is
/// divided evenly. The widget's overlay uses the same insets, so its cells sit on the drawn ones.
pub struct HeatGeometry;

impl HeatGeometry {
    pub const LEFT_PX: f64 = 64.0;
    pub const TOP_PX: f64 = 4.0;
    pub const RIGHT_PX: f64 = 6.0;
    pub const BOTTOM_PX: f64 = 20.0;
    /// Cell size in a `w` × `h` box.
    pub fn cell(w: f64, h: f64, rows: usize, cols: usize) -> (f64, f64) {
        (
            (w - Self::LEFT_PX - Self::RIGHT_PX).max(1.0) / cols.max(1) as f64,
            (h - Self::TOP_PX - Self::BOTTOM_PX).max(1.0) / rows.max(1) as f64,
        )
    }
}

/// The heat colour of `t` in 0..=1: low → mid over the first half, mid → high over the second.
fn heat_colour(col: &Colours, t: f64) -> RGBColor {
    let mix = |a: RGBColor, b: RGBColor, u: f64| {
        let m = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * u).round().clamp(0.0, 255.0) as u8;
        RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    };
    let t = t.clamp(0.0, 1.0);
    if t <= 0.5 {
        mix(col.heat_low, col.heat_mid, t * 2.0)
    } else {
        mix(col.heat_mid, col.heat_high, t * 2.0 - 1.0)
    }
}

/// How axis values read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds, shown as ns/µs/ms/s.
    Ns,
    Percent,
    Count,
}

impl Unit {
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Ns => fmt_ns(v),
            Unit::Percent => format!("{v:.0} %"),
            Unit::Count => {
                if v.abs() >= 1e6 {
                    format!("{:.1}M", v / 1e6)
                } else if v.abs() >= 1e4 {
                    format!("{:.0}k", v / 1e3)
                } else {
                    format!("{v:.0}")
                }
            }
        }
    }
}

/// A duration in ns for an axis or a cell: 3 significant digits, ns/µs/ms/s.
pub fn fmt_ns(v: f64) -> String {
    let a = v.abs();
    let (x, u) = if a >= 1e9 {
        (v / 1e9, "s")
    } else if a >= 1e6 {
        (v / 1e6, "ms")
    } else if a >= 1e3 {
        (v / 1e3, "µs")
    } else {
        (v, "ns")
    };
    if x.abs() >= 100.0 || u == "ns" {
        format!("{x:.0} {u}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1} {u}")
    } else {
        format!("{x:.2} {u}")
    }
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// The colours around the data (background, axes, grid, the one-colour series), from the
/// `--chart-*` tokens of `style/tokens.css`, so a chart follows the page's theme. Read at each
/// draw; a token that is missing or not `#rrggbb` keeps the light theme's value.
#[derive(Debug, Clone, Copy)]
struct Colours {
    bg: RGBColor,
    axis: RGBColor,
    label: RGBColor,
    grid_light: RGBColor,
    grid_bold: RGBColor,
    fill: RGBColor,
    rest: RGBColor,
    heat_low: RGBColor,
    heat_mid: RGBColor,
    heat_high: RGBColor,
}

fn hex(v: &str) -> Option<RGBColor> {
    let h = v.trim().strip_prefix('#')?;
    if h.len() != 6 || !h.is_ascii() {
        return None;
    }
    let b = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
    Some(RGBColor(b(0)?, b(2)?, b(4)?))
}

impl Colours {
    const LIGHT: Colours = Colours {
        bg: RGBColor(0xff, 0xff, 0xff),
        axis: RGBColor(0x5b, 0x63, 0x70),
        label: RGBColor(0x1b, 0x1f, 0x27),
        grid_light: RGBColor(0xee, 0xef, 0xf2),
        grid_bold: RGBColor(0xe2, 0xe4, 0xe8),
        fill: RGBColor(0x4e, 0x79, 0xa7),
        rest: RGBColor(0xc8, 0xcc, 0xd2),
        heat_low: RGBColor(0xe4, 0xed, 0xf7),
        heat_mid: RGBColor(0xf0, 0xb3, 0x5e),
        heat_high: RGBColor(0xc0, 0x39, 0x2b),
    };

    fn from_css() -> Colours {
        let style = web_sys::window().and_then(|w| {
            w.document()
                .and_then(|d| d.document_element())
                .and_then(|e| w.get_computed_style(&e).ok().flatten())
        });
        let Some(style) = style else { return Colours::LIGHT };
        let var = |name: &str, or: RGBColor| {
            style.get_property_value(name).ok().and_then(|v| hex(&v)).unwrap_or(or)
        };
        let l = Colours::LIGHT;
        Colours {
            bg: var("--chart-bg", l.bg),
            axis: var("--chart-axis", l.axis),
            label: var("--chart-label", l.label),
            grid_light: var("--chart-grid-light", l.grid_light),
            grid_bold: var("--chart-grid-bold", l.grid_bold),
            fill: var("--chart-fill", l.fill),
            rest: var("--chart-rest", l.rest),
            heat_low: var("--chart-heat-low", l.heat_low),
            heat_mid: var("--chart-heat-mid", l.heat_mid),
            heat_high: var("--chart-heat-high", l.heat_high),
        }
    }
}

type DrawResult = Result<(), String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Draw `chart` on `canvas` (whose backing store is already sized); `scale` = device pixel
/// ratio, for line widths and font sizes.
pub fn draw(canvas: HtmlCanvasElement, chart: &Chart, scale: f64) -> DrawResult {
    let col = Colours::from_css();
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&col.bg).map_err(err)?;
    let font_px = (11.0 * scale).round();
    let font = ("system-ui, sans-serif", font_px).into_font().color(&col.axis);
    match chart {
        Chart::Pie(parts) => {
            let (w, h) = root.dim_in_pixel();
            let total: f64 = parts.iter().map(|p| p.value.max(0.0)).sum();
            if total <= 0.0 {
                return Ok(());
            }
            let mut sizes = Vec::new();
            let mut colours = Vec::new();
            let mut rest = 0.0;
            for p in parts {
                if p.value / total < 0.005 {
                    rest += p.value.max(0.0);
                } else {
                    sizes.push(p.value.max(0.0));
                    colours.push(rgb(p.colour));
                }
            }
            if rest > 0.0 {
                sizes.push(rest);
                colours.push(col.rest);
            }
            let labels = vec![""; sizes.len()];
            let centre = ((w / 2) as i32, (h / 2) as i32);
            let radius = (w.min(h) as f64 / 2.0 - 4.0 * scale).max(1.0);
            let mut pie = Pie::new(&centre, &radius, &sizes, &colours, &labels);
            pie.start_angle(-90.0);
            pie.donut_hole(radius * 0.45);
            root.draw(&pie).map_err(err)?;
        }
        Chart::Bars { parts, unit } => {
            if parts.is_empty() {
                return Ok(());
            }
            let max = parts.iter().map(|p| p.value).fold(0.0_f64, f64::max).max(1e-9);
            let n = parts.len();
            let mut chart = ChartBuilder::on(&root)
                .margin((6.0 * scale) as i32)
                .x_label_area_size((18.0 * scale) as i32)
                .build_cartesian_2d(0.0..max * 1.05, 0.0..n as f64)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .disable_y_axis()
                .x_labels(5)
                .x_label_formatter(&|v| unit.format(*v))
                .label_style(font.clone())
                .axis_style(col.axis)
                .light_line_style(col.grid_light)
                .bold_line_style(col.grid_bold)
                .draw()
                .map_err(err)?;
            chart
                .draw_series(parts.iter().enumerate().map(|(i, p)| {
                    let y0 = (n - 1 - i) as f64 + 0.15;
                    Rectangle::new([(0.0, y0), (p.value, y0 + 0.7)], rgb(p.colour).filled())
                }))
                .map_err(err)?;
            chart
                .draw_series(parts.iter().enumerate().map(|(i, p)| {
                    let y = (n - 1 - i) as f64 + 0.5;
                    Text::new(format!(" {}", p.label), (0.0, y + 0.3), font.clone().color(&col.label))
                }))
                .map_err(err)?;
        }
        Chart::Histogram { bins, unit } => {
            if bins.is_empty() {
                return Ok(());
            }
            let lo = bins.iter().map(|b| b.0).fold(f64::INFINITY, f64::min);
            let hi = bins.iter().map(|b| b.1).fold(f64::NEG_INFINITY, f64::max).max(lo + 1e-9);
            let max = bins.iter().map(|b| b.2).max().unwrap_or(1).max(1) as f64;
            let mut chart = ChartBuilder::on(&root)
                .margin((6.0 * scale) as i32)
                .x_label_area_size((18.0 * scale) as i32)
                .y_label_area_size((34.0 * scale) as i32)
                .build_cartesian_2d(lo..hi, 0.0..max * 1.08)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(5)
                .y_labels(4)
                .x_label_formatter(&|v| unit.format(*v))
                .y_label_formatter(&|v| Unit::Count.format(*v))
                .label_style(font.clone())
                .axis_style(col.axis)
                .light_line_style(col.grid_light)
                .bold_line_style(col.grid_bold)
                .draw()
                .map_err(err)?;
            chart
                .draw_series(
                    bins.iter()
                        .filter(|b| b.2 > 0)
                        .map(|&(a, b, c)| Rectangle::new([(a, 0.0), (b, c as f64)], col.fill.filled())),
                )
                .map_err(err)?;
        }
        Chart::Area { points, y_max, y_label } => {
            let (Some(first), Some(last)) = (points.first(), points.last()) else { return Ok(()) };
            let t0 = first.0;
            let span = (last.0 - t0).max(1) as f64;
            let y_max = if *y_max > 0.0 { *y_max } else { 1.0 };
            let mut chart = ChartBuilder::on(&root)
                .margin((6.0 * scale) as i32)
                .x_label_area_size((18.0 * scale) as i32)
                .y_label_area_size((40.0 * scale) as i32)
                .build_cartesian_2d(0.0..span, 0.0..y_max)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(5)
                .y_labels(3)
                .x_label_formatter(&|v| fmt_ns(*v))
                .y_desc(y_label.as_str())
                .label_style(font.clone())
                .axis_desc_style(font.clone())
                .axis_style(col.axis)
                .light_line_style(col.grid_light)
                .bold_line_style(col.grid_bold)
                .draw()
                .map_err(err)?;
            chart
                .draw_series(AreaSeries::new(
                    points.iter().map(|&(t, v)| ((t - t0) as f64, v)),
                    0.0,
                    col.fill.mix(0.35),
                ))
                .map_err(err)?
                .label(y_label.as_str());
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|&(t, v)| ((t - t0) as f64, v)),
                    col.fill.stroke_width(scale.round().max(1.0) as u32),
                ))
                .map_err(err)?;
        }
        Chart::Heatmap { rows, cols, heat } => {
            let (w, h) = root.dim_in_pixel();
            let (w_css, h_css) = (w as f64 / scale, h as f64 / scale);
            let (cw, ch) = HeatGeometry::cell(w_css, h_css, rows.len(), cols.len());
            let px = |v: f64| (v * scale).round() as i32;
            let label = font.clone().color(&col.label);
            for (r, name) in rows.iter().enumerate() {
                let y0 = HeatGeometry::TOP_PX + r as f64 * ch;
                for c in 0..cols.len() {
                    let x0 = HeatGeometry::LEFT_PX + c as f64 * cw;
                    // a hairline between cells when they are wide enough to spare it
                    let gap = if cw >= 6.0 { 1.0 } else { 0.0 };
                    let style = match heat.get(r * cols.len() + c).copied().flatten() {
                        Some(t) => heat_colour(&col, t).filled(),
                        None => col.grid_light.filled(),
                    };
                    root.draw(&Rectangle::new(
                        [(px(x0), px(y0)), (px(x0 + cw - gap), px(y0 + ch - gap.min(1.0)))],
                        style,
                    ))
                    .map_err(err)?;
                }
                root.draw(&Text::new(name.clone(), (px(4.0), px(y0 + ch / 2.0 - 6.0)), label.clone()))
                    .map_err(err)?;
            }
            // column labels: as many as fit without overlapping, evenly spaced
            let widest = cols.iter().map(|c| c.chars().count()).max().unwrap_or(1) as f64 * 7.0 + 8.0;
            let every = ((widest / cw).ceil() as usize).max(1);
            let y = HeatGeometry::TOP_PX + rows.len() as f64 * ch + 4.0;
            for (c, name) in cols.iter().enumerate().step_by(every) {
                let x = HeatGeometry::LEFT_PX + c as f64 * cw;
                root.draw(&Text::new(name.clone(), (px(x + 1.0), px(y)), font.clone())).map_err(err)?;
            }
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

/// A canvas that draws `chart` at its box's size (CSS `height_px` tall, full width) and
/// redraws when the box is resized or the chart changes. `label` is the canvas's accessible name.
#[component]
pub fn ChartCanvas(
    #[prop(into)] chart: Signal<Option<Arc<Chart>>>,
    height_px: u32,
    #[prop(into)] label: String,
    #[prop(optional, into)] testid: String,
) -> impl IntoView {
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let redraw = move || {
        let Some(canvas) = canvas_ref.get_untracked() else { return };
        let canvas: HtmlCanvasElement = canvas;
        let Some(chart) = chart.get_untracked() else { return };
        let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).max(1.0);
        let w_css = canvas.client_width().max(1) as f64;
        let h_css = height_px.max(1) as f64;
        let (w, h) = ((w_css * dpr).round() as u32, (h_css * dpr).round() as u32);
        if canvas.width() != w || canvas.height() != h {
            canvas.set_width(w);
            canvas.set_height(h);
        }
        if let Err(e) = draw(canvas.clone(), &chart, dpr) {
            web_sys::console::warn_1(&format!("chart: {e}").into());
        }
        let _ = canvas.set_attribute("data-drawn", "true");
    };
    Effect::new(move |_| {
        chart.track();
        crate::theme::track();
        redraw();
    });
    // redraw when the box changes size (a dock splitter, a window resize)
    let observer: StoredValue<Option<(web_sys::ResizeObserver, Closure<dyn FnMut(JsValue)>)>, LocalStorage> =
        StoredValue::new_local(None);
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else { return };
        let cb = Closure::<dyn FnMut(JsValue)>::new(move |_| redraw());
        if let Ok(ro) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
            ro.observe(&canvas);
            observer.set_value(Some((ro, cb)));
        }
    });
    on_cleanup(move || {
        observer.try_update_value(|o| {
            if let Some((ro, _)) = o.take() {
                ro.disconnect();
            }
        });
    });
    view! {
        <canvas class="chart" node_ref=canvas_ref role="img" aria-label=label data-testid=testid
            style=format!("width:100%;height:{height_px}px;display:block")></canvas>
    }
}
