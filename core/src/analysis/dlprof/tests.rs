use super::*;
use crate::model::{FlowEnd, GroupKind, TraceBuilder, TrackKind};

/// A small builder for hand-made GPU traces: one host thread, GPU streams per device.
struct T {
    b: TraceBuilder,
    cpu: TrackId,
    gpu: Vec<TrackId>,
}

impl T {
    fn new(devices: usize) -> T {
        // a PyTorch profiler trace (framework advice applies)
        let mut b = TraceBuilder::new("pytorch-kineto");
        let host = b.add_group("host", GroupKind::Process);
        let cpu = b.add_track(host, "thread 1", TrackKind::Thread, "1");
        let gpu = (0..devices)
            .map(|d| {
                let g = b.add_group(&format!("GPU {d}"), GroupKind::Device);
                b.add_track(g, "stream 7", TrackKind::Stream, "7")
            })
            .collect();
        T { b, cpu, gpu }
    }
    fn cpu(&mut self, name: &str, cat: &str, start: i64, dur: i64) -> crate::model::SliceHandle {
        let (n, c) = (self.b.intern(name), self.b.intern(cat));
        self.b.add_slice(self.cpu, start, dur, n, c, crate::model::ArgsId::NONE)
    }
    /// A GPU activity on device `d`, launched by `launch` when given.
    fn gpu(
        &mut self,
        d: usize,
        name: &str,
        cat: &str,
        start: i64,
        dur: i64,
        launch: Option<crate::model::SliceHandle>,
    ) {
        let (n, c) = (self.b.intern(name), self.b.intern(cat));
        let h = self.b.add_slice(self.gpu[d], start, dur, n, c, crate::model::ArgsId::NONE);
        // typed as the Kineto importer types it
        let gpu_work = crate::import::chrome::kineto::gpu_work(cat);
        self.b.set_slice_domain(h, crate::model::SliceDomain { gpu_work, ..Default::default() });
        if let Some(l) = launch {
            let f = self.b.intern("ac2g");
            self.b.add_flow(FlowEnd::Slice(l), FlowEnd::Slice(h), f, f);
        }
    }
    fn finish(mut self) -> Trace {
        // the host categories typed as the Kineto importer types them
        self.b.set_host_work_by_category(crate::import::chrome::kineto::host_work);
        let t = self.b.finish();
        t.validate().unwrap();
        t
    }
}

/// Two iterations: a TC GEMM under aten::linear, a memcpy under aten::copy_, a tiny relu kernel
/// and a kernel without a launch flow.
fn two_iterations() -> Trace {
    let mut t = T::new(1);
    t.cpu("ProfilerStep#1", "user_annotation", 0, 1000);
    t.cpu("ProfilerStep#2", "user_annotation", 1000, 1000);
    t.b.add_iteration(1, 0, 1000);
    t.b.add_iteration(2, 1000, 2000);
    t.cpu("aten::linear", "cpu_op", 100, 300);
    t.cpu("aten::addmm", "cpu_op", 120, 260);
    let l1 = t.cpu("cudaLaunchKernel", "cuda_runtime", 150, 10);
    t.gpu(0, "volta_h884gemm_64x64_ldg8_nn", "kernel", 200, 300, Some(l1));
    t.cpu("aten::copy_", "cpu_op", 500, 100);
    let l2 = t.cpu("cudaMemcpyAsync", "cuda_runtime", 510, 80);
    t.gpu(0, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 600, 100, Some(l2));
    t.cpu("aten::relu", "cpu_op", 1100, 100);
    let l3 = t.cpu("cudaLaunchKernel", "cuda_runtime", 1110, 10);
    t.gpu(0, "vectorized_elementwise_kernel", "kernel", 1300, 5, Some(l3));
    t.gpu(0, "orphan_kernel", "kernel", 1800, 100, None);
    t.gpu(0, "## forward ##", "gpu_user_annotation", 150, 1800, None);
    t.finish()
}

