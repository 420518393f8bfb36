//! Embedding: `?mode=embedded` hides the chrome (header, file picker, layout bar) for an
//! `<iframe>` in a docs page, and a `postMessage` protocol lets the host page drive Loupe:
//!
//! ```text
//! host → Loupe   {loupe: "open", name: string, buffer: ArrayBuffer}     (transfer the buffer)
//!                {loupe: "view", start_ns, end_ns, select?: {track, index}}
//! Loupe → host   {loupe: "ready"}                        once, to the parent, when the app runs
//!                {loupe: "loaded", summary: {name, format, slices, tracks, counters,
//!                                            start_ns, end_ns, duration_ns, warnings}}
//!                {loupe: "error", message}
//! ```
//!
//! `loaded` / `error` go only to the origin that sent the `open` (a profile the user dropped
//! into the frame themselves is not reported to anyone). `ready` carries no data. A `view`
//! received before a profile is loaded is applied once it is. Example: docs/embed/.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::{AppState, Selection, TraceData, ViewRequest};

thread_local! {
    /// The origin of the last `open` message: where `loaded`/`error` go.
    static REPLY_TO: RefCell<Option<String>> = const { RefCell::new(None) };
    /// A `view` that arrived before its profile.
    static PENDING_VIEW: RefCell<Option<View>> = const { RefCell::new(None) };
}

#[derive(Debug, Clone, Copy)]
struct View {
    start_ns: Option<i64>,
    end_ns: Option<i64>,
    select: Option<(u32, u32)>,
}

/// `?mode=embedded` is in the page URL.
pub fn embedded() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("mode"))
        .is_some_and(|m| m == "embedded")
}

fn parent() -> Option<web_sys::Window> {
    let w = web_sys::window()?;
    let p = w.parent().ok().flatten()?;
    // a top-level page is its own parent
    (!js_sys::Object::is(&p, &w)).then_some(p)
}

fn set(o: &Object, k: &str, v: &JsValue) {
    let _ = Reflect::set(o, &k.into(), v);
}

fn post(target: &web_sys::Window, msg: &Object, origin: &str) {
    if let Err(e) = target.post_message(msg, origin) {
        web_sys::console::warn_2(&"loupe: postMessage to the host failed".into(), &e);
    }
}

/// Tell the parent page (if any) that Loupe is ready for `open`.
pub fn announce_ready() {
    if let Some(p) = parent() {
        let o = Object::new();
        set(&o, "loupe", &"ready".into());
        post(&p, &o, "*");
    }
}

fn reply(msg: &Object) {
    let Some(origin) = REPLY_TO.with(|r| r.borrow().clone()) else { return };
    if let Some(p) = parent() {
        post(&p, msg, &origin);
    }
}

fn num(v: &JsValue, k: &str) -> Option<f64> {
    Reflect::get(v, &k.into()).ok().and_then(|x| x.as_f64()).filter(|x| x.is_finite())
}

fn apply_view(state: AppState, v: View) {
    if let Some((track, index)) = v.select {
        let ok =
            state.data().trace.tracks.get(track as usize).is_some_and(|t| (index as usize) < t.slices.len());
        if ok {
            let r = loupe_core::model::SliceRef { track: loupe_core::model::TrackId(track), index };
            state.selection.set(Some(Selection::Slice(r)));
            if v.start_ns.is_none() {
                state.view_request.set(Some(ViewRequest::Reveal(r)));
            }
        }
    }
    if let (Some(t0_ns), Some(t1_ns)) = (v.start_ns, v.end_ns) {
        if t0_ns < t1_ns {
            state.view_request.set(Some(ViewRequest::Exact { t0_ns, t1_ns }));
        }
    }
}

/// Listen for the host's messages; `open` hands files to `load`. Returns the listener (drop to stop).
pub fn listen(state: AppState, load: impl Fn(Vec<web_sys::File>) + 'static) -> Option<crate::dom::Listener> {
    let w = web_sys::window()?;
    Some(crate::dom::listen(w.as_ref(), "message", true, move |e| {
        let Ok(ev) = e.dyn_into::<web_sys::MessageEvent>() else { return };
        let data = ev.data();
        let kind = Reflect::get(&data, &"loupe".into()).ok().and_then(|k| k.as_string());
        match kind.as_deref() {
            Some("open") => {
                let name = Reflect::get(&data, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| "embedded profile".into());
                let buffer = Reflect::get(&data, &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
                REPLY_TO.with(|r| *r.borrow_mut() = Some(ev.origin()));
                let file = if buffer.is_instance_of::<js_sys::ArrayBuffer>()
                    || buffer.is_instance_of::<web_sys::Blob>()
                {
                    web_sys::File::new_with_blob_sequence(&Array::of1(&buffer), &name).ok()
                } else {
                    None
                };
                match file {
                    Some(f) => load(vec![f]),
                    None => notify_error("the open message has no `buffer` (an ArrayBuffer or Blob)"),
                }
            }
            Some("view") => {
                let select = Reflect::get(&data, &"select".into())
                    .ok()
                    .filter(|s| s.is_object())
                    .and_then(|s| Some((num(&s, "track")? as u32, num(&s, "index")? as u32)));
                let v = View {
                    start_ns: num(&data, "start_ns").map(|x| x as i64),
                    end_ns: num(&data, "end_ns").map(|x| x as i64),
                    select,
                };
                if state.data().is_demo {
                    PENDING_VIEW.with(|p| *p.borrow_mut() = Some(v));
                } else {
                    apply_view(state, v);
                }
            }
            _ => {}
        }
    }))
}

/// A profile was installed: report it to the host that sent it, and apply a pending `view`.
pub fn notify_loaded(state: AppState, d: &TraceData) {
    if let Some(v) = PENDING_VIEW.with(|p| p.borrow_mut().take()) {
        // after the timeline's own fit of the new profile
        gloo_timers::callback::Timeout::new(0, move || apply_view(state, v)).forget();
    }
    let t = &d.trace;
    let s = Object::new();
    set(&s, "name", &d.source_label.as_str().into());
    set(&s, "format", &t.format.as_str().into());
    set(&s, "slices", &(t.slice_count() as f64).into());
    set(&s, "tracks", &(t.tracks.len() as f64).into());
    set(&s, "counters", &(t.counters.len() as f64).into());
    set(&s, "start_ns", &(t.start_ns as f64).into());
    set(&s, "end_ns", &(t.end_ns as f64).into());
    set(&s, "duration_ns", &(t.duration_ns() as f64).into());
    set(&s, "warnings", &(t.warnings.total() as f64).into());
    let o = Object::new();
    set(&o, "loupe", &"loaded".into());
    set(&o, "summary", &s);
    reply(&o);
}

/// A load failed: tell the host that sent it.
pub fn notify_error(message: &str) {
    let o = Object::new();
    set(&o, "loupe", &"error".into());
    set(&o, "message", &message.into());
    reply(&o);
}
