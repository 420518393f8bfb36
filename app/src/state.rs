//! App state: small reactive signals for what the DOM shows (selection, collapsed groups) and one
//! non-reactive handle for the big immutable model; the load's status ([`LoadStatus`]: phase,
//! progress, error) is a context of its own, read-only except for the shell's writer.
//!
//! The trace sits in a `StoredValue<Arc<TraceData>>` and is never cloned or diffed; components
//! subscribe to `generation`, which is bumped whenever a new trace is installed. The viewport and
//! hover state are not here at all: they live in the timeline controller (`canvas::timeline`),
//! outside the reactive graph, so panning and zooming do no reactive work.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::annotations::{AnnotationSet, DEFAULT_SET};
use loupe_core::model::{GroupId, SliceRef, TrackId};
use loupe_core::rows::{RowKey, RowOptions, Section};
use loupe_core::Trace;

/// What `<body data-loupe-state>` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPhase {
    /// Nothing loaded by the user (the demo may be shown).
    Empty,
    Loading,
    Ready,
    Error,
}

impl LoadPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadPhase::Empty => "empty",
            LoadPhase::Loading => "loading",
            LoadPhase::Ready => "ready",
            LoadPhase::Error => "error",
        }
    }
}

/// Progress of the current load, as shown by the progress bar.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadProgress {
    /// "reading", "parsing", "transferring", …
    pub stage: String,
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub mb_per_s: f64,
}

impl LoadProgress {
    pub fn percent(&self) -> f64 {
        if self.total_bytes == 0 {
            0.0
        } else {
            (self.done_bytes as f64 / self.total_bytes as f64 * 100.0).clamp(0.0, 100.0)
        }
    }
}

/// How the current load goes, as the page shows it: its own context, apart from [`AppState`],
/// read by the progress bar, the error banner, `<body data-loupe-state>` and the deep links;
/// written only by the shell, which drives the loader and holds the [`LoadStatusWriter`].
#[derive(Clone, Copy)]
pub struct LoadStatus {
    pub phase: ReadSignal<LoadPhase>,
    pub progress: ReadSignal<Option<LoadProgress>>,
    pub error: ReadSignal<Option<String>>,
}

/// The write side of [`LoadStatus`] (the shell's).
#[derive(Clone, Copy)]
pub struct LoadStatusWriter {
    pub phase: WriteSignal<LoadPhase>,
    pub progress: WriteSignal<Option<LoadProgress>>,
    pub error: WriteSignal<Option<String>>,
}

impl LoadStatus {
    /// A new status (nothing loaded) and its writer.
    pub fn new() -> (LoadStatus, LoadStatusWriter) {
        let (phase, set_phase) = signal(LoadPhase::Empty);
        let (progress, set_progress) = signal(None);
        let (error, set_error) = signal(None);
        (
            LoadStatus { phase, progress, error },
            LoadStatusWriter { phase: set_phase, progress: set_progress, error: set_error },
        )
    }
}

/// The [`LoadStatus`] the shell provides.
pub fn use_load_status() -> LoadStatus {
    expect_context::<LoadStatus>()
}

/// The loaded model plus per-load derived lookups.
pub struct TraceData {
    pub trace: Trace,
    /// The page's indexes over `trace` (built with it by `index_build.rs`): lookups, not the model.
    pub indexes: crate::page_indexes::PageIndexes,
    /// "demo" or the file names.
    pub source_label: String,
    pub is_demo: bool,
    /// Timings of the load, for the status line and benchmarks.
    pub load_ms: f64,
    /// Re-opened from the model cache (no parse).
    pub from_cache: bool,
    /// Content fingerprint: the key of the profile's saved annotation sets.
    pub fingerprint: String,
    /// The model's resident bytes as the core counts them (`Trace::heap_bytes`; `__loupe.memoryBytes`).
    pub heap_bytes: usize,
    /// The files the profile was opened from, by input index: lazy arguments are re-read from
    /// them ([`crate::lazy_args`]). Empty for the demo.
    pub files: send_wrapper::SendWrapper<Vec<web_sys::File>>,
}

/// What is selected (click) in the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    Slice(SliceRef),
    /// A merged LOD block: slices `first..end` of one depth of a track.
    Merged {
        track: TrackId,
        depth: u32,
        first: u32,
        end: u32,
    },
    Instant {
        track: TrackId,
        index: u32,
    },
    CounterSample {
        counter: u32,
        index: u32,
    },
}

