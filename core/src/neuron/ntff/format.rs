//! The NTFF v5 format's constants, header, errors, warnings and decoded record types: what the
//! decoders ([`super::metadata`], [`super::records`], [`super::derived`]) share with the entry
//! point ([`super::parse`]).

use serde::Serialize;
use thiserror::Error;

use super::opcodes::{self, opcode_name};
use crate::neuron::protowire::WireError;

/// Size of the fixed header; the metadata protobuf starts here.
pub const HEADER_LEN: usize = 0x80;
/// The only version this decoder reads.
pub const SUPPORTED_VERSION: u8 = 5;
/// u64 at 0x08 in every known v5 file.
pub const HEADER_CONSTANT: u64 = 0x0065_6700;
/// Bytes per trace record.
pub const RECORD_LEN: usize = 16;
/// Number of compute engines (PE, ACT, POOL, DVE, SP).
pub const ENGINE_COUNT: usize = 5;

/// JSON `subgroup` of engine index 0..4 (PE, ACT, POOL, DVE, SP).
pub const ENGINE_SUBGROUPS: [&str; ENGINE_COUNT] = ["Tensor", "Scalar", "GpSimd", "Vector", "Sync"];
/// Lower-case engine names used by the JSON `active_time` table.
pub const ENGINE_ACTIVE_NAMES: [&str; ENGINE_COUNT] = ["tensor", "scalar", "gpsimd", "vector", "sync"];
/// Hardware engine names.
pub const ENGINE_HW_NAMES: [&str; ENGINE_COUNT] = ["PE", "ACT", "POOL", "DVE", "SP"];
/// `/4/4/1/10/<n>` clock-sync entry used by each engine's instruction records (POOL and DVE swapped).
pub const ENGINE_SYNC_SLOT: [u32; ENGINE_COUNT] = [1, 2, 4, 3, 5];
/// Clock-sync entry of block-1 (semaphore/event) records.
pub const EVENT_SYNC_SLOT: u32 = 6;
/// Clock-sync entry of block-5 (throttle) records.
pub const THROTTLE_SYNC_SLOT: u32 = 7;
/// Clock-sync entry of block-4 (DMA) records; the k-th occurrence belongs to DMA engine k.
pub const DMA_SYNC_SLOT: u32 = 8;

/// Engine subgroup name (`"Tensor"` …), or `"Unknown"` for indices above 4.
pub fn engine_subgroup(engine: u8) -> &'static str {
    ENGINE_SUBGROUPS.get(engine as usize).copied().unwrap_or("Unknown")
}

// ---------------------------------------------------------------------------------------------
// Errors and warnings
// ---------------------------------------------------------------------------------------------

/// Fatal decoding errors. Damage inside the record area is never fatal (see [`NtffWarning`]).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NtffError {
    #[error("truncated NTFF: {what} at byte {offset} needs {needed} bytes, {available} available")]
    Truncated { what: &'static str, offset: u64, needed: u64, available: u64 },
    #[error(
        "NTFF version {version} is not supported (this decoder reads version 5); \
         header: metadata length {} bytes, word@0x08 {}, file {} bytes",
        header.metadata_len,
        header.word_0x08.map(|w| format!("{w:#x}")).unwrap_or_else(|| "n/a".into()),
        header.file_len
    )]
    UnsupportedVersion { version: u8, header: Header },
    #[error("not an NTFF file: {0}")]
    NotNtff(&'static str),
    #[error("bad NTFF metadata protobuf at {path}: {error}")]
    BadMetadata { path: &'static str, error: WireError },
    #[error("NTFF metadata has no {0}")]
    MissingMetadata(&'static str),
}

/// Kinds of non-fatal anomalies. Each kind is reported once with a count and one example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum WarningKind {
    /// Header bytes differ from every known v5 file (constant at 0x08, zero padding).
    HeaderMismatch,
    /// A metadata sub-message is malformed; its decodable prefix was used.
    MetadataMalformed,
    /// A metadata value is out of range (e.g. engine index) and was ignored.
    MetadataValue,
    /// The NEFF UUID field holds fewer than 16 bytes (UUID contains a 0x00 byte).
    UuidTruncated,
    /// A block descriptor points past the end of the record area; the available part was used.
    BlockOutOfRange,
    /// A block size is not a multiple of 16; the trailing partial record was ignored.
    BlockMisaligned,
    /// Blocks overlap, or parts of the record area belong to no block.
    BlockTiling,
    /// A block of an unknown notification type (ignored).
    UnknownBlockType,
    /// A record's class byte does not fit its block.
    UnexpectedRecordClass,
    /// An engine program is missing from the metadata; its instruction records were skipped.
    MissingProgram,
    /// The clock-sync entry a record needs is missing or has divisor 0; records skipped.
    MissingClock,
    /// A timestamp conversion overflowed 64-bit picoseconds; record skipped.
    TimestampOverflow,
    /// No NOTIFY(hint 2) pair found: T0 fell back to the earliest decoded timestamp.
    ProfileStartNotFound,
    /// More than one NOTIFY(hint 2) pair on an engine (several executions?); the first was used.
    MultipleProfileStarts,
}

/// A counted warning: `count` occurrences of `kind`, `example` describes the first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NtffWarning {
    pub kind: WarningKind,
    pub count: u64,
    pub example: String,
}

