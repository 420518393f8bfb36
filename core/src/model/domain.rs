//! Domain meaning as typed data: which engine a track is, what role it plays in a device profile,
//! and per-slice optional columns (opcode, operator node, program slot, source line, DMA bytes).
//!
//! Importers and the correlation pass fill these through [`super::TraceBuilder`]; widgets, the
//! analysis module and the CLI read them. Nothing recovers meaning by matching strings in
//! `category` or in args.

use crate::strings::StrId;

/// The Neuron compute engines as profile timelines (neuron.md §5.1). `TensorMatrix` is the PE
/// array's matrix timeline; it shares the PE instruction stream (`Engine::Tensor`) in the NEFF.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    bincode::Encode,
    bincode::Decode,
)]
pub enum Engine {
    /// PE, TensorE (`pe`, `PE.bin`).
    Tensor,
    /// The PE array's matrix timeline (no instruction stream of its own).
    TensorMatrix,
    /// DVE, VectorE (`dve`, `DVE.bin`).
    Vector,
    /// ACT, Activation, ScalarE (`act`, `Activation.bin`).
    Scalar,
    /// POOL, GpSimdE (`pool`, `Pool.bin`).
    GpSimd,
    /// SP, SyncE (`sp`, `SP.bin`).
    Sync,
}

impl Engine {
    /// Every timeline, in display order.
    pub const ALL: [Engine; 6] =
        [Engine::Tensor, Engine::TensorMatrix, Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Sync];
    /// The five engines with an instruction stream in a NEFF.
    pub const STREAMS: [Engine; 5] =
        [Engine::Tensor, Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Sync];

    /// Profiler name: `Tensor`, `TensorMatrix`, `Vector`, `Scalar`, `GpSimd`, `Sync`.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Tensor => "Tensor",
            Engine::TensorMatrix => "TensorMatrix",
            Engine::Vector => "Vector",
            Engine::Scalar => "Scalar",
            Engine::GpSimd => "GpSimd",
            Engine::Sync => "Sync",
        }
    }

    /// Display order (0 = first).
    pub fn rank(self) -> i64 {
        Engine::ALL.iter().position(|&e| e == self).unwrap_or(0) as i64
    }

    /// A profile timeline label, case-insensitively, with the aliases of neuron.md §5.1
    /// (PE, ACT, DVE, POOL, SP). `TensorMatrix` stays its own timeline.
    pub fn from_timeline_label(s: &str) -> Option<Engine> {
        let l = s.trim().to_ascii_lowercase();
        Some(match l.as_str() {
            "tensormatrix" | "tensormatrixe" => Engine::TensorMatrix,
            _ => return Engine::from_alias(&l),
        })
    }

    /// The NEFF instruction stream of any known alias, case-insensitively: `pe`, `PE`, `TensorE`,
    /// `tensor`, `act`, `Activation`, `ScalarE`, `dve`, `VectorE`, `pool`, `GPSIMD`, `sp`,
    /// `SyncE`…; `TensorMatrix` maps to the PE stream (`Tensor`).
    pub fn from_alias(s: &str) -> Option<Engine> {
        let l = s.trim().to_ascii_lowercase();
        let l = l.strip_suffix(".json").or(l.strip_suffix(".bin")).unwrap_or(&l);
        Some(match l {
            "pe" | "tensor" | "tensore" | "tensorengine" | "tensor_engine" | "tensormatrix"
            | "tensormatrixe" | "tpb" => Engine::Tensor,
            "dve" | "vector" | "vectore" | "vector_engine" => Engine::Vector,
            "act" | "activation" | "scalar" | "scalare" | "scalar_engine" => Engine::Scalar,
            "pool" | "gpsimd" | "gpsimde" | "gpsimd_engine" => Engine::GpSimd,
            "sp" | "sync" | "synce" | "sync_engine" => Engine::Sync,
            _ => return None,
        })
    }

    /// The instruction stream this timeline executes (`TensorMatrix` → `Tensor`).
    pub fn stream(self) -> Engine {
        match self {
            Engine::TensorMatrix => Engine::Tensor,
            e => e,
        }
    }

    /// Engine code in the top-level field 4 of `debug_info_asm_*` / `debug_info_backend_*`
    /// files (observed: 1 PE, 2 ACT, 3 POOL, 4 DMA, 5 DVE, 6 SP).
    pub fn from_debug_code(code: u64) -> Option<Engine> {
        Some(match code {
            1 => Engine::Tensor,
            2 => Engine::Scalar,
            3 => Engine::GpSimd,
            5 => Engine::Vector,
            6 => Engine::Sync,
            _ => return None,
        })
    }

    /// Engine index used by NTFF instruction records (ntff-v5.md §3.1: PE 0, ACT 1, POOL 2,
    /// DVE 3, SP 4).
    pub fn ntff_index(self) -> u8 {
        match self.stream() {
            Engine::Scalar => 1,
            Engine::GpSimd => 2,
            Engine::Vector => 3,
            Engine::Sync => 4,
            _ => 0,
        }
    }

    pub fn from_ntff_index(i: u8) -> Option<Engine> {
        Engine::STREAMS.into_iter().find(|e| e.ntff_index() == i)
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a track is, as far as analyses care. Set by importers; `Generic` otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, bincode::Encode, bincode::Decode)]
pub enum TrackRole {
    Generic,
    /// A CPU thread of a host process.
    CpuThread,
    /// A GPU stream (Kineto, Chrome traces with device streams).
    GpuStream,
    /// The instruction timeline of one Neuron compute engine.
    Engine(Engine),
    /// DMA packets of one queue.
    DmaQueue,
    /// Aggregated DMA transfers (blocks) of one queue.
    DmaTransfers,
    /// Throttling periods.
    Throttle,
    /// Collective-communication operations of one NeuronCore (`AllGather`, `AllReduce`, … as the
    /// collective engines ran them: Explorer's `CcOp` table), one slice per operation named by
    /// its operation. `analysis::ranks` matches them across ranks. An NTFF importer's capture has
    /// none: its collective records are not decoded.
    CollectiveOps,
    /// Spans of framework / HLO operators over one kind of device work (derived from the
    /// instructions: the operator timeline, `model::builder::op_timeline`). Not device work
    /// itself: analyses that sum device time skip these tracks.
    OperatorSpans(WorkKind),
}

