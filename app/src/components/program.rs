//! The program view (a compiled program attached to the trace, e.g. a Neuron NEFF): header,
//! subgraphs × engines instruction counts, the operator hierarchy as a lazily expanded tree, the
//! program tables, and the correlation report (trace events → program).

use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::model::{CorrelationReport, Engine, Program, ProgramLevel, Table};

use crate::state::{use_app_state, TraceData};

/// Rows shown per table and children shown per tree node.
pub const ROW_CAP: usize = 500;

fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[component]
pub fn ProgramView() -> impl IntoView {
    let state = use_app_state();
    move || {
        let data = state.tracked_data();
        let t = &data.trace;
        if t.program.is_none() && t.correlation.is_none() {
            return view! { <div class="program-empty">"No program in this trace"</div> }.into_any();
        }
        let correlation = t.correlation.clone().map(|c| correlation_view(&c));
        let program = t.program.as_ref().map(|p| program_view(p, data.clone()));
        view! {
            <div class="program" data-testid="program">
                {correlation}
                {program}
            </div>
        }
        .into_any()
    }
}

fn program_view(p: &Program, data: Arc<TraceData>) -> AnyView {
    let kind = p.kind.label();
    let title = if p.name.is_empty() { kind.to_string() } else { format!("{kind} · {}", p.name) };
    let header = p
        .header
        .fields
        .iter()
        .map(|(k, v)| view! { <tr><th>{k.clone()}</th><td>{v.clone()}</td></tr> })
        .collect_view();
    // subgraphs × engines
    let mut engines: Vec<Engine> = Vec::new();
    for sg in &p.subgraphs {
        for &(e, _) in &sg.engines {
            if !engines.contains(&e) {
                engines.push(e);
            }
        }
    }
    let subgraphs = (!p.subgraphs.is_empty()).then(|| {
        let head = engines.iter().map(|e| view! { <th class="num">{e.name()}</th> }).collect_view();
        let mut totals = vec![0u64; engines.len()];
        let rows = p
            .subgraphs
            .iter()
            .map(|sg| {
                let cells = engines
                    .iter()
                    .enumerate()
                    .map(|(i, &e)| {
                        let n = sg.instructions(e);
                        totals[i] += n;
                        view! { <td class="num">{fmt_count(n)}</td> }
                    })
                    .collect_view();
                let total: u64 = sg.engines.iter().map(|(_, c)| c).sum();
                view! { <tr><th>{sg.name.clone()}</th>{cells}<td class="num total">{fmt_count(total)}</td></tr> }
            })
            .collect_view();
        let foot = (p.subgraphs.len() > 1).then(|| {
            let grand: u64 = totals.iter().sum();
            let cells = totals.iter().map(|n| view! { <td class="num">{fmt_count(*n)}</td> }).collect_view();
            view! { <tr class="total"><th>"total"</th>{cells}<td class="num">{fmt_count(grand)}</td></tr> }
        });
        view! {
            <section class="prog-section" data-testid="program-subgraphs">
                <h3>"Instructions per subgraph and engine"</h3>
                <div class="table-scroll">
                    <table class="prog-table">
                        <thead><tr><th>"subgraph"</th>{head}<th class="num">"total"</th></tr></thead>
                        <tbody>{rows}{foot}</tbody>
                    </table>
                </div>
            </section>
        }
    });
    let hierarchy = (!p.hierarchy.is_empty()).then(|| hierarchy_view(p, data));
    let tables = p.tables.iter().map(table_view).collect_view();
    view! {
        <h2 class="prog-title">{title}</h2>
        <section class="prog-section">
            <h3>"Header"</h3>
            <table class="prog-kv" data-testid="program-header"><tbody>{header}</tbody></table>
        </section>
        {subgraphs}
        {hierarchy}
        {tables}
    }
    .into_any()
}