/// Accumulates warnings by kind (linear search: only a handful of kinds, and only anomalies).
#[derive(Debug, Default, Clone)]
pub(crate) struct Warnings {
    pub(crate) list: Vec<NtffWarning>,
}

impl Warnings {
    pub(crate) fn add(&mut self, kind: WarningKind, example: impl FnOnce() -> String) {
        self.add_n(kind, 1, example);
    }
    pub(crate) fn add_n(&mut self, kind: WarningKind, n: u64, example: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        if let Some(w) = self.list.iter_mut().find(|w| w.kind == kind) {
            w.count = w.count.saturating_add(n);
        } else {
            self.list.push(NtffWarning { kind, count: n, example: example() });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Header and sniffing
// ---------------------------------------------------------------------------------------------

/// The fixed 0x80-byte header (what could be read of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Header {
    pub version: u8,
    /// Byte length `L` of the metadata protobuf (u24 at 0x01).
    pub metadata_len: u32,
    /// u64 at 0x08 (`0x656700` in every known file); `None` when the file is shorter.
    pub word_0x08: Option<u64>,
    /// Bytes 0x04..0x08 and 0x10..0x80 are all zero, as in every known file.
    pub reserved_bytes_zero: bool,
    pub file_len: u64,
}

impl Header {
    /// File offset of the record area (`0x80 + L`).
    pub fn record_area_offset(&self) -> u64 {
        HEADER_LEN as u64 + self.metadata_len as u64
    }

    /// Read as much of the header as available (needs at least 4 bytes).
    pub fn read(bytes: &[u8]) -> Option<Header> {
        let first = bytes.get(0..4)?;
        let version = first[0];
        let metadata_len = u32::from_le_bytes([first[1], first[2], first[3], 0]);
        let word_0x08 = bytes.get(8..16).map(|b| u64::from_le_bytes(le8(b)));
        let reserved_bytes_zero = bytes.iter().take(8).skip(4).all(|&b| b == 0)
            && bytes.iter().take(HEADER_LEN).skip(0x10).all(|&b| b == 0);
        Some(Header { version, metadata_len, word_0x08, reserved_bytes_zero, file_len: bytes.len() as u64 })
    }
}

#[inline]
fn le8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    a
}

/// Version byte of an NTFF-like file (any version), or `None` when the bytes do not look like
/// NTFF. Checks: a plausible version byte (1..=63), zero bytes 0x04..0x08, metadata that fits in
/// the file and starts with protobuf field 1 (length-delimited), and, for version 5, the header
/// constant at 0x08 or all-zero padding. Pass the whole file.
pub fn sniff_version(bytes: &[u8]) -> Option<u8> {
    let h = Header::read(bytes)?;
    if h.version == 0 || h.version > 63 || bytes.len() < HEADER_LEN + 1 {
        return None;
    }
    if bytes[4..8].iter().any(|&b| b != 0) {
        return None;
    }
    if h.metadata_len == 0 || h.record_area_offset() > bytes.len() as u64 {
        return None;
    }
    // Metadata starts with field 1 (NEFF path), wire type 2.
    if bytes[HEADER_LEN] != 0x0a {
        return None;
    }
    if h.version == SUPPORTED_VERSION && h.word_0x08 != Some(HEADER_CONSTANT) && !h.reserved_bytes_zero {
        return None;
    }
    Some(h.version)
}

/// True for a structurally plausible NTFF **version 5** file (the version [`parse`](super::parse) reads).
/// Use [`sniff_version`] to recognise other versions and report them as unsupported.
pub fn sniff(bytes: &[u8]) -> bool {
    sniff_version(bytes) == Some(SUPPORTED_VERSION)
}

// ---------------------------------------------------------------------------------------------
// Decoded tables
// ---------------------------------------------------------------------------------------------

/// One executed instruction (JSON `instruction` row). Times are relative to the profile start T0.
///
/// Kept compact (64 bytes) for large traces: the engine name, label and opcode mnemonic are
/// methods ([`Instruction::subgroup`], [`Instruction::label`], [`Instruction::opcode`]) and are
/// added as `subgroup`, `label`, `opcode` when serialized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "InstructionRow")]
pub struct Instruction {
    /// Engine index 0..4 (PE, ACT, POOL, DVE, SP).
    pub engine: u8,
    /// Runtime pc (index of the 64-byte slot in the engine program).
    pub pc: u32,
    /// Compiler pc (NEFF instruction index); `None` for runtime-inserted instructions.
    pub compiler_pc: Option<u32>,
    pub start_ps: i64,
    pub end_ps: i64,
    /// Raw wait cycles before the instruction started (w1 bits 31..16 of the start record).
    pub wait_cycles: u16,
    /// JSON `evt_wait_time` = `wait_cycles * 5 / 7` (1.4 GHz, floor).
    pub evt_wait_time_ns: u16,
    pub crc_in: u16,
    pub crc_out: u16,
    /// Byte 0 of the program slot (opcode).
    pub opcode_byte: u8,
    /// w0 bits 23..16 of the start record (0x20 on every COMPARE_BRANCH).
    pub flags: u8,
}

impl Instruction {
    /// `floor(start_ps / 1000)` (JSON `timestamp`). Derived, not stored: a capture has
    /// millions of instructions (40 bytes each; 56 with these two).
    #[inline]
    pub fn start_ns(&self) -> i64 {
        self.start_ps.div_euclid(1000)
    }
    /// `floor((end_ps - start_ps) / 1000)` (JSON `duration`).
    #[inline]
    pub fn dur_ns(&self) -> i64 {
        self.end_ps.saturating_sub(self.start_ps).div_euclid(1000)
    }
    /// JSON `subgroup`: Tensor, Scalar, GpSimd, Vector, Sync.
    pub fn subgroup(&self) -> &'static str {
        engine_subgroup(self.engine)
    }
    /// A MATMUL on the Tensor engine: labelled `TensorMatrix` (see [`Instruction::label`]).
    pub fn is_tensor_matrix(&self) -> bool {
        self.engine == 0 && self.opcode_byte == opcodes::OP_MATMUL
    }
    /// JSON `label`: like `subgroup`, but `TensorMatrix` for MATMUL.
    pub fn label(&self) -> &'static str {
        if self.is_tensor_matrix() {
            "TensorMatrix"
        } else {
            self.subgroup()
        }
    }
    /// Opcode mnemonic, or `"0xNN"` when unknown.
    pub fn opcode(&self) -> &'static str {
        opcode_name(self.opcode_byte)
    }
}

