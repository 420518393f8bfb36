//! A generated, accelerator-like demo profile, so the viewer is never empty: a host process with
//! nested framework slices, a device with engine queues (Tensor/Vector/Scalar/GpSimd/Sync) running
//! operators made of instructions, DMA queues, counters, host→device flows and iterations.
//! Deterministic (fixed-seed PRNG) and built only through [`TraceBuilder`], like any importer.

use crate::model::WarningKind;
use crate::model::{
    ArgValue, ArgsId, Engine, FlowEnd, GroupKind, OpId, OpLevel, SliceDomain, SliceHandle, Trace,
    TraceBuilder, TrackId, TrackKind, TrackRole,
};

/// Number of training steps in the demo.
pub const DEMO_STEPS: i64 = 6;
const STEP_NS: i64 = 12_000_000;
const STEP_GAP_NS: i64 = 400_000;
/// Absolute time of the first step: not zero, so relative ruler labels are exercised.
const T0_NS: i64 = 1_000_000_000;

use crate::rng::Rng;

/// Operators of one step: (name, engines used, duration range µs).
const OPS: &[(&str, &[usize], (i64, i64))] = &[
    ("embedding.gather", &[1, 3], (120, 200)),
    ("qkv_proj.matmul", &[0, 2], (300, 520)),
    ("attn.scores.matmul", &[0], (180, 300)),
    ("attn.softmax", &[1, 2], (90, 160)),
    ("attn.context.matmul", &[0], (160, 260)),
    ("out_proj.matmul", &[0, 2], (200, 320)),
    ("residual.add", &[1], (40, 80)),
    ("layernorm", &[1, 2], (70, 120)),
    ("mlp.up.matmul", &[0], (380, 600)),
    ("gelu", &[2, 3], (80, 140)),
    ("mlp.down.matmul", &[0], (360, 560)),
    ("allreduce.grad", &[3, 4], (150, 300)),
];

/// Instruction mnemonics per engine (Tensor, Vector, Scalar, GpSimd, Sync).
const INSTRUCTIONS: [&[&str]; 5] = [
    &["MATMUL", "MATMUL", "MATMUL", "LOAD_STATIONARY", "MATMUL_ACC"],
    &["TENSOR_TENSOR", "TENSOR_REDUCE", "TENSOR_SCALAR", "TRANSPOSE"],
    &["ACTIVATE", "ACTIVATE", "EXP", "RECIPROCAL"],
    &["IOTA", "GATHER", "SCATTER", "CUSTOM_OP"],
    &["SEM_WAIT", "SEM_SIGNAL", "BARRIER"],
];

const ENGINES: [&str; 5] = ["Tensor", "Vector", "Scalar", "GpSimd", "Sync"];
const QUEUES: [&str; 3] = ["qWeights", "qActivations", "qCollectives"];

/// Build the demo trace (~40k slices; a few ms natively).
pub fn demo_trace() -> Trace {
    demo_trace_steps(DEMO_STEPS)
}

