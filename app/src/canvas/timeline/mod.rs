//! The timeline: a DOM track list on the left, one canvas (ruler + tracks) on the right.
//!
//! [`TimelineCtl`] owns everything on the fast path (viewport, hover, drag, hit regions) in plain
//! `Cell`/`RefCell`s, outside the reactive graph: pointer, wheel and key events mutate it and ask
//! the [`Scheduler`](crate::canvas::scheduler::Scheduler) for a frame; nothing reactive runs while
//! panning or zooming. Reactive state reaches it through the component's `Effect`s (trace +
//! layout, selection, colouring, …), and it reports clicks back through `on_select`.
//!
//! Navigation (as in the Neuron profiler, plus extras): drag on the tracks zooms to the dragged
//! range, drag on the ruler pans, ctrl/⌘+wheel zooms at the pointer, shift+wheel pans, plain
//! wheel scrolls tracks vertically, A/D or ←/→ pan by 15 % of the visible span, W/S zoom,
//! 0 or R resets, double-click on the ruler resets, Esc clears the selection.
//!
//! Annotations: right-click drops a marker at the pointer, dragging a marker's flag on the ruler
//! moves it; both snap to the nearest painted event edge within `hover::SNAP_PX`. The marker list comes
//! in through an `Effect` (`set_markers`) and edits go out through `on_marker`; while a flag is
//! dragged only the controller's copy moves (no reactive work until the pointer is released).
//!
//! Pointer and wheel events come through the canvas input layer shared with Compare's B lanes
//! ([`crate::canvas::input`]); the keys, right-click and double-click are the timeline's own.
//!
//! Files, one concern each: `ctl.rs` (the controller's state grouped by concern, construction,
//! setters), `view.rs` (viewport, pointer and drag state), `navigate.rs` (fit, requests, reveal,
//! resize), `paint.rs` (the frame and `window.__loupe`), `hover.rs` (tooltip, markers, box
//! selection), `gestures.rs` (gestures and keys), `component.rs` (the Leptos component and its
//! `Effect`s).

mod component;
mod ctl;
mod gestures;
mod hover;
mod navigate;
mod paint;
mod view;

pub use component::{Timeline, TimelineHandle};
pub use ctl::TimelineCtl;
