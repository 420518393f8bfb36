//! Search: a query box (plain words, `field:value`, `dur>10us`, `-negation`; see
//! `loupe_core::analysis::search`), the hit count, progress while a large search runs, and the
//! syntax help. The scan runs in chunks between frames (a `gloo-timers` timeout per chunk of
//! ~200k slices), so 10 M events never freeze the page; a newer query cancels the running one.

use std::rc::Rc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::dom::{self, listen, Listener};
use crate::search_runner::{page_by, start_search};
use crate::state::use_app_state;

#[component]
pub fn SearchWidget() -> impl IntoView {
    let state = use_app_state();
    let text = RwSignal::new(String::new());
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let debounce: StoredValue<Option<Rc<Timeout>>, LocalStorage> = StoredValue::new_local(None);
    // a query started elsewhere (e.g. the program view's "show events") shows in the box
    Effect::new(move |_| {
        state.search.track();
        let h = state.search.hits();
        if h.origin.is_some() {
            text.set(String::new());
            return;
        }
        let q = h.query.clone();
        if q != text.get_untracked().trim() && !q.is_empty() {
            text.set(q);
        }
    });
    // a new profile starts without a search (installing it cleared the hits): the box shows
    // what is searched now, empty unless the profile's link or `.loupe` brought a query
    Effect::new(move |prev: Option<()>| {
        state.generation.track();
        if prev.is_some() {
            debounce.set_value(None);
            let h = state.search.hits();
            text.set(if h.origin.is_some() { String::new() } else { h.query.clone() });
        }
    });
    // `/` focuses the search box (the timeline's key help sends `loupe-focus-search` too)
    let listeners: StoredValue<Vec<Listener>, LocalStorage> = StoredValue::new_local(Vec::new());
    if let Some(w) = dom::window() {
        let focus = move || {
            if let Some(i) = input_ref.get_untracked() {
                let _ = i.focus();
                i.select();
            }
        };
        let a = listen(w.as_ref(), "keydown", false, move |e| {
            let Ok(ev) = e.dyn_into::<web_sys::KeyboardEvent>() else { return };
            let in_field = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
            if ev.key() == "/" && !in_field {
                ev.prevent_default();
                focus();
            }
        });
        let b = listen(w.as_ref(), "loupe-focus-search", false, move |_| focus());
        listeners.set_value(vec![a, b]);
    }
    on_cleanup(move || listeners.set_value(Vec::new()));

    let on_input = move |ev: web_sys::Event| {
        let v = event_target_value(&ev);
        text.set(v.clone());
        let t = Timeout::new(180, move || start_search(state, &v));
        debounce.set_value(Some(Rc::new(t)));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            let hits = state.search.hits();
            if hits.query != text.get_untracked().trim() {
                debounce.set_value(None);
                start_search(state, &text.get_untracked());
            } else {
                page_by(state, !ev.shift_key());
            }
        }
        "Escape" => {
            text.set(String::new());
            debounce.set_value(None);
            start_search(state, "");
        }
        _ => {}
    };
    let status = move || {
        state.search.track();
        let h = state.search.hits();
        if let Some(e) = &h.error {
            return view! { <p class="search-error" role="alert">{e.clone()}</p> }.into_any();
        }
        if h.query.is_empty() {
            return ().into_any();
        }
        if let Some(origin) = &h.origin {
            return view! {
                <p class="search-status" data-testid="search-origin">
                    <strong data-testid="search-count" data-done="true">{h.count.to_string()}</strong>
                    {if h.count == 1 { " event highlighted from " } else { " events highlighted from " }}
                    <span class="mono">{origin.clone()}</span>" "
                    <button class="link" on:click=move |_| start_search(state, "")>"clear"</button>
                </p>
            }
            .into_any();
        }
        let pct = if h.total == 0 { 100.0 } else { h.scanned as f64 / h.total as f64 * 100.0 };
        view! {
            <p class="search-status">
                <strong data-testid="search-count" data-done=h.done.to_string()>{h.count.to_string()}</strong>
                {if h.count == 1 { " event matches" } else { " events match" }}
                {(!h.done).then(|| format!(" so far ({pct:.0} % searched)"))}
            </p>
        }
        .into_any()
    };
    let example = move |q: &'static str| {
        view! {
            <li><button class="link mono" on:click=move |_| {
                text.set(q.to_string());
                start_search(state, q);
            }>{q}</button></li>
        }
    };
    view! {
        <div class="widget-body widget-scroll search-widget">
            <input type="search" class="search-input" data-testid="search-input" node_ref=input_ref
                placeholder="Search events — e.g. opcode:MATMUL dur>1us   (/ to focus)"
                aria-label="Search events" spellcheck="false" autocomplete="off"
                prop:value=move || text.get() on:input=on_input on:keydown=on_key/>
            {status}
            <details class="search-help">
                <summary>"Query syntax"</summary>
                <ul>
                    <li><code>"matmul"</code>" — name contains (any case)"</li>
                    <li><code>"opcode:MATMUL"</code>", "<code>"engine:Tensor"</code>", "<code>"operator:…"</code>", "<code>"layer:…"</code>", "<code>"hlo:…"</code>", "<code>"track:…"</code>", "<code>"group:…"</code>", "<code>"cat:…"</code>", "<code>"source:model.py:42"</code>" or any argument key — field equals value"</li>
                    <li><code>"dur>10us"</code>", "<code>"start<2ms"</code>", "<code>"bytes>=4KiB"</code>" — numeric filters (ns, us, ms, s; B, KiB, MiB, GiB)"</li>
                    <li><code>"-word"</code>" negates; "<code>"\"two words\""</code>" quotes; terms combine with AND"</li>
                    <li>"Enter / Shift+Enter or ] / [ page through hits; Esc clears"</li>
                    {move || (!state.tracked_data().trace.args.lazy.is_empty()).then(|| view! {
                        <li data-testid="search-lazy-args">"This profile is large: its events' arguments stay in the file (shown in Event Details on click) and argument keys are not searched."</li>
                    })}
                </ul>
                <p>"Try:"</p>
                <ul class="search-examples">{example("dur>100us")}{example("engine:Tensor")}{example("opcode:DRAIN")}</ul>
            </details>
        </div>
    }
}
