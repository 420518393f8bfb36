//! Each definition on small hand-written Kineto traces with known answers (times in µs in the
//! JSON, ns in the assertions).

use super::*;
use crate::import::{import_files, InputFile, NoProgress};
use crate::model::{GroupKind, TraceBuilder, TrackKind};

const US: i64 = 1000;

/// Kineto-like events: kernels on device 0, launches on host thread 100, `ac2g` flows.
#[derive(Default)]
struct K {
    ev: Vec<String>,
}

impl K {
    fn kernel(&mut self, name: &str, ts: f64, dur: f64, stream: i64, corr: i64) -> &mut Self {
        self.ev.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","pid":0,"tid":{stream},"ts":{ts},"dur":{dur},"args":{{"stream":{stream},"correlation":{corr},"device":0}}}}"#
        ));
        self
    }
    fn memcpy(&mut self, ts: f64, dur: f64, stream: i64, corr: i64) -> &mut Self {
        self.ev.push(format!(
            r#"{{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":{stream},"ts":{ts},"dur":{dur},"args":{{"stream":{stream},"correlation":{corr}}}}}"#
        ));
        self
    }
    /// A launch call on the host and its flow to the kernel starting at `kernel_ts`.
    fn launch(&mut self, ts: f64, dur: f64, corr: i64, kernel_ts: f64, stream: i64) -> &mut Self {
        self.ev.push(format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":{ts},"dur":{dur},"args":{{"correlation":{corr}}}}}"#
        ));
        self.ev.push(format!(
            r#"{{"ph":"s","cat":"ac2g","name":"ac2g","id":{corr},"pid":100,"tid":100,"ts":{ts}}}"#
        ));
        self.ev.push(format!(
            r#"{{"ph":"f","cat":"ac2g","name":"ac2g","id":{corr},"pid":0,"tid":{stream},"ts":{kernel_ts},"bp":"e"}}"#
        ));
        self
    }
    fn step(&mut self, n: i64, ts: f64, dur: f64) -> &mut Self {
        self.ev.push(format!(
            r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{n}","pid":100,"tid":100,"ts":{ts},"dur":{dur}}}"#
        ));
        self
    }
    fn raw(&mut self, e: &str) -> &mut Self {
        self.ev.push(e.to_string());
        self
    }
    fn json(&self, rank: i64) -> String {
        format!(
            r#"{{"schemaVersion":1,"distributedInfo":{{"rank":{rank}}},"traceEvents":[{}]}}"#,
            self.ev.join(",\n")
        )
    }
}

fn load(files: &[(&str, String)]) -> Trace {
    let inputs: Vec<InputFile> =
        files.iter().map(|(n, s)| InputFile { name: n, bytes: s.as_bytes() }).collect();
    let t = import_files(&inputs, &mut NoProgress).unwrap();
    t.validate().unwrap();
    t
}

fn exact() -> GpuOptions {
    GpuOptions { hta_rounding: false, ..GpuOptions::hta() }
}

/// Two streams: compute [0,10) [20,25), communication [5,30), memcpy [40,42); a GPU user
/// annotation over everything that must not count.
fn two_streams() -> Trace {
    let mut k = K::default();
    k.kernel("gemm", 0.0, 10.0, 7, 1)
        .kernel("relu", 20.0, 5.0, 7, 2)
        .kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 5.0, 25.0, 8, 3)
        .memcpy(40.0, 2.0, 8, 4)
        .raw(r###"{"ph":"X","cat":"gpu_user_annotation","name":"## forward ##","pid":0,"tid":7,"ts":-1,"dur":100}"###);
    load(&[("r0.json", k.json(0))])
}

#[test]
fn kernel_types_by_name() {
    assert_eq!(kernel_type("ncclKernel_AllReduce"), KernelType::Communication);
    assert_eq!(kernel_type("ncclDevKernel_Generic"), KernelType::Communication);
    assert_eq!(kernel_type("nccl_setup"), KernelType::Computation);
    assert_eq!(kernel_type("Memcpy DtoH (Device -> Pinned)"), KernelType::Memory);
    assert_eq!(kernel_type("Memset (Device)"), KernelType::Memory);
    assert_eq!(kernel_type("dma_copy"), KernelType::Memory);
    assert_eq!(kernel_type("fooMemcpyBar"), KernelType::Other);
    assert_eq!(kernel_type("Event Sync"), KernelType::Other);
    assert_eq!(kernel_type("ampere_sgemm_128x64_tn"), KernelType::Computation);
}

