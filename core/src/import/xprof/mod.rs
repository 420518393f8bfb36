//! XProf / TensorBoard profile plugin files (docs/formats/other-formats.md §7):
//!
//! - `*.xplane.pb`, a serialized `XSpace` (format `xplane`): read record by record, one
//!   [`proto::XPlane`] at a time (a plane that does not decode is skipped with a warning; a
//!   truncated file keeps the planes before the break). Each plane with lines is a group —
//!   `/device:…` planes are device groups, every other plane (`/host:CPU`, `Task Environment`, …)
//!   a process-like group — and each line a track (device lines are streams, host lines threads,
//!   nested by time; overlapping events are spilled by the builder with a warning). **Every
//!   XEvent of every line is one slice** (zero-length ones too): `start_ns =
//!   line.timestamp_ns + offset_ps / 1000`, `end_ns = line.timestamp_ns + (offset_ps +
//!   duration_ps) / 1000`, both rounded down to whole ns (computed in ps, so durations do not
//!   drift); an aggregated event (`num_occurrences` instead of `offset_ps`) starts at the line's
//!   start. The slice name is the event metadata's `name` (`display_name`, when different, is an
//!   arg); the args are the metadata's stats then the event's stats, named by the plane's stat
//!   metadata (`ref_value` → the referenced stat metadata's name, bytes → their length). Plane
//!   stats of planes without lines (e.g. `Task Environment`) become metadata entries; planes
//!   without lines and stats (`/host:metadata`: HLO protos in event metadata) are counted in one
//!   warning. XSpace `errors`/`warnings` are reported as warnings, `hostnames` as metadata.
//! - The profile plugin's JSON tool outputs (format `xprof-tools`): see [`tools`].

pub mod proto;
#[cfg(test)]
mod tests;
pub mod tools;

use crate::model::WarningKind;
use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use prost::Message;

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::{ArgValue, ArgsId, GroupKind, TraceBuilder, TrackKind};
use crate::strings::{FxHashMap, StrId};
use proto::*;

pub struct XProf;

pub const NAME: &str = "xplane";

/// Plane stats kept as metadata per plane at most.
const MAX_PLANE_STATS: usize = 256;

fn named_xplane(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".xplane.pb")
}

/// Does the prefix look like an XSpace: a first record `planes = 1` whose plane starts with
/// `id = 1` (varint) or `name = 2` (a string starting with `/` or a letter)?
fn looks_like_xspace(prefix: &[u8]) -> bool {
    let mut b = prefix;
    let Ok((1, WireType::LengthDelimited)) = decode_key(&mut b) else { return false };
    if decode_varint(&mut b).is_err() {
        return false;
    }
    match decode_key(&mut b) {
        Ok((1, WireType::Varint)) => true,
        Ok((2, WireType::LengthDelimited)) => {
            let Ok(n) = decode_varint(&mut b) else { return false };
            let s = &b[..b.len().min(n as usize).min(16)];
            s.starts_with(b"/host:") || s.starts_with(b"/device:")
        }
        _ => false,
    }
}

