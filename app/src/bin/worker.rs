//! The parser Web Worker (trunk `data-type="worker"`): see `loupe_app::loader`.

fn main() {
    loupe_app::loader::worker_side::run();
}
