//! The shared malformed corpus in the browser (issue 7 §3): every in-memory case of
//! `core/tests/support/malformed_cases.rs` is imported by the wasm build of `loupe-core` in
//! headless Chromium, exactly as the parser worker imports files. A panic in wasm aborts the whole
//! run, so finishing proves there was none; each outcome (typed error variant, or what loaded) must
//! equal the native one pinned in `core/tests/support/malformed_outcomes.txt`.
//! `cargo test -p loupe-app --target wasm32-unknown-unknown --test malformed_wasm`.

#[path = "../../core/tests/support/malformed_cases.rs"]
mod cases;

use loupe_core::import::{import_bytes, NoProgress};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Cases that panic in wasm32 today (the test build has overflow checks; `usize` is 32 bits) and
/// are therefore skipped here, with where they panic. Natively they pass. Each is a bug in
/// `loupe-core`: fix it, then delete its line here (the test fails while a listed case is unknown).
/// (Empty since the zip reader's offsets use checked arithmetic.)
const KNOWN_WASM32_PANICS: &[(&str, &str)] = &[];

#[wasm_bindgen_test]
fn malformed_corpus_gives_the_native_outcomes() {
    let all = cases::cases();
    let golden = cases::parse_golden(cases::GOLDEN);
    assert_eq!(
        golden.len(),
        all.len(),
        "the golden file is stale: LOUPE_BLESS=1 cargo test -p loupe-core --test malformed shared_corpus"
    );
    let (mut ok, mut err) = (0usize, 0usize);
    let mut diffs = Vec::new();
    for (name, _) in KNOWN_WASM32_PANICS {
        assert!(all.iter().any(|c| c.name == *name), "KNOWN_WASM32_PANICS names no case '{name}'");
    }
    let mut skipped = 0usize;
    for (c, (want_name, want)) in all.iter().zip(&golden) {
        assert_eq!(&c.name, want_name, "the golden file is stale (case order)");
        if KNOWN_WASM32_PANICS.iter().any(|(n, _)| *n == c.name) {
            skipped += 1;
            continue;
        }
        // a panic aborts the run: name the case first so that the report says which one
        web_sys::console::log_1(&format!("case {}", c.name).into());
        let r = import_bytes(&c.file_name, &c.bytes, &mut NoProgress);
        if r.is_ok() {
            ok += 1;
        } else {
            err += 1;
        }
        let got = cases::outcome(&r);
        if got != *want {
            diffs.push(format!("{}\n   wasm:   {got}\n   native: {want}", c.name));
        }
    }
    web_sys::console::log_1(
        &format!(
            "malformed corpus in wasm: {} cases, {ok} loaded, {err} typed errors, {} differ, {skipped} skipped (known wasm32 panics)",
            all.len(),
            diffs.len()
        )
        .into(),
    );
    assert!(
        diffs.is_empty(),
        "{} of {} outcomes differ between wasm and native:\n{}",
        diffs.len(),
        all.len(),
        diffs.join("\n")
    );
}
