//! The subset of Perfetto's trace protos the importer reads, as hand-declared `prost` messages
//! (no protoc, no build script). Field numbers are those of google/perfetto@ec5d16b1 (the commit
//! the shared samples were encoded with):
//! - `protos/perfetto/trace/trace_packet.proto` (`TracePacket`)
//! - `protos/perfetto/trace/trace_packet_defaults.proto` (`TracePacketDefaults`)
//! - `protos/perfetto/trace/clock_snapshot.proto` (`ClockSnapshot`)
//! - `protos/perfetto/trace/track_event/track_event.proto` (`TrackEvent`, `TrackEventDefaults`,
//!   `TrackEvent.LegacyEvent`, `EventCategory`, `EventName`)
//! - `protos/perfetto/trace/track_event/debug_annotation.proto` (`DebugAnnotation`, `DebugAnnotationName`)
//! - `protos/perfetto/trace/track_event/track_descriptor.proto`, `process_descriptor.proto`,
//!   `thread_descriptor.proto`, `counter_descriptor.proto`
//! - `protos/perfetto/trace/interned_data/interned_data.proto` (`InternedData`)
//! - `protos/perfetto/common/interned_string.proto` (`InternedString`)
//! - `protos/perfetto/trace/gpu/gpu_render_stage_event.proto` (`GpuRenderStageEvent`,
//!   `InternedGpuRenderStageSpecification`, and the `GpuInternedData.compute_kernels` extension,
//!   field 1000 of `InternedData`, `InternedComputeKernel`)
//!
//! Fields not declared here are skipped by prost (unknown fields), which is what a subset reader
//! wants; the packet-level tags are scanned separately to name skipped data sources.

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct TracePacket {
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    #[prost(bool, optional, tag = "41")]
    pub incremental_state_cleared: Option<bool>,
    #[prost(message, optional, tag = "59")]
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    #[prost(bool, optional, tag = "42")]
    pub previous_packet_dropped: Option<bool>,
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    #[prost(message, optional, tag = "43")]
    pub process_descriptor: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "44")]
    pub thread_descriptor: Option<ThreadDescriptor>,
    #[prost(bytes = "vec", optional, tag = "50")]
    pub compressed_packets: Option<Vec<u8>>,
    #[prost(message, optional, tag = "53")]
    pub gpu_render_stage_event: Option<GpuRenderStageEvent>,
}

/// `SEQ_INCREMENTAL_STATE_CLEARED` in `TracePacket.SequenceFlags`.
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `SEQ_NEEDS_INCREMENTAL_STATE` in `TracePacket.SequenceFlags`.
pub const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

