//! Operator Table: the profile's slices aggregated into a tree (operators → instructions for a
//! device profile, call tree → launched kernels for Kineto, else by name; see
//! `loupe_core::analysis::operators`), with count, total / self time, % of total, time per engine
//! (or on the device), FLOPs, "MFU while it runs" and "MFU over the profile" (two measures, two
//! names: `loupe_core::analysis::measures`) and DMA bytes. Semaphore waits are left out of a
//! device profile's rows (waiting, not compute) unless "include waits" is on. Rows expand progressively (only expanded rows are
//! rendered, long child lists end in "show N more"), headers sort, a filter keeps the matches with
//! their ancestors. Click a row: its events are highlighted on the timeline (the search service's
//! `show_events`); double-click: the timeline zooms to them.
//!
//! The table is built once per trace, grouping and "include waits", after the load and only while
//! the widget is shown, in steps between frames (`OpTableBuild`), and kept until the next load.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use loupe_core::analysis::measures::{ENGINE_WAITING, MFU_OVER_THE_PROFILE, MFU_WHILE_IT_RUNS};
use loupe_core::analysis::operators::{
    self, Filter, Hierarchy, OpTable, OpTableBuild, RowKind, SortKey, NO_ROW,
};
use loupe_core::time::format_duration_ns;

use crate::search_runner::show_events;
use crate::state::{use_app_state, ViewRequest};
use crate::widgets::fmt_bytes;
use crate::workbench::layout::WidgetKind;

/// Children shown per expanded row before "show more" (and per click on it).
const PAGE: usize = 50;
/// Rows auto-opened to show filter matches.
const MAX_AUTO_OPEN: usize = 400;
/// Work of the table's build per task before the page yields to the browser (ms).
const STEP_MS: f64 = 12.0;
/// Units of work (slices visited, events placed) per [`OpTableBuild::step`] call; the clock is
/// read between calls.
const UNITS_PER_CALL: usize = 32_768;

struct Built {
    generation: u64,
    /// The grouping asked for (`None` = the profile's default).
    requested: Option<Hierarchy>,
    /// Semaphore waits counted as rows.
    include_waits: bool,
    table: OpTable,
}

enum Line {
    Row { id: u32, depth: u16 },
    More { parent: u32, remaining: usize, depth: u16 },
}

fn fmt_flops(f: u64) -> String {
    let x = f as f64;
    if x >= 1e12 {
        format!("{:.2} TFLOP", x / 1e12)
    } else if x >= 1e9 {
        format!("{:.2} GFLOP", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2} MFLOP", x / 1e6)
    } else {
        format!("{f} FLOP")
    }
}

fn sort_name(k: SortKey) -> String {
    match k {
        SortKey::Name => "name".into(),
        SortKey::Count => "count".into(),
        SortKey::Total => "total".into(),
        SortKey::SelfTime => "self".into(),
        SortKey::Lane(l) => format!("lane-{l}"),
        SortKey::Flops => "flops".into(),
        SortKey::Mfu => "mfu".into(),
        SortKey::MfuOverProfile => "mfu-profile".into(),
        SortKey::DmaBytes => "dma".into(),
    }
}

/// The grouping to build: the one asked for, else the profile's default.
fn requested_or(h: Option<Hierarchy>, trace: &loupe_core::Trace) -> Hierarchy {
    h.unwrap_or_else(|| operators::available(trace).first().copied().unwrap_or(Hierarchy::Name))
}

