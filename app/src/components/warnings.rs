//! Import warnings of the current trace (counted per kind), as a collapsible banner.

use leptos::prelude::*;

use crate::state::use_app_state;

#[component]
pub fn WarningsBanner() -> impl IntoView {
    let state = use_app_state();
    move || {
        let data = state.tracked_data();
        let w = &data.trace.warnings;
        (!w.is_empty()).then(|| {
            let total = w.total();
            let kinds = w.entries.len();
            let summary = format!(
                "{total} import warning{} ({kinds} kind{})",
                if total == 1 { "" } else { "s" },
                if kinds == 1 { "" } else { "s" }
            );
            let items = w
                .entries
                .iter()
                .map(|e| {
                    let head = format!("{} × {}", e.count, e.kind);
                    let example = e.example.clone();
                    view! { <li><strong>{head}</strong>": "{example}</li> }
                })
                .collect_view();
            view! {
                <details class="banner banner-warn" data-testid="warnings">
                    <summary>{summary}</summary>
                    <ul>{items}</ul>
                </details>
            }
        })
    }
}
