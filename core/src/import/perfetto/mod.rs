//! Perfetto's native protobuf trace (`.pftrace`, `.perfetto-trace`): a serialized
//! `Trace { repeated TracePacket packet = 1; }` (docs/formats/other-formats.md §6),
//! decoded record by record with `prost` (messages in [`proto`]), never as one giant message.
//!
//! Two passes over the packet stream:
//! 1. track descriptors (global, not interned) and process names, so events may precede the
//!    descriptor of their track;
//! 2. per packet sequence (`trusted_packet_sequence_id`): interned data (event names,
//!    categories, debug annotation names and string values, GPU stage specifications and compute
//!    kernels), `trace_packet_defaults`, incremental state (`SEQ_INCREMENTAL_STATE_CLEARED` /
//!    `incremental_state_cleared` reset it; a packet flagged `SEQ_NEEDS_INCREMENTAL_STATE` on a
//!    sequence whose state was never set or was lost through `previous_packet_dropped` is
//!    dropped with a warning, as trace processor does), sequence-scoped clocks from
//!    `ClockSnapshot` (incremental clocks and `unit_multiplier_ns`; builtin clocks other than the
//!    primary one are shifted by the latest snapshot's offset), legacy `thread_descriptor`
//!    delta timestamps, and `compressed_packets` (zlib, within the container budget).
//!
//! Events are then sorted by time (stable) and replayed: what a user sees, and what `loupe
//! summary` counts, is
//! - **slices**: `TYPE_SLICE_BEGIN`/`TYPE_SLICE_END` pairs matched with a stack per track (an end
//!   takes its begin's name and adds its own debug annotations), legacy phases `B`/`E`, async
//!   `b`/`e` and `S`/`F` (keyed by id and category, plus the pid for `local_id`s), complete legacy `X` events (`duration_us`), and
//!   `gpu_render_stage_event`s (complete, with `duration`; named by their compute kernel when
//!   they have one, else by their stage);
//! - **instants**: `TYPE_INSTANT` and legacy `I`/`i`/`R`/`n`;
//! - **counter samples**: `TYPE_COUNTER` values and every extra counter value.
//!
//! A begin without an end, or an end without a begin, is not a slice (warnings
//! `perfetto_unterminated_slice`, `perfetto_unmatched_end`). `TYPE_STATE` events and other legacy
//! phases (`C`, `M`, `T`, `p`, …) are counted in a warning, not drawn.
//!
//! Tracks: a thread descriptor (or a legacy `thread_descriptor`/pid-tid override) is a thread
//! track, one per (pid, tid), in its process's group; custom tracks go under the process of their
//! nearest process/thread ancestor (named `thread / track` under a thread), else in a "Tracks"
//! group; counter descriptors are counters (values × `unit_multiplier`, accumulated when
//! `is_incremental`, reset with the sequence's incremental state); GPU render stages go to one
//! track per hardware queue in a "GPU" device group. Flows: `flow_ids` chain an event to the next
//! event with the same id, `terminating_flow_ids` end the chain (both the v2 fixed64 and the old
//! uint64 fields); legacy `bind_id` with `flow_direction` OUT/IN/INOUT.
//!
//! Data sources Loupe does not draw (ftrace, process_tree, sys_stats, perf samples, …) are
//! counted per field and named in one `perfetto_skipped_data_sources` warning.

pub mod proto;
#[cfg(test)]
mod tests;

use crate::model::WarningKind;
use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use prost::Message;

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::limits::Item;
use crate::model::{
    ArgValue, ArgsId, CounterId, FlowEnd, GroupId, GroupKind, SliceHandle, TraceBuilder, TrackId, TrackKind,
};
use crate::strings::{FxHashMap, StrId};
use proto::*;

pub struct Perfetto;

pub const NAME: &str = "perfetto";

/// How deep `parent_uuid` chains are followed (cycles in hostile files end here).
const MAX_PARENT_DEPTH: usize = 64;
/// How deep `compressed_packets` may nest inside each other.
const MAX_COMPRESSED_DEPTH: u32 = 2;
/// Most bytes one `compressed_packets` payload may expand to. Perfetto compresses packets in
/// batches of a few hundred kilobytes; a payload beyond this is skipped with a warning (a
/// partial view: the other packets still load). All payloads together, nested ones included,
/// also spend the import's memory budget while they are read.
const MAX_COMPRESSED_PAYLOAD_BYTES: u64 = 64 << 20;

/// What decoding one packet would build, read from its wire bytes before `prost` allocates
/// anything: flow ids on its track event, values in its packed (or repeated scalar) fields, and
/// repeated messages in its track event (debug annotations and what they nest, bounded by their
/// bytes) and interned data.
#[derive(Default, Debug, PartialEq, Eq)]
struct PacketShape {
    flows: u64,
    values: u64,
    messages: u64,
}

/// [`PacketShape`] of a packet's bytes (damage stops the count: prost then refuses the packet).
fn packet_shape(mut buf: &[u8]) -> PacketShape {
    let mut shape = PacketShape::default();
    while !buf.is_empty() {
        let Ok((tag, wire)) = decode_key(&mut buf) else { break };
        if wire == WireType::LengthDelimited && (tag == 11 || tag == 12) {
            let Ok(len) = decode_varint(&mut buf) else { break };
            let Some(inner) = buf.get(..usize::try_from(len).unwrap_or(usize::MAX)) else { break };
            buf = &buf[inner.len()..];
            message_shape(inner, tag == 11, &mut shape);
            continue;
        }
        if wire == WireType::LengthDelimited && matches!(tag, 6 | 43 | 44 | 53 | 59 | 60) {
            // the other messages decoded (clock snapshot, descriptors, defaults, GPU events):
            // whatever they repeat takes at least 2 bytes a message (or 1 a value) on the wire
            let Ok(len) = decode_varint(&mut buf) else { break };
            let Some(inner) = buf.get(..usize::try_from(len).unwrap_or(usize::MAX)) else { break };
            buf = &buf[inner.len()..];
            shape.messages += len / 2;
            continue;
        }
        if skip_field(wire, tag, &mut buf, DecodeContext::default()).is_err() {
            break;
        }
    }
    shape
}

/// Refuse a packet whose decoding would build more than the budget holds, or more flows on one
/// event than [`MAX_FLOWS_PER_EVENT`](crate::limits::MAX_FLOWS_PER_EVENT).
fn check_packet(b: &TraceBuilder, raw: &[u8]) -> Result<(), ImportError> {
    let shape = packet_shape(raw);
    crate::limits::check_count(
        shape.flows,
        "flow ids on one Perfetto track event",
        crate::limits::MAX_FLOWS_PER_EVENT,
    )?;
    b.check_budget(Item::PackedValues, shape.values)?;
    let each = 2 * std::mem::size_of::<DebugAnnotation>() as u64;
    b.check_budget_bytes(Item::Messages, shape.messages, shape.messages.saturating_mul(each))
}

