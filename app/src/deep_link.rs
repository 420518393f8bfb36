//! Deep links: the view lives in the URL fragment ([`loupe_core::view_state`] defines the format).
//!
//! * **Writing**: every 400 ms the current view is rendered as a fragment; when it changed, the
//!   URL is updated with `history.replaceState`, or `pushState` when the visible range or the
//!   selection changed and the previous entry is older than a second — so Back/Forward step
//!   between views the user settled on, not through every animation frame of a pan.
//! * **Applying**: when a profile is installed whose content matches the link's `p`, the link's
//!   range, selection, collapsed groups, search, layout and annotations are applied (after the
//!   timeline's own fit). A link whose profile is not open yet stays pending — the URL is not
//!   overwritten by the demo — until the user opens that profile; opening another profile drops
//!   it. Back/Forward (`popstate`) and an edited fragment (`hashchange`) apply the same way.
//!
//! The link carries no profile data: only indices, times and names the user can see.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use loupe_core::analysis::annotations::DEFAULT_SET;
use loupe_core::model::{GroupId, SliceRef, TrackId};
use loupe_core::view_state::{profile_key, SelectedRef, ViewState};
use send_wrapper::SendWrapper;

use crate::dom::{self, listen, Listener};
use crate::state::{AppState, LoadPhase, Selection, ViewRequest, ViewportBus};
use crate::workbench::context::WorkbenchState;
use crate::workbench::layout::Node;

/// The view as a [`ViewState`] (the current profile's key, range, selection, …).
pub fn capture(state: AppState, wb: Option<WorkbenchState>, bus: Option<&ViewportBus>) -> ViewState {
    let data = state.data();
    let range_ns = bus.map(|b| b.window()).filter(|(a, b)| a < b);
    let selection = state.view.selection.get_untracked().and_then(|s| match s {
        Selection::Slice(r) => Some(SelectedRef::Slice { track: r.track.0, index: r.index }),
        Selection::Instant { track, index } => Some(SelectedRef::Instant { track: track.0, index }),
        Selection::CounterSample { counter, index } => Some(SelectedRef::CounterSample { counter, index }),
        Selection::Merged { .. } => None,
    });
    let mut collapsed_groups: Vec<u32> =
        state.rows.collapsed.with_untracked(|c| c.iter().map(|g| g.0).collect());
    collapsed_groups.sort_unstable();
    let hits = state.search.hits();
    let query = (hits.origin.is_none() && !hits.query.is_empty()).then(|| hits.query.clone());
    let layout_json = wb
        .filter(|wb| wb.customised.get_untracked())
        .and_then(|wb| wb.layout.with_untracked(|l| serde_json::to_string(l).ok()));
    let annotations = state
        .annotations
        .current
        .with_untracked(|a| (!a.markers.is_empty() || a.name != DEFAULT_SET).then(|| a.clone()));
    // the file name(s), so a link opened without them can say what it needs (not the demo's)
    let file = (!data.is_demo).then(|| data.source_label.chars().take(512).collect::<String>());
    ViewState {
        profile: Some(profile_key(&data.fingerprint)),
        file,
        range_ns,
        selection,
        collapsed_groups,
        query,
        layout_json,
        annotations,
        align: Some(state.clock.align.get_untracked()).filter(|a| *a != Default::default()),
    }
}

/// Does `v` belong to the profile now shown?
pub fn matches_profile(state: AppState, v: &ViewState) -> bool {
    v.profile.as_deref() == Some(profile_key(&state.data().fingerprint).as_str())
}

