//! Annotations: the markers of the current set (right-click on the timeline drops one, dragging
//! its flag moves it), each renamable, deletable, and comparable with another ("diff vs"): the
//! interval between them, its metrics per engine and track (`loupe_core::analysis::interval`)
//! and a button zooming the timeline to it. Named sets are saved per profile in localStorage
//! (keyed by the content fingerprint, `crate::annotation_store`), exported and imported as JSON.
//!
//! The widget only reads and writes `AppState::annotations` (through `edit_annotations`, which
//! also saves) and asks for view changes with `view_request`; it never calls the timeline.

use std::collections::HashMap;

use leptos::prelude::*;
use loupe_core::analysis::annotations::{AnnotationFile, AnnotationSet, Marker, DEFAULT_SET};
use loupe_core::analysis::interval::{interval_metrics_on_view_clock, IntervalMetrics};
use loupe_core::time::format_duration_ns;
use loupe_core::view::format_time_at_resolution;
use wasm_bindgen::JsCast;

use crate::annotation_store as store;
use crate::state::{use_app_state, AppState, ViewRequest};
use crate::widgets::fmt_bytes;

/// Tracks listed under an interval before "… more".
const MAX_TRACK_ROWS: usize = 30;

/// Names of the profile's saved sets (none for the demo, which is never saved).
fn saved_names(state: AppState) -> Vec<String> {
    let d = state.data();
    if d.is_demo {
        return Vec::new();
    }
    store::load(&d.fingerprint).sets.into_iter().map(|s| s.name).collect()
}

/// The export file: every saved set of the profile, with the current one as it is now.
fn export_file(state: AppState) -> AnnotationFile {
    let d = state.data();
    let mut f = if d.is_demo { AnnotationFile::new(&d.fingerprint) } else { store::load(&d.fingerprint) };
    let cur = state.annotations.current.get_untracked();
    f.current = cur.name.clone();
    f.put(cur);
    f
}

/// Offer `text` as a file download (a Blob URL clicked through a temporary link).
fn download(file_name: &str, text: &str) -> Result<(), String> {
    let fail = |_| "the browser refused the download".to_string();
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let a: web_sys::HtmlAnchorElement = crate::dom::document()
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into().ok())
        .ok_or("no document")?;
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The metrics of one interval, as tables.
fn metrics_view(m: &IntervalMetrics) -> AnyView {
    let head = format!(
        "{} · {} events{}",
        format_duration_ns(m.len_ns),
        m.events,
        m.dma_bytes.map_or(String::new(), |b| format!(" · DMA {}", fmt_bytes(b)))
    );
    let engines = (!m.engines.is_empty())
        .then(|| crate::components::summary_tables::engine_table(&m.engines, "annotation-engines"));
    let with_bytes = m.dma_bytes.is_some();
    let rows = m
        .tracks
        .iter()
        .take(MAX_TRACK_ROWS)
        .map(|t| {
            view! {
                <tr>
                    <th title=t.label.clone()>{t.label.clone()}</th>
                    <td class="num">{t.count.to_string()}</td>
                    <td class="num">{format_duration_ns(t.busy_ns)}</td>
                    <td class="num">{format!("{:.1} %", t.utilisation * 100.0)}</td>
                    {with_bytes.then(|| view! {
                        <td class="num">{t.dma_bytes.map_or(String::new(), fmt_bytes)}</td>
                    })}
                </tr>
            }
        })
        .collect_view();
    let more = m.tracks.len().saturating_sub(MAX_TRACK_ROWS);
    view! {
        <div class="ann-metrics" data-testid="annotation-metrics" data-len-ns=m.len_ns.to_string()
            data-events=m.events.to_string()>
            <p class="ann-metrics-head">{head}</p>
            {engines}
            {if m.tracks.is_empty() {
                view! { <p class="hint">"No events in this interval."</p> }.into_any()
            } else {
                view! {
                    <table class="grid ann-tracks" data-testid="annotation-tracks">
                        <thead><tr><th>"track"</th><th>"events"</th><th>"busy"</th><th>"utilisation"</th>
                            {with_bytes.then(|| view! { <th>"DMA bytes"</th> })}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }
                .into_any()
            }}
            {(more > 0).then(|| view! { <p class="hint">{format!("… and {more} more tracks")}</p> })}
        </div>
    }
    .into_any()
}

