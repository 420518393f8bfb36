//! The page: mount the app.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use leptos::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(|| view! { <loupe_app::App/> });
    // The app is up: drop the boot message of index.html (shown until now, and kept with an
    // explanation by boot.js when the page cannot start).
    if let Some(boot) =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("loupe-boot"))
    {
        boot.remove();
    }
}
