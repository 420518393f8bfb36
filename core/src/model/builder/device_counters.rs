//! **Derived counter rows of a device profile** (issue 40 §2): per Neuron device group, counters
//! made from its instructions after every importer ran, so every widget, the row plan and the
//! exports see them like recorded counters.
//!
//! - `HFU` (unit `%`): hardware FLOPs utilisation over time. The device's profile span (first
//!   instruction start to last instruction end) is cut into [`BINS`] bins (at least
//!   [`MIN_BIN_NS`] wide); a bin's value is the Tensor engine's FLOPs that ran in it / (peak
//!   FLOP/s × bin width) × 100. An instruction's FLOPs are spread over the bins it overlaps in
//!   proportion to the overlap, so the counter's time integral is `hardware_flops / peak`, and
//!   divided by the runtime's `total_time` it is the device summary's `hfu_estimated_percent`
//!   (`core/tests/device_timeline.rs` checks it on every shared capture). FLOPs per instruction:
//!   `domain.flops` of Tensor-stream slices (JSON export, Parquet), or, from an NTFF, the
//!   instruction words' operands handed over by its importer ([`TraceBuilder::set_device_flops`],
//!   `Ntff::instruction_flops`). Peak: [`tensor_engine_peak_flops`] of the device's instance type;
//!   no counter without a known peak or without FLOPs.
//! - `PE array busy` (unit `%`): the share of each bin in which the PE array runs a matrix
//!   instruction: the union of the `TensorMatrix` engine's slices (the MATMULs), or, on a device
//!   without that track, of the Tensor engine's `MATMUL` slices. Same bins as HFU.
//!
//! Both have [`CounterRole::Utilisation`], so the device view puts them with the engine
//! activity counters.
//!
//! **Memory usage over time** (SBUF / PSUM / HBM) is not derived here: the JSON export's
//! `instruction_usage` (sb, psum) and Explorer Parquet's `SbufUsage` / `PsumUsage` / `HbmUsage`
//! tables are imported as counters by their importers, and an NTFF's SBUF / PSUM occupancy is
//! computed by the NTFF importer from the instruction words' operands (`ntff::memory`, the same
//! counter names; the static DMA blocks' SBUF destinations are in the NEFF and left out). HBM
//! usage over time would need the runtime's allocation timeline (the NTFF states only the totals
//! per category, `DeviceInfo::memory`): from an NTFF alone that row is missing.

use super::TraceBuilder;
use crate::model::{CounterRole, Engine, GroupId, GroupKind, TrackRole};

/// Bins per device profile span.
pub const BINS: i64 = 1000;
/// The narrowest bin (a shorter span gets fewer bins).
pub const MIN_BIN_NS: i64 = 100;
/// The HFU counter's name.
pub const HFU_COUNTER: &str = "HFU (Tensor FLOPs / peak)";
/// The PE-array utilisation counter's name.
pub const PE_BUSY_COUNTER: &str = "PE array busy (MATMUL time)";

/// Peak Tensor-engine FLOP/s of an instance type: `2 × PE rows × PE columns × PE clock`
/// (neuron-profile's `tensor_engine_max_ops_per_sec`). Trainium1 / Inferentia2: a 128 × 128 PE
/// array at 2.8 GHz (the export's `metadata.pe_num_rows/cols`, `pe_clock_freq`). `None` for
/// instance families without documented figures here.
pub fn tensor_engine_peak_flops(instance_type: &str) -> Option<f64> {
    let family = instance_type.split('.').next()?.trim().to_ascii_lowercase();
    match family.as_str() {
        "inf2" | "trn1" | "trn1n" => Some(2.0 * 128.0 * 128.0 * 2.8e9),
        _ => None,
    }
}

/// One device's bins: `[lo, lo + k × width)`, the last cut at `hi`.
struct Bins {
    lo: i64,
    hi: i64,
    width: i64,
}

impl Bins {
    fn new(lo: i64, hi: i64) -> Bins {
        let span = (hi - lo).max(1);
        let width = (span + BINS - 1) / BINS;
        Bins { lo, hi, width: width.max(MIN_BIN_NS) }
    }
    fn count(&self) -> usize {
        (((self.hi - self.lo).max(1) + self.width - 1) / self.width) as usize
    }
    fn start(&self, k: usize) -> i64 {
        self.lo + k as i64 * self.width
    }
    fn end(&self, k: usize) -> i64 {
        self.start(k).saturating_add(self.width).min(self.hi)
    }
    /// Add `amount` spread over `[s, e)` in proportion to each bin's overlap (all of it into one
    /// bin for an empty interval).
    fn spread(&self, acc: &mut [f64], s: i64, e: i64, amount: f64) {
        let n = acc.len();
        let bin = |t: i64| (((t - self.lo).max(0) / self.width) as usize).min(n - 1);
        if e <= s {
            acc[bin(s)] += amount;
            return;
        }
        let len = (e - s) as f64;
        let first = bin(s);
        for (k, a) in acc.iter_mut().enumerate().take(bin(e - 1) + 1).skip(first) {
            let o = e.min(self.end(k)) - s.max(self.start(k));
            if o > 0 {
                *a += amount * o as f64 / len;
            }
        }
    }
}

