//! Code: the source files the user dropped with the profile, matched to the debug-info source
//! paths (`loupe_core::analysis::sources`: longest path suffix; ties are reported, not guessed),
//! read-only with line numbers, Python highlighting (`loupe_core::syntax`) and a gutter with the
//! time per line (sum of the durations of the events whose typed `source` is the line).
//!
//! Both ways: selecting an event (timeline click, search paging) switches to its file and marks
//! its line; the view scrolls to it when the file changed or when the click had Ctrl/⌘ held
//! (`AppState::select_modifier`). Clicking a line highlights its events on the timeline
//! (`search_runner::show_events`); Shift/Ctrl/⌘-click adds or removes lines.
//!
//! Only the visible lines are in the DOM (fixed line height, a spacer as tall as the file), so a
//! 2 MB file scrolls like a short one. The matching and the per-line times are computed once per
//! trace / source drop, never per frame.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use loupe_core::analysis::sources::{self as src, DebugFile, LineTime, PathMatch, SourceTimes};
use loupe_core::syntax::{self, LineState, Tok};
use loupe_core::time::format_duration_ns;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::search_runner::show_events;
use crate::sources::{self as picked, SourceFiles};
use crate::state::{use_app_state, AppState, Selection};
use crate::workbench::layout::WidgetKind;

/// Height of one code line, in CSS pixels (must match `.code-line` in style/code.css).
const LINE_H_PX: f64 = 18.0;
/// Lines rendered above and below the visible ones.
const OVERSCAN: usize = 15;

/// Matching of the dropped files to the current trace.
struct Model {
    generation: u64,
    /// per source line; empty until the widget is first on screen for this trace
    times: Arc<SourceTimes>,
    timed: bool,
    files: Vec<DebugFile>,
    sources: Arc<SourceFiles>,
}