#[test]
fn temporal_breakdown_overlapping_streams() {
    let t = two_streams();
    let g = gpu_analysis(&t, &exact()).unwrap();
    let r = &g.temporal_breakdown.ranks[0];
    // merged busy [0,30) + [40,42): span 42, busy 32, idle 10, compute 15, non-compute 17
    assert_eq!(r.temporal.kernel_ns, 42 * US);
    assert_eq!(r.temporal.idle_ns, 10 * US);
    assert_eq!(r.temporal.compute_ns, 15 * US);
    assert_eq!(r.temporal.non_compute_ns, 17 * US);
    assert_eq!(r.temporal.idle_pct, 23.81);
    assert_eq!(r.temporal.compute_pct, 35.71);
    assert_eq!(r.temporal.non_compute_pct, 40.48);
    assert_eq!(r.activities, 4, "the GPU user annotation is not a kernel");
    assert_eq!(g.temporal_breakdown.total, r.temporal);
    // whole µs already: HTA's rounding changes nothing
    let h = gpu_analysis(&t, &GpuOptions::hta()).unwrap();
    assert_eq!(h.temporal_breakdown.total, r.temporal);
}

#[test]
fn kernel_type_totals_partition_busy_time() {
    let g = gpu_analysis(&two_streams(), &exact()).unwrap();
    let m: Vec<(&str, i64)> = g.kernel_types.iter().map(|k| (k.kind.as_str(), k.total_ns / US)).collect();
    assert_eq!(
        m,
        vec![
            ("COMMUNICATION", 15),
            ("COMPUTATION overlapping COMMUNICATION", 10),
            ("COMPUTATION", 5),
            ("MEMORY", 2)
        ]
    );
    let pct: f64 = g.kernel_types.iter().map(|k| k.percent).sum();
    assert!((pct - 100.0).abs() < 1e-9);
}

#[test]
fn overlap_exposed_and_utilisation() {
    let opts = GpuOptions { utilisation_bins: 6, ..exact() };
    let g = gpu_analysis(&two_streams(), &opts).unwrap();
    let o = &g.comm_comp_overlap[0];
    assert_eq!((o.comm_ns, o.overlap_ns, o.overlap_pct), (25 * US, 10 * US, Some(40.0)));
    let e = g.exposed_time[0];
    assert_eq!(e.exposed_comm_ns, 15 * US);
    assert_eq!((e.memcpy_ns, e.exposed_memcpy_ns), (2 * US, 2 * US));
    assert_eq!((e.busy_ns, e.idle_ns, e.total_ns), (32 * US, 10 * US, 42 * US));
    let u = &g.gpu_utilisation[0];
    assert_eq!((u.start_ns, u.bin_ns), (0, 7 * US));
    let busy: Vec<f64> = u.busy.iter().map(|b| (b * 7.0).round()).collect();
    assert_eq!(busy, vec![7.0, 7.0, 7.0, 7.0, 2.0, 2.0]);
}

#[test]
fn hta_rounding_to_whole_us() {
    // 1.5 µs + 2.0 µs: HTA keeps [2, 3) µs (start up, end down)
    let mut k = K::default();
    k.kernel("gemm", 1.5, 2.0, 7, 1).kernel("gemm", 10.0, 1.0, 7, 2);
    let t = load(&[("r.json", k.json(0))]);
    let h = gpu_analysis(&t, &GpuOptions::hta()).unwrap();
    assert_eq!(h.temporal_breakdown.total.compute_ns, 2 * US);
    assert_eq!(h.temporal_breakdown.total.kernel_ns, 9 * US);
    let x = gpu_analysis(&t, &exact()).unwrap();
    assert_eq!(x.temporal_breakdown.total.compute_ns, 3 * US);
    assert_eq!(x.temporal_breakdown.total.kernel_ns, 9_500);
}

