//! Summaries over a time window: per track event count, summed duration, busy time (union of
//! its slices; on a GPU stream only its work — kernels, memory copies and sets, `measures::GPU_BUSY`:
//! annotation ranges and sync markers are context; on a Neuron engine track its executing
//! instructions — semaphore waits left out, as in the engine's active time), utilisation and DMA bytes; per Neuron engine its
//! instructions, instruction time, active time and waiting ([`measures`](super::measures): `ENGINE_*`,
//! neuron-profile's definitions — semaphore waits are waiting, not activity). Built once per trace as
//! prefix sums ([`WindowIndex`]), so a window costs O(tracks × depths × log n) — cheap enough to
//! recompute on every zoom frame at 10 M slices. For the whole profile of a device profile,
//! [`WindowSummary::use_device_summary`] takes the engines' figures from the device summary
//! (picosecond times, over the runtime's `total_time`), so they equal neuron-profile's.

use crate::model::{Engine, SliceRef, Trace, TrackId, TrackRole};

/// Prefix sums of one track.
#[derive(Debug, Clone, Default)]
struct TrackIndex {
    /// `dur_prefix[i]` = sum of durations of slices `0..i` in the track's depth-major order
    /// (sums over one depth's contiguous range are differences).
    dur_prefix: Vec<i64>,
    /// Same for DMA bytes (slices without bytes count 0).
    bytes_prefix: Vec<u64>,
    /// Union of all slices as disjoint sorted intervals, with prefix lengths; empty when
    /// `busy_is_depth0`.
    busy_start: Vec<i64>,
    busy_end: Vec<i64>,
    busy_prefix: Vec<i64>,
    /// The union is depth 0's slices themselves (they are the only ones it needs and no two of
    /// them touch: an engine's instructions): its intervals are read from the slice columns and
    /// its prefix lengths are `dur_prefix`, 24 bytes a slice not stored.
    busy_is_depth0: bool,
}

/// Prefix sums for every track of a trace.
#[derive(Debug, Clone, Default)]
pub struct WindowIndex {
    tracks: Vec<TrackIndex>,
    /// Per Neuron engine stream: its active and occupied unions.
    engines: EngineIndex,
}

/// Totals of one track inside a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TrackWindow {
    pub track: TrackId,
    /// Slices overlapping the window (any depth).
    pub count: u64,
    /// Sum of slice durations clipped to the window (nested slices count again).
    pub sum_dur_ns: i64,
    /// Time the track had at least one slice, inside the window.
    pub busy_ns: i64,
    /// DMA bytes of slices overlapping the window (whole slices).
    pub bytes: u64,
}

/// One Neuron engine stream (all its tracks: `TensorMatrix` with `Tensor`, every NeuronCore)
/// inside a window. Definitions: [`super::measures`] `ENGINE_*`.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct EngineWindow {
    pub engine: Option<Engine>,
    /// Instructions overlapping the window, semaphore waits included.
    pub instruction_count: u64,
    /// Durations clipped to the window and summed, semaphore waits left out.
    pub instruction_time_ns: i64,
    /// Union of the non-wait instructions inside the window.
    pub active_time_ns: i64,
    /// active time / window length × 100 (for the whole profile of a device profile: over the
    /// runtime's execution time, see [`WindowSummary::use_device_summary`]).
    pub active_percent: f64,
    /// Time inside the window covered by a semaphore wait and by no executing instruction.
    pub waiting_ns: i64,
}

/// A window's summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WindowSummary {
    pub t0_ns: i64,
    pub t1_ns: i64,
    pub tracks: Vec<TrackWindow>,
    pub engines: Vec<EngineWindow>,
    pub slices: u64,
    pub dma_count: u64,
    pub dma_bytes: u64,
}

impl WindowSummary {
    pub fn window_ns(&self) -> i64 {
        (self.t1_ns - self.t0_ns).max(0)
    }
    /// busy / window length, 0..=1.
    pub fn utilisation(&self, t: &TrackWindow) -> f64 {
        let w = self.window_ns();
        if w == 0 {
            0.0
        } else {
            (t.busy_ns as f64 / w as f64).clamp(0.0, 1.0)
        }
    }
}

fn clip(s: i64, e: i64, t0: i64, t1: i64) -> i64 {
    (e.min(t1) - s.max(t0)).max(0)
}

/// The length inside `[t0, t1)` (`t0 < t1`) of `n` disjoint intervals sorted by start: the k-th
/// is `start(k)..end(k)`, and `prefix(k)` is the summed length of the first k.
fn busy_in(
    n: usize,
    start: impl Fn(usize) -> i64,
    end: impl Fn(usize) -> i64,
    prefix: impl Fn(usize) -> i64,
    t0: i64,
    t1: i64,
) -> i64 {
    // first interval ending after t0, first starting at or after t1 (both sorted)
    let lo = crate::model::partition(n, |k| end(k) <= t0);
    let hi = crate::model::partition(n, |k| start(k) < t1);
    if lo >= hi {
        return 0;
    }
    let mut sum = prefix(hi) - prefix(lo);
    // only the first and last interval can cross the window's edges
    sum -= (end(lo) - start(lo)) - clip(start(lo), end(lo), t0, t1);
    if hi - 1 != lo {
        let k = hi - 1;
        sum -= (end(k) - start(k)) - clip(start(k), end(k), t0, t1);
    }
    sum
}

/// Builds a [`WindowIndex`] in bounded steps of at most [`WindowIndexBuilder::STEP`] slices
/// (the page yields to the browser between steps, so a million-slice engine track never
/// freezes it): a track's prefix sums in chunks, then its busy union as a merge of its depths,
/// each already sorted by start, a chunk of intervals at a time.
#[derive(Debug, Default)]
pub struct WindowIndexBuilder {
    tracks: Vec<TrackIndex>,
    cur: Option<TrackBuild>,
    /// The engine unions, once every track is indexed.
    engines: EngineIndexBuilder,
    /// The trace's semaphore-wait opcode (looked up once, with the first track).
    wait_op: Option<Option<crate::StrId>>,
}

