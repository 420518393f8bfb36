//! What the page keeps in the browser's `localStorage` (annotation sets, saved layouts), read so
//! that nothing is lost silently: a record that cannot be read is **kept aside** under a new key
//! (`<key>.damaged.<time>`, the text unchanged) before anything could overwrite it, the user is
//! told once (a banner: what was damaged, why, where it is kept), and the page goes on as if
//! nothing had been saved. The model cache (IndexedDB) keeps a damaged entry aside the same way
//! (`model_cache::set_aside`, same key scheme, same banner) and parses the files again.

use gloo_storage::Storage;
use leptos::prelude::*;

thread_local! {
    /// The notices not dismissed yet (one per damaged record).
    static NOTICES: ArcRwSignal<Vec<String>> = ArcRwSignal::new(Vec::new());
}

fn notices() -> ArcRwSignal<Vec<String>> {
    NOTICES.with(|n| n.clone())
}

/// Show `text` once as a storage notice (a banner with a Dismiss button).
pub fn notify(text: String) {
    let n = notices();
    if !n.with_untracked(|v| v.contains(&text)) {
        n.update(|v| v.push(text));
    }
}

/// The key a damaged record of `key` is kept under.
pub fn aside_key(key: &str, now_ms: f64) -> String {
    format!("{key}.damaged.{}", now_ms.max(0.0) as u64)
}

/// The record under `key` (`None` when there is none or storage is unavailable), parsed by
/// `parse`. A record `parse` refuses is moved to [`aside_key`] and `what` (e.g. "the saved
/// layouts") is named in a notice with the reason; `None` is returned.
pub fn read<T>(key: &str, what: &str, parse: impl FnOnce(&str) -> Result<T, String>) -> Option<T> {
    let store = gloo_storage::LocalStorage::raw();
    let text = store.get_item(key).ok().flatten()?;
    match parse(&text) {
        Ok(v) => Some(v),
        Err(why) => {
            set_aside(key, what, &text, &why);
            None
        }
    }
}

/// Keep `text` (what was under `key`) aside and tell the user why (`why`).
pub fn set_aside(key: &str, what: &str, text: &str, why: &str) {
    let store = gloo_storage::LocalStorage::raw();
    let aside = aside_key(key, js_sys::Date::now());
    let kept = store.set_item(&aside, text).is_ok();
    if kept {
        let _ = store.remove_item(key);
    }
    let why: String = why.chars().take(200).collect();
    notify(if kept {
        format!(
            "{what} in this browser could not be read ({why}); the record was kept aside as \
             \"{aside}\" in the page's storage, and Loupe started without it."
        )
    } else {
        format!(
            "{what} in this browser could not be read ({why}), and there was no room to keep a \
             copy aside: it is left as it was under \"{key}\"; Loupe started without it."
        )
    });
}

/// The notices as banners, each with a Dismiss button.
#[component]
pub fn StorageNotices() -> impl IntoView {
    let n = notices();
    move || {
        let list = n.get();
        list.into_iter()
            .enumerate()
            .map(|(i, text)| {
                let n = n.clone();
                view! {
                    <div class="banner banner-info" role="status" data-testid="storage-notice">
                        {text}
                        " "
                        <button class="link" data-testid="storage-notice-dismiss"
                            on:click=move |_| n.update(|v| { if i < v.len() { v.remove(i); } })>"Dismiss"</button>
                    </div>
                }
            })
            .collect_view()
    }
}
