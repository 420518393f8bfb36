//! Browser tests (wasm-bindgen-test in headless Chromium):
//! `cargo test -p loupe-app --target wasm32-unknown-unknown`.
//!
//! Each test mounts the whole `App` (with the in-thread loader: the test server has no worker
//! script) into a fixed-size box with the real stylesheets, then drives it through the DOM.

use std::time::Duration;

use leptos::prelude::*;
use loupe_app::{App, LoaderMode};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// Poll `cond` every 50 ms for up to `timeout`.
async fn until(what: &str, timeout: Duration, cond: impl Fn() -> bool) {
    let steps = (timeout.as_millis() / 50).max(1);
    for _ in 0..steps {
        if cond() {
            return;
        }
        sleep(50).await;
    }
    panic!("timed out waiting for {what}");
}

fn loupe_prop(k: &str) -> JsValue {
    let w = web_sys::window().unwrap();
    let o = js_sys::Reflect::get(&w, &"__loupe".into()).unwrap_or(JsValue::UNDEFINED);
    if o.is_undefined() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(&o, &k.into()).unwrap_or(JsValue::UNDEFINED)
}

fn body_state() -> String {
    document().body().unwrap().get_attribute("data-loupe-state").unwrap_or_default()
}

fn by_testid(id: &str) -> Option<HtmlElement> {
    document().query_selector(&format!("[data-testid={id}]")).ok().flatten().and_then(|e| e.dyn_into().ok())
}

/// Mount the app in a 1200×700 box with the real CSS; returns the box and the unmount handle.
fn mount() -> (HtmlElement, Box<dyn std::any::Any>) {
    let doc = document();
    // a fresh window.__loupe per test (the previous app's object would satisfy the waits)
    js_sys::Reflect::delete_property(&web_sys::window().unwrap(), &"__loupe".into()).unwrap();
    if doc.get_element_by_id("loupe-test-css").is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id("loupe-test-css");
        style.set_text_content(Some(concat!(
            include_str!("../../style/tokens.css"),
            include_str!("../../style/main.css"),
            include_str!("../../style/analysis.css"),
            include_str!("../../style/annotations.css"),
            include_str!("../../style/operator-table.css"),
            include_str!("../../style/dashboard.css"),
            include_str!("../../style/code.css"),
            include_str!("../../style/gpu-breakdown.css"),
            include_str!("../../style/share.css")
        )));
        doc.head().unwrap().append_child(&style).unwrap();
    }
    let wrap: HtmlElement = doc.create_element("div").unwrap().unchecked_into();
    wrap.set_attribute("style", "position:fixed;left:0;top:0;width:1200px;height:700px;overflow:hidden")
        .unwrap();
    doc.body().unwrap().append_child(&wrap).unwrap();
    let handle = leptos::mount::mount_to(wrap.clone(), || view! { <App loader=LoaderMode::InThread/> });
    (wrap, Box::new(handle))
}

fn unmount(wrap: HtmlElement, handle: Box<dyn std::any::Any>) {
    drop(handle);
    wrap.remove();
}

/// Distinct colours in a grid sample of the canvas backing store.
fn canvas_colours() -> usize {
    let canvas: HtmlCanvasElement = by_testid("timeline").unwrap().unchecked_into();
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let (w, h) = (canvas.width(), canvas.height());
    let data = ctx.get_image_data(0.0, 0.0, w as f64, h as f64).unwrap().data();
    let mut seen = std::collections::HashSet::new();
    for y in (0..h).step_by(7) {
        for x in (0..w).step_by(7) {
            let i = ((y * w + x) * 4) as usize;
            seen.insert((data[i], data[i + 1], data[i + 2]));
        }
    }
    seen.len()
}

fn frames() -> f64 {
    loupe_prop("frames").as_f64().unwrap_or(0.0)
}

/// Put `bytes` as a file named `name` into the file input and dispatch `change`.
fn choose_file(name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(bytes));
    let file = web_sys::File::new_with_u8_array_sequence(&parts, name).unwrap();
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(&file).unwrap();
    let input: HtmlInputElement = by_testid("open-file").unwrap().unchecked_into();
    input.set_files(dt.files().as_ref());
    input.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
}

