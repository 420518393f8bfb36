//! The whole model as Parquet, one table per event kind, with the `parquet` crate's column writer
//! (no arrow; pure Rust codecs, so it runs in the browser too). The schema is stable and
//! documented in `docs/export.md`; a column is added only at the end of a table, never renamed.
//!
//! Tables: `tracks`, `slices`, `instants`, `counters` (one row per sample), `flows`, `args` (one
//! row per key of an argument set, joined to events by `args_id`), `operators` (the operator
//! tree). Strings are written inline (dictionary-encoded by Parquet, so repeated names cost
//! little); times are INT64 nanoseconds; absent typed values are NULL. Rows are written in row
//! groups of [`ROW_GROUP_ROWS`], so memory stays bounded for any trace size.

use super::{group_kind_name, role_name, track_kind_name, ExportError};
use crate::model::{ArgValue, ArgsId, CounterRole, OpId, Trace};
use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::io::Write;
use std::sync::Arc;

/// Every table, in the order [`parquet_tables`] writes them.
pub const TABLES: [&str; 7] = ["tracks", "slices", "instants", "counters", "flows", "args", "operators"];
/// Rows per row group.
pub const ROW_GROUP_ROWS: usize = 256 * 1024;

#[derive(Clone, Copy)]
enum T {
    I32,
    I64,
    F64,
    Bool,
    Str,
}

/// (name, type, nullable) of each column of a table.
fn schema(table: &str) -> Option<&'static [(&'static str, T, bool)]> {
    use T::*;
    Some(match table {
        "tracks" => &[
            ("track_id", I32, false),
            ("group_id", I32, false),
            ("group_name", Str, false),
            ("group_kind", Str, false),
            ("track_name", Str, false),
            ("track_kind", Str, false),
            ("role", Str, false),
            ("engine", Str, true),
            ("source_id", Str, false),
            ("source_file", Str, true),
            ("slice_count", I64, false),
            ("instant_count", I64, false),
        ],
        "slices" => &[
            ("track_id", I32, false),
            ("slice_index", I32, false),
            ("depth", I32, false),
            ("start_ns", I64, false),
            ("dur_ns", I64, false),
            ("end_ns", I64, false),
            ("name", Str, false),
            ("category", Str, false),
            ("args_id", I64, true),
            ("opcode", Str, true),
            ("operator_id", I32, true),
            ("instruction", I64, true),
            ("dma_bytes", I64, true),
            ("flops", I64, true),
            ("source_path", Str, true),
            ("source_line", I32, true),
        ],
        "instants" => &[
            ("track_id", I32, false),
            ("ts_ns", I64, false),
            ("name", Str, false),
            ("category", Str, false),
            ("args_id", I64, true),
        ],
        "counters" => &[
            ("counter_id", I32, false),
            ("group_id", I32, false),
            ("counter_name", Str, false),
            ("unit", Str, false),
            ("role", Str, false),
            ("ts_ns", I64, false),
            ("value", F64, false),
        ],
        "flows" => &[
            ("flow_id", I32, false),
            ("from_track_id", I32, false),
            ("from_slice_index", I32, false),
            ("to_track_id", I32, false),
            ("to_slice_index", I32, false),
            ("name", Str, false),
            ("category", Str, false),
        ],
        "args" => &[
            ("args_id", I64, false),
            ("key", Str, false),
            ("type", Str, false),
            ("int_value", I64, true),
            ("float_value", F64, true),
            ("bool_value", Bool, true),
            ("string_value", Str, true),
        ],
        "operators" => &[
            ("operator_id", I32, false),
            ("parent_id", I32, true),
            ("level", Str, false),
            ("name", Str, false),
        ],
        _ => return None,
    })
}