/// Kinds of device work, as the operator timeline splits them.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    bincode::Encode,
    bincode::Decode,
)]
pub enum WorkKind {
    /// Tensor, Vector, Scalar, GpSimd engines.
    Compute,
    /// The Sync engine.
    Control,
    /// DMA queues.
    DataTransfer,
}

impl WorkKind {
    pub fn name(self) -> &'static str {
        match self {
            WorkKind::Compute => "compute",
            WorkKind::Control => "control",
            WorkKind::DataTransfer => "data transfer",
        }
    }
}

/// What a counter measures, as far as the views care (grouping, order, folding). Set by
/// importers; `Generic` otherwise.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, bincode::Encode, bincode::Decode,
)]
pub enum CounterRole {
    #[default]
    Generic,
    /// One semaphore's value over time (Neuron device profiles).
    Semaphore,
    /// 0/1 activity of one engine (union of its instruction intervals).
    EngineActivity,
    /// DMA / HBM throughput.
    DmaThroughput,
    /// Outstanding DMA work.
    PendingDma,
    /// A utilisation or usage percentage (SBUF, PSUM, an engine's utilisation).
    Utilisation,
    /// Throttling limit.
    Throttle,
    /// Occupancy of one SBUF partition group or one PSUM bank, % (the Memory view's rows; kept
    /// with the other counters, under the device's activity rows).
    MemoryOccupancy,
}

impl CounterRole {
    /// Whether the device view puts the counter right under the engines (the useful ones).
    pub fn is_device_activity(self) -> bool {
        matches!(
            self,
            CounterRole::EngineActivity
                | CounterRole::DmaThroughput
                | CounterRole::PendingDma
                | CounterRole::Utilisation
                | CounterRole::Throttle
        )
    }
}

impl TrackRole {
    pub fn engine(self) -> Option<Engine> {
        match self {
            TrackRole::Engine(e) => Some(e),
            _ => None,
        }
    }
    pub fn is_dma(self) -> bool {
        matches!(self, TrackRole::DmaQueue | TrackRole::DmaTransfers)
    }
    /// Tracks derived from other events (the operator timeline), not recorded events:
    /// statistics over "every slice" (latency, top names) skip them so nothing counts twice.
    pub fn is_derived(self) -> bool {
        matches!(self, TrackRole::OperatorSpans(_))
    }
}

macro_rules! opt_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode, serde::Serialize)]
        pub struct $name(pub u32);
        impl $name {
            pub const NONE: $name = $name(u32::MAX);
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
            #[inline]
            pub fn is_none(self) -> bool {
                self == $name::NONE
            }
            #[inline]
            pub fn get(self) -> Option<$name> {
                (!self.is_none()).then_some(self)
            }
        }
    };
}
opt_id!(/// A node of [`OperatorTree`]; `OpId::NONE` = no operator.
    OpId);
opt_id!(/// A [`SourceLoc`] in [`Trace::sources`](super::Trace::sources); `SourceId::NONE` = none.
    SourceId);

/// Level of an operator node in the framework hierarchy.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    bincode::Encode,
    bincode::Decode,
)]
pub enum OpLevel {
    /// A framework layer / module (e.g. a PyTorch module path prefix, a Neuron `layer`).
    Layer,
    /// A framework operator (PyTorch/JAX op, Neuron `framework_name`).
    Framework,
    /// An HLO instruction.
    Hlo,
    /// A Neuron penguin (tensorizer) node.
    Penguin,
    /// A Neuron BIR instruction.
    Bir,
}

impl OpLevel {
    pub fn name(self) -> &'static str {
        match self {
            OpLevel::Layer => "layer",
            OpLevel::Framework => "operator",
            OpLevel::Hlo => "hlo",
            OpLevel::Penguin => "penguin",
            OpLevel::Bir => "bir",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, bincode::Encode, bincode::Decode)]
pub struct OpNodeRow {
    pub name: StrId,
    pub level: OpLevel,
    pub parent: OpId,
}

/// Interned operator hierarchy: one node per distinct (parent, level, name) path.
#[derive(Debug, Clone, Default, bincode::Encode, bincode::Decode)]
pub struct OperatorTree {
    pub nodes: Vec<OpNodeRow>,
}

impl OperatorTree {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    pub fn node(&self, id: OpId) -> Option<&OpNodeRow> {
        self.nodes.get(id.idx())
    }
    /// `id` and its ancestors, innermost first.
    pub fn path(&self, id: OpId) -> Vec<OpId> {
        let mut out = Vec::new();
        let mut cur = id;
        while let Some(n) = self.node(cur) {
            out.push(cur);
            if out.len() > self.nodes.len() {
                break; // defensive: a cycle cannot be built, but never loop
            }
            cur = n.parent;
        }
        out
    }
    /// The nearest ancestor-or-self at `level`.
    pub fn at_level(&self, id: OpId, level: OpLevel) -> OpId {
        self.path(id).into_iter().find(|&i| self.nodes[i.idx()].level == level).unwrap_or(OpId::NONE)
    }
}

/// A source location (file path as recorded by the producer, 1-based line; 0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, bincode::Encode, bincode::Decode)]
pub struct SourceLoc {
    pub file: StrId,
    pub line: u32,
}

/// What a slice on a GPU stream is, as the importer knows it from its own source (Kineto's
/// activity category, the Nsight Systems / rocprof table the row came from). Set once at import;
/// analyses read it instead of category strings. A slice the importer did not type has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuWork {
    /// A kernel (compute or communication: the name families tell which).
    Kernel,
    /// A memory copy (host↔device, device↔device, peer).
    Memcpy,
    /// A memory set.
    Memset,
    /// A range the user or the framework annotated on the stream (`gpu_user_annotation`): context
    /// around work, not work.
    Annotation,
    /// A synchronisation or event marker on the stream (`cuda_sync`, `cuda_event`).
    Sync,
    /// Another device activity (a profiler range, an accelerator-specific event).
    Other,
}

impl GpuWork {
    /// Every class, in code order.
    pub const ALL: [GpuWork; 6] = [
        GpuWork::Kernel,
        GpuWork::Memcpy,
        GpuWork::Memset,
        GpuWork::Annotation,
        GpuWork::Sync,
        GpuWork::Other,
    ];