/// A small Chrome JSON file (4 slices on one thread).
fn small_valid_file() -> (&'static str, Vec<u8>) {
    let json = br#"{"traceEvents":[
        {"name":"process_name","ph":"M","pid":7,"args":{"name":"test process"}},
        {"name":"step","ph":"X","ts":0,"dur":1000,"pid":7,"tid":1,"args":{"k":"v"}},
        {"name":"child","ph":"X","ts":100,"dur":500,"pid":7,"tid":1},
        {"name":"straddles","ph":"X","ts":900,"dur":300,"pid":7,"tid":1}
    ]}"#;
    assert!(loupe_core::import::detect("small.json", json).is_some(), "the Chrome JSON importer refused it");
    ("small.json", json.to_vec())
}

#[wasm_bindgen_test]
async fn demo_renders() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    assert_eq!(body_state(), "empty");
    assert!(by_testid("demo-badge").is_some(), "demo is labelled");
    assert_eq!(loupe_prop("demo").as_bool(), Some(true));
    assert!(loupe_prop("sliceCount").as_f64().unwrap_or(0.0) > 10_000.0);
    // the layout may still settle after the first frame (a resize repaints at once)
    until("the demo painted", Duration::from_secs(2), || canvas_colours() > 12).await;
    // the track list shows the demo's groups
    let list = by_testid("track-list").unwrap().text_content().unwrap_or_default();
    assert!(list.contains("Tensor") && list.contains("MainThread"), "{list}");
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn click_fills_details() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    let find = loupe_prop("findSlice").dyn_into::<js_sys::Function>().unwrap();
    let p = find.call0(&JsValue::NULL).unwrap();
    let x = js_sys::Reflect::get(&p, &"x".into()).unwrap().as_f64().unwrap();
    let y = js_sys::Reflect::get(&p, &"y".into()).unwrap().as_f64().unwrap();
    let canvas = by_testid("timeline").unwrap();
    let r = canvas.get_bounding_client_rect();
    for kind in ["pointerdown", "pointerup"] {
        let init = web_sys::PointerEventInit::new();
        init.set_client_x((r.left() + x) as i32);
        init.set_client_y((r.top() + y) as i32);
        init.set_bubbles(true);
        init.set_button(0);
        init.set_pointer_id(1);
        let ev = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
        canvas.dispatch_event(&ev).unwrap();
    }
    until("details", Duration::from_secs(5), || {
        by_testid("details").and_then(|d| d.text_content()).is_some_and(|t| t.contains("duration"))
    })
    .await;
    let text = by_testid("details").unwrap().text_content().unwrap();
    assert!(text.contains("track") && text.contains("depth"), "{text}");
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn file_input_loads_a_trace() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    let (name, bytes) = small_valid_file();
    choose_file(name, &bytes);
    until("ready", Duration::from_secs(20), || body_state() == "ready").await;
    assert_eq!(loupe_prop("demo").as_bool(), Some(false));
    assert!(by_testid("demo-badge").is_none());
    let stats = by_testid("stats").unwrap().text_content().unwrap();
    assert!(stats.contains("slices"), "{stats}");
    assert!(document().body().unwrap().text_content().unwrap().contains(name));
    if name.ends_with(".json") {
        assert_eq!(loupe_prop("sliceCount").as_f64(), Some(3.0));
        // "straddles" overlaps "step" without nesting: a counted warning, shown in the banner
        let warnings = by_testid("warnings").expect("warnings banner").text_content().unwrap();
        assert!(warnings.contains("warning"), "{warnings}");
    }
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn bad_file_shows_load_error() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    choose_file("<b>bold</b>.bin", b"definitely not a profile \x00\x01\x02");
    until("error", Duration::from_secs(20), || body_state() == "error").await;
    let err = by_testid("load-error").expect("load-error shown");
    let text = err.text_content().unwrap();
    assert!(text.contains("unrecognised file format"), "{text}");
    assert!(text.contains("<b>bold</b>.bin"), "file name shown literally: {text}");
    assert!(err.query_selector("b").unwrap().is_none(), "no markup injected");
    // the demo stays visible
    assert_eq!(loupe_prop("demo").as_bool(), Some(true));
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn neff_alone_opens_the_program_view() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    choose_file("minimal.neff", &loupe_core::neuron::neff::writer::minimal_neff());
    until("ready", Duration::from_secs(20), || body_state() == "ready").await;
    // a program without a timeline: the Program tab is the main content
    until("program view", Duration::from_secs(5), || by_testid("program").is_some()).await;
    let program = by_testid("program").unwrap().text_content().unwrap();
    assert!(program.contains("NEFF"), "{program}");
    assert!(program.contains("Header"), "{program}");
    let hier = by_testid("program-hierarchy").expect("operator hierarchy shown");
    assert!(hier.query_selector(".op-node").unwrap().is_some(), "hierarchy has nodes");
    // the workbench switched to the program-only layout: the Program widget is an active tab
    assert!(by_testid("widget-program").is_some(), "program widget mounted");
    let tab = document().query_selector(".wb-tab[data-widget=program]").unwrap().expect("program tab");
    assert_eq!(tab.get_attribute("aria-selected").as_deref(), Some("true"));
    assert!(by_testid("widget-timeline").is_none(), "no timeline widget for a program alone");
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn search_widget_counts_like_the_core_and_pages() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    // the demo trace: the widget's count must equal the core's answer for the same query
    let demo = loupe_core::demo::demo_trace();
    let q = "engine:Tensor dur>2us";
    let want = loupe_core::analysis::search::Search::run(
        &demo,
        loupe_core::analysis::search::Query::parse(q).unwrap(),
    )
    .hit_count();
    assert!(want > 0, "the demo has such instructions");
    let input: HtmlInputElement = by_testid("search-input").expect("search input").unchecked_into();
    input.set_value(q);
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    until("search done", Duration::from_secs(10), || {
        by_testid("search-count").is_some_and(|e| e.get_attribute("data-done").as_deref() == Some("true"))
    })
    .await;
    let got: usize = by_testid("search-count").unwrap().text_content().unwrap().parse().unwrap();
    assert_eq!(got, want);
    // the first hit is selected and the pager says so
    until("pager", Duration::from_secs(5), || {
        by_testid("search-page").is_some_and(|e| e.text_content().unwrap_or_default().starts_with("hit 1 of"))
    })
    .await;
    by_testid("search-next").unwrap().click();
    until("page 2", Duration::from_secs(5), || {
        by_testid("search-page").is_some_and(|e| e.text_content().unwrap_or_default().starts_with("hit 2 of"))
    })
    .await;
    // a bad query shows its error, not a count
    input.set_value("dur>5parsecs");
    input.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    until("query error", Duration::from_secs(5), || {
        document().query_selector(".search-error").ok().flatten().is_some()
    })
    .await;
    unmount(wrap, handle);
}