/// The track being indexed.
#[derive(Debug, Default)]
struct TrackBuild {
    ti: TrackIndex,
    has_bytes: bool,
    /// Next slice of the prefix sums.
    next: usize,
    /// The busy merge, once the prefix sums are done: per depth its next slice and its end,
    /// smallest start first.
    heap: Option<LaneHeap>,
    /// The merge is done: the busy prefix sums follow, a chunk at a time.
    merged: bool,
    /// Whether depth 0 alone makes the union and its slices never touch (checked a chunk at a
    /// time before merging: then nothing is merged nor stored), and how far it was checked.
    depth0_disjoint: Option<bool>,
    checked: usize,
    /// Which slices make the busy union: on a GPU stream with slices that are not work
    /// (annotations, sync markers) only its work, on a Neuron engine track with semaphore waits
    /// only its executing instructions — then from every depth (work nests inside annotations).
    counted: Counted,
}

/// Which slices of a track count toward its busy time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Counted {
    #[default]
    All,
    /// GPU work only ([`super::measures::GPU_BUSY`]).
    GpuWork,
    /// Every slice but this opcode's: semaphore waits on an engine track, which neuron-profile
    /// does not count as active ([`super::measures::ENGINE_ACTIVE_TIME`]).
    NotOpcode(crate::StrId),
}

/// Whether a GPU stream track has typed slices that are not work (then busy skips them).
fn has_non_work(t: &crate::model::Track) -> bool {
    t.role == TrackRole::GpuStream
        && t.slices.domain.as_ref().is_some_and(|d| {
            d.shapes
                .gpu_work
                .iter()
                .any(|&c| crate::model::GpuWork::from_code(c).is_some_and(|w| !w.is_work()))
        })
}

/// What makes a track's busy union (see [`Counted`]). `wait_op`: the trace's semaphore-wait
/// opcode, if it has one.
fn counted(t: &crate::model::Track, wait_op: Option<crate::StrId>) -> Counted {
    if has_non_work(t) {
        return Counted::GpuWork;
    }
    match (t.role, wait_op) {
        (TrackRole::Engine(_), Some(w)) if (0..t.slices.len()).any(|i| t.slices.opcode_of(i) == w) => {
            Counted::NotOpcode(w)
        }
        _ => Counted::All,
    }
}

/// The first slice of `from..end` that counts toward busy.
fn next_counted(c: &crate::model::SliceColumns, counted: Counted, from: usize, end: usize) -> Option<usize> {
    match counted {
        Counted::All => (from < end).then_some(from),
        Counted::GpuWork => (from..end).find(|&k| crate::analysis::gpu::is_gpu_work(c.gpu_work_of(k))),
        Counted::NotOpcode(op) => (from..end).find(|&k| c.opcode_of(k) != op),
    }
}

/// (start, end, slice, end of its depth's range), smallest first.
type LaneHeap = std::collections::BinaryHeap<std::cmp::Reverse<(i64, i64, usize, usize)>>;

impl WindowIndexBuilder {
    /// Slices per step.
    pub const STEP: usize = 1 << 18;

    /// Do the next step; `false` once every track is indexed.
    pub fn add_next(&mut self, trace: &Trace) -> bool {
        let Some(t) = trace.tracks.get(self.tracks.len()) else { return self.engines.add_next(trace) };
        let c = &t.slices;
        let n = c.len();
        let wait_op =
            *self.wait_op.get_or_insert_with(|| super::device_summary::semaphore_wait_opcode(trace));
        let b = self.cur.get_or_insert_with(|| {
            let has_bytes = c.domain.as_ref().is_some_and(|d| d.bytes.iter().any(|&b| b != u64::MAX));
            let mut ti = TrackIndex { dur_prefix: Vec::with_capacity(n + 1), ..TrackIndex::default() };
            ti.dur_prefix.push(0);
            if has_bytes {
                // bytes only where some slice has them (DMA tracks): 8 bytes per slice saved elsewhere
                ti.bytes_prefix.reserve(n + 1);
                ti.bytes_prefix.push(0);
            }
            TrackBuild { ti, has_bytes, counted: counted(t, wait_op), ..TrackBuild::default() }
        });
        if b.next < n {
            let end = (b.next + Self::STEP).min(n);
            let mut acc = *b.ti.dur_prefix.last().unwrap_or(&0);
            b.ti.dur_prefix.extend(c.dur_ns.iter_range(b.next..end).map(|d| {
                acc = acc.saturating_add(d);
                acc
            }));
            if let (true, Some(d)) = (b.has_bytes, c.domain.as_ref()) {
                let mut accb = *b.ti.bytes_prefix.last().unwrap_or(&0);
                b.ti.bytes_prefix.extend(d.bytes[b.next..end].iter().map(|&x| {
                    accb = accb.saturating_add(if x == u64::MAX { 0 } else { x });
                    accb
                }));
            }
            b.next = end;
            return true;
        }
        let counted = b.counted;
        let work_only = counted != Counted::All;
        let depths = match t.layout {
            _ if work_only => c.depth_count(),
            crate::model::Layout::Nested => 1.min(c.depth_count()),
            crate::model::Layout::Lanes => c.depth_count(),
        };
        if b.depth0_disjoint.is_none() {
            // the union of one depth whose slices never touch is those slices
            let r = c.depth_range(0);
            if depths != 1 || r.is_empty() || work_only {
                b.depth0_disjoint = Some(false);
            } else {
                let from = r.start + b.checked.max(1);
                let end = from.saturating_add(Self::STEP).min(r.end);
                let apart = (from..end).all(|i| c.start_ns[i] > c.end_ns(i - 1));
                b.checked = end - r.start;
                if !apart {
                    b.depth0_disjoint = Some(false);
                } else if end >= r.end {
                    b.depth0_disjoint = Some(true);
                }
            }
            return true;
        }
        if b.depth0_disjoint == Some(true) {
            let mut ti = std::mem::take(&mut b.ti);
            ti.busy_is_depth0 = true;
            self.cur = None;
            self.tracks.push(ti);
            return true;
        }
        if !b.merged {
            // union: depth 0 of a nested track covers every deeper slice; lanes need every depth
            let (starts, ends) = (&mut b.ti.busy_start, &mut b.ti.busy_end);
            let heap = b.heap.get_or_insert_with(|| {
                // at most one busy interval per merged slice: room for all of them up front (a
                // doubling copy of tens of megabytes inside one step was a long task)
                let most: usize = (0..depths).map(|d| c.depth_range(d).len()).sum();
                starts.reserve_exact(most);
                ends.reserve_exact(most);
                (0..depths)
                    .map(|d| c.depth_range(d))
                    .filter_map(|r| Some((next_counted(c, counted, r.start, r.end)?, r.end)))
                    .map(|(k, end)| std::cmp::Reverse((c.start_ns[k], c.end_ns(k), k, end)))
                    .collect()
            });
            for _ in 0..Self::STEP {
                let Some(std::cmp::Reverse((s, e, i, lane_end))) = heap.pop() else { break };
                if let Some(k) = next_counted(c, counted, i + 1, lane_end) {
                    heap.push(std::cmp::Reverse((c.start_ns[k], c.end_ns(k), k, lane_end)));
                }
                match ends.last_mut() {
                    Some(last) if s <= *last => *last = (*last).max(e),
                    _ => {
                        starts.push(s);
                        ends.push(e);
                    }
                }
            }
            if !heap.is_empty() {
                return true;
            }
            b.heap = None;
            b.merged = true;
            // merging slices left room unused: give it back when it is much
            if starts.capacity() > starts.len() + starts.len() / 4 {
                starts.shrink_to_fit();
                ends.shrink_to_fit();
            }
            b.ti.busy_prefix.reserve_exact(starts.len() + 1);
            b.ti.busy_prefix.push(0);
            return true;
        }
        // the busy prefix sums, a chunk at a time
        let ti = &mut b.ti;
        let from = ti.busy_prefix.len() - 1;
        let end = (from + Self::STEP).min(ti.busy_start.len());
        let mut a = *ti.busy_prefix.last().unwrap_or(&0);
        ti.busy_prefix.extend((from..end).map(|k| {
            a = a.saturating_add(ti.busy_end[k] - ti.busy_start[k]);
            a
        }));
        if end < ti.busy_start.len() {
            return true;
        }
        let ti = std::mem::take(&mut b.ti);
        self.cur = None;
        self.tracks.push(ti);
        true
    }
    /// Tracks indexed so far.
    pub fn tracks_done(&self) -> usize {
        self.tracks.len()
    }
    /// The index, once [`WindowIndexBuilder::add_next`] returned `false`.
    pub fn finish(self) -> WindowIndex {
        WindowIndex { tracks: self.tracks, engines: self.engines.index }
    }
}

