//! The workbench: widgets in a dockable layout. The layout is data ([`layout::Node`]); each slot
//! gets a rectangle and a tab bar, and each widget is mounted once, absolutely positioned over
//! its slot's rectangle — moving, resizing or switching tabs changes styles only, never remounts
//! a widget (the timeline keeps its view). Widgets are in [`crate::widgets`] (one module each)
//! and talk through [`crate::state::AppState`], never to each other.
//!
//! Named layouts live in localStorage (`gloo-storage`), not tied to a profile. A new profile
//! gets the default layout of its kind ([`layout::ProfileKind`]) unless the user changed or chose
//! a layout.

pub mod context;
pub mod layout;

use std::collections::BTreeMap;

use gloo_storage::Storage;
use leptos::prelude::*;
use loupe_core::Trace;
use wasm_bindgen::JsCast;

use crate::state::use_app_state;
pub use context::WorkbenchState;
use layout::{Node, ProfileKind, WidgetKind};

const STORAGE_KEY: &str = "loupe.layouts.v1";
const TAB_H_PX: f64 = 28.0;
const DRAG_MIME: &str = "application/x-loupe-widget";

/// The kind of profile a trace is, for its default layout.
pub fn profile_kind(t: &Trace) -> ProfileKind {
    if t.program.is_some() && t.slice_count() == 0 {
        ProfileKind::ProgramOnly
    } else if t.slice_count() == 0 && !t.tables.is_empty() {
        ProfileKind::Reports
    } else if t.tracks.iter().any(|tr| tr.role.engine().is_some()) || t.program.is_some() {
        // one rank per input file with device groups (analysis::ranks' numbering)
        let device_ranks = {
            let ranks = loupe_core::analysis::ranks::group_ranks(t);
            let mut r: Vec<i64> =
                t.groups.iter().zip(&ranks).filter(|(g, _)| g.device.is_some()).map(|(_, &r)| r).collect();
            r.sort_unstable();
            r.dedup();
            r.len()
        };
        if device_ranks >= 2 {
            ProfileKind::DeviceRanks
        } else {
            ProfileKind::Device
        }
    } else if t.tracks.iter().any(|tr| tr.role == loupe_core::model::TrackRole::GpuStream) {
        ProfileKind::GpuTrace
    } else {
        ProfileKind::Trace
    }
}

/// Saved layouts by name.
pub fn saved_layouts() -> BTreeMap<String, Node> {
    // a record that does not parse, or holds a layout that is not valid, is kept aside (the
    // next save would overwrite it) and the user told once
    crate::stored::read(STORAGE_KEY, "The saved layouts", |text| {
        let raw: BTreeMap<String, Node> =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let bad: Vec<&String> =
            raw.iter().filter(|(_, v)| (*v).clone().sanitize().is_none()).map(|(k, _)| k).collect();
        if let Some(first) = bad.first() {
            return Err(format!("layout \"{first}\" is not a valid layout"));
        }
        Ok(raw.into_iter().filter_map(|(k, v)| v.sanitize().map(|v| (k, v))).collect())
    })
    .unwrap_or_default()
}

fn store_layouts(m: &BTreeMap<String, Node>) -> Result<(), String> {
    gloo_storage::LocalStorage::set(STORAGE_KEY, m).map_err(|e| e.to_string())
}

fn pct(f: f64) -> String {
    format!("{:.4}%", f * 100.0)
}

