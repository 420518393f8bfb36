//! Arguments in Event Details, including lazy ones.
//!
//! A big Chrome JSON file is imported with lazy arguments (see `loader::worker_side`): the model
//! keeps each event's args as a byte range of the file it was read from
//! ([`loupe_core::model::LazyArgs`]). When such an event is shown, [`args_section`] re-reads that
//! range from the `File` the page still holds ([`crate::state::TraceData::files`], kept for a
//! profile re-opened from the model cache too, since the user just picked the files) with
//! `Blob.slice(..).arrayBuffer()`, and shows it through
//! [`loupe_core::import::chrome::args_from_text`], which gives exactly what a load with args in
//! memory shows. Meanwhile it says "loading arguments…"; when the file is not there (or is not the
//! file the range belongs to: a `.loupe` file saved from such a model) it says so.

use leptos::prelude::*;
use loupe_core::model::ArgsId;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::state::TraceData;

/// The arguments table (nothing when there are none); `unverified` names the keys whose values
/// come from an unverified attribution (marked as such).
fn table(args: Vec<(String, String)>, unverified: &[&str]) -> AnyView {
    if args.is_empty() {
        return ().into_any();
    }
    let mark = loupe_core::model::Attribution::UNVERIFIED;
    view! {
        <h4>"Arguments"</h4>
        <table class="kv args" data-testid="details-args">
            {args.into_iter().map(|(k, v)| {
                let marked = unverified.contains(&k.as_str());
                view! {
                    <tr>
                        <th>{k}</th>
                        <td>{v}{marked.then(|| view! { " " <span class="unverified" data-testid="unverified">{mark}</span> })}</td>
                    </tr>
                }
            }).collect_view()}
        </table>
    }
    .into_any()
}

fn note(text: String) -> AnyView {
    view! {
        <h4>"Arguments"</h4>
        <p class="hint" data-testid="details-args-note">{text}</p>
    }
    .into_any()
}

#[derive(Clone)]
enum Lazy {
    Loading,
    Loaded(Vec<(String, String)>),
    Failed(String),
}

async fn bytes_of(file: &web_sys::File, start: f64, end: f64) -> Result<Vec<u8>, String> {
    let blob = file.slice_with_f64_and_f64(start, end).map_err(|e| crate::platform::js_err(&e))?;
    let buf = JsFuture::from(blob.array_buffer()).await.map_err(|e| crate::platform::js_err(&e))?;
    Ok(js_sys::Uint8Array::new(&buf.unchecked_into()).to_vec())
}

/// Re-read a lazy set from `file`.
async fn read_lazy(file: web_sys::File, offset: u64, len: u32) -> Lazy {
    // a .loupe file saved from a lazy model names ranges of the original JSON, not of itself
    match bytes_of(&file, 0.0, 8.0).await {
        Ok(head) if loupe_core::loupe_file::is_loupe(&head) => {
            return Lazy::Failed(
                "The arguments of this event are in the original trace file; open it to see them.".into(),
            )
        }
        Ok(_) => {}
        Err(e) => return Lazy::Failed(format!("Could not read the arguments from '{}': {e}", file.name())),
    }
    let (a, b) = (offset as f64, offset as f64 + len as f64);
    if b > file.size() {
        return Lazy::Failed(format!(
            "'{}' is shorter than when it was opened; open it again to see the arguments.",
            file.name()
        ));
    }
    match bytes_of(&file, a, b).await {
        // the range is one JSON object; anything else means the file changed since it was read
        Ok(text) if text.first() == Some(&b'{') && text.last() == Some(&b'}') => {
            Lazy::Loaded(loupe_core::import::chrome::args_from_text(&text))
        }
        Ok(_) => Lazy::Failed(format!(
            "'{}' has changed since it was opened; open it again to see the arguments.",
            file.name()
        )),
        Err(e) => Lazy::Failed(format!("Could not read the arguments from '{}': {e}", file.name())),
    }
}

/// The "Arguments" part of Event Details for args set `id` of `data`'s trace.
pub fn args_section(data: &TraceData, id: ArgsId) -> AnyView {
    args_section_marked(data, id, &[])
}

/// [`args_section`] with the values of the `unverified` keys marked "unverified (NEFF mismatch)".
pub fn args_section_marked(data: &TraceData, id: ArgsId, unverified: &'static [&'static str]) -> AnyView {
    let Some(r) = data.trace.args.lazy_ref(id) else {
        return table(data.trace.args_display(id), unverified);
    };
    let Some(file) = data.files.get(r.file as usize).cloned() else {
        return note("The arguments of this event are in the original file; open it to see them.".into());
    };
    let state = RwSignal::new(Lazy::Loading);
    wasm_bindgen_futures::spawn_local(async move {
        let v = read_lazy(file, r.offset, r.len).await;
        // the panel may have moved on (and disposed the signal) meanwhile
        let _ = state.try_set(v);
    });
    (move || match state.get() {
        Lazy::Loading => view! {
            <h4>"Arguments"</h4>
            <p class="hint" data-testid="details-args-loading">"loading arguments…"</p>
        }
        .into_any(),
        Lazy::Loaded(args) => table(args, unverified),
        Lazy::Failed(why) => note(why),
    })
    .into_any()
}
