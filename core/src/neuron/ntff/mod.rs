//! NTFF version 5 (AWS Neuron device trace) decoder.
//!
//! Layout (all little-endian; full evidence and confidence labels in
//! `docs/formats/ntff-v5.md`, decoder outline in its §9):
//!
//! ```text
//! 0x00  u8    version (5)
//! 0x01  u24   L = metadata protobuf length
//! 0x04  4     zero
//! 0x08  u64   0x0000_0000_0065_6700 (constant, meaning unknown)
//! 0x10  0x70  zero
//! 0x80  L     metadata protobuf (NEFF path, UUID, versions, per-engine runtime programs,
//!             patch lists, trace block descriptors, DMA queues, clock-sync table, ...)
//! 0x80+L ...  record area: 16-byte records `u32 w0 | u32 w1 | u64 t`, cut into blocks by the
//!             descriptors `/4/4/1/6` (type 0 instructions, 1 semaphores/events, 2 empty,
//!             4 DMA packets, 5 throttle)
//! ```
//!
//! Raw timestamps are per-counter; `/4/4/1/10` gives each counter's value at a common sync
//! instant and its rate, so `ps = floor((t - S) * M / D)` (128-bit, floor) puts every record on
//! one picosecond timeline. The profile start `T0` is the end of the NOTIFY (hint 2)
//! instruction that precedes the NEFF program; all exported times are
//! `floor((ps - T0) / 1000)` ns, exactly like `neuron-profile --output-format json`.
//!
//! Entry points: [`sniff`], [`sniff_version`], [`parse`]. [`writer`] builds synthetic captures
//! (tests, benchmarks). Nothing here panics on hostile input; damaged record areas decode as
//! far as possible and report counted [`NtffWarning`]s.
//!
//! Tables reproduced exactly against the official JSON export (93 sample pairs, see
//! `core/tests/ntff_oracle.rs`): instructions (engine, pc, compiler_pc, timestamp, duration,
//! opcode, wait, CRCs), DMA packets, semaphore updates, throttle (`ham`), `active_time`,
//! `pending_dma` (given the static DMA trigger from the NEFF), last_hw_timestamp, event and
//! trace counts, versions, memory usage. Derived on demand: [`Ntff::pending_dma`],
//! [`Ntff::dma_throughput`] (exact step function; the JSON samples it on an unreproduced grid),
//! [`Ntff::dma_queue_label`] / [`Ntff::dma_queue_kind`] (GUESS rules that fit the corpus).
//!
//! What needs the NEFF (not available here): operand text, HLO/BIR names, semaphore names,
//! DMA variable names/shapes, aggregated DMA block rows and their membership, the identity of
//! static DMA trigger instructions (pending-DMA), and FLOP/byte summary metrics.

pub mod cost;
mod derived;
mod format;
pub mod memory;
mod metadata;
pub mod opcodes;
mod queries;
mod records;
pub mod writer;

use serde::Serialize;

pub use derived::{ActiveTime, CounterPoint, Throughput, ThroughputPoint};
pub use format::*;
pub use metadata::{
    BlockDescriptor, ClockSync, DmaQueueDescriptor, EngineProgram, MemoryUsage, Metadata, Patch, PatchKind,
    PatchList, RingBuffer, SyncEntry, VersionInfo,
};
pub use opcodes::opcode_name;
pub use queries::{pending_dma_points, StaticDmaBlocks};
pub use records::{EventSink, Expected};

/// A decoded NTFF v5 file.
#[derive(Debug, Clone, Serialize)]
pub struct Ntff {
    pub header: Header,
    pub metadata: Metadata,
    pub profile: Profile,
    /// In end-record order (not sorted by start).
    pub instructions: Vec<Instruction>,
    /// In data-record order, grouped by DMA engine as in the file.
    pub dma_packets: Vec<DmaPacket>,
    /// In file order (time-sorted in known files).
    pub semaphore_updates: Vec<SemaphoreUpdate>,
    pub throttles: Vec<Throttle>,
    /// Derived: merged busy intervals per engine, excluding EVENT_SEMAPHORE (ntff-v5.md §7).
    pub active_time: Vec<ActiveTime>,
    pub stats: RecordStats,
    pub warnings: Vec<NtffWarning>,
    /// The file length the capture's own structure describes: the header, the metadata and the
    /// record area up to the end of its last block descriptor. Longer than the file when the
    /// capture was cut short ([`Ntff::truncated`]).
    pub described_len: u64,
}