/// How the timeline colours slices (the "Colour by" menu).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColourBy {
    /// Operator on instruction tracks that have one, else name (the default).
    Auto,
    /// Framework operator (typed column; slices without one are grey).
    Operator,
    /// Layer (outermost operator level).
    Layer,
    /// Instruction opcode (typed column).
    Opcode,
    Name,
    /// Engine for Neuron engine tracks, else the track.
    Track,
    Category,
    /// Duration as a heat scale (log).
    Duration,
}

impl ColourBy {
    pub const ALL: [ColourBy; 8] = [
        ColourBy::Auto,
        ColourBy::Operator,
        ColourBy::Layer,
        ColourBy::Opcode,
        ColourBy::Name,
        ColourBy::Track,
        ColourBy::Category,
        ColourBy::Duration,
    ];
    pub fn label(self) -> &'static str {
        match self {
            ColourBy::Auto => "Auto",
            ColourBy::Operator => "Operator",
            ColourBy::Layer => "Layer",
            ColourBy::Opcode => "Opcode",
            ColourBy::Name => "Name",
            ColourBy::Track => "Engine / track",
            ColourBy::Category => "Category",
            ColourBy::Duration => "Duration (heat)",
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            ColourBy::Auto => "auto",
            ColourBy::Operator => "operator",
            ColourBy::Layer => "layer",
            ColourBy::Opcode => "opcode",
            ColourBy::Name => "name",
            ColourBy::Track => "track",
            ColourBy::Category => "category",
            ColourBy::Duration => "duration",
        }
    }
}

/// The current search's hits (shared by the search widget, Event Details and the timeline's
/// highlight). Replaced as a whole while a chunked search runs; `SearchState::gen` bumps.
#[derive(Debug, Clone, Default)]
pub struct SearchHits {
    pub query: String,
    /// Per track: hit slice indices, ascending (for painting: binary search per visible item).
    pub per_track: Vec<Vec<u32>>,
    pub count: usize,
    pub done: bool,
    /// Slices examined / total (progress of a running search).
    pub scanned: u64,
    pub total: u64,
    /// Parse error of the query, shown under the search box.
    pub error: Option<String>,
    /// Set when the hits are not a typed query but events another widget chose to highlight
    /// (an Operator Table row, a source line): says where from; `query` then holds the same
    /// label and is not put in the search box.
    pub origin: Option<String>,
    /// Dependencies between the hits to draw as arrows (from → to): the critical path's edges.
    pub edges: Vec<(SliceRef, SliceRef)>,
}

impl SearchHits {
    pub fn is_hit(&self, track: TrackId, index: u32) -> bool {
        self.per_track.get(track.0 as usize).is_some_and(|v| v.binary_search(&index).is_ok())
    }
    /// Whether any hit lies in `first..end` of a track (for merged LOD blocks).
    pub fn any_in(&self, track: TrackId, first: u32, end: u32) -> bool {
        self.per_track.get(track.0 as usize).is_some_and(|v| {
            let k = v.partition_point(|&i| i < first);
            k < v.len() && v[k] < end
        })
    }
}

/// A box selection: tracks × a time range (drag with Shift on the timeline).
#[derive(Debug, Clone, PartialEq)]
pub struct BoxSelection {
    pub t0_ns: i64,
    pub t1_ns: i64,
    /// Per track index: selected.
    pub tracks: Vec<bool>,
}

/// A request to the timeline to move its view (from any widget; widgets never call the timeline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewRequest {
    /// Show `[t0, t1)`.
    Range { t0_ns: i64, t1_ns: i64 },
    /// Show exactly `[t0, t1)` (no margin): restoring a saved view.
    Exact { t0_ns: i64, t1_ns: i64 },
    /// Pan/scroll so the slice is visible, keeping the zoom unless it is too far out.
    Reveal(SliceRef),
    /// Show `[t0, t1)` (view clock) and scroll to the row of `slice` (a rank's iteration).
    Focus { t0_ns: i64, t1_ns: i64, slice: SliceRef },
    /// Fit the busy range of the data (ignoring isolated outliers).
    ZoomToData,
    /// Fit everything.
    Reset,
}

/// A marker edit made on the timeline (right-click adds, dragging a flag moves), reported to
/// the app state by the timeline's callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerEdit {
    Add { t_ns: i64 },
    Move { id: u32, t_ns: i64 },
}

