//! The shared Neuron capture/export pairs (`../shared/samples/neuron/ntff-v5/*.ntff` and
//! `../shared/samples/neuron/*.ntff`, each with the official JSON export beside it), for the
//! oracle tests that include this file with `#[path]`. No pair is a failure, not a skip: the
//! oracles would prove nothing.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/samples/neuron` from the workspace root.
pub fn samples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples/neuron")
}

/// Every `(X.ntff, X.json)` pair, sorted, `ntff-v5/` first.
pub fn sample_pairs() -> Vec<(PathBuf, PathBuf)> {
    let root = samples_root();
    let mut out = Vec::new();
    for dir in [root.join("ntff-v5"), root.clone()] {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut v: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ntff"))
            .filter_map(|p| {
                let j = p.with_extension("json");
                j.exists().then_some((p, j))
            })
            .collect();
        v.sort();
        out.extend(v);
    }
    assert!(
        !out.is_empty(),
        "no NTFF/JSON pairs under {}: the samples must be beside the repository",
        root.display()
    );
    out
}