#[component]
pub fn OperatorTableWidget() -> impl IntoView {
    let state = use_app_state();
    let built: StoredValue<Option<Arc<Built>>> = StoredValue::new(None);
    // bumped when `built` changes
    let version = RwSignal::new(0u64);
    let computing = RwSignal::new(false);
    // None = the profile's default grouping
    let hierarchy = RwSignal::new(None::<Hierarchy>);
    let expanded = RwSignal::new(HashSet::<u32>::new());
    let limits = RwSignal::new(HashMap::<u32, usize>::new());
    let sort = RwSignal::new((SortKey::Total, true));
    let filter_text = RwSignal::new(String::new());
    let filter = RwSignal::new(None::<Arc<Filter>>);
    let selected = RwSignal::new(None::<u32>);
    // semaphore waits are waiting, not compute: left out unless asked for
    let include_waits = RwSignal::new(false);
    let debounce: StoredValue<Option<Timeout>, LocalStorage> = StoredValue::new_local(None);

    // a new trace: back to the default grouping
    Effect::new(move |prev: Option<u64>| {
        let g = state.generation.get();
        if prev.is_some_and(|p| p != g) {
            hierarchy.set(None);
            filter_text.set(String::new());
        }
        g
    });
    // build the table off the frame path, once per trace and grouping, and only while the
    // widget is on screen (not at load time behind another tab); in steps of about STEP_MS
    // between which the page yields to the browser (one pass over 10 M slices was a
    // 0.7 s task), a newer request abandoning the run
    let visible = super::deferred::shown(WidgetKind::OperatorTable);
    let run: StoredValue<u64> = StoredValue::new(0);
    Effect::new(move |_| {
        let generation = state.generation.get();
        let h = hierarchy.get();
        let w = include_waits.get();
        let id = run.get_value() + 1;
        run.set_value(id);
        if !visible.get() {
            return;
        }
        if built.with_value(|b| {
            b.as_ref().is_some_and(|b| b.generation == generation && b.requested == h && b.include_waits == w)
        }) {
            computing.set(false);
            return;
        }
        computing.set(true);
        leptos::task::spawn_local(async move {
            // the spinner first
            crate::platform::timeout(30).await;
            // the widget may have been closed (or the layout changed) since: its signals are gone
            let current =
                || run.try_get_value() == Some(id) && state.generation.get_untracked() == generation;
            if !current() {
                return;
            }
            let d = state.data();
            let options = operators::Options { include_waits: w };
            let mut b = OpTableBuild::new(&d.trace, requested_or(h, &d.trace), options);
            loop {
                let s0 = crate::platform::now_ms();
                while crate::platform::now_ms() - s0 < STEP_MS {
                    if let Some(table) = b.step(&d.trace, UNITS_PER_CALL) {
                        built.set_value(Some(Arc::new(Built {
                            generation,
                            requested: h,
                            include_waits: w,
                            table,
                        })));
                        expanded.set(HashSet::new());
                        limits.set(HashMap::new());
                        selected.set(None);
                        computing.set(false);
                        version.update(|v| *v += 1);
                        return;
                    }
                }
                crate::platform::yield_now().await;
                if !current() {
                    return;
                }
            }
        });
    });
    // the filter: recomputed when the text or the table changes; opens the rows leading to matches
    Effect::new(move |_| {
        version.track();
        let text = filter_text.get();
        let Some(b) = built.get_value() else { return };
        if text.trim().is_empty() {
            filter.set(None);
            return;
        }
        let d = state.data();
        let f = b.table.filter(&d.trace, &text);
        let open: HashSet<u32> = f
            .match_below
            .iter()
            .enumerate()
            .filter(|(_, &m)| m)
            .map(|(r, _)| r as u32)
            .take(MAX_AUTO_OPEN)
            .collect();
        expanded.set(open);
        filter.set(Some(Arc::new(f)));
    });

    let current = move || -> Option<Arc<Built>> {
        version.track();
        built.get_value().filter(|b| b.generation == state.generation.get_untracked())
    };

    let highlight = move |id: u32| {
        let Some(b) = built.get_value() else { return };
        let d = state.data();
        selected.set(Some(id));
        let per_track = b.table.events_per_track(id, d.trace.tracks.len());
        let label = format!("Operator Table: {}", b.table.name(&d.trace, id));
        show_events(state, &label, per_track, false);
    };
    let zoom = move |id: u32| {
        let Some(b) = built.get_value() else { return };
        let d = state.data();
        if let Some((t0, t1)) = b.table.extent(&d.trace, id) {
            let margin = ((t1 - t0) / 20).max(50);
            state.view.request.set(Some(ViewRequest::Range {
                t0_ns: t0.saturating_sub(margin),
                t1_ns: t1.saturating_add(margin),
            }));
        }
    };
    let toggle = move |id: u32| {
        expanded.update(|e| {
            if !e.remove(&id) {
                e.insert(id);
            }
        })
    };

    let on_filter = move |ev: web_sys::Event| {
        let v = event_target_value(&ev);
        debounce.set_value(Some(Timeout::new(150, move || filter_text.set(v))));
    };

    let body = move || {
        let d = state.tracked_data();
        if d.trace.slice_count() == 0 {
            return view! {
                <p class="ot-empty" data-testid="optable-empty">
                    "No slices in this profile, so nothing to aggregate: the Operator Table groups the \
                     timeline's events (instructions, CPU ops, kernels). A compiled program alone (NEFF) \
                     has none; open its profile (NTFF) with it."
                </p>
            }
            .into_any();
        }
        let Some(b) = current() else {
            return view! { <p class="ot-empty" data-testid="optable-computing">"Aggregating events…"</p> }
                .into_any();
        };
        let t = &b.table;
        let tr = &d.trace;
        let avail = operators::available(tr);
        let hier_select = {
            let cur = t.hierarchy;
            view! {
                <select class="ot-hier" data-testid="optable-hierarchy" aria-label="Group rows by"
                    on:change=move |ev| hierarchy.set(Hierarchy::from_key(&event_target_value(&ev)))>
                    {avail.iter().map(|&h| view! {
                        <option value=h.key() selected=h == cur>{h.label()}</option>
                    }).collect_view()}
                </select>
            }
        };
        // columns
        let show_flops = t.has_flops;
        let show_mfu = t.has_flops && t.peak_flops.is_some();
        let show_mfu_profile = t.profile_time_s.is_some();
        let show_dma = t.dma.attributed_bytes > 0;
        let mut cols: Vec<(SortKey, String, &'static str)> = vec![
            (SortKey::Name, "name".into(), "Row name (click ▸ to expand)"),
            (SortKey::Count, "count".into(), "Occurrences (events of this row; for groups, of all rows under it)"),
            (SortKey::Total, "total".into(), "Total time of the row's events"),
            (SortKey::SelfTime, "self".into(), "Total minus the time of nested CPU slices; for operators, the time of their own instructions"),
            (SortKey::Total, "%".into(), "Share of all host (or device) time"),
        ];
        for (l, lane) in t.lanes.iter().enumerate() {
            cols.push((SortKey::Lane(l), lane.name().to_string(), "Time on this engine / on the device"));
        }
        if show_flops {
            cols.push((SortKey::Flops, "FLOPs".into(), "FLOPs of the row's matrix instructions"));
        }
        if show_mfu {
            cols.push((SortKey::Mfu, MFU_WHILE_IT_RUNS.label.into(), MFU_WHILE_IT_RUNS.text));
            if show_mfu_profile {
                cols.push((
                    SortKey::MfuOverProfile,
                    MFU_OVER_THE_PROFILE.label.into(),
                    MFU_OVER_THE_PROFILE.text,
                ));
            }
        }
        if show_dma {
            cols.push((SortKey::DmaBytes, "DMA".into(), "Bytes moved by DMA attributed to the row"));
        }
        let (skey, desc) = sort.get();
        let header = cols
            .iter()
            .enumerate()
            .map(|(i, (k, label, title))| {
                let k = *k;
                // the % column sorts like total, but only one header shows the arrow
                let active = k == skey && !(i == 4 && k == SortKey::Total);
                let arrow = if active { if desc { " ▼" } else { " ▲" } } else { "" };
                let aria = if active { if desc { "descending" } else { "ascending" } } else { "none" };
                let cls = if i == 0 { "ot-h-name" } else { "num" };
                view! {
                    <th class=cls aria-sort=aria title=*title>
                        <button class="ot-sort" data-testid="optable-sort" data-key=sort_name(k) data-active=active.to_string()
                            on:click=move |_| sort.update(|s| {
                                if s.0 == k { s.1 = !s.1 } else { *s = (k, k != SortKey::Name) }
                            })>
                            {label.clone()}{arrow}
                        </button>
                    </th>
                }
            })
            .collect_view();
        // the visible lines: roots, then the children of expanded rows, each list sorted and capped
        let f = filter.get();
        let open = expanded.get();
        let lim = limits.get();
        let visible = |r: u32| f.as_ref().is_none_or(|f| f.visible.get(r as usize).copied().unwrap_or(false));
        let mut lines: Vec<Line> = Vec::new();
        let list = |parent: u32| -> Vec<u32> {
            let ids: Vec<u32> =
                if parent == NO_ROW { t.roots().to_vec() } else { t.children(parent).to_vec() };
            let mut ids: Vec<u32> = ids.into_iter().filter(|&r| visible(r)).collect();
            t.sort(tr, &mut ids, skey, desc);
            ids
        };
        // depth-first with an explicit stack of (parent, sorted children, next index)
        let mut stack: Vec<(u32, Vec<u32>, usize)> = vec![(NO_ROW, list(NO_ROW), 0)];
        while let Some((parent, ids, next)) = stack.last_mut() {
            let cap = lim.get(parent).copied().unwrap_or(PAGE);
            if *next >= ids.len() || *next >= cap {
                if *next < ids.len() {
                    let depth = if *parent == NO_ROW { 0 } else { t.row(*parent).map_or(0, |r| r.depth + 1) };
                    lines.push(Line::More { parent: *parent, remaining: ids.len() - *next, depth });
                }
                stack.pop();
                continue;
            }
            let id = ids[*next];
            *next += 1;
            let depth = t.row(id).map_or(0, |r| r.depth);
            lines.push(Line::Row { id, depth });
            if open.contains(&id) && !t.children(id).is_empty() {
                let kids = list(id);
                stack.push((id, kids, 0));
            }
        }
        let sel = selected.get();
        let lanes = t.lanes.len();
        // operator names from a NEFF of another program (typed flag on the device): marked
        let unverified = tr.unverified_attribution();
        let mark = loupe_core::model::Attribution::UNVERIFIED;
        let rows_view = lines
            .into_iter()
            .map(|line| match line {
                Line::More { parent, remaining, depth } => {
                    let pad = format!("padding-left:{}px", 8 + depth as usize * 14);
                    view! {
                        <tr class="ot-more-row">
                            <td colspan=cols.len().to_string() style=pad>
                                <button class="link" data-testid="optable-more" on:click=move |_| limits.update(|l| {
                                    let e = l.entry(parent).or_insert(PAGE);
                                    *e += PAGE * 4;
                                })>{format!("show {} more…", remaining.min(PAGE * 4))}</button>
                                <span class="ot-dim">{format!(" ({remaining} not shown)")}</span>
                            </td>
                        </tr>
                    }
                    .into_any()
                }
                Line::Row { id, depth } => {
                    let Some(row) = t.row(id) else { return ().into_any() };
                    let name = t.name(tr, id).into_owned();
                    let has_kids = !t.children(id).is_empty();
                    let is_open = open.contains(&id);
                    let frac = t.fraction(id);
                    let kind = row.kind;
                    let marked = unverified && matches!(kind, RowKind::Operator(_));
                    let kind_cls = match kind {
                        RowKind::Operator(_) => "ot-k-op",
                        RowKind::Instruction => "ot-k-ins",
                        RowKind::HostOp => "ot-k-cpu",
                        RowKind::DeviceOp => "ot-k-dev",
                        RowKind::Group | RowKind::Category => "ot-k-group",
                        RowKind::Name => "ot-k-name",
                    };
                    let matched = f.as_ref().is_some_and(|f| {
                        f.visible.get(id as usize).copied().unwrap_or(false)
                            && name.to_lowercase().contains(filter_text.get_untracked().trim().to_lowercase().as_str())
                    });
                    let pad = format!("padding-left:{}px", 4 + depth as usize * 14);
                    let toggle_btn = if has_kids {
                        view! {
                            <button class="ot-toggle" data-testid="optable-toggle" aria-expanded=is_open.to_string()
                                aria-label=if is_open { "collapse" } else { "expand" }
                                on:click=move |ev| { ev.stop_propagation(); toggle(id) }
                                on:dblclick=move |ev| ev.stop_propagation()>
                                {if is_open { "▾" } else { "▸" }}
                            </button>
                        }
                        .into_any()
                    } else {
                        view! { <span class="ot-toggle ot-leaf"></span> }.into_any()
                    };
                    let lane_cells = (0..lanes)
                        .map(|l| {
                            let v = t.lane_ns(id, l);
                            view! { <td class="num">{if v > 0 { format_duration_ns(v) } else { String::new() }}</td> }
                        })
                        .collect_view();
                    let flops_cell = show_flops.then(|| {
                        view! { <td class="num">{if row.flops > 0 { fmt_flops(row.flops) } else { String::new() }}</td> }
                    });
                    let mfu_cell = show_mfu.then(|| {
                        let m = t.mfu(id);
                        view! { <td class="num" data-metric=MFU_WHILE_IT_RUNS.key data-value=m.map(|m| (m * 100.0).to_string())>{m.map(|m| format!("{:.1} %", m * 100.0)).unwrap_or_default()}</td> }
                    });
                    let mfu_profile_cell = (show_mfu && show_mfu_profile).then(|| {
                        let m = t.mfu_over_profile(id);
                        view! { <td class="num" data-metric=MFU_OVER_THE_PROFILE.key data-value=m.map(|m| (m * 100.0).to_string())>{m.map(|m| format!("{:.3} %", m * 100.0)).unwrap_or_default()}</td> }
                    });
                    let dma_cell = show_dma.then(|| {
                        view! { <td class="num">{if row.dma_bytes > 0 { fmt_bytes(row.dma_bytes) } else { String::new() }}</td> }
                    });
                    let title = format!("{name} ({})", kind.name());
                    let data_name = name.clone();
                    view! {
                        <tr class="ot-row" class:ot-selected=sel == Some(id) class:ot-match=matched
                            data-testid="optable-row" data-id=id.to_string() data-name=data_name
                            data-depth=depth.to_string() data-count=row.count.to_string()
                            data-total-ns=row.total_ns.to_string() data-unverified=marked.to_string()
                            on:click=move |_| highlight(id) on:dblclick=move |_| zoom(id)>
                            <td class="ot-name" style=pad title=title>
                                {toggle_btn}
                                <span class=format!("ot-label {kind_cls}")>{name}</span>
                                {marked.then(|| view! { " " <span class="unverified" data-testid="unverified">{mark}</span> })}
                            </td>
                            <td class="num">{row.count.to_string()}</td>
                            <td class="num">{format_duration_ns(row.total_ns)}</td>
                            <td class="num">{format_duration_ns(row.self_ns)}</td>
                            <td class="num ot-pct">
                                <span class="ot-bar" style=format!("width:{:.1}%", (frac * 100.0).clamp(0.0, 100.0))></span>
                                <span class="ot-pct-text">{format!("{:.1} %", frac * 100.0)}</span>
                            </td>
                            {lane_cells}
                            {flops_cell}
                            {mfu_cell}
                            {mfu_profile_cell}
                            {dma_cell}
                        </tr>
                    }
                    .into_any()
                }
            })
            .collect_view();
        // what the numbers are, and what they leave out
        let mut notes: Vec<String> = Vec::new();
        let totals = match (t.host_total_ns > 0, t.device_total_ns > 0) {
            (true, true) => format!(
                "host {} · device {}",
                format_duration_ns(t.host_total_ns),
                format_duration_ns(t.device_total_ns)
            ),
            (false, true) => format!("instruction time {}", format_duration_ns(t.device_total_ns)),
            _ => format!("sliced time {}", format_duration_ns(t.host_total_ns)),
        };
        if t.dma.unattributed_bytes > 0 {
            notes.push(format!(
                "DMA: {} in {} packets not attributed to operators (the profile names no operator on its DMA packets)",
                fmt_bytes(t.dma.unattributed_bytes),
                t.dma.unattributed_packets
            ));
        }
        if t.hierarchy == Hierarchy::Operators && !t.has_flops {
            notes.push("FLOPs: not stated by this profile (an NTFF alone has none)".into());
        } else if t.has_flops && t.peak_flops.is_none() {
            notes.push("MFU: the device's peak FLOP/s is unknown (no instance type)".into());
        }
        if t.waits.count > 0 {
            notes.push(format!(
                "{} semaphore waits ({}) are not rows: waiting, not compute (\"include waits\" counts them)",
                t.waits.count,
                format_duration_ns(t.waits.ns)
            ));
        }
        if t.skipped_slices > 0 && t.hierarchy == Hierarchy::Operators {
            notes.push(format!("{} slices of non-engine tracks (DMA, …) are not rows", t.skipped_slices));
        }
        let unverified_note = unverified.then(|| {
            view! {
                <p class="ot-note unverified" data-testid="optable-unverified">
                    {format!("Operator names are {mark}: the NEFF loaded is not the one this capture was made from.")}
                </p>
            }
        });
        let matches = f.as_ref().map(|f| f.matches);
        view! {
            <div class="ot-bar-top">
                {hier_select}
                <input type="search" class="ot-filter" data-testid="optable-filter" placeholder="Filter rows by name"
                    aria-label="Filter rows by name" spellcheck="false" autocomplete="off"
                    prop:value=move || filter_text.get_untracked() on:input=on_filter/>
                {(t.hierarchy == Hierarchy::Operators).then(|| view! {
                    <label class="ot-dim" title=ENGINE_WAITING.text>
                        <input type="checkbox" data-testid="optable-include-waits" prop:checked=move || include_waits.get()
                            on:change=move |e| include_waits.set(event_target_checked(&e))/>
                        " include waits"
                    </label>
                })}
                <span class="ot-dim" data-testid="optable-status">
                    {format!("{} rows · {} events · {totals}", t.rows.len(), t.event_count)}
                    {matches.map(|m| format!(" · {m} match{}", if m == 1 { "" } else { "es" }))}
                </span>
            </div>
            {unverified_note}
            {notes.into_iter().map(|n| view! { <p class="ot-note">{n}</p> }).collect_view()}
            <table class="grid ot-table" data-testid="optable-table" data-hierarchy=t.hierarchy.key()
                data-sort=sort_name(skey) data-desc=desc.to_string()>
                <thead><tr>{header}</tr></thead>
                <tbody>{rows_view}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll operator-table" class:ot-busy=move || computing.get()>
            {body}
        </div>
    }
}
