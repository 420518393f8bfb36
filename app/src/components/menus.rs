//! The header's and the workbench's drop-down menus (`<details class="menu">`: Layout, Add widget,
//! Export / share) close as a menu should: on Esc, and on a click outside them. One pair of
//! window listeners serves every menu, present and future.

use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::dom::{self, listen, Listener};

const OPEN_MENUS: &str = "details.menu[open]";

/// Close every open menu except `keep` (the one a click landed in). Returns whether any closed.
fn close_menus(keep: Option<&Element>) -> bool {
    let Some(doc) = dom::document() else { return false };
    let Ok(open) = doc.query_selector_all(OPEN_MENUS) else { return false };
    let mut closed = false;
    for i in 0..open.length() {
        let Some(el) = open.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        if keep.is_some_and(|k| k == &el) {
            continue;
        }
        let _ = el.remove_attribute("open");
        closed = true;
    }
    closed
}

/// Install the listeners; dropping them removes them.
pub fn dismissal(w: &web_sys::Window) -> Vec<Listener> {
    let esc = listen(w.as_ref(), "keydown", false, move |e| {
        let Ok(k) = e.dyn_into::<web_sys::KeyboardEvent>() else { return };
        if k.key() != "Escape" {
            return;
        }
        // focus back on the menu's button, so the keyboard user is where they were
        let focus = dom::document()
            .and_then(|d| d.query_selector(&format!("{OPEN_MENUS} > summary")).ok().flatten())
            .and_then(|s| s.dyn_into::<web_sys::HtmlElement>().ok());
        if close_menus(None) {
            if let Some(s) = focus {
                let _ = s.focus();
            }
        }
    });
    let outside = listen(w.as_ref(), "pointerdown", true, move |e| {
        let inside = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|el| el.closest("details.menu").ok().flatten());
        close_menus(inside.as_ref());
    });
    vec![esc, outside]
}
