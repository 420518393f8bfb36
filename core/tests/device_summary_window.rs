//! The Neuron device summary over a time window ([`device_summary_over`]), on every shared NTFF
//! capture:
//! - a window covering every event (to `end_ns + 2`: a span's picosecond end can be up to 1998 ps
//!   past its floored ns end), percentages over the runtime's `total_time`
//!   ([`TimeBase::Reported`]), gives exactly the whole-profile value of every key that has one
//!   over a window ([`windowed`]), and no other key;
//! - the first half of the profile (percentages over its length) equals a straightforward
//!   recomputation from the rows here: every device engine / DMA slice, picosecond spans from the
//!   sub-ns columns, clipped to the window, unions by sort and merge, the NTFF's per-instruction
//!   FLOPs prorated by overlap;
//! - the two halves' clipped times add up to the whole profile's, to the picosecond;
//! - the stepped builder gives the one-shot result at any step size.

use std::path::Path;

use loupe_core::analysis::device_summary::{
    device_summary, device_summary_over, windowed, DeviceSummary, DeviceSummaryBuilder, TimeBase, Value,
};
use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::model::{DmaQueueType, Engine, GroupKind, TrackRole};
use loupe_core::Trace;

#[path = "support/neuron_pairs.rs"]
mod neuron_pairs;
use neuron_pairs::sample_pairs;

fn import(p: &Path) -> Trace {
    let bytes = std::fs::read(p).expect("read sample");
    let name = p.to_string_lossy().into_owned();
    import_files(&[InputFile { name: &name, bytes: &bytes }], &mut NoProgress).expect("import")
}

/// Length of the union of `v` (ps), by sort and merge.
fn union_len(mut v: Vec<(i64, i64)>) -> i128 {
    v.sort_unstable();
    let mut total = 0i128;
    let mut cur: Option<(i64, i64)> = None;
    for (s, e) in v {
        match &mut cur {
            Some(c) if s <= c.1 => c.1 = c.1.max(e),
            c => {
                if let Some((a, b)) = c.replace((s, e)) {
                    total += (b - a) as i128;
                }
            }
        }
    }
    total + cur.map_or(0, |(a, b)| (b - a) as i128)
}

/// Spans in ps.
type Spans = Vec<(i64, i64)>;

/// The reference figures of window `[w0, w1)` (ps relative to the trace start).
#[derive(Default, Debug)]
struct Reference {
    /// per engine stream (Tensor, Vector, Scalar, Sync, GpSimd): count, busy ps, spans
    engines: [(u64, i128, Spans); 5],
    matmul: u64,
    activate: (u64, i128),
    packets: [(u64, u64, Spans); 3],
    packet_ps: i128,
    all_dma: Spans,
    flops: u64,
}

fn reference(t: &Trace, w0: i64, w1: i64) -> Reference {
    let mut r = Reference::default();
    let wait = t.strings.find("EVENT_SEMAPHORE");
    let mm = t.strings.find("MATMUL");
    let act = [t.strings.find("ACTIVATE"), t.strings.find("ACTIVATE_QUANTIZE")];
    for tr in &t.tracks {
        if t.groups[tr.group.idx()].kind != GroupKind::Device {
            continue;
        }
        let c = &tr.slices;
        for i in 0..c.len() {
            let (ss, ds) = c.sub_ps_of(i);
            let s = (c.start_ns[i] - t.start_ns) * 1000 + i64::from(ss);
            let e = s + c.dur_ns.at(i).max(0) * 1000 + i64::from(ds);
            let inside = s < w1 && (e > w0 || (e == s && s >= w0));
            if !inside {
                continue;
            }
            let (cs, ce) = (s.max(w0), e.min(w1).max(s.max(w0)));
            match tr.role {
                TrackRole::Engine(en) => {
                    let k = match en.stream() {
                        Engine::Vector => 1,
                        Engine::Scalar => 2,
                        Engine::Sync => 3,
                        Engine::GpSimd => 4,
                        _ => 0,
                    };
                    let op = Some(c.opcode_of(i));
                    r.engines[k].0 += 1;
                    if op == mm {
                        r.matmul += 1;
                    }
                    if act.contains(&op) && op.is_some() {
                        r.activate.0 += 1;
                        r.activate.1 += (ce - cs) as i128;
                    }
                    if op != wait {
                        r.engines[k].1 += (ce - cs) as i128;
                        r.engines[k].2.push((cs, ce));
                    }
                }
                TrackRole::DmaQueue => {
                    let k = match tr.dma_queue_type {
                        Some(q) if q.is_static() => 0,
                        Some(DmaQueueType::SoftwareDynamic) => 1,
                        Some(DmaQueueType::HardwareDynamic) => 2,
                        other => panic!("untyped DMA queue {other:?}"),
                    };
                    let b = c.bytes_of(i);
                    r.packets[k].0 += 1;
                    r.packets[k].1 += if b == u64::MAX { 0 } else { b };
                    r.packets[k].2.push((cs, ce));
                    r.packet_ps += (ce - cs) as i128;
                    r.all_dma.push((cs, ce));
                }
                _ => {}
            }
        }
    }
    for g in &t.groups {
        for &(s, e, f) in &g.tensor_flops {
            let (s, e) = ((s - t.start_ns) * 1000, (e - t.start_ns) * 1000);
            if !(s < w1 && (e > w0 || (e == s && s >= w0))) {
                continue;
            }
            let (cs, ce) = (s.max(w0), e.min(w1));
            r.flops +=
                if e > s { (f as u128 * (ce - cs).max(0) as u128 / (e - s) as u128) as u64 } else { f };
        }
    }
    r
}

