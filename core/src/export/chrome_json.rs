//! The model as Chrome trace-event JSON (the format `chrome://tracing`, ui.perfetto.dev and Loupe
//! itself open), streamed into a writer: `M` metadata (process/thread names and sort order), `X`
//! complete slices, `i` instants, `C` counter samples, `s`/`f` flows.
//!
//! Mapping: each group is a process (`pid` = group index + 1), each track a thread (`tid`).
//! Tracks whose slices are in lanes (async spans, spilled overlaps) get one thread per lane (named
//! `track [lane k]`), because `X` events on one thread must nest. Times are microseconds written
//! as exact decimals with three fraction digits (the model's nanoseconds, no float rounding).
//! Flows start at their source slice's start on its thread (`s`) and end at the target slice's
//! start (`f`, `"bp":"e"`: bound to the enclosing slice). Non-finite counter values cannot be
//! written in JSON and are skipped (counted in [`ChromeStats::skipped_counter_samples`]).
//! Argument sets are written as `args` objects with their typed values (nested JSON as JSON).

use super::ExportError;
use crate::model::{ArgValue, ArgsId, Layout, SliceRef, Trace, TrackKind};
use std::io::Write;

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChromeStats {
    pub slices: u64,
    pub instants: u64,
    pub counter_samples: u64,
    pub flows: u64,
    pub threads: u64,
    pub skipped_counter_samples: u64,
}

/// `ns` as microseconds with three exact fraction digits.
pub fn micros(ns: i64) -> String {
    let a = ns.unsigned_abs();
    format!("{}{}.{:03}", if ns < 0 { "-" } else { "" }, a / 1000, a % 1000)
}