/// The demo with `steps` training steps instead of [`DEMO_STEPS`] (each about a sixth of the
/// demo's slices): every kind of data the demo has is in each step, so one step is a small model
/// with all of it (the `decode_wire` fuzz target's valid transfer).
pub fn demo_trace_steps(steps: i64) -> Trace {
    let mut b = TraceBuilder::new("demo");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    b.add_metadata("source", "Loupe demo (generated)");
    b.add_metadata("device", "NeuronCore-v2 (simulated)");

    // groups: host first, then the device
    let host = b.add_group("python train.py (pid 4242)", GroupKind::Process);
    let device = b.add_group("Device 0 / NeuronCore 0", GroupKind::Device);
    let main_thread = b.add_track(host, "MainThread", TrackKind::Thread, "4242");
    let autograd = b.add_track(host, "pt_autograd_0", TrackKind::Thread, "4251");
    let engines: Vec<TrackId> = ENGINES
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let t = b.add_track(device, e, TrackKind::Stream, &format!("engine {i}"));
            if let Some(e) = Engine::from_timeline_label(e) {
                b.set_track_role(t, TrackRole::Engine(e));
            }
            t
        })
        .collect();
    let queues: Vec<TrackId> = QUEUES
        .iter()
        .enumerate()
        .map(|(i, q)| b.add_track(device, q, TrackKind::Dma, &format!("dma queue {i}")))
        .collect();
    let dma_rate = b.add_counter(device, "DMA throughput", "GB/s");
    let util = b.add_counter(device, "Tensor engine utilisation", "%");
    b.set_counter_role(dma_rate, crate::model::CounterRole::DmaThroughput);
    b.set_counter_role(util, crate::model::CounterRole::Utilisation);
    let host_mem = b.add_counter(host, "Host memory", "MiB");

    let cat_host = b.intern("cpu_op");
    let cat_py = b.intern("python_function");
    let cat_rt = b.intern("runtime");
    b.set_host_work(cat_host, crate::model::HostWork::Op);
    b.set_host_work(cat_py, crate::model::HostWork::Python);
    b.set_host_work(cat_rt, crate::model::HostWork::Runtime);
    let cat_op = b.intern("operator");
    let cat_instr = b.intern("instruction");
    let cat_dma = b.intern("dma");
    let cat_flow = b.intern("launch");
    let k_layer = b.intern("layer");
    let k_shape = b.intern("input_shape");
    let k_opcode = b.intern("opcode");
    let k_pc = b.intern("pc");
    let k_bytes = b.intern("bytes");
    let k_src = b.intern("src");
    let k_dst = b.intern("dst");
    let k_step = b.intern("step");
    let k_graph = b.intern("graph");
    let graph_name = b.intern("model.neff");
    let shapes = [b.intern("[8, 512, 1024]"), b.intern("[8, 512, 4096]"), b.intern("[1024, 1024]")];
    let hbm = b.intern("HBM");
    let sbuf = b.intern("SBUF");
    let psum = b.intern("PSUM");

    let n = |b: &mut TraceBuilder, s: &str| b.intern(s);
    let mut pc: i64 = 0x4000;

    for step in 0..steps {
        let s0 = T0_NS + step * (STEP_NS + STEP_GAP_NS);
        let s1 = s0 + STEP_NS;
        b.add_iteration(step, s0, s1);

        // ---- host: ProfilerStep > forward > layers > aten ops; launch; backward; optimizer ----
        let step_name = n(&mut b, &format!("ProfilerStep#{step}"));
        let step_args = b.add_args([(k_step, ArgValue::Int(step))]);
        b.add_slice(main_thread, s0, STEP_NS, step_name, cat_py, step_args);
        let fwd0 = s0 + 150_000;
        let fwd1 = s0 + 5_200_000;
        let fwd = n(&mut b, "forward");
        b.add_slice(main_thread, fwd0, fwd1 - fwd0, fwd, cat_py, ArgsId::NONE);
        let layers = 8;
        let layer_ns = (fwd1 - fwd0 - 600_000) / layers;
        for l in 0..layers {
            let l0 = fwd0 + 50_000 + l * layer_ns;
            let lname = n(&mut b, &format!("layers.{l}"));
            let largs = b.add_args([(k_layer, ArgValue::Int(l))]);
            b.add_slice(main_thread, l0, layer_ns - 20_000, lname, cat_py, largs);
            let mut t = l0 + 10_000;
            for op in ["aten::linear", "aten::softmax", "aten::linear", "aten::layer_norm", "aten::gelu"] {
                let d = rng.range(40_000, 110_000).min(l0 + layer_ns - 30_000 - t);
                if d <= 0 {
                    break;
                }
                let name = n(&mut b, op);
                let shape = shapes[rng.range(0, 3) as usize];
                let args = b.add_args([(k_shape, ArgValue::Str(shape))]);
                b.add_slice(main_thread, t, d, name, cat_host, args);
                if op == "aten::linear" && d > 30_000 {
                    let mm = n(&mut b, "aten::matmul");
                    b.add_slice(main_thread, t + 3_000, d - 8_000, mm, cat_host, args);
                    let mm2 = n(&mut b, "aten::mm");
                    b.add_slice(main_thread, t + 6_000, d - 16_000, mm2, cat_host, ArgsId::NONE);
                }
                t += d + rng.range(2_000, 8_000);
            }
        }
        let launch_name = n(&mut b, "neuron::launch_graph");
        let launch_args = b.add_args([(k_graph, ArgValue::Str(graph_name)), (k_step, ArgValue::Int(step))]);
        let launch = b.add_slice(main_thread, fwd1 - 450_000, 380_000, launch_name, cat_rt, launch_args);
        let bwd = n(&mut b, "backward");
        b.add_slice(autograd, s0 + 5_500_000, 4_600_000, bwd, cat_py, ArgsId::NONE);
        let mut t = s0 + 5_560_000;
        while t < s0 + 10_000_000 {
            let d = rng.range(60_000, 240_000);
            let name = n(
                &mut b,
                ["MmBackward0", "SoftmaxBackward0", "NativeLayerNormBackward0", "GeluBackward0"]
                    [rng.range(0, 4) as usize],
            );
            b.add_slice(autograd, t, d.min(s0 + 10_080_000 - t), name, cat_host, ArgsId::NONE);
            t += d + rng.range(5_000, 20_000);
        }
        let opt = n(&mut b, "Optimizer.step#AdamW.step");
        b.add_slice(main_thread, s0 + 10_300_000, 1_300_000, opt, cat_py, ArgsId::NONE);
        let sync_name = n(&mut b, "neuron::sync");
        let host_sync = b.add_slice(main_thread, s0 + 11_700_000, 250_000, sync_name, cat_rt, ArgsId::NONE);
        let ckpt = n(&mut b, "step_end");
        b.add_instant(main_thread, s1 - 10_000, ckpt, cat_py, ArgsId::NONE);
        b.add_counter_sample(host_mem, s0, 2048.0 + step as f64 * 12.0);
        b.add_counter_sample(host_mem, fwd0, 2300.0 + step as f64 * 12.0);
        b.add_counter_sample(host_mem, s0 + 5_500_000, 3100.0 + step as f64 * 12.0);
        b.add_counter_sample(host_mem, s0 + 10_200_000, 2400.0 + step as f64 * 12.0);

        // ---- device: operators on engines, instructions inside, DMA, counters ----
        let dev0 = fwd1 - 400_000;
        let mut t = dev0;
        let mut first_op: Option<SliceHandle> = None;
        let mut last_op: Option<SliceHandle> = None;
        let mut busy_tensor: Vec<(i64, i64)> = Vec::new();
        for layer in 0..2 {
            for &(op, engines_used, (lo_us, hi_us)) in OPS {
                let op_ns = rng.range(lo_us, hi_us) * 1000;
                let op_name = n(&mut b, op);
                let op_args = b.add_args([(k_layer, ArgValue::Int(layer))]);
                for &e in engines_used {
                    let lead = rng.range(0, 8_000);
                    let h = b.add_slice(engines[e], t + lead, op_ns - lead, op_name, cat_op, op_args);
                    if e == engines_used[0] {
                        first_op.get_or_insert(h);
                        last_op = Some(h);
                    }
                    if e == 0 {
                        busy_tensor.push((t + lead, t + op_ns));
                    }
                    // instructions: back to back with small gaps
                    let mut it = t + lead + 500;
                    let end = t + op_ns - 500;
                    let set = INSTRUCTIONS[e];
                    while it < end {
                        let d = rng.range(1_500, 9_000).min(end - it);
                        if d < 200 {
                            break;
                        }
                        let mnemonic = set[rng.range(0, set.len() as i64) as usize];
                        let iname = n(&mut b, mnemonic);
                        let opcode = n(&mut b, &format!("0x{:02x}", mnemonic.len() * 7 % 256));
                        let iargs =
                            b.add_args([(k_opcode, ArgValue::Str(opcode)), (k_pc, ArgValue::Int(pc))]);
                        let h = b.add_slice(engines[e], it, d, iname, cat_instr, iargs);
                        let lop = b.add_operator(OpId::NONE, OpLevel::Layer, &format!("layer {layer}"));
                        let fop = b.add_operator(lop, OpLevel::Framework, op);
                        let slot = u32::try_from(pc / 16).unwrap_or(u32::MAX);
                        b.set_slice_domain(
                            h,
                            SliceDomain {
                                opcode: iname,
                                operator: fop,
                                instruction: slot,
                                ..Default::default()
                            },
                        );
                        pc += 16;
                        it += d + rng.range(100, 1_200);
                    }
                }
                // sync engine: a semaphore wait per op, plus a signal instant
                if !engines_used.contains(&4) {
                    let wait = n(&mut b, "SEM_WAIT");
                    b.add_slice(engines[4], t, rng.range(1_000, 6_000), wait, cat_instr, ArgsId::NONE);
                }
                let sig = n(&mut b, "sem_signal");
                b.add_instant(engines[4], t + op_ns - 200, sig, cat_instr, ArgsId::NONE);
                // DMA: weights before matmuls, activations throughout, collectives at allreduce
                let queue_use: &[usize] = if op.contains("matmul") {
                    &[0, 1]
                } else if op.starts_with("allreduce") {
                    &[2]
                } else {
                    &[1]
                };
                for &q in queue_use {
                    let mut dt = t;
                    while dt < t + op_ns - 3_000 {
                        let kib = [64i64, 128, 256, 512][rng.range(0, 4) as usize];
                        let d = (kib * 40 + rng.range(0, 2_000)).min(t + op_ns - dt);
                        let dname = n(&mut b, &format!("dma {kib} KiB"));
                        let (src, dst) = if q == 1 && rng.chance(40) {
                            (sbuf, hbm)
                        } else {
                            (hbm, if q == 0 { sbuf } else { psum })
                        };
                        let dargs = b.add_args([
                            (k_bytes, ArgValue::Int(kib * 1024)),
                            (k_src, ArgValue::Str(src)),
                            (k_dst, ArgValue::Str(dst)),
                        ]);
                        let h = b.add_slice(queues[q], dt, d, dname, cat_dma, dargs);
                        let bytes = u64::try_from(kib * 1024).unwrap_or(0);
                        b.set_slice_domain(h, SliceDomain { bytes, ..Default::default() });
                        dt += d + rng.range(1_000, 25_000);
                    }
                }
                t += op_ns + rng.range(5_000, 30_000);
            }
        }
        let dev1 = t;
        // counters: sampled every 50 µs
        let mut ct = dev0 - 200_000;
        let mut k = 0usize;
        while ct < dev1 + 200_000 {
            let in_dev = ct >= dev0 && ct < dev1;
            let rate = if in_dev {
                40.0 + 120.0 * ((ct as f64 / 310_000.0).sin().abs()) + rng.range(0, 20) as f64
            } else {
                0.0
            };
            b.add_counter_sample(dma_rate, ct, rate);
            while k < busy_tensor.len() && busy_tensor[k].1 < ct {
                k += 1;
            }
            let busy = busy_tensor.get(k).is_some_and(|&(a, e)| a <= ct && ct < e);
            let u = if busy {
                70.0 + rng.range(0, 30) as f64
            } else if in_dev {
                rng.range(0, 15) as f64
            } else {
                0.0
            };
            b.add_counter_sample(util, ct, u);
            ct += 50_000;
        }
        // flows: host launch → first device op; last device op → host sync
        if let Some(f) = first_op {
            let fname = n(&mut b, "launch");
            b.add_flow(FlowEnd::Slice(launch), FlowEnd::Slice(f), fname, cat_flow);
        }
        if let Some(l) = last_op {
            let fname = n(&mut b, "completion");
            b.add_flow(FlowEnd::Slice(l), FlowEnd::Slice(host_sync), fname, cat_flow);
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo's slice count (tests/e2e/demo.test.mjs expects the same number in the page).
    const DEMO_SLICES: usize = 12_270;

    #[test]
    fn demo_is_rich_and_clean() {
        let t = demo_trace();
        assert_eq!(t.format, "demo");
        assert_eq!(t.groups.len(), 2);
        assert_eq!(t.iterations.len(), DEMO_STEPS as usize);
        // pinned: the demo is deterministic (and tests/e2e/demo.test.mjs expects the same count)
        assert_eq!(t.slice_count(), DEMO_SLICES);
        assert_eq!(t.flows.len(), 2 * DEMO_STEPS as usize);
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        assert_eq!(t.counters.len(), 3);
        let one = demo_trace_steps(1);
        assert_eq!(one.iterations.len(), 1);
        assert_eq!((one.flows.len(), one.counters.len(), one.tracks.len()), (2, 3, t.tracks.len()));
        assert!(one.slice_count() * 5 < t.slice_count(), "{} of {}", one.slice_count(), t.slice_count());
        assert!(t.instant_count() > 0);
        // engine tracks have operators at depth 0 and instructions at depth 1
        let tensor = t.tracks.iter().find(|tr| t.str(tr.name) == "Tensor").expect("tensor track");
        assert_eq!(tensor.slices.depth_count(), 2);
        // host nesting: ProfilerStep > forward > layers > aten::linear > aten::matmul > aten::mm
        let main = t.tracks.iter().find(|tr| t.str(tr.name) == "MainThread").expect("main thread");
        assert!(main.slices.depth_count() >= 6, "{}", main.slices.depth_count());
        assert!(t.start_ns >= T0_NS && t.end_ns > t.start_ns);
        // flows go host → device and back
        let f = &t.flows[0];
        assert_ne!(t.tracks[f.from.track.idx()].group, t.tracks[f.to.track.idx()].group);
    }

    #[test]
    fn demo_is_deterministic() {
        let a = demo_trace();
        let b = demo_trace();
        assert_eq!(a.slice_count(), b.slice_count());
        assert_eq!(a.tracks[2].slices.start_ns, b.tracks[2].slices.start_ns);
    }
}

/// The largest `?demo=N` profile: the model (≈ 28.4 bytes per slice), its encoded copy sent from
/// the loader's worker and the page's decoded copy must all fit in wasm32's 4 GiB with room to
/// spare (20 M slices ≈ 570 MB of model; the worker peaks at a few times that while building).
pub const MAX_LARGE_DEMO_SLICES: usize = 20_000_000;

/// Names per depth of the large demo: steps, modules, ATen operators, runtime calls.
const LARGE_DEMO_NAMES: [&[&str]; 4] = [
    &["ProfilerStep", "forward", "backward", "optimizer.step", "DataLoader.__next__"],
    &[
        "nn.Module: Linear",
        "nn.Module: LayerNorm",
        "nn.Module: MultiheadAttention",
        "nn.Module: GELU",
        "nn.Module: Dropout",
        "nn.Module: Embedding",
        "autograd::engine::evaluate_function: AddmmBackward0",
        "autograd::engine::evaluate_function: NativeLayerNormBackward0",
    ],
    &[
        "aten::linear",
        "aten::matmul",
        "aten::addmm",
        "aten::bmm",
        "aten::softmax",
        "aten::layer_norm",
        "aten::gelu",
        "aten::dropout",
        "aten::add_",
        "aten::mul",
        "aten::copy_",
        "aten::embedding",
        "aten::native_layer_norm_backward",
        "aten::mm",
        "aten::sum",
        "aten::zero_",
    ],
    &[
        "cudaLaunchKernel",
        "cudaMemcpyAsync",
        "aten::empty",
        "aten::as_strided",
        "aten::view",
        "aten::t",
        "aten::transpose",
        "aten::reshape",
        "aten::fill_",
        "cudaStreamSynchronize",
    ],
];

/// A synthetic host profile of exactly `slices` slices (at most [`MAX_LARGE_DEMO_SLICES`]; more
/// is capped with a `demo_capped` warning): two processes of four threads each, call trees up to
/// four levels deep (steps → modules → ATen operators → runtime calls) whose leaves span 200 ns …
/// 400 µs, so every zoom level has both wide slices and runs of sub-pixel ones. The `?demo=N`
/// page loads it through the worker like a file. Deterministic. `progress(done, total)` counts
/// generated slices (the builder's `finish` afterwards is not counted).
pub fn large_demo(slices: usize, progress: &mut dyn FnMut(u64, u64)) -> Trace {
    large_demo_capped(slices, MAX_LARGE_DEMO_SLICES, progress)
}

fn large_demo_capped(slices: usize, cap: usize, progress: &mut dyn FnMut(u64, u64)) -> Trace {
    let n = slices.min(cap);
    let mut b = TraceBuilder::new("demo");
    b.add_metadata("source", format!("Loupe large demo (generated, {n} slices)"));
    if slices > n {
        b.warn(WarningKind::DemoCapped, || {
            format!(
                "asked for {slices} slices; the demo is capped at {cap} so that the model \
                 and its copies fit in the browser's 4 GiB of wasm memory"
            )
        });
    }
    let mut tracks = Vec::new();
    for (p, pid) in [(0, 4242), (1, 4243)] {
        let g = b.add_group(&format!("python train.py rank {p} (pid {pid})"), GroupKind::Process);
        for (k, t) in
            ["MainThread", "pt_autograd_0", "pt_autograd_1", "DataLoader worker 0"].iter().enumerate()
        {
            tracks.push(b.add_track(g, t, TrackKind::Thread, &(pid * 10 + k as i64).to_string()));
        }
    }
    let names = LARGE_DEMO_NAMES.iter().map(|level| level.iter().map(|s| b.intern(s)).collect()).collect();
    crate::model::synth::fill_tracks(&mut b, &tracks, n, 0x5eed_1234, names, progress);
    b.finish()
}

/// The `demo` parameter of a page URL's query string (`location.search`, with or without the
/// leading `?`): `Ok(None)` when absent, or present without a number (`?demo`, `?demo=`: the
/// built-in demo, as always), `Ok(Some(n))` for `?demo=<N>` with N a whole number, optionally with
/// a `k`/`M` suffix or `_` separators (`?demo=10M`, `?demo=10_000_000`), and `Err` with a message
/// for anything else. N is not capped here ([`large_demo`] caps it and says so).
pub fn demo_param(query: &str) -> Result<Option<u64>, String> {
    let q = query.strip_prefix('?').unwrap_or(query);
    let Some(v) = q.split('&').find_map(|kv| match kv.split_once('=') {
        Some(("demo", v)) => Some(v),
        None if kv == "demo" => Some(""),
        _ => None,
    }) else {
        return Ok(None);
    };
    let v = v.trim().replace('_', "");
    if v.is_empty() {
        return Ok(None);
    }
    let (digits, mul) = match v.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1_000u64),
        None => match v.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (v.as_str(), 1),
        },
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .map(Some)
        .ok_or_else(|| format!("?demo={v}: expected a number of slices such as ?demo=1000000 or ?demo=10M"))
}

