//! Tensors: every tensor of the loaded NEFF (`loupe_core::analysis::neff_tensors`: subgraph,
//! name, kind, dtype, shape, size), searchable by name and sortable by any column. DMA transfers
//! and bytes per tensor are not shown: the files cannot link a DMA transfer to a tensor (the
//! reason, `neff_tensors::DMA_LINK_MISSING`, is the note above the table). Without a NEFF the
//! empty state says what to drop.

use leptos::prelude::*;
use loupe_core::analysis::neff_tensors::{neff_tensors, TensorRow};

use super::deferred::sort_header;
use crate::state::use_app_state;
use crate::widgets::fmt_bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Subgraph,
    Name,
    Kind,
    Dtype,
    Elements,
    Size,
}

fn elements(r: &TensorRow) -> u64 {
    r.shape.iter().map(|&d| d.max(0) as u64).product()
}

#[component]
pub fn TensorsWidget() -> impl IntoView {
    let state = use_app_state();
    let query = RwSignal::new(String::new());
    let sort = RwSignal::new((Col::Size, true));
    let table = Memo::new(move |_| {
        state.generation.track();
        neff_tensors(&state.data().trace)
    });
    let body = move || {
        let Some(t) = table.get() else {
            return view! {
                <p class="empty-state" data-testid="tensors-empty">"No NEFF loaded. Drop the program's NEFF (with its NTFF) to list its tensors: name, kind, dtype, shape and size. DMA transfers per tensor need what the files do not link (see the note once a NEFF is loaded)."</p>
            }
            .into_any();
        };
        let q = query.get().to_lowercase();
        let mut rows: Vec<TensorRow> =
            t.rows.iter().filter(|r| q.is_empty() || r.name.to_lowercase().contains(&q)).cloned().collect();
        let (col, desc) = sort.get();
        rows.sort_by(|a, b| {
            let o = match col {
                Col::Subgraph => a.subgraph.cmp(&b.subgraph),
                Col::Name => a.name.cmp(&b.name),
                Col::Kind => a.kind.cmp(&b.kind),
                Col::Dtype => a.dtype.cmp(&b.dtype),
                Col::Elements => elements(a).cmp(&elements(b)),
                Col::Size => a.size_bytes.cmp(&b.size_bytes),
            };
            let o = o.then_with(|| a.name.cmp(&b.name));
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        let total = t.rows.len();
        let shown = rows.len();
        let note = t.dma_link.err().unwrap_or("");
        let body = rows
            .into_iter()
            .map(|r| {
                let shape = format!("[{}]", r.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "));
                let size = r.size_bytes.map_or("—".to_string(), fmt_bytes);
                let size_title = r.size_bytes.map_or(format!("unknown: dtype {} has no size here", r.dtype), |b| format!("{b} B"));
                view! {
                    <tr data-tensor=r.name.clone()>
                        <td>{r.subgraph.clone()}</td>
                        <td title=r.name.clone()>{r.name.clone()}</td>
                        <td>{r.kind.clone()}</td>
                        <td>{r.dtype.clone()}</td>
                        <td class="num" title=format!("{} elements", elements(&r))>{shape}</td>
                        <td class="num" data-value=r.size_bytes.map(|b| b.to_string()) title=size_title>{size}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <p class="dim tensors-note" data-testid="tensors-dma-note">{note}</p>
            <p class="dim tensors-count" data-testid="tensors-count">{format!("{shown} of {total} tensors")}</p>
            <table class="grid analysis-table" data-testid="tensors-table">
                <thead><tr>
                    {sort_header(sort, Col::Subgraph, "subgraph", "subgraph", false)}
                    {sort_header(sort, Col::Name, "name", "name", false)}
                    {sort_header(sort, Col::Kind, "kind", "kind", false)}
                    {sort_header(sort, Col::Dtype, "dtype", "dtype", false)}
                    {sort_header(sort, Col::Elements, "shape", "shape", true)}
                    {sort_header(sort, Col::Size, "size", "size", true)}
                </tr></thead>
                <tbody>{body}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll tensors-widget">
            <div class="gpu-toolbar">
                <input type="search" placeholder="filter tensors by name" data-testid="tensors-filter"
                    prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev))/>
            </div>
            {body}
        </div>
    }
}