/// The visible time window, published by the timeline after each paint (non-reactive: read it
/// from a `Scheduler` redraw callback, which runs after the timeline's paint in the same frame).
///
/// It also carries the other direction without reactive work: a view that zooms or pans the
/// shared window itself (profile B's lanes in the Compare widget) leaves the window it wants with
/// [`ViewportBus::request`] and asks the `Scheduler` for a frame; the timeline takes it at the
/// start of its next paint, clamps it like its own input and publishes the result.
#[derive(Debug, Default)]
pub struct ViewportBus {
    pub t0_ns: std::cell::Cell<i64>,
    pub t1_ns: std::cell::Cell<i64>,
    /// Bumped whenever the window changes.
    pub generation: std::cell::Cell<u64>,
    /// A window asked for by another view, not yet applied (the last request wins).
    pub requested: std::cell::Cell<Option<(i64, i64)>>,
}

impl ViewportBus {
    pub fn publish(&self, t0_ns: i64, t1_ns: i64) {
        if (self.t0_ns.get(), self.t1_ns.get()) != (t0_ns, t1_ns) {
            self.t0_ns.set(t0_ns);
            self.t1_ns.set(t1_ns);
            self.generation.set(self.generation.get() + 1);
        }
    }
    pub fn window(&self) -> (i64, i64) {
        (self.t0_ns.get(), self.t1_ns.get())
    }
    /// Ask the timeline to show `[t0, t1)` exactly (applied at its next paint).
    pub fn request(&self, t0_ns: i64, t1_ns: i64) {
        self.requested.set(Some((t0_ns, t1_ns.max(t0_ns.saturating_add(1)))));
    }
    /// The pending request, if any (the timeline's paint).
    pub fn take_request(&self) -> Option<(i64, i64)> {
        self.requested.take()
    }
    /// The window as it will be after a pending request: where a view that moves it should start
    /// from when several of its inputs arrive within one frame.
    pub fn target_window(&self) -> (i64, i64) {
        self.requested.get().unwrap_or_else(|| self.window())
    }
}

/// All app-wide state; `Copy` (arena handles), provided once as context.
#[derive(Clone, Copy)]
pub struct AppState {
    /// Bumped whenever `trace` is replaced.
    pub generation: RwSignal<u64>,
    pub trace: StoredValue<Arc<TraceData>>,
    /// What is selected on the timeline, and the requests to move its view.
    pub view: ViewState,
    /// The colouring and its legend.
    pub colour: ColourState,
    /// How the ranks' clocks are aligned, and the offsets that gives.
    pub clock: ClockState,
    /// The keyboard help panel is open.
    pub show_help: RwSignal<bool>,
    /// The timeline's rows: collapsed groups and sections, hidden rows, the filter, the order.
    pub rows: RowsState,
    /// The current search and the hit Event Details shows.
    pub search: SearchState,
    /// The markers on the timeline.
    pub annotations: AnnotationsState,
    /// Source files the user dropped (the Code widget).
    pub sources: SourcesState,
    /// The second profile of a comparison (B).
    pub compare: CompareState,
}

/// What is selected on the timeline, and the requests to move its view.
#[derive(Clone, Copy)]
pub struct ViewState {
    pub selection: RwSignal<Option<Selection>>,
    /// Ctrl/Cmd was held on the timeline click that made the current selection (the Code widget
    /// then scrolls to the event's line; it resets this when it has read it).
    pub select_modifier: StoredValue<bool>,
    pub box_selection: RwSignal<Option<BoxSelection>>,
    /// Requests to move the timeline's view (the timeline clears it after acting).
    pub request: RwSignal<Option<ViewRequest>>,
}

/// The colouring of the timeline's slices.
#[derive(Clone, Copy)]
pub struct ColourState {
    pub by: RwSignal<ColourBy>,
    /// Bumped when a colouring's legend was applied to the palette table
    /// ([`TraceData::apply_legend`]): the timeline repaints. A big trace's legend is built in
    /// steps after the colouring changed, so its distinct colours arrive a few frames later.
    pub legend_gen: RwSignal<u64>,
}

