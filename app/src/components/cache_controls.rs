//! The model cache's line in the help panel: how much it holds, and a button to clear it
//! (see [`crate::model_cache`]).

use leptos::prelude::*;

#[component]
pub fn CacheControls() -> impl IntoView {
    // None while reading; Some(Err) when the cache is unavailable
    let usage: RwSignal<Option<Result<(usize, f64), String>>> = RwSignal::new(None);
    let refresh = move || {
        wasm_bindgen_futures::spawn_local(async move {
            usage.set(Some(crate::model_cache::usage().await));
        })
    };
    refresh();
    let clear = move |_| {
        wasm_bindgen_futures::spawn_local(async move {
            let r = crate::model_cache::clear().await;
            usage.set(Some(r.and(crate::model_cache::usage().await)));
        })
    };
    let text = move || match usage.get() {
        None => "Model cache: …".to_string(),
        Some(Err(e)) => format!("Model cache unavailable ({e}); profiles are parsed every time."),
        Some(Ok((0, _))) => {
            "Model cache: empty. Profiles you open are kept here so they re-open without parsing.".into()
        }
        Some(Ok((n, bytes))) => format!(
            "Model cache: {n} profile{} ({:.1} MB of at most {:.0} MB); they re-open without parsing.",
            if n == 1 { "" } else { "s" },
            bytes / 1e6,
            crate::model_cache::MAX_TOTAL_BYTES / 1e6
        ),
    };
    view! {
        <p class="hint cache-controls" data-testid="cache-usage">
            {text}" "
            <button class="button button-quiet" data-testid="clear-cache" on:click=clear
                disabled=move || !matches!(usage.get(), Some(Ok((n, _))) if n > 0)>
                "Clear cache"
            </button>
        </p>
    }
}