    /// Work the device does: kernels, memory copies and sets (what "GPU busy" unites).
    pub fn is_work(self) -> bool {
        matches!(self, GpuWork::Kernel | GpuWork::Memcpy | GpuWork::Memset)
    }
    /// A memory copy or set.
    pub fn is_memory(self) -> bool {
        matches!(self, GpuWork::Memcpy | GpuWork::Memset)
    }
    pub fn name(self) -> &'static str {
        match self {
            GpuWork::Kernel => "kernel",
            GpuWork::Memcpy => "memcpy",
            GpuWork::Memset => "memset",
            GpuWork::Annotation => "annotation",
            GpuWork::Sync => "sync",
            GpuWork::Other => "other",
        }
    }
    /// The stored code (0 = none).
    pub fn code(w: Option<GpuWork>) -> u8 {
        match w {
            None => 0,
            Some(w) => GpuWork::ALL.iter().position(|&x| x == w).map_or(0, |p| p as u8 + 1),
        }
    }
    /// The class of a stored code (0 or unknown = none).
    pub fn from_code(c: u8) -> Option<GpuWork> {
        GpuWork::ALL.get(usize::from(c).checked_sub(1)?).copied()
    }
}

/// What a host (CPU thread) slice is, as the importer knows it from its own format (Kineto's
/// category, the Nsight Systems table the row came from). Set once at import, per category
/// ([`Trace::host_work_of`](super::Trace::host_work_of)); analyses read it instead of category
/// strings. A category the importer did not type has none: for the analyses, a framework op.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    bincode::Encode,
    bincode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum HostWork {
    /// A framework operator (Kineto `cpu_op`; `Operator` in PyTorch 1.8/1.9).
    Op,
    /// A call into the accelerator's runtime or driver API (`cudaLaunchKernel`, `cuCtxSynchronize`;
    /// Kineto `cuda_runtime` / `cuda_driver` and the other vendors' `*_runtime` / `*_driver`).
    Runtime,
    /// A call into the operating system's runtime (Nsight Systems `OSRT_API`).
    OsRuntime,
    /// A range or mark the user, the framework or a tool annotated: context around work, not work
    /// (`user_annotation`, `fwdbwd`, instant events, whole-trace spans, an overlaid critical path).
    Annotation,
    /// A Python frame (`python_function`; `Python` in PyTorch 1.8/1.9).
    Python,
}

/// The typed domain fields of one slice, as an importer sets them. Every field is optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceDomain {
    /// Instruction opcode (`MATMULT`, `DRAIN`), `StrId::EMPTY` = none.
    pub opcode: StrId,
    /// Innermost operator node this slice belongs to.
    pub operator: OpId,
    /// Instruction slot in the program (NEFF compiler pc), `u32::MAX` = none.
    pub instruction: u32,
    /// The runtime program counter the profiler recorded (NTFF / neuron-profile's `pc`: the
    /// 64-byte slot of the engine program), `u32::MAX` = none.
    pub pc: u32,
    pub source: SourceId,
    /// Bytes moved (DMA), `u64::MAX` = none.
    pub bytes: u64,
    /// Picoseconds past `start_ns` (0..=999) when the source has picosecond times (NTFF), else 0:
    /// the exact start is `start_ns * 1000 + start_sub_ps` ps. Summaries that neuron-profile
    /// computes in ps (engine busy time) need it; floored ns lose up to 3 % on short instructions.
    pub start_sub_ps: u16,
    /// Picoseconds past `dur_ns` (0..=999), likewise: the exact duration is
    /// `dur_ns * 1000 + dur_sub_ps` ps.
    pub dur_sub_ps: u16,
    /// Raw FLOPs of a Tensor-engine matrix instruction (each multiply-add counts 2), as the
    /// export states it (Parquet `raw_flops`; JSON export `2 * elements`), `u64::MAX` = none.
    pub flops: u64,
    /// The compiler inserted this matrix instruction to move data (transpose, partition
    /// broadcast): neuron-profile's `instruction_type` / `tensor_instruction_type` `TRANSPOSE`.
    pub transpose: bool,
    /// What the slice is on a GPU stream (kernel, memcpy, annotation, …), `None` = not typed.
    pub gpu_work: Option<GpuWork>,
}

impl Default for SliceDomain {
    fn default() -> Self {
        SliceDomain {
            opcode: StrId::EMPTY,
            operator: OpId::NONE,
            instruction: u32::MAX,
            pc: u32::MAX,
            source: SourceId::NONE,
            bytes: u64::MAX,
            start_sub_ps: 0,
            dur_sub_ps: 0,
            flops: u64::MAX,
            transpose: false,
            gpu_work: None,
        }
    }
}

/// The builder's domain fields of one track, by insertion index: what the executions of one
/// instruction share as a table of distinct shapes (interned as they are set, shape 0 = none)
/// with one index per slice, the rest as columns; a column stays empty while every slice has its
/// "none" value (an NTFF engine track: 8 bytes a slice while it fills, a DMA queue 12; a
/// column per field took 37). The finished track keeps them as [`DomainColumns`].
#[derive(Debug, Clone, Default)]
pub struct DomainBuild {
    len: usize,
    /// Room wanted for `len` slices and more: the capacity of a column made when first needed.
    room: usize,
    shape: Vec<u32>,
    bytes: Vec<u64>,
    start_sub_ps: Vec<u16>,
    dur_sub_ps: Vec<u16>,
    /// Shape 0 is the "none" shape (once any shape is interned).
    shapes: Vec<DomainShape>,
    index: crate::strings::FxHashMap<DomainShape, u32>,
    last: Option<(DomainShape, u32)>,
}