impl TraceBuilder {
    /// An NTFF importer's per-instruction Tensor FLOPs for `group`: `(start ns, end ns, FLOPs)`
    /// (the slices themselves carry none: the NTFF cannot say which MATMULs are transposes, see
    /// `analysis::device_summary`). Read by [`TraceBuilder::add_device_counters`].
    pub fn set_device_flops(&mut self, group: GroupId, flops: Vec<(i64, i64, u64)>) {
        self.device_flops.retain(|d| d.0 != group);
        self.device_flops.push((group, flops));
    }

    /// Add the HFU and PE-array counters to every device group with engine tracks. Called
    /// once by the import entry point after every importer ran.
    pub fn add_device_counters(&mut self) {
        let device_flops = std::mem::take(&mut self.device_flops);
        // kept on the device for the device summary over a time window
        for (gid, list) in &device_flops {
            if let Some(g) = self.groups.get_mut(gid.idx()) {
                let mut v = list.clone();
                v.sort_by_key(|x| x.0);
                v.shrink_to_fit();
                g.tensor_flops = v;
            }
        }
        for g in 0..self.groups.len() {
            let gid = GroupId(g as u32);
            if self.groups[g].kind != GroupKind::Device {
                continue;
            }
            let has_engine =
                self.tracks.iter().any(|(t, _)| t.group == gid && matches!(t.role, TrackRole::Engine(_)));
            if !has_engine {
                continue;
            }
            let mm = self.intern("MATMUL");
            let mut lo = i64::MAX;
            let mut hi = i64::MIN;
            let mut flops: Vec<(i64, i64, u64)> = Vec::new();
            let mut matrix: Vec<(i64, i64)> = Vec::new();
            let mut tensor_mm: Vec<(i64, i64)> = Vec::new();
            for (track, tb) in &self.tracks {
                let TrackRole::Engine(e) = track.role else { continue };
                if track.group != gid {
                    continue;
                }
                for i in 0..tb.start_ns.len() {
                    let s = tb.start_ns[i];
                    let en = s.saturating_add(tb.dur_ns[i].max(0));
                    lo = lo.min(s);
                    hi = hi.max(en);
                    if e == Engine::TensorMatrix {
                        matrix.push((s, en));
                    }
                    if e.stream() == Engine::Tensor && !tb.domain.is_empty() {
                        let d = tb.domain.get(i);
                        if d.flops != u64::MAX && d.flops > 0 {
                            flops.push((s, en, d.flops));
                        }
                        if e == Engine::Tensor && d.opcode == mm {
                            tensor_mm.push((s, en));
                        }
                    }
                }
            }
            // a span beyond a quarter of i64 is a damaged clock (the import refuses spans that do
            // not fit i64 after this pass): no counters rather than overflowing bin arithmetic
            if lo >= hi || i128::from(hi) - i128::from(lo) > i128::from(i64::MAX / 4) {
                continue;
            }
            if flops.is_empty() {
                if let Some(d) = device_flops.iter().find(|d| d.0 == gid) {
                    flops = d.1.clone();
                }
            }
            let peak = self.groups[g]
                .device
                .as_ref()
                .and_then(|d| d.instance_type)
                .and_then(|s| tensor_engine_peak_flops(self.strings.get(s)));
            let bins = Bins::new(lo, hi);
            let n = bins.count();
            if let (Some(peak), false) = (peak, flops.is_empty()) {
                let mut acc = vec![0.0; n];
                for &(s, e, f) in &flops {
                    bins.spread(&mut acc, s.clamp(lo, hi), e.clamp(lo, hi), f as f64);
                }
                let values: Vec<f64> = (0..n)
                    .map(|k| acc[k] / (peak * (bins.end(k) - bins.start(k)) as f64 * 1e-9) * 100.0)
                    .collect();
                self.add_binned(gid, HFU_COUNTER, &bins, &values);
            }
            let busy = if matrix.is_empty() { tensor_mm } else { matrix };
            if !busy.is_empty() {
                let mut acc = vec![0.0; n];
                for (s, e) in union(busy) {
                    bins.spread(&mut acc, s, e, (e - s) as f64);
                }
                let values: Vec<f64> =
                    (0..n).map(|k| acc[k] / (bins.end(k) - bins.start(k)) as f64 * 100.0).collect();
                self.add_binned(gid, PE_BUSY_COUNTER, &bins, &values);
            }
        }
    }

    /// A step counter: one sample per bin start, and 0 at the span's end.
    fn add_binned(&mut self, g: GroupId, name: &str, bins: &Bins, values: &[f64]) {
        let c = self.add_counter(g, name, "%");
        self.set_counter_role(c, CounterRole::Utilisation);
        self.reserve_counter_samples(c, values.len() + 1);
        for (k, v) in values.iter().enumerate() {
            self.add_counter_sample(c, bins.start(k), *v);
        }
        self.add_counter_sample(c, bins.hi, 0.0);
    }
}

use crate::spans::union;