fn num(ds: &DeviceSummary, key: &str) -> f64 {
    ds.get(key).unwrap_or_else(|| panic!("{key} missing")).as_f64()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-300
}

#[test]
fn a_window_over_everything_is_the_whole_profile() {
    let pairs = sample_pairs();
    let mut keys_checked = 0;
    for (ntff, _) in &pairs {
        let t = import(ntff);
        let whole = device_summary(&t).expect("device summary");
        let over = DeviceSummaryBuilder::over(&t, t.start_ns, t.end_ns + 2, TimeBase::Reported)
            .finish(&t)
            .expect("window summary");
        for m in whole.rows() {
            // from an NTFF alone the DMA transfers are blocks inferred over the whole execution
            let inferred = m.key.starts_with("dma_transfer") || m.key.ends_with("_queue_bytes");
            if windowed(m.key) && !inferred {
                assert_eq!(over.get(m.key), Some(m.value.clone()), "{}: {}", ntff.display(), m.key);
                keys_checked += 1;
            } else {
                assert_eq!(over.get(m.key), None, "{}: {} is whole-profile only", ntff.display(), m.key);
            }
        }
        for m in over.rows() {
            assert!(whole.get(m.key).is_some(), "{}: {} only in the window", ntff.display(), m.key);
        }
        // the NTFF gives FLOPs over a window too
        assert!(over.get("hardware_flops").is_some() && over.get("hfu_estimated_percent").is_some());
    }
    println!("{} captures, {keys_checked} key values equal", pairs.len());
    assert!(keys_checked > 40 * pairs.len());
}