impl DomainBuild {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Slice `i`'s shape (0 = none).
    #[inline]
    fn shape_index(&self, i: usize) -> u32 {
        self.shape.get(i).copied().unwrap_or(0)
    }
    pub fn get(&self, i: usize) -> SliceDomain {
        let d = SliceDomain::default();
        if i >= self.len {
            return d;
        }
        let sh = self.shapes.get(self.shape_index(i) as usize).copied().unwrap_or(DomainShape::of(&d));
        sh.slice(
            self.bytes.get(i).copied().unwrap_or(d.bytes),
            self.start_sub_ps.get(i).copied().unwrap_or(d.start_sub_ps),
            self.dur_sub_ps.get(i).copied().unwrap_or(d.dur_sub_ps),
        )
    }
    /// Slice `i`'s operator and source line (what [`DomainBuild::get`] gives for them, without
    /// making the whole [`SliceDomain`]).
    pub fn operator_source(&self, i: usize) -> (OpId, SourceId) {
        if i >= self.len {
            return (OpId::NONE, SourceId::NONE);
        }
        self.shapes
            .get(self.shape_index(i) as usize)
            .map_or((OpId::NONE, SourceId::NONE), |s| (s.operator, s.source))
    }
    fn intern(&mut self, shape: DomainShape) -> u32 {
        match self.last {
            Some((l, s)) if l == shape => s,
            _ => {
                if self.shapes.is_empty() {
                    let none = DomainShape::of(&SliceDomain::default());
                    self.shapes.push(none);
                    self.index.insert(none, 0);
                }
                let next = self.shapes.len() as u32;
                let s = *self.index.entry(shape).or_insert(next);
                if s == next {
                    self.shapes.push(shape);
                }
                self.last = Some((shape, s));
                s
            }
        }
    }
    /// Set `col[i]`, making the column (every slice `none` so far) first if `v` is not `none`.
    fn put<T: Copy + PartialEq>(col: &mut Vec<T>, len: usize, room: usize, i: usize, v: T, none: T) {
        if col.is_empty() {
            if v == none {
                return;
            }
            col.reserve_exact(room.max(len));
            col.resize(len, none);
        }
        col[i] = v;
    }
    pub fn set(&mut self, i: usize, v: SliceDomain) {
        if i >= self.len {
            return;
        }
        let s = self.intern(DomainShape::of(&v));
        self.set_shaped(i, s, v.bytes, v.start_sub_ps, v.dur_sub_ps);
    }
    /// The index of `v`'s shape in this track's table (interned now if new), for
    /// [`DomainBuild::set_shaped`]: an importer that sets the same shape on many slices looks it
    /// up once.
    pub fn shape_of(&mut self, v: &SliceDomain) -> u32 {
        self.intern(DomainShape::of(v))
    }
    /// Set slice `i`'s domain fields: shape `s` (from [`DomainBuild::shape_of`] on this track;
    /// an index outside the table is ignored) and the per-slice fields.
    pub fn set_shaped(&mut self, i: usize, s: u32, bytes: u64, start_sub_ps: u16, dur_sub_ps: u16) {
        if i >= self.len || (s as usize >= self.shapes.len() && s != 0) {
            return;
        }
        let (len, room) = (self.len, self.room);
        Self::put(&mut self.shape, len, room, i, s, 0);
        Self::put(&mut self.bytes, len, room, i, bytes, u64::MAX);
        Self::put(&mut self.start_sub_ps, len, room, i, start_sub_ps, 0);
        Self::put(&mut self.dur_sub_ps, len, room, i, dur_sub_ps, 0);
    }
    /// Room for `n` more slices.
    pub fn reserve(&mut self, n: usize) {
        self.room = self.room.max(self.len + n);
        if !self.shape.is_empty() {
            self.shape.reserve(n);
        }
        if !self.bytes.is_empty() {
            self.bytes.reserve(n);
        }
        if !self.start_sub_ps.is_empty() {
            self.start_sub_ps.reserve(n);
        }
        if !self.dur_sub_ps.is_empty() {
            self.dur_sub_ps.reserve(n);
        }
    }
    /// Pad (or cut) to `n` slices, new ones without domain fields.
    pub fn resize_default(&mut self, n: usize) {
        self.len = n;
        if !self.shape.is_empty() {
            self.shape.resize(n, 0);
        }
        if !self.bytes.is_empty() {
            self.bytes.resize(n, u64::MAX);
        }
        if !self.start_sub_ps.is_empty() {
            self.start_sub_ps.resize(n, 0);
        }
        if !self.dur_sub_ps.is_empty() {
            self.dur_sub_ps.resize(n, 0);
        }
    }
    pub fn push(&mut self, v: SliceDomain) {
        self.resize_default(self.len + 1);
        self.set(self.len - 1, v);
    }
    pub fn heap_bytes(&self) -> usize {
        self.shape.capacity() * 4
            + self.bytes.capacity() * 8
            + self.start_sub_ps.capacity() * 2
            + self.dur_sub_ps.capacity() * 2
            + self.shapes.capacity() * std::mem::size_of::<DomainShape>()
            + self.index.capacity() * (std::mem::size_of::<DomainShape>() + 4)
    }
}

/// What the executions of one instruction share: the slice-invariant part of a
/// [`SliceDomain`] (all of it but `bytes` and the sub-ns picoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DomainShape {
    pub opcode: StrId,
    pub operator: OpId,
    pub instruction: u32,
    pub pc: u32,
    pub source: SourceId,
    pub flops: u64,
    pub transpose: bool,
    pub gpu_work: Option<GpuWork>,
}

impl DomainShape {
    /// A slice's fields: this shape with its own bytes and picoseconds.
    fn slice(self, bytes: u64, start_sub_ps: u16, dur_sub_ps: u16) -> SliceDomain {
        SliceDomain {
            opcode: self.opcode,
            operator: self.operator,
            instruction: self.instruction,
            pc: self.pc,
            source: self.source,
            bytes,
            start_sub_ps,
            dur_sub_ps,
            flops: self.flops,
            transpose: self.transpose,
            gpu_work: self.gpu_work,
        }
    }
    fn of(d: &SliceDomain) -> DomainShape {
        DomainShape {
            opcode: d.opcode,
            operator: d.operator,
            instruction: d.instruction,
            pc: d.pc,
            source: d.source,
            flops: d.flops,
            transpose: d.transpose,
            gpu_work: d.gpu_work,
        }
    }
}

/// The distinct [`DomainShape`]s of one track, as columns (shape `s` is row `s`).
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DomainShapes {
    pub opcode: Vec<StrId>,
    pub operator: Vec<OpId>,
    pub instruction: Vec<u32>,
    pub pc: Vec<u32>,
    pub source: Vec<SourceId>,
    pub flops: Vec<u64>,
    pub transpose: Vec<bool>,
    /// [`GpuWork::code`] of each shape (0 = none).
    pub gpu_work: Vec<u8>,
}

