//! GPU definitions (`analysis::measures`, `// --- GPU ---`) on the shared Kineto samples:
//! - a GPU stream's busy time in the Overall Summary's index equals an independent union of its
//!   kernels, memory copies and memory sets, computed here from the JSON with serde_json (not
//!   through Loupe's importer); annotation ranges on the stream (`gpu_user_annotation`) are not
//!   work;
//! - the Overall Summary's busy, the GPU Breakdown's busy and the Dashboard's busy / utilisation
//!   agree on the same profile (HTA's numbers carry HTA's labels);
//! - tensor-core and communication classification on a table of real kernel names.
//!
//! The samples are required: a missing sample fails.

use loupe_core::analysis::dlprof::DlprofIndex;
use loupe_core::analysis::gpu::kernels::{is_communication, tensor_core, TensorCore};
use loupe_core::analysis::gpu::{gpu_analysis, Definitions, GpuOptions};
use loupe_core::analysis::summary::WindowIndex;
use loupe_core::model::{TrackId, TrackRole};
use loupe_core::Trace;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::io::Read;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto/");
/// The shared Kineto samples with `gpu_user_annotation` ranges on a GPU stream.
const WITH_ANNOTATIONS: &[&str] = &[
    "hta__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "hta__nccl_parser_config_nccl_data.json.gz",
    "hta__amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
];

fn read(name: &str) -> Vec<u8> {
    let path = format!("{DIR}{name}");
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (the shared samples are required)"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).unwrap();
    out
}

fn import(name: &str, json: &[u8]) -> Trace {
    let t = loupe_core::import::import_bytes(
        name.trim_end_matches(".gz"),
        json,
        &mut loupe_core::import::NoProgress,
    )
    .unwrap();
    t.validate().unwrap();
    t
}

/// A decimal µs text → ns, extra digits floored (the file's own text, no float).
fn ns(text: &str) -> i64 {
    let t = text.trim().trim_matches('"');
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    assert!(!frac.contains(['e', 'E']) && !int.contains(['e', 'E']), "exponent in {text}");
    let mut f: String = frac.chars().take(3).collect();
    while f.len() < 3 {
        f.push('0');
    }
    let v = int.parse::<i64>().unwrap() * 1000 + f.parse::<i64>().unwrap();
    let rest_nonzero = frac.chars().skip(3).any(|c| c != '0');
    if neg {
        -v - i64::from(rest_nonzero)
    } else {
        v
    }
}

#[derive(serde::Deserialize)]
struct Ev<'a> {
    #[serde(default)]
    ph: Option<String>,
    #[serde(default)]
    cat: Option<String>,
    #[serde(borrow, default)]
    pid: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tid: Option<&'a RawValue>,
    #[serde(borrow, default)]
    ts: Option<&'a RawValue>,
    #[serde(borrow, default)]
    dur: Option<&'a RawValue>,
}

#[derive(serde::Deserialize)]
struct File<'a> {
    #[serde(borrow, rename = "traceEvents")]
    events: Vec<Ev<'a>>,
}

