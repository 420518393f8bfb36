//! Light and dark themes. Both palettes live in `style/tokens.css`; `data-theme` on `<html>` picks
//! one. `web/boot.js` sets it before the first paint (the saved choice, else the system's
//! `prefers-color-scheme`); [`install`] takes it from there: the header's toggle calls
//! [`Theme::choose`] (saved in localStorage `loupe.theme`), and while nothing is saved the page
//! follows the system when it changes. Canvases read their colours from the CSS tokens, so they
//! call [`track`] in an effect and re-read the tokens when the theme changes.

use gloo_storage::Storage;
use leptos::prelude::*;

use crate::dom::{self, listen, Listener};

/// localStorage key of the user's choice (JSON string "light" / "dark"); `web/boot.js` reads it too.
pub const STORAGE_KEY: &str = "loupe.theme";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeKind {
    Light,
    Dark,
}

impl ThemeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeKind::Light => "light",
            ThemeKind::Dark => "dark",
        }
    }

    fn parse(s: &str) -> Option<ThemeKind> {
        match s {
            "light" => Some(ThemeKind::Light),
            "dark" => Some(ThemeKind::Dark),
            _ => None,
        }
    }

    pub fn other(self) -> ThemeKind {
        match self {
            ThemeKind::Light => ThemeKind::Dark,
            ThemeKind::Dark => ThemeKind::Light,
        }
    }
}

/// The page's theme, in context once [`install`] ran.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub kind: RwSignal<ThemeKind>,
}

impl Theme {
    /// The user picks a theme: applied and remembered (no longer following the system).
    pub fn choose(self, kind: ThemeKind) {
        let _ = gloo_storage::LocalStorage::set(STORAGE_KEY, kind.as_str());
        self.kind.set(kind);
    }
}

fn saved() -> Option<ThemeKind> {
    gloo_storage::LocalStorage::get::<String>(STORAGE_KEY).ok().and_then(|s| ThemeKind::parse(&s))
}

fn system_dark() -> Option<web_sys::MediaQueryList> {
    dom::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
}

fn initial() -> ThemeKind {
    let attr = dom::document()
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-theme"))
        .and_then(|s| ThemeKind::parse(&s));
    attr.or_else(saved).unwrap_or_else(|| {
        if system_dark().is_some_and(|m| m.matches()) {
            ThemeKind::Dark
        } else {
            ThemeKind::Light
        }
    })
}

fn apply(kind: ThemeKind) {
    if let Some(root) = dom::document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", kind.as_str());
    }
}

/// Provide the [`Theme`] context, keep `data-theme` in step with it, and follow the system's
/// setting while the user has not chosen one.
pub fn install() -> Theme {
    let theme = Theme { kind: RwSignal::new(initial()) };
    provide_context(theme);
    Effect::new(move |_| apply(theme.kind.get()));
    let follow: StoredValue<Option<Listener>, LocalStorage> = StoredValue::new_local(None);
    if let Some(mq) = system_dark() {
        let l = listen(&mq, "change", true, move |_| {
            if saved().is_none() {
                let dark = system_dark().is_some_and(|m| m.matches());
                theme.kind.set(if dark { ThemeKind::Dark } else { ThemeKind::Light });
            }
        });
        follow.set_value(Some(l));
    }
    on_cleanup(move || {
        follow.try_update_value(|l| l.take());
    });
    theme
}

/// For effects that paint with the CSS tokens: subscribes to theme changes (nothing to follow
/// without [`install`], e.g. a widget mounted alone in a test) and makes sure `data-theme` is
/// already set, whichever effect runs first, so the tokens read next are the new theme's.
pub fn track() -> Option<ThemeKind> {
    let kind = use_context::<Theme>().map(|t| t.kind.get())?;
    apply(kind);
    Some(kind)
}

/// The header's button: shows what a click switches to.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = use_context::<Theme>();
    let kind = move || theme.map(|t| t.kind.get()).unwrap_or(ThemeKind::Light);
    view! {
        <button class="theme-toggle button-quiet" data-testid="theme-toggle"
            data-theme-now=move || kind().as_str()
            title=move || format!("Switch to the {} theme (saved in this browser)", kind().other().as_str())
            aria-label=move || format!("Switch to the {} theme", kind().other().as_str())
            on:click=move |_| if let Some(t) = theme { t.choose(t.kind.get_untracked().other()) }>
            {move || if kind() == ThemeKind::Dark { "☀" } else { "☾" }}
        </button>
    }
}
