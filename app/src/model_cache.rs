//! Re-open cache: the built model of a profile opened before, kept in the browser's IndexedDB so
//! opening the same files again skips parsing (issue 10, goal 6).
//!
//! * **Key**: the [`quick_key`] (the files' names, sizes and modification times, the model's
//!   identity) indexes an entry; the entry holds the files' content fingerprint, which a hit
//!   must match. The fingerprint is computed without reading the files whole:
//!   for each file its name, size and last-modified time, and an FNV-1a hash of sampled content
//!   (the first and last 64 KiB and 16 blocks of 4 KiB spread evenly), plus the model's own
//!   identity ([`model_identity`]: the app version and a hash of the encoded demo model, which
//!   changes when the model's binary layout does). A file edited in place keeps its size only by
//!   luck and its modification time never, so a stale hit needs both to be forged.
//! * **Value**: the model exactly as the parser worker sends it ([`loupe_core::model::wire`]),
//!   stored as a `Blob` (Chromium keeps large blobs on disk, not in the page's heap). A hit is
//!   decoded and validated like a fresh parse. An entry made from other content (a stale one) is
//!   deleted and the files are parsed; one made from these very files that does not decode is
//!   damaged: it is kept aside under `<key>.damaged.<time>` (blob and record, so the size cap
//!   and eviction still count it), the user is told once ([`crate::stored::notify`]), and the
//!   files are parsed ([`set_aside`]).
//! * **Size cap and eviction**: [`MAX_TOTAL_BYTES`] for all entries together, least recently
//!   used first out; a model larger than [`MAX_ENTRY_BYTES`] is not cached.
//! * **Hints**: a key is only worth sampling the files for when the cache may hold them. The
//!   page keeps, in `localStorage` (synchronous), a short list of [`quick_key`]s — the files'
//!   names, sizes and modification times, without their content — of the models it stored. A
//!   load whose quick key is not listed cannot hit, so it starts parsing at once and fingerprints
//!   the files after the model is shown, only to store it; a listed one is looked up first: the
//!   entry is read, then decoded while the files are fingerprinted (not sampled during the read:
//!   their reads held it back), and shown only when the two fingerprints agree. A hint never
//!   decides a hit: a stale one costs one lookup (then the files are parsed at once and
//!   fingerprinted after the model is shown), a missing one a parse.
//! * **Clearing**: [`clear`] (the "Clear cache" button in the help panel); `?cache=0` in the page
//!   URL turns the cache off for that page (benchmarks that time parsing use it).
//!
//! Every failure here (no IndexedDB in a private window, quota, a blocked upgrade) only means
//! "not cached": the load goes on from the files.

use gloo_storage::Storage;
use js_sys::{Array, Object, Promise, Reflect, Uint8Array};
use loupe_core::strings::Fnv;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, File, IdbDatabase, IdbObjectStore, IdbRequest, IdbTransactionMode};

const DB_NAME: &str = "loupe-model-cache";
const MODELS: &str = "models";
const META: &str = "meta";
/// All cached models together.
pub const MAX_TOTAL_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
/// One model larger than this is not cached (it would evict everything else).
pub const MAX_ENTRY_BYTES: f64 = 512.0 * 1024.0 * 1024.0;
const EDGE_BYTES: f64 = 64.0 * 1024.0;
const BLOCK_BYTES: f64 = 4096.0;
const BLOCKS: u32 = 16;
/// `localStorage` key of the hints ([`quick_key`]s of stored models, newest last).
const HINTS: &str = "loupe-model-cache-hints";
const MAX_HINTS: usize = 256;

/// False when the page asked for no cache (`?cache=0`) or the browser has no IndexedDB.
pub fn enabled() -> bool {
    let Some(w) = web_sys::window() else { return false };
    let off = w
        .location()
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("cache"))
        .is_some_and(|v| v == "0" || v == "off");
    !off && matches!(w.indexed_db(), Ok(Some(_)))
}

thread_local! {
    static IDENTITY: std::cell::OnceCell<u64> = const { std::cell::OnceCell::new() };
}

