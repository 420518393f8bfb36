//! Getting a profile out of the page: the `.loupe` file (model + view state), and exports of
//! the visible range / highlighted events as CSV, the whole profile as Chrome JSON (Perfetto
//! opens it) or Parquet tables, and report tables as CSV. Everything is computed here, in the
//! page, and handed to the browser as a download: nothing is sent anywhere.

use leptos::prelude::*;
use loupe_core::export::{self, csv::Slices};
use loupe_core::loupe_file::{self, FileMeta, SourceFile};
use loupe_core::model::{SliceRef, TrackId};
use loupe_core::view_state::ViewState;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;

use crate::state::AppState;

/// The app's part of a `.loupe` file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedState {
    pub app: String,
    pub view: ViewState,
}

/// Offer `bytes` as a download called `name`.
pub fn download(bytes: &[u8], name: &str, mime: &str) -> Result<(), String> {
    let arr = js_sys::Uint8Array::from(bytes);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(&arr), &opts)
        .map_err(|_| "the browser could not hold the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "no object URL".to_string())?;
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement =
        doc.create_element("a").ok().and_then(|e| e.dyn_into().ok()).ok_or("no anchor element")?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // the download has its own reference to the blob once started
    let u = url.clone();
    gloo_timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&u);
    })
    .forget();
    Ok(())
}

/// A file name from the profile's label: the first input's stem, safe characters only.
pub fn base_name(label: &str) -> String {
    let first = label.split(" + ").next().unwrap_or("profile");
    let stem = first.split('.').next().filter(|s| !s.is_empty()).unwrap_or("profile");
    let clean: String = stem
        .chars()
        .map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_') { c } else { '_' })
        .take(80)
        .collect();
    if clean.is_empty() {
        "profile".into()
    } else {
        clean
    }
}

/// The `.loupe` bytes of the open profile with `view`.
pub fn loupe_bytes(state: AppState, view: ViewState) -> Result<Vec<u8>, String> {
    let data = state.data();
    let saved = SavedState { app: format!("loupe {}", env!("CARGO_PKG_VERSION")), view };
    let json = serde_json::to_string(&saved).map_err(|e| e.to_string())?;
    let meta = FileMeta {
        written_by: format!("loupe-app {}", env!("CARGO_PKG_VERSION")),
        sources: data
            .source_label
            .split(" + ")
            .map(|n| SourceFile { name: n.to_string(), size_bytes: 0 })
            .collect(),
    };
    loupe_file::to_bytes(&data.trace, &json, &meta).map_err(|e| e.to_string())
}

/// The state saved in a `.loupe` file's bytes (`None` when there is none or it is unreadable:
/// the model still opens).
pub fn saved_state(bytes: &[u8]) -> Option<SavedState> {
    let (_, json) = loupe_file::read_state(bytes).ok()?;
    serde_json::from_str(&json).ok()
}

/// CSV of the slices overlapping `[t0, t1)`.
pub fn range_csv(state: AppState, t0_ns: i64, t1_ns: i64) -> Result<(Vec<u8>, u64), String> {
    let mut out = Vec::new();
    let n = export::csv::write_slices(&state.data().trace, &Slices::Range { t0_ns, t1_ns }, &mut out)
        .map_err(|e| e.to_string())?;
    Ok((out, n))
}

/// CSV of the highlighted events (search hits or a widget's chosen events), else the selection.
pub fn highlighted_csv(state: AppState) -> Result<(Vec<u8>, u64), String> {
    let hits = state.search.hits();
    let mut refs: Vec<SliceRef> = hits
        .per_track
        .iter()
        .enumerate()
        .flat_map(|(t, v)| v.iter().map(move |&i| SliceRef { track: TrackId(t as u32), index: i }))
        .collect();
    if refs.is_empty() {
        if let Some(crate::state::Selection::Slice(r)) = state.view.selection.get_untracked() {
            refs.push(r);
        }
    }
    if refs.is_empty() {
        return Err("nothing is highlighted or selected".into());
    }
    let mut out = Vec::new();
    let n = export::csv::write_slices(&state.data().trace, &Slices::Refs(&refs), &mut out)
        .map_err(|e| e.to_string())?;
    Ok((out, n))
}

/// The whole profile as Chrome trace JSON.
pub fn chrome_json(state: AppState) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    export::chrome_json::write(&state.data().trace, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// One Parquet table of the profile (see docs/export.md for the schema).
pub fn parquet_table(state: AppState, table: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    export::parquet::write_table(&state.data().trace, table, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// A report table as CSV.
pub fn report_table_csv(state: AppState, index: usize) -> Result<Vec<u8>, String> {
    let data = state.data();
    let t = data.trace.tables.get(index).ok_or("no such table")?;
    let mut out = Vec::new();
    export::csv::write_data_table(t, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}
