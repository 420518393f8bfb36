//! Synthetic Kineto-like Chrome traces for benchmarks and tests: CPU threads with nested
//! `cpu_op` X events inside `ProfilerStep#N`, `cudaLaunchKernel` calls, kernels and memcpys on GPU
//! streams linked by `ac2g` flows, a memory counter, Kineto-style args and `M` metadata.
//! Deterministic for a given seed.

use std::io::Write;

use crate::rng::Rng;

const OPS: &[&str] = &[
    "aten::linear",
    "aten::addmm",
    "aten::relu",
    "aten::add_",
    "aten::mul",
    "aten::copy_",
    "aten::matmul",
    "aten::softmax",
    "aten::layer_norm",
    "aten::dropout",
    "aten::view",
    "aten::transpose",
    "aten::native_layer_norm",
    "autograd::engine::evaluate_function: AddmmBackward0",
];

const KERNELS: &[&str] = &[
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
    "ampere_sgemm_128x64_tn",
    "ampere_sgemm_64x64_nn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "void cunn_SoftMaxForward<4, float, float, float, cunn::detail::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel_trt",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
];

fn ts(out: &mut Vec<u8>, ns: i64) {
    let _ = write!(out, "{}.{:03}", ns / 1000, ns % 1000);
}

struct Gen {
    out: Vec<u8>,
    rng: Rng,
    pid: i64,
    corr: u64,
    ext: u64,
    gpu_clock: [i64; 2],
    first: bool,
}

impl Gen {
    fn sep(&mut self) {
        if !self.first {
            self.out.extend_from_slice(b",\n");
        }
        self.first = false;
    }

    fn x(&mut self, cat: &str, name: &str, pid: i64, tid: i64, start: i64, dur: i64) {
        self.sep();
        let _ = write!(self.out, "  {{\"ph\": \"X\", \"cat\": \"{cat}\", \"name\": \"{name}\", \"pid\": {pid}, \"tid\": {tid}, \"ts\": ");
        ts(&mut self.out, start);
        self.out.extend_from_slice(b", \"dur\": ");
        ts(&mut self.out, dur);
    }

    fn cpu_op(&mut self, tid: i64, name: &str, start: i64, dur: i64) {
        self.x("cpu_op", name, self.pid, tid, start, dur);
        self.ext += 1;
        let seq = self.rng.below(5000);
        let d0 = 1 << self.rng.below(10);
        let _ = write!(
            self.out,
            ", \"args\": {{\"External id\": {}, \"Record function id\": 0, \"Sequence number\": {seq}, \"Fwd thread id\": 0, \"Ev Idx\": {}, \"Input Dims\": [[{d0}, 1024], [1024, 1024], []], \"Input type\": [\"float\", \"float\", \"Scalar\"]}}}}",
            self.ext, self.ext
        );
    }

    /// A launch on `tid` at `start` with a kernel on a GPU stream; returns the launch duration.
    fn launch(&mut self, tid: i64, start: i64) -> i64 {
        let dur = self.rng.range(3_000, 12_000);
        self.corr += 1;
        let corr = self.corr;
        let memcpy = self.rng.below(10) == 0;
        let api = if memcpy { "cudaMemcpyAsync" } else { "cudaLaunchKernel" };
        self.x("cuda_runtime", api, self.pid, tid, start, dur);
        let _ = write!(
            self.out,
            ", \"args\": {{\"External id\": {}, \"cbid\": 211, \"correlation\": {corr}}}}}",
            self.ext
        );
        self.sep();
        let _ = write!(
            self.out,
            "  {{\"ph\": \"s\", \"id\": {corr}, \"pid\": {}, \"tid\": {tid}, \"ts\": ",
            self.pid
        );
        ts(&mut self.out, start);
        self.out.extend_from_slice(b", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
        // the device side
        let stream = self.rng.below(2) as usize;
        let stream_id = [7, 20][stream];
        let k_start = (start + self.rng.range(2_000, 20_000)).max(self.gpu_clock[stream]);
        let k_dur = self.rng.range(1_500, 150_000);
        self.gpu_clock[stream] = k_start + k_dur + self.rng.range(500, 3_000);
        if memcpy {
            let bytes = 4 << self.rng.below(20);
            self.x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, stream_id, k_start, k_dur);
            let _ = write!(
                self.out,
                ", \"args\": {{\"External id\": {}, \"device\": 0, \"context\": 1, \"stream\": {stream_id}, \"correlation\": {corr}, \"bytes\": {bytes}, \"memory bandwidth (GB/s)\": {:.6}}}}}",
                self.ext,
                bytes as f64 / k_dur as f64
            );
        } else {
            let name = KERNELS[self.rng.below(KERNELS.len() as u64) as usize];
            let grid = 1 << self.rng.below(12);
            self.x("kernel", name, 0, stream_id, k_start, k_dur);
            let _ = write!(
                self.out,
                ", \"args\": {{\"External id\": {}, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": {stream_id}, \"correlation\": {corr}, \"registers per thread\": {}, \"shared memory\": {}, \"blocks per SM\": {:.6}, \"warps per SM\": {:.6}, \"grid\": [{grid}, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": {}}}}}",
                self.ext,
                16 + self.rng.below(100),
                self.rng.below(4) * 16384,
                grid as f64 / 108.0,
                grid as f64 / 13.5,
                self.rng.below(100)
            );
        }
        self.sep();
        let _ =
            write!(self.out, "  {{\"ph\": \"f\", \"id\": {corr}, \"pid\": 0, \"tid\": {stream_id}, \"ts\": ");
        ts(&mut self.out, k_start);
        self.out.extend_from_slice(b", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
        dur
    }

    /// An operator subtree starting at `start`; returns its end.
    fn op(&mut self, tid: i64, depth: u32, start: i64) -> i64 {
        let name = OPS[self.rng.below(OPS.len() as u64) as usize];
        let mut t = start + self.rng.range(500, 3_000);
        let children = if depth >= 3 { 0 } else { self.rng.below(4) };
        for _ in 0..children {
            t = self.op(tid, depth + 1, t) + self.rng.range(200, 2_000);
        }
        if depth > 0 || children == 0 {
            let n = self.rng.below(3);
            for _ in 0..n {
                t += self.launch(tid, t) + self.rng.range(300, 1_500);
            }
        }
        let end = t + self.rng.range(300, 2_000);
        self.cpu_op(tid, name, start, end - start);
        end
    }
}