impl DomainShapes {
    pub fn len(&self) -> usize {
        self.opcode.len()
    }
    pub fn is_empty(&self) -> bool {
        self.opcode.is_empty()
    }
    /// Whether every column has [`DomainShapes::len`] rows.
    pub fn is_consistent(&self) -> bool {
        let n = self.len();
        self.operator.len() == n
            && self.instruction.len() == n
            && self.pc.len() == n
            && self.source.len() == n
            && self.flops.len() == n
            && self.transpose.len() == n
            && self.gpu_work.len() == n
    }
    fn push(&mut self, s: DomainShape) {
        self.opcode.push(s.opcode);
        self.operator.push(s.operator);
        self.instruction.push(s.instruction);
        self.pc.push(s.pc);
        self.source.push(s.source);
        self.flops.push(s.flops);
        self.transpose.push(s.transpose);
        self.gpu_work.push(GpuWork::code(s.gpu_work));
    }
    /// Shape `s`; the "none" shape when out of range.
    pub fn get(&self, s: usize) -> DomainShape {
        let d = SliceDomain::default();
        DomainShape {
            opcode: self.opcode.get(s).copied().unwrap_or(d.opcode),
            operator: self.operator.get(s).copied().unwrap_or(d.operator),
            instruction: self.instruction.get(s).copied().unwrap_or(d.instruction),
            pc: self.pc.get(s).copied().unwrap_or(d.pc),
            source: self.source.get(s).copied().unwrap_or(d.source),
            flops: self.flops.get(s).copied().unwrap_or(d.flops),
            transpose: self.transpose.get(s).copied().unwrap_or(d.transpose),
            gpu_work: self.gpu_work.get(s).copied().and_then(GpuWork::from_code),
        }
    }
    fn heap_bytes(&self) -> usize {
        self.opcode.capacity() * 4
            + self.operator.capacity() * 4
            + self.instruction.capacity() * 4
            + self.pc.capacity() * 4
            + self.source.capacity() * 4
            + self.flops.capacity() * 8
            + self.transpose.capacity()
            + self.gpu_work.capacity()
    }
}

/// Per-slice typed domain fields of a finished track, parallel to its [`super::SliceColumns`]
/// (same order); present on a track when any of its slices has a domain field. Read them with
/// [`DomainColumns::get`] (or `SliceColumns::domain_of`).
///
/// Compact: what the executions of one instruction share is a table of distinct shapes
/// (`shapes`) with one index per slice (`shape`); what each slice has on its own (`bytes`, the
/// sub-ns picoseconds) are columns. **A per-slice column is either one value per slice or
/// empty**, empty meaning every slice has the "none" value (`shape`: shape 0, or none when there
/// are no shapes; `bytes`: `u64::MAX`; picoseconds: 0). An NTFF engine track costs 8 bytes a
/// slice this way (a shape index and the picoseconds) instead of 37; a DMA queue 12.
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DomainColumns {
    pub shape: Vec<u32>,
    pub bytes: Vec<u64>,
    /// See [`SliceDomain::start_sub_ps`].
    pub start_sub_ps: Vec<u16>,
    /// See [`SliceDomain::dur_sub_ps`].
    pub dur_sub_ps: Vec<u16>,
    pub shapes: DomainShapes,
}

impl DomainColumns {
    /// The row of [`DomainColumns::shapes`] slice `i` has (past the table, e.g. `usize::MAX`
    /// past the last slice: the "none" shape). A pass that only needs what a shape decides
    /// (its opcode, operator, …) can add up per shape and look each one up once.
    #[inline]
    pub fn shape_index(&self, i: usize) -> usize {
        self.shape_of(i)
    }
    /// See [`DomainColumns::shape_index`].
    #[inline]
    fn shape_of(&self, i: usize) -> usize {
        if self.shape.is_empty() {
            0
        } else {
            self.shape.get(i).map_or(usize::MAX, |&s| s as usize)
        }
    }
    /// Slice `i`'s opcode (`StrId::EMPTY` = none).
    #[inline]
    pub fn opcode(&self, i: usize) -> StrId {
        self.shapes.opcode.get(self.shape_of(i)).copied().unwrap_or(StrId::EMPTY)
    }
    /// Slice `i`'s innermost operator.
    #[inline]
    pub fn operator(&self, i: usize) -> OpId {
        self.shapes.operator.get(self.shape_of(i)).copied().unwrap_or(OpId::NONE)
    }
    /// Slice `i`'s program slot (`u32::MAX` = none).
    #[inline]
    pub fn instruction(&self, i: usize) -> u32 {
        self.shapes.instruction.get(self.shape_of(i)).copied().unwrap_or(u32::MAX)
    }
    /// Slice `i`'s runtime program counter (`u32::MAX` = none; [`SliceDomain::pc`]).
    #[inline]
    pub fn pc(&self, i: usize) -> u32 {
        self.shapes.pc.get(self.shape_of(i)).copied().unwrap_or(u32::MAX)
    }
    /// Slice `i`'s source line.
    #[inline]
    pub fn source(&self, i: usize) -> SourceId {
        self.shapes.source.get(self.shape_of(i)).copied().unwrap_or(SourceId::NONE)
    }
    /// Slice `i`'s raw FLOPs (`u64::MAX` = none).
    #[inline]
    pub fn flops(&self, i: usize) -> u64 {
        self.shapes.flops.get(self.shape_of(i)).copied().unwrap_or(u64::MAX)
    }
    /// Slice `i`'s transpose flag.
    #[inline]
    pub fn transpose(&self, i: usize) -> bool {
        self.shapes.transpose.get(self.shape_of(i)).copied().unwrap_or(false)
    }
    /// Slice `i`'s bytes (`u64::MAX` = none).
    #[inline]
    pub fn bytes(&self, i: usize) -> u64 {
        self.bytes.get(i).copied().unwrap_or(u64::MAX)
    }
    /// What slice `i` is on a GPU stream (`None` = not typed).
    #[inline]
    pub fn gpu_work(&self, i: usize) -> Option<GpuWork> {
        self.shapes.gpu_work.get(self.shape_of(i)).copied().and_then(GpuWork::from_code)
    }
    /// Slice `i`'s picoseconds past its floored start and duration (0 = none).
    #[inline]
    pub fn sub_ps(&self, i: usize) -> (u16, u16) {
        (self.start_sub_ps.get(i).copied().unwrap_or(0), self.dur_sub_ps.get(i).copied().unwrap_or(0))
    }
    /// The domain fields of slice `i` (all "none" past the end).
    #[inline]
    pub fn get(&self, i: usize) -> SliceDomain {
        let (start_sub_ps, dur_sub_ps) = self.sub_ps(i);
        self.shapes.get(self.shape_of(i)).slice(self.bytes(i), start_sub_ps, dur_sub_ps)
    }
    /// Whether the per-slice columns fit `n` slices (each `n` long or empty) and every shape
    /// index names a shape.
    pub fn fits(&self, n: usize) -> bool {
        let ok = |len: usize| len == 0 || len == n;
        ok(self.shape.len())
            && ok(self.bytes.len())
            && ok(self.start_sub_ps.len())
            && ok(self.dur_sub_ps.len())
            && self.shapes.is_consistent()
            && (!self.shape.is_empty() || self.shapes.len() <= 1)
    }
    pub fn heap_bytes(&self) -> usize {
        self.shape.capacity() * 4
            + self.bytes.capacity() * 8
            + self.start_sub_ps.capacity() * 2
            + self.dur_sub_ps.capacity() * 2
            + self.shapes.heap_bytes()
    }
}

