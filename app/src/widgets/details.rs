//! Event Details: the selected event's fields, plus the search pager ("hit 3 of 120", previous /
//! next with `[` `]` or Enter / Shift+Enter in the search box); each page selects the hit and asks
//! the timeline to reveal it.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::details::Details;
use crate::dom::{self, listen, Listener};
use crate::state::{use_app_state, AppState, Selection, ViewRequest};

/// Go to hit `k` (wrapping) of the current search.
pub fn page_to(state: AppState, k: isize) {
    let hits = state.search.get_value();
    let n = hits.by_time.len();
    if n == 0 {
        return;
    }
    let k = k.rem_euclid(n as isize) as usize;
    let r = hits.by_time[k];
    state.search_page.set(k);
    state.selection.set(Some(Selection::Slice(r)));
    state.view_request.set(Some(ViewRequest::Reveal(r)));
}

/// Move by `delta` hits from the current page.
pub fn page_by(state: AppState, delta: isize) {
    let cur = state.search_page.get_untracked() as isize;
    page_to(state, cur + delta);
}

#[component]
pub fn DetailsWidget() -> impl IntoView {
    let state = use_app_state();
    // `[` / `]` page through hits anywhere but in text fields
    let listeners: StoredValue<Vec<Listener>, LocalStorage> = StoredValue::new_local(Vec::new());
    if let Some(w) = dom::window() {
        let l = listen(w.as_ref(), "keydown", false, move |e| {
            let Ok(ev) = e.dyn_into::<web_sys::KeyboardEvent>() else { return };
            let in_field = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
            if in_field || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            match ev.key().as_str() {
                "]" => page_by(state, 1),
                "[" => page_by(state, -1),
                _ => return,
            }
            ev.prevent_default();
        });
        listeners.set_value(vec![l]);
    }
    on_cleanup(move || listeners.set_value(Vec::new()));

    let pager = move || {
        state.search_gen.track();
        let hits = state.search.get_value();
        if hits.query.is_empty() || hits.error.is_some() {
            return None;
        }
        let n = hits.by_time.len();
        let page = state.search_page.get();
        let label = if !hits.done {
            format!("searching “{}”…", hits.query)
        } else if n == 0 {
            format!("no events match “{}”", hits.query)
        } else {
            // the selection may be a hit other than the current page (clicked on the timeline)
            format!("hit {} of {n} for “{}”", page.min(n - 1) + 1, hits.query)
        };
        Some(view! {
            <div class="pager" data-testid="search-pager">
                <button class="button button-quiet" title="Previous hit ([ or Shift+Enter)" aria-label="Previous hit"
                    disabled=n == 0 data-testid="search-prev" on:click=move |_| page_by(state, -1)>"◀"</button>
                <span class="pager-label" data-testid="search-page">{label}</span>
                <button class="button button-quiet" title="Next hit (] or Enter)" aria-label="Next hit"
                    disabled=n == 0 data-testid="search-next" on:click=move |_| page_by(state, 1)>"▶"</button>
            </div>
        })
    };
    view! {
        <div class="widget-body widget-scroll">
            {pager}
            <Details/>
        </div>
    }
}