#[cfg(test)]
mod tests {
    use crate::model::ArgsId;
    use crate::model::{
        CounterRole, DeviceInfo, Engine, GroupKind, SliceDomain, TraceBuilder, TrackKind, TrackRole,
    };
    use crate::strings::StrId;

    fn counter<'a>(t: &'a crate::model::Trace, name: &str) -> Option<&'a crate::model::CounterTrack> {
        t.counters.iter().find(|c| t.str(c.name) == name)
    }

    /// Integral of a step counter over its samples (value × time to the next sample), ns × value.
    fn integral(c: &crate::model::CounterTrack) -> f64 {
        c.ts_ns.windows(2).zip(&c.value).map(|(w, v)| (w[1] - w[0]) as f64 * v).sum()
    }

    #[test]
    fn hfu_and_pe_busy_from_domain_flops() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let it = b.intern("trn1.2xlarge");
        b.set_group_device(g, DeviceInfo { instance_type: Some(it), ..DeviceInfo::default() });
        let pm = b.add_track(g, "TensorMatrix", TrackKind::Stream, "pe");
        b.set_track_role(pm, TrackRole::Engine(Engine::TensorMatrix));
        let dve = b.add_track(g, "Vector", TrackKind::Stream, "dve");
        b.set_track_role(dve, TrackRole::Engine(Engine::Vector));
        let (mm, op) = (b.intern("MATMUL"), b.intern("TENSOR_TENSOR"));
        let peak = super::tensor_engine_peak_flops("trn1.2xlarge").unwrap();
        // span 0..1_000_000 ns → 1000 bins of 1 µs; a MATMUL 1000..3000 running at peak
        let f = (peak * 2e-6) as u64;
        let h = b.add_slice(pm, 1_000, 2_000, mm, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, SliceDomain { opcode: mm, flops: f, ..Default::default() });
        let h = b.add_slice(dve, 0, 1_000_000, op, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, SliceDomain { opcode: op, ..Default::default() });
        b.add_device_counters();
        let t = b.finish();
        let hfu = counter(&t, super::HFU_COUNTER).expect("HFU counter");
        assert_eq!(hfu.role, CounterRole::Utilisation);
        assert_eq!(t.str(hfu.unit), "%");
        assert_eq!(hfu.ts_ns.len(), 1001);
        assert!((hfu.value[1] - 100.0).abs() < 1e-6 && (hfu.value[2] - 100.0).abs() < 1e-6);
        assert_eq!((hfu.value[0], hfu.value[3]), (0.0, 0.0));
        // ∫ HFU dt = FLOPs / peak
        assert!((integral(hfu) / 100.0 * 1e-9 - f as f64 / peak).abs() < 1e-12);
        let pe = counter(&t, super::PE_BUSY_COUNTER).expect("PE counter");
        assert_eq!((pe.value[0], pe.value[1], pe.value[2], pe.value[3]), (0.0, 100.0, 100.0, 0.0));
        assert!((integral(pe) - 2_000.0 * 100.0).abs() < 1e-6);
    }

    #[test]
    fn flops_spread_over_bins_and_importer_flops_used() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let it = b.intern("inf2.xlarge");
        b.set_group_device(g, DeviceInfo { instance_type: Some(it), ..DeviceInfo::default() });
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let mm = b.intern("MATMUL");
        let h = b.add_slice(pe, 0, 150_000, mm, StrId::EMPTY, ArgsId::NONE);
        b.set_slice_domain(h, SliceDomain { opcode: mm, ..Default::default() });
        // 150 µs span → bins of 150 ns; one instruction over 1.5 bins
        b.set_device_flops(g, vec![(100, 325, 3_000)]);
        b.add_device_counters();
        let t = b.finish();
        let hfu = counter(&t, super::HFU_COUNTER).unwrap();
        let peak = super::tensor_engine_peak_flops("inf2.xlarge").unwrap();
        let v = |k: usize| hfu.value[k] / 100.0 * peak * 150e-9;
        assert!((v(0) - 3_000.0 * 50.0 / 225.0).abs() < 1e-6);
        assert!((v(1) - 3_000.0 * 150.0 / 225.0).abs() < 1e-6);
        assert!((v(2) - 3_000.0 * 25.0 / 225.0).abs() < 1e-6);
        // no TensorMatrix track: the Tensor engine's MATMULs are the PE array's busy time
        let busy = counter(&t, super::PE_BUSY_COUNTER).unwrap();
        assert!(busy.value[..1000].iter().all(|&v| (v - 100.0).abs() < 1e-9));
    }

    #[test]
    fn no_counters_without_a_device_or_a_peak() {
        let mut b = TraceBuilder::new("t");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let pe = b.add_track(g, "Tensor", TrackKind::Stream, "pe");
        b.set_track_role(pe, TrackRole::Engine(Engine::Tensor));
        let n = b.intern("NOP");
        b.add_slice(pe, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        b.set_device_flops(g, vec![(0, 10, 5)]);
        b.add_device_counters();
        let t = b.finish();
        assert!(t.counters.is_empty()); // no instance type → no peak; no MATMUL → no PE busy
    }
}