/// Apply `v` to the view. Parts that name events apply only when `v` belongs to this profile;
/// indices out of range are skipped.
pub fn apply(state: AppState, wb: Option<WorkbenchState>, v: &ViewState) {
    if let (Some(wb), Some(json)) = (wb, &v.layout_json) {
        if let Some(node) = serde_json::from_str::<Node>(json).ok().and_then(Node::sanitize) {
            wb.layout.set(node);
            wb.customised.set(true);
        }
    }
    if !matches_profile(state, v) {
        return;
    }
    let data = state.data();
    let t = &data.trace;
    let groups = t.groups.len() as u32;
    state
        .rows
        .collapsed
        .set(v.collapsed_groups.iter().filter(|&&g| g < groups).map(|&g| GroupId(g)).collect());
    let sel = v.selection.and_then(|s| match s {
        SelectedRef::Slice { track, index } => t
            .tracks
            .get(track as usize)
            .filter(|tr| (index as usize) < tr.slices.len())
            .map(|_| Selection::Slice(SliceRef { track: TrackId(track), index })),
        SelectedRef::Instant { track, index } => t
            .tracks
            .get(track as usize)
            .filter(|tr| (index as usize) < tr.instants.len())
            .map(|_| Selection::Instant { track: TrackId(track), index }),
        SelectedRef::CounterSample { counter, index } => t
            .counters
            .get(counter as usize)
            .filter(|c| (index as usize) < c.ts_ns.len())
            .map(|_| Selection::CounterSample { counter, index }),
    });
    state.view.selection.set(sel);
    // the ranks' clock alignment: the link's range is on that clock
    state.clock.align.set(v.align.unwrap_or_default());
    if let Some(set) = &v.annotations {
        let set = set.clone();
        state.edit_annotations(move |a| *a = set);
    }
    let current = state.search.hits();
    match &v.query {
        Some(q) if current.query != *q => crate::search_runner::start_search_keep_view(state, q),
        None if current.origin.is_none() && !current.query.is_empty() => {
            crate::search_runner::start_search_keep_view(state, "")
        }
        _ => {}
    }
    if let Some((t0_ns, t1_ns)) = v.range_ns {
        state.view.request.set(Some(ViewRequest::Exact { t0_ns, t1_ns }));
    } else if let Some(Selection::Slice(r)) = sel {
        state.view.request.set(Some(ViewRequest::Reveal(r)));
    }
}