#[test]
fn half_a_profile_equals_a_recomputation_from_the_rows() {
    let pairs = sample_pairs();
    for (ntff, _) in &pairs {
        let t = import(ntff);
        let name = ntff.display();
        let mid = t.start_ns + (t.end_ns - t.start_ns) / 2;
        let (w0, w1) = (0i64, (mid - t.start_ns) * 1000);
        let ds = device_summary_over(&t, t.start_ns, mid).expect("window summary");
        let r = reference(&t, w0, w1);
        let len_s = (w1 - w0) as f64 * 1e-12;
        let secs = |ps: i128| ps as f64 * 1e-12;
        for (k, e) in ["tensor", "vector", "scalar", "sync", "gpsimd"].iter().enumerate() {
            let (n, busy, spans) = &r.engines[k];
            let active = union_len(spans.clone());
            assert_eq!(
                ds.get(&format!("{e}_engine_instruction_count")),
                Some(Value::Count(*n)),
                "{name} {e}"
            );
            assert!(close(num(&ds, &format!("{e}_engine_instruction_time")), secs(*busy)), "{name} {e} time");
            assert!(close(num(&ds, &format!("{e}_engine_active_time")), secs(active)), "{name} {e} active");
            assert!(
                close(num(&ds, &format!("{e}_engine_active_time_percent")), secs(active) / len_s),
                "{name} {e} active %"
            );
        }
        assert_eq!(ds.get("matmul_instruction_count"), Some(Value::Count(r.matmul)), "{name}");
        assert_eq!(ds.get("activate_instruction_count"), Some(Value::Count(r.activate.0)), "{name}");
        assert!(close(num(&ds, "activate_instruction_time"), secs(r.activate.1)), "{name}");
        let dma_active = union_len(r.all_dma.clone());
        assert!(close(num(&ds, "dma_active_time"), secs(dma_active)), "{name} dma active");
        assert!(close(num(&ds, "dma_active_time_percent"), secs(dma_active) / len_s), "{name}");
        assert!(close(num(&ds, "dma_packet_time"), secs(r.packet_ps)), "{name}");
        for (k, p) in ["static_dma", "software_dynamic_dma", "hardware_dynamic_dma"].iter().enumerate() {
            let (n, bytes, spans) = &r.packets[k];
            let size_key = format!("{p}_size");
            assert_eq!(ds.get(&format!("{p}_packet_count")), Some(Value::Count(*n)), "{name} {p}");
            assert_eq!(ds.get(&size_key), Some(Value::Count(*bytes)), "{name} {p} bytes");
            assert!(
                close(num(&ds, &format!("{p}_active_time")), secs(union_len(spans.clone()))),
                "{name} {p}"
            );
        }
        let mut all: Vec<(i64, i64)> = r.all_dma.clone();
        for e in &r.engines {
            all.extend(e.2.iter().copied());
        }
        assert!(close(num(&ds, "total_active_time"), secs(union_len(all))), "{name} total active");
        assert_eq!(ds.get("hardware_flops"), Some(Value::Count(r.flops)), "{name} FLOPs");
        let peak = 2.0 * 128.0 * 128.0 * 2.8e9;
        assert!(close(num(&ds, "hfu_estimated_percent"), r.flops as f64 / (peak * len_s)), "{name} HFU");
        // something happens in the half, and it is not the whole
        let whole = device_summary(&t).unwrap();
        let n_half = r.engines.iter().map(|e| e.0).sum::<u64>();
        let n_all: u64 = ["tensor", "vector", "scalar", "sync", "gpsimd"]
            .iter()
            .map(|e| num(&whole, &format!("{e}_engine_instruction_count")) as u64)
            .sum();
        assert!(n_half > 0 && n_half < n_all, "{name}: {n_half} of {n_all} instructions in the half");
    }
}

#[test]
fn the_halves_add_up_and_steps_do_not_matter() {
    let pairs = sample_pairs();
    for (ntff, _) in pairs.iter().step_by(7) {
        let t = import(ntff);
        let name = ntff.display();
        let mid = t.start_ns + (t.end_ns - t.start_ns) / 3;
        let whole = device_summary(&t).unwrap();
        let halves: Vec<DeviceSummary> = [(t.start_ns, mid), (mid, t.end_ns + 2)]
            .iter()
            .map(|&(a, b)| DeviceSummaryBuilder::over(&t, a, b, TimeBase::Reported).finish(&t).unwrap())
            .collect();
        // clipped times add up (to the ps: both sides are sums of whole ps)
        for key in [
            "tensor_engine_active_time",
            "vector_engine_active_time",
            "sync_engine_active_time",
            "gpsimd_engine_active_time",
            "scalar_engine_active_time",
            "software_dynamic_dma_active_time",
            "scalar_engine_instruction_time",
            "dma_active_time",
            "dma_packet_time",
            "static_dma_active_time",
            "total_active_time",
        ] {
            let ps = |ds: &DeviceSummary| (num(ds, key) * 1e12).round() as i64;
            assert_eq!(ps(&halves[0]) + ps(&halves[1]), ps(&whole), "{name}: {key}");
        }
        // FLOPs prorated: the halves lose at most one per instruction cut at the edge
        let f = |ds: &DeviceSummary| num(ds, "hardware_flops") as u64;
        assert!(f(&halves[0]) + f(&halves[1]) <= f(&whole) && f(&whole) - f(&halves[0]) - f(&halves[1]) <= 1);
        // the stepped builder, any step size
        let one = device_summary_over(&t, t.start_ns, mid).unwrap();
        for budget in [1, 5, 333] {
            let mut b = DeviceSummaryBuilder::over(&t, t.start_ns, mid, TimeBase::Window);
            while b.add_next(&t, budget) {}
            assert_eq!(b.finish(&t).as_ref(), Some(&one), "{name}: budget {budget}");
        }
        // an empty stretch before the profile: zeros, no panic
        let before = device_summary_over(&t, t.start_ns - 1_000_000, t.start_ns - 10).unwrap();
        assert_eq!(before.get("tensor_engine_instruction_count"), Some(Value::Count(0)));
    }
}