#[derive(Clone, PartialEq, Message)]
pub struct TracePacketDefaults {
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TrackEventDefaults {
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ClockSnapshot {
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
    #[prost(int32, optional, tag = "2")]
    pub primary_trace_clock: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Clock {
    #[prost(uint32, optional, tag = "1")]
    pub clock_id: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub timestamp: Option<u64>,
    #[prost(bool, optional, tag = "3")]
    pub is_incremental: Option<bool>,
    #[prost(uint64, optional, tag = "4")]
    pub unit_multiplier_ns: Option<u64>,
}

/// `BUILTIN_CLOCK_BOOTTIME`: the default trace clock.
pub const CLOCK_BOOTTIME: u32 = 6;
/// Clock ids from here on are scoped to one packet sequence.
pub const FIRST_SEQUENCE_CLOCK: u32 = 64;

#[derive(Clone, PartialEq, Message)]
pub struct TrackEvent {
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub category_iids: Vec<u64>,
    #[prost(string, repeated, tag = "22")]
    pub categories: Vec<String>,
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    #[prost(double, optional, tag = "44")]
    pub double_counter_value: Option<f64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(int64, repeated, packed = "false", tag = "12")]
    pub extra_counter_values: Vec<i64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
    #[prost(double, repeated, packed = "false", tag = "46")]
    pub extra_double_counter_values: Vec<f64>,
    /// `flow_ids_old` (deprecated uint64 form).
    #[prost(uint64, repeated, packed = "false", tag = "36")]
    pub flow_ids_old: Vec<u64>,
    #[prost(fixed64, repeated, packed = "false", tag = "47")]
    pub flow_ids: Vec<u64>,
    /// `terminating_flow_ids_old` (deprecated uint64 form).
    #[prost(uint64, repeated, packed = "false", tag = "42")]
    pub terminating_flow_ids_old: Vec<u64>,
    #[prost(fixed64, repeated, packed = "false", tag = "48")]
    pub terminating_flow_ids: Vec<u64>,
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
    #[prost(int64, optional, tag = "1")]
    pub timestamp_delta_us: Option<i64>,
    #[prost(int64, optional, tag = "16")]
    pub timestamp_absolute_us: Option<i64>,
    #[prost(message, optional, tag = "6")]
    pub legacy_event: Option<LegacyEvent>,
}

/// `TrackEvent.Type`.
pub const TYPE_SLICE_BEGIN: i32 = 1;
pub const TYPE_SLICE_END: i32 = 2;
pub const TYPE_INSTANT: i32 = 3;
pub const TYPE_COUNTER: i32 = 4;

#[derive(Clone, PartialEq, Message)]
pub struct LegacyEvent {
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    #[prost(int32, optional, tag = "2")]
    pub phase: Option<i32>,
    #[prost(int64, optional, tag = "3")]
    pub duration_us: Option<i64>,
    #[prost(uint64, optional, tag = "6")]
    pub unscoped_id: Option<u64>,
    #[prost(uint64, optional, tag = "10")]
    pub local_id: Option<u64>,
    #[prost(uint64, optional, tag = "11")]
    pub global_id: Option<u64>,
    #[prost(string, optional, tag = "7")]
    pub id_scope: Option<String>,
    #[prost(uint64, optional, tag = "8")]
    pub bind_id: Option<u64>,
    /// `FlowDirection`: 1 IN, 2 OUT, 3 INOUT.
    #[prost(int32, optional, tag = "13")]
    pub flow_direction: Option<i32>,
    #[prost(int32, optional, tag = "18")]
    pub pid_override: Option<i32>,
    #[prost(int32, optional, tag = "19")]
    pub tid_override: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct DebugAnnotation {
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    #[prost(string, optional, tag = "10")]
    pub name: Option<String>,
    #[prost(bool, optional, tag = "2")]
    pub bool_value: Option<bool>,
    #[prost(uint64, optional, tag = "3")]
    pub uint_value: Option<u64>,
    #[prost(int64, optional, tag = "4")]
    pub int_value: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub double_value: Option<f64>,
    #[prost(string, optional, tag = "6")]
    pub string_value: Option<String>,
    #[prost(uint64, optional, tag = "17")]
    pub string_value_iid: Option<u64>,
    #[prost(uint64, optional, tag = "7")]
    pub pointer_value: Option<u64>,
    #[prost(string, optional, tag = "9")]
    pub legacy_json_value: Option<String>,
    #[prost(message, repeated, tag = "11")]
    pub dict_entries: Vec<DebugAnnotation>,
    #[prost(message, repeated, tag = "12")]
    pub array_values: Vec<DebugAnnotation>,
    #[prost(message, optional, tag = "8")]
    pub nested_value: Option<NestedValue>,
}

/// `DebugAnnotation.NestedValue` (the older nested form): `nested_type` 0 leaf, 1 dict, 2 array.
#[derive(Clone, PartialEq, Message)]
pub struct NestedValue {
    #[prost(int32, optional, tag = "1")]
    pub nested_type: Option<i32>,
    #[prost(string, repeated, tag = "2")]
    pub dict_keys: Vec<String>,
    #[prost(message, repeated, tag = "3")]
    pub dict_values: Vec<NestedValue>,
    #[prost(message, repeated, tag = "4")]
    pub array_values: Vec<NestedValue>,
    #[prost(int64, optional, tag = "5")]
    pub int_value: Option<i64>,
    #[prost(double, optional, tag = "6")]
    pub double_value: Option<f64>,
    #[prost(bool, optional, tag = "7")]
    pub bool_value: Option<bool>,
    #[prost(string, optional, tag = "8")]
    pub string_value: Option<String>,
}

impl NestedValue {
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self.nested_type.unwrap_or(0) {
            1 => Value::Object(
                self.dict_keys
                    .iter()
                    .cloned()
                    .zip(self.dict_values.iter().map(NestedValue::to_json))
                    .collect(),
            ),
            2 => Value::Array(self.array_values.iter().map(NestedValue::to_json).collect()),
            _ => {
                if let Some(v) = self.int_value {
                    Value::from(v)
                } else if let Some(v) = self.double_value {
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
                } else if let Some(v) = self.bool_value {
                    Value::Bool(v)
                } else if let Some(v) = &self.string_value {
                    Value::String(v.clone())
                } else {
                    Value::Null
                }
            }
        }
    }
}

#[derive(Clone, PartialEq, Message)]
pub struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "10")]
    pub static_name: Option<String>,
    #[prost(string, optional, tag = "13")]
    pub atrace_name: Option<String>,
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
    #[prost(int32, optional, tag = "12")]
    pub sibling_order_rank: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ProcessDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(string, repeated, tag = "2")]
    pub cmdline: Vec<String>,
    #[prost(string, optional, tag = "6")]
    pub process_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ThreadDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub tid: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
    #[prost(int64, optional, tag = "6")]
    pub reference_timestamp_us: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct CounterDescriptor {
    #[prost(string, repeated, tag = "2")]
    pub categories: Vec<String>,
    /// `Unit`: 1 TIME_NS, 2 COUNT, 3 SIZE_BYTES.
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
    #[prost(string, optional, tag = "6")]
    pub unit_name: Option<String>,
    #[prost(int64, optional, tag = "4")]
    pub unit_multiplier: Option<i64>,
    #[prost(bool, optional, tag = "5")]
    pub is_incremental: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct InternedData {
    #[prost(message, repeated, tag = "1")]
    pub event_categories: Vec<InternedName>,
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<InternedName>,
    #[prost(message, repeated, tag = "3")]
    pub debug_annotation_names: Vec<InternedName>,
    #[prost(message, repeated, tag = "29")]
    pub debug_annotation_string_values: Vec<InternedString>,
    #[prost(message, repeated, tag = "24")]
    pub gpu_specifications: Vec<InternedGpuRenderStageSpecification>,
    /// `GpuInternedData.compute_kernels` (extension of `InternedData`, field 1000).
    #[prost(message, repeated, tag = "1000")]
    pub compute_kernels: Vec<InternedComputeKernel>,
}

/// `EventCategory`, `EventName` and `DebugAnnotationName` share this shape: `{iid = 1, name = 2}`.
#[derive(Clone, PartialEq, Message)]
pub struct InternedName {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct InternedString {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub str: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct InternedGpuRenderStageSpecification {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub description: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct InternedComputeKernel {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub demangled_name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub arch: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct GpuRenderStageEvent {
    #[prost(uint64, optional, tag = "1")]
    pub event_id: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub duration: Option<u64>,
    #[prost(uint64, optional, tag = "13")]
    pub hw_queue_iid: Option<u64>,
    #[prost(uint64, optional, tag = "14")]
    pub stage_iid: Option<u64>,
    #[prost(int32, optional, tag = "11")]
    pub gpu_id: Option<i32>,
    #[prost(uint64, optional, tag = "5")]
    pub context: Option<u64>,
    /// Deprecated non-interned queue/stage ids (`hw_queue_id = 3`, `stage_id = 4`).
    #[prost(int32, optional, tag = "3")]
    pub hw_queue_id: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub stage_id: Option<i32>,
    /// The compute kernel (iid into `GpuInternedData.compute_kernels`).
    #[prost(uint64, optional, tag = "19")]
    pub kernel_iid: Option<u64>,
}

/// Names of `TracePacket` payload fields the importer does not draw (for the "skipped data
/// sources" warning), from trace_packet.proto. Unlisted numbers are reported as `field N`.
pub fn packet_field_name(field: u32) -> Option<&'static str> {
    Some(match field {
        1 => "ftrace_events",
        2 => "process_tree",
        4 => "inode_file_map",
        5 => "chrome_events",
        7 => "sys_stats",
        9 => "process_stats",
        37 => "profile_packet",
        38 => "battery",
        39 => "android_log",
        40 => "power_rails",
        47 => "packages_list",
        49 => "perfetto_metatrace",
        52 => "gpu_counter_event",
        54 => "streaming_profile_packet",
        56 => "heap_graph",
        57 => "graphics_frame_event",
        63 => "gpu_log",
        66 => "perf_sample",
        67 => "cpu_info",
        68 => "smaps_packet",
        76 => "frame_timeline_event",
        _ => return None,
    })
}

/// `TracePacket` fields that are bookkeeping, not a data source (never reported as skipped):
/// trusted_uid 3, clock_snapshot 6, timestamp 8, trusted_packet_sequence_id 10, track_event 11,
/// interned_data 12, sequence_flags 13, trace_config 33, ftrace_stats 34, trace_stats 35,
/// synchronization_marker 36, incremental_state_cleared 41, previous_packet_dropped 42,
/// process/thread descriptors 43/44, system_info 45, trigger 46, compressed_packets 50,
/// gpu_render_stage_event 53, timestamp_clock_id 58, trace_packet_defaults 59, track_descriptor 60,
/// service_event 69, trusted_pid 79, first_packet_on_sequence 87, trace_uuid 89.
pub fn is_bookkeeping_field(field: u32) -> bool {
    matches!(
        field,
        3 | 6
            | 8
            | 10
            | 11
            | 12
            | 13
            | 33
            | 34
            | 35
            | 36
            | 41
            | 42
            | 43
            | 44
            | 45
            | 46
            | 50
            | 53
            | 58
            | 59
            | 60
            | 69
            | 79
            | 87
            | 89
    )
}