fn location_hash() -> String {
    dom::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

fn write_url(fragment: &str, push: bool) {
    let Some(w) = dom::window() else { return };
    let Ok(history) = w.history() else { return };
    let url = format!("#{fragment}");
    let _ = if push {
        history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
}

thread_local! {
    /// A view to apply to the next installed profile (a `.loupe` file's saved view).
    static INJECTED: RefCell<Option<ViewState>> = const { RefCell::new(None) };
}

/// Apply `v` to the profile installed next (call before `AppState::install`).
pub fn restore_on_install(v: ViewState) {
    INJECTED.with(|i| *i.borrow_mut() = Some(v));
}

struct Sync {
    /// A link not yet applied (its profile is not open).
    pending: RefCell<Option<ViewState>>,
    last: RefCell<ViewState>,
    last_push_ms: Cell<f64>,
    /// Writing is paused until an applied link's view request has been acted on.
    hold_until_ms: Cell<f64>,
}

/// Keeps the URL fragment and the view in step. Mount once, inside the workbench.
#[component]
pub fn DeepLinks() -> impl IntoView {
    let state = crate::state::use_app_state();
    let load = crate::state::use_load_status();
    let wb = use_context::<WorkbenchState>();
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    let initial = location_hash();
    let initial = (initial.len() > 1).then(|| ViewState::from_fragment(&initial));
    // a link waiting for its profile: which file it needs (shown above the workbench)
    let waiting = RwSignal::new(initial.as_ref().filter(|v| v.profile.is_some()).map(waiting_for));
    let sync = Rc::new(Sync {
        pending: RefCell::new(initial),
        last: RefCell::new(ViewState::default()),
        last_push_ms: Cell::new(0.0),
        hold_until_ms: Cell::new(0.0),
    });
    let bus2 = bus.clone();
    let try_apply = {
        let sync = sync.clone();
        move |v: ViewState| {
            apply(state, wb, &v);
            sync.hold_until_ms.set(crate::platform::now_ms() + 300.0);
            *sync.last.borrow_mut() = v;
        }
    };
    // a new profile: apply a pending link made on it (after the timeline's own fit)
    let s1 = sync.clone();
    let apply1 = try_apply.clone();
    let pending_timer: StoredValue<Option<Timeout>, LocalStorage> = StoredValue::new_local(None);
    Effect::new(move |_| {
        state.generation.track();
        let data = state.data();
        let s1 = s1.clone();
        let apply1 = apply1.clone();
        let t = Timeout::new(0, move || {
            if let Some(v) = INJECTED.with(|i| i.borrow_mut().take()) {
                // a saved view wins over a link made for another view of the same profile
                s1.pending.borrow_mut().take();
                waiting.set(None);
                apply1(v);
                // the URL follows the `.loupe` just opened: the next tick writes its view
                *s1.last.borrow_mut() = ViewState::default();
                return;
            }
            let pending = s1.pending.borrow().clone();
            if let Some(v) = pending {
                if matches_profile(state, &v) || v.profile.is_none() {
                    s1.pending.borrow_mut().take();
                    waiting.set(None);
                    apply1(v);
                } else if !data.is_demo {
                    // another profile was opened: the link was not for it
                    s1.pending.borrow_mut().take();
                    waiting.set(None);
                    // still honour a layout-only part
                    if v.layout_json.is_some() {
                        apply(
                            state,
                            wb,
                            &ViewState { layout_json: v.layout_json.clone(), ..Default::default() },
                        );
                    }
                }
            }
        });
        pending_timer.set_value(Some(t));
    });
    // the writer: every 400 ms (the view moves without signals), and at once when the
    // selection, the groups, the search or the annotations change (a reload right after must
    // not bring back an older state)
    let s2 = sync.clone();
    let tick = Rc::new(move || {
        if load.phase.get_untracked() == LoadPhase::Loading || s2.pending.borrow().is_some() {
            return;
        }
        if crate::platform::now_ms() < s2.hold_until_ms.get() {
            return;
        }
        let now = capture(state, wb, bus2.as_deref());
        let changed = *s2.last.borrow() != now;
        if !changed {
            return;
        }
        let fragment = now.to_fragment();
        if format!("#{fragment}") == location_hash() {
            *s2.last.borrow_mut() = now;
            return;
        }
        let (view_changed, first) = {
            let last = s2.last.borrow();
            (last.range_ns != now.range_ns || last.selection != now.selection, last.profile.is_none())
        };
        let t = crate::platform::now_ms();
        let push = view_changed && !first && t - s2.last_push_ms.get() > 1000.0;
        if push {
            s2.last_push_ms.set(t);
        }
        write_url(&fragment, push);
        *s2.last.borrow_mut() = now;
    });
    let t2 = tick.clone();
    let interval = Interval::new(400, move || t2());
    let interval: StoredValue<Option<Interval>, LocalStorage> = StoredValue::new_local(Some(interval));
    let t3 = SendWrapper::new(tick);
    Effect::new(move |_| {
        state.view.selection.track();
        state.rows.collapsed.track();
        state.search.track();
        state.annotations.current.track();
        t3();
    });
    // Back/Forward and hand-edited fragments
    let listeners: StoredValue<Vec<Listener>, LocalStorage> = StoredValue::new_local(Vec::new());
    if let Some(w) = dom::window() {
        let mk = |name: &'static str| {
            let sync = sync.clone();
            let try_apply = try_apply.clone();
            listen(w.as_ref(), name, false, move |_| {
                let h = location_hash();
                let v = ViewState::from_fragment(&h);
                if h.len() <= 1 || *sync.last.borrow() == v {
                    return;
                }
                if matches_profile(state, &v) || v.profile.is_none() {
                    try_apply(v);
                } else {
                    waiting.set(Some(waiting_for(&v)));
                    *sync.pending.borrow_mut() = Some(v);
                }
            })
        };
        listeners.set_value(vec![mk("popstate"), mk("hashchange")]);
    }
    on_cleanup(move || {
        listeners.set_value(Vec::new());
        interval.set_value(None);
        pending_timer.set_value(None);
    });
    move || {
        waiting.get().map(|what| {
            view! {
                <div class="banner banner-info link-pending" role="status" data-testid="link-pending">
                    {what}
                    " "
                    <button class="link" data-testid="link-pending-dismiss" on:click=move |_| waiting.set(None)>"Dismiss"</button>
                </div>
            }
        })
    }
}

/// What a link opened without its profile says it needs.
fn waiting_for(v: &ViewState) -> String {
    let key = v.profile.as_deref().unwrap_or("?");
    match v.file.as_deref() {
        Some(f) => format!(
            "This link shows a view of “{f}” (profile {key}). Open that file (drop it here or use Open trace…) to see it; another file opens without the link's view."
        ),
        None => format!(
            "This link shows a view of a profile that is not open (profile {key}; the link does not name its file). Open the file it was made on to see it."
        ),
    }
}