/// The Parquet message type of a table (what `docs/export.md` lists).
pub fn message_type(table: &str) -> Option<String> {
    let cols = schema(table)?;
    let decl: Vec<String> = cols
        .iter()
        .map(|&(n, t, null)| {
            let rep = if null { "optional" } else { "required" };
            let ty = match t {
                T::I32 => "int32",
                T::I64 => "int64",
                T::F64 => "double",
                T::Bool => "boolean",
                T::Str => "binary",
            };
            let ann = if matches!(t, T::Str) { " (UTF8)" } else { "" };
            format!("  {rep} {ty} {n}{ann};")
        })
        .collect();
    Some(format!("message {table} {{\n{}\n}}", decl.join("\n")))
}

/// One column's buffered values (and definition levels when nullable).
enum Buf {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<ByteArray>),
}

/// A value for one cell; `None` = NULL (only in nullable columns).
enum V<'a> {
    I32(Option<i32>),
    I64(Option<i64>),
    F64(Option<f64>),
    Bool(Option<bool>),
    Str(Option<&'a str>),
}

struct TableWriter<W: Write + Send> {
    w: SerializedFileWriter<W>,
    bufs: Vec<(Buf, Option<Vec<i16>>)>,
    rows: usize,
}

fn perr(e: parquet::errors::ParquetError) -> ExportError {
    ExportError::Parquet(e.to_string())
}

impl<W: Write + Send> TableWriter<W> {
    fn new(table: &str, out: W) -> Result<Self, ExportError> {
        let known = || ExportError::UnknownTable(table.to_string(), TABLES.join(", "));
        let cols = schema(table).ok_or_else(known)?;
        let ty = parse_message_type(&message_type(table).ok_or_else(known)?).map_err(perr)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("loupe {}", env!("CARGO_PKG_VERSION")))
            .build();
        let w = SerializedFileWriter::new(out, Arc::new(ty), Arc::new(props)).map_err(perr)?;
        let bufs = cols
            .iter()
            .map(|&(_, t, null)| {
                let b = match t {
                    T::I32 => Buf::I32(Vec::new()),
                    T::I64 => Buf::I64(Vec::new()),
                    T::F64 => Buf::F64(Vec::new()),
                    T::Bool => Buf::Bool(Vec::new()),
                    T::Str => Buf::Str(Vec::new()),
                };
                (b, null.then(Vec::new))
            })
            .collect();
        Ok(TableWriter { w, bufs, rows: 0 })
    }

    /// Append one row: one value per column, in schema order.
    fn row(&mut self, vals: &[V<'_>]) -> Result<(), ExportError> {
        for ((buf, defs), v) in self.bufs.iter_mut().zip(vals) {
            let present = match (buf, v) {
                (Buf::I32(b), V::I32(x)) => x.map(|x| b.push(x)).is_some(),
                (Buf::I64(b), V::I64(x)) => x.map(|x| b.push(x)).is_some(),
                (Buf::F64(b), V::F64(x)) => x.map(|x| b.push(x)).is_some(),
                (Buf::Bool(b), V::Bool(x)) => x.map(|x| b.push(x)).is_some(),
                (Buf::Str(b), V::Str(x)) => x.map(|x| b.push(ByteArray::from(x))).is_some(),
                _ => return Err(ExportError::Parquet("internal: a value of the wrong type".into())),
            };
            match defs {
                Some(d) => d.push(i16::from(present)),
                None if !present => {
                    return Err(ExportError::Parquet("internal: NULL in a required column".into()))
                }
                None => {}
            }
        }
        self.rows += 1;
        if self.rows >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExportError> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut g = self.w.next_row_group().map_err(perr)?;
        for (buf, defs) in &mut self.bufs {
            let Some(mut cw) = g.next_column().map_err(perr)? else {
                return Err(ExportError::Parquet("internal: fewer columns than the schema".into()));
            };
            let d = defs.as_deref();
            match buf {
                Buf::I32(v) => cw.typed::<Int32Type>().write_batch(v, d, None),
                Buf::I64(v) => cw.typed::<Int64Type>().write_batch(v, d, None),
                Buf::F64(v) => cw.typed::<DoubleType>().write_batch(v, d, None),
                Buf::Bool(v) => cw.typed::<BoolType>().write_batch(v, d, None),
                Buf::Str(v) => cw.typed::<ByteArrayType>().write_batch(v, d, None),
            }
            .map_err(perr)?;
            cw.close().map_err(perr)?;
            match buf {
                Buf::I32(v) => v.clear(),
                Buf::I64(v) => v.clear(),
                Buf::F64(v) => v.clear(),
                Buf::Bool(v) => v.clear(),
                Buf::Str(v) => v.clear(),
            }
            if let Some(d) = defs {
                d.clear();
            }
        }
        g.close().map_err(perr)?;
        self.rows = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<(), ExportError> {
        self.flush()?;
        self.w.close().map_err(perr)?;
        Ok(())
    }
}

fn args_id(a: ArgsId) -> Option<i64> {
    (a != ArgsId::NONE).then_some(i64::from(a.0))
}

fn counter_role_name(r: CounterRole) -> &'static str {
    match r {
        CounterRole::Generic => "generic",
        CounterRole::Semaphore => "semaphore",
        CounterRole::EngineActivity => "engine_activity",
        CounterRole::DmaThroughput => "dma_throughput",
        CounterRole::PendingDma => "pending_dma",
        CounterRole::Utilisation => "utilisation",
        CounterRole::Throttle => "throttle",
        CounterRole::MemoryOccupancy => "memory_occupancy",
    }
}