fn jstr(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Threads of a track: one, or one per lane for lane-layout tracks.
fn lanes(t: &crate::model::Track) -> usize {
    let lanes = t.layout == Layout::Lanes || t.kind == TrackKind::Overlap;
    if lanes {
        t.slices.depth_count().max(1)
    } else {
        1
    }
}

/// Write `trace` as Chrome JSON into `w`.
pub fn write(trace: &Trace, w: &mut dyn Write) -> Result<ChromeStats, ExportError> {
    let mut st = ChromeStats::default();
    // first tid of each track (lane k of a lane track is first + k)
    let mut first_tid = Vec::with_capacity(trace.tracks.len());
    let mut next = 1u64;
    for t in &trace.tracks {
        first_tid.push(next);
        next += lanes(t) as u64;
    }
    let tid_of = |r: SliceRef| -> u64 {
        let t = &trace.tracks[r.track.idx()];
        let lane = if lanes(t) > 1 { t.slices.depth_of(r.index as usize) as u64 } else { 0 };
        first_tid[r.track.idx()] + lane
    };
    let pid = |g: crate::model::GroupId| u64::from(g.0) + 1;
    let mut sep = "\n";
    let mut ev = |w: &mut dyn Write, body: std::fmt::Arguments<'_>| -> std::io::Result<()> {
        w.write_all(sep.as_bytes())?;
        sep = ",\n";
        w.write_fmt(body)
    };
    write!(
        w,
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"exported_by\":{},\"source_format\":{}}},\"traceEvents\":[",
        jstr(&format!("loupe {}", env!("CARGO_PKG_VERSION"))),
        jstr(&trace.format)
    )?;
    for (gi, g) in trace.groups.iter().enumerate() {
        let p = gi as u64 + 1;
        ev(
            w,
            format_args!(
                "{{\"ph\":\"M\",\"pid\":{p},\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}",
                jstr(trace.str(g.name))
            ),
        )?;
        ev(w, format_args!("{{\"ph\":\"M\",\"pid\":{p},\"tid\":0,\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{}}}}}", g.sort_index))?;
    }
    for (ti, t) in trace.tracks.iter().enumerate() {
        let n = lanes(t);
        for lane in 0..n {
            let tid = first_tid[ti] + lane as u64;
            let name = if n > 1 {
                format!("{} [lane {lane}]", trace.str(t.name))
            } else {
                trace.str(t.name).to_string()
            };
            let p = pid(t.group);
            ev(w, format_args!("{{\"ph\":\"M\",\"pid\":{p},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}", jstr(&name)))?;
            ev(w, format_args!("{{\"ph\":\"M\",\"pid\":{p},\"tid\":{tid},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}", t.sort_index.saturating_mul(64).saturating_add(lane as i64)))?;
            st.threads += 1;
        }
    }
    let mut args = String::new();
    for (ti, t) in trace.tracks.iter().enumerate() {
        let c = &t.slices;
        let p = pid(t.group);
        let multi = lanes(t) > 1;
        for depth in 0..c.depth_count() {
            let tid = first_tid[ti] + if multi { depth as u64 } else { 0 };
            for i in c.depth_range(depth) {
                args_json(trace, c.args[i], &mut args);
                ev(w, format_args!(
                    "{{\"ph\":\"X\",\"pid\":{p},\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{},\"cat\":{}{args}}}",
                    micros(c.start_ns[i]),
                    micros(c.dur_ns.at(i)),
                    jstr(trace.str(c.name[i])),
                    jstr(trace.str(c.category[i])),
                ))?;
                st.slices += 1;
            }
        }
        let tid = first_tid[ti];
        let ins = &t.instants;
        for i in 0..ins.len() {
            args_json(trace, ins.args[i], &mut args);
            ev(w, format_args!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{p},\"tid\":{tid},\"ts\":{},\"name\":{},\"cat\":{}{args}}}",
                micros(ins.ts_ns[i]),
                jstr(trace.str(ins.name[i])),
                jstr(trace.str(ins.category[i])),
            ))?;
            st.instants += 1;
        }
    }
    for c in &trace.counters {
        let p = pid(c.group);
        let name = jstr(trace.str(c.name));
        for (&ts, &v) in c.ts_ns.iter().zip(&c.value) {
            if !v.is_finite() {
                st.skipped_counter_samples += 1;
                continue;
            }
            ev(w, format_args!("{{\"ph\":\"C\",\"pid\":{p},\"tid\":0,\"ts\":{},\"name\":{name},\"args\":{{\"value\":{v:?}}}}}", micros(ts)))?;
            st.counter_samples += 1;
        }
    }
    for (k, f) in trace.flows.iter().enumerate() {
        let (Some(a), Some(b)) = (trace.tracks.get(f.from.track.idx()), trace.tracks.get(f.to.track.idx()))
        else {
            continue;
        };
        let (ia, ib) = (f.from.index as usize, f.to.index as usize);
        let (Some(&ta), Some(&tb)) = (a.slices.start_ns.get(ia), b.slices.start_ns.get(ib)) else { continue };
        let (name, cat) = (jstr(trace.str(f.name)), jstr(trace.str(f.category)));
        let id = k + 1;
        ev(
            w,
            format_args!(
                "{{\"ph\":\"s\",\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":{},\"name\":{name},\"cat\":{cat}}}",
                pid(a.group),
                tid_of(f.from),
                micros(ta)
            ),
        )?;
        ev(w, format_args!("{{\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":{},\"name\":{name},\"cat\":{cat}}}", pid(b.group), tid_of(f.to), micros(tb)))?;
        st.flows += 1;
    }
    w.write_all(b"\n]}\n")?;
    Ok(st)
}

/// `,"args":{…}` for an argument set, or nothing.
fn args_json(trace: &Trace, id: ArgsId, out: &mut String) {
    use std::fmt::Write as _;
    out.clear();
    let mut first = true;
    for (k, v) in trace.args.get(id) {
        out.push_str(if first { ",\"args\":{" } else { "," });
        first = false;
        out.push_str(&jstr(trace.str(k)));
        out.push(':');
        let _ = match v {
            ArgValue::Null => write!(out, "null"),
            ArgValue::Bool(b) => write!(out, "{b}"),
            ArgValue::Int(i) => write!(out, "{i}"),
            ArgValue::UInt(u) => write!(out, "{u}"),
            ArgValue::Float(x) if x.is_finite() => write!(out, "{x:?}"),
            ArgValue::Float(x) => write!(out, "{}", jstr(&x.to_string())),
            ArgValue::Str(s) => write!(out, "{}", jstr(trace.str(s))),
            ArgValue::Json(s) => {
                let text = trace.str(s);
                // the model keeps nested JSON as compact text; write it as JSON when it is
                if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
                    write!(out, "{text}")
                } else {
                    write!(out, "{}", jstr(text))
                }
            }
        };
    }
    if !first {
        out.push('}');
    }
}
