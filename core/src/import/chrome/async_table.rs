//! The async table of the Chrome importer: open `b`/`S` events by (process, category, id,
//! scope), matched with their ends in file order, and one async track per (process, name).

use super::keys::IdKey;
use crate::model::{ArgsId, GroupId, TraceBuilder, TrackId, TrackKind};
use crate::strings::{FxHashMap, StrId};

/// What an async begin is matched on (`proc` is `u32::MAX` for a global `id2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AsyncKey {
    pub proc: u32,
    pub cat: StrId,
    pub id: IdKey,
    pub scope: StrId,
    pub legacy: bool,
}

/// An async begin waiting for its end.
pub struct OpenAsync {
    pub ts: i64,
    pub name: StrId,
    pub cat: StrId,
    pub args: ArgsId,
    pub track: TrackId,
}

/// Open async slices (a stack per key: nested begins with one key) and the async tracks, in
/// creation order (they sort below the threads of their process).
#[derive(Default)]
pub struct AsyncTable {
    open: FxHashMap<AsyncKey, Vec<OpenAsync>>,
    tracks: FxHashMap<(u32, StrId), TrackId>,
    track_list: Vec<TrackId>,
}

impl AsyncTable {
    /// The track of an async event: that of the outermost open begin with its key, else the
    /// async track of (process `p` in `group`, name), created on first use.
    pub fn track_for(
        &mut self,
        b: &mut TraceBuilder,
        key: &AsyncKey,
        p: u32,
        group: GroupId,
        name: StrId,
    ) -> TrackId {
        if let Some(o) = self.open.get(key).and_then(|s| s.first()) {
            return o.track;
        }
        if let Some(&t) = self.tracks.get(&(p, name)) {
            return t;
        }
        let label = match b.string(name) {
            "" => "async".to_string(),
            s => s.to_string(),
        };
        let t = b.add_track(group, &label, TrackKind::Async, "async");
        self.tracks.insert((p, name), t);
        self.track_list.push(t);
        t
    }

    pub fn open(&mut self, key: AsyncKey, o: OpenAsync) {
        self.open.entry(key).or_default().push(o);
    }

    /// The innermost open begin with this key, if any.
    pub fn close(&mut self, key: &AsyncKey) -> Option<OpenAsync> {
        let stack = self.open.get_mut(key)?;
        let o = stack.pop();
        if stack.is_empty() {
            self.open.remove(key);
        }
        o
    }

    /// Every begin still open at the end of the file, by track and start.
    pub fn drain_open(&mut self) -> Vec<OpenAsync> {
        let mut open: Vec<OpenAsync> = self.open.drain().flat_map(|(_, v)| v).collect();
        open.sort_by_key(|o| (o.track, o.ts));
        open
    }

    /// Sort the async tracks after every thread, in creation order.
    pub fn apply_sorts(&self, b: &mut TraceBuilder) {
        for (k, &t) in self.track_list.iter().enumerate() {
            b.set_track_sort(t, i64::MAX / 2 + k as i64);
        }
    }
}