impl WindowIndex {
    pub fn build(trace: &Trace) -> WindowIndex {
        let mut b = WindowIndexBuilder::default();
        while b.add_next(trace) {}
        b.finish()
    }

    /// Resident bytes of the index.
    pub fn heap_bytes(&self) -> usize {
        self.tracks
            .iter()
            .map(|t| {
                t.dur_prefix.capacity() * 8
                    + t.bytes_prefix.capacity() * 8
                    + (t.busy_start.capacity() + t.busy_end.capacity() + t.busy_prefix.capacity()) * 8
            })
            .sum::<usize>()
            + self.engines.heap_bytes()
    }

    /// Busy time of `track` (of `trace`, the one indexed) inside `[t0, t1)`.
    pub fn busy_ns(&self, trace: &Trace, track: TrackId, t0: i64, t1: i64) -> i64 {
        let Some(ti) = self.tracks.get(track.idx()) else { return 0 };
        if t1 <= t0 {
            return 0;
        }
        if ti.busy_is_depth0 {
            let Some(t) = trace.tracks.get(track.idx()) else { return 0 };
            let c = &t.slices;
            let r = c.depth_range(0);
            if r.end >= ti.dur_prefix.len() {
                return 0;
            }
            // the k-th interval is slice r.start + k, its length its duration
            let s = &c.start_ns[r.clone()];
            let d = |k: usize| c.dur_ns.at(r.start + k);
            busy_in(s.len(), |k| s[k], |k| s[k].saturating_add(d(k)), |k| ti.dur_prefix[r.start + k], t0, t1)
        } else {
            let (s, e, p) = (&ti.busy_start, &ti.busy_end, &ti.busy_prefix);
            busy_in(s.len(), |k| s[k], |k| e[k], |k| p[k], t0, t1)
        }
    }

    /// One track's totals inside `[t0, t1)`.
    pub fn track_window(&self, trace: &Trace, track: TrackId, t0: i64, t1: i64) -> TrackWindow {
        let mut out = TrackWindow { track, count: 0, sum_dur_ns: 0, busy_ns: 0, bytes: 0 };
        let (Some(ti), Some(t)) = (self.tracks.get(track.idx()), trace.tracks.get(track.idx())) else {
            return out;
        };
        let c = &t.slices;
        for d in 0..c.depth_count() {
            let r = c.range_at_depth(d, t0, t1);
            if r.is_empty() {
                continue;
            }
            out.count += r.len() as u64;
            if !ti.bytes_prefix.is_empty() {
                out.bytes += ti.bytes_prefix[r.end] - ti.bytes_prefix[r.start];
            }
            let mut sum = ti.dur_prefix[r.end] - ti.dur_prefix[r.start];
            let (a, b) = (r.start, r.end - 1);
            sum -= c.dur_ns.at(a) - clip(c.start_ns[a], c.end_ns(a), t0, t1);
            if b != a {
                sum -= c.dur_ns.at(b) - clip(c.start_ns[b], c.end_ns(b), t0, t1);
            }
            out.sum_dur_ns += sum;
        }
        out.busy_ns = self.busy_ns(trace, track, t0, t1);
        out
    }

    /// The summary of `[t0, t1)`, over the tracks where `include[track]` is true (all when None).
    /// An engine stream is reported when any of its tracks is included; its active time and
    /// waiting are those of all its tracks (one union per stream, as neuron-profile's).
    pub fn window(&self, trace: &Trace, t0: i64, t1: i64, include: Option<&[bool]>) -> WindowSummary {
        self.window_on_view_clock(trace, t0, t1, include, &[])
    }