#[cfg(test)]
mod large_tests {
    use super::*;

    #[test]
    fn demo_param_forms() {
        assert_eq!(demo_param(""), Ok(None));
        assert_eq!(demo_param("?x=1"), Ok(None));
        assert_eq!(demo_param("?demo"), Ok(None));
        assert_eq!(demo_param("?demo="), Ok(None));
        assert_eq!(demo_param("?demo=10000000"), Ok(Some(10_000_000)));
        assert_eq!(demo_param("a=1&demo=10_000&b"), Ok(Some(10_000)));
        assert_eq!(demo_param("?demo=10M"), Ok(Some(10_000_000)));
        assert_eq!(demo_param("?demo=250k"), Ok(Some(250_000)));
        assert_eq!(demo_param("?demodemo=5"), Ok(None));
        for bad in
            ["?demo=abc", "?demo=-5", "?demo=1.5M", "?demo=99999999999999999999", "?demo=20000000000000M"]
        {
            assert!(demo_param(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn large_demo_exact_nested_named() {
        let mut reports = Vec::new();
        let tr = large_demo(200_000, &mut |d, t| reports.push((d, t)));
        tr.validate().unwrap();
        assert_eq!(tr.slice_count(), 200_000);
        assert_eq!(tr.tracks.len(), 8);
        assert_eq!(tr.groups.len(), 2);
        assert_eq!(tr.warnings.total(), 0);
        assert!(tr.tracks.iter().all(|t| t.slices.depth_count() == 4), "four levels of nesting");
        // depth 0 holds step names, depth 2 ATen operators
        let t = &tr.tracks[0];
        let at = |d: usize| (0..t.slices.len()).find(|&i| t.slices.depth_of(i) == d).unwrap();
        assert!(LARGE_DEMO_NAMES[0].contains(&tr.str(t.slices.name[at(0)])));
        assert!(tr.str(t.slices.name[at(2)]).starts_with("aten::"));
        // progress: increasing, ends at the total
        assert!(reports.len() >= 3);
        assert!(reports.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(reports.last(), Some(&(200_000, 200_000)));
        // deterministic
        let again = large_demo(200_000, &mut |_, _| {});
        assert_eq!(again.tracks[3].slices.start_ns, tr.tracks[3].slices.start_ns);
    }

    #[test]
    fn large_demo_capped_with_warning() {
        // the same path as the 20 M cap, with a small cap
        let tr = large_demo_capped(5_000, 1_000, &mut |_, _| {});
        tr.validate().unwrap();
        assert_eq!(tr.slice_count(), 1_000);
        assert_eq!(tr.warnings.count_of(WarningKind::DemoCapped), 1);
        let tr = large_demo(0, &mut |_, _| {});
        assert_eq!(tr.slice_count(), 0);
        assert_eq!(tr.warnings.total(), 0);
        tr.validate().unwrap();
    }
}
