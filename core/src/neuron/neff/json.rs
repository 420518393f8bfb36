//! Typed views of the NEFF JSON members (neuron.md §1.3). Every struct keeps the original
//! JSON in `raw` so keys we do not model stay visible. Extraction is lenient: wrong types
//! become `None`/empty, never errors.
//!
//! Memory (issue 7 §2): the constructors take the parsed tree by value and move its parts into
//! the typed records; no tree is cloned. Where a part moves into a typed list (`var`,
//! `dma_queue`, an engine's `dma`, graph `nodes`), the parent's `raw` no longer holds it.

use super::engine::{Engine, InstructionStream};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) fn s(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
pub(crate) fn u(v: &Value, k: &str) -> Option<u64> {
    match v.get(k)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
pub(crate) fn i(v: &Value, k: &str) -> Option<i64> {
    match v.get(k)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
pub(crate) fn b(v: &Value, k: &str) -> Option<bool> {
    match v.get(k)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        },
        Value::Number(n) => n.as_i64().map(|x| x != 0),
        _ => None,
    }
}
/// A string or a list of strings.
pub(crate) fn strs(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_str().map(String::from)).collect(),
        _ => vec![],
    }
}
pub(crate) fn ints(v: Option<&Value>) -> Vec<i64> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_i64()).collect(),
        _ => vec![],
    }
}
pub(crate) fn uints(v: Option<&Value>) -> Vec<u64> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_u64()).collect(),
        _ => vec![],
    }
}

/// `info.json`: compiler version and core counts.
#[derive(Debug, Clone, Serialize)]
pub struct Info {
    pub path: String,
    /// Compiler version, e.g. `2.23.6484.0+3b612583` (Parquet `Metadata.compiler_version`).
    pub tool_version: Option<String>,
    pub kelp_version: Option<String>,
    pub name: Option<String>,
    pub num_tpb: Option<u64>,
    pub num_tpb_requested: Option<u64>,
    pub num_tpb_per_node: Vec<u64>,
    pub raw: Value,
}

impl Info {
    pub fn from_json(path: &str, v: Value) -> Info {
        Info {
            path: path.into(),
            tool_version: s(&v, "tool_version"),
            kelp_version: s(&v, "kelp_version"),
            name: s(&v, "name"),
            num_tpb: u(&v, "num_tpb"),
            num_tpb_requested: u(&v, "num_tpb_requested"),
            num_tpb_per_node: uints(v.get("num_tpb_per_node")),
            raw: v,
        }
    }
}

/// `hlo_stats.json`: numeric HLO statistics (`HloMacCount`, `Traffic`, …).
#[derive(Debug, Clone, Serialize)]
pub struct HloStats {
    pub path: String,
    /// Every numeric top-level value.
    pub values: BTreeMap<String, f64>,
    pub raw: Value,
}

impl HloStats {
    pub fn from_json(path: &str, v: Value) -> HloStats {
        let mut values = BTreeMap::new();
        if let Value::Object(m) = &v {
            for (k, x) in m {
                if let Some(f) = x.as_f64() {
                    values.insert(k.clone(), f);
                }
            }
        }
        HloStats { path: path.into(), values, raw: v }
    }
    /// `HloMacCount` (model FLOPs = 2 × MACs).
    pub fn mac_count(&self) -> Option<f64> {
        self.values.get("HloMacCount").copied()
    }
}

/// One node of the TVM-relay style graph in `neff.json`.
#[derive(Debug, Clone, Serialize)]
pub struct GraphNode {
    /// `null` (graph input) or `tvm_op`.
    pub op: String,
    pub name: String,
    /// `attrs.func_name`, e.g. `__kelf`.
    pub func_name: Option<String>,
    /// `attrs.kelf`: the kelf JSON this op runs.
    pub kelf: Option<String>,
    pub output_names: Vec<String>,
    pub raw: Value,
}

/// A signature entry in `neff.json` `metadata.signatures.default.{inputs,outputs}`.
#[derive(Debug, Clone, Serialize)]
pub struct SignatureTensor {
    pub name: String,
    pub id: Option<u64>,
    pub dtype: Option<String>,
    pub shape: Vec<i64>,
}

