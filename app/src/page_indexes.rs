//! The page's indexes over a model, apart from the model itself ([`PageIndexes`] in
//! [`crate::state::TraceData`]): lookups the widgets and the painter read so that no frame or
//! render walks every event — string colours, window summaries, totals by name, the device
//! summary, counters' level of detail, the colour index and default legend, all-zero counters and
//! the busy range. Plain data: `index_build.rs` builds it in steps; nothing here touches the
//! browser or the app state.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use loupe_core::analysis::device_summary::DeviceSummary;
use loupe_core::analysis::summary::WindowIndex;
use loupe_core::counter_lod::CounterLod;
use loupe_core::query::NameStat;
use loupe_core::StrId;

use crate::canvas::colour_index::{ColourIndex, LegendEntry};

pub struct PageIndexes {
    /// Palette index per string id (names are hashed once per load, not per frame); the shown
    /// legend's names are moved to distinct colours (`TraceData::apply_legend`), so the table
    /// is written through `&self` (relaxed atomics: plain byte loads and stores on wasm).
    pub color_of_str: Vec<AtomicU8>,
    /// The strings `TraceData::apply_legend` moved off their own colour (restored by the next).
    pub(crate) legend_moved: Mutex<Vec<StrId>>,
    /// Prefix sums for window summaries (current selection, box selection, overall).
    pub window_index: WindowIndex,
    /// Totals by name over the whole trace (`loupe_core::query::aggregate_by_name` from start to
    /// end), for the Summary widget: built with the indexes, not in a widget's render.
    pub top_names: Vec<NameStat>,
    /// neuron-profile's device summary (the Summary widget), built with the indexes in steps
    /// (`DeviceSummaryBuilder`): one pass over every engine and DMA slice, too long for a
    /// widget's render on a big capture. `None` for a trace that is not a device profile.
    pub device_summary: Option<DeviceSummary>,
    /// Lookups for "Colour by" (operator ancestors, duration scale).
    pub colours: ColourIndex,
    /// The legend of the default colouring (`ColourBy::Auto`), built with the indexes (one
    /// pass over every slice: too long for a widget's render on a big trace). `None` until built.
    pub auto_legend: Option<Vec<LegendEntry>>,
    /// Per counter: every sample is zero (folded away by default).
    pub zero_counters: Vec<bool>,
    /// Per counter: block maxima and its value range, so a counter row is painted in
    /// O(pixel columns × log n) however many samples are in view (`loupe_core::counter_lod`).
    pub counter_lods: Vec<CounterLod>,
    /// Where the events are, outliers cut ("Zoom to data"; the first view when much narrower
    /// than the whole trace).
    pub busy: Option<(i64, i64)>,
}

impl PageIndexes {
    /// The palette index `s` is drawn in.
    pub fn color_index(&self, s: StrId) -> usize {
        self.color_of_str.get(s.0 as usize).map_or(0, |c| c.load(Ordering::Relaxed)) as usize
    }
}
