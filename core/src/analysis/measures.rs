//! One meaning per word. Every measure a widget, the CLI or an export shows — busy, active, idle,
//! kernel time, compute, communication, memory, waiting, instruction time, utilisation, MFU/HFU —
//! is defined here once, with the name a user sees, the text a hover shows, and the reference tool
//! whose definition it matches (or the reason it differs). Widgets show [`Definition::text`] as the
//! `title` of the number's header; `docs/measures.md` lists the same table (a test keeps them equal).
//!
//! Rules:
//! - The same label never names two computations. Where two definitions are both useful they get
//!   two labels ("kernel time" vs "busy incl. annotations"; "MFU while it runs" vs "MFU over the
//!   profile").
//! - Where a reference tool defines the word (neuron-profile, HTA), the number equals the tool's,
//!   or it has another label.
//!
//! The computations live in the analysis modules; each cites its [`Definition`] by constant.

/// What a measure means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definition {
    /// Stable key (CLI JSON, `data-metric` hooks, docs anchors).
    pub key: &'static str,
    /// The label a user reads.
    pub label: &'static str,
    /// The definition, one hover away.
    pub text: &'static str,
    /// The reference tool whose definition this matches, if any.
    pub reference: Option<&'static str>,
}

// --- Neuron engines ---
// An engine is one instruction stream (TensorMatrix counts for Tensor, every NeuronCore of the
// profile together). Computed in `analysis::summary` (windows: Overall Summary, Current Selection,
// box selection, annotation intervals) and, for the whole profile of a device profile, taken from
// `analysis::device_summary` (neuron-profile's own definitions, checked on 92 captures).

/// Instructions of an engine.
pub const ENGINE_INSTRUCTIONS: Definition = Definition {
    key: "instruction_count",
    label: "instructions",
    text: "Instructions the engine executed (overlapping the window), semaphore waits (EVENT_SEMAPHORE) \
           included. neuron-profile: <engine>_engine_instruction_count.",
    reference: Some("neuron-profile"),
};

/// Summed instruction durations, waits left out.
pub const ENGINE_INSTRUCTION_TIME: Definition = Definition {
    key: "instruction_time",
    label: "instruction time",
    text: "Sum of the durations of the engine's instructions, semaphore waits (EVENT_SEMAPHORE) left \
           out; instructions that overlap add up. neuron-profile: <engine>_engine_instruction_time.",
    reference: Some("neuron-profile"),
};

/// Union of the executing instructions.
pub const ENGINE_ACTIVE_TIME: Definition = Definition {
    key: "active_time",
    label: "active time",
    text: "Time the engine was executing at least one instruction: the union of its instruction \
           intervals, semaphore waits (EVENT_SEMAPHORE) left out. neuron-profile: \
           <engine>_engine_active_time.",
    reference: Some("neuron-profile"),
};

/// Active time over the window.
pub const ENGINE_ACTIVE_PERCENT: Definition = Definition {
    key: "active_pct",
    label: "active %",
    text: "Active time over the window's length. For the whole profile the length is the execution \
           time the runtime reports (neuron-profile's total_time), so the figure is neuron-profile's \
           <engine>_engine_active_time_percent × 100.",
    reference: Some("neuron-profile"),
};

/// Semaphore waits, apart from executing.
pub const ENGINE_WAITING: Definition = Definition {
    key: "waiting",
    label: "waiting",
    text: "Time the engine sat in a semaphore wait (an EVENT_SEMAPHORE instruction) while executing \
           nothing else. Not active time: neuron-profile does not count it. Active + waiting + idle \
           = the window.",
    reference: None,
};

/// MFU of an operator over its own time.
pub const MFU_WHILE_IT_RUNS: Definition = Definition {
    key: "mfu_while_it_runs",
    label: "MFU while it runs",
    text: "FLOPs of the row's Tensor-engine instructions / (peak Tensor-engine FLOP/s × the row's own \
           Tensor-engine instruction time): how well it used the PE array while it ran, not its share \
           of the profile. Peak = 2 × PE rows × PE columns × PE clock of the instance type.",
    reference: None,
};

/// MFU of an operator over the whole profile.
pub const MFU_OVER_THE_PROFILE: Definition = Definition {
    key: "mfu_over_profile",
    label: "MFU over the profile",
    text: "FLOPs of the row's Tensor-engine instructions / (peak Tensor-engine FLOP/s × the profile's \
           execution time, neuron-profile's total_time). Over every row (transposes included) it adds \
           up to neuron-profile's hfu_estimated_percent.",
    reference: Some("neuron-profile"),
};

