//! loupe-core: bytes → sniff → importer → builder → model → LOD index → queries.
//! Pure Rust; knows no UI and no web API. See ARCHITECTURE.md.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod analysis;
pub mod counter_lod;
pub mod demo;
pub mod export;
pub mod import;
pub mod limits;
pub mod lod;
pub mod loupe_file;
pub mod model;
pub mod neuron;
pub mod par;
pub mod query;
pub mod raster;
mod rng;
pub mod rows;
pub mod spans;
pub mod strings;
pub mod syntax;
pub mod time;
pub mod units;
pub mod view;
pub mod view_state;
pub mod viewport;

pub use model::{Trace, TraceBuilder};
pub use strings::StrId;