/// `neff.json`: the top-level graph.
#[derive(Debug, Clone, Serialize)]
pub struct NeffGraph {
    pub path: String,
    pub nodes: Vec<GraphNode>,
    pub inputs: Vec<SignatureTensor>,
    pub outputs: Vec<SignatureTensor>,
    pub raw: Value,
}

fn signature(v: Option<&Value>) -> Vec<SignatureTensor> {
    let Some(Value::Object(m)) = v else { return vec![] };
    let mut out: Vec<SignatureTensor> = m
        .iter()
        .map(|(k, x)| SignatureTensor {
            name: k.clone(),
            id: u(x, "id"),
            dtype: s(x, "dtype"),
            shape: ints(x.get("shape")),
        })
        .collect();
    out.sort_by_key(|t| t.id.unwrap_or(u64::MAX));
    out
}

/// Remove `key` from an object value (`None` when absent or `v` is not an object).
fn take(v: &mut Value, key: &str) -> Option<Value> {
    v.as_object_mut()?.remove(key)
}

impl NeffGraph {
    /// `raw` is the graph without `nodes` (moved into [`NeffGraph::nodes`]).
    pub fn from_json(path: &str, mut v: Value) -> NeffGraph {
        let nodes = match take(&mut v, "nodes") {
            Some(Value::Array(a)) => a
                .into_iter()
                .map(|n| {
                    let attrs = n.get("attrs");
                    GraphNode {
                        op: s(&n, "op").unwrap_or_default(),
                        name: s(&n, "name").unwrap_or_default(),
                        func_name: attrs.and_then(|a| s(a, "func_name")),
                        kelf: attrs.and_then(|a| s(a, "kelf")),
                        output_names: strs(n.get("output_names")),
                        raw: n,
                    }
                })
                .collect(),
            _ => vec![],
        };
        let sig = v.pointer("/metadata/signatures/default");
        NeffGraph {
            path: path.into(),
            nodes,
            inputs: signature(sig.and_then(|x| x.get("inputs"))),
            outputs: signature(sig.and_then(|x| x.get("outputs"))),
            raw: v,
        }
    }
    /// Heuristic content check: a `nodes` array (TVM graph JSON).
    pub fn looks_like(v: &Value) -> bool {
        v.get("nodes").map(|n| n.is_array()).unwrap_or(false) && v.get("graphs").is_none()
    }
}

/// A subgraph reference in a kelf JSON.
#[derive(Debug, Clone, Serialize)]
pub struct KelfGraph {
    pub name: String,
    /// Path of `def.json` relative to the kelf JSON.
    pub definition: String,
}

/// `kelf-N.json`: the list of subgraphs of one kelf op.
#[derive(Debug, Clone, Serialize)]
pub struct Kelf {
    pub path: String,
    pub version: Option<String>,
    /// Internal arch codename, e.g. `cayman` (trn2).
    pub target: Option<String>,
    pub graphs: Vec<KelfGraph>,
    pub raw: Value,
}

impl Kelf {
    pub fn from_json(path: &str, v: Value) -> Kelf {
        let graphs = match v.get("graphs") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|g| {
                    Some(KelfGraph {
                        definition: s(g, "definition")?,
                        name: s(g, "name").unwrap_or_default(),
                    })
                })
                .collect(),
            _ => vec![],
        };
        Kelf { path: path.into(), version: s(&v, "version"), target: s(&v, "target"), graphs, raw: v }
    }
    pub fn looks_like(v: &Value) -> bool {
        v.get("graphs").map(|g| g.is_array()).unwrap_or(false)
    }
}

/// A DMA queue set from `def.json` `dma_queue` (neuron.md §1.3.1).
#[derive(Debug, Clone, Serialize)]
pub struct DmaQueueSet {
    pub name: String,
    /// `type`: in | out | data | embedding_update | dynamic.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub num_queues: Option<u64>,
    /// `owner` as written (`pool`, `sp`, `act`…).
    pub owner: Option<String>,
    /// `owner` normalised.
    pub owner_engine: Option<Engine>,
    pub semaphore_set: Vec<u64>,
    pub semaphore: Option<i64>,
    pub queue_instances: Vec<String>,
    pub fabric_path: Option<String>,
    pub pinned: Option<bool>,
    pub raw: Value,
}

