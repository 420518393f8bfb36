//! **Warning bands** of a Neuron device profile: time ranges where a rule about the device's
//! behaviour fires, drawn by the timeline in a strip under the ruler (issue 40 §2, Neuron
//! Explorer's automatic warnings). Each band says which rule fired, states the rule and its
//! threshold in its text, and lists the slices that made it fire, so a click can select them.
//!
//! # Rules (thresholds are the constants below)
//! - [`Rule::SmallDma`] — **small dynamic DMA transfers**. Neuron Explorer flags DGE transfers
//!   under 4 KiB (descriptor overhead dominates a small transfer). A slice fires on a DMA packet
//!   track ([`TrackRole::DmaQueue`]) whose queue type is software- or hardware-dynamic, whose bytes
//!   are known and `SMALL_DMA_MIN_BYTES < bytes < SMALL_DMA_BYTES` (4 KiB). The 4-byte packets are
//!   left out: every dynamic DMA ends with a 4-byte completion-semaphore write (the device
//!   summary leaves them out of block bytes for the same reason), so counting them would flag
//!   every dynamic transfer. An NTFF holds packets, not the Explorer's aggregated transfers; the
//!   packet is the unit here.
//! - [`Rule::Throttling`] — **throttling active**: a slice on a [`TrackRole::Throttle`] track
//!   whose limit `k / n` (its `k` and `n` arguments) is below 1 (the device summary's
//!   `throttle_active_nc0_time_ns` counts the same records).
//! - [`Rule::LongSemaphoreWait`] — **long semaphore wait**: an `EVENT_SEMAPHORE` instruction on
//!   an engine track lasting at least [`LONG_WAIT_NS`] (10 µs). Why 10 µs: the ordinary waits of
//!   the corpus (an engine waiting for its neighbour or a DMA inside the program) last up to
//!   ~4.3 µs; 10 µs is 14,000 cycles at 1.4 GHz, several complete 128×128 matmul passes, so a wait
//!   this long means the engine waited for something outside the kernel's pipelining (a host
//!   launch, a collective, a slow DMA). A relative threshold (a share of the profile) would hide
//!   multi-millisecond stalls in long profiles and flag microsecond waits in short ones.
//! - [`Rule::IdleEngine`] — **idle engine while others work**: a gap in one engine's activity
//!   (the union of its instructions, semaphore waits counted as idle — as the device summary's
//!   active time) of at least [`IDLE_MIN_FRACTION`] (5 %) of the device's profile span (first
//!   instruction start to last instruction end), during which the other engines of the same device
//!   are busy (the union of their non-wait instructions) for at least [`IDLE_OTHERS_BUSY_FRACTION`]
//!   (25 %) of the gap. A gap where the whole device is idle is not this rule (nothing to
//!   overlap with). `TensorMatrix` counts with the Tensor engine (one instruction stream). The
//!   events are the engine's instructions around the gap (the last before it, the first after).
//!
//! # Bands
//! A rule's firing intervals are sorted and merged when they overlap or are at most a gap apart;
//! the gap starts at [`MERGE_GAP_FRACTION`] of the trace span (a pixel at full zoom-out) and
//! doubles until the rule has at most [`MAX_BANDS_PER_RULE`] bands, so a pathological profile
//! gives a bounded strip. A merged band keeps every event of its parts. Bands are per trace (all
//! device groups together), in rule order, then start.

use crate::model::{ArgValue, ArgsId, Engine, GroupId, SliceRef, Trace, TrackId, TrackRole};
use crate::strings::StrId;

/// Explorer's small-DMA threshold: dynamic (DGE) transfers under 4 KiB.
pub const SMALL_DMA_BYTES: u64 = 4096;
/// Packets of at most this many bytes are completion-semaphore writes, not data.
pub const SMALL_DMA_MIN_BYTES: u64 = 4;
/// A semaphore wait at least this long is flagged (10 µs).
pub const LONG_WAIT_NS: i64 = 10_000;
/// An engine gap at least this share of the device's profile span is a candidate idle band.
pub const IDLE_MIN_FRACTION: f64 = 0.05;
/// … and it fires when the other engines are busy at least this share of the gap.
pub const IDLE_OTHERS_BUSY_FRACTION: f64 = 0.25;
/// Merge gap, as a share of the trace span, before it is widened to bound the band count.
pub const MERGE_GAP_FRACTION: f64 = 0.001;
/// At most this many bands per rule.
pub const MAX_BANDS_PER_RULE: usize = 64;

/// A warning rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Rule {
    SmallDma,
    Throttling,
    LongSemaphoreWait,
    IdleEngine,
}