/// Builds a finished track's [`DomainColumns`] slice by slice, in the track's final order.
pub(crate) struct DomainWriter {
    cols: DomainColumns,
    /// The builder's shape → this track's shape (`u32::MAX` = not used yet).
    remap: Vec<u32>,
    /// Which of the per-slice columns are written: shape, bytes, start and duration picoseconds.
    keep: [bool; 4],
}

impl DomainWriter {
    pub(crate) fn with_capacity(n: usize) -> DomainWriter {
        DomainWriter::writing([true; 4], n)
    }
    /// For `n` slices of `b`'s track: only the columns `b` made. A column the build never made
    /// holds its "none" value for every slice, which [`DomainWriter::finish`] would empty
    /// anyway (as it empties the shape column of a track with one shape), so it is not written:
    /// a track of `n` slices needs 16 `n` bytes less while it is laid out.
    pub(crate) fn for_build(b: &DomainBuild, n: usize) -> DomainWriter {
        let has =
            [!b.shape.is_empty(), !b.bytes.is_empty(), !b.start_sub_ps.is_empty(), !b.dur_sub_ps.is_empty()];
        DomainWriter::writing(has, n)
    }
    fn writing(keep: [bool; 4], n: usize) -> DomainWriter {
        let room = |k: usize| if keep[k] { n } else { 0 };
        let cols = DomainColumns {
            shape: Vec::with_capacity(room(0)),
            bytes: Vec::with_capacity(room(1)),
            start_sub_ps: Vec::with_capacity(room(2)),
            dur_sub_ps: Vec::with_capacity(room(3)),
            shapes: DomainShapes::default(),
        };
        DomainWriter { cols, remap: Vec::new(), keep }
    }
    /// Slice `i` of `b` next; its shape is the builder's, interned once (no hashing here).
    pub(crate) fn push(&mut self, b: &DomainBuild, i: usize) {
        if self.remap.len() < b.shapes.len() {
            self.remap.resize(b.shapes.len(), u32::MAX);
        }
        let bs = b.shape_index(i) as usize;
        let s = match self.remap.get(bs) {
            Some(&s) if s != u32::MAX => s,
            _ => {
                let s = self.cols.shapes.len() as u32;
                let none = DomainShape::of(&SliceDomain::default());
                self.cols.shapes.push(b.shapes.get(bs).copied().unwrap_or(none));
                if let Some(r) = self.remap.get_mut(bs) {
                    *r = s;
                }
                s
            }
        };
        let k = self.keep;
        if k[0] {
            self.cols.shape.push(s);
        }
        if k[1] || k[2] || k[3] {
            let d = b.get(i);
            if k[1] {
                self.cols.bytes.push(d.bytes);
            }
            if k[2] {
                self.cols.start_sub_ps.push(d.start_sub_ps);
            }
            if k[3] {
                self.cols.dur_sub_ps.push(d.dur_sub_ps);
            }
        }
    }
    /// The columns, each column of "none" values emptied.
    pub(crate) fn finish(self) -> DomainColumns {
        let mut c = self.cols;
        let none = SliceDomain::default();
        if c.shapes.len() <= 1 {
            c.shape = Vec::new();
            if c.shapes.len() == 1 && c.shapes.get(0) == DomainShape::of(&none) {
                c.shapes = DomainShapes::default();
            }
        }
        if c.bytes.iter().all(|&b| b == none.bytes) {
            c.bytes = Vec::new();
        }
        if c.start_sub_ps.iter().all(|&p| p == 0) {
            c.start_sub_ps = Vec::new();
        }
        if c.dur_sub_ps.iter().all(|&p| p == 0) {
            c.dur_sub_ps = Vec::new();
        }
        c.shapes.opcode.shrink_to_fit();
        c.shapes.operator.shrink_to_fit();
        c.shapes.instruction.shrink_to_fit();
        c.shapes.source.shrink_to_fit();
        c.shapes.flops.shrink_to_fit();
        c.shapes.transpose.shrink_to_fit();
        c.shapes.gpu_work.shrink_to_fit();
        c
    }
}

/// Type of a DMA queue, as neuron-profile names it (`DmaQueueType`: `instruction`, `input`,
/// `output`, `data`, `software_dynamic`, `hardware_dynamic`). The first four are generated by the
/// compiler ("static"); software-dynamic DMAs are generated by GpSimd at run time, hardware-dynamic
/// ones by the DMA descriptor generator (DGE). neuron.md §5.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, bincode::Encode, bincode::Decode)]
pub enum DmaQueueType {
    Instruction,
    Input,
    Output,
    /// Weights / compiler data (`data`).
    Data,
    SoftwareDynamic,
    HardwareDynamic,
}

