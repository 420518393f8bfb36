//! Header controls to get a profile out: **Save** (a `.loupe` file that re-opens without the
//! original files) and the **Export** menu (CSV of the visible range or highlighted events,
//! Chrome JSON, Parquet tables, report tables). See [`crate::share`].

use std::rc::Rc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

use crate::share;
use crate::state::{use_app_state, ViewportBus};

fn size(n: usize) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{:.1} kB", n as f64 / 1e3)
    }
}

#[component]
pub fn ShareMenu() -> impl IntoView {
    let state = use_app_state();
    let bus = use_context::<SendWrapper<Rc<ViewportBus>>>().map(|b| (*b).clone());
    let bus = StoredValue::new_local(bus);
    let message = RwSignal::new(None::<String>);
    let copied = RwSignal::new(None::<(String, Option<String>)>);
    let finish = move |r: Result<String, String>| match r {
        Ok(m) => message.set(Some(m)),
        Err(e) => message.set(Some(format!("Could not export: {e}"))),
    };
    let name = move || share::base_name(&state.data().source_label);
    let save = move |_| {
        let view = bus.with_value(|b| crate::deep_link::capture(state, None, b.as_deref()));
        let r = share::loupe_bytes(state, view).and_then(|bytes| {
            let file = format!("{}.loupe", name());
            share::download(&bytes, &file, "application/octet-stream")?;
            let lazy = state.data().trace.args.lazy.len();
            let note = if lazy > 0 {
                format!(" — the arguments of {lazy} events stay in the original file (big traces keep them there)")
            } else {
                String::new()
            };
            Ok(format!("Saved {file} ({}): drop it on Loupe to re-open this view{note}", size(bytes.len())))
        });
        finish(r);
    };
    let range_csv = move |_| {
        let (t0, t1) = bus.with_value(|b| b.as_ref().map(|b| b.window()).unwrap_or((0, 0)));
        let r = share::range_csv(state, t0, t1).and_then(|(bytes, n)| {
            let file = format!("{}-range.csv", name());
            share::download(&bytes, &file, "text/csv")?;
            Ok(format!("{file}: {n} slices ({})", size(bytes.len())))
        });
        finish(r);
    };
    let hits_csv = move |_| {
        let r = share::highlighted_csv(state).and_then(|(bytes, n)| {
            let file = format!("{}-events.csv", name());
            share::download(&bytes, &file, "text/csv")?;
            Ok(format!("{file}: {n} slices ({})", size(bytes.len())))
        });
        finish(r);
    };
    let json = move |_| {
        let r = share::chrome_json(state).and_then(|bytes| {
            let file = format!("{}.trace.json", name());
            share::download(&bytes, &file, "application/json")?;
            Ok(format!("{file} ({}): opens in Perfetto and chrome://tracing", size(bytes.len())))
        });
        finish(r);
    };
    let parquet = move |table: &'static str| {
        let r = share::parquet_table(state, table).and_then(|bytes| {
            let file = format!("{}-{table}.parquet", name());
            share::download(&bytes, &file, "application/vnd.apache.parquet")?;
            Ok(format!("{file} ({})", size(bytes.len())))
        });
        finish(r);
    };
    let parquet_buttons = loupe_core::export::parquet::TABLES
        .iter()
        .map(|&t| {
            view! {
                <button class="button button-quiet" data-testid=format!("export-parquet-{t}") on:click=move |_| parquet(t)>{t}</button>
            }
        })
        .collect_view();
    let report_tables = move || {
        state.generation.track();
        let data = state.data();
        data.trace
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let label = format!("{} ({} rows)", t.section, t.rows.len());
                let file =
                    format!("{}-{}.csv", share::base_name(&t.source_file), share::base_name(&t.section));
                view! {
                    <button class="button button-quiet menu-item" on:click=move |_| {
                        let file = file.clone();
                        finish(share::report_table_csv(state, i).and_then(|b| {
                            share::download(&b, &file, "text/csv")?;
                            Ok(format!("{file} ({})", size(b.len())))
                        }))
                    }>{label}</button>
                }
            })
            .collect_view()
    };
    let is_demo = move || {
        state.generation.track();
        state.data().is_demo
    };
    // the link to this view: the URL the deep-link writer keeps, made now (the writer runs every
    // 400 ms), with the layout part the current URL already carries
    let copy_link = move |_| {
        let Some(w) = web_sys::window() else { return };
        let mut view = bus.with_value(|b| crate::deep_link::capture(state, None, b.as_deref()));
        let hash = w.location().hash().unwrap_or_default();
        view.layout_json = loupe_core::view_state::ViewState::from_fragment(&hash).layout_json;
        let base = w.location().href().unwrap_or_default();
        let base = base.split('#').next().unwrap_or_default().to_string();
        let url = format!("{base}#{}", view.to_fragment());
        let note =
            "it holds this view and the file's name, not the file: whoever opens it needs the same file";
        let promise = w.navigator().clipboard().write_text(&url);
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => copied.set(Some((format!("Link copied — {note}."), None))),
                Err(_) => copied.set(Some((
                    format!("The browser did not allow copying; select the link below — {note}."),
                    Some(url),
                ))),
            }
        });
    };
    view! {
        <button class="button button-quiet" data-testid="copy-link" on:click=copy_link
            title="Copy a link to this view (range, selection, search, markers): it names the file, it does not contain it">
            "Copy link"
        </button>
        {move || copied.get().map(|(m, url)| view! {
            <span class="copy-link-message" role="status" data-testid="copy-link-message">
                {m}
                {url.map(|u| view! { <input class="copy-link-url" readonly prop:value=u data-testid="copy-link-url"/> })}
                <button class="link" aria-label="Close" on:click=move |_| copied.set(None)>"×"</button>
            </span>
        })}
        <button class="button button-quiet" data-testid="save-profile" on:click=save
            title="Save the profile, its annotations and this view as one .loupe file (re-opens without the original files)">
            "Save"
        </button>
        <details class="menu share-menu" data-testid="export-menu">
            <summary class="button button-quiet">"Export ▾"</summary>
            <div class="menu-panel">
                <p class="menu-note">"Files are made in this page; nothing is uploaded."</p>
                <button class="button button-quiet menu-item" data-testid="export-range-csv" on:click=range_csv>"Visible range → CSV"</button>
                <button class="button button-quiet menu-item" data-testid="export-events-csv" on:click=hits_csv>"Highlighted or selected events → CSV"</button>
                <button class="button button-quiet menu-item" data-testid="export-json" on:click=json>"Whole profile → Chrome JSON (Perfetto)"</button>
                <div class="menu-row"><span>"Parquet:"</span>{parquet_buttons}</div>
                {move || (!is_demo() && !state.data().trace.tables.is_empty()).then(|| view! {
                    <p class="menu-note">"Report tables → CSV"</p>
                    {report_tables}
                })}
                {move || message.get().map(|m| view! { <p class="menu-note share-message" data-testid="export-message">{m}</p> })}
            </div>
        </details>
    }
}