impl Rule {
    pub const ALL: [Rule; 4] = [Rule::SmallDma, Rule::Throttling, Rule::LongSemaphoreWait, Rule::IdleEngine];

    /// A stable identifier (the app's `data-rule`, CSS names).
    pub fn id(self) -> &'static str {
        match self {
            Rule::SmallDma => "small-dma",
            Rule::Throttling => "throttling",
            Rule::LongSemaphoreWait => "long-semaphore-wait",
            Rule::IdleEngine => "idle-engine",
        }
    }

    /// Short title.
    pub fn title(self) -> &'static str {
        match self {
            Rule::SmallDma => "Small DMA transfers",
            Rule::Throttling => "Throttling active",
            Rule::LongSemaphoreWait => "Long semaphore wait",
            Rule::IdleEngine => "Idle engine",
        }
    }

    /// The rule and its threshold, in words.
    pub fn definition(self) -> String {
        match self {
            Rule::SmallDma => format!(
                "DMA packets under {} KiB on software/hardware dynamic (DGE) queues (Neuron Explorer's \
                 threshold; the {}-byte completion-semaphore writes left out)",
                SMALL_DMA_BYTES / 1024,
                SMALL_DMA_MIN_BYTES
            ),
            Rule::Throttling => "throttle records limiting the engines' utilisation (limit k/n < 1)".into(),
            Rule::LongSemaphoreWait => format!(
                "a semaphore-wait instruction (EVENT_SEMAPHORE) lasting at least {} µs",
                LONG_WAIT_NS / 1000
            ),
            Rule::IdleEngine => format!(
                "an engine without instructions (semaphore waits count as idle) for at least {} % of the \
                 profile while the other engines are busy at least {} % of that time",
                pct(IDLE_MIN_FRACTION),
                pct(IDLE_OTHERS_BUSY_FRACTION)
            ),
        }
    }
}

fn pct(f: f64) -> String {
    format!("{}", (f * 100.0 * 1000.0).round() / 1000.0)
}

/// One band: a time range where `rule` fired, why, and the slices behind it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WarningBand {
    pub rule: Rule,
    pub start_ns: i64,
    pub end_ns: i64,
    /// Rule, threshold and what was found in the band.
    pub text: String,
    /// The slices that made it fire, by track then index, ascending.
    #[serde(skip)]
    pub events: Vec<SliceRef>,
}

impl WarningBand {
    /// The events as per-track ascending index lists (`per_track[t]`), as the app selects them.
    pub fn per_track(&self, track_count: usize) -> Vec<Vec<u32>> {
        let mut v = vec![Vec::new(); track_count];
        for e in &self.events {
            if let Some(l) = v.get_mut(e.track.0 as usize) {
                l.push(e.index);
            }
        }
        v
    }
}

/// A firing interval before merging: `[start, end)`, its events, a short note for the text.
struct Hit {
    start: i64,
    end: i64,
    events: Vec<SliceRef>,
    note: Note,
}

/// What one hit adds to its band's text.
#[derive(Clone, Copy)]
enum Note {
    Packet { bytes: u64 },
    Throttle { num: u64, den: u64 },
    Wait { engine: Engine, dur: i64 },
    Idle { engine: Engine, dur: i64, others_busy: f64 },
}

/// Every rule's bands over the trace (empty when nothing fires, or for a profile without
/// engine / DMA / throttle tracks).
pub fn warning_bands(trace: &Trace) -> Vec<WarningBand> {
    let span = (trace.end_ns - trace.start_ns).max(1);
    let mut hits: Vec<(Rule, Vec<Hit>)> = Rule::ALL.iter().map(|&r| (r, Vec::new())).collect();
    let wait_op = trace.strings.find("EVENT_SEMAPHORE");
    let (k_key, n_key) = (trace.strings.find("k"), trace.strings.find("n"));
    for (ti, track) in trace.tracks.iter().enumerate() {
        let tid = TrackId(ti as u32);
        let c = &track.slices;
        match track.role {
            TrackRole::DmaQueue if track.dma_queue_type.is_some_and(|q| !q.is_static()) => {
                for i in 0..c.len() {
                    let bytes = c.bytes_of(i);
                    if bytes != u64::MAX && bytes > SMALL_DMA_MIN_BYTES && bytes < SMALL_DMA_BYTES {
                        hits[0].1.push(hit(c.start_ns[i], c.end_ns(i), tid, i, Note::Packet { bytes }));
                    }
                }
            }
            TrackRole::Throttle => {
                for i in 0..c.len() {
                    let (num, den) = (arg_u64(trace, c.args[i], k_key), arg_u64(trace, c.args[i], n_key));
                    if let (Some(num), Some(den)) = (num, den) {
                        if den > 0 && num < den {
                            hits[1].1.push(hit(
                                c.start_ns[i],
                                c.end_ns(i),
                                tid,
                                i,
                                Note::Throttle { num, den },
                            ));
                        }
                    }
                }
            }
            TrackRole::Engine(e) => {
                let Some(w) = wait_op else { continue };
                for i in 0..c.len() {
                    if c.dur_ns.at(i) >= LONG_WAIT_NS && c.opcode_of(i) == w {
                        let note = Note::Wait { engine: e.stream(), dur: c.dur_ns.at(i) };
                        hits[2].1.push(hit(c.start_ns[i], c.end_ns(i), tid, i, note));
                    }
                }
            }
            _ => {}
        }
    }
    hits[3].1 = idle_hits(trace, wait_op);
    let mut out = Vec::new();
    for (rule, h) in hits {
        out.extend(merge(rule, h, span));
    }
    out
}