/// The app version and a hash of the demo model's encoding: differs between builds whose model
/// layout differs, so an old build's cache is never decoded as the new layout.
pub fn model_identity() -> u64 {
    IDENTITY.with(|c| {
        *c.get_or_init(|| {
            let mut h = Fnv::new();
            h.bytes(env!("CARGO_PKG_VERSION").as_bytes());
            let demo = loupe_core::demo::demo_trace();
            if let Ok(b) = loupe_core::model::wire::encode(demo) {
                h.u64(b.len() as u64);
                h.bytes(&b);
            }
            h.0
        })
    })
}

/// The content fingerprint of opening `files` together (order matters: the importer sees them in
/// order), then `suffix` (as [`quick_key`]'s).
pub async fn fingerprint(files: &[File], suffix: &str) -> Option<String> {
    let mut h = Fnv::new();
    h.u64(model_identity());
    for f in files {
        let size = f.size();
        h.bytes(f.name().as_bytes());
        h.u64(size as u64);
        h.u64(f.last_modified() as u64);
        let mut ranges = vec![(0.0, EDGE_BYTES.min(size)), ((size - EDGE_BYTES).max(0.0), size)];
        if size > 2.0 * EDGE_BYTES {
            let step = (size - BLOCK_BYTES) / f64::from(BLOCKS);
            ranges.extend((0..BLOCKS).map(|i| {
                let a = (f64::from(i) * step).floor();
                (a, (a + BLOCK_BYTES).min(size))
            }));
        }
        // all the ranges read at once: each Blob read is a round trip to the browser process
        let reads = Array::new();
        for (a, b) in ranges {
            reads.push(&f.slice_with_f64_and_f64(a, b).ok()?.array_buffer());
        }
        let bufs: Array = JsFuture::from(Promise::all(&reads)).await.ok()?.dyn_into().ok()?;
        for buf in bufs.iter() {
            h.bytes(&Uint8Array::new(&buf).to_vec());
        }
    }
    Some(format!("{:016x}-{}{suffix}", h.0, files.len()))
}

/// What [`fingerprint`] hashes apart from the files' content (the model's identity and each
/// file's name, size and modification time, then `suffix`): equal for any two loads that could
/// share a cache entry. No file is read.
pub fn quick_key(files: &[File], suffix: &str) -> String {
    let mut h = Fnv::new();
    h.u64(model_identity());
    for f in files {
        h.bytes(f.name().as_bytes());
        h.u64(f.size() as u64);
        h.u64(f.last_modified() as u64);
    }
    format!("{:016x}-{}{suffix}", h.0, files.len())
}

fn hints() -> Vec<String> {
    gloo_storage::LocalStorage::get(HINTS).unwrap_or_default()
}

/// Whether a model stored by this origin may match `quick` (a [`quick_key`]); false means
/// the cache cannot hold these files.
pub fn may_hold(quick: &str) -> bool {
    hints().iter().any(|h| h == quick)
}

fn remember(quick: &str) {
    let mut h = hints();
    h.retain(|x| x != quick);
    h.push(quick.to_string());
    let extra = h.len().saturating_sub(MAX_HINTS);
    h.drain(..extra);
    // no room in localStorage: later loads of these files only parse instead of re-opening
    let _ = gloo_storage::LocalStorage::set(HINTS, h);
}

fn err_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// A promise of an IndexedDB request's result, its handlers attached now (so a request that
/// completes before anyone awaits it is not missed).
fn request_promise(req: &IdbRequest) -> Promise {
    let r = req.clone();
    Promise::new(&mut |resolve, reject| {
        let r2 = r.clone();
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &r2.result().unwrap_or(JsValue::UNDEFINED));
        });
        let r3 = r.clone();
        let bad = Closure::once_into_js(move |_: JsValue| {
            let why = r3.error().ok().flatten().map_or_else(|| "request failed".to_string(), |e| e.message());
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&why));
        });
        r.set_onsuccess(Some(ok.unchecked_ref()));
        r.set_onerror(Some(bad.unchecked_ref()));
    })
}

/// Wait for an IndexedDB request.
async fn done(req: &IdbRequest) -> Result<JsValue, String> {
    JsFuture::from(request_promise(req)).await.map_err(|e| err_text(&e))
}

