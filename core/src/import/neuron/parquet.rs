//! Neuron Explorer Parquet output (schema 7.4.0, neuron.md §3.1, §3.7): one `<Table>.parquet`
//! file per table (large tables split into `<Table>_0.parquet`, `<Table>_1.parquet`, …). All the
//! files dropped together form one profile ([`Importer::import_group`]): the output directory
//! (a folder dropped or opened in the page, a folder given to the CLI) or a zip of it (unwrapped
//! by the registry's containers).
//!
//! - Splits are concatenated in split order (by number: `_2` before `_10`), whatever order the
//!   files come in; a missing split is a warning; the same split twice (two profiles' files in
//!   one drop) is an error naming both files.
//! - `Metadata.profile_schema_version` is checked first (the Metadata file is read before the
//!   others): another MAJOR than [`SCHEMA_MAJOR`] is [`ImportError::SchemaVersion`] naming the
//!   file and both versions; a newer MINOR, or no version, is a warning. Tables are read by column
//!   name, so columns the schema does not name are kept as arguments of their rows (and in the
//!   metadata tables' JSON).
//!
//! Reading uses the `parquet` crate's column readers (no arrow): every flat column is read into
//! a typed vector of optional values; list columns (the hierarchy tables' `*_per_interval`
//! arrays) are skipped. Times are int64 nanoseconds relative to the profile start, kept exact.
//!
//! A table is identified by its file name (path prefix and `_<n>` split suffix removed), else by
//! its column set (the table whose distinctive columns are all present). Unknown tables are a
//! counted warning and are listed in the metadata (`parquet.unknown_tables`), never an error.
//!
//! Model (layout shared with the JSON export importer, see [`super::device`]):
//! - Instruction → slices on the engine track (`timeline_track`, else `engine`), name = opcode,
//!   all other columns as arguments, plus the operator names of the hierarchy tables
//!   (FrameworkInstruction/HloInstruction/PenguinInstruction/BirInstruction by raw id,
//!   AssemblyInstruction by instruction id);
//! - DmaPacket → packet slices per queue; DmaPacketAggregated → transfer slices per queue;
//!   Flow → flows between instructions and DMA blocks;
//! - SemaphoreUpdate → one counter per semaphore id; Throttle → Throttle slices + limit counter;
//!   DmaUsage, HbmUsage, PendingDma, SbufUsage, PsumUsage, ActiveTime → counters;
//!   Error → instants; CcOp, CcInstruction, CoreBarriers → slices on their own tracks (the CcOp
//!   track typed `TrackRole::CollectiveOps`: `analysis::ranks` matches its operations);
//! - Summary, Metadata, NeffHeader, TensorInfo, DmaQueuesInfo, OpcodeSummary, KernelStackFrames, …
//!   → metadata; the Summary row's `total_time`, `event_count`, `dma_queue_count`, instance type →
//!   the device groups' [`DeviceInfo`] (the device summary's inputs, as from an NTFF), and its
//!   times and fractions are preferred by the device summary
//!   (`analysis::device_summary`, "recorded" values);
//! - NeffHeader + TensorInfo → the program (header, `Tensors` table: the Tensor view), unless a
//!   NEFF dropped with the tables gave one.

