//! loupe-app: the browser app (Leptos CSR). `main.rs` only mounts [`App`]; the parser runs in the
//! `worker` binary. Everything here is mountable from the wasm-bindgen tests.
//!
//! ```text
//! state.rs        signals + the trace in a StoredValue (generation-bumped)
//! platform.rs     clock, a turn for the browser, stage timings, JS errors (under the state)
//! loader/         Web Worker protocol, page side and worker side
//! canvas/         layout, scheduler (one rAF), painter, hit test, timeline controller
//! components/     shell, details, tooltip, progress, warnings
//! workbench/      dock layout (data) + the workbench component, Layout and Add-widget menus
//! theme.rs       light / dark: data-theme on <html>, the header toggle, canvases re-read tokens
//! charts.rs       plotters-canvas charts (pie, bars, histogram, area) for the analysis widgets
//! widgets/        the widget registry: one module per widget (timeline, details, search, …)
//! ```
//!
//! Layers (ARCHITECTURE.md, `scripts/check_imports.py` APP_FLOORS): view data ← platform ← state
//! ← canvas/loader/components/charts ← widgets ← the registry (`widgets::render`) ← deep links ←
//! workbench ← shell; no import loops.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// JS callback types (`Closure<dyn FnMut(..)>` in `RefCell<Option<..>>`) are what they are
#![allow(clippy::type_complexity)]

pub mod annotation_store;
pub mod canvas;
pub mod charts;
pub mod clock;
pub mod components;
pub mod deep_link;
pub mod describe;
pub mod dom;
pub mod embed;
pub mod fmt;
pub mod index_build;
pub mod lazy_args;
pub mod loader;
pub mod model_cache;
pub mod page_indexes;
pub mod platform;
pub mod search_runner;
pub mod share;
pub mod sources;
pub mod state;
pub mod stored;
pub mod theme;
pub mod url_open;
pub mod widgets;
pub mod workbench;

pub use components::shell::App;
pub use loader::LoaderMode;
