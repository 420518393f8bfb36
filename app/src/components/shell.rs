//! The app shell: header (open button, source, stats), progress, errors, warnings, the timeline
//! and the details panel; file drag-and-drop anywhere on the page; `<body data-loupe-state>`.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::canvas::scheduler::Scheduler;
use crate::canvas::timeline::TimelineHandle;
use crate::components::help::HelpPanel;
use crate::components::program::MetadataBanner;
use crate::components::progress::ProgressBar;
use crate::components::warnings::{EvidenceBanner, WarningsBanner};
use crate::dom::{self, listen, Listener};
use crate::loader::{self, LoadEvent, LoadHandle, LoaderMode};
use crate::sources;
use crate::state::{AppState, LoadPhase, LoadProgress, LoadStatus, TraceData};
use crate::workbench::Workbench;

fn demo_data() -> TraceData {
    TraceData::new(loupe_core::demo::demo_trace(), "demo".into(), true, 0.0)
}

/// The whole app. `loader` chooses where parsing runs (default: a Web Worker).
#[component]
pub fn App(#[prop(optional)] loader: Option<LoaderMode>) -> impl IntoView {
    let mode = StoredValue::new(loader.unwrap_or_default());
    let embedded = crate::embed::embedded();
    let state = AppState::new(demo_data());
    provide_context(state);
    let (load_status, load_w) = LoadStatus::new();
    provide_context(load_status);
    // a file is being dragged over the page (the shell's own: nothing else reads it)
    let drag_over = RwSignal::new(false);
    crate::theme::install();
    provide_context(SendWrapper::new(Scheduler::new()));
    provide_context(SendWrapper::new(std::rc::Rc::new(crate::state::ViewportBus::default())));
    let timeline = TimelineHandle(StoredValue::new_local(None));
    provide_context(timeline);
    let job: StoredValue<Option<LoadHandle>, LocalStorage> = StoredValue::new_local(None);
    // bumped by every load: a load whose page-side steps are still running when another starts
    // does not install
    let load_seq = StoredValue::new(0u64);

    let load_profiles = move |files: Vec<web_sys::File>, by: crate::embed::Requester| {
        if files.is_empty() {
            return;
        }
        job.with_value(|j| {
            if let Some(j) = j {
                j.cancel();
            }
        });
        let label = files.iter().map(|f| f.name()).collect::<Vec<_>>().join(" + ");
        let total: u64 = files.iter().map(|f| f.size() as u64).sum();
        load_w.error.set(None);
        load_w.phase.set(LoadPhase::Loading);
        load_w.progress.set(Some(LoadProgress {
            stage: "reading".into(),
            done_bytes: 0,
            total_bytes: total,
            mb_per_s: 0.0,
        }));
        let loupe_file = (files.len() == 1 && files[0].name().to_ascii_lowercase().ends_with(".loupe"))
            .then(|| SendWrapper::new(files[0].clone()));
        let kept = send_wrapper::SendWrapper::new(files.clone());
        load_seq.update_value(|n| *n += 1);
        let my_seq = load_seq.get_value();
        let h = loader::start(files, mode.get_value(), move |ev| match ev {
            LoadEvent::Progress(p) => load_w.progress.set(Some(p)),
            LoadEvent::Done { trace, total_ms, cached, .. } => {
                let install = move |data: TraceData| {
                    let t = crate::platform::now_ms();
                    load_w.progress.set(None);
                    state.install(data);
                    crate::platform::record_stage("installMs", crate::platform::now_ms() - t);
                    crate::embed::notify_loaded(state, &state.data(), by);
                    load_w.phase.set(LoadPhase::Ready);
                    loader::installed();
                };
                let (label, kept, loupe_file) = (label.clone(), kept.clone(), loupe_file.clone());
                // the page's indexes in steps between frames; a newer load makes this one moot
                wasm_bindgen_futures::spawn_local(async move {
                    let moot = move || load_seq.get_value() != my_seq;
                    let Some(mut data) = TraceData::build(*trace, label, total_ms, &moot).await else {
                        return;
                    };
                    data.from_cache = cached;
                    data.files = kept;
                    // a .loupe file: its saved view (annotations, range, layout…) comes back too
                    if let Some(f) = loupe_file {
                        if let Ok(buf) = wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await {
                            let bytes = js_sys::Uint8Array::new(&buf).to_vec();
                            if let Some(saved) = crate::share::saved_state(&bytes) {
                                crate::deep_link::restore_on_install(saved.view);
                            }
                        }
                    }
                    if !moot() {
                        install(data);
                    }
                });
            }
            LoadEvent::Failed(message) => {
                load_w.progress.set(None);
                crate::embed::notify_error(by, &message);
                load_w.error.set(Some(message));
                load_w.phase.set(LoadPhase::Error);
            }
        });
        job.set_value(Some(h));
    };
    // source files (the Code widget) are set aside and kept as text; a drop of only source files
    // adds them to the open profile without reloading it
    let load = move |picked: Vec<sources::Picked>| {
        let (srcs, profiles, skipped) = sources::split(picked);
        if !srcs.is_empty() || !skipped.is_empty() {
            wasm_bindgen_futures::spawn_local(async move {
                let (texts, more) = sources::read(srcs).await;
                let skipped: Vec<String> = skipped.into_iter().chain(more).collect();
                state.set_sources(state.sources.files().merged(texts, skipped));
            });
        }
        load_profiles(profiles, crate::embed::Requester::User);
    };
    // ?url=<address>: download it (with progress) and load it like a dropped file
    if let Some(url) = crate::url_open::requested() {
        load_w.phase.set(LoadPhase::Loading);
        load_w.progress.set(Some(LoadProgress {
            stage: "downloading".into(),
            done_bytes: 0,
            total_bytes: 0,
            mb_per_s: 0.0,
        }));
        let t0 = crate::platform::now_ms();
        wasm_bindgen_futures::spawn_local(async move {
            let progress = move |done: u64, total: u64| {
                let secs = ((crate::platform::now_ms() - t0) / 1000.0).max(1e-3);
                load_w.progress.set(Some(LoadProgress {
                    stage: "downloading".into(),
                    done_bytes: done,
                    total_bytes: total,
                    mb_per_s: done as f64 / 1e6 / secs,
                }));
            };
            match crate::url_open::fetch_file(&url, progress).await {
                Ok(file) => load_profiles(vec![file], crate::embed::Requester::User),
                Err(message) => {
                    load_w.progress.set(None);
                    load_w.error.set(Some(message));
                    load_w.phase.set(LoadPhase::Error);
                }
            }
        });
    }
    // `?demo=<N>`: a generated profile of N slices, built in the worker like a file load
    let load_demo = move |slices: u64| {
        job.with_value(|j| {
            if let Some(j) = j {
                j.cancel();
            }
        });
        load_w.error.set(None);
        load_w.phase.set(LoadPhase::Loading);
        load_seq.update_value(|n| *n += 1);
        let my_seq = load_seq.get_value();
        let h = loader::start_demo(slices, mode.get_value(), move |ev| match ev {
            LoadEvent::Progress(p) => load_w.progress.set(Some(p)),
            LoadEvent::Done { trace, total_ms, .. } => {
                let label = format!("demo: {} slices", trace.slice_count());
                wasm_bindgen_futures::spawn_local(async move {
                    let moot = move || load_seq.get_value() != my_seq;
                    if let Some(data) = TraceData::build(*trace, label, total_ms, &moot).await {
                        if !moot() {
                            load_w.progress.set(None);
                            state.install(data);
                            load_w.phase.set(LoadPhase::Ready);
                        }
                    }
                });
            }
            LoadEvent::Failed(message) => {
                load_w.progress.set(None);
                load_w.error.set(Some(message));
                load_w.phase.set(LoadPhase::Error);
            }
        });
        job.set_value(Some(h));
    };
    let query = dom::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    match loupe_core::demo::demo_param(&query) {
        Ok(Some(n)) if n > 0 => load_demo(n),
        Ok(_) => {}
        Err(message) => load_w.error.set(Some(message)),
    }
    // the parser worker of the first open starts now, not when a file is dropped
    loader::prewarm(&mode.get_value(), loader::PREWARM_AT_START_MS);
    let cancel = Callback::new(move |_: ()| {
        job.with_value(|j| {
            if let Some(j) = j {
                j.cancel();
            }
        });
        load_seq.update_value(|n| *n += 1);
        load_w.progress.set(None);
        load_w.phase.set(if state.data().is_demo { LoadPhase::Empty } else { LoadPhase::Ready });
    });
    let show_demo = move |_| {
        load_w.error.set(None);
        state.install(demo_data());
        load_w.phase.set(LoadPhase::Empty);
    };

    // <body data-loupe-state>
    Effect::new(move |_| {
        let phase = load_status.phase.get();
        if let Some(body) = dom::document().and_then(|d| d.body()) {
            let _ = body.set_attribute("data-loupe-state", phase.as_str());
        }
    });

    // drag and drop anywhere on the page
    let listeners: StoredValue<Vec<Listener>, LocalStorage> = StoredValue::new_local(Vec::new());
    if let Some(w) = dom::window() {
        let has_files = |ev: &web_sys::DragEvent| {
            ev.data_transfer()
                .map(|dt| dt.types().iter().any(|t| t.as_string().as_deref() == Some("Files")))
                .unwrap_or(false)
        };
        let over = listen(w.as_ref(), "dragover", false, move |e| {
            if let Ok(ev) = e.dyn_into::<web_sys::DragEvent>() {
                if has_files(&ev) {
                    ev.prevent_default();
                    drag_over.set(true);
                }
            }
        });
        let leave = listen(w.as_ref(), "dragleave", true, move |e| {
            if let Ok(ev) = e.dyn_into::<web_sys::DragEvent>() {
                if ev.related_target().is_none() {
                    drag_over.set(false);
                }
            }
        });
        let drop_ = listen(w.as_ref(), "drop", false, move |e| {
            if let Ok(ev) = e.dyn_into::<web_sys::DragEvent>() {
                ev.prevent_default();
                drag_over.set(false);
                let Some(dt) = ev.data_transfer() else { return };
                match sources::drop_entries(&dt) {
                    // a folder: walk it (asynchronously) first
                    Some(entries) => wasm_bindgen_futures::spawn_local(async move {
                        load(sources::walk_entries(entries).await);
                    }),
                    None => load(sources::picked_from_list(dt.files())),
                }
            }
        });
        let mut all = vec![over, leave, drop_];
        // Layout, Add widget, Export / share: Esc and a click outside close them
        all.extend(crate::components::menus::dismissal(&w));
        // the host page of an <iframe> can open files and move the view (crate::embed)
        all.extend(crate::embed::listen(state, move |files| {
            load_profiles(files, crate::embed::Requester::Host)
        }));
        listeners.set_value(all);
        crate::embed::announce_ready();
    }
    on_cleanup(move || {
        listeners.set_value(Vec::new());
        job.with_value(|j| {
            if let Some(j) = j {
                j.cancel();
            }
        });
    });

    let on_file = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        let files = sources::picked_from_list(input.files());
        // allow choosing the same file again
        input.set_value("");
        load(files);
    };

    // "Compare…": a second profile (B) loaded beside the open one, for the Compare widget
    let compare_job: StoredValue<Option<LoadHandle>, LocalStorage> = StoredValue::new_local(None);
    let on_compare = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        let (_, files, _) = sources::split(sources::picked_from_list(input.files()));
        input.set_value("");
        if files.is_empty() {
            return;
        }
        compare_job.with_value(|j| {
            if let Some(j) = j {
                j.cancel();
            }
        });
        let label = files.iter().map(|f| f.name()).collect::<Vec<_>>().join(" + ");
        state.compare.status.set(Some(format!("Opening {label} to compare…")));
        state.compare.gen.update(|g| *g += 1);
        // B's lazy arguments are re-read from its own files, like A's
        let kept = send_wrapper::SendWrapper::new(files.clone());
        let h = loader::start(files, mode.get_value(), move |ev| match ev {
            LoadEvent::Progress(p) => {
                state.compare.status.set(Some(format!("Opening {label}: {} {:.0} %", p.stage, p.percent())))
            }
            LoadEvent::Done { trace, total_ms, .. } => {
                // B's indexes in steps too; another Compare… or Close B meanwhile makes it moot
                let gen = state.compare.gen.get_untracked();
                let moot = move || state.compare.gen.get_untracked() != gen;
                let (label, kept) = (label.clone(), kept.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let Some(mut data) = TraceData::build(*trace, label, total_ms, &moot).await else {
                        return;
                    };
                    data.files = kept;
                    state.compare.profile.set_value(Some(std::sync::Arc::new(data)));
                    state.compare.selection.set(None);
                    state.compare.status.set(None);
                    state.compare.gen.update(|g| *g += 1);
                    loader::installed();
                });
            }
            LoadEvent::Failed(message) => {
                state.compare.status.set(Some(format!("Could not open {label} to compare: {message}")));
                state.compare.gen.update(|g| *g += 1);
            }
        });
        compare_job.set_value(Some(h));
    };

    let source = move || {
        let d = state.tracked_data();
        if d.is_demo {
            view! {
                <span class="badge badge-demo" data-testid="demo-badge">"DEMO"</span>
                <span class="source-name" title="Generated example profile — open or drop a trace file to view your own">"Generated example profile — open or drop a trace file to view your own"</span>
            }
            .into_any()
        } else {
            let name = d.source_label.clone();
            view! {
                <span class="source-name" title=name.clone()>{name.clone()}</span>
                <button class="button button-quiet" on:click=show_demo>"Show demo"</button>
            }
            .into_any()
        }
    };
    let stats = move || {
        let d = state.tracked_data();
        let t = &d.trace;
        let mut parts = vec![
            t.format.clone(),
            format!("{} slices", t.slice_count()),
            {
                let n = t.tracks.len() + t.counters.len();
                format!("{n} track{}", if n == 1 { "" } else { "s" })
            },
            loupe_core::time::format_duration_ns(t.duration_ns()),
            format!("{:.1} MB", t.heap_bytes() as f64 / 1e6),
        ];
        if d.load_ms > 0.0 {
            let how = if d.from_cache { "re-opened from cache" } else { "loaded" };
            // the parser worker's threads (the threaded worker's pool; 1 for the classic worker)
            let threads = crate::loader::last_threads();
            let on = match (d.from_cache, threads) {
                (false, 1) => " on 1 thread".to_string(),
                (false, n) if n > 1 => format!(" on {n} threads"),
                _ => String::new(),
            };
            parts.push(format!("{how} in {:.0} ms{on}", d.load_ms));
        }
        parts.retain(|p| !p.is_empty());
        parts.join(" · ")
    };
    let error = move || {
        load_status.error.get().map(|msg| {
            view! {
                <div class="banner banner-error" role="alert">
                    <span data-testid="load-error">{msg}</span>
                    <button class="button button-quiet" on:click=move |_| load_w.error.set(None)>"Dismiss"</button>
                </div>
            }
        })
    };

    view! {
        <div class="app" class:dragging=move || drag_over.get() class:embedded=embedded>
            <header class="topbar">
                <span class="brand">"Loupe"</span>
                <label class="button button-primary open-file">
                    "Open trace…"
                    <input type="file" multiple data-testid="open-file" on:change=on_file/>
                </label>
                <label class="button button-quiet open-file" title="Open a folder: its source files (for the Code widget), .ntff and .neff">
                    "Open folder…"
                    <input type="file" multiple prop:webkitdirectory=true data-testid="open-folder" on:change=on_file/>
                </label>
                <crate::components::share_menu::ShareMenu/>
                <label class="button button-quiet open-file" title="Open a second profile (B) to compare with this one (A)">
                    "Compare…"
                    <input type="file" multiple data-testid="compare-open" on:change=on_compare/>
                </label>
                <span class="source">{source}</span>
                <span class="stats" data-testid="stats" title=stats>{stats}</span>
                <button class="keys-hint link" data-testid="keys-hint" title="Every key and gesture" on:click=move |_| state.show_help.update(|h| *h = !*h)>"? keys"<span class="keys-more">" · / search · W/S zoom · A/D pan"</span></button>
                <crate::theme::ThemeToggle/>
            </header>
            <ProgressBar on_cancel=cancel/>
            {error}
            <EvidenceBanner/>
            <WarningsBanner/>
            <MetadataBanner/>
            <main class="workspace">
                <Workbench/>
            </main>
            <HelpPanel/>
            <div class="drop-overlay" aria-hidden="true">"Drop trace files (and their source files or folders) to open them"</div>
        </div>
    }
}
