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
//! The contract (what an embedding page can learn and do; README "Embedding"):
//! - **Only in `?mode=embedded`.** Without it no message listener is installed and nothing is
//!   posted to anyone.
//! - **Only the parent.** A message is accepted only when its `source` is `window.parent` (a
//!   sibling frame, a popup, an opener or the frame itself are ignored; a top-level page has no
//!   parent and accepts nothing).
//! - **One host origin for the page's lifetime.** `?mode=embedded&host=<origin>` pins it up front;
//!   otherwise the origin of the first accepted message is pinned. Messages from any other origin
//!   are ignored. `ready` (no data) goes to the pinned origin, or to `*` while none is pinned.
//! - **Replies only about what the host asked for.** `loaded` / `error` are posted to the pinned
//!   origin and only for a load the host's own `open` started ([`Requester::Host`]). A profile
//!   the user opens in the frame (file input, drop, `?url=`) is never reported, even after the
//!   host has opened one. A `view` received before a profile is loaded is applied once it is.
//!
//! Example: docs/embed/. Checked by `tests/e2e/embed.test.mjs` (a third-origin sibling frame, a
//! popup and a user-opened file).

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::{AppState, Selection, TraceData, ViewRequest};

/// Who asked for a load: only the host's own `open`s are reported to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requester {
    /// The user (file input, drop, folder, `?url=`): never reported to an embedding page.
    User,
    /// The embedding page's `open` message.
    Host,
}

thread_local! {
    /// The host's origin, pinned by `?host=` or by the first accepted message: where replies go
    /// and the only origin whose messages are accepted.
    static HOST_ORIGIN: RefCell<Option<String>> = const { RefCell::new(None) };
    /// A `view` that arrived before its profile.
    static PENDING_VIEW: RefCell<Option<View>> = const { RefCell::new(None) };
}

#[derive(Debug, Clone, Copy)]
struct View {
    start_ns: Option<i64>,
    end_ns: Option<i64>,
    select: Option<(u32, u32)>,
}

fn query(key: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get(key))
}

/// `?mode=embedded` is in the page URL.
pub fn embedded() -> bool {
    query("mode").is_some_and(|m| m == "embedded")
}

/// What `?host=` says: absent, a valid origin, or something that is not one (then nothing is
/// accepted: a host that meant to pin its origin and misspelt it must not get "anyone").
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostParam {
    Absent,
    Origin(String),
    Invalid(String),
}

fn host_param() -> HostParam {
    match query("host") {
        None => HostParam::Absent,
        Some(h) => match web_sys::Url::new(&h).map(|u| u.origin()) {
            // `Url::origin` is "null" for opaque origins (data:, file:, …)
            Ok(o) if o != "null" && !o.is_empty() => HostParam::Origin(o),
            _ => HostParam::Invalid(h),
        },
    }
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

/// Tell the parent page (embedded mode only) that Loupe is ready for `open`. It carries no data;
/// it goes to the pinned host origin if `?host=` gave one, else to any (the host is not known yet).
pub fn announce_ready() {
    if !embedded() {
        return;
    }
    let Some(p) = parent() else { return };
    let target = match host_param() {
        HostParam::Origin(o) => o,
        HostParam::Absent => "*".to_string(),
        HostParam::Invalid(_) => return,
    };
    let o = Object::new();
    set(&o, "loupe", &"ready".into());
    post(&p, &o, &target);
}

/// A reply to the pinned host (never to `*`).
fn reply(msg: &Object) {
    let Some(origin) = HOST_ORIGIN.with(|r| r.borrow().clone()) else { return };
    if let Some(p) = parent() {
        post(&p, msg, &origin);
    }
}

/// Whether a message event comes from the embedding page: its source is `window.parent`, and
/// its origin is the pinned one (pinning it when none is yet).
fn from_host(ev: &web_sys::MessageEvent) -> bool {
    let Some(p) = parent() else { return false };
    let from_parent = ev.source().is_some_and(|s| js_sys::Object::is(&s, p.as_ref()));
    if !from_parent {
        return false;
    }
    let origin = ev.origin();
    if origin.is_empty() || origin == "null" {
        return false;
    }
    HOST_ORIGIN.with(|h| {
        let mut h = h.borrow_mut();
        match h.as_deref() {
            Some(pinned) => pinned == origin,
            None => {
                *h = Some(origin);
                true
            }
        }
    })
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
            state.view.selection.set(Some(Selection::Slice(r)));
            if v.start_ns.is_none() {
                state.view.request.set(Some(ViewRequest::Reveal(r)));
            }
        }
    }
    if let (Some(t0_ns), Some(t1_ns)) = (v.start_ns, v.end_ns) {
        if t0_ns < t1_ns {
            state.view.request.set(Some(ViewRequest::Exact { t0_ns, t1_ns }));
        }
    }
}

/// In embedded mode, listen for the host's messages (see the module doc for who is accepted);
/// `open` hands files to `load`. Returns the listener (drop to stop); `None` outside embedded
/// mode, where no message is ever accepted.
pub fn listen(state: AppState, load: impl Fn(Vec<web_sys::File>) + 'static) -> Option<crate::dom::Listener> {
    if !embedded() {
        return None;
    }
    match host_param() {
        HostParam::Origin(o) => HOST_ORIGIN.with(|h| *h.borrow_mut() = Some(o)),
        HostParam::Absent => {}
        HostParam::Invalid(h) => {
            web_sys::console::warn_1(
                &format!("loupe: ?host={h} is not an origin (e.g. https://docs.example.com): embedding messages are ignored").into(),
            );
            return None;
        }
    }
    let w = web_sys::window()?;
    Some(crate::dom::listen(w.as_ref(), "message", true, move |e| {
        let Ok(ev) = e.dyn_into::<web_sys::MessageEvent>() else { return };
        let data = ev.data();
        let kind = Reflect::get(&data, &"loupe".into()).ok().and_then(|k| k.as_string());
        if !matches!(kind.as_deref(), Some("open" | "view")) || !from_host(&ev) {
            return;
        }
        match kind.as_deref() {
            Some("open") => {
                let name = Reflect::get(&data, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| "embedded profile".into());
                let buffer = Reflect::get(&data, &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
                let file = if buffer.is_instance_of::<js_sys::ArrayBuffer>()
                    || buffer.is_instance_of::<web_sys::Blob>()
                {
                    web_sys::File::new_with_blob_sequence(&Array::of1(&buffer), &name).ok()
                } else {
                    None
                };
                match file {
                    Some(f) => load(vec![f]),
                    None => notify_error(
                        Requester::Host,
                        "the open message has no `buffer` (an ArrayBuffer or Blob)",
                    ),
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

/// A profile was installed: apply a pending `view`, and report it to the host if the host's
/// `open` asked for it (a user's own file is never reported).
pub fn notify_loaded(state: AppState, d: &TraceData, by: Requester) {
    if let Some(v) = PENDING_VIEW.with(|p| p.borrow_mut().take()) {
        // after the timeline's own fit of the new profile
        gloo_timers::callback::Timeout::new(0, move || apply_view(state, v)).forget();
    }
    if by != Requester::Host {
        return;
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

/// A load failed: tell the host, if its `open` asked for that load.
pub fn notify_error(by: Requester, message: &str) {
    if by != Requester::Host {
        return;
    }
    let o = Object::new();
    set(&o, "loupe", &"error".into());
    set(&o, "message", &message.into());
    reply(&o);
}
