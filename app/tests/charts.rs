//! The plotters-canvas charts draw real pixels of the right colours, in headless Chromium:
//! `cargo test -p loupe-app --target wasm32-unknown-unknown --test charts`.

use loupe_app::charts::{draw, fmt_ns, Chart, Part, Unit};
use loupe_core::view::Rgb;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

/// Pixels of exactly `rgb`, and pixels that are not white.
fn count(c: &HtmlCanvasElement, rgb: Rgb) -> (usize, usize) {
    let (exact, ink, _) = count3(c, rgb);
    (exact, ink)
}

/// … and pixels that are clearly blue (the area fill blends the fill colour with white).
fn count3(c: &HtmlCanvasElement, rgb: Rgb) -> (usize, usize, usize) {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let data = ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).unwrap().data();
    let (mut exact, mut ink, mut blue) = (0, 0, 0);
    for px in data.chunks_exact(4) {
        if px[2] as i32 > px[0] as i32 + 25 && px[2] > px[1] {
            blue += 1;
        }
        if (px[0], px[1], px[2]) == (rgb.0, rgb.1, rgb.2) {
            exact += 1;
        }
        if (px[0], px[1], px[2]) != (255, 255, 255) {
            ink += 1;
        }
    }
    (exact, ink, blue)
}

const RED: Rgb = Rgb(0xe1, 0x57, 0x59);
const BLUE: Rgb = Rgb(0x4e, 0x79, 0xa7);

#[wasm_bindgen_test]
fn pie_areas_follow_the_values() {
    let c = canvas(200, 200);
    let parts = vec![
        Part { label: "a".into(), value: 3.0, colour: RED },
        Part { label: "b".into(), value: 1.0, colour: BLUE },
    ];
    draw(c.clone(), &Chart::Pie(parts), 1.0).unwrap();
    let (red, _) = count(&c, RED);
    let (blue, _) = count(&c, BLUE);
    assert!(red > 1000 && blue > 300, "red {red} blue {blue}");
    let ratio = red as f64 / blue as f64;
    assert!((2.5..3.5).contains(&ratio), "3:1 pie drew {red}:{blue}");
}

#[wasm_bindgen_test]
fn bars_histogram_and_area_draw() {
    let c = canvas(300, 120);
    let parts = vec![
        Part { label: "long".into(), value: 4e6, colour: RED },
        Part { label: "short".into(), value: 1e6, colour: BLUE },
    ];
    draw(c.clone(), &Chart::Bars { parts, unit: Unit::Ns }, 1.0).unwrap();
    let (red, _) = count(&c, RED);
    let (blue, _) = count(&c, BLUE);
    assert!(red > 3 * blue && blue > 50, "bars red {red} blue {blue}");

    let c = canvas(300, 120);
    let bins = vec![(0.0, 10.0, 5), (10.0, 20.0, 0), (20.0, 30.0, 20)];
    draw(c.clone(), &Chart::Histogram { bins, unit: Unit::Ns }, 1.0).unwrap();
    let (fill, ink) = count(&c, BLUE);
    assert!(fill > 200 && ink > fill, "histogram fill {fill} ink {ink}");

    let c = canvas(300, 120);
    let points = vec![(0, 0.0), (1000, 100.0), (2000, 50.0)];
    draw(c.clone(), &Chart::Area { points, y_max: 100.0, y_label: "%".into() }, 1.0).unwrap();
    let (_, ink, blue) = count3(&c, BLUE);
    // the filled area is about half the plot (300 × 120 minus axes)
    assert!(blue > 5000 && ink > blue, "area blue {blue} ink {ink}");

    // empty data draws a blank chart, no error
    let c = canvas(100, 100);
    draw(c.clone(), &Chart::Pie(Vec::new()), 1.0).unwrap();
    draw(c.clone(), &Chart::Histogram { bins: Vec::new(), unit: Unit::Count }, 1.0).unwrap();
}

#[wasm_bindgen_test]
fn durations_read_well() {
    assert_eq!(fmt_ns(999.0), "999 ns");
    assert_eq!(fmt_ns(1_500.0), "1.50 µs");
    assert_eq!(fmt_ns(25_000_000.0), "25.0 ms");
    assert_eq!(fmt_ns(3.2e9), "3.20 s");
    assert_eq!(Unit::Count.format(12_345.0), "12k");
}