#[test]
fn whole_trace_panels_have_the_known_answers() {
    let trace = two_iterations();
    assert!(DlprofIndex::applies(&trace));
    let d = DlprofIndex::build(&trace).dashboard(None);
    assert_eq!((d.window_start_ns, d.window_ns), (0, 2000));
    assert_eq!(d.devices, ["GPU 0"]);
    // union of activities; the annotation is not work
    assert_eq!(d.gpu_busy_ns, 300 + 100 + 5 + 100);
    assert!((d.gpu_utilisation_percent - 25.25).abs() < 1e-9);
    assert_eq!((d.kernel_count, d.memory_count), (3, 1));
    assert_eq!(d.tensor_core_kernel_time_ns, 300);
    assert_eq!(
        d.resources,
        ResourceUsage {
            tensor_core_ns: 300,
            other_kernel_ns: 5,
            unknown_kernel_ns: 100,
            memory_ns: 100,
            cpu_only_ns: 300,
            idle_ns: 1195
        }
    );
    assert_eq!(d.resources.total_ns(), 2000);
    let names: Vec<&str> = d.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["aten::linear", "aten::copy_", NO_LAUNCH_OP, "aten::relu"]);
    let linear = &d.ops[0];
    assert_eq!(
        (linear.calls, linear.cpu.total_ns, linear.gpu_total_ns, linear.tensor_core_ns),
        (1, 300, 300, 300)
    );
    assert!(linear.tc_eligible);
    assert_eq!(linear.op_type, "linear");
    assert_eq!(d.ops[1].op_type, "copy");
    assert_eq!(d.ops[2].calls, 0);
    assert_eq!(d.top_ops.len(), 4);
    let k: Vec<(&str, TensorCore, i64)> =
        d.kernels.iter().map(|k| (k.name.as_str(), k.tensor_core, k.gpu.total_ns)).collect();
    assert_eq!(k[0], ("volta_h884gemm_64x64_ldg8_nn", TensorCore::Yes, 300));
    // a kernel whose name says nothing is unknown, not "no tensor core"
    assert!(k.contains(&("orphan_kernel", TensorCore::Unknown, 100)), "{k:?}");
    assert_eq!(d.tensor_core_unknown_time_ns, 100);
    assert_eq!(d.kernels[0].top_op, "aten::linear");
    assert_eq!(d.kernels[0].launch.total_ns, 10);
    let memcpy = d.kernels.iter().find(|k| k.class == ActivityClass::Memory).unwrap();
    assert_eq!((memcpy.top_op.as_str(), memcpy.launch.total_ns), ("aten::copy_", 80));
    assert_eq!(d.iterations.len(), 2);
    assert_eq!((d.iterations[0].kernels, d.iterations[0].gpu_busy_ns), (2, 400));
    assert!((d.iterations[0].gpu_percent - 40.0).abs() < 1e-9);
    assert_eq!((d.iterations[1].kernels, d.iterations[1].gpu_busy_ns), (2, 105));
    let keys: Vec<&str> = d.recommendations.iter().map(|r| r.key).collect();
    assert_eq!(keys, ["gpu_idle", "memory"]);
    assert!(d.recommendations[0].problem.contains("74.8 %") && d.recommendations[0].problem.contains("20 %"));
}

#[test]
fn an_iteration_range_re_aggregates_every_panel() {
    let trace = two_iterations();
    let idx = DlprofIndex::build(&trace);
    let d = idx.dashboard(Some((2, 2)));
    assert_eq!(d.range, Some((2, 2)));
    assert_eq!((d.window_start_ns, d.window_ns), (1000, 1000));
    assert_eq!(d.gpu_busy_ns, 105);
    assert_eq!(
        d.resources,
        ResourceUsage {
            tensor_core_ns: 0,
            other_kernel_ns: 5,
            unknown_kernel_ns: 100,
            memory_ns: 0,
            cpu_only_ns: 100,
            idle_ns: 795
        }
    );
    let names: Vec<&str> = d.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, [NO_LAUNCH_OP, "aten::relu"]);
    assert_eq!(d.kernels.len(), 2);
    // the first iteration alone: the GEMM and the memcpy
    let d1 = idx.dashboard(Some((1, 1)));
    assert_eq!(d1.gpu_busy_ns, 400);
    assert_eq!(d1.resources.tensor_core_ns, 300);
    assert_eq!(d1.resources.total_ns(), d1.window_ns);
    // both = everything; a range with no iteration = everything
    assert_eq!(idx.dashboard(Some((1, 2))).gpu_busy_ns, 505);
    assert_eq!(idx.dashboard(Some((7, 9))).range, None);
    // highlight: the op's CPU call and its kernel; a kernel and its launch
    let ev = idx.events_of_op(None, "aten::linear", trace.tracks.len());
    assert_eq!(ev.iter().map(Vec::len).sum::<usize>(), 2);
    let ev = idx.events_of_kernel(Some((1, 1)), "volta_h884gemm_64x64_ldg8_nn", trace.tracks.len());
    assert_eq!(ev.iter().map(Vec::len).sum::<usize>(), 2);
    assert!(idx
        .events_of_kernel(Some((2, 2)), "volta_h884gemm_64x64_ldg8_nn", trace.tracks.len())
        .iter()
        .all(Vec::is_empty));
}