/// Serialized form of [`Instruction`] (adds the names).
#[derive(Serialize)]
struct InstructionRow {
    engine: u8,
    subgroup: &'static str,
    label: &'static str,
    pc: u32,
    compiler_pc: Option<u32>,
    start_ps: i64,
    end_ps: i64,
    start_ns: i64,
    dur_ns: i64,
    wait_cycles: u16,
    evt_wait_time_ns: u16,
    crc_in: u16,
    crc_out: u16,
    opcode_byte: u8,
    opcode: &'static str,
    flags: u8,
}

impl From<Instruction> for InstructionRow {
    fn from(i: Instruction) -> Self {
        InstructionRow {
            engine: i.engine,
            subgroup: i.subgroup(),
            label: i.label(),
            pc: i.pc,
            compiler_pc: i.compiler_pc,
            start_ps: i.start_ps,
            end_ps: i.end_ps,
            start_ns: i.start_ns(),
            dur_ns: i.dur_ns(),
            wait_cycles: i.wait_cycles,
            evt_wait_time_ns: i.evt_wait_time_ns,
            crc_in: i.crc_in,
            crc_out: i.crc_out,
            opcode_byte: i.opcode_byte,
            opcode: i.opcode(),
            flags: i.flags,
        }
    }
}

/// One DMA packet (JSON `dma` row with `aggregated: no`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DmaPacket {
    pub dma_engine: u8,
    pub queue: u8,
    pub start_ps: i64,
    pub end_ps: i64,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub size_bytes: u32,
    /// CRC16 of the data (JSON `crc`).
    pub crc: u16,
    /// 0-based ordinal within (engine, queue), counting pre-window packets (JSON `packet_idx`).
    pub packet_idx: u32,
}

