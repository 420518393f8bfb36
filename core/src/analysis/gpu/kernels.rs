//! What a GPU kernel is, from its name: tensor-core use (three-valued), numeric precision, and
//! communication. Kineto and Nsight Systems record no tensor-core flag and no collective type
//! for a kernel, so the name families the libraries use are the evidence; where a name says
//! nothing, the answer is [`TensorCore::Unknown`], never "no".
//!
//! Families recognised (lower-cased name):
//! - **Tensor core / matrix core** ([`TensorCore::Yes`]): MMA instruction names (`hmma`, `imma`,
//!   `qmma`, `wmma`, `xmma`, `gmma`, `wgmma`, `tcgen05`, `umma`, AMD `mfma`), cuBLAS/cuDNN tile
//!   shapes (`884`, `1688`, `16816`, `16832`, `8816`), cutlass `tensorop`, cuBLASLt's `nvjet`
//!   (Hopper/Blackwell GEMMs), `sm90_`/`sm100_` `xmma` kernels, flash / fused attention
//!   (`flash`, `fmha`), Tensile `Cijk_…_MI…` (MFMA instruction tiles), and a GEMM-like kernel
//!   (`gemm`, `bmm_`, `cutlass`, `matmul`, `_mm_`) whose name carries a tensor-core type
//!   (FP4 `e2m1`/`fp4`, FP8 `e4m3`/`e5m2`/`fp8`, `bf16`, `f16`/`fp16`/`half`, `tf32`, `int8`/`i8`).
//! - **Not tensor core** ([`TensorCore::No`]): FP32/FP64 SIMT GEMMs (`sgemm`, `dgemm`, `simt`),
//!   Tensile `Cijk_` kernels without `MI` tiles, communication kernels, and the element-wise,
//!   reduction, normalisation, copy and indexing families of PyTorch, Triton (`triton_poi`,
//!   `triton_red`, `triton_per`) and the inference engines (activations, rotary, KV cache).
//! - **Unknown**: anything else (custom kernels, Triton templates, `gemm` without a type).
//!
//! **Communication** (default rules): NCCL (`nccl…Kernel`, `ncclDevKernel_…`), RCCL, MSCCL(++),
//! NVSHMEM, `multimem_*`, `cross_device_reduce*` and the vLLM / SGLang / TensorRT-LLM custom
//! all-reduce (`custom_all_reduce`, `one_shot`/`two_shot` all-reduce, `lamport`), and the
//! `all_reduce` / `allreduce`, `all_gather`, `reduce_scatter`, `all_to_all` / `alltoall` families.
//! HTA's rule (`^nccl.*Kernel`) is [`super::kernel_type`].

/// Whether a kernel uses tensor (or matrix) cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TensorCore {
    Yes,
    No,
    /// The name says neither.
    Unknown,
}

impl TensorCore {
    pub fn label(self) -> &'static str {
        match self {
            TensorCore::Yes => "tensor core",
            TensorCore::No => "not tensor core",
            TensorCore::Unknown => "unknown",
        }
    }
}

/// The numeric type a kernel's name states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Precision {
    Fp4,
    Fp8,
    Int8,
    Bf16,
    Fp16,
    Tf32,
    Fp32,
    Fp64,
}

impl Precision {
    pub fn label(self) -> &'static str {
        match self {
            Precision::Fp4 => "FP4",
            Precision::Fp8 => "FP8",
            Precision::Int8 => "INT8",
            Precision::Bf16 => "BF16",
            Precision::Fp16 => "FP16",
            Precision::Tf32 => "TF32",
            Precision::Fp32 => "FP32",
            Precision::Fp64 => "FP64",
        }
    }
    /// Whether this type runs on tensor cores when a GEMM uses it.
    pub fn is_reduced(self) -> bool {
        !matches!(self, Precision::Fp32 | Precision::Fp64)
    }
}

/// Tokens of the name: runs of ASCII letters and digits.
fn tokens(l: &str) -> impl Iterator<Item = &str> {
    l.split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty())
}

/// The narrowest numeric type the (lower-cased) name states, if any.
fn precision_of(l: &str) -> Option<Precision> {
    let has = |p: &[&str]| p.iter().any(|x| l.contains(x));
    let tok = |p: &[&str]| tokens(l).any(|t| p.contains(&t));
    if has(&["e2m1", "fp4", "nvf4", "mxf4", "e2m3", "e3m2", "fp6"]) {
        Some(Precision::Fp4)
    } else if has(&["e4m3", "e5m2", "fp8", "f8f6f4", "qmma"]) {
        Some(Precision::Fp8)
    } else if has(&["bf16", "bfloat16"]) {
        Some(Precision::Bf16)
    } else if has(&["int8", "imma", "i8i8", "s8s8"]) || tok(&["i8", "s8"]) {
        Some(Precision::Int8)
    } else if has(&["tf32"]) {
        Some(Precision::Tf32)
    } else if has(&["fp16", "f16", "half", "hmma", "h884", "h1688", "h16816", "h8816"])
        || tok(&["hgemm", "hh", "hhs", "hss"])
    {
        Some(Precision::Fp16)
    } else if has(&["dgemm", "fp64", "f64", "double"]) {
        Some(Precision::Fp64)
    } else if has(&["sgemm", "fp32", "f32", "float"]) {
        Some(Precision::Fp32)
    } else {
        None
    }
}

/// The numeric type a kernel name states (e.g. FP4 for `bmm_E2m1…`), if any.
pub fn precision(name: &str) -> Option<Precision> {
    precision_of(&name.to_ascii_lowercase())
}