#[component]
pub fn AnnotationsWidget() -> impl IntoView {
    let state = use_app_state();
    // per marker id: the marker it is compared with
    let diff: RwSignal<HashMap<u32, u32>> = RwSignal::new(HashMap::new());
    let set_name = RwSignal::new(state.annotations.current.get_untracked().name);
    let saved = RwSignal::new(saved_names(state));
    let chosen = RwSignal::new(String::new());
    let message: RwSignal<Option<(bool, String)>> = RwSignal::new(None);
    // a new profile: its saved sets, no comparisons
    Effect::new(move |_| {
        state.generation.track();
        saved.set(saved_names(state));
        diff.set(HashMap::new());
        message.set(None);
    });
    // the current set's name follows loads and imports
    Effect::new(move |_| {
        let n = state.annotations.current.with(|a| a.name.clone());
        set_name.set(n);
    });

    let save_as = move |_| {
        let name = set_name.get_untracked().trim().to_string();
        if name.is_empty() {
            message.set(Some((true, "Give the set a name first.".into())));
            return;
        }
        if state.data().is_demo {
            message.set(Some((true, "Open a profile first: markers on the demo are not saved.".into())));
            return;
        }
        state.edit_annotations(|a| a.name = name.clone());
        saved.set(saved_names(state));
        match state.annotations.error.get_untracked() {
            Some(e) => message.set(Some((true, e))),
            None => message.set(Some((false, format!("Saved “{name}”.")))),
        }
    };
    let load = move |_| {
        let name = chosen.get_untracked();
        let d = state.data();
        let Some(set) = store::load(&d.fingerprint).set(&name).cloned() else {
            message.set(Some((true, "Choose a saved set to load.".into())));
            return;
        };
        diff.set(HashMap::new());
        state.edit_annotations(|a| *a = set);
        message.set(Some((false, format!("Loaded “{name}”."))));
    };
    let delete_set = move |_| {
        let name = chosen.get_untracked();
        let d = state.data();
        let mut f = store::load(&d.fingerprint);
        if f.set(&name).is_none() {
            message.set(Some((true, "Choose a saved set to delete.".into())));
            return;
        }
        f.remove(&name);
        if let Err(e) = store::save(&f) {
            message.set(Some((true, e)));
            return;
        }
        if state.annotations.current.with_untracked(|a| a.name == name) {
            state.edit_annotations(|a| *a = AnnotationSet::new(DEFAULT_SET));
        }
        saved.set(saved_names(state));
        message.set(Some((false, format!("Deleted “{name}”."))));
    };
    let export = move |_| {
        let f = export_file(state);
        let base = state.data().source_label.split(',').next().unwrap_or("profile").trim().to_string();
        let res = download(&format!("{base}.annotations.json"), &f.to_json());
        message.set(Some(match res {
            Ok(()) => (false, format!("Exported {} set(s).", f.sets.len())),
            Err(e) => (true, format!("Could not export: {e}")),
        }));
    };
    let import = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        let Some(file) = input.files().and_then(|l| l.get(0)) else { return };
        input.set_value("");
        let name = file.name();
        wasm_bindgen_futures::spawn_local(async move {
            let text =
                wasm_bindgen_futures::JsFuture::from(file.text()).await.ok().and_then(|v| v.as_string());
            let Some(text) = text else {
                message.set(Some((true, format!("Could not read {name}."))));
                return;
            };
            match AnnotationFile::from_json(&text) {
                Err(e) => message.set(Some((true, format!("Could not import {name}: {e}")))),
                Ok(f) if f.sets.is_empty() => {
                    message.set(Some((true, format!("Could not import {name}: it holds no annotation set"))))
                }
                Ok(f) => {
                    let d = state.data();
                    let cur = f.current_set();
                    if !d.is_demo {
                        let mut stored = store::load(&d.fingerprint);
                        for s in &f.sets {
                            stored.put(s.clone());
                        }
                        if let Err(e) = store::save(&stored) {
                            message.set(Some((true, e)));
                            return;
                        }
                    }
                    diff.set(HashMap::new());
                    state.edit_annotations(|a| *a = cur.clone());
                    saved.set(saved_names(state));
                    let other = !f.fingerprint.is_empty() && f.fingerprint != d.fingerprint;
                    message.set(Some((
                        other,
                        format!(
                            "Imported {} set(s) from {name}; showing “{}”.{}",
                            f.sets.len(),
                            cur.name,
                            if other {
                                " They were made on another profile: times may not match."
                            } else {
                                ""
                            }
                        ),
                    )));
                }
            }
        });
    };

    let rows = move || {
        let set = state.annotations.current.get();
        let d = state.tracked_data();
        let clock = state.clock.shift.get();
        let pairs = diff.get();
        if set.markers.is_empty() {
            return view! {
                <p class="hint" data-testid="annotations-empty">
                    "No markers yet. Right-click the timeline to drop one (it snaps to the nearest event edge); "
                    "drag its flag on the ruler to move it. With two markers, “diff vs” shows the interval between them."
                </p>
            }
            .into_any();
        }
        let mut markers: Vec<Marker> = set.markers.clone();
        markers.sort_by_key(|m| (m.t_ns, m.id));
        let start_ns = d.trace.start_ns;
        let rows = markers
            .iter()
            .map(|m| {
                let id = m.id;
                let other = pairs.get(&id).and_then(|o| markers.iter().find(|x| x.id == *o)).cloned();
                let options = markers
                    .iter()
                    .filter(|x| x.id != id)
                    .map(|x| {
                        let sel = other.as_ref().is_some_and(|o| o.id == x.id);
                        view! { <option value=x.id.to_string() selected=sel>{x.name.clone()}</option> }
                    })
                    .collect_view();
                let on_diff = move |ev: web_sys::Event| {
                    let v = event_target_value(&ev);
                    diff.update(|p| match v.parse::<u32>() {
                        Ok(o) => {
                            p.insert(id, o);
                        }
                        Err(_) => {
                            p.remove(&id);
                        }
                    });
                };
                let rename = move |ev: web_sys::Event| {
                    let v = event_target_value(&ev);
                    if !v.trim().is_empty() {
                        state.edit_annotations(|a| a.rename(id, &v));
                    }
                };
                let remove = move |_| {
                    diff.update(|p| {
                        p.remove(&id);
                        p.retain(|_, o| *o != id);
                    });
                    state.edit_annotations(|a| a.remove(id));
                };
                // markers are placed on the view's clock (the ranks' alignment, when one is set)
                let metrics = other.as_ref().map(|o| {
                    interval_metrics_on_view_clock(&d.trace, &d.indexes.window_index, m.t_ns, o.t_ns, &clock.track_ns)
                });
                let interval = metrics.as_ref().map(|x| {
                    let sign = if other.as_ref().is_some_and(|o| o.t_ns < m.t_ns) { "−" } else { "+" };
                    format!("{sign}{}", format_duration_ns(x.len_ns))
                });
                let zoom_to = metrics.as_ref().map(|x| (x.t0_ns, x.t1_ns));
                let zoom = move |_| {
                    if let Some((t0, t1)) = zoom_to {
                        // an empty interval: a few ns around it
                        let t1 = t1.max(t0.saturating_add(1));
                        state.view.request.set(Some(ViewRequest::Range { t0_ns: t0, t1_ns: t1 }));
                    }
                };
                let time = format_time_at_resolution(m.t_ns.saturating_sub(start_ns), 1.0);
                view! {
                    <tr data-testid="annotation-row" data-id=id.to_string() data-t-ns=m.t_ns.to_string()>
                        <td><input class="ann-name" data-testid="annotation-name" aria-label="Marker name"
                            prop:value=m.name.clone() on:change=rename/></td>
                        <td class="num mono" data-testid="annotation-time" title=format!("{} ns on the file's clock", m.t_ns)>{time}</td>
                        <td>
                            <select data-testid="annotation-diff" aria-label="Compare with marker" on:change=on_diff>
                                <option value="" selected=other.is_none()>"—"</option>
                                {options}
                            </select>
                        </td>
                        <td class="num" data-testid="annotation-interval">{interval}</td>
                        <td class="ann-actions">
                            <button class="button button-quiet" data-testid="annotation-zoom" disabled=zoom_to.is_none()
                                title="Zoom the timeline to the interval" on:click=zoom>"Zoom"</button>
                            <button class="button button-quiet" data-testid="annotation-delete" title="Delete this marker"
                                on:click=remove>"×"</button>
                        </td>
                    </tr>
                    {metrics.map(|x| view! {
                        <tr class="ann-metrics-row"><td colspan="5">{metrics_view(&x)}</td></tr>
                    })}
                }
            })
            .collect_view();
        view! {
            <table class="grid ann-table" data-testid="annotation-table">
                <thead><tr><th>"marker"</th><th>"time"</th><th>"diff vs"</th><th>"interval"</th><th></th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };

    view! {
        <div class="widget-body widget-scroll annotations-widget">
            <div class="ann-bar">
                <label class="ann-field">"Set "
                    <input class="ann-set-name" data-testid="annotation-set-name" aria-label="Annotation set name"
                        prop:value=move || set_name.get() on:input=move |ev| set_name.set(event_target_value(&ev))/>
                </label>
                <button class="button" data-testid="annotation-save" on:click=save_as
                    title="Save the markers under this name (they are kept for this profile across reloads)">"Save"</button>
                <select data-testid="annotation-set-select" aria-label="Saved annotation sets"
                    on:change=move |ev| chosen.set(event_target_value(&ev))>
                    <option value="" selected=move || chosen.get().is_empty()>"saved sets…"</option>
                    {move || saved.get().into_iter().map(|n| {
                        let sel = n == chosen.get_untracked();
                        view! { <option value=n.clone() selected=sel>{n.clone()}</option> }
                    }).collect_view()}
                </select>
                <button class="button" data-testid="annotation-load" on:click=load>"Load"</button>
                <button class="button button-quiet" data-testid="annotation-delete-set" on:click=delete_set
                    title="Delete the chosen saved set">"Delete"</button>
                <button class="button button-quiet" data-testid="annotation-export" on:click=export
                    title="Download every set of this profile as JSON">"Export"</button>
                <label class="button button-quiet ann-import" title="Load sets from an exported JSON file">"Import"
                    <input type="file" accept=".json,application/json" data-testid="annotation-import" on:change=import/>
                </label>
            </div>
            {move || message.get().map(|(err, text)| view! {
                <p class=if err { "ann-msg ann-msg-error" } else { "ann-msg" } role="status"
                    data-testid="annotation-message">{text}</p>
            })}
            {move || state.annotations.error.get().map(|e| view! {
                <p class="ann-msg ann-msg-error" role="alert">{e}</p>
            })}
            {rows}
        </div>
    }
}