    /// [`Self::window`] of a view whose tracks are drawn `track_offset_ns[track]` later than
    /// recorded (the ranks' clock alignment; missing entries are 0): `[t0, t1)` is on the view's
    /// clock, each track is summed over `[t0 − offset, t1 − offset)` of its own recorded times,
    /// so a box drawn around what the user sees sums what they see. An engine stream's active
    /// time and waiting are taken on the clock of its first included track (a stream's tracks
    /// belong to one device, so they share one offset).
    pub fn window_on_view_clock(
        &self,
        trace: &Trace,
        t0: i64,
        t1: i64,
        include: Option<&[bool]>,
        track_offset_ns: &[i64],
    ) -> WindowSummary {
        let mut s = WindowSummary { t0_ns: t0, t1_ns: t1.max(t0), ..Default::default() };
        let mut engines: Vec<EngineWindow> = Vec::new();
        // per entry of `engines`: the clock offset its unions are read on
        let mut engine_offsets: Vec<i64> = Vec::new();
        let view_t = (t0, t1);
        for (i, t) in trace.tracks.iter().enumerate() {
            if include.is_some_and(|inc| !inc.get(i).copied().unwrap_or(false)) {
                continue;
            }
            let off = track_offset_ns.get(i).copied().unwrap_or(0);
            let (t0, t1) = (view_t.0.saturating_sub(off), view_t.1.saturating_sub(off));
            let tw = self.track_window(trace, TrackId(i as u32), t0, t1);
            s.slices += tw.count;
            if t.role.is_dma() && t.role == TrackRole::DmaQueue {
                s.dma_count += tw.count;
                s.dma_bytes += tw.bytes;
            }
            if let Some(e) = t.role.engine().map(Engine::stream) {
                let k = match engines.iter().position(|x| x.engine == Some(e)) {
                    Some(k) => k,
                    None => {
                        engines.push(EngineWindow { engine: Some(e), ..Default::default() });
                        engine_offsets.push(off);
                        engines.len() - 1
                    }
                };
                let waits = self.engines.wait_time_ns(trace, TrackId(i as u32), t0, t1);
                let ew = &mut engines[k];
                ew.instruction_count += tw.count;
                ew.instruction_time_ns += tw.sum_dur_ns - waits;
            }
            s.tracks.push(tw);
        }
        let w = s.window_ns();
        let (t0, t1) = view_t;
        let mut engines: Vec<(EngineWindow, i64)> = engines.into_iter().zip(engine_offsets).collect();
        engines.sort_by_key(|e| e.0.engine);
        for (ew, off) in &mut engines {
            let (t0, t1) = (t0.saturating_sub(*off), t1.saturating_sub(*off));
            let Some(u) = ew.engine.and_then(|e| self.engines.stream(e)) else { continue };
            if t1 > t0 {
                ew.active_time_ns = u.active.len_in(t0, t1);
                ew.waiting_ns = (u.occupied.len_in(t0, t1) - ew.active_time_ns).max(0);
            }
            ew.active_percent = if w == 0 { 0.0 } else { ew.active_time_ns as f64 / w as f64 * 100.0 };
        }
        let engines: Vec<EngineWindow> = engines.into_iter().map(|e| e.0).collect();
        s.engines = engines;
        s
    }
}

impl WindowSummary {
    /// For the whole profile of a device profile: the engines' instruction count, instruction
    /// time, active time and active % taken from neuron-profile's summary as
    /// [`device_summary`](super::device_summary) computes it (picosecond times from an NTFF, the
    /// export's own values from a JSON export; active % over the runtime's `total_time`), so the
    /// Overall Summary shows neuron-profile's numbers. Waiting stays the window's.
    pub fn use_device_summary(&mut self, ds: &super::device_summary::DeviceSummary) {
        for ew in &mut self.engines {
            let Some(f) = ew.engine.and_then(|e| ds.engine(e)) else { continue };
            let ns = |secs: f64| (secs * 1e9).round() as i64;
            ew.instruction_count = f.instruction_count;
            ew.instruction_time_ns = ns(f.instruction_time_s);
            ew.active_time_ns = ns(f.active_time_s);
            if let Some(x) = f.active_fraction {
                ew.active_percent = x * 100.0;
            }
        }
    }
}

/// Per engine stream, the two unions of its instructions over all its tracks and depths.
#[derive(Debug, Clone, Default)]
struct StreamUnions {
    engine: Option<Engine>,
    /// Semaphore waits left out ([`super::measures::ENGINE_ACTIVE_TIME`]).
    active: Union,
    /// Every instruction, waits included: occupied − active = waiting.
    occupied: Union,
}

/// Disjoint sorted intervals with prefix lengths (`prefix[k]` = length of the first k).
#[derive(Debug, Clone, Default)]
struct Union {
    start: Vec<i64>,
    end: Vec<i64>,
    prefix: Vec<i64>,
}

impl Union {
    /// Add an interval starting at or after every one added before.
    fn push(&mut self, s: i64, e: i64) {
        match self.end.last_mut() {
            Some(last) if s <= *last => *last = (*last).max(e),
            _ => {
                let k = self.start.len();
                let before = match k {
                    0 => 0,
                    _ => self.prefix[k - 1].saturating_add(self.end[k - 1] - self.start[k - 1]),
                };
                self.prefix.push(before);
                self.start.push(s);
                self.end.push(e);
            }
        }
    }
    fn finish(&mut self) {
        let k = self.start.len();
        let total = match k {
            0 => 0,
            _ => self.prefix[k - 1].saturating_add(self.end[k - 1] - self.start[k - 1]),
        };
        self.prefix.push(total);
        self.start.shrink_to_fit();
        self.end.shrink_to_fit();
        self.prefix.shrink_to_fit();
    }
    fn len_in(&self, t0: i64, t1: i64) -> i64 {
        if self.prefix.len() != self.start.len() + 1 || t1 <= t0 {
            return 0;
        }
        let (s, e, p) = (&self.start, &self.end, &self.prefix);
        busy_in(s.len(), |k| s[k], |k| e[k], |k| p[k], t0, t1)
    }
    fn heap_bytes(&self) -> usize {
        (self.start.capacity() + self.end.capacity() + self.prefix.capacity()) * 8
    }
}

