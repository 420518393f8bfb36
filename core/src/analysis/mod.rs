//! Analyses: pure functions over the finished model, used by the app's widgets and the CLI.
//! Nothing here knows a file format or a UI.

pub mod busy;
pub mod device_summary;
pub mod search;
pub mod sources;
pub mod summary;