#[wasm_bindgen_test]
async fn widgets_can_be_removed_and_added_back() {
    let (wrap, handle) = mount();
    until("first frame", Duration::from_secs(10), || frames() > 0.0).await;
    for w in ["timeline", "details", "search", "summary", "selection-summary"] {
        assert!(by_testid(&format!("widget-{w}")).is_some(), "{w} in the default layout");
    }
    let close: HtmlElement = document()
        .query_selector(".wb-tab[data-widget=summary] .wb-tab-close")
        .unwrap()
        .unwrap()
        .unchecked_into();
    close.click();
    until("summary removed", Duration::from_secs(5), || by_testid("widget-summary").is_none()).await;
    let add: HtmlElement = document()
        .query_selector("[data-testid=add-widget-menu] [data-widget=summary]")
        .unwrap()
        .expect("summary offered in the add menu")
        .unchecked_into();
    add.click();
    until("summary back", Duration::from_secs(5), || by_testid("widget-summary").is_some()).await;
    unmount(wrap, handle);
}

/// The model cache's database exists without its object stores (another script opened the name
/// first): the cache upgrades it instead of failing every store and lookup.
#[wasm_bindgen_test]
async fn model_cache_repairs_a_database_without_its_stores() {
    let factory = web_sys::window().unwrap().indexed_db().unwrap().unwrap();
    let name = "loupe-model-cache";
    let del = factory.delete_database(name).unwrap();
    JsFuture::from(js_sys::Promise::new(&mut |ok, _| {
        del.set_onsuccess(Some(&ok));
        del.set_onerror(Some(&ok));
    }))
    .await
    .unwrap();
    // an empty database at version 1: no upgrade handler, so no object store
    let req = factory.open(name).unwrap();
    let db = JsFuture::from(js_sys::Promise::new(&mut |ok, bad| {
        req.set_onsuccess(Some(&ok));
        req.set_onerror(Some(&bad));
    }))
    .await
    .map(|_| req.result().unwrap().unchecked_into::<web_sys::IdbDatabase>())
    .unwrap();
    assert_eq!(db.object_store_names().length(), 0);
    db.close();
    let usage = loupe_app::model_cache::usage().await;
    assert_eq!(usage, Ok((0, 0.0)), "an empty cache, not an error");
}