/// Whether a kernel is communication (the default rules; see the module doc).
pub fn is_communication(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    comm_lower(&l)
}

fn comm_lower(l: &str) -> bool {
    let first = l.split('\n').next().unwrap_or("");
    (first.starts_with("nccl") && first.contains("kernel"))
        || [
            "rccl",
            "msccl",
            "nvshmem",
            "multimem_",
            "cross_device_reduce",
            "custom_all_reduce",
            "customallreduce",
            "all_reduce",
            "allreduce",
            "all_gather",
            "allgather",
            "reduce_scatter",
            "reducescatter",
            "all_to_all",
            "alltoall",
            "all2all",
            "lamport",
        ]
        .iter()
        .any(|p| first.contains(p))
}

/// Names that say "matrix instruction" outright.
const MMA: &[&str] = &[
    "hmma", "imma", "qmma", "wmma", "xmma", "gmma", "wgmma", "tcgen05", "umma", "mfma", "tensorop", "nvjet",
];
/// cuBLAS / cuDNN tile shapes of tensor-core kernels (`volta_h884gemm`, `ampere_s16816gemm`).
const TILES: &[&str] = &["884", "1688", "16816", "16832", "8816"];
/// Attention kernels built on tensor cores.
const ATTENTION: &[&str] = &["flash", "fmha", "fused_mha", "attn_fwd", "attn_bwd", "xformers"];
/// GEMM-like names: with a tensor-core type they are tensor-core GEMMs.
const GEMM: &[&str] = &["gemm", "bmm_", "cutlass", "matmul", "_mm_", "gemv", "conv", "wgrad", "dgrad"];
/// Families that never use tensor cores.
const NOT_TC: &[&str] = &[
    "elementwise",
    "vectorized",
    "unrolled",
    "reduce_kernel",
    "reduction",
    "softmax",
    "layer_norm",
    "layernorm",
    "rms_norm",
    "rmsnorm",
    "group_norm",
    "batch_norm",
    "batchnorm",
    "copy",
    "fill",
    "index",
    "scatter",
    "gather",
    "cat_array",
    "catarray",
    "embedding",
    "arange",
    "random",
    "philox",
    "dropout",
    "triton_poi",
    "triton_red",
    "triton_per",
    "act_and_mul",
    "silu",
    "gelu",
    "relu",
    "sigmoid",
    "tanh",
    "rotary",
    "reshape_and_cache",
    "topk",
    "sort",
    "radix",
    "cumsum",
    "scan",
    "argmax",
    "sampling",
    "memcpy",
    "memset",
    "transpose",
    "permute",
    "im2col",
    "pool",
    "upsample",
    "loss",
    "adam",
    "sgd",
    "optimizer",
    "multi_tensor_apply",
];

/// Whether a kernel uses tensor cores, from its name (see the module doc).
pub fn tensor_core(name: &str) -> TensorCore {
    let l = name.to_ascii_lowercase();
    let has = |p: &[&str]| p.iter().any(|x| l.contains(x));
    if comm_lower(&l) {
        return TensorCore::No;
    }
    if l.starts_with("cijk_") {
        // Tensile: `_MI32x32x8` tiles are MFMA instructions; without them it is a VALU kernel
        return if l.contains("_mi") || l.contains("mfma") { TensorCore::Yes } else { TensorCore::No };
    }
    if has(&["sgemm", "dgemm", "simt"]) && !has(MMA) {
        return TensorCore::No;
    }
    if has(MMA) || has(TILES) || has(ATTENTION) {
        return TensorCore::Yes;
    }
    let p = precision_of(&l);
    if has(GEMM) {
        return match p {
            Some(p) if p.is_reduced() => TensorCore::Yes,
            Some(_) => TensorCore::No,
            None => TensorCore::Unknown,
        };
    }
    if has(NOT_TC) {
        return TensorCore::No;
    }
    TensorCore::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        use TensorCore::*;
        for (name, tc, comm) in [
            ("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x128x256_s3_et128x64_m256x128x32_cga1x1x1_16dp256b_rM_TN_transOut_schedS_bN_biasN_sm100f", Yes, false),
            ("nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT", Yes, false),
            ("multimem_all_reduce_kernel", No, true),
            ("cross_device_reduce_1stage<__nv_bfloat16, 8>", No, true),
            ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", No, true),
            ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", Yes, false),
            ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", Yes, false),
            ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", Yes, false),
            ("volta_h884gemm_64x64_ldg8_nn", Yes, false),
            ("void at::native::elementwise_kernel<128, 2>(int, at::native::gpu_kernel_impl)", No, false),
            ("my_custom_fused_op_kernel", Unknown, false),
            ("ampere_sgemm_128x64_tn", No, false),
            ("gemm_kernel", Unknown, false),
            ("Cijk_Alik_Bljk_SB_MT64x64x8_SN", No, false),
            ("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>", Yes, false),
        ] {
            assert_eq!(tensor_core(name), tc, "{name}");
            assert_eq!(is_communication(name), comm, "{name}");
        }
        assert_eq!(precision("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128"), Some(Precision::Fp4));
        assert_eq!(precision("sm90_xmma_gemm_e4m3e4m3_bf16"), Some(Precision::Fp8));
        assert_eq!(precision("volta_h884gemm_64x64"), Some(Precision::Fp16));
        assert_eq!(precision("elementwise_kernel"), None);
        // reduce_kernel is a reduction, not a collective
        assert!(!is_communication("void at::native::reduce_kernel<512, 1>"));
    }
}
