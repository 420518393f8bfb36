//! The canvas timeline: layout (rows), one rAF scheduler, a stateless painter, hit testing
//! against painted items, the input layer shared with Compare's B lanes, and the
//! controller/component that ties them to input events.

pub mod colour;
pub mod colour_index;
pub mod hit_test;
pub mod input;
pub mod layout;
pub mod painter;
pub mod raster;
pub mod scheduler;
pub mod theme;
pub mod timeline;