use super::device::{self, add_activity, semaphore_display, Devices, DMA_ARG_ORDER, INSTRUCTION_ARG_ORDER};
use crate::import::{container, ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::WarningKind;
use crate::model::{
    ArgValue, ArgsId, CounterRole, DeviceInfo, DmaQueueType, FlowEnd, SliceHandle, TraceBuilder, TrackKind,
    TrackRole,
};
use crate::model::{ProgramHeader, ProgramKind, ProgramTableKind};
use crate::strings::StrId;
use parquet::basic::{ConvertedType, Encoding, Type as PhysicalType};
use parquet::column::page::{Page, PageMetadata, PageReader};
use parquet::column::reader::{get_column_reader, ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::{BTreeMap, HashMap};

mod page_headers;

pub struct NeuronParquet;

pub const NAME: &str = "neuron-explorer-parquet";

/// All tables of schema 7.4.0.
const KNOWN_TABLES: &[&str] = &[
    "ActiveTime",
    "AssemblyInstruction",
    "BirInstruction",
    "CcInstruction",
    "CcOp",
    "CcStream",
    "CoreBarriers",
    "CpuUsage",
    "DeviceProfileList",
    "DmaPacket",
    "DmaPacketAggregated",
    "DmaQueuesInfo",
    "DmaUsage",
    "DmaUsageSummary",
    "Error",
    "ExecutionInfo",
    "Flow",
    "FrameworkInstruction",
    "FrameworkNode",
    "HbmUsage",
    "HbmUsageSummaryByType",
    "HloInstruction",
    "HostMemUsage",
    "Instruction",
    "KernelInstructions",
    "KernelIterationVariables",
    "KernelStackFrames",
    "MemoryBandwidthPoint",
    "MemoryBandwidthResponse",
    "MemoryBandwidthSeries",
    "Metadata",
    "NeffHeader",
    "OpcodeSummary",
    "PendingDma",
    "PenguinInstruction",
    "PsumUsage",
    "SbufAllocation",
    "SbufUsage",
    "SchemaFields",
    "SemaphoreUpdate",
    "StackFrame",
    "StackFrameFileLocation",
    "StackFrameFileName",
    "StackFrameFunctionName",
    "Summary",
    "SystemProfileEvents",
    "SystemProfileHbmUsage",
    "SystemProfileMetadata",
    "TensorInfo",
    "Throttle",
    "ThrottleSummary",
    "Warning",
];

/// Distinctive required columns, for files whose name is not a table name. A file is the table
/// whose signature it fully contains; the longest full match wins, a tie is ambiguous.
/// (DmaUsage and HbmUsage share their columns: such a file cannot be told apart.)
const SIGNATURES: &[(&str, &[&str])] = &[
    ("Instruction", &["start_ts", "end_ts", "engine", "opcode", "operands", "pc", "bir_id"]),
    (
        "DmaPacket",
        &["start_ts", "packet_idx", "packet_aggregation_id", "transfer_bytes", "queue_type", "crc"],
    ),
    (
        "DmaPacketAggregated",
        &["start_ts", "block_id", "queue_name", "op", "variable", "source", "dest", "semaphore_id"],
    ),
    ("SemaphoreUpdate", &["timestamp", "id", "value"]),
    ("PendingDma", &["timestamp", "value"]),
    ("DmaUsage", &["timestamp", "current_throughput", "total_transfer_bytes"]),
    ("HbmUsage", &["timestamp", "current_throughput", "total_transfer_bytes"]),
    ("SbufUsage", &["timestamp", "partition_0_util_percent"]),
    ("PsumUsage", &["timestamp", "bank_0_util_percent"]),
    ("ActiveTime", &["start_ts", "end_ts", "engine", "pcore_idx", "duration_ns"]),
    ("Throttle", &["timestamp", "duration", "k", "n", "type"]),
    ("FrameworkInstruction", &["id", "raw_framework_id", "raw_hlo_id", "time_intervals"]),
    ("HloInstruction", &["id", "raw_framework_id", "raw_hlo_id", "time_intervals", "hlo_name"]),
    ("PenguinInstruction", &["id", "raw_framework_id", "raw_hlo_id", "time_intervals", "penguin_name"]),
    ("BirInstruction", &["id", "raw_framework_id", "raw_hlo_id", "time_intervals", "bir_name"]),
    ("AssemblyInstruction", &["instruction_id", "compiler_opcode", "compiler_operands", "compiler_pc"]),
    ("Summary", &["total_time", "model_flops", "hardware_flops"]),
    ("NeffHeader", &["network_name", "uuid", "hash", "header_size"]),
    ("TensorInfo", &["variable_name", "type", "format", "shape", "node"]),
    ("Metadata", &["profile_schema_version", "ntff_version", "num_physical_cores"]),
    ("Flow", &["in_id", "out_id", "in_table", "out_table"]),
    ("Error", &["description", "error_type_id", "timestamp", "type"]),
    ("CcOp", &["start_ts", "operation", "algorithm", "num_elements", "op_id"]),
    ("CcInstruction", &["start_ts", "end_ts", "core_idx", "description"]),
    ("CoreBarriers", &["start_ts", "engine_name", "semaphore", "compiler_pc"]),
    ("DmaQueuesInfo", &["name", "type", "idx", "engine_idx", "axi_port", "dram_channel"]),
    ("OpcodeSummary", &["engine", "opcode", "instruction_count", "instruction_time_ns"]),
];

/// Tables kept as metadata (`neuron.<snake name>` compact JSON, `<snake>.<col>` for one row).
const METADATA_TABLES: &[(&str, &str)] = &[
    ("Metadata", "metadata"),
    ("Summary", "summary"),
    ("NeffHeader", "neff_header"),
    ("TensorInfo", "tensor_info"),
    ("DmaQueuesInfo", "dma_queues_info"),
    ("OpcodeSummary", "opcode_summary"),
    ("ThrottleSummary", "throttle_summary"),
    ("Warning", "warnings"),
    ("ExecutionInfo", "execution_info"),
    ("DeviceProfileList", "device_profile_list"),
    ("HbmUsageSummaryByType", "hbm_usage_summary_by_type"),
    ("SystemProfileMetadata", "system_profile_metadata"),
    ("CcStream", "cc_stream"),
    ("KernelStackFrames", "kernel_stack_frames"),
];

/// Tables converted into the timeline.
const TIMELINE_TABLES: &[&str] = &[
    "Instruction",
    "DmaPacket",
    "DmaPacketAggregated",
    "SemaphoreUpdate",
    "Throttle",
    "DmaUsage",
    "HbmUsage",
    "PendingDma",
    "SbufUsage",
    "PsumUsage",
    "ActiveTime",
    "Error",
    "CcOp",
    "CcInstruction",
    "CoreBarriers",
    "Flow",
    "FrameworkInstruction",
    "HloInstruction",
    "PenguinInstruction",
    "BirInstruction",
    "AssemblyInstruction",
];

// ---------------------------------------------------------------------------------------------
// Reading one file into columns

/// One flat column, every row present (None = null).
#[derive(Debug, Clone)]
enum Col {
    Int(Vec<Option<i64>>),
    UInt(Vec<Option<u64>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    Str(Vec<Option<String>>),
}

impl Col {
    fn len(&self) -> usize {
        match self {
            Col::Int(v) => v.len(),
            Col::UInt(v) => v.len(),
            Col::Float(v) => v.len(),
            Col::Bool(v) => v.len(),
            Col::Str(v) => v.len(),
        }
    }
    fn pad(&mut self, n: usize) {
        match self {
            Col::Int(v) => v.resize(n, None),
            Col::UInt(v) => v.resize(n, None),
            Col::Float(v) => v.resize(n, None),
            Col::Bool(v) => v.resize(n, None),
            Col::Str(v) => v.resize(n, None),
        }
    }
    fn append(&mut self, other: Col) {
        match (self, other) {
            (Col::Int(a), Col::Int(b)) => a.extend(b),
            (Col::UInt(a), Col::UInt(b)) => a.extend(b),
            (Col::Float(a), Col::Float(b)) => a.extend(b),
            (Col::Bool(a), Col::Bool(b)) => a.extend(b),
            (Col::Str(a), Col::Str(b)) => a.extend(b),
            _ => {}
        }
    }
    fn empty_like(&self) -> Col {
        match self {
            Col::Int(_) => Col::Int(Vec::new()),
            Col::UInt(_) => Col::UInt(Vec::new()),
            Col::Float(_) => Col::Float(Vec::new()),
            Col::Bool(_) => Col::Bool(Vec::new()),
            Col::Str(_) => Col::Str(Vec::new()),
        }
    }
    /// An integer value (integers, integral text).
    fn int(&self, i: usize) -> Option<i64> {
        match self {
            Col::Int(v) => v.get(i).copied().flatten(),
            Col::UInt(v) => v.get(i).copied().flatten().and_then(|u| i64::try_from(u).ok()),
            Col::Str(v) => v.get(i)?.as_deref()?.trim().parse().ok(),
            Col::Bool(v) => v.get(i).copied().flatten().map(i64::from),
            Col::Float(v) => {
                v.get(i).copied().flatten().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18).map(|f| f as i64)
            }
        }
    }
    fn num(&self, i: usize) -> Option<f64> {
        match self {
            Col::Int(v) => v.get(i).copied().flatten().map(|x| x as f64),
            Col::UInt(v) => v.get(i).copied().flatten().map(|x| x as f64),
            Col::Float(v) => v.get(i).copied().flatten(),
            Col::Bool(v) => v.get(i).copied().flatten().map(|b| f64::from(u8::from(b))),
            Col::Str(v) => v.get(i)?.as_deref()?.trim().parse().ok(),
        }
    }
    fn text(&self, i: usize) -> Option<String> {
        match self {
            Col::Str(v) => v.get(i)?.clone(),
            Col::Int(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Col::UInt(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Col::Float(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Col::Bool(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
        }
    }
    /// Whether row `i` has a value (non-null, and non-blank for text).
    fn is_set(&self, i: usize) -> bool {
        match self {
            Col::Str(v) => v.get(i).and_then(|s| s.as_deref()).is_some_and(|s| !s.trim().is_empty()),
            _ => self.num(i).is_some() || self.int(i).is_some(),
        }
    }
    fn str_ref(&self, i: usize) -> Option<&str> {
        match self {
            Col::Str(v) => v.get(i)?.as_deref(),
            _ => None,
        }
    }
    fn arg(&self, i: usize, b: &mut TraceBuilder) -> Option<ArgValue> {
        Some(match self {
            Col::Int(v) => ArgValue::Int((*v.get(i)?)?),
            Col::UInt(v) => ArgValue::UInt((*v.get(i)?)?),
            Col::Float(v) => ArgValue::Float((*v.get(i)?)?),
            Col::Bool(v) => ArgValue::Bool((*v.get(i)?)?),
            Col::Str(v) => {
                let s = v.get(i)?.as_deref()?;
                if s.trim().is_empty() {
                    return None;
                }
                ArgValue::Str(b.intern(s))
            }
        })
    }
    fn json(&self, i: usize) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Col::Int(v) => v.get(i).copied().flatten().map_or(Value::Null, Value::from),
            Col::UInt(v) => v.get(i).copied().flatten().map_or(Value::Null, Value::from),
            Col::Float(v) => v
                .get(i)
                .copied()
                .flatten()
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number),
            Col::Bool(v) => v.get(i).copied().flatten().map_or(Value::Null, Value::Bool),
            Col::Str(v) => v.get(i).cloned().flatten().map_or(Value::Null, Value::String),
        }
    }
}

/// One table file (or the concatenation of its numbered splits).
#[derive(Debug)]
struct Table {
    /// Canonical table name (`Instruction`), or the file's base name when unknown.
    name: String,
    known: bool,
    files: Vec<String>,
    rows: usize,
    cols: Vec<(String, Col)>,
    /// List (repeated) and unsupported columns that were not read.
    skipped: Vec<String>,
}

impl Table {
    fn col(&self, name: &str) -> Option<&Col> {
        self.cols.iter().find(|c| c.0 == name).map(|c| &c.1)
    }
    /// Append another split of the same table (columns matched by name).
    fn append(&mut self, mut other: Table) {
        let n = self.rows;
        for (name, col) in other.cols.drain(..) {
            match self.cols.iter_mut().find(|c| c.0 == name) {
                Some((_, c)) => c.append(col),
                None => {
                    let mut c = col.empty_like();
                    c.pad(n);
                    c.append(col);
                    self.cols.push((name, c));
                }
            }
        }
        self.rows += other.rows;
        for (_, c) in &mut self.cols {
            c.pad(self.rows);
        }
        self.files.extend(other.files);
        for s in other.skipped {
            if !self.skipped.contains(&s) {
                self.skipped.push(s);
            }
        }
    }
}

type PqResult<T> = Result<T, parquet::errors::ParquetError>;

fn read_typed<T: DataType, U>(
    r: &mut ColumnReaderImpl<T>,
    n: usize,
    max_def: i16,
    conv: impl Fn(&T::T) -> U,
) -> PqResult<Vec<Option<U>>> {
    let mut defs: Vec<i16> = Vec::new();
    let mut vals: Vec<T::T> = Vec::new();
    let mut out = Vec::new();
    // in chunks, so a row group claiming a huge row count cannot make us allocate for it
    const CHUNK: usize = 64 * 1024;
    loop {
        defs.clear();
        vals.clear();
        let want = (n - out.len()).min(CHUNK);
        if want == 0 {
            break;
        }
        let (records, _, levels) =
            r.read_records(want, if max_def > 0 { Some(&mut defs) } else { None }, None, &mut vals)?;
        if records == 0 {
            break;
        }
        if max_def > 0 {
            let mut k = 0;
            for &d in defs.iter().take(levels) {
                if d >= max_def {
                    out.push(vals.get(k).map(&conv));
                    k += 1;
                } else {
                    out.push(None);
                }
            }
        } else {
            out.extend(vals.iter().take(records).map(|v| Some(conv(v))));
        }
    }
    Ok(out)
}

fn invalid(message: String) -> parquet::errors::ParquetError {
    parquet::errors::ParquetError::General(message)
}

/// The footer, checked before the crate reads it: magic at both ends, a metadata length that
/// fits in the file (a length of 0xFFFFFFFF made the crate panic), metadata whose Thrift walks
/// within its bytes ([`page_headers::check_metadata`]). Returns the metadata length.
fn check_footer(bytes: &[u8]) -> PqResult<u64> {
    let n = bytes.len();
    if n < 12 || !bytes.starts_with(b"PAR1") {
        return Err(invalid(format!("too short to be a Parquet file ({n} bytes)")));
    }
    match &bytes[n - 4..] {
        b"PAR1" => {}
        b"PARE" => return Err(invalid("encrypted Parquet files are not supported".into())),
        _ => return Err(invalid("no PAR1 magic at the end of the file (truncated?)".into())),
    }
    let mut len = [0u8; 4];
    len.copy_from_slice(&bytes[n - 8..n - 4]);
    let len = u64::from(u32::from_le_bytes(len));
    if len == 0 || len + 12 > n as u64 {
        return Err(invalid(format!("footer length {len} does not fit in the {n}-byte file")));
    }
    // the metadata's Thrift, walked with the same bounds as the page headers: a list declaring
    // more elements than its bytes made the crate's skip spin for seconds (fuzzing, a 7.5 KB file)
    page_headers::check_metadata(&bytes[n - 8 - len as usize..n - 8])
        .map_err(|e| invalid(format!("the file's metadata: {e}")))?;
    Ok(len)
}

/// Every column chunk the metadata describes, checked against the file before any is read: a
/// negative start or length made the crate panic; a chunk beyond the data area is damage.
fn check_chunks(
    md: &parquet::file::metadata::ParquetMetaData,
    file_len: u64,
    footer_len: u64,
) -> PqResult<()> {
    let data_end = file_len - 8 - footer_len;
    let columns = md.file_metadata().schema_descr().num_columns();
    for (g, rg) in md.row_groups().iter().enumerate() {
        if rg.num_rows() < 0 {
            return Err(invalid(format!("row group {g} has {} rows", rg.num_rows())));
        }
        if rg.num_columns() != columns {
            return Err(invalid(format!(
                "row group {g} has {} column chunks, the schema {columns} columns",
                rg.num_columns()
            )));
        }
        for col in rg.columns() {
            let data = col.data_page_offset();
            let start = col.dictionary_page_offset().unwrap_or(data);
            let len = col.compressed_size();
            let end = start.checked_add(len);
            let inside = start >= 4
                && len >= 0
                && end.is_some_and(|e| e as u64 <= data_end)
                && (start..end.unwrap_or(start).max(start + 1)).contains(&data);
            if !inside {
                return Err(invalid(format!(
                    "row group {g}, column '{}': chunk at byte {start} ({len} bytes, data page at {data}) \
                     lies outside the data area (bytes 4..{data_end})",
                    col.column_path().string()
                )));
            }
        }
    }
    Ok(())
}

/// Passes a column chunk's pages through, refusing what the crate's decoders would panic on (a
/// panic is an abort of the worker in wasm): a dictionary-encoded data page that no dictionary
/// page preceded (the decoder `expect`s the dictionary), and, in a BYTE_ARRAY column, PLAIN
/// values whose 4-byte length prefixes run past the page (the crate slices the prefix without a
/// bounds check: found by the `import_parquet` fuzz target).
struct CheckedPages {
    inner: Box<dyn PageReader>,
    dictionary: bool,
    /// The column is BYTE_ARRAY (its PLAIN values are length-prefixed).
    byte_array: bool,
    /// Bits one PLAIN value of the column takes (fixed-width types), 0 for BYTE_ARRAY.
    value_bits: usize,
    /// The column's maximum definition level (0: required).
    max_def: i16,
}

impl CheckedPages {
    fn new(inner: Box<dyn PageReader>, d: &parquet::schema::types::ColumnDescriptor) -> CheckedPages {
        CheckedPages {
            inner,
            dictionary: false,
            byte_array: d.physical_type() == PhysicalType::BYTE_ARRAY,
            value_bits: match d.physical_type() {
                PhysicalType::BOOLEAN => 1,
                PhysicalType::INT32 | PhysicalType::FLOAT => 32,
                PhysicalType::INT64 | PhysicalType::DOUBLE => 64,
                PhysicalType::INT96 => 96,
                PhysicalType::FIXED_LEN_BYTE_ARRAY => (d.type_length().max(1) as usize).saturating_mul(8),
                PhysicalType::BYTE_ARRAY => 0,
            },
            max_def: d.max_def_level(),
        }
    }

    fn check(&mut self, p: &Page) -> PqResult<()> {
        let encoding = match p {
            Page::DictionaryPage { buf, num_values, .. } => {
                self.dictionary = true;
                // dictionary values are PLAIN
                if self.byte_array && !plain_byte_arrays_fit(buf, *num_values as usize) {
                    return Err(invalid("a dictionary page's strings run past the page".into()));
                }
                // a PLAIN dictionary of fixed-width values holds at most what its bytes can: the
                // crate reserves room for `num_values` up front (5 GB for a lying 5 KB file,
                // found by the `import_parquet` fuzz target)
                if (*num_values as usize).saturating_mul(self.value_bits) > buf.len().saturating_mul(8) {
                    return Err(invalid("a dictionary page declares more values than it holds".into()));
                }
                return Ok(());
            }
            Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. } => *encoding,
        };
        if matches!(encoding, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY) && !self.dictionary {
            return Err(invalid("a dictionary-encoded page without a dictionary page before it".into()));
        }
        if self.byte_array && encoding == Encoding::PLAIN && !self.plain_data_page_fits(p) {
            return Err(invalid("a data page's strings run past the page".into()));
        }
        Ok(())
    }

    /// Whether the PLAIN strings of a data page (as many as its definition levels say are
    /// present) can all be read from it.
    fn plain_data_page_fits(&self, p: &Page) -> bool {
        let bit_width = 16 - (self.max_def.max(0) as u16).leading_zeros();
        match p {
            Page::DataPage { buf, num_values, def_level_encoding, .. } => {
                let n = *num_values as usize;
                if self.max_def == 0 {
                    return plain_byte_arrays_fit(buf, n);
                }
                // v1: the definition levels are prefixed with their byte length
                if *def_level_encoding != Encoding::RLE || buf.len() < 4 {
                    return false;
                }
                let len = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
                let Some(levels) = buf.get(4..4usize.saturating_add(len)) else { return false };
                match count_levels(levels, bit_width, n, self.max_def) {
                    Some(present) => plain_byte_arrays_fit(&buf[4 + len..], present),
                    None => false,
                }
            }
            Page::DataPageV2 { buf, num_values, def_levels_byte_len, rep_levels_byte_len, .. } => {
                let n = *num_values as usize;
                let rep = *rep_levels_byte_len as usize;
                let def = *def_levels_byte_len as usize;
                let Some(levels) = buf.get(rep..rep.saturating_add(def)) else { return false };
                let present = if self.max_def == 0 {
                    Some(n)
                } else {
                    count_levels(levels, bit_width, n, self.max_def)
                };
                match present {
                    Some(present) => plain_byte_arrays_fit(&buf[rep + def..], present),
                    None => false,
                }
            }
            Page::DictionaryPage { .. } => true,
        }
    }
}

/// Whether `count` PLAIN BYTE_ARRAY values (each a u32 LE length, then that many bytes) can be
/// read from the start of `values`.
fn plain_byte_arrays_fit(values: &[u8], count: usize) -> bool {
    let mut pos = 0usize;
    for _ in 0..count {
        let Some(prefix) = values.get(pos..pos + 4) else { return false };
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        pos += 4;
        if len > values.len() - pos {
            return false;
        }
        pos += len;
    }
    true
}

/// How many of the first `n` levels of an RLE / bit-packed hybrid run (`bit_width` bits each)
/// equal `target`; `None` when the runs end before `n` levels or are damaged.
fn count_levels(mut data: &[u8], bit_width: u32, n: usize, target: i16) -> Option<usize> {
    let byte_width = bit_width.div_ceil(8) as usize;
    let (mut seen, mut hits) = (0usize, 0usize);
    while seen < n {
        // ULEB128 run header
        let mut header = 0u64;
        let mut shift = 0;
        loop {
            let (&b, rest) = data.split_first()?;
            data = rest;
            header |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 56 {
                return None;
            }
        }
        let left = n - seen;
        if header & 1 == 0 {
            // RLE run: one value repeated
            let run = usize::try_from(header >> 1).unwrap_or(usize::MAX).min(left);
            let raw = data.get(..byte_width)?;
            data = &data[byte_width..];
            let value = raw.iter().rev().fold(0u64, |v, &b| (v << 8) | u64::from(b));
            if value == target as u64 {
                hits += run;
            }
            seen += run;
        } else {
            // bit-packed: groups of 8 values
            let groups = usize::try_from(header >> 1).ok()?;
            let bytes = groups.checked_mul(bit_width as usize)?;
            let packed = data.get(..bytes)?;
            data = &data[bytes..];
            let count = groups.saturating_mul(8).min(left);
            for i in 0..count {
                let mut v = 0u64;
                for bit in 0..bit_width as usize {
                    let at = i * bit_width as usize + bit;
                    v |= u64::from((packed[at / 8] >> (at % 8)) & 1) << bit;
                }
                if v == target as u64 {
                    hits += 1;
                }
            }
            seen += count;
        }
    }
    Some(hits)
}

impl Iterator for CheckedPages {
    type Item = PqResult<Page>;
    fn next(&mut self) -> Option<Self::Item> {
        self.get_next_page().transpose()
    }
}

impl PageReader for CheckedPages {
    fn get_next_page(&mut self) -> PqResult<Option<Page>> {
        let p = self.inner.get_next_page()?;
        if let Some(p) = &p {
            self.check(p)?;
        }
        Ok(p)
    }
    fn peek_next_page(&mut self) -> PqResult<Option<PageMetadata>> {
        self.inner.peek_next_page()
    }
    fn skip_next_page(&mut self) -> PqResult<()> {
        self.inner.skip_next_page()
    }
    fn at_record_boundary(&mut self) -> PqResult<bool> {
        self.inner.at_record_boundary()
    }
}

/// Read every flat column of a Parquet file. The footer and the chunk layout are checked
/// first ([`check_footer`], [`check_chunks`]) and pages pass [`CheckedPages`]: the inputs known
/// to make the crate panic are typed errors before they reach it (on wasm32 a panic aborts).
fn read_file(name: &str, bytes: &[u8]) -> PqResult<Table> {
    let footer_len = check_footer(bytes)?;
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes))?;
    let md = reader.metadata();
    check_chunks(md, bytes.len() as u64, footer_len)?;
    let schema = md.file_metadata().schema_descr();
    let mut cols: Vec<(usize, String, Option<Col>)> = Vec::new();
    let mut skipped = Vec::new();
    for i in 0..schema.num_columns() {
        let d = schema.column(i);
        let cname = d.path().parts().join(".");
        if d.max_rep_level() > 0 || d.physical_type() == PhysicalType::INT96 {
            skipped.push(cname);
            continue;
        }
        cols.push((i, cname, None));
    }
    let mut rows = 0usize;
    for g in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(g)?;
        let n = usize::try_from(rg.metadata().num_rows()).unwrap_or(0);
        let mut group_rows = 0;
        let mut parts: Vec<Col> = Vec::with_capacity(cols.len());
        for (i, _, _) in &cols {
            let d = schema.column(*i);
            let max_def = d.max_def_level();
            let unsigned = matches!(d.converted_type(), ConvertedType::UINT_64);
            let (start, len) = rg.metadata().column(*i).byte_range();
            // inside the file: check_chunks
            page_headers::check(&bytes[start as usize..(start + len) as usize])
                .map_err(|e| invalid(format!("row group {g}, column '{}': {e}", d.path().string())))?;
            let pages = CheckedPages::new(rg.get_column_page_reader(*i)?, &d);
            let col = match get_column_reader(d.clone(), Box::new(pages)) {
                ColumnReader::BoolColumnReader(mut r) => Col::Bool(read_typed(&mut r, n, max_def, |v| *v)?),
                ColumnReader::Int32ColumnReader(mut r) => {
                    if matches!(
                        d.converted_type(),
                        ConvertedType::UINT_32 | ConvertedType::UINT_16 | ConvertedType::UINT_8
                    ) {
                        Col::Int(read_typed(&mut r, n, max_def, |v| i64::from(*v as u32))?)
                    } else {
                        Col::Int(read_typed(&mut r, n, max_def, |v| i64::from(*v))?)
                    }
                }
                ColumnReader::Int64ColumnReader(mut r) => {
                    if unsigned {
                        Col::UInt(read_typed(&mut r, n, max_def, |v| *v as u64)?)
                    } else {
                        Col::Int(read_typed(&mut r, n, max_def, |v| *v)?)
                    }
                }
                ColumnReader::FloatColumnReader(mut r) => {
                    Col::Float(read_typed(&mut r, n, max_def, |v| f64::from(*v))?)
                }
                ColumnReader::DoubleColumnReader(mut r) => {
                    Col::Float(read_typed(&mut r, n, max_def, |v| *v)?)
                }
                ColumnReader::ByteArrayColumnReader(mut r) => {
                    Col::Str(read_typed(&mut r, n, max_def, |v| {
                        String::from_utf8_lossy(v.data()).into_owned()
                    })?)
                }
                ColumnReader::FixedLenByteArrayColumnReader(mut r) => {
                    Col::Str(read_typed(&mut r, n, max_def, |v| {
                        v.data().iter().map(|b| format!("{b:02x}")).collect()
                    })?)
                }
                ColumnReader::Int96ColumnReader(_) => Col::Int(Vec::new()),
            };
            group_rows = group_rows.max(col.len());
            parts.push(col);
        }
        for ((_, _, acc), mut part) in cols.iter_mut().zip(parts) {
            part.pad(group_rows);
            match acc {
                Some(a) => {
                    a.pad(rows);
                    a.append(part);
                }
                None => {
                    let mut a = part.empty_like();
                    a.pad(rows);
                    a.append(part);
                    *acc = Some(a);
                }
            }
        }
        rows += group_rows;
    }
    let cols = cols
        .into_iter()
        .filter_map(|(_, n, c)| {
            let mut c = c?;
            c.pad(rows);
            Some((n, c))
        })
        .collect();
    Ok(Table { name: name.to_string(), known: false, files: vec![name.to_string()], rows, cols, skipped })
}