fn table_view(t: &Table) -> AnyView {
    let n = t.rows.len();
    let summary = format!("{} ({} row{})", t.name, fmt_count(n as u64), if n == 1 { "" } else { "s" });
    let head = t.columns.iter().map(|c| view! { <th>{c.clone()}</th> }).collect_view();
    let rows = t
        .rows
        .iter()
        .take(ROW_CAP)
        .map(|r| {
            let cells = r.iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    let note = (n > ROW_CAP).then(|| view! { <p class="hint">{format!("showing the first {ROW_CAP} of {} rows", fmt_count(n as u64))}</p> });
    view! {
        <details class="prog-section prog-table-section" data-testid="program-table" open={n <= 20}>
            <summary>{summary}</summary>
            <div class="table-scroll">
                <table class="prog-table">
                    <thead><tr>{head}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {note}
        </details>
    }
    .into_any()
}

fn hierarchy_view(p: &Program, data: Arc<TraceData>) -> AnyView {
    let mut kids: Vec<Vec<u32>> = vec![Vec::new(); p.hierarchy.len()];
    let mut roots = Vec::new();
    for (i, n) in p.hierarchy.iter().enumerate() {
        match n.parent {
            Some(pi) if (pi as usize) < kids.len() && pi as usize != i => kids[pi as usize].push(i as u32),
            _ => roots.push(i as u32),
        }
    }
    let kids = Arc::new(kids);
    let levels = {
        // the levels present, outermost first (roots may start at any level)
        let l: Vec<&str> = ProgramLevel::ALL
            .iter()
            .filter(|&&l| p.hierarchy.iter().any(|n| n.level == l))
            .map(|l| l.name())
            .collect();
        l.join(" → ")
    };
    let count = p.hierarchy.len();
    let list = node_list(data, kids, roots, 0);
    view! {
        <section class="prog-section" data-testid="program-hierarchy">
            <h3>{format!("Operator hierarchy ({levels}; {} nodes)", fmt_count(count as u64))}</h3>
            <div class="op-head"><span>"operator"</span><span class="num">"instructions"</span><span>"source"</span><span></span></div>
            {list}
        </section>
    }
    .into_any()
}

fn node_list(data: Arc<TraceData>, kids: Arc<Vec<Vec<u32>>>, ids: Vec<u32>, depth: usize) -> AnyView {
    let n = ids.len();
    let items =
        ids.into_iter().take(ROW_CAP).map(|i| tree_node(data.clone(), kids.clone(), i, depth)).collect_view();
    let note = (n > ROW_CAP).then(|| view! { <li class="hint">{format!("… {} more", n - ROW_CAP)}</li> });
    view! { <ul class="op-tree">{items}{note}</ul> }.into_any()
}

fn tree_node(data: Arc<TraceData>, kids: Arc<Vec<Vec<u32>>>, i: u32, depth: usize) -> AnyView {
    let Some(node) = data.trace.program.as_ref().and_then(|p| p.hierarchy.get(i as usize)) else {
        return ().into_any();
    };
    let children = kids[i as usize].clone();
    let has_kids = !children.is_empty();
    let open = RwSignal::new(depth == 0 && has_kids);
    let level = node.level.name();
    let level_attr = node.level.name();
    let name = node.name.clone();
    let count = fmt_count(node.instructions);
    let source = node.source.clone();
    let attrs = node.attrs.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("\n");
    let title = if attrs.is_empty() { name.clone() } else { format!("{name}\n{attrs}") };
    let pad = format!("padding-left:{}px", depth * 14);
    let state = crate::state::use_app_state();
    // the search field of this level: the trace's operator tree has the same levels
    // (an instruction leaf has no field of its own: its events are those of its BIR parent)
    let field = match node.level {
        ProgramLevel::Hlo => Some("hlo"),
        ProgramLevel::Instruction | ProgramLevel::Unattributed => None,
        ProgramLevel::Framework | ProgramLevel::Penguin | ProgramLevel::Bir => Some("operator"),
    };
    let name_q = node.name.clone();
    let sub = move || open.get().then(|| node_list(data.clone(), kids.clone(), children.clone(), depth + 1));
    view! {
        <li class="op-node" data-level=level_attr>
            <div class="op-row" style=pad title=title>
                <button class="op-toggle" disabled={!has_kids} aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                    {move || if !has_kids { "·" } else if open.get() { "▾" } else { "▸" }}
                </button>
                <span class="op-level">{level}</span>
                <span class="op-name">{name}</span>
                <span class="num op-count">{count}</span>
                <span class="op-source" title=source.clone()>{source.clone()}</span>
                {field.map(|field| view! {
                    <button class="link op-show" title="Highlight this operator's events on the timeline (runs a search)"
                        on:click=move |_| {
                            let q = format!("{}:\"{}\"", field, name_q.replace('"', ""));
                            crate::search_runner::start_search(state, &q);
                        }>"events"</button>
                })}
            </div>
            {sub}
        </li>
    }
    .into_any()
}

pub fn correlation_view(c: &CorrelationReport) -> AnyView {
    let events = c.events;
    let levels = c
        .levels
        .iter()
        .map(|(level, n)| {
            let pct = if events == 0 { 0.0 } else { *n as f64 / events as f64 * 100.0 };
            let bar = format!("width:{:.1}%", pct.clamp(0.0, 100.0));
            view! {
                <tr>
                    <th>{level.clone()}</th>
                    <td class="num">{fmt_count(*n)}</td>
                    <td class="num">{format!("{pct:.1}%")}</td>
                    <td class="pct-cell"><div class="pct-bar"><div class="pct-fill" style=bar></div></div></td>
                </tr>
            }
        })
        .collect_view();
    let unmatched = (!c.unmatched.is_empty()).then(|| {
        let items = c
            .unmatched
            .iter()
            .map(|(r, n)| view! { <li><strong>{fmt_count(*n)}</strong>" × "{r.clone()}</li> })
            .collect_view();
        view! { <h4>"Not matched"</h4><ul class="corr-list">{items}</ul> }
    });
    let notes = (!c.notes.is_empty()).then(|| {
        let items = c.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view();
        view! { <h4>"Notes"</h4><ul class="corr-list corr-notes">{items}</ul> }
    });
    view! {
        <section class="prog-section correlation" data-testid="correlation">
            <h3>{format!("Correlation: {} trace events → program", fmt_count(events))}</h3>
            <table class="prog-table corr-table">
                <thead><tr><th>"level reached"</th><th class="num">"events"</th><th class="num">"%"</th><th></th></tr></thead>
                <tbody>{levels}</tbody>
            </table>
            {unmatched}
            {notes}
        </section>
    }
    .into_any()
}

/// Free-form trace metadata (file header fields, versions, …) as a collapsible banner.
#[component]
pub fn MetadataBanner() -> impl IntoView {
    let state = use_app_state();
    move || {
        let data = state.tracked_data();
        let m = &data.trace.metadata.entries;
        (!m.is_empty()).then(|| {
            let summary = format!("Metadata ({} entr{})", m.len(), if m.len() == 1 { "y" } else { "ies" });
            let rows = m
                .iter()
                .map(|(k, v)| view! { <tr><th>{k.clone()}</th><td>{v.clone()}</td></tr> })
                .collect_view();
            view! {
                <details class="banner banner-info" data-testid="metadata">
                    <summary>{summary}</summary>
                    <table class="prog-kv"><tbody>{rows}</tbody></table>
                </details>
            }
        })
    }
}
