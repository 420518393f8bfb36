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

/// What the profile's evidence does not support, said plainly and always open (not folded into
/// the warnings): operator attribution from a NEFF whose UUID differs from the capture's (read
/// from the typed [`loupe_core::model::Attribution`] flag), and a capture file cut short
/// ([`loupe_core::model::Incomplete`]).
#[component]
pub fn EvidenceBanner() -> impl IntoView {
    let state = use_app_state();
    move || {
        let data = state.tracked_data();
        let t = &data.trace;
        let mut lines: Vec<AnyView> = Vec::new();
        if t.unverified_attribution() {
            let mark = loupe_core::model::Attribution::UNVERIFIED;
            lines.push(
                view! {
                    <p data-testid="neff-mismatch-notice">
                        <strong>"Operator attribution is unverified: "</strong>
                        "the NEFF loaded is not the one this capture was made from (their UUIDs differ). \
                         Operator names, HLO text and source lines may belong to another program; \
                         they are marked “"{mark}"” in Event Details, the Operator Table and Operator Views. \
                         Load the capture's own NEFF (or its neuron-profile JSON export) for verified attribution."
                    </p>
                }
                .into_any(),
            );
        }
        if let Some((g, inc)) = t.incomplete_capture() {
            let file = g.source_file.map(|f| t.str(f).to_string()).unwrap_or_default();
            let text = inc.message("NTFF");
            lines.push(
                view! {
                    <p data-testid="truncated-notice">
                        <strong>{format!("Incomplete capture{}: ", if file.is_empty() { String::new() } else { format!(" '{file}'") })}</strong>
                        {text}
                        ". The device summary is not shown: the runtime's totals describe events that are not in the file."
                    </p>
                }
                .into_any(),
            );
        }
        (!lines.is_empty()).then(|| {
            view! { <div class="banner banner-error banner-evidence" role="alert" data-testid="evidence-banner">{lines}</div> }
        })
    }
}
