//! The process and thread table of the Chrome importer: pid/tid → group and track (created on
//! first sight), the per-thread B/E stacks, and the `M` metadata that names them at the end.

use super::flows::FlowDir;
use super::keys::{IdKey, Key};
use super::kineto;
use crate::model::{ArgsId, GroupId, GroupKind, SliceHandle, TraceBuilder, TrackId, TrackKind};
use crate::strings::{FxHashMap, StrId};

struct Proc {
    key: Key,
    group: GroupId,
    device: bool,
    instant_track: Option<TrackId>,
}

pub struct Thread {
    proc: u32,
    key: Key,
    pub track: TrackId,
    device: bool,
    stack: Vec<OpenSlice>,
    /// The last X slice added on this thread and its start (Kineto flows bind to it).
    pub last: Option<(SliceHandle, i64)>,
}

/// A `B` waiting for its `E`.
pub struct OpenSlice {
    pub ts: i64,
    pub name: StrId,
    pub cat: StrId,
    pub args: ArgsId,
    /// v2 flow binding of a `B`: (bind id, direction).
    pub bind: Option<(IdKey, FlowDir)>,
}

#[derive(Default)]
pub struct ProcMeta {
    pub name: Option<StrId>,
    pub labels: Option<StrId>,
    pub sort: Option<i64>,
}

#[derive(Default)]
pub struct ThreadMeta {
    pub name: Option<StrId>,
    pub sort: Option<i64>,
}

/// Processes (groups) and threads (tracks) by key, indexed by dense `u32`s, plus the names and
/// sort indices the metadata events gave them (applied by [`ThreadTable::apply_names`]).
#[derive(Default)]
pub struct ThreadTable {
    procs: Vec<Proc>,
    proc_map: FxHashMap<Key, u32>,
    threads: Vec<Thread>,
    thread_map: FxHashMap<(Key, Key), u32>,
    /// Direct-mapped cache in front of `thread_map` (events hop between a few threads).
    thread_cache: [Option<(Key, Key, u32)>; 16],
    proc_meta: FxHashMap<Key, ProcMeta>,
    thread_meta: FxHashMap<(Key, Key), ThreadMeta>,
}

#[inline(always)]
fn thread_slot(pid: Key, tid: Key) -> usize {
    let v = |k: Key| match k {
        Key::Int(i) => i as u64,
        Key::Str(s) => s.0 as u64 ^ 0xABCD_0000_0000,
    };
    ((v(pid).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ v(tid)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) >> 60)
        as usize
}

fn key_text(b: &TraceBuilder, k: Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => b.string(s).to_string(),
    }
}

impl ThreadTable {
    /// The process of a pid (its group created on first sight).
    pub fn proc(&mut self, b: &mut TraceBuilder, pid: Key) -> u32 {
        if let Some(&p) = self.proc_map.get(&pid) {
            return p;
        }
        let group = b.add_group("", GroupKind::Process);
        let p = self.procs.len() as u32;
        self.procs.push(Proc { key: pid, group, device: false, instant_track: None });
        self.proc_map.insert(pid, p);
        p
    }

    /// The group of a process returned by [`ThreadTable::proc`].
    #[inline]
    pub fn group(&self, p: u32) -> GroupId {
        self.procs[p as usize].group
    }

    /// The thread of a (pid, tid) (its process and track created on first sight).
    #[inline]
    pub fn thread(&mut self, b: &mut TraceBuilder, pid: Key, tid: Key) -> u32 {
        let slot = thread_slot(pid, tid);
        if let Some((p, t, i)) = self.thread_cache[slot] {
            if p == pid && t == tid {
                return i;
            }
        }
        let i = match self.thread_map.get(&(pid, tid)) {
            Some(&i) => i,
            None => {
                let p = self.proc(b, pid);
                let group = self.procs[p as usize].group;
                let src = key_text(b, tid);
                let track = b.add_track(group, "", TrackKind::Thread, &src);
                let i = self.threads.len() as u32;
                self.threads.push(Thread {
                    proc: p,
                    key: tid,
                    track,
                    device: false,
                    stack: Vec::new(),
                    last: None,
                });
                self.thread_map.insert((pid, tid), i);
                i
            }
        };
        self.thread_cache[slot] = Some((pid, tid, i));
        i
    }