/// Count the fields of a `TrackEvent` (`track_event`) or `InternedData`.
fn message_shape(mut buf: &[u8], track_event: bool, shape: &mut PacketShape) {
    while !buf.is_empty() {
        let Ok((tag, wire)) = decode_key(&mut buf) else { break };
        let mut field_len = 0;
        if wire == WireType::LengthDelimited {
            let Ok(len) = decode_varint(&mut buf) else { break };
            let Some(inner) = buf.get(..usize::try_from(len).unwrap_or(usize::MAX)) else { break };
            buf = &buf[inner.len()..];
            field_len = len;
        } else if skip_field(wire, tag, &mut buf, DecodeContext::default()).is_err() {
            break;
        }
        if !track_event {
            shape.messages += 1;
            continue;
        }
        // flow_ids_old 36, flow_ids 47, terminating_flow_ids_old 42, terminating_flow_ids 48
        let flow = matches!(tag, 36 | 42 | 47 | 48);
        let scalar = flow || matches!(tag, 3 | 12 | 31 | 45 | 46);
        if scalar {
            // a packed run holds at most one value per byte (varints) or per 8 bytes (fixed64)
            let n = match (wire, tag) {
                (WireType::LengthDelimited, 46..=48) => field_len / 8,
                (WireType::LengthDelimited, _) => field_len,
                _ => 1,
            };
            shape.values += n;
            if flow {
                shape.flows += n;
            }
        } else if tag == 4 {
            // a debug annotation nests others (dict entries, array values) as deep as prost
            // allows; each takes at least 2 bytes on the wire, a whole `DebugAnnotation` decoded
            shape.messages += (field_len / 2).max(1);
        } else if tag == 22 {
            shape.messages += 1;
        }
    }
}

fn named_like_perfetto(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".pftrace") || n.ends_with(".perfetto-trace") || n.ends_with(".perfetto")
}

/// The top-level records of a `Trace`: `(offset of the packet bytes, packet bytes)`, or the
/// offset and reason where the framing breaks.
struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

enum Record<'a> {
    Packet {
        offset: usize,
        bytes: &'a [u8],
    },
    /// A top-level field other than `packet = 1` (skipped).
    Other,
    Broken {
        offset: usize,
        message: String,
    },
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;
    fn next(&mut self) -> Option<Record<'a>> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let start = self.pos;
        let mut buf = &self.bytes[start..];
        let before = buf.len();
        let broken = |m: String| Some(Record::Broken { offset: start, message: m });
        let (tag, wire) = match decode_key(&mut buf) {
            Ok(k) => k,
            Err(e) => {
                self.pos = self.bytes.len();
                return broken(format!("bad record key: {e}"));
            }
        };
        if tag == 1 && wire == WireType::LengthDelimited {
            let len = match decode_varint(&mut buf) {
                Ok(l) => l,
                Err(e) => {
                    self.pos = self.bytes.len();
                    return broken(format!("bad packet length: {e}"));
                }
            };
            let head = before - buf.len();
            if len > buf.len() as u64 {
                self.pos = self.bytes.len();
                return broken(format!("packet of {len} bytes, only {} left: truncated", buf.len()));
            }
            let len = len as usize;
            let offset = start + head;
            self.pos = offset + len;
            return Some(Record::Packet { offset, bytes: &self.bytes[offset..offset + len] });
        }
        match skip_field(wire, tag, &mut buf, DecodeContext::default()) {
            Ok(()) => {
                self.pos = start + (before - buf.len());
                Some(Record::Other)
            }
            Err(e) => {
                self.pos = self.bytes.len();
                broken(format!("bad top-level field {tag}: {e}"))
            }
        }
    }
}