/// The ranks' clocks.
#[derive(Clone, Copy)]
pub struct ClockState {
    /// How the ranks' clocks are aligned in the timeline (a view setting; a deep link carries it).
    pub align: RwSignal<loupe_core::analysis::ranks::Align>,
    /// The offsets `align` gives on the current trace (`crate::clock::shift`), set by the
    /// timeline widget; the painter, tooltip and Event Details read it.
    pub shift: RwSignal<Arc<crate::clock::ClockShift>>,
}

/// The timeline's rows, reset when a profile is installed (a deep link and the Save menu carry
/// them as `rows::RowState`).
#[derive(Clone, Copy)]
pub struct RowsState {
    pub collapsed: RwSignal<HashSet<GroupId>>,
    /// Collapsed sections of device groups (engines, DMA queues, semaphores, …).
    pub collapsed_sections: RwSignal<HashSet<(GroupId, Section)>>,
    /// Rows (tracks, counters) hidden by the user, for the current trace.
    pub hidden: RwSignal<HashSet<RowKey>>,
    /// Show counters whose samples are all zero (folded away by default).
    pub show_zero_counters: RwSignal<bool>,
    /// The track filter (substring of track or group names).
    pub filter: RwSignal<String>,
    /// The user's track order (see `loupe_core::rows::move_row`).
    pub order: RwSignal<HashMap<RowKey, i64>>,
}

/// The current search (see [`SearchHits`]): read with [`SearchState::hits`] and
/// [`SearchState::track`], written only through [`AppState::set_search`] (its fields are private to
/// this module).
#[derive(Clone, Copy)]
pub struct SearchState {
    hits: StoredValue<Arc<SearchHits>>,
    gen: RwSignal<u64>,
    /// The hit Event Details shows (paging goes on from it; see `analysis::search::paging`).
    pub cursor: RwSignal<Option<SliceRef>>,
}

/// The current annotation set (markers on the timeline), restored per profile from storage.
#[derive(Clone, Copy)]
pub struct AnnotationsState {
    pub current: RwSignal<AnnotationSet>,
    /// Why the last annotation save failed (shown by the Annotations widget).
    pub error: RwSignal<Option<String>>,
}

/// Source files the user dropped: read with [`SourcesState::files`] and [`SourcesState::track`],
/// written only through [`AppState::set_sources`] (its fields are private to this module).
#[derive(Clone, Copy)]
pub struct SourcesState {
    files: StoredValue<Arc<crate::sources::SourceFiles>>,
    gen: RwSignal<u64>,
}

impl SearchState {
    /// The current search (untracked: call [`SearchState::track`] in a reactive scope).
    pub fn hits(&self) -> Arc<SearchHits> {
        self.hits.get_value()
    }
    /// Make the running reactive scope re-run when the search changes.
    pub fn track(&self) {
        self.gen.track();
    }
}

impl SourcesState {
    /// The dropped source files (untracked: call [`SourcesState::track`] in a reactive scope).
    pub fn files(&self) -> Arc<crate::sources::SourceFiles> {
        self.files.get_value()
    }
    /// Make the running reactive scope re-run when the files change.
    pub fn track(&self) {
        self.gen.track();
    }
}

/// A second profile opened with "Compare…" (profile B; the open one is A), and how its load
/// goes; `gen` bumps when it changes.
#[derive(Clone, Copy)]
pub struct CompareState {
    pub profile: StoredValue<Option<Arc<TraceData>>>,
    pub gen: RwSignal<u64>,
    pub status: RwSignal<Option<String>>,
    /// The slice selected in B's lanes (a slice of B's trace, not of A's); cleared when B
    /// changes. The Compare widget outlines it and shows its details.
    pub selection: RwSignal<Option<SliceRef>>,
}