#[test]
fn last_profiler_step_is_dropped_by_launch_time() {
    let mut k = K::default();
    k.step(1, 0.0, 100.0)
        .step(2, 100.0, 100.0)
        .launch(10.0, 2.0, 1, 50.0, 7)
        .kernel("a", 50.0, 10.0, 7, 1)
        // launched in step 1, runs in step 2: kept
        .launch(90.0, 2.0, 3, 120.0, 7)
        .kernel("c", 120.0, 10.0, 7, 3)
        // launched in the last step: dropped
        .launch(150.0, 2.0, 2, 160.0, 7)
        .kernel("b", 160.0, 10.0, 7, 2);
    let t = load(&[("r.json", k.json(0))]);
    let g = gpu_analysis(&t, &exact()).unwrap();
    let r = &g.temporal_breakdown.ranks[0];
    assert_eq!((r.activities, r.dropped_activities, r.dropped_step_start_ns), (2, 1, Some(100 * US)));
    assert_eq!(r.temporal.kernel_ns, 80 * US);
    assert!(g.method.last_step.contains("dropped"));
    let keep = gpu_analysis(&t, &GpuOptions { drop_last_step: false, ..exact() }).unwrap();
    assert_eq!(keep.temporal_breakdown.ranks[0].activities, 3);
    assert_eq!(keep.temporal_breakdown.total.kernel_ns, 120 * US);
    // one step only: nothing dropped
    let mut one = K::default();
    one.step(1, 0.0, 100.0).launch(10.0, 2.0, 1, 50.0, 7).kernel("a", 50.0, 10.0, 7, 1);
    let g = gpu_analysis(&load(&[("r.json", one.json(0))]), &exact()).unwrap();
    assert_eq!(g.temporal_breakdown.ranks[0].dropped_activities, 0);
}

#[test]
fn idle_breakdown_and_launch_delay() {
    let mut k = K::default();
    k.kernel("a", 0.0, 10.0, 7, 1)
        // launched before a ended, gap 2 µs < 30: kernel wait
        .launch(5.0, 1.0, 2, 12.0, 7)
        .kernel("b", 12.0, 8.0, 7, 2)
        // launched after b ended: host wait 80 µs
        .launch(50.0, 2.0, 3, 100.0, 7)
        .kernel("c", 100.0, 10.0, 7, 3)
        // launched before c ended, gap 90 µs: other
        .launch(60.0, 1.0, 4, 200.0, 7)
        .kernel("d", 200.0, 10.0, 7, 4);
    let g = gpu_analysis(&load(&[("r.json", k.json(0))]), &exact()).unwrap();
    let s = &g.idle_breakdown[0];
    assert_eq!((s.host_wait_ns, s.kernel_wait_ns, s.other_ns), (80 * US, 2 * US, 90 * US));
    assert_eq!(s.gaps, [1, 1, 1]);
    assert_eq!(s.idle_ns, 172 * US);
    let l = &g.launch_delay[0];
    // delays: b 12 − 6 = 6, c 100 − 52 = 48, d 200 − 61 = 139
    assert_eq!((l.count, l.min_ns, l.median_ns, l.max_ns, l.mean_ns), (3, 6 * US, 48 * US, 139 * US, 64_333));
    assert_eq!(l.outliers, 1);
    assert_eq!(l.top.len(), 1);
    assert_eq!((l.top[0].name.as_str(), l.top[0].delay_ns), ("d", 139 * US));
    assert_eq!(l.shorter_than_launch, 0);
}

#[test]
fn several_ranks_keep_their_numbers() {
    let mut a = K::default();
    a.kernel("gemm", 0.0, 10.0, 7, 1).kernel("gemm", 20.0, 10.0, 7, 2);
    let mut b = K::default();
    b.kernel("ncclKernel_x", 0.0, 40.0, 7, 1);
    let t = load(&[("rank3.json", a.json(3)), ("rank5.json", b.json(5))]);
    let g = gpu_analysis(&t, &exact()).unwrap();
    let rs: Vec<(i64, i64, i64)> = g
        .temporal_breakdown
        .ranks
        .iter()
        .map(|r| (r.rank, r.temporal.kernel_ns, r.temporal.compute_ns))
        .collect();
    assert_eq!(rs, vec![(3, 30 * US, 20 * US), (5, 40 * US, 0)]);
    assert_eq!(g.temporal_breakdown.ranks[1].temporal.non_compute_ns, 40 * US);
    let total = g.temporal_breakdown.total;
    assert_eq!((total.kernel_ns, total.idle_ns, total.compute_ns), (70 * US, 10 * US, 20 * US));
    let kt: Vec<(&str, i64)> = g.kernel_types.iter().map(|k| (k.kind.as_str(), k.total_ns / US)).collect();
    assert_eq!(kt, vec![("COMMUNICATION", 40), ("COMPUTATION", 20)]);
    assert_eq!(g.comm_comp_overlap[0].overlap_pct, None, "rank 3 has no communication");
}