/// The distinct top-level field numbers of one packet (for naming skipped data sources).
fn packet_fields(mut buf: &[u8], out: &mut Vec<u32>) {
    out.clear();
    while !buf.is_empty() {
        let Ok((tag, wire)) = decode_key(&mut buf) else { break };
        out.push(tag);
        if skip_field(wire, tag, &mut buf, DecodeContext::default()).is_err() {
            break;
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// The first packet's top-level tags include a timestamp (8) or sequence id (10) as varints.
fn first_packet_looks_like_perfetto(prefix: &[u8]) -> bool {
    let mut buf = prefix;
    let Ok((1, WireType::LengthDelimited)) = decode_key(&mut buf) else { return false };
    let Ok(len) = decode_varint(&mut buf) else { return false };
    let mut p = &buf[..buf.len().min(len as usize)];
    while !p.is_empty() {
        let Ok((tag, wire)) = decode_key(&mut p) else { return false };
        if (tag == 8 || tag == 10) && wire == WireType::Varint {
            return true;
        }
        if skip_field(wire, tag, &mut p, DecodeContext::default()).is_err() {
            return false;
        }
    }
    false
}

impl Importer for Perfetto {
    fn name(&self) -> &'static str {
        NAME
    }

    /// First byte `0x0A` (field 1, length-delimited) and a Perfetto file name, or a first
    /// packet with a timestamp / sequence id (Maybe).
    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff {
        if prefix.first() != Some(&0x0A) {
            return Sniff::No;
        }
        if named_like_perfetto(file_name) {
            Sniff::Yes
        } else if first_packet_looks_like_perfetto(prefix) {
            Sniff::Maybe
        } else {
            Sniff::No
        }
    }

    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        if file.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        // a closer look before writing anything: the first record must be a decodable packet
        let named = named_like_perfetto(file.name);
        match (Records { bytes: file.bytes, pos: 0 }).next() {
            Some(Record::Packet { offset, bytes }) => {
                check_packet(b, bytes)?;
                if let Err(e) = TracePacket::decode(bytes) {
                    if !named {
                        return Err(ImportError::NotMine(NAME));
                    }
                    return Err(ImportError::Malformed {
                        format: NAME,
                        offset: offset as u64,
                        message: format!("the first packet does not decode: {e}"),
                    });
                }
            }
            Some(Record::Broken { offset, message }) if named => {
                return Err(ImportError::Malformed { format: NAME, offset: offset as u64, message })
            }
            _ if named => {
                return Err(ImportError::Invalid {
                    format: NAME,
                    message: "the file does not start with a trace packet".into(),
                })
            }
            _ => return Err(ImportError::NotMine(NAME)),
        }
        let mut imp = Import::new(b, file.bytes.len() as u64);
        imp.descriptors(file.bytes, 0)?;
        imp.packets(file.bytes, 0, progress)?;
        imp.finish();
        Ok(())
    }
}

/// A track descriptor, as read in pass 1.
#[derive(Default)]
struct Desc {
    parent: Option<u64>,
    name: Option<String>,
    process: Option<i32>,
    thread: Option<(i32, i32, Option<String>)>,
    counter: Option<CounterDesc>,
}

#[derive(Clone, Copy)]
struct CounterDesc {
    multiplier: f64,
    incremental: bool,
    unit: Option<i32>,
}

/// Where an event is drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Key {
    /// A descriptor track that is neither a thread nor a counter.
    Uuid(u64),
    /// A counter descriptor track.
    Counter(u64),
    Thread(i32, i32),
    /// Legacy async events: (pid for local ids else 0, id, category).
    Async(i32, u64, StrId),
    /// Events of a sequence with no track (no descriptor, no defaults).
    Sequence(u32),
    /// A GPU hardware queue: (gpu id, queue iid or id).
    GpuQueue(i32, u64),
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Begin,
    End,
    Complete(i64),
    Instant,
    Counter(f64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FlowOp {
    /// `flow_ids`: continue (or start) the chain.
    Chain,
    /// `terminating_flow_ids`: end the chain here.
    Terminate,
    /// legacy `bind_id` IN / OUT.
    BindIn,
    BindOut,
}

struct Ev {
    ts_ns: i64,
    key: Key,
    kind: Kind,
    name: StrId,
    category: StrId,
    args: ArgsId,
    /// Display name of the track (GPU queues, async tracks), when the key does not say it.
    track_name: StrId,
    flows: Vec<(u64, FlowOp)>,
}

#[derive(Clone, Copy)]
struct SeqClock {
    incremental: bool,
    multiplier_ns: u64,
    last_raw: u64,
    anchor_raw: u64,
    anchor_ns: i64,
}

#[derive(Default)]
struct Seq {
    /// Incremental state set (cleared once) and not lost since.
    valid: bool,
    names: FxHashMap<u64, StrId>,
    categories: FxHashMap<u64, StrId>,
    annotation_names: FxHashMap<u64, StrId>,
    annotation_strings: FxHashMap<u64, StrId>,
    gpu_specs: FxHashMap<u64, StrId>,
    kernels: FxHashMap<u64, (StrId, StrId, StrId)>,
    defaults: Option<TracePacketDefaults>,
    thread: Option<(i32, i32)>,
    reference_us: i64,
    clocks: FxHashMap<u32, SeqClock>,
    counter_acc: FxHashMap<u64, f64>,
}

struct Import<'b> {
    b: &'b mut TraceBuilder,
    total: u64,
    done: u64,
    descs: FxHashMap<u64, Desc>,
    process_names: FxHashMap<i32, String>,
    thread_names: FxHashMap<(i32, i32), String>,
    seqs: FxHashMap<u32, Seq>,
    events: Vec<Ev>,
    /// Builtin clock id → ns to add to reach the primary trace clock (latest snapshot).
    clock_offsets: FxHashMap<u32, i64>,
    primary_clock: u32,
    skipped_sources: FxHashMap<u32, u64>,
    fields: Vec<u32>,
    // pass 3
    groups: FxHashMap<Option<i32>, GroupId>,
    gpu_groups: FxHashMap<i32, GroupId>,
    tracks: FxHashMap<Key, TrackId>,
    counters: FxHashMap<u64, CounterId>,
}

fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl<'b> Import<'b> {
    fn new(b: &'b mut TraceBuilder, total: u64) -> Self {
        Import {
            b,
            total,
            done: 0,
            descs: Default::default(),
            process_names: Default::default(),
            thread_names: Default::default(),
            seqs: Default::default(),
            events: Vec::new(),
            clock_offsets: Default::default(),
            primary_clock: CLOCK_BOOTTIME,
            skipped_sources: Default::default(),
            fields: Vec::new(),
            groups: Default::default(),
            gpu_groups: Default::default(),
            tracks: Default::default(),
            counters: Default::default(),
        }
    }

    /// Decompressed `compressed_packets` (zlib), bounded by [`MAX_COMPRESSED_PAYLOAD_BYTES`],
    /// by what is left of the expansion budget, and by the import's memory budget, which holds
    /// the buffer's capacity until [`Self::release`] gives it back.
    fn inflate(&mut self, data: &[u8]) -> Option<Vec<u8>> {
        use std::io::Read;
        // the buffer may grow to twice what it holds while it is read
        let limit = crate::limits::MAX_EXPANDED_BYTES
            .saturating_sub(self.total)
            .min(MAX_COMPRESSED_PAYLOAD_BYTES)
            .min(self.b.budget().left() / 2);
        let mut out = Vec::new();
        let r = flate2::read::ZlibDecoder::new(data).take(limit.saturating_add(1)).read_to_end(&mut out);
        match r {
            Ok(n) if (n as u64) <= limit => {
                self.total = self.total.saturating_add(n as u64);
                out.shrink_to_fit();
                let held = out.capacity() as u64;
                self.b.charge(Item::ExpandedBytes, held).ok()?;
                Some(out)
            }
            Ok(_) => {
                self.b.warn(WarningKind::PerfettoCompressedTooLarge, || {
                    format!(
                        "compressed packets expand beyond {} (what one payload, or all of them together, \
                         may take in memory); skipped",
                        crate::limits::human_bytes(limit)
                    )
                });
                None
            }
            Err(e) => {
                self.b.warn(WarningKind::PerfettoBadCompressedPackets, || {
                    format!("compressed packets: {e}; skipped")
                });
                None
            }
        }
    }

    /// Give back the budget of a decompressed buffer once it is read.
    fn release(&mut self, inner: Vec<u8>) {
        let held = inner.capacity() as u64;
        drop(inner);
        self.b.release(Item::ExpandedBytes, held, held);
    }

    /// Refuse a packet whose decoding would build more than the budget holds (a packed field of
    /// a billion varints is ~1 byte each on the wire, 8 bytes decoded), or more flows on one
    /// event than [`MAX_FLOWS_PER_EVENT`](crate::limits::MAX_FLOWS_PER_EVENT); checked on the
    /// wire bytes, before `prost` allocates.
    fn check_packet(&self, raw: &[u8]) -> Result<(), ImportError> {
        check_packet(self.b, raw)
    }

    /// Pass 1: track descriptors and process/thread names.
    fn descriptors(&mut self, bytes: &[u8], depth: u32) -> Result<(), ImportError> {
        for rec in (Records { bytes, pos: 0 }) {
            let Record::Packet { bytes, .. } = rec else { continue };
            self.check_packet(bytes)?;
            let Ok(p) = TracePacket::decode(bytes) else { continue };
            if let (Some(c), true) = (&p.compressed_packets, depth < MAX_COMPRESSED_DEPTH) {
                // decompressed once here and once in pass 2: compression is rare and small
                if let Some(inner) = self.inflate(c) {
                    let r = self.descriptors(&inner, depth + 1);
                    self.release(inner);
                    r?;
                }
            }
            if let Some(pd) = &p.process_descriptor {
                if let (Some(pid), Some(n)) =
                    (pd.pid, pd.process_name.clone().or(pd.cmdline.first().cloned()))
                {
                    self.process_names.entry(pid).or_insert(n);
                }
            }
            if let Some(td) = &p.thread_descriptor {
                if let (Some(pid), Some(tid), Some(n)) = (td.pid, td.tid, &td.thread_name) {
                    self.thread_names.entry((pid, tid)).or_insert(n.clone());
                }
            }
            let Some(d) = p.track_descriptor else { continue };
            let Some(uuid) = d.uuid else { continue };
            let name = d.name.or(d.static_name).or(d.atrace_name);
            if let Some(pr) = &d.process {
                if let (Some(pid), Some(n)) =
                    (pr.pid, pr.process_name.clone().or(pr.cmdline.first().cloned()))
                {
                    self.process_names.entry(pid).or_insert(n);
                }
            }
            let thread =
                d.thread.as_ref().and_then(|t| Some((t.pid.unwrap_or(0), t.tid?, t.thread_name.clone())));
            if let Some((pid, tid, Some(n))) = &thread {
                self.thread_names.entry((*pid, *tid)).or_insert(n.clone());
            }
            let counter = d.counter.as_ref().map(|c| CounterDesc {
                multiplier: c.unit_multiplier.filter(|&m| m != 0).map_or(1.0, |m| m as f64),
                incremental: c.is_incremental.unwrap_or(false),
                unit: c.unit,
            });
            // a re-emitted descriptor (same uuid) keeps the first one's identity
            self.descs.entry(uuid).or_insert(Desc {
                parent: d.parent_uuid.filter(|&p| p != 0),
                name,
                process: d.process.as_ref().and_then(|p| p.pid),
                thread,
                counter,
            });
        }
        Ok(())
    }

    fn report(&mut self, n: usize, progress: &mut dyn Progress) -> Result<(), ImportError> {
        let before = self.done >> 22;
        self.done = self.done.saturating_add(n as u64);
        if self.done >> 22 != before && !progress.report(self.done, self.total) {
            return Err(ImportError::Cancelled);
        }
        Ok(())
    }

    /// Pass 2: every packet in sequence order.
    fn packets(&mut self, bytes: &[u8], depth: u32, progress: &mut dyn Progress) -> Result<(), ImportError> {
        for rec in (Records { bytes, pos: 0 }) {
            match rec {
                Record::Other => {
                    self.b.warn(WarningKind::PerfettoUnknownTopLevelField, || {
                        "a top-level field other than `packet` was skipped".into()
                    });
                }
                Record::Broken { offset, message } => {
                    self.b.warn(WarningKind::PerfettoTruncated, || {
                        format!("the packet stream breaks at byte {offset}: {message}; the rest is not read")
                    });
                }
                Record::Packet { offset, bytes } => {
                    self.report(bytes.len(), progress)?;
                    self.check_packet(bytes)?;
                    match TracePacket::decode(bytes) {
                        Ok(p) => self.packet(p, bytes, depth, progress)?,
                        Err(e) => self.b.warn(WarningKind::PerfettoBadPacket, || {
                            format!("the packet at byte {offset} does not decode: {e}; skipped")
                        }),
                    }
                }
            }
        }
        Ok(())
    }

    fn packet(
        &mut self,
        p: TracePacket,
        raw: &[u8],
        depth: u32,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        if let Some(c) = &p.compressed_packets {
            if depth < MAX_COMPRESSED_DEPTH {
                if let Some(inner) = self.inflate(c) {
                    let r = self.packets(&inner, depth + 1, progress);
                    self.release(inner);
                    r?;
                }
            } else {
                self.b.warn(WarningKind::PerfettoCompressedTooDeep, || {
                    "nested compressed packets skipped".into()
                });
            }
        }
        self.count_skipped_sources(raw);
        let seq_id = p.trusted_packet_sequence_id.unwrap_or(0);
        let flags = p.sequence_flags.unwrap_or(0);
        let cleared = flags & SEQ_INCREMENTAL_STATE_CLEARED != 0 || p.incremental_state_cleared == Some(true);
        if p.previous_packet_dropped == Some(true) {
            self.b.warn(WarningKind::PerfettoDataLoss, || {
                format!("sequence {seq_id} lost packets before this one (previous_packet_dropped)")
            });
            if let Some(s) = self.seqs.get_mut(&seq_id) {
                s.valid = false;
            }
        }
        if cleared {
            self.seqs.insert(seq_id, Seq { valid: true, ..Default::default() });
        }
        let seq = self.seqs.entry(seq_id).or_default();
        if flags & SEQ_NEEDS_INCREMENTAL_STATE != 0 && !seq.valid {
            self.b.warn(WarningKind::PerfettoIncrementalStateLost, || {
                format!(
                    "a packet of sequence {seq_id} needs incremental state the trace does not have; dropped"
                )
            });
            return Ok(());
        }
        if let Some(d) = p.trace_packet_defaults.clone() {
            seq.defaults = Some(d);
        }
        if let Some(td) = &p.thread_descriptor {
            if let (Some(pid), Some(tid)) = (td.pid, td.tid) {
                seq.thread = Some((pid, tid));
            }
            if let Some(r) = td.reference_timestamp_us {
                seq.reference_us = r;
            }
        }
        if let Some(i) = &p.interned_data {
            self.intern(seq_id, i);
        }
        if let Some(cs) = &p.clock_snapshot {
            self.clock_snapshot(seq_id, cs);
        }
        let ts = self.timestamp(seq_id, &p);
        let before = self.events.len();
        if let Some(e) = &p.track_event {
            self.track_event(seq_id, ts, e);
        }
        if let Some(g) = &p.gpu_render_stage_event {
            self.gpu_event(seq_id, ts, g);
        }
        // the events wait for `finish`: each, its flows, its sort buffer and its flow end
        let new = &self.events[before..];
        if !new.is_empty() {
            let flows: usize = new.iter().map(|e| e.flows.len()).sum();
            // a vector's growth holds up to three times its length for a moment
            let bytes = (new.len() * (3 * std::mem::size_of::<Ev>() + 24) + flows * 48) as u64;
            self.b.charge_bytes(Item::Events, new.len() as u64, bytes)?;
        }
        if let Some(e) = self.b.budget_error() {
            return Err(e);
        }
        Ok(())
    }

    fn count_skipped_sources(&mut self, raw: &[u8]) {
        let mut fields = std::mem::take(&mut self.fields);
        packet_fields(raw, &mut fields);
        for &f in &fields {
            if is_bookkeeping_field(f) {
                continue;
            }
            *self.skipped_sources.entry(f).or_insert(0) += 1;
        }
        self.fields = fields;
    }

    fn intern(&mut self, seq_id: u32, i: &InternedData) {
        let b = &mut *self.b;
        let seq = self.seqs.entry(seq_id).or_default();
        let mut put = |map: &mut FxHashMap<u64, StrId>, iid: Option<u64>, name: Option<&str>| {
            if let (Some(iid), Some(n)) = (iid, name) {
                map.insert(iid, b.intern(n));
            }
        };
        for n in &i.event_names {
            put(&mut seq.names, n.iid, n.name.as_deref());
        }
        for n in &i.event_categories {
            put(&mut seq.categories, n.iid, n.name.as_deref());
        }
        for n in &i.debug_annotation_names {
            put(&mut seq.annotation_names, n.iid, n.name.as_deref());
        }
        for s in &i.debug_annotation_string_values {
            let text = s.str.as_deref().map(String::from_utf8_lossy);
            put(&mut seq.annotation_strings, s.iid, text.as_deref());
        }
        for s in &i.gpu_specifications {
            put(&mut seq.gpu_specs, s.iid, s.name.as_deref());
        }
        for k in &i.compute_kernels {
            if let Some(iid) = k.iid {
                let name = b.intern(k.name.as_deref().unwrap_or(""));
                let demangled = b.intern(k.demangled_name.as_deref().unwrap_or(""));
                let arch = b.intern(k.arch.as_deref().unwrap_or(""));
                seq.kernels.insert(iid, (name, demangled, arch));
            }
        }
    }

    fn clock_snapshot(&mut self, seq_id: u32, cs: &ClockSnapshot) {
        if let Some(p) = cs.primary_trace_clock.and_then(|c| u32::try_from(c).ok()).filter(|&c| c != 0) {
            self.primary_clock = p;
        }
        let primary = self.primary_clock;
        let at = |id: u32| cs.clocks.iter().find(|c| c.clock_id == Some(id)).and_then(|c| c.timestamp);
        let anchor = at(primary).or_else(|| {
            cs.clocks
                .iter()
                .find(|c| c.clock_id.is_some_and(|i| i < FIRST_SEQUENCE_CLOCK))
                .and_then(|c| c.timestamp)
        });
        let Some(anchor) = anchor.map(i64_of) else { return };
        for c in &cs.clocks {
            let (Some(id), Some(ts)) = (c.clock_id, c.timestamp) else { continue };
            if id >= FIRST_SEQUENCE_CLOCK {
                let seq = self.seqs.entry(seq_id).or_default();
                seq.clocks.insert(
                    id,
                    SeqClock {
                        incremental: c.is_incremental.unwrap_or(false),
                        multiplier_ns: c.unit_multiplier_ns.filter(|&m| m != 0).unwrap_or(1),
                        last_raw: ts,
                        anchor_raw: ts,
                        anchor_ns: anchor,
                    },
                );
            } else if id != primary {
                self.clock_offsets.insert(id, anchor.saturating_sub(i64_of(ts)));
            }
        }
    }

    /// The packet's time in ns on the primary trace clock.
    fn timestamp(&mut self, seq_id: u32, p: &TracePacket) -> Option<i64> {
        let seq = self.seqs.entry(seq_id).or_default();
        let Some(raw) = p.timestamp else {
            // legacy TrackEvent timing relative to the thread descriptor's reference
            let e = p.track_event.as_ref()?;
            if let Some(abs) = e.timestamp_absolute_us {
                return Some(abs.saturating_mul(1000));
            }
            let d = e.timestamp_delta_us?;
            seq.reference_us = seq.reference_us.saturating_add(d);
            return Some(seq.reference_us.saturating_mul(1000));
        };
        let clock = p
            .timestamp_clock_id
            .or_else(|| seq.defaults.as_ref().and_then(|d| d.timestamp_clock_id))
            .unwrap_or(self.primary_clock);
        if clock >= FIRST_SEQUENCE_CLOCK {
            let Some(c) = seq.clocks.get_mut(&clock) else {
                self.b.warn(WarningKind::PerfettoUnknownClock, || {
                    format!("sequence {seq_id} uses clock {clock} without a clock snapshot; its raw values are used")
                });
                return Some(i64_of(raw));
            };
            let value = if c.incremental {
                c.last_raw = c.last_raw.wrapping_add(raw);
                c.last_raw
            } else {
                raw
            };
            let delta = (value as i128 - c.anchor_raw as i128) * c.multiplier_ns as i128;
            let ns = (c.anchor_ns as i128).saturating_add(delta);
            return Some(ns.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
        }
        let off = if clock == self.primary_clock {
            0
        } else {
            self.clock_offsets.get(&clock).copied().unwrap_or(0)
        };
        Some(i64_of(raw).saturating_add(off))
    }

    fn lookup(
        &mut self,
        kind: &'static str,
        seq_id: u32,
        iid: u64,
        table: fn(&Seq) -> &FxHashMap<u64, StrId>,
    ) -> StrId {
        if let Some(&s) = self.seqs.get(&seq_id).and_then(|s| table(s).get(&iid)) {
            return s;
        }
        self.b.warn(WarningKind::PerfettoUnknownIid, || {
            format!("sequence {seq_id} refers to {kind} iid {iid}, which was not interned")
        });
        self.b.intern(&format!("<{kind} {iid}>"))
    }

    fn annotation(&mut self, seq_id: u32, a: &DebugAnnotation, out: &mut Vec<(StrId, ArgValue)>) {
        let name = match (&a.name, a.name_iid) {
            (Some(n), _) => self.b.intern(n),
            (None, Some(iid)) => self.lookup("debug annotation name", seq_id, iid, |s| &s.annotation_names),
            (None, None) => self.b.intern("arg"),
        };
        let value = self.annotation_value(seq_id, a);
        out.push((name, value));
    }

    fn annotation_value(&mut self, seq_id: u32, a: &DebugAnnotation) -> ArgValue {
        if let Some(v) = a.bool_value {
            ArgValue::Bool(v)
        } else if let Some(v) = a.int_value {
            ArgValue::Int(v)
        } else if let Some(v) = a.uint_value {
            ArgValue::UInt(v)
        } else if let Some(v) = a.double_value {
            ArgValue::Float(v)
        } else if let Some(v) = &a.string_value {
            ArgValue::Str(self.b.intern(v))
        } else if let Some(iid) = a.string_value_iid {
            ArgValue::Str(self.lookup("debug annotation string", seq_id, iid, |s| &s.annotation_strings))
        } else if let Some(v) = a.pointer_value {
            ArgValue::Str(self.b.intern(&format!("0x{v:x}")))
        } else if let Some(n) = &a.nested_value {
            ArgValue::Json(self.b.intern(&n.to_json().to_string()))
        } else if let Some(v) = &a.legacy_json_value {
            ArgValue::Json(self.b.intern(v))
        } else if !a.dict_entries.is_empty() || !a.array_values.is_empty() {
            let json = self.annotation_json(seq_id, a);
            ArgValue::Json(self.b.intern(&json.to_string()))
        } else {
            ArgValue::Null
        }
    }

    /// A nested annotation as JSON (depth bounded by prost's recursion limit on decode).
    fn annotation_json(&mut self, seq_id: u32, a: &DebugAnnotation) -> serde_json::Value {
        use serde_json::Value;
        if !a.dict_entries.is_empty() {
            let mut m = serde_json::Map::new();
            for e in &a.dict_entries {
                let key = match (&e.name, e.name_iid) {
                    (Some(n), _) => n.clone(),
                    (None, Some(iid)) => {
                        let s = self.lookup("debug annotation name", seq_id, iid, |s| &s.annotation_names);
                        self.b.string(s).to_string()
                    }
                    _ => String::new(),
                };
                let v = self.annotation_json(seq_id, e);
                m.insert(key, v);
            }
            return Value::Object(m);
        }
        if !a.array_values.is_empty() {
            return Value::Array(a.array_values.iter().map(|e| self.annotation_json(seq_id, e)).collect());
        }
        match self.annotation_value(seq_id, a) {
            ArgValue::Bool(v) => Value::Bool(v),
            ArgValue::Int(v) => Value::from(v),
            ArgValue::UInt(v) => Value::from(v),
            ArgValue::Float(v) => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
            ArgValue::Str(s) => Value::String(self.b.string(s).to_string()),
            ArgValue::Json(s) => serde_json::from_str(self.b.string(s)).unwrap_or(Value::Null),
            ArgValue::Null => Value::Null,
        }
    }

    /// The key of a descriptor track: thread descriptors become their (pid, tid) thread.
    fn key_of_uuid(&self, uuid: u64) -> Key {
        match self.descs.get(&uuid) {
            Some(Desc { thread: Some((pid, tid, _)), .. }) => Key::Thread(*pid, *tid),
            Some(Desc { counter: Some(_), .. }) => Key::Counter(uuid),
            _ => Key::Uuid(uuid),
        }
    }

    fn track_event(&mut self, seq_id: u32, ts: Option<i64>, e: &TrackEvent) {
        let Some(ts) = ts else {
            self.b.warn(WarningKind::PerfettoNoTimestamp, || {
                "a track event without a timestamp was skipped".into()
            });
            return;
        };
        let name = match (&e.name, e.name_iid, e.legacy_event.as_ref().and_then(|l| l.name_iid)) {
            (Some(n), _, _) => self.b.intern(n),
            (None, Some(iid), _) | (None, None, Some(iid)) => {
                self.lookup("event name", seq_id, iid, |s| &s.names)
            }
            _ => StrId::EMPTY,
        };
        let mut cats: Vec<StrId> = e.categories.iter().map(|c| self.b.intern(c)).collect();
        for &iid in &e.category_iids {
            let c = self.lookup("category", seq_id, iid, |s| &s.categories);
            cats.push(c);
        }
        let category = match cats.len() {
            0 => StrId::EMPTY,
            1 => cats[0],
            _ => {
                let joined = cats.iter().map(|&c| self.b.string(c).to_string()).collect::<Vec<_>>().join(",");
                self.b.intern(&joined)
            }
        };
        let mut args = Vec::new();
        for a in &e.debug_annotations {
            self.annotation(seq_id, a, &mut args);
        }
        let args = if args.is_empty() { ArgsId::NONE } else { self.b.add_args(args) };
        let seq = self.seqs.get(&seq_id);
        let defaults = seq.and_then(|s| s.defaults.as_ref()).and_then(|d| d.track_event_defaults.as_ref());
        let legacy = e.legacy_event.as_ref();
        let track_uuid =
            e.track_uuid.filter(|&u| u != 0).or(defaults.and_then(|d| d.track_uuid).filter(|&u| u != 0));
        let seq_thread = seq.and_then(|s| s.thread);
        let thread_override = legacy.and_then(|l| Some((l.pid_override?, l.tid_override?)));
        let key = match (thread_override, track_uuid) {
            (Some((pid, tid)), _) => Key::Thread(pid, tid),
            (None, Some(u)) => self.key_of_uuid(u),
            (None, None) => match seq_thread {
                Some((pid, tid)) => Key::Thread(pid, tid),
                None => Key::Sequence(seq_id),
            },
        };
        let mut flows = Vec::new();
        for &id in e.flow_ids.iter().chain(&e.flow_ids_old) {
            flows.push((id, FlowOp::Chain));
        }
        for &id in e.terminating_flow_ids.iter().chain(&e.terminating_flow_ids_old) {
            flows.push((id, FlowOp::Terminate));
        }
        if let Some(bind) = legacy.and_then(|l| l.bind_id) {
            match legacy.and_then(|l| l.flow_direction) {
                Some(1) => flows.push((bind, FlowOp::BindIn)),
                Some(2) => flows.push((bind, FlowOp::BindOut)),
                Some(3) => {
                    flows.push((bind, FlowOp::BindIn));
                    flows.push((bind, FlowOp::BindOut));
                }
                _ => {}
            }
        }
        let mut ev =
            Ev { ts_ns: ts, key, kind: Kind::Instant, name, category, args, track_name: StrId::EMPTY, flows };
        match (e.r#type, legacy) {
            (Some(TYPE_SLICE_BEGIN), _) => ev.kind = Kind::Begin,
            (Some(TYPE_SLICE_END), _) => ev.kind = Kind::End,
            (Some(TYPE_INSTANT), _) => ev.kind = Kind::Instant,
            (Some(TYPE_COUNTER), _) => {
                let Key::Counter(uuid) = key else {
                    self.b.warn(WarningKind::PerfettoCounterOnNonCounterTrack, || {
                        "a counter event is on a track without a counter descriptor; skipped".into()
                    });
                    return self.extra_counters(seq_id, ts, e);
                };
                let v = e.counter_value.map(|v| v as f64).or(e.double_counter_value).unwrap_or(0.0);
                if let Some(v) = self.counter_value(seq_id, uuid, v) {
                    ev.kind = Kind::Counter(v);
                    self.events.push(ev);
                }
                return self.extra_counters(seq_id, ts, e);
            }
            (Some(t), _) => {
                self.b.warn(WarningKind::PerfettoEventTypeSkipped, || {
                    format!("track event type {t} (e.g. TYPE_STATE) is not drawn")
                });
                return self.extra_counters(seq_id, ts, e);
            }
            (None, Some(l)) => {
                let phase = l.phase.unwrap_or(0);
                let async_key = |pid: i32| {
                    let id = l.global_id.or(l.unscoped_id).or(l.local_id).unwrap_or(0);
                    let scope = if l.local_id.is_some() { pid } else { 0 };
                    Key::Async(scope, id, category)
                };
                let pid = thread_override.or(seq_thread).map_or_else(
                    || match key {
                        Key::Thread(p, _) => p,
                        _ => 0,
                    },
                    |t| t.0,
                );
                let _ = &l.id_scope;
                match phase as u8 {
                    b'B' => ev.kind = Kind::Begin,
                    b'E' => ev.kind = Kind::End,
                    b'X' => ev.kind = Kind::Complete(l.duration_us.unwrap_or(0).saturating_mul(1000)),
                    b'I' | b'i' | b'R' => ev.kind = Kind::Instant,
                    b'b' | b'S' => {
                        ev.kind = Kind::Begin;
                        ev.key = async_key(pid);
                    }
                    b'e' | b'F' => {
                        ev.kind = Kind::End;
                        ev.key = async_key(pid);
                    }
                    b'n' => ev.key = async_key(pid),
                    _ => {
                        self.b.warn(WarningKind::PerfettoLegacyPhaseSkipped, || {
                            format!("legacy event phase {:?} is not drawn", char::from(phase as u8))
                        });
                        return self.extra_counters(seq_id, ts, e);
                    }
                }
                if let Key::Async(..) = ev.key {
                    ev.track_name = name;
                }
            }
            (None, None) => {
                // no type: an instant, as trace processor reads untyped events
                ev.kind = Kind::Instant;
            }
        }
        self.events.push(ev);
        self.extra_counters(seq_id, ts, e);
    }

    /// The drawn value of a counter sample: × unit_multiplier, accumulated when incremental.
    fn counter_value(&mut self, seq_id: u32, uuid: u64, v: f64) -> Option<f64> {
        let c = self.descs.get(&uuid).and_then(|d| d.counter)?;
        let v = v * c.multiplier;
        if !c.incremental {
            return Some(v);
        }
        let acc = self.seqs.entry(seq_id).or_default().counter_acc.entry(uuid).or_insert(0.0);
        *acc += v;
        Some(*acc)
    }

    fn extra_counters(&mut self, seq_id: u32, ts: i64, e: &TrackEvent) {
        if e.extra_counter_values.is_empty() && e.extra_double_counter_values.is_empty() {
            return;
        }
        let defaults = self
            .seqs
            .get(&seq_id)
            .and_then(|s| s.defaults.as_ref())
            .and_then(|d| d.track_event_defaults.as_ref());
        let ints = if e.extra_counter_track_uuids.is_empty() {
            defaults.map(|d| d.extra_counter_track_uuids.clone()).unwrap_or_default()
        } else {
            e.extra_counter_track_uuids.clone()
        };
        let doubles = if e.extra_double_counter_track_uuids.is_empty() {
            defaults.map(|d| d.extra_double_counter_track_uuids.clone()).unwrap_or_default()
        } else {
            e.extra_double_counter_track_uuids.clone()
        };
        let values = e
            .extra_counter_values
            .iter()
            .map(|&v| v as f64)
            .zip(ints.iter().map(Some).chain(std::iter::repeat(None)));
        let dvalues = e
            .extra_double_counter_values
            .iter()
            .copied()
            .zip(doubles.iter().map(Some).chain(std::iter::repeat(None)));
        let pairs: Vec<(f64, Option<u64>)> = values.chain(dvalues).map(|(v, u)| (v, u.copied())).collect();
        for (v, uuid) in pairs {
            let Some(uuid) = uuid.filter(|u| self.descs.get(u).is_some_and(|d| d.counter.is_some())) else {
                self.b.warn(WarningKind::PerfettoExtraCounterWithoutTrack, || {
                    "an extra counter value has no counter track (descriptor); skipped".into()
                });
                continue;
            };
            if let Some(v) = self.counter_value(seq_id, uuid, v) {
                let ev = Ev {
                    ts_ns: ts,
                    key: Key::Counter(uuid),
                    kind: Kind::Counter(v),
                    name: StrId::EMPTY,
                    category: StrId::EMPTY,
                    args: ArgsId::NONE,
                    track_name: StrId::EMPTY,
                    flows: Vec::new(),
                };
                self.events.push(ev);
            }
        }
    }

    fn gpu_event(&mut self, seq_id: u32, ts: Option<i64>, g: &GpuRenderStageEvent) {
        let Some(ts) = ts else { return };
        let stage = match (g.stage_iid, g.stage_id) {
            (Some(iid), _) => self.lookup("GPU stage", seq_id, iid, |s| &s.gpu_specs),
            (None, Some(id)) => self.b.intern(&format!("stage {id}")),
            (None, None) => self.b.intern("stage"),
        };
        let (queue_key, queue_name) = match (g.hw_queue_iid, g.hw_queue_id) {
            (Some(iid), _) => {
                // an unknown queue iid: trace processor ignores the event, so do we
                let Some(&q) = self.seqs.get(&seq_id).and_then(|s| s.gpu_specs.get(&iid)) else {
                    self.b.warn(WarningKind::PerfettoUnknownGpuQueue, || {
                        format!("a GPU render stage event names hardware queue iid {iid}, which was not interned; skipped")
                    });
                    return;
                };
                (iid, q)
            }
            (None, Some(id)) => (id as u64 | 1 << 63, self.b.intern(&format!("queue {id}"))),
            (None, None) => (u64::MAX, self.b.intern("queue")),
        };
        let kernel = g
            .kernel_iid
            .map(|iid| self.seqs.get(&seq_id).and_then(|s| s.kernels.get(&iid)).copied().ok_or(iid));
        let mut args = Vec::new();
        let stage_key = self.b.intern("stage");
        args.push((stage_key, ArgValue::Str(stage)));
        let name = match kernel {
            Some(Ok((mangled, demangled, arch))) => {
                let k = self.b.intern("kernel");
                args.push((k, ArgValue::Str(mangled)));
                if arch != StrId::EMPTY {
                    let k = self.b.intern("arch");
                    args.push((k, ArgValue::Str(arch)));
                }
                if demangled != StrId::EMPTY {
                    demangled
                } else {
                    mangled
                }
            }
            Some(Err(iid)) => {
                self.b.warn(WarningKind::PerfettoUnknownIid, || {
                    format!("compute kernel iid {iid} was not interned")
                });
                stage
            }
            None => stage,
        };
        if let Some(c) = g.context {
            let k = self.b.intern("context");
            args.push((k, ArgValue::UInt(c)));
        }
        if let Some(id) = g.event_id {
            let k = self.b.intern("event_id");
            args.push((k, ArgValue::UInt(id)));
        }
        let args = self.b.add_args(args);
        let category = self.b.intern("gpu");
        self.events.push(Ev {
            ts_ns: ts,
            key: Key::GpuQueue(g.gpu_id.unwrap_or(0), queue_key),
            kind: Kind::Complete(i64_of(g.duration.unwrap_or(0))),
            name,
            category,
            args,
            track_name: queue_name,
            flows: Vec::new(),
        });
    }

    // ---- pass 3: the model ----

    fn group(&mut self, pid: Option<i32>) -> GroupId {
        if let Some(&g) = self.groups.get(&pid) {
            return g;
        }
        let name = match pid {
            Some(pid) => match self.process_names.get(&pid) {
                Some(n) => format!("{n} (pid {pid})"),
                None => format!("process {pid}"),
            },
            None => "Tracks".to_string(),
        };
        let kind = if pid.is_some() { GroupKind::Process } else { GroupKind::Other };
        let g = self.b.add_group(&name, kind);
        if let Some(pid) = pid {
            self.b.set_group_sort(g, i64::from(pid));
        } else {
            self.b.set_group_sort(g, i64::MAX);
        }
        self.groups.insert(pid, g);
        g
    }

    /// The pid of the nearest process/thread ancestor of a descriptor (itself included).
    fn pid_of(&self, uuid: u64) -> Option<i32> {
        let mut u = uuid;
        for _ in 0..MAX_PARENT_DEPTH {
            let d = self.descs.get(&u)?;
            if let Some(pid) = d.process {
                return Some(pid);
            }
            if let Some((pid, _, _)) = d.thread {
                return Some(pid);
            }
            u = d.parent?;
        }
        None
    }

    fn desc_name(&self, uuid: u64) -> String {
        let Some(d) = self.descs.get(&uuid) else { return format!("track {uuid}") };
        let own = d.name.clone().unwrap_or_else(|| format!("track {uuid}"));
        match d.parent.and_then(|p| self.descs.get(&p)) {
            Some(Desc { thread: Some((_, tid, name)), .. }) => {
                format!("{} / {own}", name.clone().unwrap_or_else(|| format!("thread {tid}")))
            }
            _ => own,
        }
    }

    fn track(&mut self, key: Key, track_name: StrId) -> TrackId {
        if let Some(&t) = self.tracks.get(&key) {
            return t;
        }
        let (group, name, kind, source) = match key {
            Key::Thread(pid, tid) => {
                let name = match self.thread_names.get(&(pid, tid)) {
                    Some(n) => format!("{n} ({tid})"),
                    None => format!("thread {tid}"),
                };
                (self.group(Some(pid)), name, TrackKind::Thread, format!("tid {tid}"))
            }
            Key::Uuid(u) | Key::Counter(u) => {
                if !self.descs.contains_key(&u) {
                    self.b.warn(WarningKind::PerfettoUnknownTrack, || {
                        format!("events refer to track uuid {u}, which has no descriptor")
                    });
                }
                let is_process = self.descs.get(&u).is_some_and(|d| d.process.is_some());
                let name = if is_process { "process".to_string() } else { self.desc_name(u) };
                let pid = self.pid_of(u);
                (self.group(pid), name, TrackKind::Async, format!("uuid {u}"))
            }
            Key::Async(pid, id, _) => {
                let n = format!("{} ({id})", self.b.string(track_name));
                (self.group((pid != 0).then_some(pid)), n, TrackKind::Async, format!("async {id}"))
            }
            Key::Sequence(s) => {
                (self.group(None), format!("sequence {s}"), TrackKind::Thread, format!("seq {s}"))
            }
            Key::GpuQueue(gpu, _) => {
                let g = match self.gpu_groups.get(&gpu) {
                    Some(&g) => g,
                    None => {
                        let g = self.b.add_group(&format!("GPU {gpu}"), GroupKind::Device);
                        self.gpu_groups.insert(gpu, g);
                        g
                    }
                };
                (g, self.b.string(track_name).to_string(), TrackKind::Stream, format!("gpu {gpu}"))
            }
        };
        let t = self.b.add_track(group, &name, kind, &source);
        self.tracks.insert(key, t);
        t
    }

    fn counter(&mut self, uuid: u64) -> CounterId {
        if let Some(&c) = self.counters.get(&uuid) {
            return c;
        }
        let group = self.group(self.pid_of(uuid));
        let name = self.desc_name(uuid);
        let unit = match self.descs.get(&uuid).and_then(|d| d.counter).and_then(|c| c.unit) {
            Some(1) => "ns",
            Some(3) => "bytes",
            _ => "",
        };
        let c = self.b.add_counter(group, &name, unit);
        self.counters.insert(uuid, c);
        c
    }

    fn finish(&mut self) {
        if !self.skipped_sources.is_empty() {
            let mut sources: Vec<(u32, u64)> = self.skipped_sources.iter().map(|(&f, &n)| (f, n)).collect();
            sources.sort_unstable();
            let list: Vec<String> = sources
                .iter()
                .take(24)
                .map(|&(f, n)| match packet_field_name(f) {
                    Some(name) => format!("{name} ×{n}"),
                    None => format!("field {f} ×{n}"),
                })
                .collect();
            self.b.warn(WarningKind::PerfettoSkippedDataSources, || {
                format!("packets of data sources Loupe does not draw were skipped: {}", list.join(", "))
            });
        }
        let mut events = std::mem::take(&mut self.events);
        events.sort_by_key(|e| e.ts_ns);
        // event index → flow end
        let mut ends: Vec<Option<FlowEnd>> = vec![None; events.len()];
        let mut open: FxHashMap<Key, Vec<usize>> = FxHashMap::default();
        let mut unmatched_end = 0u64;
        for i in 0..events.len() {
            let e = &events[i];
            match e.kind {
                Kind::Begin => open.entry(e.key).or_default().push(i),
                Kind::End => {
                    let Some(j) = open.get_mut(&e.key).and_then(|s| s.pop()) else {
                        unmatched_end += 1;
                        continue;
                    };
                    let (begin, end) = (&events[j], &events[i]);
                    let args = self.merge_args(begin.args, end.args);
                    let (key, tn, start, dur, name, cat) = (
                        begin.key,
                        begin.track_name,
                        begin.ts_ns,
                        end.ts_ns.saturating_sub(begin.ts_ns),
                        begin.name,
                        begin.category,
                    );
                    let t = self.track(key, tn);
                    let h = self.b.add_slice(t, start, dur, name, cat, args);
                    ends[i] = Some(FlowEnd::Slice(h));
                    ends[j] = Some(FlowEnd::Slice(h));
                }
                Kind::Complete(dur) => {
                    let (key, tn, start, name, cat, args) =
                        (e.key, e.track_name, e.ts_ns, e.name, e.category, e.args);
                    let t = self.track(key, tn);
                    let h: SliceHandle = self.b.add_slice(t, start, dur, name, cat, args);
                    ends[i] = Some(FlowEnd::Slice(h));
                }
                Kind::Instant => {
                    let (key, tn, ts, name, cat, args) =
                        (e.key, e.track_name, e.ts_ns, e.name, e.category, e.args);
                    let t = self.track(key, tn);
                    self.b.add_instant(t, ts, name, cat, args);
                    ends[i] = Some(FlowEnd::Enclosing { track: t, ts_ns: ts });
                }
                Kind::Counter(v) => {
                    let Key::Counter(uuid) = e.key else { continue };
                    let ts = e.ts_ns;
                    let c = self.counter(uuid);
                    self.b.add_counter_sample(c, ts, v);
                }
            }
        }
        if unmatched_end > 0 {
            self.b.warn(WarningKind::PerfettoUnmatchedEnd, || {
                format!("{unmatched_end} slice end(s) without a begin on their track were skipped")
            });
        }
        let unterminated: usize = open.values().map(Vec::len).sum();
        if unterminated > 0 {
            self.b.warn(WarningKind::PerfettoUnterminatedSlice, || {
                format!("{unterminated} slice begin(s) never ended; not drawn")
            });
        }
        // flows, in time order
        let mut chains: FxHashMap<u64, usize> = FxHashMap::default();
        let mut binds: FxHashMap<u64, usize> = FxHashMap::default();
        let mut links: Vec<(usize, usize)> = Vec::new();
        for (i, e) in events.iter().enumerate() {
            for &(id, op) in &e.flows {
                match op {
                    FlowOp::Chain => {
                        if let Some(p) = chains.insert(id, i) {
                            links.push((p, i));
                        }
                    }
                    FlowOp::Terminate => {
                        if let Some(p) = chains.remove(&id) {
                            links.push((p, i));
                        }
                    }
                    FlowOp::BindOut => {
                        binds.insert(id, i);
                    }
                    FlowOp::BindIn => {
                        if let Some(&p) = binds.get(&id) {
                            if p != i {
                                links.push((p, i));
                            }
                        }
                    }
                }
            }
        }
        let flow_name = self.b.intern("flow");
        for (p, i) in links {
            match (ends[p], ends[i]) {
                (Some(a), Some(z)) => self.b.add_flow(a, z, flow_name, StrId::EMPTY),
                _ => self.b.warn(WarningKind::PerfettoFlowUnbound, || {
                    "a flow end is on an event that is not drawn; the flow is skipped".into()
                }),
            }
        }
    }

    fn merge_args(&mut self, a: ArgsId, z: ArgsId) -> ArgsId {
        if z == ArgsId::NONE {
            return a;
        }
        if a == ArgsId::NONE {
            return z;
        }
        let mut all = self.b.args_of(a);
        all.extend(self.b.args_of(z));
        self.b.add_args(all)
    }
}