#[component]
pub fn Workbench() -> impl IntoView {
    let state = use_app_state();
    let wb = WorkbenchState {
        layout: RwSignal::new(Node::default_for(profile_kind(&state.data().trace))),
        customised: RwSignal::new(false),
        name: RwSignal::new(None),
        dragging: RwSignal::new(None),
    };
    provide_context(wb);
    // a new profile: its kind's default layout, unless the user made the layout their own
    // (a layout restored from a link or a `.loupe` file counts as theirs)
    Effect::new(move |prev: Option<ProfileKind>| {
        let kind = profile_kind(&state.tracked_data().trace);
        if prev.is_some() && !wb.customised.get_untracked() {
            wb.layout.set(Node::default_for(kind));
        }
        kind
    });

    // a profile opened for comparison shows the Compare widget: B's timeline right under A's
    // (a new pane below the Timeline), else as a tab beside Event Details
    Effect::new(move |prev: Option<u64>| {
        let g = state.compare.gen.get();
        if prev.is_some_and(|p| p != g) && state.compare.profile.with_value(|c| c.is_some()) {
            wb.layout.update(|l| {
                match l.slot_of(WidgetKind::Timeline).filter(|_| !l.contains(WidgetKind::Compare)) {
                    Some(p) => l.split_beside(WidgetKind::Compare, &p, false),
                    None => l.add_beside(WidgetKind::Compare, WidgetKind::Details),
                }
                l.activate(WidgetKind::Compare);
            });
        }
        g
    });

    // a box selection (Shift + drag) is answered in Current Selection: bring its tab to the front
    // (it shares a pane with Event Details in the default layouts)
    Effect::new(move |_| {
        let hidden =
            |l: &Node| l.contains(WidgetKind::SelectionSummary) && !l.is_shown(WidgetKind::SelectionSummary);
        if state.view.box_selection.with(|b| b.is_some()) && wb.layout.with_untracked(hidden) {
            wb.layout.update(|l| l.activate(WidgetKind::SelectionSummary));
        }
    });

    let root = NodeRef::<leptos::html::Div>::new();
    let boxes = Memo::new(move |_| wb.layout.with(|l| l.boxes()));

    // slot frames: tab bars and drop zones (cheap DOM; rebuilt when the layout changes)
    let frames = move || {
        let (slots, _) = boxes.get();
        slots
            .into_iter()
            .map(|sb| {
                let r = sb.rect;
                let style = format!("left:{};top:{};width:{};height:{}", pct(r.x), pct(r.y), pct(r.w), pct(r.h));
                let path = sb.path.clone();
                let tab_path = sb.path.clone();
                let tabs = sb
                    .widgets
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| {
                        let selected = i == sb.active;
                        view! {
                            <div class="wb-tab" role="tab" aria-selected=selected.to_string() draggable="true"
                                data-widget=w.test_name()
                                on:click=move |_| wb.layout.update(|l| l.activate(w))
                                on:dragstart=move |ev: web_sys::DragEvent| {
                                    if let Some(dt) = ev.data_transfer() {
                                        let _ = dt.set_data(DRAG_MIME, w.test_name());
                                        dt.set_effect_allowed("move");
                                    }
                                    wb.dragging.set(Some(w));
                                }
                                on:dragend=move |_| wb.dragging.set(None)>
                                <span class="wb-tab-title">{w.title()}</span>
                                <button class="wb-tab-close" title="Remove widget" aria-label=format!("Remove {}", w.title())
                                    on:click=move |ev| { ev.stop_propagation(); wb.edit(|l| l.remove(w)); }>"×"</button>
                            </div>
                        }
                    })
                    .collect_view();
                let drop_zone = move |zone: &'static str| {
                    let path = path.clone();
                    view! {
                        <div class=format!("wb-drop wb-drop-{zone}")
                            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); ev.stop_propagation(); }
                            on:drop=move |ev: web_sys::DragEvent| {
                                ev.prevent_default();
                                ev.stop_propagation();
                                if let Some(w) = wb.dragging.get_untracked() {
                                    let p = path.clone();
                                    wb.edit(|l| match zone {
                                        "right" => l.split_beside(w, &p, true),
                                        "bottom" => l.split_beside(w, &p, false),
                                        _ => l.place(w, &p),
                                    });
                                }
                                wb.dragging.set(None);
                            }>
                            <span>{match zone { "right" => "Split right", "bottom" => "Split below", _ => "Move here" }}</span>
                        </div>
                    }
                };
                view! {
                    <div class="wb-slot" style=style>
                        <div class="wb-tabs" role="tablist"
                            on:dragover=move |ev: web_sys::DragEvent| { if wb.dragging.get_untracked().is_some() { ev.prevent_default(); } }
                            on:drop=move |ev: web_sys::DragEvent| {
                                ev.prevent_default();
                                ev.stop_propagation();
                                if let Some(w) = wb.dragging.get_untracked() {
                                    let p = tab_path.clone();
                                    wb.edit(|l| l.place(w, &p));
                                }
                                wb.dragging.set(None);
                            }>{tabs}</div>
                        <Show when=move || wb.dragging.get().is_some()>
                            <div class="wb-drops">{drop_zone("center")}{drop_zone("right")}{drop_zone("bottom")}</div>
                        </Show>
                    </div>
                }
            })
            .collect_view()
    };

    // splitters: drag to resize (pointer capture on the handle)
    let splitters = move || {
        let (_, sps) = boxes.get();
        sps.into_iter()
            .map(|sp| {
                let style = if sp.horizontal {
                    format!("left:calc({} - 3px);top:{};height:{}", pct(sp.at), pct(sp.rect.y), pct(sp.rect.h))
                } else {
                    format!("top:calc({} - 3px);left:{};width:{}", pct(sp.at), pct(sp.rect.x), pct(sp.rect.w))
                };
                let (path, index, horizontal) = (sp.path.clone(), sp.index, sp.horizontal);
                let moving = StoredValue::new(false);
                let on_move = move |ev: web_sys::PointerEvent| {
                    if !moving.get_value() {
                        return;
                    }
                    let Some(el) = root.get_untracked() else { return };
                    let r = el.get_bounding_client_rect();
                    let at = if horizontal {
                        (ev.client_x() as f64 - r.left()) / r.width().max(1.0)
                    } else {
                        (ev.client_y() as f64 - r.top()) / r.height().max(1.0)
                    };
                    let p = path.clone();
                    wb.edit(|l| l.resize(&p, index, at));
                };
                view! {
                    <div class=if horizontal { "wb-splitter wb-splitter-h" } else { "wb-splitter wb-splitter-v" }
                        style=style role="separator" aria-orientation=if horizontal { "vertical" } else { "horizontal" }
                        on:pointerdown=move |ev: web_sys::PointerEvent| {
                            if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                                let _ = t.set_pointer_capture(ev.pointer_id());
                            }
                            moving.set_value(true);
                            ev.prevent_default();
                        }
                        on:pointermove=on_move
                        on:pointerup=move |_| moving.set_value(false)
                        on:pointercancel=move |_| moving.set_value(false)></div>
                }
            })
            .collect_view()
    };

    // widgets: mounted once each, positioned over their slot
    let widget_style = move |w: WidgetKind| {
        let (slots, _) = boxes.get();
        match slots.iter().find(|s| s.widgets.contains(&w)) {
            Some(s) => {
                let r = s.rect;
                let hidden = s.widgets.get(s.active) != Some(&w);
                format!(
                    "left:{};top:calc({} + {TAB_H_PX}px);width:{};height:calc({} - {TAB_H_PX}px);{}",
                    pct(r.x),
                    pct(r.y),
                    pct(r.w),
                    pct(r.h),
                    if hidden { "visibility:hidden;pointer-events:none" } else { "" }
                )
            }
            None => "display:none".into(),
        }
    };
    let present = Memo::new(move |_| wb.layout.with(|l| l.widgets()));

    view! {
        <crate::deep_link::DeepLinks/>
        <crate::stored::StorageNotices/>
        <div class="workbench-bar">
            <LayoutMenu/>
            <AddWidgetMenu/>
            <span class="wb-hint">"Drag a tab to move a widget · drag the gaps to resize"</span>
        </div>
        <div class="workbench" node_ref=root>
            {frames}
            <For each=move || present.get() key=|w| *w children=move |w| {
                view! {
                    <section class="wb-widget" data-testid=format!("widget-{}", w.test_name()) aria-label=w.title()
                        style=move || widget_style(w)>
                        {crate::widgets::render(w)}
                    </section>
                }
            }/>
            {splitters}
        </div>
    }
}

