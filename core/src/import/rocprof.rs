//! rocprofv3 JSON (`rocprofv3 --output-format json`, ROCprofiler-SDK's tool output) → the model
//! (format `rocprof`). A gzip-compressed file is unwrapped by [`super::container`] first.
//!
//! No sample is shared: the layout below is **inferred** from the ROCprofiler-SDK sources and its
//! tests (what they read from the JSON), not from a specification, and the fixtures in the tests
//! are written from it:
//! - the root is `{"rocprofiler-sdk-tool": [<node>, …]}` (one node per profiled process; a single
//!   object instead of the array is accepted too);
//! - a node has `metadata` (`pid`), `agents` (`id.handle`, `type` 1 = CPU / 2 = GPU, `name`,
//!   `product_name`, `node_id`, `logical_node_type_id`), `kernel_symbols` (an array indexed by
//!   `kernel_id`, or an object keyed by it, with `formatted_kernel_name` / `truncated_kernel_name`
//!   / `kernel_name`), `strings.buffer_records` (an array indexed by a record's `kind`: `{kind,
//!   operations}`, `operations` indexed by the record's `operation`), and `buffer_records`: arrays
//!   of records keyed by kind (`kernel_dispatch`, `memory_copy`, `hip_api`, `hsa_api`,
//!   `marker_api`, `rccl_api`, …);
//! - every record has `start_timestamp`, `end_timestamp` (ns) and `correlation_id.internal`; API
//!   records have `thread_id`, `kind`, `operation`; a kernel dispatch has `dispatch_info`
//!   (`agent_id.handle`, `queue_id.handle`, `kernel_id`, `dispatch_id`, `grid_size` and
//!   `workgroup_size` `{x,y,z}`, `private_segment_size`, `group_segment_size`); a memory copy has
//!   `src_agent_id`/`dst_agent_id` (`.handle`) and `bytes` (the record's `size` is the size of the
//!   C struct, not of the copy).
//!
//! Mapping: one group per GPU agent with one stream track per queue (`kernel` slices named by the
//! kernel symbol, grid/workgroup/LDS/scratch/dispatch id as args) and a "memory copies" track in
//! lanes (`gpu_memcpy` slices named by their operation, e.g. `MEMORY_COPY_HOST_TO_DEVICE`, bytes in
//! the typed column; placed on the GPU end of the copy); one process group with a thread track per
//! `thread_id` holding every `*_api` record as a slice (category = the record kind, e.g. `hip_api`,
//! name = its operation). A flow goes from each API call to the dispatch or copy with the same
//! `correlation_id.internal`. Other record kinds (memory allocations, scratch memory, counters,
//! PC samples) are counted in a `rocprof_skipped_records` warning.
//!
//! What a user sees counted as slices: kernel dispatches + memory copies + API calls.

use serde_json::{Map, Value};
use std::collections::HashMap;

use super::{ImportError, Importer, InputFile, Progress, Sniff};
use crate::model::{
    ArgValue, FlowEnd, GpuWork, GroupId, GroupKind, Layout, SliceDomain, SliceHandle, TrackId, TrackKind,
};
use crate::TraceBuilder;

pub struct Rocprof;

pub const NAME: &str = "rocprof";
const ROOT_KEY: &str = "rocprofiler-sdk-tool";

impl Importer for Rocprof {
    fn name(&self) -> &'static str {
        NAME
    }
    fn sniff(&self, _file_name: &str, prefix: &[u8]) -> Sniff {
        let key = b"\"rocprofiler-sdk-tool\"";
        let start = prefix.iter().position(|c| !c.is_ascii_whitespace());
        if start.is_some_and(|s| prefix[s] == b'{') && prefix.windows(key.len()).any(|w| w == key) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        crate::limits::check_json_size(file.bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
        // the whole file becomes one JSON tree (not streamed): charged before it is parsed
        b.charge(crate::limits::Item::JsonText, file.bytes.len() as u64)?;
        let root: Value = serde_json::from_slice(file.bytes)
            .map_err(|e| ImportError::Invalid { format: NAME, message: format!("not valid JSON: {e}") })?;
        let Some(tool) = root.get(ROOT_KEY) else { return Err(ImportError::NotMine(NAME)) };
        let nodes: Vec<&Value> = match tool {
            Value::Array(a) => a.iter().collect(),
            v @ Value::Object(_) => vec![v],
            _ => {
                return Err(ImportError::Invalid {
                    format: NAME,
                    message: format!("\"{ROOT_KEY}\" is neither an array nor an object"),
                })
            }
        };
        if !progress.report(0, file.bytes.len() as u64) {
            return Err(ImportError::Cancelled);
        }
        for (i, node) in nodes.into_iter().enumerate() {
            match node.as_object() {
                Some(n) => Node::new(b, n, i as i64).run(),
                None => b.warn("rocprof_bad_node", || format!("tool node {i} is not an object; skipped")),
            }
        }
        if b.slice_count() == 0 {
            b.warn("rocprof_no_records", || "no kernel dispatch, memory copy or API record".into());
        }
        Ok(())
    }
}

