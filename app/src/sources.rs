//! Source files for the Code widget: picked out of what the user drops or opens (by extension,
//! before the loader sees anything: they are not profiles), read as text (UTF-8, lossy; files over
//! [`MAX_SOURCE_BYTES`] or with NUL bytes are skipped and listed), and kept in
//! `AppState::sources` across profile loads until replaced (same path) or cleared. A drop of only
//! source files adds them to the open profile without reloading it.
//!
//! Folders (drag and drop, or "Open folder…" with `webkitdirectory`) are walked; from a folder
//! only source files, Neuron captures (`.ntff`, `.neff`) and Neuron Explorer Parquet tables
//! (`.parquet`: Explorer's output directory) are taken, so a project folder's
//! other files (configs, weights) do not make the load fail. Hidden folders, `__pycache__` and
//! `node_modules` are not entered.

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Source files larger than this are skipped (the code view is for reading, not for logs).
pub const MAX_SOURCE_BYTES: f64 = 2.0 * 1024.0 * 1024.0;
/// At most this many source files are kept from one drop.
pub const MAX_SOURCE_FILES: usize = 2000;
/// A folder walk stops after this many entries.
const MAX_FOLDER_ENTRIES: usize = 20_000;

/// Extensions read as source code (not `.txt`: a text file may be a trace).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "pyx", "pxd", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "cu", "cuh", "rs", "jl",
    "java", "go", "scala",
];
// Profile files taken from a folder (the core's list, shared with the CLI).
use loupe_core::import::FOLDER_PROFILE_EXTENSIONS;

/// One source file as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The path it was dropped under: folder-relative (`proj/src/model.py`) or just the name.
    pub path: String,
    pub text: String,
}

/// Every source file the user gave, and what was skipped (shown by the Code widget).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFiles {
    pub files: Vec<SourceText>,
    /// "name: why", from the latest drop.
    pub skipped: Vec<String>,
}

impl SourceFiles {
    pub fn paths(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.path.as_str()).collect()
    }
    /// These files added (a file with the same path replaces the old one).
    pub fn merged(&self, new: Vec<SourceText>, skipped: Vec<String>) -> SourceFiles {
        let mut files = self.files.clone();
        for f in new {
            match files.iter_mut().find(|o| o.path == f.path) {
                Some(o) => *o = f,
                None => files.push(f),
            }
        }
        SourceFiles { files, skipped }
    }
}

fn extension(name: &str) -> String {
    name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default()
}

pub fn is_source_name(name: &str) -> bool {
    SOURCE_EXTENSIONS.contains(&extension(name).as_str())
}

/// A file with the path it was picked under.
pub struct Picked {
    pub path: String,
    pub file: web_sys::File,
    /// Came from a folder (drop or "Open folder…").
    pub from_folder: bool,
}

/// Split picked files into source files, profile files and notes on what was left out.
pub fn split(picked: Vec<Picked>) -> (Vec<Picked>, Vec<web_sys::File>, Vec<String>) {
    let (mut sources, mut profiles, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    let mut other_in_folder = 0usize;
    for p in picked {
        if is_source_name(&p.path) {
            if sources.len() >= MAX_SOURCE_FILES {
                skipped.push(format!("{}: more than {MAX_SOURCE_FILES} source files", p.path));
            } else if p.file.size() > MAX_SOURCE_BYTES {
                skipped.push(format!(
                    "{}: {} is over the {} limit for source files",
                    p.path,
                    crate::fmt::fmt_bytes(p.file.size() as u64),
                    crate::fmt::fmt_bytes(MAX_SOURCE_BYTES as u64)
                ));
            } else {
                sources.push(p);
            }
        } else if !p.from_folder || FOLDER_PROFILE_EXTENSIONS.contains(&extension(&p.path).as_str()) {
            profiles.push(p.file);
        } else {
            other_in_folder += 1;
        }
    }
    if other_in_folder > 0 {
        skipped.push(format!(
            "{other_in_folder} other file{} in the folder (from folders only source files, .ntff, .neff and \
             .parquet are opened: drop other profiles directly)",
            if other_in_folder == 1 { "" } else { "s" }
        ));
    }
    (sources, profiles, skipped)
}

/// Read source files as text: (files, skipped notes).
pub async fn read(picked: Vec<Picked>) -> (Vec<SourceText>, Vec<String>) {
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for p in picked {
        match JsFuture::from(p.file.array_buffer()).await {
            Ok(b) => {
                let bytes = js_sys::Uint8Array::new(&b).to_vec();
                if bytes.iter().take(8192).any(|&b| b == 0) {
                    skipped.push(format!("{}: not text (NUL bytes)", p.path));
                } else {
                    out.push(SourceText { path: p.path, text: String::from_utf8_lossy(&bytes).into_owned() });
                }
            }
            Err(_) => skipped.push(format!("{}: could not be read", p.path)),
        }
    }
    (out, skipped)
}

/// Files of an `<input type=file>` (with `webkitdirectory`, their folder-relative paths).
pub fn picked_from_list(list: Option<web_sys::FileList>) -> Vec<Picked> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| {
            let rel = Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|s| !s.is_empty());
            let from_folder = rel.is_some();
            Picked { path: rel.unwrap_or_else(|| file.name()), file, from_folder }
        })
        .filter(|p| !p.from_folder || !skipped_dir_path(&p.path))
        .collect()
}

