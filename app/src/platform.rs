//! The browser platform the app's other modules build on: the clock, a turn for the browser
//! between steps of work (`scheduler.yield()`, the next frame, a timeout), the load's stage
//! timings in `window.__loupeLoad`, and JavaScript errors as text. It imports nothing of the app
//! (ARCHITECTURE.md, Layers: the platform floor, under the state).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Milliseconds on the page's clock (`performance.now()`, else `Date.now()`).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or_else(js_sys::Date::now, |p| p.now())
}

/// Record how long one page-side step of the last load took, in `window.__loupeLoad[name]`
/// (milliseconds; benchmarks read it: `tests/bench/open-big.mjs`, `tests/bench/load-gaps.mjs`).
pub fn record_stage(name: &str, ms: f64) {
    let Some(w) = web_sys::window() else { return };
    let key = JsValue::from_str("__loupeLoad");
    let obj = match js_sys::Reflect::get(&w, &key) {
        Ok(o) if o.is_object() => o,
        _ => {
            let o: JsValue = js_sys::Object::new().into();
            let _ = js_sys::Reflect::set(&w, &key, &o);
            o
        }
    };
    let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(name), &JsValue::from_f64(ms));
}

/// A JavaScript error (or any thrown value) as text: its message when it has one.
pub fn js_err(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| js_sys::Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Work per slice before yielding (ms): well under a 16 ms frame.
pub const SLICE_MS: f64 = 8.0;

/// At most this long between two frames while a load's page-side steps run (ms). A
/// `scheduler.yield()` continuation is run before rendering, so a loop of slices that only yields
/// that way gets a frame only when Chromium's rendering-starvation guard steps in (≈ 100 ms
/// gaps, measured on a 1 GB load); every so often [`yield_now`] waits for a frame instead.
pub const FRAME_EVERY_MS: f64 = 20.0;

thread_local! {
    static LAST_FRAME_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NEG_INFINITY) };
}

/// Give the browser a chance to paint and handle input, then continue: `scheduler.yield()`
/// where the browser has it (a continuation that is not clamped), else a zero timeout; and when
/// [`FRAME_EVERY_MS`] have passed since the last frame it let through, the next frame (its
/// animation frame, then a task after its paint) when the page is visible.
pub async fn yield_now() {
    let now = now_ms();
    if now - LAST_FRAME_MS.with(std::cell::Cell::get) >= FRAME_EVERY_MS {
        let visible = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.visibility_state() == web_sys::VisibilityState::Visible);
        LAST_FRAME_MS.with(|c| c.set(now));
        if visible {
            next_frame().await;
            LAST_FRAME_MS.with(|c| c.set(now_ms()));
            return;
        }
    }
    let global = js_sys::global();
    let sched = js_sys::Reflect::get(&global, &JsValue::from_str("scheduler")).unwrap_or(JsValue::UNDEFINED);
    if !sched.is_undefined() && !sched.is_null() {
        if let Ok(f) = js_sys::Reflect::get(&sched, &JsValue::from_str("yield")) {
            if let Some(f) = f.dyn_ref::<js_sys::Function>() {
                if let Ok(p) = f.call0(&sched) {
                    if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
                        let _ = JsFuture::from(p).await;
                        return;
                    }
                }
            }
        }
    }
    timeout(0).await;
}

/// Resolves in a task after the next frame was rendered (requestAnimationFrame, then a zero
/// timeout), or after 100 ms if no frame comes (a page hidden meanwhile).
/// Resolves right after the next frame has been painted (or after 100 ms without one).
pub async fn next_frame() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
            return;
        };
        let after_paint = {
            let (w, resolve) = (w.clone(), resolve.clone());
            Closure::once_into_js(move || {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
            })
        };
        if w.request_animation_frame(after_paint.unchecked_ref()).is_err() {
            let _ = resolve.call0(&JsValue::UNDEFINED);
            return;
        }
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
    });
    let _ = JsFuture::from(p).await;
}

/// Resolves after a `setTimeout` of `ms` (at once without a window).
pub async fn timeout(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        } else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = JsFuture::from(p).await;
}