/// The engine part of a [`WindowIndex`].
#[derive(Debug, Clone, Default)]
struct EngineIndex {
    streams: Vec<StreamUnions>,
    /// Per engine track that has semaphore waits: prefix sums of the waits' durations in the
    /// track's depth-major order (non-waits count 0).
    wait_prefix: Vec<(TrackId, Vec<i64>)>,
    wait_op: Option<crate::StrId>,
}

impl EngineIndex {
    fn stream(&self, e: Engine) -> Option<&StreamUnions> {
        self.streams.iter().find(|u| u.engine == Some(e))
    }
    fn heap_bytes(&self) -> usize {
        self.streams.iter().map(|u| u.active.heap_bytes() + u.occupied.heap_bytes()).sum::<usize>()
            + self.wait_prefix.iter().map(|w| w.1.capacity() * 8).sum::<usize>()
    }
    /// Durations of the track's semaphore waits clipped to `[t0, t1)`, summed.
    fn wait_time_ns(&self, trace: &Trace, track: TrackId, t0: i64, t1: i64) -> i64 {
        let (Some((_, p)), Some(t)) =
            (self.wait_prefix.iter().find(|w| w.0 == track), trace.tracks.get(track.idx()))
        else {
            return 0;
        };
        let c = &t.slices;
        if p.len() != c.len() + 1 {
            return 0;
        }
        let is_wait = |i: usize| Some(c.opcode_of(i)) == self.wait_op;
        let mut sum = 0;
        for d in 0..c.depth_count() {
            let r = c.range_at_depth(d, t0, t1);
            if r.is_empty() {
                continue;
            }
            let mut part = p[r.end] - p[r.start];
            let (a, b) = (r.start, r.end - 1);
            if is_wait(a) {
                part -= c.dur_ns.at(a) - clip(c.start_ns[a], c.end_ns(a), t0, t1);
            }
            if b != a && is_wait(b) {
                part -= c.dur_ns.at(b) - clip(c.start_ns[b], c.end_ns(b), t0, t1);
            }
            sum += part;
        }
        sum
    }
}

/// Builds the [`EngineIndex`] in steps of at most [`WindowIndexBuilder::STEP`] slices: per engine
/// track its waits' prefix sums, then per engine stream one merge of all its tracks' depths in
/// start order into the two unions.
#[derive(Debug, Default)]
struct EngineIndexBuilder {
    index: EngineIndex,
    started: bool,
    /// Engine streams left to merge (the next is merged by `heap`).
    todo: Vec<Engine>,
    /// Next engine track for the wait prefix sums, and its sums so far (and whether it has a wait).
    track: usize,
    waits: Option<(Vec<i64>, bool)>,
    heap: Option<LaneHeap>,
}

impl EngineIndexBuilder {
    fn add_next(&mut self, trace: &Trace) -> bool {
        if !self.started {
            self.started = true;
            self.index.wait_op = super::device_summary::semaphore_wait_opcode(trace);
            let mut es: Vec<Engine> = trace
                .tracks
                .iter()
                .filter(|t| !t.slices.is_empty())
                .filter_map(|t| t.role.engine().map(Engine::stream))
                .collect();
            es.sort_unstable();
            es.dedup();
            es.reverse();
            self.todo = es;
            return true;
        }
        let wait_op = self.index.wait_op;
        // the engine tracks' wait prefix sums, a chunk of slices per step
        while let Some(t) = trace.tracks.get(self.track) {
            let c = &t.slices;
            if t.role.engine().is_none() || wait_op.is_none() || c.is_empty() {
                self.track += 1;
                continue;
            }
            let (p, any) = self.waits.get_or_insert_with(|| {
                let mut p = Vec::with_capacity(c.len() + 1);
                p.push(0);
                (p, false)
            });
            let from = p.len() - 1;
            let to = (from + WindowIndexBuilder::STEP).min(c.len());
            let mut acc = p.last().copied().unwrap_or(0);
            p.extend((from..to).map(|i| {
                if Some(c.opcode_of(i)) == wait_op {
                    *any = true;
                    acc = acc.saturating_add(c.dur_ns.at(i).max(0));
                }
                acc
            }));
            if to == c.len() {
                if let Some((p, true)) = self.waits.take() {
                    self.index.wait_prefix.push((TrackId(self.track as u32), p));
                }
                self.waits = None;
                self.track += 1;
            }
            return true;
        }
        let Some(&e) = self.todo.last() else { return false };
        let heap = self.heap.get_or_insert_with(|| {
            self.index.streams.push(StreamUnions { engine: Some(e), ..Default::default() });
            let mut h = LaneHeap::new();
            for (ti, t) in trace.tracks.iter().enumerate() {
                if t.role.engine().map(Engine::stream) != Some(e) {
                    continue;
                }
                let c = &t.slices;
                for d in 0..c.depth_count() {
                    let r = c.depth_range(d);
                    if !r.is_empty() {
                        // (start, track, slice, end of its depth's range)
                        h.push(std::cmp::Reverse((c.start_ns[r.start], ti as i64, r.start, r.end)));
                    }
                }
            }
            h
        });
        let Some(u) = self.index.streams.last_mut() else { return false };
        for _ in 0..WindowIndexBuilder::STEP {
            let Some(std::cmp::Reverse((s, ti, i, lane_end))) = heap.pop() else { break };
            let Some(t) = trace.tracks.get(ti as usize) else { continue };
            let c = &t.slices;
            let e = c.end_ns(i);
            u.occupied.push(s, e);
            if Some(c.opcode_of(i)) != wait_op {
                u.active.push(s, e);
            }
            if i + 1 < lane_end {
                heap.push(std::cmp::Reverse((c.start_ns[i + 1], ti, i + 1, lane_end)));
            }
        }
        if heap.is_empty() {
            u.active.finish();
            u.occupied.finish();
            self.heap = None;
            self.todo.pop();
        }
        true
    }
}

