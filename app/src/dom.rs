//! Small DOM helpers: event listeners that remove themselves on drop (with control over
//! `passive`, which Leptos' `on:` does not give), and element creation for imperative widgets.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Event, EventTarget};

/// A registered event listener; dropping it removes it.
pub struct Listener {
    target: EventTarget,
    name: &'static str,
    cb: Closure<dyn FnMut(Event)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.name, self.cb.as_ref().unchecked_ref());
    }
}

/// Listen for `name` on `target`. `passive: false` lets the handler call `preventDefault` (wheel).
pub fn listen(
    target: &EventTarget,
    name: &'static str,
    passive: bool,
    f: impl FnMut(Event) + 'static,
) -> Listener {
    let cb = Closure::<dyn FnMut(Event)>::new(f);
    let opts = AddEventListenerOptions::new();
    opts.set_passive(passive);
    let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
        name,
        cb.as_ref().unchecked_ref(),
        &opts,
    );
    Listener { target: target.clone(), name, cb }
}

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

pub fn document() -> Option<web_sys::Document> {
    web_sys::window().and_then(|w| w.document())
}

/// Create `<tag class=…>` with text content (text is never parsed as HTML).
pub fn el(tag: &str, class: &str, text: &str) -> Option<web_sys::HtmlElement> {
    let e: web_sys::HtmlElement = document()?.create_element(tag).ok()?.dyn_into().ok()?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    if !text.is_empty() {
        e.set_text_content(Some(text));
    }
    Some(e)
}

/// Whether a keyboard event comes from a text field (keys then belong to the field).
pub fn is_typing_target(ev: &Event) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|e| match e.tag_name().to_ascii_lowercase().as_str() {
            // a file input keeps focus after choosing a file: keys must still navigate
            "input" => !matches!(
                e.get_attribute("type").unwrap_or_default().to_ascii_lowercase().as_str(),
                "file" | "button" | "checkbox" | "radio"
            ),
            "textarea" | "select" => true,
            _ => e.has_attribute("contenteditable"),
        })
        .unwrap_or(false)
}