impl Ntff {
    /// `Some((file length, described length))` when the file ends before the end of the record
    /// blocks its metadata describes: the capture is incomplete, and the events decoded are the
    /// part before the cut.
    pub fn truncated(&self) -> Option<(u64, u64)> {
        (self.header.file_len < self.described_len).then_some((self.header.file_len, self.described_len))
    }
    /// Whether any event was decoded (instructions, DMA packets, semaphore updates, throttles).
    pub fn has_events(&self) -> bool {
        !(self.instructions.is_empty()
            && self.dma_packets.is_empty()
            && self.semaphore_updates.is_empty()
            && self.throttles.is_empty())
    }
}

/// Decode an NTFF v5 file. Errors only when the header or metadata cannot be read; any damage
/// in the record area yields partial tables plus [`Ntff::warnings`].
pub fn parse(bytes: &[u8]) -> Result<Ntff, NtffError> {
    let mut rows = records::Collect::default();
    let mut t = parse_into(bytes, &mut rows)?.ntff;
    let c = &t.profile.instruction_counts;
    t.active_time =
        derived::active_time(&rows.instructions, [c.tensor, c.scalar, c.gpsimd, c.vector, c.sync]);
    t.instructions = rows.instructions;
    t.dma_packets = rows.dma_packets;
    Ok(t)
}

/// A capture decoded by [`parse_into`], whose instruction and DMA-packet rows went to a sink.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// Everything decoded but the rows given to the sink: its `instructions`, `dma_packets` and
    /// `active_time` (derived from the instructions) are empty, and so are the tables derived
    /// from them on demand.
    pub ntff: Ntff,
    /// Instruction rows given to the sink.
    pub instructions: u64,
    /// DMA-packet rows given to the sink.
    pub dma_packets: u64,
}

impl Streamed {
    /// [`Ntff::has_events`] counting the rows given to the sink.
    pub fn has_events(&self) -> bool {
        self.instructions > 0 || self.dma_packets > 0 || self.ntff.has_events()
    }
}

/// Counts what passes to the caller's sink.
struct Counting<'a, E: EventSink> {
    sink: &'a mut E,
    instructions: u64,
    dma_packets: u64,
}

impl<E: EventSink> EventSink for Counting<'_, E> {
    fn expect(&mut self, e: &Expected) {
        self.sink.expect(e)
    }
    #[inline]
    fn instruction(&mut self, ins: Instruction) {
        self.instructions += 1;
        self.sink.instruction(ins)
    }
    #[inline]
    fn dma_packet(&mut self, p: DmaPacket) {
        self.dma_packets += 1;
        self.sink.dma_packet(p)
    }
}

/// [`parse`], handing each instruction and DMA-packet row to `sink` as it is decoded (in the
/// order of [`Ntff::instructions`] / [`Ntff::dma_packets`], with the same values) instead of
/// holding them: one pass over the records, no table of rows, for an importer that builds its
/// model as the rows come. [`open`] then [`Opened::decode_into`] when the sink needs the
/// metadata first.
pub fn parse_into<E: EventSink>(bytes: &[u8], sink: &mut E) -> Result<Streamed, NtffError> {
    let opened = open(bytes)?;
    let rows = opened.decode_into(sink);
    Ok(opened.finish(rows))
}

/// An NTFF whose header and metadata are read, its records not yet ([`open`]).
#[derive(Debug)]
pub struct Opened<'a> {
    bytes: &'a [u8],
    pub header: Header,
    pub metadata: Metadata,
    warnings: Warnings,
    meta_end: usize,
}