impl DmaQueueType {
    /// neuron-profile's name (`software_dynamic` …).
    pub fn name(self) -> &'static str {
        match self {
            DmaQueueType::Instruction => "instruction",
            DmaQueueType::Input => "input",
            DmaQueueType::Output => "output",
            DmaQueueType::Data => "data",
            DmaQueueType::SoftwareDynamic => "software_dynamic",
            DmaQueueType::HardwareDynamic => "hardware_dynamic",
        }
    }
    /// The export's / Parquet's `queue_type` value, case-insensitively.
    pub fn from_name(s: &str) -> Option<DmaQueueType> {
        let l = s.trim().to_ascii_lowercase();
        Some(match l.as_str() {
            "instruction" => DmaQueueType::Instruction,
            "input" => DmaQueueType::Input,
            "output" => DmaQueueType::Output,
            "data" => DmaQueueType::Data,
            "software_dynamic" => DmaQueueType::SoftwareDynamic,
            "hardware_dynamic" => DmaQueueType::HardwareDynamic,
            _ => return None,
        })
    }
    /// Compiler-generated ("static") queue.
    pub fn is_static(self) -> bool {
        !matches!(self, DmaQueueType::SoftwareDynamic | DmaQueueType::HardwareDynamic)
    }
}

/// Facts about one device profile that are not events: what the runtime and the capture report.
/// Set by the Neuron importers on their device groups.
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DeviceInfo {
    /// On-device execution time the runtime reports (NTFF metadata `/4/4/1/14`, in ps; the JSON
    /// export's / Parquet `summary.total_time`).
    pub execution_time_ps: Option<u64>,
    /// Instance type (`inf2.xlarge`).
    pub instance_type: Option<StrId>,
    /// Event notifications in the capture (semaphore/event records, also those before the profile
    /// window): neuron-profile's `event_count`.
    pub event_count: Option<u64>,
    /// DMA queues the capture's metadata names: neuron-profile's `dma_queue_count`.
    pub dma_queue_count: Option<u64>,
    /// Software versions the capture states, as neuron-profile prints them: the Neuron runtime
    /// (`2.29.40 (f954c)`), driver (`2.25.0 ()`) and collectives library (`2.29.41 ()`).
    pub runtime_version: Option<StrId>,
    pub driver_version: Option<StrId>,
    pub collectives_version: Option<StrId>,
    /// The runtime's device-memory allocation for the loaded program (NTFF `/4/4/1/11`, the
    /// export's `nc_mem_usage`).
    pub memory: Option<DeviceMemory>,
    /// Throttling periods the capture recorded (NTFF block 5, the export's `ham` table), in time
    /// order. Empty when the input has none or does not carry them.
    pub throttle: Vec<ThrottlePeriod>,
    /// Static DMA blocks inferred from the packets when the input has no transfer rows (an NTFF
    /// without its NEFF): see `ntff::Ntff::static_dma_blocks` for the rule.
    pub dma_blocks: Vec<DmaBlock>,
    /// On-chip / HBM traffic of the executed instructions, from their operands (NTFF instruction
    /// words, `ntff::cost`): `None` when the input does not give it.
    pub traffic: Option<InstructionTraffic>,
    /// Where the instructions' operator attribution (operator names, HLO text, source lines, FLOPs)
    /// came from, and whether it was checked against the capture.
    pub attribution: Attribution,
    /// The capture file ends before the data it describes: the events are only a part of the
    /// capture, and totals the runtime reported for the whole execution (`execution_time_ps`)
    /// describe events that are not there.
    pub incomplete: Option<Incomplete>,
    /// The UUID of the NEFF the capture was recorded from, lower-case hex, as the input states it
    /// (NTFF metadata `/2`; the export's `neff_header.uuid`). From an NTFF it is only a prefix
    /// when the runtime's copy stopped at a 0x00 byte of the UUID (`neff_uuid_truncated`: fewer
    /// than 16 bytes recovered). The ranks of one job run one NEFF: `analysis::ranks` compares it.
    pub neff_uuid: Option<StrId>,
    pub neff_uuid_truncated: bool,
    /// The NeuronCore the capture ran on, where the input states it: the export's
    /// `model_info.nc_idx`. An NTFF does not carry it (no metadata field of it is known,
    /// `docs/formats/ntff-v5.md` §2); with its own export dropped beside it, the export's.
    pub neuron_core: Option<u32>,
}

/// Device memory the runtime allocated for the program, by kind (bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DeviceMemory {
    /// `Weights`: the program's constant tensors.
    pub weights_bytes: u64,
    /// `Tensors`: the program's input and output tensors.
    pub io_tensors_bytes: u64,
    /// `DRAM Spill`: spill space in device memory.
    pub dram_spill_bytes: u64,
    /// `Collectives` plus `DMA Rings Collectives`: memory for collective communication.
    pub collectives_bytes: u64,
}

/// One throttling period: the engines' utilisation limited to `limit_num / limit_den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct ThrottlePeriod {
    /// Duration in whole ns as neuron-profile's `ham` table floors it (until the next record;
    /// the last one until the last instruction end).
    pub dur_ns: i64,
    /// The record's type: 99 = no throttling activity known (neuron-profile's "unknown"),
    /// other values = throttling activity `n` (neuron-profile's `activity_<n>`).
    pub kind: u32,
    pub limit_num: u32,
    pub limit_den: u32,
}

/// A static DMA block (neuron-profile's aggregated DMA row) inferred from packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct DmaBlock {
    pub queue_type: DmaQueueType,
    /// First packet start and last packet end, ps relative to the profile start.
    pub start_ps: i64,
    pub end_ps: i64,
    /// Data bytes (the block's completion semaphore writes left out).
    pub bytes: u64,
}

/// Bytes the executed instructions read and write, by memory (neuron-profile's per-instruction
/// `sbuf_read_bytes` … summed over every executed instruction of the device).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct InstructionTraffic {
    pub sbuf_read_bytes: u64,
    pub sbuf_write_bytes: u64,
    pub psum_read_bytes: u64,
    pub psum_write_bytes: u64,
    /// Instructions that read PSUM and write SBUF, and the bytes they write.
    pub psum_read_sbuf_write_count: u64,
    pub psum_read_sbuf_write_bytes: u64,
    pub hbm_read_bytes: u64,
    pub hbm_write_bytes: u64,
    /// FLOPs of the Tensor engine's matrix instructions (`2 × rows × columns × moving
    /// elements` each): neuron-profile's `hardware_flops`.
    pub hardware_flops: u64,
}

impl std::ops::AddAssign for InstructionTraffic {
    /// Field by field: totals over more instructions, or over several devices.
    fn add_assign(&mut self, o: InstructionTraffic) {
        self.sbuf_read_bytes += o.sbuf_read_bytes;
        self.sbuf_write_bytes += o.sbuf_write_bytes;
        self.psum_read_bytes += o.psum_read_bytes;
        self.psum_write_bytes += o.psum_write_bytes;
        self.psum_read_sbuf_write_count += o.psum_read_sbuf_write_count;
        self.psum_read_sbuf_write_bytes += o.psum_read_sbuf_write_bytes;
        self.hbm_read_bytes += o.hbm_read_bytes;
        self.hbm_write_bytes += o.hbm_write_bytes;
        self.hardware_flops += o.hardware_flops;
    }
}

