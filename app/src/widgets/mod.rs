//! The widget registry: one module per widget, each a component reading and writing only the
//! shared [`crate::state::AppState`] (selection, search, view requests, box selection) and the
//! viewport bus. Widgets never call each other. The workbench mounts them by [`WidgetKind`].

pub mod annotations;
pub mod code;
pub mod collectives;
pub mod compare;
pub mod critical_path;
pub mod dashboard;
pub mod deferred;
pub mod details;
pub mod gpu_breakdown;
pub mod latency;
pub mod memory;
pub mod operator_table;
pub mod operator_views;
pub mod program;
pub mod rank_summary;
pub mod regions;
pub mod search;
pub mod selection_summary;
pub mod summary;
pub mod tensors;
pub mod timeline;

use leptos::prelude::*;

use crate::workbench::layout::WidgetKind;

/// The widgets' byte counts (defined with the other number formats in [`crate::fmt`]).
pub use crate::fmt::fmt_bytes;

/// Mount the widget of `kind`.
pub fn render(kind: WidgetKind) -> AnyView {
    match kind {
        WidgetKind::Timeline => view! { <timeline::TimelineWidget/> }.into_any(),
        WidgetKind::Details => view! { <details::DetailsWidget/> }.into_any(),
        WidgetKind::Search => view! { <search::SearchWidget/> }.into_any(),
        WidgetKind::Summary => view! { <summary::SummaryWidget/> }.into_any(),
        WidgetKind::SelectionSummary => view! { <selection_summary::SelectionSummaryWidget/> }.into_any(),
        WidgetKind::Program => view! { <program::ProgramWidget/> }.into_any(),
        WidgetKind::OperatorViews => view! { <operator_views::OperatorViewsWidget/> }.into_any(),
        WidgetKind::Annotations => view! { <annotations::AnnotationsWidget/> }.into_any(),
        WidgetKind::OperatorTable => view! { <operator_table::OperatorTableWidget/> }.into_any(),
        WidgetKind::Dashboard => view! { <dashboard::DashboardWidget/> }.into_any(),
        WidgetKind::Code => view! { <code::CodeWidget/> }.into_any(),
        WidgetKind::GpuBreakdown => view! { <gpu_breakdown::GpuBreakdownWidget/> }.into_any(),
        WidgetKind::Latency => view! { <latency::LatencyWidget/> }.into_any(),
        WidgetKind::Compare => view! { <compare::CompareWidget/> }.into_any(),
        WidgetKind::CriticalPath => view! { <critical_path::CriticalPathWidget/> }.into_any(),
        WidgetKind::Regions => view! { <regions::RegionsWidget/> }.into_any(),
        WidgetKind::Collectives => view! { <collectives::CollectivesWidget/> }.into_any(),
        WidgetKind::Tensors => view! { <tensors::TensorsWidget/> }.into_any(),
        WidgetKind::RankSummary => view! { <rank_summary::RankSummaryWidget/> }.into_any(),
        WidgetKind::Memory => view! { <memory::MemoryWidget/> }.into_any(),
    }
}