fn union_len(mut v: Vec<(i64, i64)>) -> i64 {
    v.sort_unstable();
    let (mut total, mut cur): (i64, Option<(i64, i64)>) = (0, None);
    for (s, e) in v {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    total + cur.map_or(0, |(s, e)| e - s)
}

/// (pid, tid) as their JSON text.
type Stream = (String, String);

/// Per (pid, tid) of the device activities: the union of kernels + memcpys + memsets, and
/// whether the stream also has annotation ranges.
fn independent_busy(json: &[u8]) -> BTreeMap<Stream, (i64, bool)> {
    let f: File = serde_json::from_slice(json).unwrap();
    let mut by: BTreeMap<Stream, (Vec<(i64, i64)>, bool)> = BTreeMap::new();
    for e in &f.events {
        let (Some(cat), Some(pid), Some(tid)) = (e.cat.as_deref(), e.pid, e.tid) else { continue };
        let key = (pid.get().to_string(), tid.get().to_string());
        match cat {
            "kernel" | "gpu_memcpy" | "gpu_memset" if e.ph.as_deref() == Some("X") => {
                let s = ns(e.ts.unwrap().get());
                let d = e.dur.map_or(0, |d| ns(d.get())).max(0);
                by.entry(key).or_default().0.push((s, s + d));
            }
            "gpu_user_annotation" => by.entry(key).or_default().1 = true,
            _ => {}
        }
    }
    by.into_iter().filter(|(_, v)| !v.0.is_empty()).map(|(k, (v, a))| (k, (union_len(v), a))).collect()
}

/// Busy of every GPU stream track over the whole profile, by the Overall Summary's index.
fn summary_busy(t: &Trace) -> Vec<(String, i64)> {
    let ix = WindowIndex::build(t);
    let s = ix.window(t, t.start_ns, t.end_ns, None);
    s.tracks
        .iter()
        .filter(|w| t.tracks[w.track.idx()].role == TrackRole::GpuStream && w.busy_ns > 0)
        .map(|w| (t.track_label(TrackId(w.track.0)), w.busy_ns))
        .collect()
}

#[test]
fn stream_busy_is_the_union_of_kernels_and_memory_ops() {
    for name in WITH_ANNOTATIONS {
        let json = read(name);
        let want = independent_busy(&json);
        assert!(want.values().any(|v| v.1), "{name}: no stream with annotation ranges");
        let t = import(name, &json);
        let got = summary_busy(&t);
        let mut a: Vec<i64> = want.values().map(|v| v.0).collect();
        let mut b: Vec<i64> = got.iter().map(|g| g.1).collect();
        a.sort_unstable();
        b.sort_unstable();
        println!("{name}: independent {a:?}, Overall Summary {got:?}");
        assert_eq!(b, a, "{name}: busy per GPU stream");
    }
}

#[test]
fn summary_breakdown_and_dashboard_show_one_busy() {
    for name in WITH_ANNOTATIONS {
        let json = read(name);
        let t = import(name, &json);
        let streams = summary_busy(&t);
        let g = gpu_analysis(&t, &GpuOptions::default()).unwrap();
        assert_eq!(g.definitions, Definitions::Loupe);
        assert_eq!(g.temporal_breakdown.ranks.len(), 1, "{name}");
        let r = &g.temporal_breakdown.ranks[0].temporal;
        assert_eq!(r.busy_ns, r.kernel_ns - r.idle_ns);
        let dash = DlprofIndex::build(&t).dashboard(None);
        assert_eq!(dash.devices.len(), 1, "{name}");
        // one device: the Breakdown's busy and the Dashboard's are the same union
        assert_eq!(dash.gpu_busy_ns, r.busy_ns, "{name}: Dashboard busy vs GPU Breakdown busy");
        let max = streams.iter().map(|s| s.1).max().unwrap();
        let sum: i64 = streams.iter().map(|s| s.1).sum();
        assert!(max <= r.busy_ns && r.busy_ns <= sum, "{name}: {max} ≤ {} ≤ {sum}", r.busy_ns);
        if streams.len() == 1 {
            // one stream: the Overall Summary's busy and utilisation are the same numbers
            assert_eq!(streams[0].1, r.busy_ns, "{name}: Overall Summary busy vs GPU Breakdown busy");
            let window = t.end_ns - t.start_ns;
            let util = streams[0].1 as f64 / window as f64 * 100.0;
            assert_eq!(dash.window_ns, window);
            assert!((dash.gpu_utilisation_percent - util).abs() < 1e-9, "{name}: utilisation");
        }
        // HTA's numbers are computed by its rules and shown under its labels
        let h = gpu_analysis(&t, &GpuOptions::hta()).unwrap();
        assert_eq!(h.definitions, Definitions::Hta);
        println!(
            "{name}: busy {} (summary streams {streams:?}), utilisation {:.2} %, HTA busy {} (whole µs, last step dropped)",
            r.busy_ns, dash.gpu_utilisation_percent, h.temporal_breakdown.ranks[0].temporal.busy_ns
        );
    }
    // the single-stream case is covered by a sample
    let json = read(WITH_ANNOTATIONS[0]);
    assert_eq!(summary_busy(&import(WITH_ANNOTATIONS[0], &json)).len(), 1);
}

#[test]
fn communication_beyond_nccl_and_hta_parity_of_the_rule() {
    // the nccl sample's NCCL kernels are communication under both rules
    let name = "hta__nccl_parser_config_nccl_data.json.gz";
    let t = import(name, &read(name));
    let comm = |d: &GpuOptions| gpu_analysis(&t, d).unwrap().comm_comp_overlap[0].comm_ns;
    let (loupe, hta) = (
        comm(&GpuOptions::default()),
        comm(&GpuOptions { hta_rounding: false, drop_last_step: false, ..GpuOptions::hta() }),
    );
    assert!(loupe > 0 && loupe == hta, "{loupe} vs {hta}");
}

#[test]
fn kernel_classification_table() {
    use TensorCore::{No, Unknown, Yes};
    // (name, tensor core, communication): real names from the shared traces, then current hardware
    let table: &[(&str, TensorCore, bool)] = &[
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", No, true),
        ("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", No, true),
        ("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", No, true),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", No, false),
        ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float>>", No, false),
        ("volta_sgemm_128x32_nt", No, false),
        ("ampere_sgemm_128x64_nn", No, false),
        ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)", Yes, false),
        ("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1", Yes, false),
        ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_32x4_nhwc_align4>", Yes, false),
        ("cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", No, false),
        ("void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>)", No, false),
        ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1", Yes, false),
        ("triton_poi_fused_add_cos_sin_0", No, false),
        ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>", No, false),
        ("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", No, false),
        ("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>", Unknown, false),
        // current hardware: Blackwell FP4/FP8 GEMMs, Hopper, vLLM / SGLang communication
        ("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x128x256_s3_et128x64_m256x128x32_cga1x1x1_16dp256b_rM_TN_transOut_schedS_bN_biasN_sm100f", Yes, false),
        ("bmm_E4m3_E4m3E4m3_Fp32_t128x128x128_s4_et64x128_m128x128x32_cga1x1x1_16dp256b_rM_TN_transOut_sm100f", Yes, false),
        ("nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT", Yes, false),
        ("multimem_all_reduce_kernel", No, true),
        ("cross_device_reduce_1stage<__nv_bfloat16, 8>", No, true),
        ("void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>", No, true),
        ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", No, true),
        ("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", No, true),
        ("void sglang::custom_all_reduce::one_shot_all_reduce<bf16>", No, true),
        ("nvshmemi_alltoall_kernel", No, true),
        ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8", Yes, false),
        ("void rcclKernel_AllReduce_RING_LL_Sum_bf16", No, true),
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", Yes, false),
        ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", Yes, false),
        ("volta_h884gemm_64x64_ldg8_nn", Yes, false),
        ("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>", Yes, false),
        ("void at::native::elementwise_kernel<128, 2>", No, false),
        ("my_team_fused_rope_quant_kernel", Unknown, false),
    ];
    for &(name, tc, comm) in table {
        assert_eq!(tensor_core(name), tc, "tensor core: {name}");
        assert_eq!(is_communication(name), comm, "communication: {name}");
    }
    // HTA's rule, kept for parity, types the all-reduce as computation
    use loupe_core::analysis::gpu::{kernel_type, loupe_kernel_type, KernelType};
    use loupe_core::model::GpuWork;
    assert_eq!(kernel_type("multimem_all_reduce_kernel"), KernelType::Computation);
    assert_eq!(
        loupe_kernel_type(Some(GpuWork::Kernel), "multimem_all_reduce_kernel"),
        KernelType::Communication
    );
    assert_eq!(loupe_kernel_type(Some(GpuWork::Memcpy), "anything"), KernelType::Memory);
    assert_eq!(loupe_kernel_type(Some(GpuWork::Annotation), "x"), KernelType::Other);
}
