//! Analyses: pure functions over the finished model, used by the app's widgets and the CLI.
//! Nothing here knows a file format or a UI.

pub mod annotations;
pub mod busy;
pub mod compare;
pub mod critical_path;
pub mod device_collectives;
pub mod device_summary;
pub mod dlprof;
pub mod evidence;
pub mod gpu;
pub mod interval;
pub mod latency;
pub mod measures;
pub mod neff_tensors;
pub mod neuron_insights;
pub mod neuron_memory;
pub mod operator_views;
pub mod operators;
pub mod ranks;
pub mod regions;
pub mod search;
pub mod sources;
pub mod summary;
pub mod warning_bands;