/// Up to `limit` slices of the selected tracks overlapping `[t0, t1)`, in time order (for a box
/// selection's event list), plus how many there are in all. `[t0, t1)` is on the view's clock:
/// a track drawn `track_offset_ns[track]` later than recorded is read over `[t0 − offset,
/// t1 − offset)` (as [`WindowIndex::window_on_view_clock`]; empty = as recorded).
pub fn slices_in(
    trace: &Trace,
    t0: i64,
    t1: i64,
    include: &[bool],
    limit: usize,
    track_offset_ns: &[i64],
) -> (Vec<SliceRef>, u64) {
    let mut v: Vec<(i64, SliceRef)> = Vec::new();
    let mut total = 0u64;
    for (i, t) in trace.tracks.iter().enumerate() {
        if !include.get(i).copied().unwrap_or(false) {
            continue;
        }
        let off = track_offset_ns.get(i).copied().unwrap_or(0);
        let c = &t.slices;
        for d in 0..c.depth_count() {
            let r = c.range_at_depth(d, t0.saturating_sub(off), t1.saturating_sub(off));
            total += r.len() as u64;
            for k in r.take(limit) {
                v.push((
                    c.start_ns[k].saturating_add(off),
                    SliceRef { track: TrackId(i as u32), index: k as u32 },
                ));
            }
        }
    }
    v.sort_unstable();
    v.truncate(limit);
    (v.into_iter().map(|x| x.1).collect(), total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, GroupKind, Layout, SliceDomain, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    fn trace() -> Trace {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        b.set_track_layout(pe, Layout::Lanes);
        let n = b.intern("x");
        // overlapping (lanes): [0,10) [5,15) [20,30)
        for (s, d) in [(0, 10), (5, 10), (20, 10)] {
            b.add_slice(pe, s, d, n, StrId::EMPTY, ArgsId::NONE);
        }
        let q = b.add_track(g, "q0", TrackKind::Dma, "q");
        for (s, d, by) in [(0, 4, 100), (10, 4, 200), (40, 4, 300)] {
            let h = b.add_slice(q, s, d, n, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { bytes: by, ..Default::default() });
        }
        let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
        // nested: [0,100) containing [10,20)
        b.add_slice(th, 0, 100, n, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 10, 10, n, StrId::EMPTY, ArgsId::NONE);
        b.finish()
    }

    /// On the view's clock (ranks aligned): each track is read over the view window moved back by
    /// its offset, and equals the unshifted window of its recorded times; the engine's active
    /// time is read on its track's clock; the event list is in view time.
    #[test]
    fn window_on_view_clock_reads_each_track_on_its_own_clock() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        // the engine track drawn 1000 ns later, the DMA queue 20 ns earlier, the thread as recorded
        let offs = [1000, -20];
        for (t0, t1) in [(0, 50), (5, 12), (995, 1030), (-20, 0), (1000, 1015)] {
            let s = ix.window_on_view_clock(&t, t0, t1, None, &offs);
            assert_eq!((s.t0_ns, s.t1_ns), (t0, t1));
            for (k, off) in [1000, -20, 0].into_iter().enumerate() {
                let own = ix.track_window(&t, TrackId(k as u32), t0 - off, t1 - off);
                assert_eq!(s.tracks[k], own, "track {k} over [{t0}, {t1})");
            }
            let recorded = ix.window(&t, t0 - 1000, t1 - 1000, Some(&[true, false, false]));
            assert_eq!(s.engines, recorded.engines, "the engine on its track's clock, [{t0}, {t1})");
        }
        let all = [true, true, true];
        let (list, total) = slices_in(&t, 1000, 1012, &all, 10, &offs);
        // engine [0,10) and [5,15) at 1000 and 1005; the DMA queue nothing (its [0,4) is at −20);
        // the thread nothing (it starts at 0)
        assert_eq!(total, 2);
        let starts: Vec<(u32, i64)> = list
            .iter()
            .map(|r| (r.track.0, t.tracks[r.track.idx()].slices.start_ns[r.index as usize]))
            .collect();
        assert_eq!(starts, vec![(0, 0), (0, 5)], "the engine's two first slices, in time order");
        assert_eq!(slices_in(&t, 0, 12, &all, 10, &[]).1, 6, "as recorded: two slices on each track");
    }

    /// Reference: clip every slice by brute force.
    fn brute(t: &Trace, track: usize, t0: i64, t1: i64) -> (u64, i64, i64) {
        let c = &t.tracks[track].slices;
        let mut count = 0;
        let mut sum = 0;
        let mut pts: Vec<(i64, i64)> = Vec::new();
        for i in 0..c.len() {
            let (s, e) = (c.start_ns[i], c.end_ns(i));
            let overlaps = s < t1 && (e > t0 || (s == e && s >= t0));
            if overlaps {
                count += 1;
                sum += clip(s, e, t0, t1);
                pts.push((s.max(t0), e.min(t1)));
            }
        }
        pts.sort();
        let mut busy = 0;
        let mut cur: Option<(i64, i64)> = None;
        for (s, e) in pts {
            match cur {
                Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
                Some((cs, ce)) => {
                    busy += ce - cs;
                    cur = Some((s, e));
                }
                None => cur = Some((s, e)),
            }
        }
        if let Some((cs, ce)) = cur {
            busy += ce - cs;
        }
        (count, sum, busy)
    }

    #[test]
    fn window_equals_brute_force_at_every_window() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        for t0 in -5..50 {
            for t1 in t0 + 1..t0 + 60 {
                for tr in 0..t.tracks.len() {
                    let w = ix.track_window(&t, TrackId(tr as u32), t0, t1);
                    assert_eq!(
                        (w.count, w.sum_dur_ns, w.busy_ns),
                        brute(&t, tr, t0, t1),
                        "track {tr} [{t0},{t1})"
                    );
                }
            }
        }
    }

    #[test]
    fn gpu_stream_busy_is_its_work_not_its_annotations() {
        use crate::model::GpuWork;
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("GPU 0", GroupKind::Device);
        let st = b.add_track(g, "stream 7", TrackKind::Stream, "7");
        let n = b.intern("x");
        // an annotation [0,100) around kernels [10,20) and [30,35), a memcpy [50,60), a memset
        // [60,62) touching it, a sync marker [70,90) and an untyped slice [95,97) (work)
        for (s, d, w) in [
            (0, 100, Some(GpuWork::Annotation)),
            (10, 10, Some(GpuWork::Kernel)),
            (30, 5, Some(GpuWork::Kernel)),
            (50, 10, Some(GpuWork::Memcpy)),
            (60, 2, Some(GpuWork::Memset)),
            (70, 20, Some(GpuWork::Sync)),
            (95, 2, None),
        ] {
            let h = b.add_slice(st, s, d, n, StrId::EMPTY, ArgsId::NONE);
            b.set_slice_domain(h, SliceDomain { gpu_work: w, ..Default::default() });
        }
        let t = b.finish();
        assert_eq!(t.tracks[0].role, TrackRole::GpuStream);
        let ix = WindowIndex::build(&t);
        let want = |t0: i64, t1: i64| -> i64 {
            [(10, 20), (30, 35), (50, 62), (95, 97)].iter().map(|&(s, e)| clip(s, e, t0, t1)).sum()
        };
        for t0 in -2..100 {
            for t1 in t0 + 1..102 {
                assert_eq!(ix.busy_ns(&t, TrackId(0), t0, t1), want(t0, t1), "[{t0}, {t1})");
            }
        }
        let w = ix.track_window(&t, TrackId(0), 0, 100);
        assert_eq!((w.count, w.busy_ns), (7, 29), "every slice counted as an event, only work as busy");
    }

    #[test]
    fn engines_and_dma_roll_up() {
        let t = trace();
        let ix = WindowIndex::build(&t);
        let s = ix.window(&t, 0, 50, None);
        assert_eq!(s.engines.len(), 1);
        let e = s.engines[0];
        assert_eq!(e.instruction_count, 3);
        assert_eq!(e.instruction_time_ns, 30);
        assert_eq!(e.active_time_ns, 25);
        assert!((e.active_percent - 50.0).abs() < 1e-9);
        assert_eq!((s.dma_count, s.dma_bytes), (3, 600));
        let only_dma: Vec<bool> = t.tracks.iter().map(|tr| tr.role == TrackRole::DmaQueue).collect();
        let s2 = ix.window(&t, 0, 12, Some(&only_dma));
        assert_eq!((s2.slices, s2.dma_bytes), (2, 300));
        let (list, total) = slices_in(&t, 0, 12, &only_dma, 1, &[]);
        assert_eq!((list.len(), total), (1, 2));
    }

    /// Semaphore waits are instructions but not activity: they are counted, left out of
    /// instruction time and active time, and shown as waiting; Tensor and TensorMatrix are one
    /// engine whose active time is the union of both.
    #[test]
    fn waits_are_waiting_not_active() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let (wait, op) = (b.intern("EVENT_SEMAPHORE"), b.intern("TENSOR_TENSOR"));
        let add = |b: &mut TraceBuilder, engine: Engine, slices: &[(i64, i64, bool)]| {
            let t = b.add_track(g, engine.name(), TrackKind::Stream, "0");
            b.set_track_role(t, TrackRole::Engine(engine));
            b.set_track_layout(t, Layout::Lanes);
            for &(s, d, w) in slices {
                let code = if w { wait } else { op };
                let h = b.add_slice(t, s, d, code, StrId::EMPTY, ArgsId::NONE);
                b.set_slice_domain(h, SliceDomain { opcode: code, ..Default::default() });
            }
        };
        // Vector: wait [0,100), [100,110) and [105,120) overlapping, wait [150,200), [200,210)
        let vector = [(0, 100, true), (100, 10, false), (105, 15, false), (150, 50, true), (200, 10, false)];
        add(&mut b, Engine::Vector, &vector);
        // Tensor [300,320) with a wait [280,305) under it, TensorMatrix [310,330)
        add(&mut b, Engine::Tensor, &[(280, 25, true), (300, 20, false)]);
        add(&mut b, Engine::TensorMatrix, &[(310, 20, false)]);
        let t = b.finish();
        let ix = WindowIndex::build(&t);
        let s = ix.window(&t, 0, 250, None);
        let v = s.engines.iter().find(|e| e.engine == Some(Engine::Vector)).unwrap();
        assert_eq!((v.instruction_count, v.instruction_time_ns), (5, 35));
        assert_eq!((v.active_time_ns, v.waiting_ns), (30, 150));
        assert!((v.active_percent - 12.0).abs() < 1e-9, "{}", v.active_percent);
        // the track's busy (busiest tracks, box selections) is its active time too: the same
        // word never means two numbers
        let tw = ix.track_window(&t, TrackId(0), 0, 250);
        assert_eq!((tw.count, tw.busy_ns), (5, 30), "waits are counted as events, not as busy");
        assert_eq!(ix.track_window(&t, TrackId(1), 0, 400).busy_ns, 20, "Tensor: its wait under it left out");
        // one Tensor row for both timelines
        let s = ix.window(&t, 0, 400, None);
        let engines: Vec<_> = s.engines.iter().map(|e| e.engine).collect();
        assert_eq!(engines, [Some(Engine::Tensor), Some(Engine::Vector)]);
        let te = s.engines[0];
        assert_eq!((te.instruction_count, te.instruction_time_ns), (3, 40));
        assert_eq!((te.active_time_ns, te.waiting_ns), (30, 20));
        // every window against a point-by-point count
        let spans: Vec<(Engine, i64, i64, bool)> = vector
            .iter()
            .map(|&(s, d, w)| (Engine::Vector, s, s + d, w))
            .chain([(Engine::Tensor, 280, 305, true), (Engine::Tensor, 300, 320, false)])
            .chain([(Engine::Tensor, 310, 330, false)])
            .collect();
        for t0 in (-10..340).step_by(7) {
            for t1 in (t0 + 1..350).step_by(11) {
                let s = ix.window(&t, t0, t1, None);
                for e in [Engine::Vector, Engine::Tensor] {
                    let mine: Vec<_> = spans.iter().filter(|x| x.0 == e).collect();
                    let (mut active, mut waiting) = (0, 0);
                    for p in t0..t1 {
                        let on = |w: bool| mine.iter().any(|x| x.3 == w && x.1 <= p && p < x.2);
                        if on(false) {
                            active += 1;
                        } else if on(true) {
                            waiting += 1;
                        }
                    }
                    let time: i64 = mine.iter().filter(|x| !x.3).map(|x| clip(x.1, x.2, t0, t1)).sum();
                    let count = mine.iter().filter(|x| x.1 < t1 && x.2 > t0).count() as u64;
                    let got = s.engines.iter().find(|x| x.engine == Some(e)).copied().unwrap_or_default();
                    assert_eq!(
                        (got.instruction_count, got.instruction_time_ns, got.active_time_ns, got.waiting_ns),
                        (count, time, active, waiting),
                        "{e:?} [{t0}, {t1})"
                    );
                }
            }
        }
    }

    #[test]
    fn touching_or_empty_slices_are_merged_not_read_as_the_union() {
        // (start, dur) at depth 0: touching, a zero-length one at an edge, apart
        for (slices, merged) in [
            (&[(0, 10), (10, 5), (30, 5)][..], true),
            (&[(0, 10), (10, 0), (30, 5)][..], true),
            // the empty slice nests inside the one starting with it: depth 0 stays apart
            (&[(0, 0), (0, 10), (30, 5)][..], false),
            (&[(0, 10), (11, 0), (30, 5)][..], false),
        ] {
            let mut b = TraceBuilder::new("t");
            let g = b.add_group("dev", GroupKind::Device);
            let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
            let n = b.intern("x");
            for &(s, d) in slices {
                b.add_slice(th, s, d, n, StrId::EMPTY, ArgsId::NONE);
            }
            let tr = b.finish();
            let ix = WindowIndex::build(&tr);
            assert_eq!(ix.tracks[0].busy_is_depth0, !merged, "{slices:?}");
            for t0 in -2..40 {
                for t1 in t0 + 1..42 {
                    let brute: i64 = slices.iter().map(|&(s, d)| clip(s, s + d, t0, t1)).sum();
                    assert_eq!(ix.busy_ns(&tr, TrackId(0), t0, t1), brute, "{slices:?} [{t0}, {t1})");
                }
            }
        }
    }

    #[test]
    fn stepped_index_of_a_big_lanes_track_is_the_exact_union() {
        // more slices than one step, in several overlapping lanes, plus a nested track
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("dev", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "0");
        b.set_track_layout(pe, Layout::Lanes);
        let th = b.add_track(g, "cpu", TrackKind::Thread, "1");
        let n = b.intern("x");
        let mut rng = crate::rng::Rng(7);
        let mut t = 0i64;
        for _ in 0..WindowIndexBuilder::STEP + 40_000 {
            t += rng.range(0, 7);
            b.add_slice(pe, t, rng.range(0, 20), n, StrId::EMPTY, ArgsId::NONE);
        }
        for k in 0..1000 {
            b.add_slice(th, k * 100, 50, n, StrId::EMPTY, ArgsId::NONE);
            b.add_slice(th, k * 100 + 10, 10, n, StrId::EMPTY, ArgsId::NONE);
        }
        // disjoint slices: more busy intervals than one step (the prefix sums take steps too)
        let dj = b.add_track(g, "Vector", TrackKind::Stream, "2");
        for k in 0..WindowIndexBuilder::STEP as i64 + 3000 {
            b.add_slice(dj, k * 10, 1 + k % 5, n, StrId::EMPTY, ArgsId::NONE);
        }
        let tr = b.finish();
        assert!(tr.tracks[0].slices.depth_count() > 1, "the lanes track has one lane");
        let mut steps = 0;
        let mut ib = WindowIndexBuilder::default();
        while ib.add_next(&tr) {
            steps += 1;
        }
        assert!(steps > 4, "{steps} steps");
        let ix = ib.finish();
        for (k, track) in tr.tracks.iter().enumerate() {
            // reference: every slice (lanes) or depth 0 (nested), sorted, merged
            let c = &track.slices;
            let range = if track.layout == Layout::Lanes { 0..c.len() } else { c.depth_range(0) };
            let mut iv: Vec<(i64, i64)> = range.map(|i| (c.start_ns[i], c.end_ns(i))).collect();
            iv.sort_unstable();
            let mut want: Vec<(i64, i64)> = Vec::new();
            for (s, e) in iv {
                match want.last_mut() {
                    Some(l) if s <= l.1 => l.1 = l.1.max(e),
                    _ => want.push((s, e)),
                }
            }
            let got = &ix.tracks[k];
            // the union of the lanes that overlap is stored; that of a nested track whose depth 0
            // never touches (the thread) and of the disjoint track are their depth-0 slices
            assert_eq!(got.busy_is_depth0, k != 0, "track {k}");
            let (starts, ends, prefix): (Vec<i64>, Vec<i64>, Vec<i64>) = if got.busy_is_depth0 {
                let r = c.depth_range(0);
                let p0 = got.dur_prefix[r.start];
                (
                    r.clone().map(|i| c.start_ns[i]).collect(),
                    r.clone().map(|i| c.end_ns(i)).collect(),
                    (r.start..=r.end).map(|i| got.dur_prefix[i] - p0).collect(),
                )
            } else {
                assert!(got.busy_start.len() > 1);
                (got.busy_start.clone(), got.busy_end.clone(), got.busy_prefix.clone())
            };
            assert_eq!(starts, want.iter().map(|w| w.0).collect::<Vec<_>>(), "track {k}");
            assert_eq!(ends, want.iter().map(|w| w.1).collect::<Vec<_>>(), "track {k}");
            let total: i64 = want.iter().map(|w| w.1 - w.0).sum();
            assert_eq!(*prefix.last().unwrap(), total);
            assert_eq!(prefix.len(), want.len() + 1);
            let mut acc = 0;
            assert!(prefix.iter().enumerate().all(|(i, &p)| {
                let ok = p == acc;
                acc += want.get(i).map_or(0, |w| w.1 - w.0);
                ok
            }));
            // busy time in windows: the index against the reference intervals
            let mut rng = crate::rng::Rng(k as u64 + 1);
            let span = c.end_ns(c.len() - 1) + 10;
            for _ in 0..200 {
                let (a, b) = (rng.range(-5, span), rng.range(-5, span));
                let (t0, t1) = (a.min(b), a.max(b) + 1);
                let brute: i64 = want.iter().map(|w| clip(w.0, w.1, t0, t1)).sum();
                assert_eq!(ix.busy_ns(&tr, TrackId(k as u32), t0, t1), brute, "track {k} [{t0}, {t1})");
            }
            assert_eq!(got.dur_prefix.len(), c.len() + 1);
            assert_eq!(*got.dur_prefix.last().unwrap(), c.dur_ns.iter().sum::<i64>());
        }
    }
}