thread_local! {
    /// A connection opened ahead ([`open_ahead`]) for the next [`read`], which takes it.
    static OPENED: std::cell::RefCell<Option<IdbDatabase>> = const { std::cell::RefCell::new(None) };
}

/// Open the database now, while the page is idle, when a file may be re-opened (the page has
/// hints): opening it took 17–34 ms of a 50 MB re-open. A newer version opened elsewhere closes
/// it (`versionchange`).
pub fn open_ahead() {
    if hints().is_empty() || OPENED.with(|d| d.borrow().is_some()) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        let Ok(db) = open().await else { return };
        let d = db.clone();
        let on_change = Closure::once_into_js(move |_: JsValue| {
            d.close();
            OPENED.with(|o| o.borrow_mut().take());
        });
        db.set_onversionchange(Some(on_change.unchecked_ref()));
        if let Some(old) = OPENED.with(|o| o.borrow_mut().replace(db)) {
            old.close();
        }
    });
}

/// The database with both object stores. It is opened at its current version (created with the
/// stores when it does not exist); one that exists without them (made by something else, e.g.
/// a script that opened the name to look) is upgraded to the next version to add them.
async fn open() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| "this browser has no IndexedDB".to_string())?;
    let db = open_at(&factory, None).await?;
    let names = db.object_store_names();
    if names.contains(MODELS) && names.contains(META) {
        return Ok(db);
    }
    let next = db.version() as u32 + 1;
    db.close();
    open_at(&factory, Some(next)).await
}

async fn open_at(factory: &web_sys::IdbFactory, version: Option<u32>) -> Result<IdbDatabase, String> {
    let req = match version {
        Some(v) => factory.open_with_u32(DB_NAME, v),
        None => factory.open(DB_NAME),
    }
    .map_err(|e| err_text(&e))?;
    let r = req.clone();
    let upgrade = Closure::once_into_js(move |_: JsValue| {
        if let Ok(db) = r.result().and_then(|d| d.dyn_into::<IdbDatabase>()) {
            for name in [MODELS, META] {
                if !db.object_store_names().contains(name) {
                    let _ = db.create_object_store(name);
                }
            }
        }
    });
    req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let db = done(&req).await?;
    db.dyn_into::<IdbDatabase>().map_err(|_| "IndexedDB did not open".to_string())
}

fn stores(db: &IdbDatabase, mode: IdbTransactionMode) -> Result<(IdbObjectStore, IdbObjectStore), String> {
    let names = Array::of2(&MODELS.into(), &META.into());
    let tx = db.transaction_with_str_sequence_and_mode(&names, mode).map_err(|e| err_text(&e))?;
    let m = tx.object_store(MODELS).map_err(|e| err_text(&e))?;
    let meta = tx.object_store(META).map_err(|e| err_text(&e))?;
    Ok((m, meta))
}

fn now() -> f64 {
    js_sys::Date::now()
}

fn meta_record(bytes: f64, label: &str) -> Object {
    let o = Object::new();
    let _ = Reflect::set(&o, &"bytes".into(), &JsValue::from_f64(bytes));
    let _ = Reflect::set(&o, &"lastUsed".into(), &JsValue::from_f64(now()));
    let _ = Reflect::set(&o, &"label".into(), &JsValue::from_str(label));
    o
}