#[test]
fn launch_bound_low_tensor_core_and_no_iterations_rules() {
    let mut t = T::new(1);
    // 200 tiny kernels (5 µs) under aten::add, one long non-TC GEMM under aten::mm
    for i in 0..200 {
        t.cpu("aten::add", "cpu_op", i * 20_000, 1_000);
        let l = t.cpu("cudaLaunchKernel", "cuda_runtime", i * 20_000 + 100, 500);
        t.gpu(0, "elementwise_kernel", "kernel", i * 20_000 + 1_000, 5_000, Some(l));
    }
    t.cpu("aten::mm", "cpu_op", 4_000_000, 1_000);
    let l = t.cpu("cudaLaunchKernel", "cuda_runtime", 4_000_100, 500);
    t.gpu(0, "sgemm_128x64_nn", "kernel", 4_001_000, 2_000_000, Some(l));
    let trace = t.finish();
    let d = DlprofIndex::build(&trace).dashboard(None);
    assert_eq!(d.small_kernels, 200);
    let keys: Vec<&str> = d.recommendations.iter().map(|r| r.key).collect();
    assert_eq!(keys, ["gpu_idle", "launch_bound", "low_tensor_core", "no_iterations"]);
    let lb = &d.recommendations[1];
    assert!(lb.problem.contains("200 of 201 kernels") && lb.problem.contains("10 µs"), "{}", lb.problem);
    assert_eq!(d.recommendations[2].value, Some(0.0));
}

#[test]
fn a_cuda_program_gets_no_framework_advice_and_its_top_gpu_ops_are_kernels() {
    // the same launch-bound FP32 run, recorded by Nsight Systems from a CUDA C program: no
    // framework ops, the launches are CUDA API calls
    let mut t = T::new(1);
    t.b.set_format("nsys-sqlite");
    for i in 0..200 {
        let l = t.cpu("cudaLaunchKernel", "cuda_runtime", i * 20_000 + 100, 500);
        t.gpu(0, "elementwise_kernel", "kernel", i * 20_000 + 1_000, 5_000, Some(l));
    }
    let l = t.cpu("cudaLaunchKernel", "cuda_runtime", 4_000_100, 500);
    t.gpu(0, "sgemm_128x64_nn", "kernel", 4_001_000, 2_000_000, Some(l));
    let d = DlprofIndex::build(&t.finish()).dashboard(None);
    assert!(!d.framework && d.top_ops_are_kernels);
    let top: Vec<&str> = d.top_ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(top, ["sgemm_128x64_nn", "elementwise_kernel"], "GPU work, not API calls");
    let keys: Vec<&str> = d.recommendations.iter().map(|r| r.key).collect();
    assert!(!keys.contains(&"no_iterations"), "{keys:?}");
    for r in &d.recommendations {
        assert!(!r.advice.contains("torch") && !r.advice.contains("DataLoader"), "{}: {}", r.key, r.advice);
        assert!(!r.evidence.is_empty(), "{}", r.key);
    }
}

#[test]
fn precision_advice_only_when_the_precision_is_known() {
    // a GEMM op whose kernel name says neither tensor core nor its type: no precision advice
    let mut t = T::new(1);
    t.cpu("aten::mm", "cpu_op", 0, 1_000);
    let l = t.cpu("cudaLaunchKernel", "cuda_runtime", 100, 500);
    t.gpu(0, "my_gemm_kernel", "kernel", 1_000, 2_000_000, Some(l));
    let d = DlprofIndex::build(&t.finish()).dashboard(None);
    assert_eq!(d.ops[0].tensor_core_unknown_ns, 2_000_000);
    assert!(d.recommendations.iter().all(|r| r.key != "low_tensor_core"));
    // an FP4 Blackwell GEMM is a tensor-core kernel: no advice either
    let mut t = T::new(1);
    t.cpu("aten::mm", "cpu_op", 0, 1_000);
    let l = t.cpu("cudaLaunchKernel", "cuda_runtime", 100, 500);
    t.gpu(0, "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x128x256_s3", "kernel", 1_000, 2_000_000, Some(l));
    let d = DlprofIndex::build(&t.finish()).dashboard(None);
    assert_eq!(d.tensor_core_kernel_time_ns, 2_000_000);
    assert!(d.recommendations.iter().all(|r| r.key != "low_tensor_core"));
}

#[test]
fn utilisation_is_averaged_over_devices() {
    let mut t = T::new(2);
    t.cpu("aten::mm", "cpu_op", 0, 10);
    t.gpu(0, "k", "kernel", 0, 1000, None);
    t.gpu(1, "k", "kernel", 0, 500, None);
    // overlapping kernels on one device count once
    t.gpu(1, "k2", "kernel", 100, 200, None);
    let trace = t.finish();
    let d = DlprofIndex::build(&trace).dashboard(None);
    assert_eq!(d.devices.len(), 2);
    assert_eq!(d.window_ns, 1000);
    assert_eq!(d.gpu_busy_ns, 1500);
    assert!((d.gpu_utilisation_percent - 75.0).abs() < 1e-9);
    assert_eq!(d.resources.total_ns(), 2000);
    assert_eq!(d.resources.idle_ns, 500);
}

