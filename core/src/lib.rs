//! loupe-core: bytes → sniff → importer → builder → model → LOD index → queries.
//! Pure Rust; knows no UI and no web API.
pub mod neuron;