/// The decoder must not take the viewer down on a hostile file: where panics unwind (native),
/// a panic inside the parquet crate becomes an error. (On wasm32 panics abort regardless.)
fn read_file_guarded(name: &str, bytes: &[u8]) -> Result<Table, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_file(name, bytes))) {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the Parquet decoder failed on this file (damaged file?)".to_string()),
    }
}

/// Base file name without directories and `.parquet`.
fn base_name(file_name: &str) -> &str {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base.len().checked_sub(8) {
        Some(k) if base.is_char_boundary(k) && base[k..].eq_ignore_ascii_case(".parquet") => &base[..k],
        _ => base,
    }
}

/// Table name from the file name: `Instruction.parquet`, `x/y/BirInstruction_1.parquet`.
fn table_from_file_name(file_name: &str) -> Option<&'static str> {
    let base = base_name(file_name);
    let find = |s: &str| KNOWN_TABLES.iter().copied().find(|t| t.eq_ignore_ascii_case(s));
    if let Some(t) = find(base) {
        return Some(t);
    }
    let (stem, num) = base.rsplit_once('_')?;
    if !num.is_empty() && num.bytes().all(|c| c.is_ascii_digit()) {
        return find(stem);
    }
    None
}

/// Table name from the column set (see [`SIGNATURES`]).
fn table_from_columns(cols: &[&str]) -> Result<&'static str, Vec<&'static str>> {
    let full: Vec<(&'static str, usize)> = SIGNATURES
        .iter()
        .filter(|(_, sig)| sig.iter().all(|c| cols.contains(c)))
        .map(|(t, sig)| (*t, sig.len()))
        .collect();
    let best = full.iter().map(|x| x.1).max().unwrap_or(0);
    let top: Vec<&'static str> = full.iter().filter(|x| x.1 == best).map(|x| x.0).collect();
    if top.len() == 1 {
        Ok(top[0])
    } else {
        Err(top)
    }
}

// ---------------------------------------------------------------------------------------------
// The importer

impl Importer for NeuronParquet {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        if prefix.starts_with(b"PAR1") {
            Sniff::Yes
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
        import_tables(std::slice::from_ref(file), b, progress)
    }

    fn import_group(
        &self,
        files: &[InputFile<'_>],
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Option<Result<(), ImportError>> {
        Some(import_tables(files, b, progress))
    }
}

/// The schema version this importer follows (neuron.md §3.7: the published reference).
pub const SCHEMA_VERSION: &str = "7.4.0";
/// Its MAJOR number: a profile of another MAJOR is refused ([`ImportError::SchemaVersion`]).
pub const SCHEMA_MAJOR: u64 = 7;
/// Its MINOR number: a newer MINOR (added tables or fields) is read, with a warning.
const SCHEMA_MINOR: u64 = 4;

/// `Instruction_3.parquet` → 3; `Instruction.parquet` (not split) → `None`.
fn split_index(file_name: &str) -> Option<u64> {
    let (_, num) = base_name(file_name).rsplit_once('_')?;
    if num.is_empty() || !num.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    num.parse().ok()
}

/// The profile's `Metadata.profile_schema_version` checked against [`SCHEMA_VERSION`]: another
/// MAJOR is an error naming the file and both versions; a newer MINOR, a missing or unreadable
/// version are warnings (the tables are read by column name, unknown columns kept as arguments).
fn check_schema_version(meta: &Table, b: &mut TraceBuilder) -> Result<(), ImportError> {
    let file = meta.files.first().cloned().unwrap_or_else(|| "Metadata.parquet".into());
    let Some(found) = meta.col("profile_schema_version").and_then(|c| c.text(0)) else {
        b.warn(WarningKind::ParquetSchemaVersionMissing, || {
            format!("'{file}' has no profile_schema_version; read as schema {SCHEMA_VERSION}")
        });
        return Ok(());
    };
    let found = found.trim().to_string();
    b.add_metadata("parquet.profile_schema_version", found.clone());
    let mut parts = found.split('.').map(|p| p.trim().parse::<u64>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    match major {
        Some(m) if m != SCHEMA_MAJOR => Err(ImportError::SchemaVersion {
            format: NAME,
            file: container::printable(&file),
            found: container::printable(&found),
            supported: SCHEMA_VERSION,
            supported_major: SCHEMA_MAJOR,
        }),
        Some(_) => {
            if minor.is_some_and(|m| m > SCHEMA_MINOR) {
                b.warn(WarningKind::ParquetSchemaNewerMinor, || {
                    format!(
                        "'{file}' is schema {found}, newer than the {SCHEMA_VERSION} Loupe follows: tables and \
                         columns added since are kept as arguments or listed as not imported"
                    )
                });
            }
            Ok(())
        }
        None => {
            b.warn(WarningKind::ParquetSchemaVersionUnreadable, || {
                format!("'{file}': profile_schema_version '{found}' is not MAJOR.MINOR.PATCH; read as schema {SCHEMA_VERSION}")
            });
            Ok(())
        }
    }
}

fn import_tables(
    files: &[InputFile<'_>],
    b: &mut TraceBuilder,
    progress: &mut dyn Progress,
) -> Result<(), ImportError> {
    let total: u64 = files.iter().map(|f| f.bytes.len() as u64).sum::<u64>().max(1);
    let mut done = 0u64;
    let mut first_error: Option<ImportError> = None;
    // the Metadata table first: a profile of another MAJOR schema is refused before the big
    // tables are read
    let mut order: Vec<&InputFile<'_>> = files.iter().collect();
    order.sort_by_key(|f| table_from_file_name(f.name) != Some("Metadata"));
    // (table, split index, file order, named by its file name, table)
    let mut read: Vec<(String, Option<u64>, usize, bool, Table)> = Vec::new();
    for (k, f) in order.into_iter().enumerate() {
        if !f.bytes.starts_with(b"PAR1") {
            return Err(ImportError::NotMine(NAME));
        }
        match read_file_guarded(f.name, f.bytes) {
            Ok(mut t) => {
                let by_name = table_from_file_name(f.name);
                let name = match by_name {
                    Some(n) => Some(n),
                    None => {
                        let cols: Vec<&str> = t
                            .cols
                            .iter()
                            .map(|c| c.0.as_str())
                            .chain(t.skipped.iter().map(String::as_str))
                            .collect();
                        match table_from_columns(&cols) {
                            Ok(n) => Some(n),
                            Err(cands) if cands.len() > 1 => {
                                let (file, c) = (f.name.to_string(), cands.join(", "));
                                b.warn(WarningKind::ParquetAmbiguousTable, || {
                                    format!("'{file}' has the columns of several tables ({c}); not imported")
                                });
                                None
                            }
                            Err(_) => None,
                        }
                    }
                };
                match name {
                    Some(n) => {
                        t.name = n.to_string();
                        t.known = true;
                    }
                    None => {
                        let base = base_name(f.name).to_string();
                        let file = f.name.to_string();
                        b.warn(WarningKind::ParquetUnknownTable, || {
                            format!("'{file}' is not a table of Neuron Explorer schema {SCHEMA_VERSION}; not imported")
                        });
                        t.name = base;
                    }
                }
                if t.known && t.name == "Metadata" && t.rows > 0 {
                    check_schema_version(&t, b)?;
                }
                let split = by_name.and_then(|_| split_index(f.name));
                read.push((t.name.clone(), split, k, by_name.is_some(), t));
            }
            Err(msg) => {
                let file = f.name.to_string();
                let e = ImportError::Invalid { format: NAME, message: format!("'{file}': {msg}") };
                if files.len() > 1 {
                    b.warn(WarningKind::ParquetUnreadableFile, || format!("'{file}': {msg}; skipped"));
                }
                first_error.get_or_insert(e);
            }
        }
        done += f.bytes.len() as u64;
        if !progress.report(done / 2, total) {
            return Err(ImportError::Cancelled);
        }
    }
    // a chunked table is its splits concatenated in split order (`_0`, `_1`, …, `_10`: by
    // number, not by name), whatever order the files came in
    read.sort_by(|a, c| (&a.0, a.1, a.2).cmp(&(&c.0, c.1, c.2)));
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    let mut splits: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut previous: Option<(String, Option<u64>, String)> = None;
    for (name, split, _, named, t) in read {
        let file = t.files.first().cloned().unwrap_or_default();
        // the same split of a table twice: the files of two profiles (two output directories)
        if let Some((pn, ps, pf)) = &previous {
            if *pn == name && *ps == split && named {
                return Err(ImportError::Invalid {
                    format: NAME,
                    message: format!(
                        "'{}' and '{}' are both {}: files of two profiles? Open one profile's output \
                         directory at a time",
                        container::printable(pf),
                        container::printable(&file),
                        match split {
                            Some(s) => format!("split {s} of table {name}"),
                            None => format!("table {name}"),
                        }
                    ),
                });
            }
        }
        previous = named.then(|| (name.clone(), split, file));
        if let Some(s) = split {
            splits.entry(name.clone()).or_default().push(s);
        }
        match tables.get_mut(&name) {
            Some(prev) => prev.append(t),
            None => {
                tables.insert(name, t);
            }
        }
    }
    for (name, s) in &splits {
        let missing: Vec<String> =
            (0..s.last().copied().unwrap_or(0)).filter(|i| !s.contains(i)).map(|i| i.to_string()).collect();
        if !missing.is_empty() {
            let (name, missing) = (name.clone(), missing.join(", "));
            b.warn(WarningKind::ParquetSplitMissing, || {
                format!("table {name}: split file(s) {missing} missing; the others are read in order")
            });
        }
    }
    if tables.is_empty() {
        return Err(first_error.unwrap_or(ImportError::Empty));
    }
    if !tables.get("Metadata").is_some_and(|t| t.known && t.rows > 0) {
        b.warn(WarningKind::ParquetSchemaVersionMissing, || {
            format!(
                "no Metadata table: the profile's schema version is unknown; read as schema {SCHEMA_VERSION}"
            )
        });
    }
    Conv::new(b, &tables).run(&tables);
    if !progress.report(total, total) {
        return Err(ImportError::Cancelled);
    }
    Ok(())
}

struct Conv<'b> {
    b: &'b mut TraceBuilder,
    devices: Devices,
}

const TIME_COLS: &[&str] = &["start_ts", "end_ts", "duration_ns", "timestamp", "duration", "pcore_idx"];

impl<'b> Conv<'b> {
    fn new(b: &'b mut TraceBuilder, tables: &BTreeMap<String, Table>) -> Self {
        let meta = tables.get("Metadata").filter(|t| t.rows > 0);
        let get = |c: &str| meta.and_then(|t| t.col(c)).and_then(|c| c.int(0));
        let (nc, nd) = (get("neuroncore_idx"), get("neuron_device_idx"));
        let mut name = match (nd, nc) {
            (Some(nd), Some(nc)) => format!("NeuronCore nd{nd}:nc{nc}"),
            (None, Some(nc)) => format!("NeuronCore nc{nc}"),
            _ => "NeuronCore".to_string(),
        };
        if let Some(p) =
            meta.and_then(|t| t.col("profile_name")).and_then(|c| c.text(0)).filter(|s| !s.is_empty())
        {
            name = format!("{name} · {p}");
        }
        let multi = get("num_physical_cores").is_some_and(|n| n > 1)
            || meta.and_then(|t| t.col("vnc_enabled")).and_then(|c| c.int(0)) == Some(1);
        Conv { b, devices: Devices::new(name, multi) }
    }

    fn run(mut self, tables: &BTreeMap<String, Table>) {
        let t = |n: &str| tables.get(n).filter(|t| t.known);
        let hier = self.hierarchy(
            t("FrameworkInstruction"),
            t("HloInstruction"),
            t("PenguinInstruction"),
            t("BirInstruction"),
            t("AssemblyInstruction"),
        );
        let (instr, triggers) = t("Instruction").map(|x| self.instructions(x, &hier)).unwrap_or_default();
        let transfers = t("DmaPacketAggregated").map(|x| self.transfers(x, &triggers)).unwrap_or_default();
        let packets = t("DmaPacket").map(|x| self.packets(x)).unwrap_or_default();
        if let Some(f) = t("Flow") {
            self.flows(f, &instr, &transfers, &packets);
        }
        if let Some(x) = t("SemaphoreUpdate") {
            self.semaphores(x);
        }
        if let Some(x) = t("Throttle") {
            self.throttle(x);
        }
        for (table, specs) in [
            (
                "DmaUsage",
                &[
                    ("current_throughput", "DMA throughput", "B/s", CounterRole::DmaThroughput),
                    ("total_transfer_bytes", "DMA transferred", "B", CounterRole::Generic),
                ][..],
            ),
            (
                "HbmUsage",
                &[
                    ("current_throughput", "HBM throughput", "B/s", CounterRole::DmaThroughput),
                    ("total_transfer_bytes", "HBM transferred", "B", CounterRole::Generic),
                ][..],
            ),
            ("PendingDma", &[("value", "Pending DMA", "", CounterRole::PendingDma)][..]),
            ("SbufUsage", &[("avg_util_percent", "SBUF usage", "%", CounterRole::Utilisation)][..]),
            ("PsumUsage", &[("avg_util_percent", "PSUM usage", "%", CounterRole::Utilisation)][..]),
        ] {
            if let Some(x) = t(table) {
                self.counters(x, specs);
            }
        }
        if let Some(x) = t("SbufUsage") {
            self.numbered_counters(x, "partition_", "SBUF partition");
        }
        if let Some(x) = t("PsumUsage") {
            self.numbered_counters(x, "bank_", "PSUM bank");
        }
        if let Some(x) = t("ActiveTime") {
            self.active_time(x);
        }
        if let Some(x) = t("Error") {
            self.errors(x);
        }
        if let Some(x) = t("CcOp") {
            self.generic_slices(x, "cc_op", "operation", |_| "CC operations".to_string());
            // typed: the ranks analysis matches the operations across ranks by this role
            self.set_role_of_other("CC operations", TrackRole::CollectiveOps);
        }
        if let Some(x) = t("CcInstruction") {
            self.generic_slices(x, "cc_instruction", "description", |r| {
                format!("CC-core {}", r.map_or("?".into(), |v| v.to_string()))
            });
        }
        if let Some(x) = t("CoreBarriers") {
            self.generic_slices(x, "core_barrier", "compiler_opcode", |_| "Core barriers".to_string());
        }
        self.device_info(t("Summary"), t("Metadata"));
        self.program(t("NeffHeader"), t("TensorInfo"));
        self.metadata(tables);
    }

    /// The program view from the NEFF's own tables as Explorer copied them: `NeffHeader` (one
    /// row) → the header fields, `TensorInfo` → the `Tensors` table the NEFF importer also
    /// writes (name, kind, shape; `size` in bytes as stated, no dtype: the table has none).
    /// Not when a NEFF was loaded with the tables (its own program is the fuller one).
    fn program(&mut self, header: Option<&Table>, tensors: Option<&Table>) {
        if self.b.program.is_some() || (header.is_none() && tensors.is_none()) {
            return;
        }
        let mut p = crate::model::Program { kind: ProgramKind::NeffExplorerTables, ..Default::default() };
        if let Some(h) = header.filter(|h| h.rows > 0) {
            let text = |c: &str| h.col(c).and_then(|c| c.text(0)).unwrap_or_default();
            p.name = text("network_name");
            p.header = ProgramHeader {
                uuid: text("uuid"),
                network_name: text("network_name"),
                lnc_size: text("lnc_size").trim().parse().ok(),
                fields: h.cols.iter().filter_map(|(n, c)| Some((n.clone(), c.text(0)?))).collect(),
            };
        }
        if let Some(t) = tensors {
            let text = |c: &str, i: usize| t.col(c).and_then(|c| c.text(i)).unwrap_or_default();
            let mut table = crate::model::Table {
                kind: ProgramTableKind::Tensors,
                name: "Tensors".into(),
                columns: ["subgraph", "name", "kind", "dtype", "shape", "size", "format", "node"]
                    .map(String::from)
                    .to_vec(),
                rows: Vec::with_capacity(t.rows),
            };
            for i in 0..t.rows {
                // `["128 128 1 1"]` → `[128, 128, 1, 1]`
                let dims: Vec<String> = text("shape", i)
                    .split(|c: char| !c.is_ascii_digit() && c != '-')
                    .filter(|d| !d.is_empty() && d.parse::<i64>().is_ok())
                    .map(String::from)
                    .collect();
                let kind = match text("type", i).trim().to_ascii_uppercase().as_str() {
                    "IN" | "INPUT" => "input".to_string(),
                    "OUT" | "OUTPUT" => "output".to_string(),
                    "WEIGHT" | "WEIGHTS" | "CONST" => "const".to_string(),
                    other => other.to_ascii_lowercase(),
                };
                table.rows.push(vec![
                    String::new(),
                    text("variable_name", i),
                    kind,
                    String::new(),
                    format!("[{}]", dims.join(", ")),
                    t.col("size").and_then(|c| c.int(i)).map(|n| n.to_string()).unwrap_or_default(),
                    text("format", i),
                    text("node", i),
                ]);
            }
            p.tables.push(table);
        }
        self.b.program = Some(p);
    }

    /// Device facts from the Summary table (first row): `total_time` (s, the runtime-reported
    /// execution time), `event_count`, `dma_queue_count`, and `instance_type` (Summary, else
    /// Metadata). Set on every device group of the profile.
    fn device_info(&mut self, summary: Option<&Table>, meta: Option<&Table>) {
        fn row0<'t>(t: Option<&'t Table>, k: &str) -> Option<&'t Col> {
            t.filter(|t| t.rows > 0).and_then(|t| t.col(k))
        }
        let count = |k: &str| row0(summary, k).and_then(|c| c.int(0)).and_then(|n| u64::try_from(n).ok());
        let total = row0(summary, "total_time")
            .and_then(|c| c.num(0))
            .filter(|t| t.is_finite() && *t > 0.0 && *t < 1.0e6)
            .map(|t| (t * 1e12).round() as u64);
        let instance = row0(summary, "instance_type")
            .or_else(|| row0(meta, "instance_type"))
            .and_then(|c| c.text(0))
            .filter(|s| !s.trim().is_empty());
        let d = DeviceInfo {
            execution_time_ps: total,
            instance_type: instance.map(|s| self.b.intern(s.trim())),
            event_count: count("event_count"),
            dma_queue_count: count("dma_queue_count"),
            ..DeviceInfo::default()
        };
        if d == DeviceInfo::default() {
            return;
        }
        let groups: Vec<_> = self.devices.groups().collect();
        for g in groups {
            self.b.set_group_device(g, d.clone());
        }
    }

    fn pcore(t: &Table) -> impl Fn(usize) -> i64 + '_ {
        let c = t.col("pcore_idx");
        move |i| c.and_then(|c| c.int(i)).unwrap_or(0)
    }

    /// (start, duration) columns of a timeline table.
    fn span_cols(t: &Table) -> impl Fn(usize) -> Option<(i64, i64)> + '_ {
        let s = t.col("start_ts").or_else(|| t.col("timestamp"));
        let e = t.col("end_ts");
        let d = t.col("duration_ns").or_else(|| t.col("duration"));
        move |i| {
            let start = s?.int(i)?;
            let dur = d
                .and_then(|d| d.int(i))
                .or_else(|| e.and_then(|e| e.int(i)).map(|e| e.saturating_sub(start)))
                .unwrap_or(0);
            Some((start, dur))
        }
    }

    /// The argument columns of a table: everything but `skip` and the time columns, in the
    /// preferred order then by name.
    fn arg_cols<'t>(&mut self, t: &'t Table, skip: &[&str], order: &[&str]) -> Vec<(StrId, &'t Col)> {
        let mut v: Vec<(&str, &Col)> = t
            .cols
            .iter()
            .filter(|(n, _)| !skip.contains(&n.as_str()) && !TIME_COLS.contains(&n.as_str()))
            .map(|(n, c)| (n.as_str(), c))
            .collect();
        v.sort_by(|a, c| (device::arg_rank(order, a.0), a.0).cmp(&(device::arg_rank(order, c.0), c.0)));
        v.into_iter().map(|(n, c)| (self.b.intern(n), c)).collect()
    }

    fn row_args(&mut self, cols: &[(StrId, &Col)], i: usize, extra: &[(StrId, ArgValue)]) -> ArgsId {
        let mut entries: Vec<(StrId, ArgValue)> = Vec::with_capacity(cols.len() + extra.len());
        for &(k, c) in cols {
            if let Some(v) = c.arg(i, self.b) {
                entries.push((k, v));
            }
        }
        entries.extend_from_slice(extra);
        self.b.add_args(entries)
    }

    fn missing_time(&mut self, table: &str) {
        let t = table.to_string();
        self.b.warn(WarningKind::NeuronMissingTimestamp, || format!("a '{t}' row has no timestamp; skipped"));
    }

    fn hierarchy(
        &mut self,
        fw: Option<&Table>,
        hlo: Option<&Table>,
        pg: Option<&Table>,
        bir: Option<&Table>,
        asm: Option<&Table>,
    ) -> Hierarchy {
        let mut h = Hierarchy::default();
        for (t, raw, name, key) in [
            (fw, "raw_framework_id", "framework_name", "framework_name"),
            (hlo, "raw_hlo_id", "hlo_name", "hlo_name"),
            (pg, "raw_penguin_id", "penguin_name", "penguin_name"),
            (bir, "raw_bir_id", "bir_name", "bir_name"),
        ] {
            let Some(t) = t else { continue };
            let (Some(rc), Some(nc)) = (t.col(raw), t.col(name)) else {
                let tn = t.name.clone();
                self.b.warn(WarningKind::ParquetMissingColumn, || {
                    format!("{tn} lacks '{raw}' or '{name}'; operator names not linked")
                });
                continue;
            };
            let idc = t.col("id");
            let mut by_raw = HashMap::new();
            let mut by_id = HashMap::new();
            for i in 0..t.rows {
                let Some(n) = nc.str_ref(i).filter(|s| !s.is_empty()) else { continue };
                let s = self.b.intern(n);
                if let Some(r) = rc.int(i) {
                    by_raw.entry(r).or_insert(s);
                }
                if let Some(id) = idc.and_then(|c| c.int(i)) {
                    by_id.entry(id).or_insert(s);
                }
            }
            let key = self.b.intern(key);
            h.levels.push(Level { raw_col: raw, key, by_raw, by_id });
        }
        if let Some(t) = asm {
            if let Some(idc) = t.col("instruction_id") {
                let cols: Vec<(StrId, &Col)> = ["compiler_opcode", "compiler_operands", "compiler_pc"]
                    .iter()
                    .filter_map(|c| Some((self.b.intern(c), t.col(c)?)))
                    .collect();
                for i in 0..t.rows {
                    let Some(id) = idc.int(i) else { continue };
                    let mut v = Vec::new();
                    for &(k, c) in &cols {
                        if let Some(a) = c.arg(i, self.b) {
                            v.push((k, a));
                        }
                    }
                    h.asm.entry(id).or_insert(v);
                }
            }
        }
        h
    }

    /// Instruction rows → engine slices. Returns id → slice and the DMA triggers
    /// (instruction start → [(triggered DMA start, slice)]).
    #[allow(clippy::type_complexity)]
    fn instructions(
        &mut self,
        t: &Table,
        hier: &Hierarchy,
    ) -> (HashMap<i64, SliceHandle>, HashMap<i64, Vec<(i64, SliceHandle)>>) {
        let cat = self.b.intern("instruction");
        let fallback_name = self.b.intern("instruction");
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let track_col = t.col("timeline_track");
        let engine_col = t.col("engine");
        let opcode = t.col("opcode");
        let idc = t.col("id");
        let trig = t.col("dma_trigger_start_ts");
        let args = self.arg_cols(t, &["timeline_track", "opcode"], INSTRUCTION_ARG_ORDER);
        let raw_cols: Vec<Option<&Col>> = hier.levels.iter().map(|l| t.col(l.raw_col)).collect();
        let mut by_id = HashMap::new();
        let mut triggers: HashMap<i64, Vec<(i64, SliceHandle)>> = HashMap::new();
        let mut names: HashMap<String, StrId> = HashMap::new();
        for i in 0..t.rows {
            let Some((ts, dur)) = span(i) else {
                self.missing_time("Instruction");
                continue;
            };
            let label = track_col
                .and_then(|c| c.str_ref(i))
                .filter(|s| !s.is_empty())
                .or_else(|| engine_col.and_then(|c| c.str_ref(i)))
                .unwrap_or("");
            let track = self.devices.get(self.b, pcore(i)).engine(self.b, label);
            let name = match opcode.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()) {
                Some(op) => match names.get(op) {
                    Some(&s) => s,
                    None => {
                        let s = self.b.intern(op);
                        names.insert(op.to_string(), s);
                        s
                    }
                },
                None => fallback_name,
            };
            let id = idc.and_then(|c| c.int(i));
            // operator names of the hierarchy levels, unless the row has the column itself
            let mut extra: Vec<(StrId, ArgValue)> = Vec::new();
            for (l, rc) in hier.levels.iter().zip(&raw_cols) {
                if args.iter().any(|a| a.0 == l.key && a.1.is_set(i)) {
                    continue;
                }
                let s = rc
                    .and_then(|c| c.int(i))
                    .and_then(|r| l.by_raw.get(&r))
                    .or_else(|| id.and_then(|id| l.by_id.get(&id)));
                if let Some(&s) = s {
                    extra.push((l.key, ArgValue::Str(s)));
                }
            }
            if let Some(asm) = id.and_then(|id| hier.asm.get(&id)) {
                for &(k, v) in asm {
                    if !args.iter().any(|a| a.0 == k && a.1.is_set(i)) {
                        extra.push((k, v));
                    }
                }
            }
            let a = self.row_args(&args, i, &extra);
            let h = self.b.add_slice(track, ts, dur, name, cat, a);
            let op = if name == fallback_name { StrId::EMPTY } else { name };
            let d = device::domain_from_args(self.b, op, a, false);
            self.b.set_slice_domain(h, d);
            if let Some(id) = id {
                by_id.insert(id, h);
            }
            if let Some(tr) = trig.and_then(|c| c.int(i)) {
                triggers.entry(ts).or_default().push((tr, h));
            }
        }
        (by_id, triggers)
    }

    fn transfers(
        &mut self,
        t: &Table,
        triggers: &HashMap<i64, Vec<(i64, SliceHandle)>>,
    ) -> HashMap<i64, SliceHandle> {
        let cat = self.b.intern("dma_transfer");
        let trig_name = self.b.intern("dma trigger");
        let trig_cat = self.b.intern("dma_trigger");
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let (q, var, idc, trig) = (t.col("queue_name"), t.col("variable"), t.col("id"), t.col("trigger"));
        let qtype = t.col("queue_type");
        let args = self.arg_cols(t, &[], DMA_ARG_ORDER);
        let mut by_id = HashMap::new();
        for i in 0..t.rows {
            let Some((ts, dur)) = span(i) else {
                self.missing_time("DmaPacketAggregated");
                continue;
            };
            let qn = q.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or("DMA");
            let track = self.devices.get(self.b, pcore(i)).dma_transfers(self.b, qn);
            if let Some(qt) = qtype.and_then(|c| c.str_ref(i)).and_then(DmaQueueType::from_name) {
                self.b.set_track_dma_queue_type(track, qt);
            }
            let name =
                self.b.intern(var.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or("dma"));
            let a = self.row_args(&args, i, &[]);
            let h = self.b.add_slice(track, ts, dur, name, cat, a);
            let d = device::domain_from_args(self.b, StrId::EMPTY, a, true);
            self.b.set_slice_domain(h, d);
            if let Some(id) = idc.and_then(|c| c.int(i)) {
                by_id.insert(id, h);
            }
            if let Some(tt) = trig.and_then(|c| c.int(i)) {
                let from =
                    triggers.get(&tt).and_then(|v| v.iter().find(|x| x.0 == ts).or(v.first())).map(|x| x.1);
                match from {
                    Some(from) => {
                        self.b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(h), trig_name, trig_cat)
                    }
                    None => self.b.warn(WarningKind::NeuronDmaTriggerUnresolved, || {
                        format!("no instruction starts at the DMA trigger time {tt} ns")
                    }),
                }
            }
        }
        by_id
    }

    fn packets(&mut self, t: &Table) -> HashMap<i64, SliceHandle> {
        let cat = self.b.intern("dma_packet");
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let (q, var, idc, eng, qi) =
            (t.col("queue_name"), t.col("variable"), t.col("id"), t.col("engine_idx"), t.col("queue_idx"));
        let qtype = t.col("queue_type");
        let args = self.arg_cols(t, &[], DMA_ARG_ORDER);
        let mut by_id = HashMap::new();
        let mut names: HashMap<String, StrId> = HashMap::new();
        for i in 0..t.rows {
            let Some((ts, dur)) = span(i) else {
                self.missing_time("DmaPacket");
                continue;
            };
            let (e, qq) = (eng.and_then(|c| c.int(i)), qi.and_then(|c| c.int(i)));
            let label = match q.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()) {
                Some(l) => l.to_string(),
                None => format!(
                    "Q{}-E{}",
                    qq.map_or("?".into(), |v| v.to_string()),
                    e.map_or("?".into(), |v| v.to_string())
                ),
            };
            let track = self.devices.get(self.b, pcore(i)).dma_queue(self.b, &label, e, qq);
            if let Some(qt) = qtype.and_then(|c| c.str_ref(i)).and_then(DmaQueueType::from_name) {
                self.b.set_track_dma_queue_type(track, qt);
            }
            let vn = var.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or("dma");
            let name = match names.get(vn) {
                Some(&s) => s,
                None => {
                    let s = self.b.intern(vn);
                    names.insert(vn.to_string(), s);
                    s
                }
            };
            let a = self.row_args(&args, i, &[]);
            let h = self.b.add_slice(track, ts, dur, name, cat, a);
            let d = device::domain_from_args(self.b, StrId::EMPTY, a, true);
            self.b.set_slice_domain(h, d);
            if let Some(id) = idc.and_then(|c| c.int(i)) {
                by_id.insert(id, h);
            }
        }
        by_id
    }

    fn flows(
        &mut self,
        t: &Table,
        instr: &HashMap<i64, SliceHandle>,
        transfers: &HashMap<i64, SliceHandle>,
        packets: &HashMap<i64, SliceHandle>,
    ) {
        let cat = self.b.intern("dependency");
        let (ii, oi, it, ot, dt) = (
            t.col("in_id"),
            t.col("out_id"),
            t.col("in_table"),
            t.col("out_table"),
            t.col("dependency_type"),
        );
        let lookup = |table: Option<&str>, id: Option<i64>| -> Option<SliceHandle> {
            let id = id?;
            let t = table.unwrap_or("instruction").to_ascii_lowercase().replace('_', "");
            match t.as_str() {
                "instruction" | "instructions" => instr.get(&id).copied(),
                "dmablock" | "dmapacketaggregated" | "dmatransfer" => transfers.get(&id).copied(),
                "dma" | "dmapacket" | "dmapackets" => packets.get(&id).copied(),
                _ => None,
            }
        };
        for i in 0..t.rows {
            let from = lookup(it.and_then(|c| c.str_ref(i)), ii.and_then(|c| c.int(i)));
            let to = lookup(ot.and_then(|c| c.str_ref(i)), oi.and_then(|c| c.int(i)));
            match (from, to) {
                (Some(f), Some(to)) => {
                    let name = self.b.intern(
                        dt.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or("dependency"),
                    );
                    self.b.add_flow(FlowEnd::Slice(f), FlowEnd::Slice(to), name, cat);
                }
                _ => self.b.warn(WarningKind::NeuronFlowUnresolved, || {
                    format!("Flow row {i} names an event that is not in the imported tables; dropped")
                }),
            }
        }
    }

    fn semaphores(&mut self, t: &Table) {
        let pcore = Self::pcore(t);
        let (Some(ts), Some(idc)) = (t.col("timestamp"), t.col("id")) else {
            self.b.warn(WarningKind::ParquetMissingColumn, || {
                "SemaphoreUpdate lacks 'timestamp' or 'id'; not imported".into()
            });
            return;
        };
        let val = t.col("value");
        let mut ids: Vec<(i64, String, (i64, String))> = Vec::new();
        let mut seen: HashMap<(i64, String), ()> = HashMap::new();
        for i in 0..t.rows {
            let key = (pcore(i), idc.text(i).unwrap_or_default());
            if seen.insert(key.clone(), ()).is_none() {
                let s = semaphore_display(&key.1).1;
                ids.push((key.0, key.1, s));
            }
        }
        ids.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
        let mut counters = HashMap::new();
        for (p, id, _) in ids {
            let c = self.devices.get(self.b, p).semaphore(self.b, &id);
            counters.insert((p, id), c);
        }
        for i in 0..t.rows {
            let Some(tv) = ts.int(i) else {
                self.missing_time("SemaphoreUpdate");
                continue;
            };
            let key = (pcore(i), idc.text(i).unwrap_or_default());
            if let Some(&c) = counters.get(&key) {
                self.b.add_counter_sample(c, tv, val.and_then(|v| v.num(i)).unwrap_or(f64::NAN));
            }
        }
    }

    fn throttle(&mut self, t: &Table) {
        let cat = self.b.intern("throttle");
        let limit_key = self.b.intern("limit_percent");
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let (kc, nc) = (t.col("k"), t.col("n"));
        let args = self.arg_cols(t, &[], &["k", "n", "type"]);
        for i in 0..t.rows {
            let Some((ts, dur)) = span(i) else {
                self.missing_time("Throttle");
                continue;
            };
            let (k, n) = (kc.and_then(|c| c.int(i)), nc.and_then(|c| c.int(i)));
            let dev = self.devices.get(self.b, pcore(i));
            let track = dev.throttle(self.b);
            let limit = dev.counter(self.b, "Throttle limit", "%", CounterRole::Throttle);
            let name = self.b.intern(&match (k, n) {
                (Some(k), Some(n)) => format!("throttle {k}/{n}"),
                _ => "throttle".to_string(),
            });
            let mut extra = Vec::new();
            if let (Some(k), Some(n)) = (k, n) {
                if n != 0 {
                    let pct = k as f64 * 100.0 / n as f64;
                    extra.push((limit_key, ArgValue::Float(pct)));
                    self.b.add_counter_sample(limit, ts, pct);
                    self.b.add_counter_sample(limit, ts.saturating_add(dur.max(0)), 100.0);
                }
            }
            let a = self.row_args(&args, i, &extra);
            self.b.add_slice(track, ts, dur, name, cat, a);
        }
    }

    fn counters(&mut self, t: &Table, specs: &[(&str, &str, &str, CounterRole)]) {
        let pcore = Self::pcore(t);
        let Some(ts) = t.col("timestamp") else {
            let tn = t.name.clone();
            self.b
                .warn(WarningKind::ParquetMissingColumn, || format!("{tn} lacks 'timestamp'; not imported"));
            return;
        };
        for &(col, name, unit, role) in specs {
            let Some(c) = t.col(col) else { continue };
            for i in 0..t.rows {
                let (Some(tv), Some(v)) = (ts.int(i), c.num(i)) else { continue };
                let id = self.devices.get(self.b, pcore(i)).counter(self.b, name, unit, role);
                self.b.add_counter_sample(id, tv, v);
            }
        }
    }

    /// `partition_<n>_util_percent` / `bank_<n>_util_percent` columns → one counter each.
    fn numbered_counters(&mut self, t: &Table, prefix: &str, label: &str) {
        let mut cols: Vec<(i64, &str)> = t
            .cols
            .iter()
            .filter_map(|(n, _)| {
                Some((n.strip_prefix(prefix)?.strip_suffix("_util_percent")?.parse().ok()?, n.as_str()))
            })
            .collect();
        cols.sort();
        let specs: Vec<(String, String)> =
            cols.iter().map(|(k, c)| (c.to_string(), format!("{label} {k} usage"))).collect();
        let specs: Vec<(&str, &str, &str, CounterRole)> =
            specs.iter().map(|(c, n)| (c.as_str(), n.as_str(), "%", CounterRole::MemoryOccupancy)).collect();
        self.counters(t, &specs);
    }

    fn active_time(&mut self, t: &Table) {
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let eng = t.col("engine");
        let mut spans: device::SpansBy<(i64, i64, String)> = Vec::new();
        for i in 0..t.rows {
            let Some((s, d)) = span(i) else { continue };
            let (name, rank) = device::engine_display(eng.and_then(|c| c.str_ref(i)).unwrap_or(""));
            let key = (pcore(i), rank, name);
            match spans.iter_mut().find(|x| x.0 == key) {
                Some(x) => x.1.push((s, s.saturating_add(d))),
                None => spans.push((key, vec![(s, s.saturating_add(d))])),
            }
        }
        spans.sort_by(|a, b| a.0.cmp(&b.0));
        for ((p, _, engine), s) in spans {
            let c = self.devices.get(self.b, p).counter(
                self.b,
                &format!("{engine} active"),
                "",
                CounterRole::EngineActivity,
            );
            add_activity(self.b, c, s);
        }
    }

    fn errors(&mut self, t: &Table) {
        let cat = self.b.intern("error");
        let pcore = Self::pcore(t);
        let (ts, desc) = (t.col("timestamp"), t.col("description"));
        let args = self.arg_cols(t, &["description"], &["type", "error_type_id", "metadata", "metadata_hex"]);
        for i in 0..t.rows {
            let Some(tv) = ts.and_then(|c| c.int(i)) else {
                self.missing_time("Error");
                continue;
            };
            let track = self.devices.get(self.b, pcore(i)).other(self.b, "Errors", TrackKind::Stream);
            let name =
                self.b.intern(desc.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or("error"));
            let a = self.row_args(&args, i, &[]);
            self.b.add_instant(track, tv, name, cat, a);
        }
    }

    /// Give the "other" track `name` of every device that has one a typed role.
    fn set_role_of_other(&mut self, name: &str, role: TrackRole) {
        for t in self.devices.others_named(name) {
            self.b.set_track_role(t, role);
        }
    }

    fn generic_slices(
        &mut self,
        t: &Table,
        category: &str,
        name_col: &str,
        track_name: impl Fn(Option<i64>) -> String,
    ) {
        let cat = self.b.intern(category);
        let span = Self::span_cols(t);
        let pcore = Self::pcore(t);
        let nc = t.col(name_col);
        let core = t.col("core_idx");
        let args = self.arg_cols(t, &[name_col], &[]);
        for i in 0..t.rows {
            let Some((ts, dur)) = span(i) else {
                self.missing_time(&t.name.clone());
                continue;
            };
            let tn = track_name(core.and_then(|c| c.int(i)));
            let track = self.devices.get(self.b, pcore(i)).other(self.b, &tn, TrackKind::Stream);
            let name =
                self.b.intern(nc.and_then(|c| c.str_ref(i)).filter(|s| !s.is_empty()).unwrap_or(category));
            let a = self.row_args(&args, i, &[]);
            self.b.add_slice(track, ts, dur, name, cat, a);
        }
    }

    fn metadata(&mut self, tables: &BTreeMap<String, Table>) {
        self.b.add_metadata("neuron.format", "Neuron Explorer Parquet");
        for &(table, snake) in METADATA_TABLES {
            let Some(t) = tables.get(table).filter(|t| t.known) else { continue };
            let rows: Vec<serde_json::Value> = (0..t.rows)
                .map(|i| {
                    serde_json::Value::Object(t.cols.iter().map(|(n, c)| (n.clone(), c.json(i))).collect())
                })
                .collect();
            let key = format!("neuron.{snake}");
            let text = device::capped_json(self.b, &key, serde_json::to_string(&rows).unwrap_or_default());
            self.b.add_metadata(key, text);
            if t.rows == 1 {
                for (n, c) in &t.cols {
                    if let Some(v) = c.text(0) {
                        self.b.add_metadata(format!("{snake}.{n}"), v);
                    }
                }
            }
        }
        let list = |f: &dyn Fn(&Table) -> bool| -> String {
            tables
                .values()
                .filter(|t| f(t))
                .map(|t| format!("{} ({} rows)", t.name, t.rows))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let all = list(&|_| true);
        self.b.add_metadata("parquet.tables", all);
        let unknown = list(&|t| !t.known);
        if !unknown.is_empty() {
            self.b.add_metadata("parquet.unknown_tables", unknown);
        }
        let skipped = list(&|t| {
            t.known
                && !TIMELINE_TABLES.contains(&t.name.as_str())
                && !METADATA_TABLES.iter().any(|m| m.0 == t.name)
        });
        if !skipped.is_empty() {
            self.b.add_metadata("parquet.tables_not_imported", skipped);
        }
        for t in tables.values().filter(|t| !t.skipped.is_empty()) {
            self.b.add_metadata(format!("parquet.{}.columns_not_read", t.name), t.skipped.join(", "));
        }
    }
}

#[derive(Default)]
struct Hierarchy {
    levels: Vec<Level>,
    /// Instruction.id → AssemblyInstruction's compiler_opcode/operands/pc.
    asm: HashMap<i64, Vec<(StrId, ArgValue)>>,
}

struct Level {
    raw_col: &'static str,
    key: StrId,
    by_raw: HashMap<i64, StrId>,
    by_id: HashMap<i64, StrId>,
}

#[cfg(test)]
mod tests;