/// Ids are u32 in the model; Parquet INT32 holds them bit for bit (ids above 2^31 read negative,
/// which no trace that fits in memory reaches).
fn id32(x: u32) -> i32 {
    x as i32
}

/// Write one table (`TABLES`) of the trace as a Parquet file into `out`.
pub fn write_table<W: Write + Send>(trace: &Trace, table: &str, out: W) -> Result<(), ExportError> {
    let mut w = TableWriter::new(table, out)?;
    let s = |id| trace.str(id);
    match table {
        "tracks" => {
            for (ti, t) in trace.tracks.iter().enumerate() {
                let g = trace.groups.get(t.group.idx());
                w.row(&[
                    V::I32(Some(id32(ti as u32))),
                    V::I32(Some(id32(t.group.0))),
                    V::Str(Some(g.map_or("", |g| s(g.name)))),
                    V::Str(Some(g.map_or("other", |g| group_kind_name(g.kind)))),
                    V::Str(Some(s(t.name))),
                    V::Str(Some(track_kind_name(t.kind))),
                    V::Str(Some(role_name(t.role))),
                    V::Str(t.role.engine().map(|e| e.name())),
                    V::Str(Some(s(t.source_id))),
                    V::Str(g.and_then(|g| g.source_file).map(s)),
                    V::I64(Some(t.slices.len() as i64)),
                    V::I64(Some(t.instants.len() as i64)),
                ])?;
            }
        }
        "slices" => {
            for (ti, t) in trace.tracks.iter().enumerate() {
                let c = &t.slices;
                for depth in 0..c.depth_count() {
                    for i in c.depth_range(depth) {
                        let d = c.domain_of(i);
                        let src = d.source.get().and_then(|id| trace.sources.get(id.idx()));
                        w.row(&[
                            V::I32(Some(id32(ti as u32))),
                            V::I32(Some(i as i32)),
                            V::I32(Some(depth as i32)),
                            V::I64(Some(c.start_ns[i])),
                            V::I64(Some(c.dur_ns.at(i))),
                            V::I64(Some(c.end_ns(i))),
                            V::Str(Some(s(c.name[i]))),
                            V::Str(Some(s(c.category[i]))),
                            V::I64(args_id(c.args[i])),
                            V::Str((d.opcode != crate::StrId::EMPTY).then(|| s(d.opcode))),
                            V::I32(d.operator.get().map(|o| id32(o.0))),
                            V::I64((d.instruction != u32::MAX).then_some(i64::from(d.instruction))),
                            V::I64((d.bytes != u64::MAX).then(|| i64::try_from(d.bytes).ok()).flatten()),
                            V::I64((d.flops != u64::MAX).then(|| i64::try_from(d.flops).ok()).flatten()),
                            V::Str(src.map(|l| s(l.file))),
                            V::I32(src.map(|l| l.line as i32)),
                        ])?;
                    }
                }
            }
        }
        "instants" => {
            for (ti, t) in trace.tracks.iter().enumerate() {
                let c = &t.instants;
                for i in 0..c.len() {
                    w.row(&[
                        V::I32(Some(id32(ti as u32))),
                        V::I64(Some(c.ts_ns[i])),
                        V::Str(Some(s(c.name[i]))),
                        V::Str(Some(s(c.category[i]))),
                        V::I64(args_id(c.args[i])),
                    ])?;
                }
            }
        }
        "counters" => {
            for (ci, c) in trace.counters.iter().enumerate() {
                for (&ts, &v) in c.ts_ns.iter().zip(&c.value) {
                    w.row(&[
                        V::I32(Some(id32(ci as u32))),
                        V::I32(Some(id32(c.group.0))),
                        V::Str(Some(s(c.name))),
                        V::Str(Some(s(c.unit))),
                        V::Str(Some(counter_role_name(c.role))),
                        V::I64(Some(ts)),
                        V::F64(Some(v)),
                    ])?;
                }
            }
        }
        "flows" => {
            for (fi, f) in trace.flows.iter().enumerate() {
                w.row(&[
                    V::I32(Some(id32(fi as u32))),
                    V::I32(Some(id32(f.from.track.0))),
                    V::I32(Some(id32(f.from.index))),
                    V::I32(Some(id32(f.to.track.0))),
                    V::I32(Some(id32(f.to.index))),
                    V::Str(Some(s(f.name))),
                    V::Str(Some(s(f.category))),
                ])?;
            }
        }
        "args" => {
            for a in trace.args.ids() {
                for (k, v) in trace.args.get(a) {
                    let (ty, i, f, b, st) = match v {
                        ArgValue::Null => ("null", None, None, None, None),
                        ArgValue::Bool(x) => ("bool", None, None, Some(x), None),
                        ArgValue::Int(x) => ("int", Some(x), None, None, None),
                        ArgValue::UInt(x) => match i64::try_from(x) {
                            Ok(x) => ("int", Some(x), None, None, None),
                            Err(_) => ("uint", None, None, None, Some(x.to_string())),
                        },
                        ArgValue::Float(x) => ("float", None, Some(x), None, None),
                        ArgValue::Str(x) => ("string", None, None, None, Some(s(x).to_string())),
                        ArgValue::Json(x) => ("json", None, None, None, Some(s(x).to_string())),
                    };
                    w.row(&[
                        V::I64(Some(i64::from(a.0))),
                        V::Str(Some(s(k))),
                        V::Str(Some(ty)),
                        V::I64(i),
                        V::F64(f),
                        V::Bool(b),
                        V::Str(st.as_deref()),
                    ])?;
                }
            }
        }
        "operators" => {
            for (oi, n) in trace.operators.nodes.iter().enumerate() {
                w.row(&[
                    V::I32(Some(id32(oi as u32))),
                    V::I32((n.parent != OpId::NONE).then_some(id32(n.parent.0))),
                    V::Str(Some(n.level.name())),
                    V::Str(Some(s(n.name))),
                ])?;
            }
        }
        _ => return Err(ExportError::UnknownTable(table.to_string(), TABLES.join(", "))),
    }
    w.finish()
}

/// Every table as `(name, Parquet bytes)`, for the app's download (the CLI streams each table
/// to its own file with [`write_table`]).
pub fn parquet_tables(trace: &Trace) -> Result<Vec<(&'static str, Vec<u8>)>, ExportError> {
    TABLES
        .iter()
        .map(|&t| {
            let mut v = Vec::new();
            write_table(trace, t, &mut v)?;
            Ok((t, v))
        })
        .collect()
}