fn skipped_dir(name: &str) -> bool {
    name.starts_with('.') || name == "__pycache__" || name == "node_modules"
}

/// A folder-relative path under a folder we do not enter.
fn skipped_dir_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    parts.iter().take(parts.len().saturating_sub(1)).skip(1).any(|c| skipped_dir(c))
}

/// The `FileSystemEntry` of each dropped item, read synchronously (a `DataTransfer` is empty
/// once the drop event returns). `None` when no item is a folder: then the plain file list is
/// used, as before.
pub fn drop_entries(dt: &web_sys::DataTransfer) -> Option<Vec<JsValue>> {
    let items = dt.items();
    let mut entries = Vec::new();
    let mut any_dir = false;
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        let Ok(f) = Reflect::get(&item, &"webkitGetAsEntry".into()) else { continue };
        let Ok(f) = f.dyn_into::<js_sys::Function>() else { continue };
        let Ok(entry) = f.call0(&item) else { continue };
        if entry.is_null() || entry.is_undefined() {
            continue;
        }
        any_dir |= flag(&entry, "isDirectory");
        entries.push(entry);
    }
    any_dir.then_some(entries)
}

fn flag(v: &JsValue, key: &str) -> bool {
    Reflect::get(v, &key.into()).ok().and_then(|b| b.as_bool()).unwrap_or(false)
}

/// Call `obj.method(success, failure)` (the callback style of the file system entry API).
async fn callback_call(obj: &JsValue, method: &str) -> Result<JsValue, JsValue> {
    let f: js_sys::Function = Reflect::get(obj, &method.into())?.dyn_into()?;
    let mut call_err = None;
    let p = js_sys::Promise::new(&mut |resolve, reject| {
        if let Err(e) = f.call2(obj, &resolve, &reject) {
            call_err = Some(e);
        }
    });
    if let Some(e) = call_err {
        return Err(e);
    }
    JsFuture::from(p).await
}

/// Walk dropped entries (files and folders) into picked files.
pub async fn walk_entries(entries: Vec<JsValue>) -> Vec<Picked> {
    let mut out = Vec::new();
    let mut stack: Vec<(JsValue, bool)> = entries.into_iter().rev().map(|e| (e, false)).collect();
    let mut visited = 0usize;
    while let Some((entry, in_folder)) = stack.pop() {
        visited += 1;
        if visited > MAX_FOLDER_ENTRIES {
            break;
        }
        let name = Reflect::get(&entry, &"name".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
        let full =
            Reflect::get(&entry, &"fullPath".into()).ok().and_then(|v| v.as_string()).unwrap_or(name.clone());
        if flag(&entry, "isDirectory") {
            if skipped_dir(&name) {
                continue;
            }
            let Ok(reader) = Reflect::get(&entry, &"createReader".into())
                .and_then(|f| f.dyn_into::<js_sys::Function>())
                .and_then(|f| f.call0(&entry))
            else {
                continue;
            };
            // readEntries returns a batch at a time until an empty one
            let mut children = Vec::new();
            while let Ok(batch) = callback_call(&reader, "readEntries").await {
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 || children.len() > MAX_FOLDER_ENTRIES {
                    break;
                }
                children.extend(batch.iter());
            }
            stack.extend(children.into_iter().rev().map(|c| (c, true)));
        } else if flag(&entry, "isFile") {
            if let Ok(file) = callback_call(&entry, "file").await {
                let path = full.trim_start_matches('/').to_string();
                out.push(Picked { path, file: file.unchecked_into(), from_folder: in_folder });
            }
        }
    }
    out
}