/// The Layout menu: save the current layout under a name, load or delete saved ones, reset.
#[component]
fn LayoutMenu() -> impl IntoView {
    let wb = expect_context::<WorkbenchState>();
    let state = use_app_state();
    let saved = RwSignal::new(saved_layouts());
    let name_input = RwSignal::new(String::new());
    let message = RwSignal::new(None::<String>);
    let save = move || {
        let name = name_input.get_untracked().trim().to_string();
        if name.is_empty() {
            message.set(Some("Type a name first".into()));
            return;
        }
        let mut m = saved_layouts();
        m.insert(name.clone(), wb.layout.get_untracked());
        match store_layouts(&m) {
            Ok(()) => {
                saved.set(m);
                wb.name.set(Some(name.clone()));
                message.set(Some(format!("Saved “{name}”")));
            }
            Err(e) => message.set(Some(format!("Could not save: {e}"))),
        }
    };
    view! {
        <details class="menu" data-testid="layout-menu" on:toggle=move |_| saved.set(saved_layouts())>
            <summary class="button button-quiet">{move || match wb.name.get() { Some(n) => format!("Layout: {n} ▾"), None => "Layout ▾".into() }}</summary>
            <div class="menu-panel">
                <form class="menu-row" on:submit=move |ev| { ev.prevent_default(); save(); }>
                    <input type="text" placeholder="Layout name" data-testid="layout-name" prop:value=move || name_input.get()
                        on:input=move |ev| name_input.set(event_target_value(&ev))/>
                    <button type="submit" class="button" data-testid="layout-save">"Save"</button>
                </form>
                {move || message.get().map(|m| view! { <p class="menu-note">{m}</p> })}
                <ul class="menu-list" data-testid="layout-list">
                    {move || {
                        let m = saved.get();
                        if m.is_empty() {
                            return view! { <li class="menu-note">"No saved layouts yet"</li> }.into_any();
                        }
                        m.into_iter()
                            .map(|(name, node)| {
                                let n2 = name.clone();
                                let n3 = name.clone();
                                view! {
                                    <li class="menu-item">
                                        <button class="button button-quiet" data-testid="layout-load" data-name=name.clone()
                                            on:click=move |_| {
                                                wb.layout.set(node.clone());
                                                wb.customised.set(true);
                                                wb.name.set(Some(n2.clone()));
                                            }>{name.clone()}</button>
                                        <button class="button button-quiet" title="Delete" aria-label=format!("Delete layout {name}")
                                            on:click=move |_| {
                                                let mut m = saved_layouts();
                                                m.remove(&n3);
                                                let _ = store_layouts(&m);
                                                saved.set(m);
                                            }>"🗑"</button>
                                    </li>
                                }
                            })
                            .collect_view()
                            .into_any()
                    }}
                </ul>
                <button class="button button-quiet" data-testid="layout-reset" on:click=move |_| {
                    wb.layout.set(Node::default_for(profile_kind(&state.data().trace)));
                    wb.customised.set(false);
                    wb.name.set(None);
                }>"Reset to the default layout"</button>
            </div>
        </details>
    }
}

/// The Add widget menu: every widget not in the layout.
#[component]
fn AddWidgetMenu() -> impl IntoView {
    let wb = expect_context::<WorkbenchState>();
    view! {
        <details class="menu" data-testid="add-widget-menu">
            <summary class="button button-quiet">"Add widget ▾"</summary>
            <div class="menu-panel">
                {move || {
                    let missing: Vec<WidgetKind> =
                        WidgetKind::ALL.into_iter().filter(|w| !wb.layout.with(|l| l.contains(*w))).collect();
                    if missing.is_empty() {
                        return view! { <p class="menu-note">"Every widget is open"</p> }.into_any();
                    }
                    missing
                        .into_iter()
                        .map(|w| view! {
                            <button class="button button-quiet menu-item" data-widget=w.test_name()
                                on:click=move |_| wb.edit(|l| l.add(w))>{w.title()}</button>
                        })
                        .collect_view()
                        .into_any()
                }}
            </div>
        </details>
    }
}
