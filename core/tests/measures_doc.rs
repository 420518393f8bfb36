//! `docs/measures.md` is the table of every measure's definition that the app shows on hover
//! (`loupe_core::analysis::measures`): this test fails when the two differ. `LOUPE_BLESS=1`
//! rewrites the file from the code.

use std::path::Path;

#[test]
fn docs_list_every_definition_as_the_code_has_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/measures.md");
    let want = loupe_core::analysis::measures::markdown();
    if std::env::var_os("LOUPE_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write docs/measures.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/measures.md differs from loupe_core::analysis::measures (LOUPE_BLESS=1 cargo test -p loupe-core --test measures_doc rewrites it)"
    );
    for d in loupe_core::analysis::measures::all() {
        assert!(have.contains(&format!("| `{}` |", d.key)), "{} listed", d.key);
    }
}