fn handle(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Object(o) => o.get("handle")?.as_u64(),
        v => v.as_u64(),
    }
}
fn int(v: Option<&Value>) -> Option<i64> {
    let v = v?;
    v.as_i64().or_else(|| v.as_u64().map(|u| i64::try_from(u).unwrap_or(i64::MAX)))
}
fn xyz(v: Option<&Value>) -> Option<String> {
    let o = v?.as_object()?;
    let g = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(format!("[{}, {}, {}]", g("x"), g("y"), g("z")))
}

struct Agent {
    gpu: bool,
    label: String,
}

struct Node<'a> {
    b: &'a mut TraceBuilder,
    n: &'a Map<String, Value>,
    pid: i64,
    agents: HashMap<u64, Agent>,
    gpu_groups: HashMap<u64, GroupId>,
    queues: HashMap<(u64, u64), TrackId>,
    copies: HashMap<u64, TrackId>,
    host: Option<GroupId>,
    threads: HashMap<i64, TrackId>,
    /// correlation id → the API call.
    calls: HashMap<i64, SliceHandle>,
}

impl<'a> Node<'a> {
    fn new(b: &'a mut TraceBuilder, n: &'a Map<String, Value>, index: i64) -> Node<'a> {
        let pid = int(n.get("metadata").and_then(|m| m.get("pid"))).unwrap_or(index);
        Node {
            b,
            n,
            pid,
            agents: HashMap::new(),
            gpu_groups: HashMap::new(),
            queues: HashMap::new(),
            copies: HashMap::new(),
            host: None,
            threads: HashMap::new(),
            calls: HashMap::new(),
        }
    }

    fn kind_name(&self, kind: Option<&Value>) -> Option<&'a Value> {
        let strings = self.n.get("strings")?.get("buffer_records")?.as_array()?;
        strings.get(usize::try_from(kind?.as_u64()?).ok()?)
    }
    fn op_name(&self, kind: Option<&Value>, op: Option<&Value>) -> Option<&'a str> {
        let ops = self.kind_name(kind)?.get("operations")?.as_array()?;
        ops.get(usize::try_from(op?.as_u64()?).ok()?)?.as_str()
    }

    fn run(mut self) {
        self.b.add_metadata("rocprof pid", self.pid.to_string());
        if let Some(Value::Array(agents)) = self.n.get("agents") {
            for a in agents {
                let Some(h) = handle(a.get("id")) else { continue };
                let gpu = a.get("type").and_then(Value::as_u64) == Some(2);
                let node = int(a.get("logical_node_type_id")).or(int(a.get("node_id"))).unwrap_or(h as i64);
                let product = a.get("product_name").or(a.get("name")).and_then(Value::as_str).unwrap_or("");
                let label = if gpu { format!("GPU {node}") } else { format!("CPU {node}") };
                let label = if product.is_empty() { label } else { format!("{label} — {product}") };
                self.agents.insert(h, Agent { gpu, label });
            }
        }
        let kernels = self.kernel_names();
        let empty = Vec::new();
        let records = match self.n.get("buffer_records") {
            Some(Value::Object(r)) => r,
            _ => {
                self.b
                    .warn("rocprof_no_buffer_records", || "a tool node has no buffer_records object".into());
                return;
            }
        };
        // API calls first: the GPU records' flows start at them
        for (key, v) in records {
            if key.ends_with("_api") {
                for r in v.as_array().unwrap_or(&empty) {
                    self.api(key, r);
                }
            }
        }
        for r in records.get("kernel_dispatch").and_then(Value::as_array).unwrap_or(&empty) {
            self.dispatch(r, &kernels);
        }
        for r in records.get("memory_copy").and_then(Value::as_array).unwrap_or(&empty) {
            self.copy(r);
        }
        let skipped: Vec<String> = records
            .iter()
            .filter(|(k, _)| !k.ends_with("_api") && *k != "kernel_dispatch" && *k != "memory_copy")
            .filter_map(|(k, v)| v.as_array().filter(|a| !a.is_empty()).map(|a| format!("{k} ({})", a.len())))
            .collect();
        if !skipped.is_empty() {
            self.b.warn("rocprof_skipped_records", || format!("records not shown: {}", skipped.join(", ")));
        }
    }

    fn kernel_names(&self) -> HashMap<u64, String> {
        let mut out = HashMap::new();
        let name = |s: &Value| {
            ["formatted_kernel_name", "truncated_kernel_name", "kernel_name"]
                .iter()
                .find_map(|k| s.get(*k).and_then(Value::as_str))
                .map(String::from)
        };
        match self.n.get("kernel_symbols") {
            Some(Value::Array(a)) => {
                for (i, s) in a.iter().enumerate() {
                    let id = s.get("kernel_id").and_then(Value::as_u64).unwrap_or(i as u64);
                    if let Some(n) = name(s) {
                        out.insert(id, n);
                    }
                }
            }
            Some(Value::Object(o)) => {
                for (k, s) in o {
                    let id = s.get("kernel_id").and_then(Value::as_u64).or_else(|| k.parse().ok());
                    if let (Some(id), Some(n)) = (id, name(s)) {
                        out.insert(id, n);
                    }
                }
            }
            _ => {}
        }
        out
    }

    fn times(&mut self, r: &Value) -> Option<(i64, i64)> {
        match (int(r.get("start_timestamp")), int(r.get("end_timestamp"))) {
            (Some(s), Some(e)) => Some((s, e.saturating_sub(s))),
            _ => {
                self.b.warn("rocprof_missing_time", || {
                    "a record has no start_timestamp or end_timestamp; skipped".into()
                });
                None
            }
        }
    }

    fn host(&mut self) -> GroupId {
        if let Some(g) = self.host {
            return g;
        }
        let g = self.b.add_group(&format!("Process {}", self.pid), GroupKind::Process);
        self.b.set_group_sort(g, self.pid);
        self.host = Some(g);
        g
    }

    fn gpu(&mut self, agent: u64) -> GroupId {
        if let Some(&g) = self.gpu_groups.get(&agent) {
            return g;
        }
        let label = self.agents.get(&agent).map_or_else(|| format!("agent {agent}"), |a| a.label.clone());
        let g = self.b.add_group(&label, GroupKind::Device);
        self.b.set_group_sort(g, -1_000_000 + self.gpu_groups.len() as i64);
        self.gpu_groups.insert(agent, g);
        g
    }

    fn api(&mut self, key: &str, r: &Value) {
        let Some((start, dur)) = self.times(r) else { return };
        let tid = int(r.get("thread_id")).unwrap_or(0);
        let track = match self.threads.get(&tid) {
            Some(&t) => t,
            None => {
                let g = self.host();
                let t = self.b.add_track(
                    g,
                    &format!("thread {tid}"),
                    TrackKind::Thread,
                    &format!("tid:{}:{tid}", self.pid),
                );
                self.b.set_track_sort(t, tid);
                self.threads.insert(tid, t);
                t
            }
        };
        let name = self.op_name(r.get("kind"), r.get("operation")).map(String::from).unwrap_or_else(|| {
            format!("{key} operation {}", r.get("operation").and_then(Value::as_u64).unwrap_or(0))
        });
        let name = self.b.intern(&name);
        let cat = self.b.intern(key);
        let corr = int(r.get("correlation_id").and_then(|c| c.get("internal")));
        let args = match corr {
            Some(c) => {
                let k = self.b.intern("correlation");
                self.b.add_args([(k, ArgValue::Int(c))])
            }
            None => crate::model::ArgsId::NONE,
        };
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        if let Some(c) = corr {
            self.calls.entry(c).or_insert(h);
        }
    }

    fn flow(&mut self, r: &Value, to: SliceHandle) {
        let corr = int(r.get("correlation_id").and_then(|c| c.get("internal")));
        if let Some(&from) = corr.and_then(|c| self.calls.get(&c)) {
            let (n, c) = (self.b.intern("launch"), self.b.intern("ac2g"));
            self.b.add_flow(FlowEnd::Slice(from), FlowEnd::Slice(to), n, c);
        }
    }

    fn dispatch(&mut self, r: &Value, kernels: &HashMap<u64, String>) {
        let Some((start, dur)) = self.times(r) else { return };
        let info = r.get("dispatch_info");
        let at = |k: &str| info.and_then(|i| i.get(k));
        let agent = handle(at("agent_id")).unwrap_or(0);
        let queue = handle(at("queue_id")).unwrap_or(0);
        let track = match self.queues.get(&(agent, queue)) {
            Some(&t) => t,
            None => {
                let g = self.gpu(agent);
                let n = self.queues.keys().filter(|(a, _)| *a == agent).count();
                let t = self.b.add_track(
                    g,
                    &format!("queue {n}"),
                    TrackKind::Stream,
                    &format!("queue:{agent}:{queue}"),
                );
                self.b.set_track_sort(t, n as i64);
                self.queues.insert((agent, queue), t);
                t
            }
        };
        let kid = at("kernel_id").and_then(Value::as_u64);
        let name = kid
            .and_then(|k| kernels.get(&k).cloned())
            .unwrap_or_else(|| format!("kernel {}", kid.unwrap_or(0)));
        let name = self.b.intern(&name);
        let cat = self.b.intern("kernel");
        let mut args = Vec::new();
        for (key, v) in [("grid", xyz(at("grid_size"))), ("workgroup", xyz(at("workgroup_size")))] {
            if let Some(v) = v {
                let k = self.b.intern(key);
                args.push((k, ArgValue::Json(self.b.intern(&v))));
            }
        }
        for (key, src) in [
            ("dispatch id", "dispatch_id"),
            ("kernel id", "kernel_id"),
            ("LDS bytes", "group_segment_size"),
            ("scratch bytes", "private_segment_size"),
        ] {
            if let Some(v) = int(at(src)) {
                let k = self.b.intern(key);
                args.push((k, ArgValue::Int(v)));
            }
        }
        if let Some(c) = int(r.get("correlation_id").and_then(|c| c.get("internal"))) {
            let k = self.b.intern("correlation");
            args.push((k, ArgValue::Int(c)));
        }
        let args = self.b.add_args(args);
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        self.b.set_slice_domain(h, SliceDomain { gpu_work: Some(GpuWork::Kernel), ..SliceDomain::default() });
        self.flow(r, h);
    }

    fn copy(&mut self, r: &Value) {
        let Some((start, dur)) = self.times(r) else { return };
        let (src, dst) = (handle(r.get("src_agent_id")), handle(r.get("dst_agent_id")));
        let is_gpu = |a: Option<u64>| a.and_then(|a| self.agents.get(&a)).is_some_and(|a| a.gpu);
        let agent = if is_gpu(dst) {
            dst
        } else if is_gpu(src) {
            src
        } else {
            dst.or(src)
        }
        .unwrap_or(0);
        let track = match self.copies.get(&agent) {
            Some(&t) => t,
            None => {
                let g = self.gpu(agent);
                let t = self.b.add_track(g, "memory copies", TrackKind::Stream, &format!("copies:{agent}"));
                self.b.set_track_layout(t, Layout::Lanes);
                self.b.set_track_sort(t, i64::MAX / 4);
                self.copies.insert(agent, t);
                t
            }
        };
        let name = self.op_name(r.get("kind"), r.get("operation")).unwrap_or("MEMORY_COPY").to_string();
        let name = self.b.intern(&name);
        let cat = self.b.intern("gpu_memcpy");
        let bytes = r.get("bytes").and_then(Value::as_u64);
        let mut args = Vec::new();
        if let Some(v) = bytes {
            let k = self.b.intern("bytes");
            args.push((k, ArgValue::UInt(v)));
        }
        if let Some(c) = int(r.get("correlation_id").and_then(|c| c.get("internal"))) {
            let k = self.b.intern("correlation");
            args.push((k, ArgValue::Int(c)));
        }
        let args = self.b.add_args(args);
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        let bytes = bytes.unwrap_or(u64::MAX);
        self.b.set_slice_domain(
            h,
            SliceDomain { bytes, gpu_work: Some(GpuWork::Memcpy), ..SliceDomain::default() },
        );
        self.flow(r, h);
    }
}

#[cfg(test)]
mod tests;
