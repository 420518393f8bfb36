//! The device/trace timeline widget (the canvas timeline of [`crate::canvas::timeline`]).

use leptos::prelude::*;

use crate::canvas::timeline::Timeline;

#[component]
pub fn TimelineWidget() -> impl IntoView {
    view! { <div class="widget-body widget-fill"><Timeline/></div> }
}
