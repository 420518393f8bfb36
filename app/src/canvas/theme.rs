//! Canvas colours, read once from the CSS custom properties in `style/tokens.css` (the only place
//! page colours are defined). Slice colours come from `loupe_core::view::PALETTE`.

use loupe_core::view::PALETTE;

/// Font of slice labels and ruler text.
pub const FONT: &str = "11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
pub const FONT_BOLD: &str = "600 11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

#[derive(Debug, Clone)]
pub struct Theme {
    pub bg: String,
    pub row_alt: String,
    pub group_bg: String,
    pub separator: String,
    pub grid: String,
    pub ruler_bg: String,
    pub ruler_text: String,
    pub iteration_a: String,
    pub iteration_b: String,
    pub iteration_text: String,
    pub text_dark: String,
    pub text_light: String,
    pub text_dim: String,
    pub selection: String,
    pub hover: String,
    pub flow: String,
    pub counter_fill: String,
    pub counter_line: String,
    pub drag_fill: String,
    pub drag_line: String,
    pub cursor_line: String,
    pub label_bg: String,
    pub scroll_thumb: String,
    /// Annotation markers: line and flag, flag text.
    pub marker: String,
    pub marker_text: String,
    /// CSS colour of each palette entry, and whether its label should be dark.
    pub palette: Vec<(String, bool)>,
}

impl Theme {
    /// Read the `--canvas-*` custom properties of the document root.
    pub fn from_css() -> Theme {
        let style = web_sys::window().and_then(|w| {
            w.document()
                .and_then(|d| d.document_element())
                .and_then(|e| w.get_computed_style(&e).ok().flatten())
        });
        let var = |name: &str| -> String {
            let v = style.as_ref().and_then(|s| s.get_property_value(name).ok()).unwrap_or_default();
            let v = v.trim();
            // missing tokens show as a neutral grey rather than failing
            if v.is_empty() {
                "grey".to_string()
            } else {
                v.to_string()
            }
        };
        Theme {
            bg: var("--canvas-bg"),
            row_alt: var("--canvas-row-alt"),
            group_bg: var("--canvas-group-bg"),
            separator: var("--canvas-separator"),
            grid: var("--canvas-grid"),
            ruler_bg: var("--canvas-ruler-bg"),
            ruler_text: var("--canvas-ruler-text"),
            iteration_a: var("--canvas-iteration-a"),
            iteration_b: var("--canvas-iteration-b"),
            iteration_text: var("--canvas-iteration-text"),
            text_dark: var("--canvas-text-dark"),
            text_light: var("--canvas-text-light"),
            text_dim: var("--canvas-text-dim"),
            selection: var("--canvas-selection"),
            hover: var("--canvas-hover"),
            flow: var("--canvas-flow"),
            counter_fill: var("--canvas-counter-fill"),
            counter_line: var("--canvas-counter-line"),
            drag_fill: var("--canvas-drag-fill"),
            drag_line: var("--canvas-drag-line"),
            cursor_line: var("--canvas-cursor-line"),
            label_bg: var("--canvas-label-bg"),
            scroll_thumb: var("--canvas-scroll-thumb"),
            marker: var("--canvas-marker"),
            marker_text: var("--canvas-marker-text"),
            // the name palette, then the neutral colour and the heat ramp of "Colour by"
            palette: PALETTE
                .iter()
                .chain(std::iter::once(&super::colour::NEUTRAL_RGB))
                .chain(super::colour::HEAT.iter())
                .map(|c| (c.to_css(), c.wants_dark_text()))
                .collect(),
        }
    }
}
