//! XSpace messages as hand-declared `prost` structs (no protoc), field numbers from
//! `tsl/profiler/protobuf/xplane.proto` (openxla/xla, `third_party/tsl/tsl/profiler/protobuf/
//! xplane.proto`; the same file XProf reads, docs/formats/other-formats.md §7).
//!
//! `XSpace.planes` (field 1) is not declared: the importer reads the XSpace record by record
//! and decodes one [`XPlane`] at a time.

use std::collections::HashMap;

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct XPlane {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<XLine>,
    #[prost(map = "int64, message", tag = "4")]
    pub event_metadata: HashMap<i64, XEventMetadata>,
    #[prost(map = "int64, message", tag = "5")]
    pub stat_metadata: HashMap<i64, XStatMetadata>,
    #[prost(message, repeated, tag = "6")]
    pub stats: Vec<XStat>,
}

#[derive(Clone, PartialEq, Message)]
pub struct XLine {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(int64, tag = "10")]
    pub display_id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "11")]
    pub display_name: String,
    #[prost(int64, tag = "3")]
    pub timestamp_ns: i64,
    #[prost(int64, tag = "9")]
    pub duration_ps: i64,
    #[prost(message, repeated, tag = "4")]
    pub events: Vec<XEvent>,
}

#[derive(Clone, PartialEq, Message)]
pub struct XEvent {
    #[prost(int64, tag = "1")]
    pub metadata_id: i64,
    /// `oneof data { int64 offset_ps = 2; int64 num_occurrences = 5; }`
    #[prost(int64, optional, tag = "2")]
    pub offset_ps: Option<i64>,
    #[prost(int64, optional, tag = "5")]
    pub num_occurrences: Option<i64>,
    #[prost(int64, tag = "3")]
    pub duration_ps: i64,
    #[prost(message, repeated, tag = "4")]
    pub stats: Vec<XStat>,
}

/// `XStat { int64 metadata_id = 1; oneof value { double double_value = 2; uint64 uint64_value = 3;
/// int64 int64_value = 4; string str_value = 5; bytes bytes_value = 6; uint64 ref_value = 7; } }`
/// (the oneof as optional fields: the last one set wins on the wire, which prost's oneof would do
/// too). `str_value` is bytes here so that a non-UTF-8 string damages one stat, not the plane.
#[derive(Clone, PartialEq, Message)]
pub struct XStat {
    #[prost(int64, tag = "1")]
    pub metadata_id: i64,
    #[prost(double, optional, tag = "2")]
    pub double_value: Option<f64>,
    #[prost(uint64, optional, tag = "3")]
    pub uint64_value: Option<u64>,
    #[prost(int64, optional, tag = "4")]
    pub int64_value: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub str_value: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub bytes_value: Option<Vec<u8>>,
    #[prost(uint64, optional, tag = "7")]
    pub ref_value: Option<u64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct XEventMetadata {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "4")]
    pub display_name: String,
    #[prost(message, repeated, tag = "5")]
    pub stats: Vec<XStat>,
}

#[derive(Clone, PartialEq, Message)]
pub struct XStatMetadata {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub description: String,
}
