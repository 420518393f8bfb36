//! Heavy per-trace analyses kept off the first paint and off hidden tabs: a result is computed
//! once per key (the trace generation and the widget's options), only while the widget is on
//! screen (the active tab of its slot), and after a short timeout so that the spinner shown
//! meanwhile is painted first. The GPU breakdowns take ~0.7 s on 1 M events natively (more in
//! wasm), so they must never run inside a frame or at load time.

use std::rc::Rc;
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;

use crate::state::{AppState, ViewRequest};
use crate::workbench::context::WorkbenchState;
use crate::workbench::layout::WidgetKind;
use loupe_core::model::TrackId;

/// Delay before computing, so the browser paints the spinner first.
const PAINT_FIRST_MS: u32 = 40;

/// Whether widget `kind` is on screen (always, outside a workbench).
pub fn shown(kind: WidgetKind) -> Signal<bool> {
    match use_context::<WorkbenchState>() {
        Some(wb) => Signal::derive(move || wb.layout.with(|l| l.is_shown(kind))),
        None => Signal::derive(|| true),
    }
}

/// What [`deferred`] gives: the result for the current key (`None` while it is pending), whether
/// a computation is pending, and how long the last one took (ms, wall clock in the page).
pub struct Deferred<T: Send + Sync + 'static> {
    pub result: Signal<Option<Arc<T>>>,
    pub pending: Signal<bool>,
    pub compute_ms: Signal<f64>,
}

/// `compute(key)` for the current `key()`, recomputed when the key changes while the widget
/// is shown.
pub fn deferred<K, T>(
    shown: Signal<bool>,
    key: impl Fn() -> K + Send + Sync + 'static,
    compute: impl Fn(&K) -> T + 'static,
) -> Deferred<T>
where
    K: Clone + PartialEq + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let result: RwSignal<Option<(K, Arc<T>)>> = RwSignal::new(None);
    let pending = RwSignal::new(false);
    let compute_ms = RwSignal::new(0.0);
    let timer: StoredValue<Option<Timeout>, LocalStorage> = StoredValue::new_local(None);
    let compute = Rc::new(compute);
    let key = Arc::new(key);
    let k2 = key.clone();
    Effect::new(move |_| {
        let k = key();
        if result.with_untracked(|r| r.as_ref().is_some_and(|(rk, _)| *rk == k)) {
            return;
        }
        // a new trace or new options: let the old result go
        if result.with_untracked(Option::is_some) {
            result.set(None);
        }
        if !shown.get() {
            timer.set_value(None);
            pending.set(false);
            return;
        }
        pending.set(true);
        let c = compute.clone();
        timer.set_value(Some(Timeout::new(PAINT_FIRST_MS, move || {
            let t0 = crate::platform::now_ms();
            let v = c(&k);
            compute_ms.set(crate::platform::now_ms() - t0);
            result.set(Some((k, Arc::new(v))));
            pending.set(false);
        })));
    });
    let out = Signal::derive(move || {
        let k = k2();
        result.with(|r| r.as_ref().filter(|(rk, _)| *rk == k).map(|(_, v)| v.clone()))
    });
    Deferred { result: out, pending: pending.into(), compute_ms: compute_ms.into() }
}

/// Work of a stepped computation per task before it yields to the browser (ms).
const STEP_MS: f64 = 12.0;