fn hit(start: i64, end: i64, track: TrackId, i: usize, note: Note) -> Hit {
    Hit { start, end: end.max(start), events: vec![SliceRef { track, index: i as u32 }], note }
}

fn arg_u64(trace: &Trace, args: ArgsId, key: Option<StrId>) -> Option<u64> {
    let key = key?;
    if args == ArgsId::NONE {
        return None;
    }
    trace.args.get(args).find(|(k, _)| *k == key).and_then(|(_, v)| match v {
        ArgValue::UInt(u) => Some(u),
        ArgValue::Int(i) => u64::try_from(i).ok(),
        ArgValue::Float(f) if f >= 0.0 && f.fract() == 0.0 => Some(f as u64),
        _ => None,
    })
}

use crate::spans::union;

/// Length of `u` (a union) inside `[a, b)`.
fn covered(u: &[(i64, i64)], a: i64, b: i64) -> i64 {
    let first = u.partition_point(|x| x.1 <= a);
    u[first..].iter().take_while(|x| x.0 < b).map(|x| x.1.min(b) - x.0.max(a)).filter(|&d| d > 0).sum()
}

/// One engine of one device: its non-wait instructions `(start, end, slice)`.
type EngineWork = (GroupId, Engine, Vec<(i64, i64, SliceRef)>);

/// The idle-engine rule, per device group.
fn idle_hits(trace: &Trace, wait_op: Option<StrId>) -> Vec<Hit> {
    // (group, engine stream) → instruction intervals (waits left out) with their slices
    let mut per: Vec<EngineWork> = Vec::new();
    for (ti, track) in trace.tracks.iter().enumerate() {
        let TrackRole::Engine(e) = track.role else { continue };
        let e = e.stream();
        let c = &track.slices;
        let idx = match per.iter().position(|p| p.0 == track.group && p.1 == e) {
            Some(i) => i,
            None => {
                per.push((track.group, e, Vec::new()));
                per.len() - 1
            }
        };
        let v = &mut per[idx].2;
        for i in 0..c.len() {
            if wait_op.is_some_and(|w| c.opcode_of(i) == w) {
                continue;
            }
            let r = SliceRef { track: TrackId(ti as u32), index: i as u32 };
            v.push((c.start_ns[i], c.end_ns(i), r));
        }
    }
    let mut out = Vec::new();
    let mut groups: Vec<GroupId> = per.iter().map(|p| p.0).collect();
    groups.sort_unstable_by_key(|g| g.0);
    groups.dedup();
    for g in groups {
        let mut engines: Vec<&mut EngineWork> =
            per.iter_mut().filter(|p| p.0 == g && !p.2.is_empty()).collect();
        if engines.len() < 2 {
            continue;
        }
        for e in engines.iter_mut() {
            e.2.sort_unstable_by_key(|x| (x.0, x.1));
        }
        let lo = engines.iter().map(|e| e.2.first().map_or(i64::MAX, |x| x.0)).min().unwrap_or(0);
        let hi = engines.iter().flat_map(|e| e.2.iter().map(|x| x.1)).max().unwrap_or(lo);
        let min_gap = ((hi - lo) as f64 * IDLE_MIN_FRACTION).ceil().max(1.0) as i64;
        let unions: Vec<Vec<(i64, i64)>> =
            engines.iter().map(|e| union(e.2.iter().map(|x| (x.0, x.1)).collect())).collect();
        for (k, e) in engines.iter().enumerate() {
            let others = union(
                unions
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .flat_map(|(_, u)| u.iter().copied())
                    .collect(),
            );
            // gaps of this engine's union inside the device span [lo, hi)
            let u = &unions[k];
            let mut prev_end = lo;
            let mut gaps = Vec::new();
            for &(s, en) in u.iter().chain(std::iter::once(&(hi, hi))) {
                if s - prev_end >= min_gap {
                    gaps.push((prev_end, s));
                }
                prev_end = prev_end.max(en);
            }
            for (a, b) in gaps {
                let busy = covered(&others, a, b);
                let share = busy as f64 / (b - a) as f64;
                if share < IDLE_OTHERS_BUSY_FRACTION {
                    continue;
                }
                // the engine's instructions around the gap: last ending at or before a, first at or after b
                let mut events = Vec::new();
                if let Some(x) = e.2.iter().filter(|x| x.1 <= a).max_by_key(|x| x.1) {
                    events.push(x.2);
                }
                let after = e.2.partition_point(|x| x.0 < b);
                if let Some(x) = e.2.get(after) {
                    events.push(x.2);
                }
                out.push(Hit {
                    start: a,
                    end: b,
                    events,
                    note: Note::Idle { engine: e.1, dur: b - a, others_busy: share },
                });
            }
        }
    }
    out
}