impl AppState {
    pub fn new(initial: TraceData) -> AppState {
        AppState {
            generation: RwSignal::new(0),
            trace: StoredValue::new(Arc::new(initial)),
            view: ViewState {
                selection: RwSignal::new(None),
                select_modifier: StoredValue::new(false),
                box_selection: RwSignal::new(None),
                request: RwSignal::new(None),
            },
            colour: ColourState { by: RwSignal::new(ColourBy::Auto), legend_gen: RwSignal::new(0) },
            clock: ClockState {
                align: RwSignal::new(Default::default()),
                shift: RwSignal::new(Default::default()),
            },
            show_help: RwSignal::new(false),
            rows: RowsState {
                collapsed: RwSignal::new(HashSet::new()),
                collapsed_sections: RwSignal::new(HashSet::new()),
                hidden: RwSignal::new(HashSet::new()),
                show_zero_counters: RwSignal::new(false),
                filter: RwSignal::new(String::new()),
                order: RwSignal::new(HashMap::new()),
            },
            search: SearchState {
                hits: StoredValue::new(Arc::new(SearchHits::default())),
                gen: RwSignal::new(0),
                cursor: RwSignal::new(None),
            },
            annotations: AnnotationsState {
                current: RwSignal::new(AnnotationSet::new(DEFAULT_SET)),
                error: RwSignal::new(None),
            },
            sources: SourcesState {
                files: StoredValue::new(Arc::new(Default::default())),
                gen: RwSignal::new(0),
            },
            compare: CompareState {
                profile: StoredValue::new(None),
                gen: RwSignal::new(0),
                status: RwSignal::new(None),
                selection: RwSignal::new(None),
            },
        }
    }

    /// Install a new trace: clears selection and collapse state, bumps the generation.
    pub fn install(&self, data: TraceData) {
        self.trace.set_value(Arc::new(data));
        self.view.selection.set(None);
        self.rows.collapsed.set(HashSet::new());
        self.rows.hidden.set(HashSet::new());
        self.rows.collapsed_sections.set(HashSet::new());
        self.rows.order.set(HashMap::new());
        self.rows.filter.set(String::new());
        self.view.box_selection.set(None);
        self.clock.align.set(Default::default());
        self.set_search(SearchHits::default());
        // the new profile's own markers (none for the demo or a profile never annotated)
        let data = self.trace.get_value();
        let set = if data.is_demo {
            AnnotationSet::new(DEFAULT_SET)
        } else {
            crate::annotation_store::load(&data.fingerprint).current_set()
        };
        self.annotations.current.set(set);
        self.annotations.error.set(None);
        self.generation.update(|g| *g += 1);
    }

    /// Change the current annotation set and save it for this profile (not for the demo).
    pub fn edit_annotations(&self, f: impl FnOnce(&mut AnnotationSet)) {
        self.annotations.current.update(f);
        let data = self.trace.get_value();
        if !data.is_demo {
            let res = self
                .annotations
                .current
                .with_untracked(|set| crate::annotation_store::save_current(&data.fingerprint, set));
            self.annotations.error.set(res.err());
        }
    }

    /// Replace the current search hits and notify (timeline highlight, details, search widget).
    pub fn set_search(&self, hits: SearchHits) {
        self.search.hits.set_value(Arc::new(hits));
        self.search.gen.update(|g| *g += 1);
    }

    /// Replace the dropped source files (the Code widget) and notify.
    pub fn set_sources(&self, files: crate::sources::SourceFiles) {
        self.sources.files.set_value(Arc::new(files));
        self.sources.gen.update(|g| *g += 1);
    }

    /// The current trace (cheap: an `Arc` clone). Subscribes to nothing.
    pub fn data(&self) -> Arc<TraceData> {
        self.trace.get_value()
    }

    /// The current trace, subscribing the caller to `generation`.
    pub fn tracked_data(&self) -> Arc<TraceData> {
        self.generation.track();
        self.trace.get_value()
    }
}

impl AppState {
    /// The timeline's row options (subscribes the caller to each of them).
    pub fn row_options(&self) -> RowOptions {
        RowOptions {
            collapsed_groups: self.rows.collapsed.get(),
            collapsed_sections: self.rows.collapsed_sections.get(),
            hidden: self.rows.hidden.get(),
            show_zero_counters: self.rows.show_zero_counters.get(),
            filter: self.rows.filter.get(),
            order: self.rows.order.get(),
        }
    }
}

pub fn use_app_state() -> AppState {
    expect_context::<AppState>()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The busy range built in the page's steps (a run sampled, sorted, two runs merged per step)
    /// is the core's one-call `busy_range`.
    #[test]
    fn stepped_busy_range_is_the_core_busy_range() {
        let trace = loupe_core::demo::large_demo(120_000, &mut |_, _| {});
        assert!(trace.slice_count() > 2 * loupe_core::analysis::busy::RUN_LEN);
        let expected = loupe_core::analysis::busy::busy_range(&trace);
        assert!(expected.is_some());
        let d = TraceData::new(trace, "t".into(), false, 0.0);
        assert_eq!(d.indexes.busy, expected);
    }
}
