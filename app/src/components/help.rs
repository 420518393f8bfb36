//! The keyboard and mouse help (`?`): every key and gesture of the workbench in one panel.

use leptos::prelude::*;

use wasm_bindgen::JsCast;

use crate::dom::{self, listen, Listener};
use crate::state::use_app_state;

/// (keys, what they do), in the order a new user needs them.
pub const KEYS: &[(&str, &str)] = &[
    ("Drag on the tracks", "zoom to the dragged time range"),
    ("Shift + drag on the tracks", "box-select tracks × time (summary and events in Current Selection)"),
    ("Drag on the ruler", "pan"),
    ("Ctrl/⌘ + wheel", "zoom at the pointer"),
    ("Shift + wheel", "pan"),
    ("Wheel", "scroll the tracks"),
    ("W / S", "zoom in / out"),
    ("A / D, ← / →", "pan left / right"),
    ("↑ / ↓", "scroll the tracks"),
    ("Z", "zoom to the data: its busiest part, without outliers or long idle stretches"),
    ("0 or R, double-click the ruler", "fit everything"),
    ("Click an event", "select it: Event Details shows every field"),
    ("Esc", "clear the selection"),
    ("Right-click the timeline", "drop an annotation marker (snaps to the nearest event edge within 8 px)"),
    (
        "Drag a marker's flag on the ruler",
        "move the marker (snaps too); rename, compare and delete in Annotations",
    ),
    ("/", "focus the search box"),
    ("Enter / Shift+Enter, ] / [", "next / previous search hit"),
    ("Track list: ▾ / ▸", "collapse or expand a group or section"),
    ("Track list: ↑ ↓ ×", "move a row up or down, hide it"),
    ("Drag a widget's tab", "move it to another pane, or split a pane"),
    ("Ctrl/⌘ + click an event", "also scroll the Code widget to its source line"),
    ("Code: click a line", "highlight its events; Shift/Ctrl/⌘ + click adds or removes lines"),
    (
        "☾ / ☀ in the header",
        "dark or light theme (remembered; until then Loupe follows the system's setting)",
    ),
    ("?", "show or hide this help"),
];

#[component]
pub fn HelpPanel() -> impl IntoView {
    let state = use_app_state();
    // Esc closes the panel
    let listeners: StoredValue<Vec<Listener>, LocalStorage> = StoredValue::new_local(Vec::new());
    if let Some(w) = dom::window() {
        let l = listen(w.as_ref(), "keydown", false, move |e| {
            if let Ok(k) = e.dyn_into::<web_sys::KeyboardEvent>() {
                if k.key() == "Escape" && state.show_help.get_untracked() {
                    state.show_help.set(false);
                }
            }
        });
        listeners.set_value(vec![l]);
    }
    on_cleanup(move || listeners.set_value(Vec::new()));
    move || {
        state.show_help.get().then(|| {
            let rows = KEYS
                .iter()
                .map(|(k, what)| view! { <tr><th scope="row"><kbd>{*k}</kbd></th><td>{*what}</td></tr> })
                .collect_view();
            view! {
                <div class="help-backdrop" on:click=move |_| state.show_help.set(false)>
                    <div class="help-panel" data-testid="help-panel" role="dialog" aria-label="Keys and gestures"
                        on:click=|ev| ev.stop_propagation()>
                        <h2>"Keys and gestures"</h2>
                        <table class="grid help-keys">{rows}</table>
                        <crate::components::cache_controls::CacheControls />
                        <p class="hint">"Press ? or Esc to close."</p>
                    </div>
                </div>
            }
        })
    }
}