/// Where a device profile's operator attribution came from, and how sure it is: a typed flag that
/// widgets read to mark what they show ("unverified (NEFF mismatch)"), never a warning string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub enum Attribution {
    /// Not stated: no attribution (an NTFF alone), or a profile that carries its own (a JSON
    /// export or Parquet tables alone).
    #[default]
    Unstated,
    /// From the NEFF the capture was made from (its UUID equals the one the NTFF names).
    Neff,
    /// From the capture's own neuron-profile JSON export, joined row by row onto the NTFF's
    /// instructions (neuron-profile resolved it with the capture's own NEFF).
    Export,
    /// From a NEFF whose UUID differs from the one the NTFF names: the operator names, HLO text
    /// and source lines may belong to another program. Shown marked [`Attribution::UNVERIFIED`].
    NeffMismatch,
}

impl Attribution {
    /// The mark of fields that come from an unverified attribution.
    pub const UNVERIFIED: &'static str = "unverified (NEFF mismatch)";
    /// The argument keys the NTFF importer fills from the NEFF's attribution (its instruction
    /// template), which Event Details marks with the rest when the attribution is unverified.
    pub const ARGS: &'static [&'static str] = &[
        "framework_name",
        "hlo_name",
        "hlo_op_type",
        "hlo_text",
        "penguin_name",
        "bir_name",
        "source",
        "kernel_source",
    ];
    /// Whether fields from this attribution must be shown marked [`Attribution::UNVERIFIED`].
    pub fn is_unverified(self) -> bool {
        self == Attribution::NeffMismatch
    }
}

/// A capture file cut short: it ends at byte `file_bytes`, its own structure describes
/// `expected_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct Incomplete {
    pub file_bytes: u64,
    pub expected_bytes: u64,
}

impl Incomplete {
    /// The plain statement: "the NTFF ends at byte N: the capture is incomplete (…)".
    pub fn message(&self, format: &str) -> String {
        format!(
            "the {format} ends at byte {}: the capture is incomplete (its records run to byte {}; \
             {} bytes are missing), so only the events before the cut are shown",
            self.file_bytes,
            self.expected_bytes,
            self.expected_bytes.saturating_sub(self.file_bytes)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(v: &[SliceDomain]) -> DomainColumns {
        let mut b = DomainBuild::default();
        for &d in v {
            b.push(d);
        }
        let mut w = DomainWriter::with_capacity(v.len());
        for i in 0..v.len() {
            w.push(&b, i);
        }
        w.finish()
    }

    #[test]
    fn shapes_are_shared_and_columns_of_none_are_empty() {
        let none = SliceDomain::default();
        let mm = SliceDomain { opcode: StrId(3), instruction: 7, flops: 64, ..none };
        let act = SliceDomain { opcode: StrId(4), operator: OpId(1), source: SourceId(0), ..none };
        // instructions: two shapes, sub-ps per slice, no bytes
        let v = [SliceDomain { start_sub_ps: 5, ..mm }, act, SliceDomain { dur_sub_ps: 999, ..mm }, act];
        let c = written(&v);
        assert_eq!(c.shapes.len(), 2);
        assert_eq!(c.shape, vec![0, 1, 0, 1]);
        assert!(c.bytes.is_empty() && c.fits(4) && !c.fits(5));
        for (i, d) in v.iter().enumerate() {
            assert_eq!(c.get(i), *d);
            assert_eq!((c.opcode(i), c.operator(i), c.instruction(i)), (d.opcode, d.operator, d.instruction));
            assert_eq!((c.source(i), c.flops(i)), (d.source, d.flops));
        }
        assert_eq!(c.get(4), none, "past the end: none");
        // DMA packets: no shape at all, bytes per slice, no picoseconds
        let v = [SliceDomain { bytes: 64, ..none }, SliceDomain { bytes: 128, ..none }];
        let c = written(&v);
        assert!(c.shapes.is_empty() && c.shape.is_empty() && c.start_sub_ps.is_empty());
        assert_eq!(c.bytes, vec![64, 128]);
        assert_eq!((c.get(1), c.operator(1)), (v[1], OpId::NONE));
        // one shape for every slice: no index column
        let c = written(&[act, act, act]);
        assert!(c.shape.is_empty() && c.shapes.len() == 1 && c.fits(3));
        assert_eq!(c.get(2), act);
        // an index column must cover the slices, and one shape at most without it
        let mut bad = written(&v);
        bad.shapes = written(&[mm, act]).shapes;
        assert!(!bad.fits(2));
    }

    #[test]
    fn the_build_makes_a_column_only_when_a_slice_needs_it() {
        let none = SliceDomain::default();
        let mm = SliceDomain { opcode: StrId(3), instruction: 7, flops: 64, start_sub_ps: 9, ..none };
        let mut b = DomainBuild::default();
        b.reserve(100);
        b.resize_default(3);
        assert_eq!((b.len(), b.heap_bytes()), (3, 0), "nothing set: no column");
        b.set(1, mm);
        assert!(b.bytes.is_empty() && b.dur_sub_ps.is_empty(), "only the shape and start columns");
        assert_eq!(b.shape.capacity(), 100, "made with the room reserved");
        b.push(SliceDomain { bytes: 4096, ..none });
        b.set(9, mm); // past the end: ignored, as before
        let got: Vec<SliceDomain> = (0..5).map(|i| b.get(i)).collect();
        assert_eq!(got, vec![none, mm, none, SliceDomain { bytes: 4096, ..none }, none]);
        // finished in another order, without hashing again: the same fields
        let mut w = DomainWriter::with_capacity(4);
        for i in [3, 1, 0, 2] {
            w.push(&b, i);
        }
        let c = w.finish();
        let want = [got[3], got[1], got[0], got[2]];
        assert!((0..4).all(|i| c.get(i) == want[i]) && c.fits(4));
        assert_eq!(c.shapes.len(), 2, "the shapes used, the none shape first as first used");
    }
}