/// What [`Opened::decode_into`] found besides the rows it gave its sink (for [`Opened::finish`]).
pub struct Rows {
    decoded: records::Decoded,
    warnings: Warnings,
    instructions: u64,
    dma_packets: u64,
}

/// Read the header and metadata of an NTFF v5 file (the errors of [`parse`]).
pub fn open(bytes: &[u8]) -> Result<Opened<'_>, NtffError> {
    let header = Header::read(bytes).ok_or(NtffError::Truncated {
        what: "header",
        offset: 0,
        needed: 4,
        available: bytes.len() as u64,
    })?;
    if header.version != SUPPORTED_VERSION {
        return Err(NtffError::UnsupportedVersion { version: header.version, header });
    }
    if bytes.len() < HEADER_LEN {
        return Err(NtffError::Truncated {
            what: "header",
            offset: 0,
            needed: HEADER_LEN as u64,
            available: bytes.len() as u64,
        });
    }
    let mut warnings = Warnings::default();
    if header.word_0x08 != Some(HEADER_CONSTANT) || !header.reserved_bytes_zero {
        warnings.add(WarningKind::HeaderMismatch, || {
            format!(
                "word@0x08 = {:#x} (expected {HEADER_CONSTANT:#x}), reserved bytes zero: {}",
                header.word_0x08.unwrap_or(0),
                header.reserved_bytes_zero
            )
        });
    }
    let meta_end = HEADER_LEN + header.metadata_len as usize;
    let meta = bytes.get(HEADER_LEN..meta_end).ok_or(NtffError::Truncated {
        what: "metadata",
        offset: HEADER_LEN as u64,
        needed: header.metadata_len as u64,
        available: (bytes.len() - HEADER_LEN) as u64,
    })?;
    let metadata = metadata::decode(meta, &mut warnings)?;
    Ok(Opened { bytes, header, metadata, warnings, meta_end })
}

impl Opened<'_> {
    /// [`Ntff::described_len`].
    pub fn described_len(&self) -> u64 {
        let blocks_end = self
            .metadata
            .blocks
            .iter()
            .map(|d| d.offset_bytes.saturating_add(d.size_bytes))
            .max()
            .unwrap_or(0);
        (self.meta_end as u64).saturating_add(blocks_end)
    }
    /// [`Ntff::truncated`].
    pub fn truncated(&self) -> Option<(u64, u64)> {
        let described = self.described_len();
        (self.header.file_len < described).then_some((self.header.file_len, described))
    }
    /// Decode the record area, handing the instruction and DMA-packet rows to `sink`.
    pub fn decode_into<E: EventSink>(&self, sink: &mut E) -> Rows {
        let area = &self.bytes[self.meta_end..];
        let mut warnings = self.warnings.clone();
        let mut counting = Counting { sink, instructions: 0, dma_packets: 0 };
        let mut decoded = records::decode(area, &self.metadata, &mut warnings, &mut counting);
        decoded.stats.record_area_bytes = area.len() as u64;
        let (instructions, dma_packets) = (counting.instructions, counting.dma_packets);
        Rows { decoded, warnings, instructions, dma_packets }
    }
    /// The capture, with the rows of [`Self::decode_into`] counted but not held.
    pub fn finish(self, rows: Rows) -> Streamed {
        let described_len = self.described_len();
        let out = rows.decoded;
        let ntff = Ntff {
            header: self.header,
            metadata: self.metadata,
            profile: out.profile,
            instructions: Vec::new(),
            dma_packets: Vec::new(),
            semaphore_updates: out.semaphore_updates,
            throttles: out.throttles,
            active_time: Vec::new(),
            stats: out.stats,
            warnings: rows.warnings.list,
            described_len,
        };
        Streamed { ntff, instructions: rows.instructions, dma_packets: rows.dma_packets }
    }
}

#[cfg(test)]
mod tests;