/// Every definition, in the order the docs list them.
pub fn all() -> &'static [&'static Definition] {
    ALL
}

/// `docs/measures.md`: every definition as a table (key, label, definition, reference), the text
/// a hover shows. `core/tests/measures_doc.rs` keeps the file equal to this.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Measures\n\n\
         Every number Loupe shows in a summary, a table, the CLI or an export is one of these, defined \
         once in `core/src/analysis/measures.rs`; each header's hover shows the same text. Where a \
         reference tool defines the word, Loupe's number equals the tool's, or it has another name.\n\n\
         Generated from the code: `LOUPE_BLESS=1 cargo test -p loupe-core --test measures_doc` rewrites it.\n\n\
         | key | label | definition | reference |\n|---|---|---|---|\n",
    );
    for d in all() {
        let cell = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            d.key,
            cell(d.label),
            cell(d.text),
            d.reference.unwrap_or("— (Loupe's own)")
        ));
    }
    out
}

/// The definition with this key.
pub fn by_key(key: &str) -> Option<&'static Definition> {
    ALL.iter().copied().find(|d| d.key == key)
}

// --- GPU ---

/// Busy time of a GPU stream (or of a device: the union over its streams).
pub const GPU_BUSY: Definition = Definition {
    key: "busy_ns",
    label: "busy",
    text: "Time at least one slice was running, inside the window. On a GPU stream only kernels, \
           memory copies and memory sets count (the union of their intervals); annotation ranges \
           (gpu_user_annotation), sync and event markers are context, not work. On a Neuron engine \
           track only executing instructions count: semaphore waits (EVENT_SEMAPHORE) are waiting, \
           so a track's busy is its active time. Other tracks: the union of all their slices.",
    reference: None,
};
/// busy / window.
pub const GPU_UTILISATION: Definition = Definition {
    key: "utilisation_pct",
    label: "utilisation",
    text: "busy ÷ the window's length (per device, averaged over devices): the share of the window \
           when the GPU ran a kernel, memory copy or memory set. Annotation ranges do not count.",
    reference: None,
};
/// window − busy.
pub const GPU_IDLE: Definition = Definition {
    key: "idle_ns",
    label: "idle",
    text: "The window's length − busy: no kernel, memory copy or memory set running (100 % − \
           utilisation).",
    reference: None,
};
/// First GPU work start → last GPU work end (HTA's "kernel time").
pub const GPU_SPAN: Definition = Definition {
    key: "gpu_span_ns",
    label: "GPU span",
    text: "From the start of the first kernel / memory op of a rank to the end of its last one. \
           HTA calls this \"kernel time\"; it is not the time kernels ran (see busy).",
    reference: Some("HTA temporal breakdown: kernel_time"),
};
/// GPU span − busy.
pub const GPU_IDLE_IN_SPAN: Definition = Definition {
    key: "idle_in_span_ns",
    label: "idle in GPU span",
    text: "GPU span − busy: gaps between the first and the last kernel / memory op of a rank \
           (percent of the GPU span). HTA's \"idle time\"; differs from idle, which is over the \
           whole window.",
    reference: Some("HTA temporal breakdown: idle_time"),
};
/// Summed kernel durations.
pub const KERNEL_TIME: Definition = Definition {
    key: "kernel_time_ns",
    label: "kernel time",
    text: "Sum of the durations of the kernels (memory copies and sets excluded); overlapping \
           kernels on several streams count each. Not busy (a union), not HTA's \"kernel time\" \
           (the GPU span).",
    reference: None,
};
/// Union of computation kernels.
pub const GPU_COMPUTE: Definition = Definition {
    key: "compute_ns",
    label: "compute",
    text: "Union of the kernels that are neither communication nor memory ops. Default rules: \
           communication = NCCL / RCCL / NVSHMEM kernels, multimem_*, cross_device_reduce, custom \
           all-reduce, all_gather / reduce_scatter / all_to_all families; HTA's rules (\
           --definitions hta) count only ^nccl.*Kernel as communication.",
    reference: None,
};
/// Union of communication kernels.
pub const GPU_COMMUNICATION: Definition = Definition {
    key: "communication_ns",
    label: "communication",
    text: "Union of the communication kernels (see compute for the rules).",
    reference: None,
};
/// Union of memory copies and sets.
pub const GPU_MEMORY: Definition = Definition {
    key: "memory_ns",
    label: "memory",
    text: "Union of the memory copies and memory sets (typed by the importer from the trace's own \
           activity kind, not from names).",
    reference: None,
};
/// Non-compute, HTA's remainder.
pub const GPU_NON_COMPUTE: Definition = Definition {
    key: "non_compute_ns",
    label: "non-compute",
    text: "GPU span − compute − idle in GPU span: communication and memory time not overlapped \
           by compute (HTA's non-compute time).",
    reference: Some("HTA temporal breakdown: non_compute_time"),
};
/// Union of tensor-core kernels.
pub const TENSOR_CORE_TIME: Definition = Definition {
    key: "tensor_core_ns",
    label: "tensor-core time",
    text: "Union of the kernels recognised as tensor-core (or AMD matrix-core) kernels by their \
           name family: HMMA/IMMA/WMMA/XMMA/GMMA/WGMMA/tcgen05, cuBLAS tile shapes (884, 1688, \
           16816…), nvjet, cutlass / bmm / gemm kernels with an FP4/FP8/BF16/FP16/TF32/INT8 type, \
           flash/fused attention, MFMA. Kernels it cannot tell are counted apart as unknown, never \
           as \"not tensor core\".",
    reference: None,
};
/// Union of kernels it cannot classify.
pub const TENSOR_CORE_UNKNOWN: Definition = Definition {
    key: "tensor_core_unknown_ns",
    label: "tensor core unknown",
    text: "Union of the kernels whose name says neither that they use tensor cores nor that they \
           do not (custom kernels, generic Triton kernels).",
    reference: None,
};
/// Comm ∩ compute / comm.
pub const COMM_COMPUTE_OVERLAP: Definition = Definition {
    key: "comm_overlap_pct",
    label: "communication overlapped",
    text: "Time communication kernels run together with compute kernels ÷ communication time.",
    reference: Some("HTA get_comm_comp_overlap"),
};
/// Dashboard: neither GPU nor CPU busy.
pub const NEITHER_GPU_NOR_CPU: Definition = Definition {
    key: "neither_ns",
    label: "neither GPU nor CPU",
    text: "The window − (GPU busy ∪ CPU ops and runtime calls): time when neither the GPU nor the \
           host did recorded work. Smaller than idle, which counts CPU-only time too.",
    reference: None,
};