/// A variable from `def.json` `var` (neuron.md §1.3.1).
#[derive(Debug, Clone, Serialize)]
pub struct Variable {
    pub name: String,
    /// `type`: state-buffer | input | output | file | tmp-buf | virtual | pointer | dge-table.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub var_id: Option<u64>,
    pub size: Option<u64>,
    pub alignment: Option<u64>,
    pub fabric_path: Option<String>,
    pub file_name: Option<String>,
    pub backing_variable_off: Option<u64>,
    pub referenced_var_id: Option<u64>,
    /// `list` (dge-table): var ids.
    pub list: Vec<u64>,
    pub raw: Value,
}

/// A DMA descriptor entry of an engine JSON's `dma[]` (neuron.md §1.3.2).
#[derive(Debug, Clone, Serialize)]
pub struct DmaDescriptor {
    /// `id`: maps the descriptor to a trigger in the engine binary.
    pub id: Option<String>,
    pub queue: Option<String>,
    pub instance_name: Option<String>,
    pub semaphore: Option<i64>,
    pub event: Option<i64>,
    /// `desc{op, from, to, …}` as written.
    pub desc: Option<Value>,
    pub raw: Value,
}

impl DmaDescriptor {
    /// `raw` is the entry without `desc` (moved into [`DmaDescriptor::desc`]).
    pub fn from_json(mut v: Value) -> DmaDescriptor {
        DmaDescriptor {
            id: s(&v, "id"),
            queue: s(&v, "queue"),
            instance_name: s(&v, "instance_name"),
            semaphore: i(&v, "semaphore"),
            event: i(&v, "event"),
            desc: take(&mut v, "desc"),
            raw: v,
        }
    }
}

/// The `dma[]` entries of an engine JSON, moved out of it.
pub fn take_dma(engine_json: &mut Value) -> Vec<DmaDescriptor> {
    match take(engine_json, "dma") {
        Some(Value::Array(a)) => a.into_iter().map(DmaDescriptor::from_json).collect(),
        _ => vec![],
    }
}

/// One tensor of `tensor_map.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Tensor {
    pub name: String,
    pub dtype: Option<String>,
    /// `kind`: input | output (absent for constants).
    pub kind: Option<String>,
    pub is_const: Option<bool>,
    pub layer_name: Option<String>,
    pub sim_format: Option<String>,
    pub sim_shape: Vec<i64>,
    pub tf_file: Option<String>,
    pub tf_format: Option<String>,
    pub tf_shape: Vec<i64>,
    pub raw: Value,
}

pub fn tensors_from_json(v: Value) -> Vec<Tensor> {
    let Value::Object(m) = v else { return vec![] };
    m.into_iter()
        .filter(|(_, x)| x.is_object())
        .map(|(k, x)| Tensor {
            name: k,
            dtype: s(&x, "dtype"),
            kind: s(&x, "kind"),
            is_const: b(&x, "is_const"),
            layer_name: s(&x, "layer_name"),
            sim_format: s(&x, "sim_format"),
            sim_shape: ints(x.get("sim_shape")),
            tf_file: s(&x, "tf_file"),
            tf_format: s(&x, "tf_format"),
            tf_shape: ints(x.get("tf_shape")),
            raw: x,
        })
        .collect()
}

/// Content check for `tensor_map.json`: an object of objects with tensor keys.
pub fn looks_like_tensor_map(v: &Value) -> bool {
    match v {
        Value::Object(m) if !m.is_empty() => m
            .values()
            .all(|x| x.get("sim_shape").is_some() || x.get("tf_shape").is_some() || x.get("dtype").is_some()),
        _ => false,
    }
}

