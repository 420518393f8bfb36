//! Leptos components. The canvas timeline lives in `crate::canvas`.

pub mod cache_controls;
pub mod clock_align;
pub mod details;
pub mod help;
pub mod menus;
pub mod program;
pub mod progress;
pub mod share_menu;
pub mod shell;
pub mod summary_tables;
pub mod tooltip;
pub mod warning_bands;
pub mod warnings;
