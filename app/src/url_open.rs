//! `?url=<address>`: load a profile from an address the user put in the page URL (same origin,
//! or a CORS-enabled host the page's Content-Security-Policy `connect-src` allows — only the
//! page's own origin by default, see index.html). Downloads with progress, then hands a `File`
//! to the normal loader. This is the only request Loupe makes for data, and only when asked.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ProgressEvent, XmlHttpRequest, XmlHttpRequestResponseType};

/// The `url` query parameter of the page, if any.
pub fn requested() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get("url").filter(|u| !u.trim().is_empty())
}

/// The file name for an address: its last path segment (without query), or "download".
pub fn file_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let decoded =
        js_sys::decode_uri_component(last).ok().and_then(|s| s.as_string()).unwrap_or_else(|| last.into());
    if decoded.is_empty() || decoded.contains(':') && !decoded.contains('.') {
        "download".into()
    } else {
        decoded
    }
}

/// Download `url` as a `File`; `progress(done, total)` (total 0 when the server does not say).
pub async fn fetch_file(url: &str, progress: impl Fn(u64, u64) + 'static) -> Result<web_sys::File, String> {
    let xhr = XmlHttpRequest::new().map_err(|_| "this browser cannot download files".to_string())?;
    xhr.open_with_async("GET", url, true)
        .map_err(|_| format!("'{url}' is not an address this page can read"))?;
    xhr.set_response_type(XmlHttpRequestResponseType::Blob);
    let on_progress = Closure::<dyn FnMut(ProgressEvent)>::new(move |e: ProgressEvent| {
        let total = if e.length_computable() { e.total() as u64 } else { 0 };
        progress(e.loaded() as u64, total);
    });
    xhr.set_onprogress(Some(on_progress.as_ref().unchecked_ref()));
    let x = xhr.clone();
    let done = Promise::new(&mut |resolve, reject| {
        let r = resolve.clone();
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = r.call0(&JsValue::NULL);
        });
        let bad = Closure::once_into_js(move |_: JsValue| {
            let _ = reject.call0(&JsValue::NULL);
        });
        x.set_onload(Some(ok.unchecked_ref()));
        x.set_onerror(Some(bad.unchecked_ref()));
    });
    xhr.send().map_err(|_| format!("could not request '{url}'"))?;
    let result = JsFuture::from(done).await;
    drop(on_progress);
    if result.is_err() {
        return Err(format!(
            "could not read '{url}': the network failed, or the host does not allow this page to read it \
             (another origin needs CORS and must be allowed by the page's connect-src policy)"
        ));
    }
    let status = xhr.status().unwrap_or(0);
    if !(200..300).contains(&status) {
        let text = xhr.status_text().unwrap_or_default();
        return Err(format!("could not read '{url}': the server answered {status} {text}"));
    }
    let blob: web_sys::Blob = xhr
        .response()
        .ok()
        .and_then(|r| r.dyn_into().ok())
        .ok_or_else(|| format!("'{url}' returned no data"))?;
    web_sys::File::new_with_blob_sequence(&Array::of1(&blob), &file_name(url))
        .map_err(|_| "could not hold the downloaded data".to_string())
}