#[test]
fn nested_and_plain_streams_without_kineto_args() {
    // a stream track with nested slices and no `stream` arguments: every slice is an activity
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("GPU 0", GroupKind::Device);
    let s = b.add_track(g, "stream 1", TrackKind::Stream, "1");
    let (k, c) = (b.intern("outer_kernel"), b.intern("inner"));
    b.add_slice(s, 0, 100, k, StrId::EMPTY, ArgsId::NONE);
    b.add_slice(s, 10, 20, c, StrId::EMPTY, ArgsId::NONE);
    b.add_slice(s, 150, 50, c, StrId::EMPTY, ArgsId::NONE);
    let t = b.finish();
    let a = gpu_analysis(&t, &exact()).unwrap();
    let r = a.temporal_breakdown.ranks[0].temporal;
    assert_eq!((r.kernel_ns, r.idle_ns, r.compute_ns), (200, 50, 150));
    assert_eq!(a.temporal_breakdown.ranks[0].activities, 3);
    assert!(a.method.activities.contains("every slice"));
}

#[test]
fn top_kernels_fold_the_rest() {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("GPU 0", GroupKind::Device);
    let s = b.add_track(g, "stream 1", TrackKind::Stream, "1");
    let mut at = 0;
    for i in 0..12i64 {
        let n = b.intern(&format!("k{i:02}"));
        b.add_slice(s, at, 12 - i, n, StrId::EMPTY, ArgsId::NONE);
        at += 100;
    }
    let t = b.finish();
    let a = gpu_analysis(&t, &exact()).unwrap();
    let top = a.top_kernels.iter().find(|k| k.kind == KernelType::Computation).unwrap();
    // cumulative 12, 23, …, 72, 75, 77, 78; the 0.8 quantile is 74.4: k09.. fold
    let names: Vec<&str> = top.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names.len(), 10);
    assert_eq!(names[8], "k08");
    let o = top.kernels.last().unwrap();
    assert_eq!(
        (o.name.as_str(), o.names, o.count, o.total_ns, o.min_ns, o.max_ns),
        ("others", 3, 3, 6, 1, 3)
    );
    assert_eq!(top.total_ns, 78);
}

#[test]
fn not_applicable_without_gpu_streams() {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("p", GroupKind::Process);
    let th = b.add_track(g, "main", TrackKind::Thread, "1");
    let n = b.intern("work");
    b.add_slice(th, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
    let e = gpu_analysis(&b.finish(), &GpuOptions::hta()).unwrap_err();
    assert!(e.contains("no GPU stream"), "{e}");
}

#[test]
fn absolute_timestamps_round_like_python_floats() {
    // 1712195495506161.234 µs is 1712195495506161.25 as a double: ⌈⌉ = …162 µs; the end
    // …161.25 + 1.28 = …162.53 → ⌊⌋ = …162: a 0 µs event, as HTA sees it
    let start = 1_712_195_495_506_161_234i64;
    let v = us_f64(start);
    assert_eq!((v.trunc() as i64, v.fract()), (1_712_195_495_506_161, 0.25));
    assert_eq!(hta_round(start, start + 1_280), (1_712_195_495_506_162_000, 1_712_195_495_506_162_000));
    // small times: exact decimal → nearest double → ⌈⌉ / ⌊⌋
    assert_eq!(hta_round(1_500, 3_500), (2_000, 3_000));
    assert_eq!(hta_round(-1_500, 500), (-1_000, 0));
}

#[test]
fn launch_found_by_correlation_without_flows() {
    // no ac2g flows: the launch is the CPU slice with the same `correlation`
    let mut k = K::default();
    k.step(1, 0.0, 100.0).step(2, 100.0, 100.0);
    for (corr, ts) in [(1, 10.0), (2, 150.0)] {
        k.raw(&format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":{ts},"dur":2,"args":{{"correlation":{corr}}}}}"#
        ));
        k.kernel("gemm", ts + 20.0, 5.0, 7, corr);
    }
    let g = gpu_analysis(&load(&[("r.json", k.json(0))]), &exact()).unwrap();
    let r = &g.temporal_breakdown.ranks[0];
    assert_eq!((r.activities, r.dropped_activities), (1, 1));
    assert_eq!(g.launch_delay[0].count, 1);
    assert_eq!(g.launch_delay[0].max_ns, 18 * US);
}

