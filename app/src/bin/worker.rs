//! The parser Web Worker (trunk `data-type="worker"`): see `loupe_app::loader`.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

fn main() {
    loupe_app::loader::worker_side::run();
}