// --- end GPU ---

// --- ranks (analysis::ranks) ---

/// Communication not hidden by compute.
pub const EXPOSED_COMMUNICATION: Definition = Definition {
    key: "exposed_comm_ns",
    label: "exposed communication",
    text: "Union of a rank's communication kernels minus the part of it during which a compute \
           kernel of the same rank runs: communication not overlapped by compute (memory copies \
           neither hide it nor count). TraceLens' exposed comm.",
    reference: Some("TraceLens exposed_comm"),
};
/// A rank's time of one iteration.
pub const STEP_TIME: Definition = Definition {
    key: "step_ns",
    label: "step time",
    text: "The duration of the rank's ProfilerStep#k slice on its host (CPU) tracks, as recorded \
           (the earliest one when a rank has several of the same k); on a Neuron rank (one NTFF per \
           NeuronCore) its NEFF execution, iteration 0: first start to last end of its engine \
           instructions and DMA packets. A ranks × iterations heatmap colours it from the shortest \
           to the longest step of the profile.",
    reference: None,
};
/// The shift applied to a rank's clock.
pub const CLOCK_OFFSET: Definition = Definition {
    key: "offset_ns",
    label: "clock offset",
    text: "Added to every recorded time of a rank to align it with the reference rank (the lowest \
           rank number, offset 0): by the start of ProfilerStep#k or a Neuron rank's k-th NEFF \
           execution (reference start − the rank's), \
           or by the end of the n-th complete collective (reference end − the rank's). A view \
           setting: the files' own times are unchanged.",
    reference: None,
};
/// Arrival skew of a collective instance.
pub const COLLECTIVE_SKEW: Definition = Definition {
    key: "start_skew_ns",
    label: "arrival skew",
    text: "For one collective instance (the kernels of one process group and name with the same \
           occurrence index on every rank): latest start − earliest start over the ranks that have \
           it, on the chosen clock alignment.",
    reference: None,
};
/// How late a rank arrives at collectives.
pub const MEAN_LATENESS: Definition = Definition {
    key: "mean_lateness_ns",
    label: "mean lateness",
    text: "Mean over the complete collective instances a rank takes part in of (its start − the \
           instance's earliest start), to the nearest ns. The rank with the latest start of an \
           instance (skew > 0) arrived last.",
    reference: None,
};
/// Algorithmic bandwidth of a collective instance.
pub const COLLECTIVE_ALGBW: Definition = Definition {
    key: "algbw_gbps",
    label: "algorithmic bandwidth",
    text: "Message bytes (In msg nelems × the dtype's size, one rank's input) ÷ the shortest \
           duration among the ranks (the one that waited least), in GB/s. TraceLens' algo bw.",
    reference: Some("TraceLens NcclAnalyser"),
};

