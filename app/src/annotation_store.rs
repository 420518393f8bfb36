//! Annotation sets in localStorage, one record per profile keyed by its content fingerprint
//! (`loupe_core::analysis::annotations::fingerprint`), so a profile's markers come back when it is
//! opened again. The record is the same JSON as the export file.

use gloo_storage::Storage;
use loupe_core::analysis::annotations::{AnnotationFile, AnnotationSet};

const KEY_PREFIX: &str = "loupe.annotations.";

fn key(fingerprint: &str) -> String {
    format!("{KEY_PREFIX}{fingerprint}")
}

/// Every saved set of the profile (an empty record when none; a damaged record is kept aside
/// and the user told, `crate::stored`).
pub fn load(fingerprint: &str) -> AnnotationFile {
    crate::stored::read(&key(fingerprint), "This profile's saved annotations", AnnotationFile::from_json)
        .map(|mut f| {
            f.fingerprint = fingerprint.to_string();
            f
        })
        .unwrap_or_else(|| AnnotationFile::new(fingerprint))
}

pub fn save(file: &AnnotationFile) -> Result<(), String> {
    gloo_storage::LocalStorage::raw()
        .set_item(&key(&file.fingerprint), &file.to_json())
        .map_err(|_| "could not save the annotations (browser storage is full or disabled)".to_string())
}

/// Store `set` under its name and make it the profile's current set.
pub fn save_current(fingerprint: &str, set: &AnnotationSet) -> Result<(), String> {
    let mut f = load(fingerprint);
    f.current = set.name.clone();
    f.put(set.clone());
    save(&f)
}