/// A Kineto-like trace of about `target_bytes` bytes (object form, `ts` in µs with ns decimals).
pub fn chrome_trace_json(target_bytes: usize, seed: u64) -> Vec<u8> {
    let mut g = Gen {
        out: Vec::with_capacity(target_bytes + (1 << 16)),
        rng: Rng(seed | 1),
        pid: 4242,
        corr: 0,
        ext: 0,
        gpu_clock: [0; 2],
        first: true,
    };
    g.out.extend_from_slice(
        b"{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85031714816, \"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"numSms\": 108}\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1},\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1700000000000000000,\n  \"traceEvents\": [\n",
    );
    let threads: [i64; 3] = [4242, 4250, 4251];
    let mut clock = [1_000_000i64; 3];
    let mut step = 0i64;
    let mut mem = 1u64 << 30;
    while g.out.len() < target_bytes {
        for (k, &tid) in threads.iter().enumerate() {
            let start = clock[k].max(g.gpu_clock[0].min(g.gpu_clock[1]) - 50_000);
            let mut t = start + 1_000;
            let ops = 6 + g.rng.below(10);
            for _ in 0..ops {
                t = g.op(tid, 0, t) + g.rng.range(500, 5_000);
            }
            let end = t + 1_000;
            if k == 0 {
                g.x("user_annotation", &format!("ProfilerStep#{step}"), g.pid, tid, start, end - start);
                g.ext += 1;
                let _ = write!(
                    g.out,
                    ", \"args\": {{\"External id\": {}, \"Record function id\": 0, \"Ev Idx\": {}}}}}",
                    g.ext, g.ext
                );
            } else {
                g.x("python_function", "threading.py(1032): _bootstrap", g.pid, tid, start, end - start);
                let _ = write!(g.out, ", \"args\": {{\"Python id\": {}, \"Python thread\": {k}}}}}", step);
            }
            clock[k] = end + 2_000;
            mem = mem.wrapping_add(g.rng.below(1 << 24)).wrapping_sub(1 << 23) & ((1 << 34) - 1);
            g.sep();
            let _ = write!(
                g.out,
                "  {{\"ph\": \"C\", \"name\": \"Memory\", \"pid\": {}, \"tid\": {tid}, \"ts\": ",
                g.pid
            );
            ts(&mut g.out, end);
            let _ =
                write!(g.out, ", \"args\": {{\"Allocated\": {mem}, \"Reserved\": {}}}}}", mem + (1 << 28));
        }
        step += 1;
    }
    // metadata, as Kineto writes it at the end
    let pid = g.pid;
    let meta = |g: &mut Gen, name: &str, pid: i64, tid: i64, args: String| {
        g.sep();
        let _ = write!(g.out, "  {{\"name\": \"{name}\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {pid}, \"tid\": {tid}, \"args\": {{{args}}}}}");
    };
    meta(&mut g, "process_name", pid, 0, "\"name\": \"python3\"".into());
    meta(&mut g, "process_labels", pid, 0, "\"labels\": \"CPU\"".into());
    meta(&mut g, "process_name", 0, 0, "\"name\": \"python3\"".into());
    meta(&mut g, "process_labels", 0, 0, "\"labels\": \"GPU 0\"".into());
    meta(&mut g, "process_sort_index", 0, 0, "\"sort_index\": 16777216".into());
    for &tid in &threads {
        meta(&mut g, "thread_name", pid, tid, format!("\"name\": \"thread {tid} (python3)\""));
    }
    for s in [7, 20] {
        meta(&mut g, "thread_name", 0, s, format!("\"name\": \"stream {s} \""));
        meta(&mut g, "thread_sort_index", 0, s, format!("\"sort_index\": {s}"));
    }
    g.sep();
    g.out.extend_from_slice(b"  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    let last = clock.iter().copied().max().unwrap_or(0).max(g.gpu_clock[0]).max(g.gpu_clock[1]);
    ts(&mut g.out, last);
    g.out.extend_from_slice(b"}\n  ],\n  \"traceName\": \"synthetic\"\n}\n");
    g.out
}
