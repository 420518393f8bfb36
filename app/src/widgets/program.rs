//! The NEFF program view as a widget (header, subgraphs × engines, operator tree, tables,
//! correlation report); says what to drop when no program is loaded.

use leptos::prelude::*;

use crate::components::program::ProgramView;
use crate::state::use_app_state;

#[component]
pub fn ProgramWidget() -> impl IntoView {
    let state = use_app_state();
    view! {
        <div class="widget-body widget-scroll">
            {move || {
                let d = state.tracked_data();
                if d.trace.program.is_some() || d.trace.correlation.is_some() {
                    view! { <ProgramView/> }.into_any()
                } else {
                    view! { <p class="empty-state">"No compiled program loaded. Drop a NEFF (alone or with its NTFF) to see the program, its operators and how events correlate to them."</p> }.into_any()
                }
            }}
        </div>
    }
}
