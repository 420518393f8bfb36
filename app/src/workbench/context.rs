//! The workbench's shared state (a Leptos context): the layout, whether the user changed it, the
//! layout's name, the tab being dragged. Apart from the Workbench component (`mod.rs`) so that
//! what reads it — widgets that wait for their tab ([`crate::widgets::deferred`]), deep links —
//! sits below the component that mounts them.

use leptos::prelude::*;

use super::layout::{Node, WidgetKind};

/// Shared workbench state (context).
#[derive(Clone, Copy)]
pub struct WorkbenchState {
    pub layout: RwSignal<Node>,
    /// The user changed the layout or chose a named one: keep it across profiles.
    pub customised: RwSignal<bool>,
    /// Name of the layout last saved or loaded.
    pub name: RwSignal<Option<String>>,
    /// A widget tab is being dragged.
    pub dragging: RwSignal<Option<WidgetKind>>,
}

impl WorkbenchState {
    pub(crate) fn edit(&self, f: impl FnOnce(&mut Node)) {
        self.layout.update(f);
        self.customised.set(true);
    }
}