/// The entry stored under `quick` (a [`quick_key`]), marked as used: the content
/// [`fingerprint`] it was stored with (a hit must match it) and the model. `None` on a miss or
/// any error.
pub async fn read(quick: &str) -> Option<(String, js_sys::ArrayBuffer)> {
    let t = crate::platform::now_ms();
    // the connection opened ahead, unless the browser closed it meanwhile (a transaction on it
    // fails at once): then a fresh one, not a miss
    let ahead = OPENED.with(|d| d.borrow_mut().take());
    let db = match ahead {
        Some(db) if stores(&db, IdbTransactionMode::Readonly).is_ok() => db,
        stale => {
            if let Some(db) = stale {
                db.close();
            }
            open().await.ok()?
        }
    };
    crate::platform::record_stage("cacheOpenMs", crate::platform::now_ms() - t);
    let result = async {
        let (models, meta) = stores(&db, IdbTransactionMode::Readwrite).ok()?;
        // both requests queued at once
        let blob = request_promise(&models.get(&quick.into()).ok()?);
        let m = request_promise(&meta.get(&quick.into()).ok()?);
        let blob: Blob = JsFuture::from(blob).await.ok()?.dyn_into().ok()?;
        let m = JsFuture::from(m).await.ok().filter(JsValue::is_object)?;
        let _ = Reflect::set(&m, &"lastUsed".into(), &JsValue::from_f64(now()));
        let _ = meta.put_with_key(&m, &quick.into());
        let stored = Reflect::get(&m, &"content".into()).ok()?.as_string()?;
        Some((stored, blob))
    }
    .await;
    db.close();
    let (stored, blob) = result?;
    crate::platform::record_stage("cacheEntryMs", crate::platform::now_ms() - t);
    crate::platform::record_stage("cacheModelBytes", blob.size());
    let bytes = JsFuture::from(blob.array_buffer()).await.ok()?.dyn_into().ok()?;
    Some((stored, bytes))
}

/// Keep a damaged entry (made from these files, yet it does not decode) aside: its blob and its
/// record are moved to `<key>.damaged.<time>` ([`crate::stored::aside_key`]), where no lookup
/// finds it and eviction still counts it, and the user is told once. When it cannot be moved it
/// is deleted, and the notice says so.
pub async fn set_aside(key: &str) {
    let aside = crate::stored::aside_key(key, js_sys::Date::now());
    let moved = async {
        let db = open().await.ok()?;
        let r = async {
            let (models, meta) = stores(&db, IdbTransactionMode::Readwrite).ok()?;
            let blob = done(&models.get(&key.into()).ok()?).await.ok().filter(|b| !b.is_undefined())?;
            let m = done(&meta.get(&key.into()).ok()?).await.ok().filter(JsValue::is_object)?;
            let _ = Reflect::set(&m, &"damaged".into(), &JsValue::TRUE);
            done(&models.put_with_key(&blob, &aside.as_str().into()).ok()?).await.ok()?;
            done(&meta.put_with_key(&m, &aside.as_str().into()).ok()?).await.ok()?;
            done(&models.delete(&key.into()).ok()?).await.ok()?;
            done(&meta.delete(&key.into()).ok()?).await.ok()?;
            Some(())
        }
        .await;
        db.close();
        r
    }
    .await
    .is_some();
    if moved {
        crate::stored::notify(format!(
            "A saved copy of this profile in the browser's model cache could not be read (it does \
             not decode); it was kept aside as \"{aside}\" in the page's IndexedDB, and the files \
             were parsed again."
        ));
    } else {
        remove(key).await;
        crate::stored::notify(
            "A saved copy of this profile in the browser's model cache could not be read (it does \
             not decode) nor kept aside; it was deleted, and the files were parsed again."
                .to_string(),
        );
    }
}

/// Forget one entry (a stale model: other content), by its [`quick_key`].
pub async fn remove(key: &str) {
    if let Ok(db) = open().await {
        if let Ok((models, meta)) = stores(&db, IdbTransactionMode::Readwrite) {
            if let Ok(r) = models.delete(&key.into()) {
                let _ = done(&r).await;
            }
            if let Ok(r) = meta.delete(&key.into()) {
                let _ = done(&r).await;
            }
        }
        db.close();
    }
}

