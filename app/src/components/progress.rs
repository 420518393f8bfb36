//! Load progress: stage, percent, MB/s and a Cancel button (terminates the parser worker).

use leptos::prelude::*;

use crate::state::use_load_status;

#[component]
pub fn ProgressBar(on_cancel: Callback<()>) -> impl IntoView {
    let load = use_load_status();
    move || {
        load.progress.get().map(|p| {
            let pct = p.percent();
            // a generated demo counts slices, not bytes
            let text = if p.stage == "generating" {
                format!("{} … {:.0}% · {:.1} M slices/s", p.stage, pct, p.mb_per_s)
            } else {
                format!("{} … {:.0}% · {:.1} MB/s", p.stage, pct, p.mb_per_s)
            };
            view! {
                <div class="progress" data-testid="progress" role="status">
                    <div class="progress-track">
                        <div class="progress-fill" style=format!("width:{pct:.1}%")></div>
                    </div>
                    <span class="progress-text">{text}</span>
                    <button class="button" data-testid="cancel-load" on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            }
        })
    }
}