/// Like [`deferred`], for a computation done in bounded steps between frames, so that a big
/// trace never blocks the page for one long task: `start(key)` makes the builder, `step` does a
/// bounded amount of work and gives the result once done. Steps run for about [`STEP_MS`] per
/// task, then the page yields to the browser; a newer key (or the widget hidden) abandons the run.
/// `compute_ms` is the time from the start to the result, the yields included.
pub fn deferred_steps<K, B, T>(
    shown: Signal<bool>,
    key: impl Fn() -> K + Send + Sync + 'static,
    start: impl Fn(&K) -> B + 'static,
    step: impl Fn(&mut B) -> Option<T> + 'static,
) -> Deferred<T>
where
    K: Clone + PartialEq + Send + Sync + 'static,
    B: 'static,
    T: Send + Sync + 'static,
{
    let result: RwSignal<Option<(K, Arc<T>)>> = RwSignal::new(None);
    let pending = RwSignal::new(false);
    let compute_ms = RwSignal::new(0.0);
    let run: StoredValue<u64> = StoredValue::new(0);
    let start = Rc::new(start);
    let step = Rc::new(step);
    let key = Arc::new(key);
    let k2 = key.clone();
    Effect::new(move |_| {
        let k = key();
        let id = run.get_value() + 1;
        run.set_value(id);
        if result.with_untracked(|r| r.as_ref().is_some_and(|(rk, _)| *rk == k)) {
            pending.set(false);
            return;
        }
        if result.with_untracked(Option::is_some) {
            result.set(None);
        }
        if !shown.get() {
            pending.set(false);
            return;
        }
        pending.set(true);
        let (start, step) = (start.clone(), step.clone());
        leptos::task::spawn_local(async move {
            // the spinner first
            crate::platform::timeout(PAINT_FIRST_MS as i32).await;
            if run.get_value() != id {
                return;
            }
            let t0 = crate::platform::now_ms();
            let mut b = start(&k);
            loop {
                let s0 = crate::platform::now_ms();
                while crate::platform::now_ms() - s0 < STEP_MS {
                    if let Some(v) = step(&mut b) {
                        compute_ms.set(crate::platform::now_ms() - t0);
                        result.set(Some((k, Arc::new(v))));
                        pending.set(false);
                        return;
                    }
                }
                crate::platform::yield_now().await;
                if run.get_value() != id {
                    return;
                }
            }
        });
    });
    let out = Signal::derive(move || {
        let k = k2();
        result.with(|r| r.as_ref().filter(|(rk, _)| *rk == k).map(|(_, v)| v.clone()))
    });
    Deferred { result: out, pending: pending.into(), compute_ms: compute_ms.into() }
}

/// Ask the timeline to show the time range of `per_track`'s slices (with a small margin).
pub fn zoom_to(state: AppState, per_track: &[Vec<u32>]) {
    let d = state.data();
    let (mut t0, mut t1) = (i64::MAX, i64::MIN);
    for (ti, v) in per_track.iter().enumerate() {
        let s = &d.trace.track(TrackId(ti as u32)).slices;
        for &i in v {
            t0 = t0.min(s.start_ns[i as usize]);
            t1 = t1.max(s.end_ns(i as usize));
        }
    }
    if t0 < t1 {
        let pad = (t1 - t0) / 50;
        state.view.request.set(Some(ViewRequest::Range { t0_ns: t0 - pad, t1_ns: t1 + pad }));
    }
}

/// A sortable column header: click sorts by `key` (numbers descending first), again flips.
pub fn sort_header<K>(
    sort: RwSignal<(K, bool)>,
    key: K,
    name: &'static str,
    text: &'static str,
    num: bool,
) -> AnyView
where
    K: Copy + PartialEq + Send + Sync + 'static,
{
    let arrow = move || match sort.get() {
        (k, true) if k == key => " ▾",
        (k, false) if k == key => " ▴",
        _ => "",
    };
    view! {
        <th class:num=num class="sortable" data-sort=name
            on:click=move |_| sort.update(|s| *s = if s.0 == key { (key, !s.1) } else { (key, num) })>
            {text}{arrow}
        </th>
    }
    .into_any()
}

/// The busy indicator of a widget computing its analysis.
pub fn spinner(what: &'static str, testid: &'static str) -> AnyView {
    view! {
        <p class="analysis-pending" data-testid=testid role="status"><span class="spinner" aria-hidden="true"></span>{what}</p>
    }
    .into_any()
}