/// Store the encoded model (`encoded`: the worker's buffer, shared or not, copied now, so the
/// caller may drop it) under `quick` ([`quick_key`]) with its files' `content`
/// ([`fingerprint`]), list `quick` in the hints, then evict least-recently-used entries over
/// the cap. The copy is made [`PIECE_BYTES`] at a time with the browser given a turn between
/// pieces (one copy of a 193 MB model was a 150 ms task); the write goes on in the background.
pub async fn store(quick: String, content: String, encoded: &Uint8Array, label: String) {
    let bytes = f64::from(encoded.length());
    if bytes > MAX_ENTRY_BYTES || bytes == 0.0 {
        return;
    }
    // a Blob of Blobs refers to its parts (no copy); a Blob cannot be made of shared memory, so
    // each piece is sliced out (a copy) first
    let parts = Array::new();
    let mut at = 0u32;
    while at < encoded.length() {
        let end = at.saturating_add(PIECE_BYTES).min(encoded.length());
        let piece = encoded.slice(at, end);
        let Ok(blob) = Blob::new_with_u8_array_sequence(&Array::of1(&piece)) else { return };
        parts.push(&blob);
        at = end;
        crate::platform::yield_now().await;
    }
    let Ok(blob) = Blob::new_with_blob_sequence(&parts) else { return };
    wasm_bindgen_futures::spawn_local(async move {
        match store_blob(&quick, &content, &blob, bytes, &label).await {
            Ok(()) => remember(&quick),
            Err(e) => web_sys::console::warn_1(&format!("loupe: model not cached: {e}").into()),
        }
    });
}

/// Bytes of the model copied per step when it is stored ([`store`]).
const PIECE_BYTES: u32 = 8 << 20;

async fn store_blob(key: &str, content: &str, blob: &Blob, bytes: f64, label: &str) -> Result<(), String> {
    let db = open().await?;
    let r = async {
        let (models, meta) = stores(&db, IdbTransactionMode::Readwrite)?;
        done(&models.put_with_key(blob, &key.into()).map_err(|e| err_text(&e))?).await?;
        let record = meta_record(bytes, label);
        let _ = Reflect::set(&record, &"content".into(), &JsValue::from_str(content));
        done(&meta.put_with_key(&record, &key.into()).map_err(|e| err_text(&e))?).await?;
        Ok::<(), String>(())
    }
    .await;
    let evicted = if r.is_ok() { evict(&db).await } else { Ok(()) };
    db.close();
    r.and(evicted)
}

/// Entries as (key, bytes, last used).
async fn entries(meta: &IdbObjectStore) -> Result<Vec<(String, f64, f64)>, String> {
    let keys = done(&meta.get_all_keys().map_err(|e| err_text(&e))?).await?;
    let vals = done(&meta.get_all().map_err(|e| err_text(&e))?).await?;
    let keys = Array::from(&keys);
    let vals = Array::from(&vals);
    let num = |v: &JsValue, k: &str| Reflect::get(v, &k.into()).ok().and_then(|x| x.as_f64()).unwrap_or(0.0);
    Ok(keys
        .iter()
        .zip(vals.iter())
        .filter_map(|(k, v)| Some((k.as_string()?, num(&v, "bytes"), num(&v, "lastUsed"))))
        .collect())
}

async fn evict(db: &IdbDatabase) -> Result<(), String> {
    let (models, meta) = stores(db, IdbTransactionMode::Readwrite)?;
    let mut all = entries(&meta).await?;
    let mut total: f64 = all.iter().map(|e| e.1).sum();
    all.sort_by(|a, b| a.2.total_cmp(&b.2));
    for (key, bytes, _) in all {
        if total <= MAX_TOTAL_BYTES {
            break;
        }
        let _ = models.delete(&key.as_str().into());
        let _ = meta.delete(&key.as_str().into());
        total -= bytes;
    }
    Ok(())
}

/// (entries, bytes) in the cache.
pub async fn usage() -> Result<(usize, f64), String> {
    let db = open().await?;
    let r = async {
        let (_, meta) = stores(&db, IdbTransactionMode::Readonly)?;
        let all = entries(&meta).await?;
        Ok((all.len(), all.iter().map(|e| e.1).sum()))
    }
    .await;
    db.close();
    r
}

/// Remove every cached model.
pub async fn clear() -> Result<(), String> {
    gloo_storage::LocalStorage::delete(HINTS);
    let db = open().await?;
    let r = async {
        let (models, meta) = stores(&db, IdbTransactionMode::Readwrite)?;
        done(&models.clear().map_err(|e| err_text(&e))?).await?;
        done(&meta.clear().map_err(|e| err_text(&e))?).await?;
        Ok(())
    }
    .await;
    db.close();
    r
}
