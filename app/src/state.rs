//! App state: small reactive signals for what the DOM shows (load state, progress, selection,
//! collapsed groups) and one non-reactive handle for the big immutable model.
//!
//! The trace sits in a `StoredValue<Arc<TraceData>>` and is never cloned or diffed; components
//! subscribe to `generation`, which is bumped whenever a new trace is installed. The viewport and
//! hover state are not here at all: they live in the timeline controller (`canvas::timeline`),
//! outside the reactive graph, so panning and zooming do no reactive work.

use std::collections::HashSet;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::model::{GroupId, SliceRef, TrackId};
use loupe_core::view::palette_index;
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

/// The loaded model plus per-load derived lookups.
pub struct TraceData {
    pub trace: Trace,
    /// Palette index per string id (names are hashed once per load, not per frame).
    pub color_of_str: Vec<u8>,
    /// "demo" or the file names.
    pub source_label: String,
    pub is_demo: bool,
    /// Timings of the load, for the status line and benchmarks.
    pub load_ms: f64,
    /// Per track: a Stream track of a Device group with framework-operator categories (Neuron
    /// instructions), whose slices are coloured by category instead of name.
    pub by_operator: Vec<bool>,
}

impl TraceData {
    pub fn new(trace: Trace, source_label: String, is_demo: bool, load_ms: f64) -> TraceData {
        let color_of_str = (0..trace.strings.len())
            .map(|i| palette_index(trace.strings.get(loupe_core::StrId(i as u32))) as u8)
            .collect();
        let by_operator = trace
            .tracks
            .iter()
            .map(|t| {
                t.kind == loupe_core::model::TrackKind::Stream
                    && trace
                        .groups
                        .get(t.group.0 as usize)
                        .is_some_and(|g| g.kind == loupe_core::model::GroupKind::Device)
                    && t.slices.category.iter().any(|&c| !trace.str(c).is_empty())
            })
            .collect();
        TraceData { trace, color_of_str, source_label, is_demo, load_ms, by_operator }
    }
    /// Palette index of slice `i` of track `tid`: by operator (category) on instruction tracks
    /// when it has one, else by name.
    pub fn slice_color(&self, tid: TrackId, i: usize) -> usize {
        let cols = &self.trace.track(tid).slices;
        if self.by_operator.get(tid.0 as usize).copied().unwrap_or(false) {
            let c = cols.category[i];
            if !self.trace.str(c).is_empty() {
                return self.color_index(c);
            }
        }
        self.color_index(cols.name[i])
    }
    pub fn color_index(&self, s: loupe_core::StrId) -> usize {
        self.color_of_str.get(s.0 as usize).copied().unwrap_or(0) as usize
    }
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

/// All app-wide state; `Copy` (arena handles), provided once as context.
#[derive(Clone, Copy)]
pub struct AppState {
    pub phase: RwSignal<LoadPhase>,
    pub progress: RwSignal<Option<LoadProgress>>,
    pub error: RwSignal<Option<String>>,
    /// Bumped whenever `trace` is replaced.
    pub generation: RwSignal<u64>,
    pub trace: StoredValue<Arc<TraceData>>,
    pub selection: RwSignal<Option<Selection>>,
    pub collapsed: RwSignal<HashSet<GroupId>>,
    /// A file is being dragged over the page.
    pub drag_over: RwSignal<bool>,
}

impl AppState {
    pub fn new(initial: TraceData) -> AppState {
        AppState {
            phase: RwSignal::new(LoadPhase::Empty),
            progress: RwSignal::new(None),
            error: RwSignal::new(None),
            generation: RwSignal::new(0),
            trace: StoredValue::new(Arc::new(initial)),
            selection: RwSignal::new(None),
            collapsed: RwSignal::new(HashSet::new()),
            drag_over: RwSignal::new(false),
        }
    }

    /// Install a new trace: clears selection and collapse state, bumps the generation.
    pub fn install(&self, data: TraceData) {
        self.trace.set_value(Arc::new(data));
        self.selection.set(None);
        self.collapsed.set(HashSet::new());
        self.generation.update(|g| *g += 1);
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

pub fn use_app_state() -> AppState {
    expect_context::<AppState>()
}