impl Importer for XProf {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff {
        if let Some(s) = tools::sniff(file_name, prefix) {
            return s;
        }
        if prefix.first() != Some(&0x0A) {
            return Sniff::No;
        }
        if named_xplane(file_name) {
            Sniff::Yes
        } else if looks_like_xspace(prefix) {
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
        if tools::sniff(file.name, &file.bytes[..file.bytes.len().min(super::SNIFF_BYTES)]).is_some() {
            return tools::import(file, b);
        }
        import_xspace(file, b, progress)
    }
}

fn import_xspace(
    file: &InputFile<'_>,
    b: &mut TraceBuilder,
    progress: &mut dyn Progress,
) -> Result<(), ImportError> {
    let bytes = file.bytes;
    let named = named_xplane(file.name);
    let mut pos = 0usize;
    let mut planes = 0usize;
    let mut bad_planes = 0usize;
    let mut first_error: Option<(usize, String)> = None;
    let mut empty_planes: Vec<String> = Vec::new();
    let mut reported = 0u64;
    while pos < bytes.len() {
        let start = pos;
        let mut buf = &bytes[pos..];
        let before = buf.len();
        let (tag, wire) = match decode_key(&mut buf) {
            Ok(k) => k,
            Err(e) => {
                first_error.get_or_insert((start, format!("bad record key: {e}")));
                break;
            }
        };
        if wire != WireType::LengthDelimited {
            if skip_field(wire, tag, &mut buf, DecodeContext::default()).is_err() {
                first_error.get_or_insert((start, format!("bad field {tag}")));
                break;
            }
            pos = start + (before - buf.len());
            continue;
        }
        let len = match decode_varint(&mut buf) {
            Ok(l) if l <= buf.len() as u64 => l as usize,
            Ok(l) => {
                first_error.get_or_insert((
                    start,
                    format!("record of {l} bytes, only {} left: truncated", buf.len()),
                ));
                break;
            }
            Err(e) => {
                first_error.get_or_insert((start, format!("bad record length: {e}")));
                break;
            }
        };
        let body_at = start + (before - buf.len());
        let body = &bytes[body_at..body_at + len];
        pos = body_at + len;
        if (pos as u64) >> 22 != (reported >> 22) {
            reported = pos as u64;
            if !progress.report(reported, bytes.len() as u64) {
                return Err(ImportError::Cancelled);
            }
        }
        match tag {
            1 => match XPlane::decode(body) {
                Ok(p) => {
                    if planes == 0 && bad_planes == 0 && !named && p.name.is_empty() && p.lines.is_empty() {
                        return Err(ImportError::NotMine(NAME));
                    }
                    planes += 1;
                    if !add_plane(b, &p) {
                        empty_planes.push(p.name.clone());
                    }
                }
                Err(e) => {
                    if planes == 0 && bad_planes == 0 && !named {
                        return Err(ImportError::NotMine(NAME));
                    }
                    bad_planes += 1;
                    first_error.get_or_insert((body_at, format!("a plane does not decode: {e}")));
                    b.warn(WarningKind::XplaneBadPlane, || {
                        format!("the plane at byte {body_at} does not decode: {e}; skipped")
                    });
                }
            },
            2 | 3 => {
                let text = String::from_utf8_lossy(body).into_owned();
                let kind =
                    if tag == 2 { WarningKind::XplaneSpaceError } else { WarningKind::XplaneSpaceWarning };
                b.warn(kind, || format!("the profiler recorded: {text}"));
            }
            4 => b.add_metadata("hostname", String::from_utf8_lossy(body).into_owned()),
            _ => {}
        }
    }
    if let Some((offset, message)) = &first_error {
        if planes == 0 {
            return Err(if !named && bad_planes == 0 {
                ImportError::NotMine(NAME)
            } else {
                ImportError::Malformed { format: NAME, offset: *offset as u64, message: message.clone() }
            });
        }
        if bad_planes == 0 {
            b.warn(WarningKind::XplaneTruncated, || {
                format!("the XSpace breaks at byte {offset}: {message}; the rest is not read")
            });
        }
    }
    if planes == 0 && !named {
        return Err(ImportError::NotMine(NAME));
    }
    if !empty_planes.is_empty() {
        b.warn(WarningKind::XplanePlanesWithoutEvents, || {
            format!("planes with no lines are not drawn: {}", empty_planes.join(", "))
        });
    }
    Ok(())
}

fn stat_value(b: &mut TraceBuilder, s: &XStat, meta: &FxHashMap<i64, StrId>) -> ArgValue {
    if let Some(r) = s.ref_value {
        let id = i64::try_from(r).unwrap_or(-1);
        return match meta.get(&id) {
            Some(&n) => ArgValue::Str(n),
            None => ArgValue::UInt(r),
        };
    }
    if let Some(v) = &s.str_value {
        return ArgValue::Str(b.intern(&String::from_utf8_lossy(v)));
    }
    if let Some(v) = s.int64_value {
        return ArgValue::Int(v);
    }
    if let Some(v) = s.uint64_value {
        return ArgValue::UInt(v);
    }
    if let Some(v) = s.double_value {
        return ArgValue::Float(v);
    }
    if let Some(v) = &s.bytes_value {
        return ArgValue::Str(b.intern(&format!("<{} bytes>", v.len())));
    }
    ArgValue::Null
}

fn stat_name(b: &mut TraceBuilder, s: &XStat, meta: &FxHashMap<i64, StrId>) -> StrId {
    match meta.get(&s.metadata_id) {
        Some(&n) => n,
        None => b.intern(&format!("stat {}", s.metadata_id)),
    }
}

/// Add one plane; false when it had nothing to draw and no stats.
fn add_plane(b: &mut TraceBuilder, p: &XPlane) -> bool {
    let stat_names: FxHashMap<i64, StrId> =
        p.stat_metadata.iter().map(|(&id, m)| (id, b.intern(&m.name))).collect();
    if p.lines.is_empty() {
        for s in p.stats.iter().take(MAX_PLANE_STATS) {
            let k = stat_name(b, s, &stat_names);
            let v = stat_value(b, s, &stat_names);
            let key = format!("{} / {}", p.name, b.string(k));
            let value = match v {
                ArgValue::Str(s) | ArgValue::Json(s) => b.string(s).to_string(),
                ArgValue::Int(i) => i.to_string(),
                ArgValue::UInt(u) => u.to_string(),
                ArgValue::Float(f) => f.to_string(),
                ArgValue::Bool(x) => x.to_string(),
                ArgValue::Null => String::new(),
            };
            b.add_metadata(key, value);
        }
        return !p.stats.is_empty();
    }
    let device = p.name.starts_with("/device:");
    let group_name = if p.name.is_empty() { format!("plane {}", p.id) } else { p.name.clone() };
    let g = b.add_group(&group_name, if device { GroupKind::Device } else { GroupKind::Process });
    // device planes first, by id; then the others
    b.set_group_sort(g, if device { p.id } else { p.id.saturating_add(1 << 40) });
    // per event metadata: (name, args of its stats incl. display name)
    let display_key = b.intern("display_name");
    let mut metas: FxHashMap<i64, (StrId, Vec<(StrId, ArgValue)>)> = FxHashMap::default();
    for (&id, m) in &p.event_metadata {
        let name = b.intern(&m.name);
        let mut args = Vec::new();
        if !m.display_name.is_empty() && m.display_name != m.name {
            args.push((display_key, ArgValue::Str(b.intern(&m.display_name))));
        }
        for s in &m.stats {
            let k = stat_name(b, s, &stat_names);
            let v = stat_value(b, s, &stat_names);
            args.push((k, v));
        }
        metas.insert(id, (name, args));
    }
    let kind = if device { TrackKind::Stream } else { TrackKind::Thread };
    let mut missing_meta = 0u64;
    for line in &p.lines {
        let name = if !line.display_name.is_empty() { &line.display_name } else { &line.name };
        let name = if name.is_empty() { format!("line {}", line.id) } else { name.clone() };
        let t = b.add_track(g, &name, kind, &line.id.to_string());
        let base_ps = i128::from(line.timestamp_ns) * 1000;
        for e in &line.events {
            let start_ps = base_ps + i128::from(e.offset_ps.unwrap_or(0));
            let end_ps = start_ps + i128::from(e.duration_ps);
            let to_ns = |ps: i128| ps.div_euclid(1000).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            let (start_ns, end_ns) = (to_ns(start_ps), to_ns(end_ps));
            let (name, mut args) = match metas.get(&e.metadata_id) {
                Some((n, a)) => (*n, a.clone()),
                None => {
                    missing_meta += 1;
                    (b.intern(&format!("<event metadata {}>", e.metadata_id)), Vec::new())
                }
            };
            if let Some(n) = e.num_occurrences {
                let k = b.intern("num_occurrences");
                args.push((k, ArgValue::Int(n)));
            }
            for s in &e.stats {
                let k = stat_name(b, s, &stat_names);
                let v = stat_value(b, s, &stat_names);
                args.push((k, v));
            }
            let args = if args.is_empty() { ArgsId::NONE } else { b.add_args(args) };
            b.add_slice(t, start_ns, end_ns.saturating_sub(start_ns), name, StrId::EMPTY, args);
        }
    }
    if missing_meta > 0 {
        let plane = p.name.clone();
        b.warn(WarningKind::XplaneMissingEventMetadata, || {
            format!("{missing_meta} event(s) of plane {plane} refer to event metadata it does not have")
        });
    }
    true
}