/// One engine of a subgraph: `def.json` keys `<key>`, `<key>_instr`, `<key>_dbg`,
/// `<key>_asm_dbg` and the engine JSON they name.
#[derive(Debug, Clone, Serialize)]
pub struct EngineProgram {
    pub engine: Engine,
    /// The `def.json` key prefix (`pe`, `act`, `dve`, `pool`, `sp`).
    pub key: String,
    /// Member path of the engine JSON (`sg00/PE.json`), if found.
    pub json_path: Option<String>,
    /// The engine JSON as written (`instr`, `act_info`, `dve_tables`, …) without `dma`, which
    /// is moved into [`EngineProgram::dma`].
    pub json: Value,
    /// The instruction stream, if the binary was found.
    pub instructions: Option<InstructionStream>,
    pub dma: Vec<DmaDescriptor>,
    /// Member paths of the assembly debug-info files (`*_asm_dbg`).
    pub asm_dbg: Vec<String>,
    /// Member paths of the BIR debug-info files (`*_dbg`).
    pub bir_dbg: Vec<String>,
}

impl EngineProgram {
    /// Number of instruction slots (0 when the binary is missing).
    pub fn instruction_count(&self) -> u64 {
        self.instructions.as_ref().map(|i| i.count).unwrap_or(0)
    }
}

/// One subgraph (`sgNN`, one per physical NeuronCore of a logical core).
#[derive(Debug, Clone, Serialize)]
pub struct Subgraph {
    /// Name from the kelf JSON (`sg00`), else the directory name.
    pub name: String,
    /// Member path of the kelf JSON that lists it.
    pub kelf: Option<String>,
    /// Member path of `def.json`.
    pub def_path: String,
    pub version: Option<String>,
    pub neff_features: Vec<String>,
    pub dma_queues: Vec<DmaQueueSet>,
    pub vars: Vec<Variable>,
    pub engines: Vec<EngineProgram>,
    /// Member paths of the DMA-block debug-info files (`dma_dbg`).
    pub dma_dbg: Vec<String>,
    pub tensor_map_path: Option<String>,
    pub tensors: Vec<Tensor>,
    /// The `def.json` without `var` and `dma_queue` (moved into `vars` and `dma_queues`).
    pub def: Value,
}

impl Subgraph {
    pub fn engine(&self, e: Engine) -> Option<&EngineProgram> {
        self.engines.iter().find(|p| p.engine == e)
    }
}

/// The `dma_queue` sets of a `def.json`, moved out of it.
pub fn dma_queues_from_def(def: &mut Value) -> Vec<DmaQueueSet> {
    let Some(Value::Object(m)) = take(def, "dma_queue") else { return vec![] };
    m.into_iter()
        .map(|(k, x)| {
            let owner = s(&x, "owner");
            DmaQueueSet {
                name: k,
                kind: s(&x, "type"),
                num_queues: u(&x, "num_queues"),
                owner_engine: owner.as_deref().and_then(Engine::from_alias),
                owner,
                semaphore_set: uints(x.get("semaphore_set")),
                semaphore: i(&x, "semaphore"),
                queue_instances: strs(x.get("queue_instances")),
                fabric_path: s(&x, "fabric_path"),
                pinned: b(&x, "pinned"),
                raw: x,
            }
        })
        .collect()
}

/// The variables (`var`) of a `def.json`, moved out of it.
pub fn vars_from_def(def: &mut Value) -> Vec<Variable> {
    let Some(Value::Object(m)) = take(def, "var") else { return vec![] };
    let mut v: Vec<Variable> = m
        .into_iter()
        .map(|(k, x)| Variable {
            name: k,
            kind: s(&x, "type"),
            var_id: u(&x, "var_id"),
            size: u(&x, "size"),
            alignment: u(&x, "alignment"),
            fabric_path: s(&x, "fabric_path"),
            file_name: s(&x, "file_name"),
            backing_variable_off: u(&x, "backing_variable_off"),
            referenced_var_id: u(&x, "referenced_var_id"),
            list: uints(x.get("list")),
            raw: x,
        })
        .collect();
    v.sort_by(|a, b| (a.var_id.unwrap_or(u64::MAX), &a.name).cmp(&(b.var_id.unwrap_or(u64::MAX), &b.name)));
    v
}

/// Content check for `def.json`: engine keys or `var`/`dma_queue` objects.
pub fn looks_like_def(v: &Value) -> bool {
    let Value::Object(m) = v else { return false };
    m.keys().any(|k| k.ends_with("_instr")) || (m.contains_key("var") && m.contains_key("dma_queue"))
}
