//! The page: mount the app.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use leptos::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(|| view! { <loupe_app::App/> });
}