/// Merge a rule's hits into at most [`MAX_BANDS_PER_RULE`] bands.
fn merge(rule: Rule, mut hits: Vec<Hit>, span: i64) -> Vec<WarningBand> {
    if hits.is_empty() {
        return Vec::new();
    }
    hits.sort_by_key(|h| (h.start, h.end));
    let mut gap = ((span as f64 * MERGE_GAP_FRACTION) as i64).max(0);
    let groups = loop {
        let mut groups: Vec<(usize, usize, i64)> = Vec::new(); // hit range, end
        for (i, h) in hits.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if h.start <= g.2.saturating_add(gap) => {
                    g.1 = i + 1;
                    g.2 = g.2.max(h.end);
                }
                _ => groups.push((i, i + 1, h.end)),
            }
        }
        if groups.len() <= MAX_BANDS_PER_RULE {
            break groups;
        }
        gap = gap.saturating_mul(2).max(1);
    };
    groups
        .into_iter()
        .map(|(a, b, end)| {
            let part = &hits[a..b];
            let mut events: Vec<SliceRef> = part.iter().flat_map(|h| h.events.iter().copied()).collect();
            events.sort_unstable_by_key(|r| (r.track.0, r.index));
            events.dedup();
            WarningBand { rule, start_ns: part[0].start, end_ns: end, text: band_text(rule, part), events }
        })
        .collect()
}

fn band_text(rule: Rule, part: &[Hit]) -> String {
    let found = match rule {
        Rule::SmallDma => {
            let bytes: u64 = part
                .iter()
                .map(|h| match h.note {
                    Note::Packet { bytes } => bytes,
                    _ => 0,
                })
                .sum();
            format!("{} small packets, {} bytes in all", part.len(), bytes)
        }
        Rule::Throttling => {
            let mut limits: Vec<String> = part
                .iter()
                .filter_map(|h| match h.note {
                    Note::Throttle { num, den } => Some(format!("{num}/{den}")),
                    _ => None,
                })
                .collect();
            limits.sort();
            limits.dedup();
            format!("{} throttle records, limit {}", part.len(), limits.join(", "))
        }
        Rule::LongSemaphoreWait => {
            let list: Vec<String> = part
                .iter()
                .take(4)
                .filter_map(|h| match h.note {
                    Note::Wait { engine, dur } => {
                        Some(format!("{} {}", engine.name(), crate::time::format_duration_ns(dur)))
                    }
                    _ => None,
                })
                .collect();
            let more = if part.len() > 4 { format!(" and {} more", part.len() - 4) } else { String::new() };
            format!("{} waits: {}{}", part.len(), list.join(", "), more)
        }
        Rule::IdleEngine => {
            let list: Vec<String> = part
                .iter()
                .take(4)
                .filter_map(|h| match h.note {
                    Note::Idle { engine, dur, others_busy } => Some(format!(
                        "{} idle {} (others busy {:.0} %)",
                        engine.name(),
                        crate::time::format_duration_ns(dur),
                        others_busy * 100.0
                    )),
                    _ => None,
                })
                .collect();
            let more = if part.len() > 4 { format!(" and {} more", part.len() - 4) } else { String::new() };
            format!("{}{}", list.join(", "), more)
        }
    };
    format!("{}: {}. Rule: {}.", rule.title(), found, rule.definition())
}

#[cfg(test)]
mod tests;