#[test]
fn a_cpu_only_trace_does_not_apply() {
    let mut t = T::new(0);
    t.cpu("aten::mm", "cpu_op", 0, 10);
    let trace = t.finish();
    assert!(!DlprofIndex::applies(&trace));
    let d = DlprofIndex::build(&trace).dashboard(None);
    assert_eq!((d.gpu_busy_ns, d.gpu_utilisation_percent), (0, 0.0));
    assert!(d.devices.is_empty());
}

#[test]
fn name_heuristics() {
    for k in [
        "volta_h884gemm_64x64_ldg8_nn",
        "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn",
        "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_32x3_nn",
        "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32",
        "void cutlass::Kernel<cutlass_80_tensorop_h16816gemm_128x128_32x3_nn_align8>(Params)",
        "wmma_kernel",
        "sm90_xmma_gemm_bf16bf16_bf16f32",
    ] {
        assert_eq!(uses_tensor_cores(k), TensorCore::Yes, "{k}");
    }
    for k in
        ["volta_sgemm_128x64_nn", "vectorized_elementwise_kernel", "Memcpy HtoD", "implicit_convolve_sgemm"]
    {
        assert_eq!(uses_tensor_cores(k), TensorCore::No, "{k}");
    }
    for o in ["aten::mm", "aten::addmm", "aten::conv2d", "aten::linear", "AddmmBackward0", "aten::matmul"] {
        assert!(op_name_tc_eligible(o), "{o}");
    }
    for o in ["aten::relu", "aten::copy_", "aten::add", "Optimizer.step#SGD.step", "(no launch flow)"] {
        assert!(!op_name_tc_eligible(o), "{o}");
    }
    assert_eq!(op_type("aten::conv2d"), "conv2d");
    assert_eq!(op_type("aten::uniform_"), "uniform");
    assert_eq!(op_type("autograd::engine::evaluate_function: AddmmBackward0"), "addmmbackward0");
    assert_eq!(op_type("cudaMemcpyAsync"), "cudamemcpyasync");
}

/// The shared Kineto samples: every one that has GPU streams gives a dashboard whose resource
/// parts add up to the window and whose utilisation is a percentage (fails when absent).
#[test]
fn kineto_samples() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");
    let Ok(rd) = std::fs::read_dir(dir) else {
        panic!("{dir} not found (the shared samples beside the repository are required)");
    };
    let mut files: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let mut with_gpu = 0;
    for p in files.iter().filter(|p| p.to_string_lossy().ends_with(".json.gz")) {
        let bytes = std::fs::read(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Ok(trace) = crate::import::import_bytes(&name, &bytes, &mut crate::import::NoProgress) else {
            continue;
        };
        if !DlprofIndex::applies(&trace) {
            println!("{name}: no GPU streams");
            continue;
        }
        with_gpu += 1;
        let idx = DlprofIndex::build(&trace);
        let d = idx.dashboard(None);
        let whole = d.window_ns * d.devices.len() as i64;
        assert_eq!(d.resources.total_ns(), whole, "{name}");
        assert!((0.0..=100.0).contains(&d.gpu_utilisation_percent), "{name}");
        let op_gpu: i64 = d.ops.iter().map(|o| o.gpu_total_ns).sum();
        assert_eq!(op_gpu, d.kernel_time_ns + d.memory_time_ns, "{name}: every activity in one op row");
        let launched: u64 = d.ops.iter().filter(|o| o.name != NO_LAUNCH_OP).map(|o| o.kernels).sum();
        println!(
            "{name}: {} device(s), util {:.1} %, {} kernels, {} memory ops ({} launched by an op), {} ops, {} iterations, recs {:?}",
            d.devices.len(),
            d.gpu_utilisation_percent,
            d.kernel_count,
            d.memory_count,
            launched,
            d.ops.len(),
            d.iterations.len(),
            d.recommendations.iter().map(|r| r.key).collect::<Vec<_>>()
        );
        if let Some(it) = d.iterations.first() {
            let r = idx.dashboard(Some((it.number, it.number)));
            assert_eq!(r.resources.total_ns(), r.window_ns * r.devices.len() as i64, "{name}");
            assert!(r.kernel_count <= d.kernel_count);
        }
    }
    assert!(with_gpu >= 5, "expected several Kineto samples with GPU streams, found {with_gpu}");
}