// --- end ranks ---

// --- critical path (analysis::critical_path) ---

const HTA_CP: Option<&str> = Some("HTA 0.5.0 critical_path_analysis + summary()");

pub const CRITICAL_PATH: Definition = Definition {
    key: "critical_path",
    label: "critical path",
    text: "Length of the longest chain of dependent work in the window (HTA's critical path): CPU operators in \
           order on their thread, launch → kernel, kernel → kernel on a stream, and CUDA synchronisation. Sum of \
           the chain's operator, kernel and delay times, in HTA's whole µs.",
    reference: HTA_CP,
};

pub const CP_CPU_BOUND: Definition = Definition {
    key: "cp_cpu_bound",
    label: "cpu_bound",
    text: "Share of the critical path spent in CPU operators and CUDA runtime calls (HTA's cpu_bound).",
    reference: HTA_CP,
};

pub const CP_GPU_COMPUTE_BOUND: Definition = Definition {
    key: "cp_gpu_compute_bound",
    label: "gpu_compute_bound",
    text:
        "Share of the critical path spent in GPU kernels, copies and sets other than NCCL collectives (HTA's \
           gpu_compute_bound).",
    reference: HTA_CP,
};

pub const CP_GPU_COMMUNICATION_BOUND: Definition = Definition {
    key: "cp_gpu_communication_bound",
    label: "gpu_communication_bound",
    text:
        "Share of the critical path spent in NCCL kernels (name ^nccl…Kernel; HTA's gpu_communication_bound).",
    reference: HTA_CP,
};

pub const CP_LAUNCH_OVERHEAD: Definition = Definition {
    key: "cp_gpu_kernel_launch_overhead",
    label: "gpu_kernel_launch_overhead",
    text: "Share of the critical path between a launch call's start and its kernel's start, where the stream was \
           idle at the launch (HTA's gpu_kernel_launch_overhead).",
    reference: HTA_CP,
};

pub const CP_KERNEL_KERNEL_OVERHEAD: Definition = Definition {
    key: "cp_gpu_kernel_kernel_overhead",
    label: "gpu_kernel_kernel_overhead",
    text:
        "Share of the critical path in gaps between consecutive kernels on one stream, where the next kernel \
           was already queued (HTA's gpu_kernel_kernel_overhead).",
    reference: HTA_CP,
};

// --- end critical path ---

static ALL: &[&Definition] = &[
    // --- GPU ---
    &GPU_BUSY,
    &GPU_UTILISATION,
    &GPU_IDLE,
    &GPU_SPAN,
    &GPU_IDLE_IN_SPAN,
    &KERNEL_TIME,
    &GPU_COMPUTE,
    &GPU_COMMUNICATION,
    &GPU_MEMORY,
    &GPU_NON_COMPUTE,
    &TENSOR_CORE_TIME,
    &TENSOR_CORE_UNKNOWN,
    &COMM_COMPUTE_OVERLAP,
    &NEITHER_GPU_NOR_CPU,
    // --- end GPU ---
    // --- ranks ---
    &EXPOSED_COMMUNICATION,
    &COLLECTIVE_SKEW,
    &STEP_TIME,
    &CLOCK_OFFSET,
    &MEAN_LATENESS,
    &COLLECTIVE_ALGBW,
    // --- end ranks ---
    // --- Neuron engines ---
    &ENGINE_INSTRUCTIONS,
    &ENGINE_INSTRUCTION_TIME,
    &ENGINE_ACTIVE_TIME,
    &ENGINE_ACTIVE_PERCENT,
    &ENGINE_WAITING,
    &MFU_WHILE_IT_RUNS,
    &MFU_OVER_THE_PROFILE,
    // --- critical path ---
    &CRITICAL_PATH,
    &CP_CPU_BOUND,
    &CP_GPU_COMPUTE_BOUND,
    &CP_GPU_COMMUNICATION_BOUND,
    &CP_LAUNCH_OVERHEAD,
    &CP_KERNEL_KERNEL_OVERHEAD,
    // --- end critical path ---
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_labels_are_unique() {
        let mut keys: Vec<_> = all().iter().map(|d| d.key).collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "duplicate measure key");
        let mut labels: Vec<_> = all().iter().map(|d| d.label).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), n, "two measures share a label");
    }
}
