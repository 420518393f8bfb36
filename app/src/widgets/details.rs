//! Event Details: the selected event's fields, plus the search pager ("hit 3 of 120", previous /
//! next with `[` `]` or Enter / Shift+Enter in the search box); each page selects the hit and asks
//! the timeline to reveal it.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::details::Details;
use crate::dom::{self, listen, Listener};
use loupe_core::analysis::search::paging;

use crate::search_runner::page_by;
use crate::state::use_app_state;

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
                "]" => page_by(state, true),
                "[" => page_by(state, false),
                _ => return,
            }
            ev.prevent_default();
        });
        listeners.set_value(vec![l]);
    }
    on_cleanup(move || listeners.set_value(Vec::new()));

    let pager = move || {
        state.search.track();
        let hits = state.search.hits();
        if hits.query.is_empty() || hits.error.is_some() {
            return None;
        }
        let n = hits.count;
        let cursor = state.search.cursor.get();
        let label = if !hits.done {
            format!("searching “{}”…", hits.query)
        } else if n == 0 {
            format!("no events match “{}”", hits.query)
        } else {
            let d = state.data();
            match cursor.filter(|r| hits.is_hit(r.track, r.index)) {
                Some(r) => format!(
                    "hit {} of {n} for “{}”",
                    paging::rank(&d.trace, &hits.per_track, r) + 1,
                    hits.query
                ),
                None => format!("{n} {} for “{}”", if n == 1 { "hit" } else { "hits" }, hits.query),
            }
        };
        Some(view! {
            <div class="pager" data-testid="search-pager">
                <button class="button button-quiet" title="Previous hit ([ or Shift+Enter)" aria-label="Previous hit"
                    disabled=n == 0 data-testid="search-prev" on:click=move |_| page_by(state, false)>"◀"</button>
                <span class="pager-label" data-testid="search-page">{label}</span>
                <button class="button button-quiet" title="Next hit (] or Enter)" aria-label="Next hit"
                    disabled=n == 0 data-testid="search-next" on:click=move |_| page_by(state, true)>"▶"</button>
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