/// Semaphore operation kind (w0 bits 23..16 of a block-1 record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SemaphoreOp {
    /// 0xF3: semaphore changed (increment).
    Increment,
    /// 0xF9: semaphore set/cleared.
    Set,
}

/// One semaphore update (JSON `semaphore_update` row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SemaphoreUpdate {
    pub ts_ps: i64,
    /// JSON `timestamp`.
    pub ts_ns: i64,
    /// Semaphore index (numeric part of JSON `id`).
    pub semaphore: u8,
    /// New value (JSON `value`).
    pub value: u32,
    /// Update source 0..4 = engines, 5 = queue/DMA (CONSISTENT, see ntff-v5.md §6).
    pub source: u8,
    pub op: SemaphoreOp,
    /// Class flag 0x40 (only on Set; GUESS: notifications dropped/merged before this one).
    pub flag_0x40: bool,
}

impl SemaphoreUpdate {
    /// Source name: the engine subgroup for 0..4, `"Queue"` for 5, else `"Unknown"`.
    pub fn source_name(&self) -> &'static str {
        match self.source {
            0..=4 => ENGINE_SUBGROUPS[self.source as usize],
            5 => "Queue",
            _ => "Unknown",
        }
    }
}

/// One throttle period (JSON `ham` row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Throttle {
    pub start_ps: i64,
    pub start_ns: i64,
    /// Until the next throttle record; the last one runs to the last instruction end.
    pub dur_ns: i64,
    /// JSON `type`: 99 when w1 bit 7 is set ("no throttling"), else 0 (GUESS, 2 patterns seen).
    pub throttle_type: u32,
    pub k: u32,
    pub n: u32,
    pub raw_w0: u32,
    pub raw_w1: u32,
}

/// How T0 was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum T0Source {
    /// End of the NOTIFY(hint 2) instruction on this engine (latest over engines).
    NotifyHint2 { engine: u8 },
    /// Fallback: earliest decoded timestamp (warning [`WarningKind::ProfileStartNotFound`]).
    EarliestRecord,
    /// Nothing decodable; T0 = 0 on the common timeline.
    None,
}

/// Per-engine instruction counts (JSON `model_info.<engine>_engine_instruction_count`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EngineCounts {
    pub tensor: u64,
    pub scalar: u64,
    pub gpsimd: u64,
    pub vector: u64,
    pub sync: u64,
}

/// Profile-level values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// Profile start on the common picosecond timeline (absolute).
    pub t0_ps: i64,
    pub t0_source: T0Source,
    /// Last instruction end, relative to T0.
    pub end_ps: i64,
    /// JSON `metadata.last_hw_timestamp` = `floor(end_ps / 1000)`.
    pub last_hw_timestamp_ns: i64,
    /// JSON `event_count`: every block-1 record, including pre-window ones.
    pub event_count: u64,
    /// Instruction rows + DMA packet rows + `event_count`. The JSON `trace_count` also counts
    /// its aggregated DMA rows (which need the NEFF), so JSON = this + aggregated rows.
    pub trace_count: u64,
    pub instruction_counts: EngineCounts,
}

/// Raw record accounting (informational; anomalies are also reported as warnings).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordStats {
    pub record_area_bytes: u64,
    pub instruction_records: u64,
    /// Instruction records whose pc lies outside the engine program (other code; skipped).
    pub instruction_records_outside_program: u64,
    pub instruction_pairs: u64,
    pub pre_window_instructions: u64,
    pub unpaired_instruction_starts: u64,
    pub unpaired_instruction_ends: u64,
    pub dma_records: u64,
    pub dma_start_records: u64,
    pub dma_data_records: u64,
    /// Type-6 DMA records (third event per packet; unused by the JSON).
    pub dma_type6_records: u64,
    pub dma_other_records: u64,
    pub unpaired_dma_starts: u64,
    pub unpaired_dma_data: u64,
    pub pre_window_dma_packets: u64,
    pub event_records: u64,
    pub pre_window_semaphore_updates: u64,
    /// Block-1 records that are not semaphore updates (events 0x07, kinds 0xF1/0xF4, ...).
    pub other_event_records: u64,
    pub throttle_records: u64,
    pub pre_window_throttle_records: u64,
    pub skipped_records: u64,
}
