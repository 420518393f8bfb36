//! Runs searches for every widget: parses the query, scans the model in chunks between frames
//! (a `gloo-timers` timeout per chunk of ~200k slices, so 10 M events never freeze the page),
//! publishes progress and the final hits into `AppState::search`. A newer query cancels the
//! running one. A service, not a widget: the search box, the program view and others start
//! searches here; they never call each other.

use std::cell::RefCell;
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use loupe_core::analysis::search::{Query, Search};

use leptos::prelude::*;
use loupe_core::analysis::search::paging;
use loupe_core::model::SliceRef;

use crate::state::{AppState, SearchHits, Selection, TraceData, ViewRequest};

/// Slices examined per chunk (a few ms of work in wasm).
const CHUNK: usize = 200_000;

struct Running {
    search: Search,
    data: Arc<TraceData>,
    query: String,
    token: u64,
    timer: Option<Timeout>,
    /// Select and reveal the first hit when done (not when restoring a saved view).
    select_first: bool,
}

thread_local! {
    static RUNNING: RefCell<Option<Running>> = const { RefCell::new(None) };
    static TOKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn publish(state: AppState, r: &Running, done: bool) {
    let (scanned, total) = r.search.progress();
    let hits = SearchHits {
        query: r.query.clone(),
        per_track: if done { r.search.per_track().to_vec() } else { Vec::new() },
        count: r.search.hit_count(),
        done,
        scanned,
        total,
        error: None,
        origin: None,
        edges: Vec::new(),
    };
    state.set_search(hits);
}

fn run_chunk(state: AppState, token: u64) {
    let finished = RUNNING.with(|cell| {
        let mut slot = cell.borrow_mut();
        let r = slot.as_mut().filter(|r| r.token == token)?;
        let done = r.search.step(&r.data.trace, CHUNK);
        Some(done)
    });
    match finished {
        None => {}
        Some(true) => {
            let r = RUNNING.with(|c| c.borrow_mut().take());
            if let Some(r) = r {
                publish(state, &r, true);
                state.search.cursor.set(None);
                if r.select_first {
                    first_hit(state);
                }
            }
        }
        Some(false) => {
            RUNNING.with(|c| {
                if let Some(r) = c.borrow_mut().as_mut() {
                    publish(state, r, false);
                    r.timer = Some(Timeout::new(0, move || run_chunk(state, token)));
                }
            });
        }
    }
}

/// Start searching `text` on the current trace (cancels a running search); the first hit is
/// selected and revealed when it is done.
pub fn start_search(state: AppState, text: &str) {
    run_search(state, text, true)
}

/// Like [`start_search`], but leaves the selection and the view alone (restoring a saved view).
pub fn start_search_keep_view(state: AppState, text: &str) {
    run_search(state, text, false)
}

fn run_search(state: AppState, text: &str, select_first: bool) {
    let token = TOKEN.with(|t| {
        t.set(t.get() + 1);
        t.get()
    });
    RUNNING.with(|c| c.borrow_mut().take());
    let text = text.trim().to_string();
    if text.is_empty() {
        state.set_search(SearchHits::default());
        return;
    }
    let query = match Query::parse(&text) {
        Ok(q) => q,
        Err(e) => {
            state.set_search(SearchHits {
                query: text,
                error: Some(e.to_string()),
                done: true,
                ..Default::default()
            });
            return;
        }
    };
    let data = state.data();
    let search = Search::new(&data.trace, query);
    RUNNING.with(|c| {
        *c.borrow_mut() = Some(Running { search, data, query: text, token, timer: None, select_first })
    });
    run_chunk(state, token);
}

/// Show hit `r`: select it, remember it as the pager's position, reveal it on the timeline.
fn show_hit(state: AppState, r: SliceRef) {
    state.search.cursor.set(Some(r));
    state.view.selection.set(Some(Selection::Slice(r)));
    state.view.request.set(Some(ViewRequest::Reveal(r)));
}

/// The first hit of the current search.
pub fn first_hit(state: AppState) {
    let hits = state.search.hits();
    let d = state.data();
    if let Some(r) = paging::next(&d.trace, &hits.per_track, None) {
        show_hit(state, r);
    }
}

/// The next (`forward`) or previous hit, from the selected event when it is a slice (so paging
/// continues from what the user clicked), else from the pager's position. Wraps around.
pub fn page_by(state: AppState, forward: bool) {
    let hits = state.search.hits();
    if hits.count == 0 || !hits.done {
        return;
    }
    let d = state.data();
    let from = match state.view.selection.get_untracked() {
        Some(Selection::Slice(r)) => Some(r),
        _ => state.search.cursor.get_untracked(),
    };
    let r = if forward {
        paging::next(&d.trace, &hits.per_track, from)
    } else {
        paging::prev(&d.trace, &hits.per_track, from)
    };
    if let Some(r) = r {
        show_hit(state, r);
    }
}

/// Highlight a set of events chosen by a widget (not a typed query): `per_track[t]` = slice
/// indices of track `t`, ascending. The timeline outlines them, Event Details and `]`/`[` page
/// through them, the search widget says where they came from (`label`). Cancels a running
/// search. `reveal_first` selects and reveals the first of them.
pub fn show_events(state: AppState, label: &str, per_track: Vec<Vec<u32>>, reveal_first: bool) {
    show_events_with_edges(state, label, per_track, Vec::new(), reveal_first)
}

/// [`show_events`] with dependencies between them drawn as arrows on the timeline (from the end
/// of `from` to the start of `to`): the critical path's edges.
pub fn show_events_with_edges(
    state: AppState,
    label: &str,
    mut per_track: Vec<Vec<u32>>,
    edges: Vec<(SliceRef, SliceRef)>,
    reveal_first: bool,
) {
    TOKEN.with(|t| t.set(t.get() + 1));
    RUNNING.with(|c| c.borrow_mut().take());
    for v in &mut per_track {
        v.sort_unstable();
        v.dedup();
    }
    let count = per_track.iter().map(Vec::len).sum();
    state.set_search(SearchHits {
        query: label.to_string(),
        per_track,
        count,
        done: true,
        scanned: count as u64,
        total: count as u64,
        error: None,
        origin: Some(label.to_string()),
        edges,
    });
    state.search.cursor.set(None);
    if reveal_first {
        first_hit(state);
    }
}