#[derive(Clone)]
struct ModelRef(Arc<Model>);
impl PartialEq for ModelRef {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// One dropped file prepared for the view: line byte ranges, highlighter states, line times.
struct FileView {
    idx: usize,
    sources: Arc<SourceFiles>,
    lines: Vec<(usize, usize)>,
    /// Empty when the file is not Python (no highlighting).
    states: Vec<LineState>,
    times: BTreeMap<u32, LineTime>,
    max_ns: i64,
}

#[derive(Clone)]
struct FileRef(Arc<FileView>);
impl PartialEq for FileRef {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

impl FileView {
    fn build(m: &Model, trace: &loupe_core::Trace, idx: usize) -> Option<FileView> {
        let f = m.sources.files.get(idx)?;
        let text = f.text.as_str();
        let mut lines = Vec::new();
        let mut start = 0;
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                let end = if i > start && text.as_bytes()[i - 1] == b'\r' { i - 1 } else { i };
                lines.push((start, end));
                start = i + 1;
            }
        }
        if start < text.len() {
            lines.push((start, text.len()));
        }
        let python =
            f.path.to_ascii_lowercase().ends_with(".py") || f.path.to_ascii_lowercase().ends_with(".pyi");
        let mut states = Vec::new();
        if python {
            let mut st = LineState::Code;
            for &(a, b) in &lines {
                states.push(st);
                st = syntax::tokenize_line(text.get(a..b).unwrap_or(""), st).1;
            }
        }
        let times = src::lines_of(trace, &m.times, &m.files, idx);
        let max_ns = times.values().map(|t| t.total_ns).max().unwrap_or(0);
        Some(FileView { idx, sources: m.sources.clone(), lines, states, times, max_ns })
    }
    fn line_text(&self, i: usize) -> &str {
        let Some(&(a, b)) = self.lines.get(i) else { return "" };
        self.sources.files.get(self.idx).and_then(|f| f.text.get(a..b)).unwrap_or("")
    }
    fn path(&self) -> &str {
        self.sources.files.get(self.idx).map_or("", |f| f.path.as_str())
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn tok_class(t: Tok) -> &'static str {
    match t {
        Tok::Keyword => "tok-kw",
        Tok::Constant => "tok-const",
        Tok::String => "tok-str",
        Tok::Comment => "tok-com",
        Tok::Number => "tok-num",
        Tok::Decorator => "tok-dec",
        Tok::Definition => "tok-def",
    }
}

/// The spans of one highlighted line.
fn code_spans(fv: &FileView, i: usize) -> AnyView {
    let text = fv.line_text(i);
    let Some(&st) = fv.states.get(i) else { return text.to_string().into_any() };
    let (toks, _) = syntax::tokenize_line(text, st);
    let mut out: Vec<AnyView> = Vec::with_capacity(toks.len() * 2 + 1);
    let mut at = 0;
    for (r, t) in toks {
        if r.start > at {
            out.push(text.get(at..r.start).unwrap_or("").to_string().into_any());
        }
        out.push(
            view! { <span class=tok_class(t)>{text.get(r.clone()).unwrap_or("").to_string()}</span> }
                .into_any(),
        );
        at = r.end;
    }
    if at < text.len() {
        out.push(text.get(at..).unwrap_or("").to_string().into_any());
    }
    out.into_any()
}

/// Highlight the events of `lines` of dropped file `idx` on the timeline.
fn highlight_lines(state: AppState, m: &Model, idx: usize, lines: &[u32]) {
    let d = state.data();
    let mask = src::sources_at(&d.trace, &m.files, idx, lines);
    let per_track = src::events_at(&d.trace, &mask);
    let name = m.sources.files.get(idx).map_or("", |f| base_name(&f.path));
    let mut ls: Vec<u32> = lines.to_vec();
    ls.sort_unstable();
    let label = match ls.as_slice() {
        [] => return,
        [one] => format!("{name}:{one}"),
        many if many.len() <= 6 => {
            format!("{name}:{}", many.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
        }
        many => format!("{name}: {} lines", many.len()),
    };
    show_events(state, &label, per_track, true);
}

#[component]
pub fn CodeWidget() -> impl IntoView {
    let state = use_app_state();
    // the time per source line is a pass over every slice (≈ 20 ms in the page on 3 M
    // instructions): made when the widget is on screen, not at every load
    let visible = super::deferred::shown(WidgetKind::Code);
    let model = Memo::new(move |prev: Option<&ModelRef>| {
        let generation = state.generation.get();
        state.sources.track();
        let timed = visible.get() || prev.is_some_and(|p| p.0.timed && p.0.generation == generation);
        let d = state.data();
        let times = match prev.filter(|p| p.0.generation == generation && p.0.timed == timed) {
            Some(p) => p.0.times.clone(),
            None if timed => Arc::new(SourceTimes::build(&d.trace)),
            None => Arc::new(SourceTimes { per_source: vec![LineTime::default(); d.trace.sources.len()] }),
        };
        let sources = state.sources.files();
        let files = src::debug_files(&d.trace, &times, &sources.paths());
        ModelRef(Arc::new(Model { generation, times, timed, files, sources }))
    });
    let active: RwSignal<Option<usize>> = RwSignal::new(None);
    let picked_lines: RwSignal<Vec<u32>> = RwSignal::new(Vec::new());
    let event_line: RwSignal<Option<(usize, u32)>> = RwSignal::new(None);
    let note: RwSignal<Option<String>> = RwSignal::new(None);
    let scroll_top = RwSignal::new(0.0f64);
    let view_h = RwSignal::new(600.0f64);
    let scroll_ref = NodeRef::<leptos::html::Div>::new();

    // keep the active file valid: the busiest matched file, else the first dropped one
    Effect::new(move |_| {
        let m = model.get().0;
        let n = m.sources.files.len();
        if active.get_untracked().is_some_and(|i| i < n) {
            return;
        }
        let first_matched = m.files.iter().find_map(|f| match f.matched {
            PathMatch::File(i) => Some(i),
            _ => None,
        });
        active.set(first_matched.or((n > 0).then_some(0)));
        picked_lines.set(Vec::new());
    });
    let file = Memo::new(move |_| {
        let m = model.get().0;
        let idx = active.get()?;
        let d = state.data();
        FileView::build(&m, &d.trace, idx).map(|f| FileRef(Arc::new(f)))
    });

    let scroll_to_line = move |line: u32| {
        request_animation_frame(move || {
            if let Some(el) = scroll_ref.get_untracked() {
                let h = f64::from(el.client_height());
                let y = (f64::from(line.max(1) - 1) * LINE_H_PX - h / 2.0 + LINE_H_PX / 2.0).max(0.0);
                el.set_scroll_top(y as i32);
                scroll_top.set(f64::from(el.scroll_top()));
                view_h.set(h);
            }
        });
    };

    // the selected event's line: switch to its file, mark the line, scroll when asked
    Effect::new(move |_| {
        let sel = state.view.selection.get();
        let m = model.get().0;
        let modifier = state.view.select_modifier.get_value();
        state.view.select_modifier.set_value(false);
        let Some(Selection::Slice(r)) = sel else {
            event_line.set(None);
            note.set(None);
            return;
        };
        let d = state.data();
        match src::locate(&d.trace, &m.files, r) {
            Some((idx, line)) => {
                let switched = active.get_untracked() != Some(idx);
                if switched {
                    active.set(Some(idx));
                    picked_lines.set(Vec::new());
                }
                event_line.set(Some((idx, line)));
                note.set(None);
                if switched || modifier {
                    scroll_to_line(line);
                }
            }
            None => {
                event_line.set(None);
                let t = &d.trace;
                let loc = t
                    .tracks
                    .get(r.track.idx())
                    .and_then(|tr| tr.slices.domain_of(r.index as usize).source.get())
                    .and_then(|s| t.sources.get(s.idx()));
                note.set(loc.map(|l| {
                    let path = t.str(l.file);
                    let why = match m.files.iter().find(|f| f.file == l.file).map(|f| &f.matched) {
                        Some(PathMatch::Ambiguous(c)) => format!(
                            "several dropped files match it ({}): keep only one",
                            c.iter()
                                .filter_map(|&i| m.sources.files.get(i).map(|f| f.path.as_str()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        _ => format!("drop {} to see it", base_name(path)),
                    };
                    format!("The selected event is at {path}:{}: {why}", l.line)
                }));
            }
        }
    });

    // the view's height (virtualised rendering needs it), kept up to date by a ResizeObserver
    let observer: StoredValue<Option<(web_sys::ResizeObserver, Closure<dyn FnMut(JsValue)>)>, LocalStorage> =
        StoredValue::new_local(None);
    Effect::new(move |_| {
        let Some(el) = scroll_ref.get() else { return };
        if observer.with_value(|o| o.is_some()) {
            return;
        }
        let el2 = el.clone();
        let cb = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            view_h.set(f64::from(el2.client_height()));
        });
        if let Ok(ro) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
            ro.observe(&el);
            observer.set_value(Some((ro, cb)));
        }
    });
    on_cleanup(move || {
        observer.update_value(|o| {
            if let Some((ro, _)) = o.take() {
                ro.disconnect();
            }
        })
    });

    let on_line_click = move |ev: web_sys::MouseEvent, line: u32| {
        let Some(idx) = active.get_untracked() else { return };
        let add = ev.shift_key() || ev.ctrl_key() || ev.meta_key();
        let mut lines = picked_lines.get_untracked();
        if add {
            match lines.iter().position(|&l| l == line) {
                Some(k) => {
                    lines.remove(k);
                }
                None => lines.push(line),
            }
        } else {
            lines = vec![line];
        }
        picked_lines.set(lines.clone());
        if lines.is_empty() {
            crate::search_runner::start_search(state, "");
            return;
        }
        highlight_lines(state, &model.get_untracked().0, idx, &lines);
    };

    let add_files = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        let (srcs, others, mut skipped) = picked::split(picked::picked_from_list(input.files()));
        skipped.extend(
            others
                .iter()
                .map(|f| format!("{}: not a source file (open profiles with “Open trace…”)", f.name())),
        );
        input.set_value("");
        wasm_bindgen_futures::spawn_local(async move {
            let (texts, more) = picked::read(srcs).await;
            skipped.extend(more);
            state.set_sources(state.sources.files().merged(texts, skipped));
        });
    };
    let clear = move |_| {
        active.set(None);
        state.set_sources(SourceFiles::default());
    };

    // file tabs: dropped files named by the debug info first (by time), then the others
    let tabs = move || {
        let m = model.get().0;
        let cur = active.get();
        let mut order: Vec<(usize, LineTime, bool)> = Vec::new();
        for f in &m.files {
            if let PathMatch::File(i) = f.matched {
                match order.iter_mut().find(|o| o.0 == i) {
                    Some(o) => {
                        o.1.count += f.time.count;
                        o.1.total_ns = o.1.total_ns.saturating_add(f.time.total_ns);
                    }
                    None => order.push((i, f.time, true)),
                }
            }
        }
        for i in 0..m.sources.files.len() {
            if !order.iter().any(|o| o.0 == i) {
                order.push((i, LineTime::default(), false));
            }
        }
        order
            .into_iter()
            .map(|(i, t, used)| {
                let path = m.sources.files.get(i).map_or(String::new(), |f| f.path.clone());
                let title = if used {
                    format!("{path} — {} events, {}", t.count, format_duration_ns(t.total_ns))
                } else {
                    format!("{path} — not named by the profile's debug info")
                };
                view! {
                    <button class="code-tab" class:active=cur == Some(i) class:unused=!used
                        data-path=path.clone() title=title on:click=move |_| {
                            if active.get_untracked() != Some(i) {
                                active.set(Some(i));
                                picked_lines.set(Vec::new());
                                scroll_to_line(1);
                            }
                        }>
                        {base_name(&path).to_string()}
                        {used.then(|| view! { <span class="code-tab-time">{format_duration_ns(t.total_ns)}</span> })}
                    </button>
                }
            })
            .collect_view()
    };

    // what is missing: debug-info paths without a file, ties, skipped files
    let notes = move || {
        let m = model.get().0;
        let mut out: Vec<AnyView> = Vec::new();
        if !m.sources.files.is_empty() {
            let missing: Vec<&DebugFile> = m.files.iter().filter(|f| f.matched == PathMatch::None).collect();
            if !missing.is_empty() {
                let names = missing.iter().map(|f| f.path.clone()).collect::<Vec<_>>().join(", ");
                out.push(
                    view! { <p class="code-note" data-testid="code-missing">"Not dropped: "<span class="mono">{names}</span>" — drop the source file to see it"</p> }
                        .into_any(),
                );
            }
        }
        for f in &m.files {
            if let PathMatch::Ambiguous(c) = &f.matched {
                let cands = c
                    .iter()
                    .filter_map(|&i| m.sources.files.get(i).map(|s| s.path.clone()))
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(
                    view! { <p class="code-note code-warn" data-testid="code-ambiguous"><span class="mono">{f.path.clone()}</span>" matches several dropped files ("{cands}"): keep only one"</p> }
                        .into_any(),
                );
            }
        }
        if !m.sources.skipped.is_empty() {
            let all = m.sources.skipped.join("\n");
            let first = m.sources.skipped.first().cloned().unwrap_or_default();
            let more = m.sources.skipped.len() - 1;
            out.push(
                view! { <p class="code-note" data-testid="code-skipped" title=all>"Skipped: "{first}{(more > 0).then(|| format!(" (and {more} more)"))}</p> }
                    .into_any(),
            );
        }
        if let Some(n) = note.get() {
            out.push(
                view! { <p class="code-note code-warn" data-testid="code-event-note">{n}</p> }.into_any(),
            );
        }
        out
    };

    let body = move || {
        let m = model.get().0;
        if m.sources.files.is_empty() {
            let names: Vec<String> = m.files.iter().map(|f| f.path.clone()).collect();
            let why = if names.is_empty() {
                "No source: this profile's events name no source lines (Neuron profiles with their NEFF do). \
                 You can still drop source files to read them here."
                    .to_string()
            } else {
                format!(
                    "No source: drop the .py files your profile was compiled from (debug info names: {})",
                    names.join(", ")
                )
            };
            return view! { <p class="empty-state code-empty" data-testid="code-empty">{why}</p> }.into_any();
        }
        let Some(FileRef(fv)) = file.get() else {
            return view! { <p class="empty-state code-empty">"Choose a file above."</p> }.into_any();
        };
        let n = fv.lines.len();
        let top = scroll_top.get();
        let h = view_h.get().max(LINE_H_PX);
        let first = ((top / LINE_H_PX) as usize).saturating_sub(OVERSCAN).min(n);
        let last = (((top + h) / LINE_H_PX).ceil() as usize + OVERSCAN).min(n);
        let picked = picked_lines.get();
        let ev_line = event_line.get().filter(|(i, _)| *i == fv.idx).map(|(_, l)| l);
        let digits = n.max(1).to_string().len();
        let rows = (first..last)
            .map(|i| {
                let line = (i + 1) as u32;
                let t = fv.times.get(&line).copied();
                let gutter = t.map(|t| {
                    let pct = if fv.max_ns > 0 { t.total_ns as f64 / fv.max_ns as f64 * 100.0 } else { 0.0 };
                    let title = format!(
                        "{} event{}, {} in total",
                        t.count,
                        if t.count == 1 { "" } else { "s" },
                        format_duration_ns(t.total_ns)
                    );
                    view! {
                        <span class="code-time" title=title data-ns=t.total_ns.to_string() data-count=t.count.to_string()>
                            <span class="code-bar" style=format!("width:{pct:.1}%")></span>
                            <span class="code-ns">{format_duration_ns(t.total_ns)}</span>
                        </span>
                    }
                    .into_any()
                });
                view! {
                    <div class="code-line" class:hot=t.is_some() class:picked=picked.contains(&line)
                        class:event=ev_line == Some(line) data-line=line.to_string()
                        style=format!("top:{}px", i as f64 * LINE_H_PX)
                        on:click=move |ev| on_line_click(ev, line)>
                        <span class="code-gutter">{gutter.unwrap_or_else(|| view! { <span class="code-time"></span> }.into_any())}</span>
                        <span class="code-no">{format!("{line:>digits$}")}</span>
                        <span class="code-text">{code_spans(&fv, i)}</span>
                    </div>
                }
            })
            .collect_view();
        view! {
            <div class="code-lines" data-testid="code-lines" data-path=fv.path().to_string()
                style=format!("height:{}px", n as f64 * LINE_H_PX)>
                {rows}
            </div>
        }
        .into_any()
    };

    view! {
        <div class="widget-body code-widget">
            <div class="code-bar-top">
                <div class="code-tabs" role="tablist">{tabs}</div>
                <label class="button button-quiet code-add" title="Add source files (.py, .cc, …)">
                    "Add sources…"
                    <input type="file" multiple data-testid="code-add-sources" on:change=add_files/>
                </label>
                <button class="button button-quiet" title="Forget the dropped source files" on:click=clear
                    disabled=move || model.get().0.sources.files.is_empty()>"Clear"</button>
            </div>
            {notes}
            <div class="code-scroll" data-testid="code-view" node_ref=scroll_ref
                on:scroll=move |_| {
                    // re-render only when the first visible line changes
                    if let Some(el) = scroll_ref.get_untracked() {
                        let top = f64::from(el.scroll_top());
                        if (top / LINE_H_PX).floor() != (scroll_top.get_untracked() / LINE_H_PX).floor() {
                            scroll_top.set(top);
                        }
                        let h = f64::from(el.client_height());
                        if h != view_h.get_untracked() {
                            view_h.set(h);
                        }
                    }
                }>
                {body}
            </div>
        </div>
    }
}
