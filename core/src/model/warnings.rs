//! Structured, counted warnings: one entry per kind with a count and the first example, never
//! one line per event.
//!
//! Every kind is a [`WarningKind`] variant with a stable code (its text in the CLI's output, the
//! page's warning list and the `.loupe` file, where it is stored by code so that reordering the
//! enum changes nothing written before). A new kind is one line in `warning_kinds!` (below).

use bincode::de::{BorrowDecoder, Decoder};
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};

macro_rules! warning_kinds {
    ($($(#[$doc:meta])* $variant:ident = $code:literal,)*) => {
        /// A kind of damage or limitation an importer (or the builder) reports, with its stable
        /// code ([`WarningKind::code`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum WarningKind {
            $($(#[$doc])* $variant,)*
        }

        impl WarningKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [WarningKind] = &[$(WarningKind::$variant,)*];

            /// The stable machine-readable code, e.g. `"unmatched_end"`.
            pub const fn code(self) -> &'static str {
                match self {
                    $(WarningKind::$variant => $code,)*
                }
            }

            /// The kind of a code ([`WarningKind::code`]'s inverse).
            pub fn from_code(code: &str) -> Option<WarningKind> {
                match code {
                    $($code => Some(WarningKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

warning_kinds! {
    // shared by several importers, the builder, Chrome / Kineto JSON
    BadArgs = "bad_args",
    BadDur = "bad_dur",
    BadTraceEvents = "bad_trace_events",
    BadTs = "bad_ts",
    CounterNotNumeric = "counter_not_numeric",
    EmptyEvent = "empty_event",
    FlowUnbound = "flow_unbound",
    FlowWithoutStart = "flow_without_start",
    LaneLimit = "lane_limit",
    MetadataIgnored = "metadata_ignored",
    MissingComma = "missing_comma",
    MissingDur = "missing_dur",
    MissingPhase = "missing_phase",
    MissingTs = "missing_ts",
    NegativeDuration = "negative_duration",
    NoEvents = "no_events",
    NonObjectEvent = "non_object_event",
    ObjectEventsIgnored = "object_events_ignored",
    OverlappingSlices = "overlapping_slices",
    SectionNotImported = "section_not_imported",
    StrayComma = "stray_comma",
    SyntaxError = "syntax_error",
    TooManyArgumentSets = "too_many_argument_sets",
    TrailingData = "trailing_data",
    TruncatedEvent = "truncated_event",
    TruncatedFile = "truncated_file",
    UnclosedAsync = "unclosed_async",
    UnclosedBegin = "unclosed_begin",
    UnknownPhase = "unknown_phase",
    UnmatchedAsyncEnd = "unmatched_async_end",
    UnmatchedEnd = "unmatched_end",
    UnsupportedPhase = "unsupported_phase",
    // containers
    ContainerTrailingBytes = "container_trailing_bytes",
    ContainerTruncated = "container_truncated",
    // demo
    DemoCapped = "demo_capped",
    // Perfetto
    PerfettoBadCompressedPackets = "perfetto_bad_compressed_packets",
    PerfettoBadPacket = "perfetto_bad_packet",
    PerfettoCompressedTooDeep = "perfetto_compressed_too_deep",
    PerfettoCompressedTooLarge = "perfetto_compressed_too_large",
    PerfettoCounterOnNonCounterTrack = "perfetto_counter_on_non_counter_track",
    PerfettoDataLoss = "perfetto_data_loss",
    PerfettoEventTypeSkipped = "perfetto_event_type_skipped",
    PerfettoExtraCounterWithoutTrack = "perfetto_extra_counter_without_track",
    PerfettoFlowUnbound = "perfetto_flow_unbound",
    PerfettoIncrementalStateLost = "perfetto_incremental_state_lost",
    PerfettoLegacyPhaseSkipped = "perfetto_legacy_phase_skipped",
    PerfettoNoTimestamp = "perfetto_no_timestamp",
    PerfettoSkippedDataSources = "perfetto_skipped_data_sources",
    PerfettoTruncated = "perfetto_truncated",
    PerfettoUnknownClock = "perfetto_unknown_clock",
    PerfettoUnknownGpuQueue = "perfetto_unknown_gpu_queue",
    PerfettoUnknownIid = "perfetto_unknown_iid",
    PerfettoUnknownTopLevelField = "perfetto_unknown_top_level_field",
    PerfettoUnknownTrack = "perfetto_unknown_track",
    PerfettoUnmatchedEnd = "perfetto_unmatched_end",
    PerfettoUnterminatedSlice = "perfetto_unterminated_slice",
    // XProf
    XplaneBadPlane = "xplane_bad_plane",
    XplaneMissingEventMetadata = "xplane_missing_event_metadata",
    XplanePlanesWithoutEvents = "xplane_planes_without_events",
    XplaneSpaceError = "xplane_space_error",
    XplaneSpaceWarning = "xplane_space_warning",
    XplaneTruncated = "xplane_truncated",
    XprofToolNotDrawn = "xprof_tool_not_drawn",
    XprofToolTablesDropped = "xprof_tool_tables_dropped",
    // rocprof
    RocprofBadNode = "rocprof_bad_node",
    RocprofMissingTime = "rocprof_missing_time",
    RocprofNoBufferRecords = "rocprof_no_buffer_records",
    RocprofNoRecords = "rocprof_no_records",
    RocprofSkippedRecords = "rocprof_skipped_records",
    // Nsight Systems SQLite
    NsysMissingColumn = "nsys_missing_column",
    NsysMissingTable = "nsys_missing_table",
    NsysMissingTime = "nsys_missing_time",
    NsysNoEvents = "nsys_no_events",
    NsysUnresolvedName = "nsys_unresolved_name",
    SqliteReadError = "sqlite_read_error",
    // DLProf
    DlprofBadUtf8 = "dlprof_bad_utf8",
    DlprofExtraFields = "dlprof_extra_fields",
    DlprofMissingColumn = "dlprof_missing_column",
    DlprofMissingTable = "dlprof_missing_table",
    DlprofMissingTime = "dlprof_missing_time",
    DlprofNoEvents = "dlprof_no_events",
    DlprofOrphanRow = "dlprof_orphan_row",
    DlprofShortRow = "dlprof_short_row",
    // NEFF
    Neff = "neff",
    /// The NEFF dropped with an NTFF is not the one the NTFF was captured from.
    NeffUuidMismatch = "neff_uuid_mismatch",
    // NTFF
    NtffBlockMisaligned = "ntff_blockmisaligned",
    NtffBlockOutOfRange = "ntff_blockoutofrange",
    NtffBlockTiling = "ntff_blocktiling",
    NtffHeaderMismatch = "ntff_headermismatch",
    NtffMemorySizeUnknown = "ntff_memory_size_unknown",
    NtffMetadataMalformed = "ntff_metadatamalformed",
    NtffMetadataValue = "ntff_metadatavalue",
    NtffMissingClock = "ntff_missingclock",
    NtffMissingProgram = "ntff_missingprogram",
    NtffMultipleProfileStarts = "ntff_multipleprofilestarts",
    NtffProfileStartNotFound = "ntff_profilestartnotfound",
    NtffTimestampOverflow = "ntff_timestampoverflow",
    /// The NTFF file ends before the data its metadata describes.
    NtffTruncated = "ntff_truncated",
    NtffUnexpectedRecordClass = "ntff_unexpectedrecordclass",
    NtffUnknownBlockType = "ntff_unknownblocktype",
    NtffUuidTruncated = "ntff_uuidtruncated",
    // Neuron JSON / TensorBoard
    NeuronDmaTriggerUnresolved = "neuron_dma_trigger_unresolved",
    /// Instruction rows of an NTFF's own export that matched no row of the NTFF (or the other
    /// way round), with the join rate.
    NeuronExportJoinIncomplete = "neuron_export_join_incomplete",
    NeuronFlowUnresolved = "neuron_flow_unresolved",
    NeuronFractionalTime = "neuron_fractional_time",
    /// A JSON export dropped with the NTFF it was made from: its tables and its per-instruction
    /// attribution join the NTFF's timeline (one profile, not two).
    NeuronJsonExportOfNtff = "neuron_json_export_of_ntff",
    NeuronMetadataTruncated = "neuron_metadata_truncated",
    NeuronMissingTimestamp = "neuron_missing_timestamp",
    NeuronUnknownUsageType = "neuron_unknown_usage_type",
    TbNeuronBadOp = "tb_neuron_bad_op",
    TbNeuronManyKeys = "tb_neuron_many_keys",
    // Neuron Explorer Parquet
    ParquetAmbiguousTable = "parquet_ambiguous_table",
    ParquetMissingColumn = "parquet_missing_column",
    ParquetSchemaNewerMinor = "parquet_schema_newer_minor",
    ParquetSchemaVersionMissing = "parquet_schema_version_missing",
    ParquetSchemaVersionUnreadable = "parquet_schema_version_unreadable",
    ParquetSplitMissing = "parquet_split_missing",
    ParquetUnknownTable = "parquet_unknown_table",
    ParquetUnreadableFile = "parquet_unreadable_file",
}

impl std::fmt::Display for WarningKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl serde::Serialize for WarningKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl bincode::Encode for WarningKind {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.code().encode(e)
    }
}

impl<C> bincode::Decode<C> for WarningKind {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let code = String::decode(d)?;
        WarningKind::from_code(&code)
            .ok_or(DecodeError::OtherString(format!("unknown warning kind '{code}'")))
    }
}

impl<'de, C> bincode::BorrowDecode<'de, C> for WarningKind {
    fn borrow_decode<D: BorrowDecoder<'de, Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        <WarningKind as bincode::Decode<C>>::decode(d)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Warning {
    /// What happened, by kind; its stable code is `kind.code()`.
    pub kind: WarningKind,
    /// How often it happened.
    pub count: u64,
    /// Human-readable description of the first occurrence.
    pub example: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Warnings {
    pub entries: Vec<Warning>,
}

impl Warnings {
    /// Count one occurrence of `kind`; `example` is only evaluated for the first one.
    pub fn add(&mut self, kind: WarningKind, example: impl FnOnce() -> String) {
        self.add_n(kind, 1, example)
    }
    pub fn add_n(&mut self, kind: WarningKind, n: u64, example: impl FnOnce() -> String) {
        if n == 0 {
            return;
        }
        if let Some(w) = self.entries.iter_mut().find(|w| w.kind == kind) {
            w.count += n;
        } else {
            self.entries.push(Warning { kind, count: n, example: example() });
        }
    }
    /// Total number of occurrences.
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|w| w.count).sum()
    }
    pub fn count_of(&self, kind: WarningKind) -> u64 {
        self.entries.iter().find(|w| w.kind == kind).map_or(0, |w| w.count)
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn merge(&mut self, other: &Warnings) {
        for w in &other.entries {
            let ex = w.example.clone();
            self.add_n(w.kind, w.count, || ex);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &k in WarningKind::ALL {
            assert!(seen.insert(k.code()), "code {} twice", k.code());
            assert_eq!(WarningKind::from_code(k.code()), Some(k));
            assert!(
                k.code().bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                k.code()
            );
        }
        assert_eq!(WarningKind::from_code("no_such_kind"), None);
    }

    #[test]
    fn stored_by_code() {
        let mut w = Warnings::default();
        w.add(WarningKind::UnmatchedEnd, || "an E without B".into());
        w.add_n(WarningKind::UnmatchedEnd, 2, || unreachable!());
        let cfg = bincode::config::standard();
        let bytes = bincode::encode_to_vec(&w, cfg).unwrap();
        // the code's text is in the encoding, not a variant index
        assert!(bytes.windows(13).any(|x| x == b"unmatched_end"));
        let (back, _): (Warnings, usize) = bincode::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(back, w);
        assert_eq!(back.count_of(WarningKind::UnmatchedEnd), 3);
        let json = serde_json::to_string(&back.entries[0]).unwrap();
        assert!(json.contains(r#""kind":"unmatched_end""#), "{json}");
        // an unknown code does not decode as some other kind
        let bad = bincode::encode_to_vec(("no_such_kind", 1u64, String::new()), cfg).unwrap();
        assert!(bincode::decode_from_slice::<Warning, _>(&bad, cfg).is_err());
    }
}