    /// A thread returned by [`ThreadTable::thread`].
    #[inline]
    pub fn get(&self, th: u32) -> &Thread {
        &self.threads[th as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, th: u32) -> &mut Thread {
        &mut self.threads[th as usize]
    }

    /// The thread carries device events (a GPU stream, an NPU queue).
    #[inline]
    pub fn mark_device(&mut self, th: u32) {
        self.threads[th as usize].device = true;
    }

    pub fn push_open(&mut self, th: u32, open: OpenSlice) {
        self.threads[th as usize].stack.push(open);
    }

    pub fn pop_open(&mut self, th: u32) -> Option<OpenSlice> {
        self.threads[th as usize].stack.pop()
    }

    /// Every `B` still open at the end of the file with its track, thread by thread, innermost
    /// first.
    pub fn drain_open(&mut self) -> Vec<(TrackId, OpenSlice)> {
        let mut out = Vec::new();
        for t in &mut self.threads {
            while let Some(open) = t.stack.pop() {
                out.push((t.track, open));
            }
        }
        out
    }

    /// The track of a process's process-scoped instants (created on first use).
    pub fn proc_instant_track(&mut self, b: &mut TraceBuilder, p: u32) -> TrackId {
        if let Some(t) = self.procs[p as usize].instant_track {
            return t;
        }
        let group = self.procs[p as usize].group;
        let t = b.add_track(group, "Process events", TrackKind::Thread, "process");
        self.procs[p as usize].instant_track = Some(t);
        t
    }

    /// The tracks of threads that carry device events (GPU streams, NPU queues).
    pub fn device_tracks(&self) -> Vec<TrackId> {
        self.threads.iter().filter(|t| t.device).map(|t| t.track).collect()
    }

    /// Metadata (`M`) of a pid, whether or not the process has events.
    pub fn proc_meta(&mut self, pid: Key) -> &mut ProcMeta {
        self.proc_meta.entry(pid).or_default()
    }

    /// Metadata (`M`) of a (pid, tid), whether or not the thread has events.
    pub fn thread_meta(&mut self, pid: Key, tid: Key) -> &mut ThreadMeta {
        self.thread_meta.entry((pid, tid)).or_default()
    }

    /// Name, kind and sort every track and group from the metadata and the dialect.
    pub fn apply_names(&mut self, b: &mut TraceBuilder, kineto: bool, furiosa: bool) {
        for th in 0..self.threads.len() {
            let t = &self.threads[th];
            let (p, tid, track, device) = (t.proc, t.key, t.track, t.device);
            let pid = self.procs[p as usize].key;
            if device {
                self.procs[p as usize].device = true;
                b.set_track_kind(track, TrackKind::Stream);
            }
            let meta = self.thread_meta.get(&(pid, tid));
            let (name, sort) = (meta.and_then(|m| m.name), meta.and_then(|m| m.sort));
            let label = match name {
                Some(n) if !b.string(n).trim().is_empty() => b.string(n).trim().to_string(),
                _ => match (tid, device) {
                    (Key::Int(i), true) if furiosa => format!("NPU queue {i}"),
                    (Key::Int(i), true) => format!("stream {i}"),
                    (Key::Int(i), false) => format!("thread {i}"),
                    (Key::Str(s), _) if !b.string(s).is_empty() => b.string(s).to_string(),
                    _ => "(no thread)".to_string(),
                },
            };
            b.set_track_name(track, &label);
            b.set_track_sort(track, sort.unwrap_or(0));
        }
        for p in 0..self.procs.len() {
            let pr = &self.procs[p];
            let (pid, group, instant_track) = (pr.key, pr.group, pr.instant_track);
            let meta = self.proc_meta.get(&pid);
            let name =
                meta.and_then(|m| m.name).map(|s| b.string(s).trim().to_string()).filter(|s| !s.is_empty());
            let labels =
                meta.and_then(|m| m.labels).map(|s| b.string(s).trim().to_string()).filter(|s| !s.is_empty());
            let sort = meta.and_then(|m| m.sort);
            let device = pr.device || labels.as_deref().is_some_and(|l| kineto && kineto::is_device_label(l));
            if device {
                self.procs[p].device = true;
                b.set_group_kind(group, GroupKind::Device);
            }
            let pid_text = key_text(b, pid);
            let label = match (&name, &labels, pid) {
                // Kineto: devices are "GPU 0" (process_name is the host program's name)
                (_, Some(l), _) if device && kineto => l.clone(),
                (_, None, Key::Int(i)) if device && kineto => format!("GPU {i}"),
                (Some(n), l, Key::Int(i)) => match l {
                    Some(l) => format!("{n} (pid {i}) [{l}]"),
                    None => format!("{n} (pid {i})"),
                },
                (Some(n), _, Key::Str(_)) => n.clone(),
                (None, Some(l), Key::Int(i)) => format!("{l} (pid {i})"),
                (None, _, Key::Int(i)) if device && furiosa => format!("NPU {i}"),
                (None, _, Key::Int(i)) if device => format!("Device {i}"),
                (None, _, Key::Int(i)) => format!("Process {i}"),
                (None, _, Key::Str(_)) if pid_text.is_empty() => "(no process)".to_string(),
                (None, _, Key::Str(_)) => pid_text,
            };
            b.set_group_name(group, &label);
            b.set_group_sort(group, sort.unwrap_or(0));
            if let Some(t) = instant_track {
                b.set_track_sort(t, i64::MIN / 2);
            }
        }
    }
}