#[test]
fn host_slice_with_a_stream_argument_counts_as_hta_does() {
    // Inductor records a `triton_…` CPU op with `stream` around the launch: HTA counts it
    let mut k = K::default();
    k.raw(r#"{"ph":"X","cat":"cpu_op","name":"triton_poi_fused","pid":100,"tid":100,"ts":0,"dur":50,"args":{"stream":0}}"#)
        .kernel("triton_poi_fused", 40.0, 2.0, 7, 9);
    let g = gpu_analysis(&load(&[("r.json", k.json(0))]), &exact()).unwrap();
    let r = &g.temporal_breakdown.ranks[0];
    assert_eq!((r.activities, r.temporal.kernel_ns, r.temporal.compute_ns), (2, 50 * US, 50 * US));
}

/// The slices of `per_track` by name, sorted.
fn names_of(t: &Trace, per_track: &[Vec<u32>]) -> Vec<String> {
    let mut v: Vec<String> = per_track
        .iter()
        .enumerate()
        .flat_map(|(ti, ix)| {
            let c = &t.tracks[ti].slices;
            ix.iter().map(move |&i| t.str(c.name[i as usize]).to_string())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn events_of_rows() {
    let t = two_streams();
    let (g, ev) = gpu_analysis_with_events(&t, &exact()).unwrap();
    assert_eq!(g, gpu_analysis(&t, &exact()).unwrap());
    assert_eq!(ev.len(), 4);
    let nccl = "ncclKernel_AllReduce_RING_LL_Sum_float";
    let memcpy = "Memcpy HtoD (Pageable -> Device)";
    let sel = |w: Which| names_of(&t, &ev.select(&t, &w));
    assert_eq!(sel(Which::Kernel { rank: 0, name: "gemm" }), ["gemm"]);
    assert!(sel(Which::Kernel { rank: 1, name: "gemm" }).is_empty(), "no rank 1");
    assert!(sel(Which::Kernel { rank: 0, name: "absent" }).is_empty());
    // a single type: every kernel of it
    let comp = g.kernel_types.iter().find(|k| k.kind == "COMPUTATION").unwrap();
    assert_eq!(comp.types, [KernelType::Computation]);
    assert_eq!(sel(Which::Types { rank: None, types: &comp.types }), ["gemm", "relu"]);
    assert_eq!(sel(Which::Types { rank: Some(0), types: &[KernelType::Memory] }), [memcpy]);
    // a combination: the kernels running while exactly those types run ([5,10) and [20,25))
    let both = g.kernel_types.iter().find(|k| k.kind == "COMPUTATION overlapping COMMUNICATION").unwrap();
    assert_eq!(both.types, [KernelType::Computation, KernelType::Communication]);
    assert_eq!(sel(Which::Types { rank: None, types: &both.types }), ["gemm", nccl, "relu"]);
    // streams: by Kineto's stream number
    let s7 = g.idle_breakdown.iter().find(|s| s.stream == "stream 7").unwrap();
    assert_eq!(s7.stream_id, Some(7));
    assert_eq!(sel(Which::Stream { rank: 0, stream: s7.stream_id, track: s7.track }), ["gemm", "relu"]);
    let s8 = g.idle_breakdown.iter().find(|s| s.stream == "stream 8").unwrap();
    assert_eq!(sel(Which::Stream { rank: 0, stream: s8.stream_id, track: s8.track }), [memcpy, nccl]);
    // indices are per track and ascending
    for v in ev.select(&t, &Which::Types { rank: None, types: &[KernelType::Computation] }) {
        assert!(v.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn events_of_folded_row_and_plain_streams() {
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("GPU 0", GroupKind::Device);
    let s = b.add_track(g, "stream 1", TrackKind::Stream, "1");
    let mut at = 0;
    for i in 0..12i64 {
        let n = b.intern(&format!("k{i:02}"));
        b.add_slice(s, at, 12 - i, n, StrId::EMPTY, ArgsId::NONE);
        at += 100;
    }
    let t = b.finish();
    let (a, ev) = gpu_analysis_with_events(&t, &exact()).unwrap();
    let top = a.top_kernels.iter().find(|k| k.kind == KernelType::Computation).unwrap();
    let kept: Vec<String> = top.kernels.iter().filter(|k| !k.folded).map(|k| k.name.clone()).collect();
    assert_eq!(kept.len(), 9);
    assert!(top.kernels.last().unwrap().folded);
    let sel = |w: Which| names_of(&t, &ev.select(&t, &w));
    assert_eq!(
        sel(Which::Folded { rank: 0, ty: KernelType::Computation, kept: &kept }),
        ["k09", "k10", "k11"]
    );
    // no Kineto stream argument: the stream is its track
    let st = &a.idle_breakdown[0];
    assert_eq!(st.stream_id, None);
    assert_eq!(sel(Which::Stream { rank: 0, stream: None, track: st.track }).len(), 12);
}
