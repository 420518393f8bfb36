//! DLProf's database `dlprof_dldb.sqlite` → the model (format `dlprof-sqlite`).
//!
//! Observed on DLProf v1.8.0 databases (`db_version` 1.8.0, `../shared/samples/dlprof`); every
//! table and column is looked up by name, a missing one is a warning (`dlprof_missing_table` /
//! `dlprof_missing_column`). Strings are ids into `dictionary(id, string)`; aggregate numbers
//! are ids into `metric(id, count, max, min, sum, avg)`.
//!
//! Timeline (times are the database's ns, the Nsight session clock DLProf read them from):
//! - **Ops**: each `read_only_op_instances` row is a slice on its host thread (`process_id`,
//!   `thread_id`), named by its op (`read_only_ops.op_name`), category `op`, with op type,
//!   direction, data type and stack trace as args.
//! - **GPU work**: `read_only_kernels` (`kernel`, grid/block from `read_only_grid_block`, tensor-core
//!   use `uses_tc`, long name), `read_only_memcpys` (`gpu_memcpy`) and `read_only_memsets`
//!   (`gpu_memset`) rows are slices on one track per device (`device_id`; the database keeps no
//!   stream; concurrent work is laid out in lanes), from `gpu_start` to `gpu_stop`; byte counts go to the typed `bytes` column. Each has
//!   a launch flow from the op slice enclosing its `api_start` on its thread (its API call
//!   interval itself is kept as `api_start_ns`/`api_dur_ns` args, not as a slice).
//! - **Iterations**: `iteration_list` rows are slices on an "Iterations" track and the model's
//!   iterations (so the dashboard's iteration range works).
//!
//! What a user sees counted as slices: op instances + kernels + memcpys + memsets + iterations.
//! `read_only_cuda_calls` and `read_only_cuda_syncs` (API intervals without GPU work) are not
//! slices.
//!
//! Report tables (the dashboard's DLProf tables), from the database's own aggregates:
//! System Config (`read_only_system_config`, `read_only_gpu_infos`; also metadata), Summary Report
//! (`model_summary`), ops (`op_nodes` + `node_time_metrics` → DLProf's `dlprof_detailed.csv`
//! columns), kernels (`kernel_summaries` + metrics → `dlprof_kernel.csv` columns), op types
//! (`op_type_metrics`), recommendations (`expert_systems_feedback`). The `view_*` views are not
//! read (their SQL comes from the file).

use crate::db::{Db, Val};
use loupe_core::import::{ImportError, Importer, InputFile, Progress, Sniff};
use loupe_core::model::WarningKind;
use loupe_core::model::{
    ArgValue, Cell, Column, ColumnUnit, DataTable, FlowEnd, GpuWork, GroupId, GroupKind, SliceDomain,
    TableKind, TrackId, TrackKind,
};
use loupe_core::{StrId, TraceBuilder};
use std::collections::HashMap;

pub struct DlprofDb;

pub const NAME: &str = "dlprof-sqlite";

impl Importer for DlprofDb {
    fn name(&self) -> &'static str {
        NAME
    }
    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff {
        if !loupe_core::import::sqlite::is_sqlite(prefix) {
            Sniff::No
        } else if file_name.to_ascii_lowercase().contains("dlprof_dldb") {
            Sniff::Yes
        } else {
            Sniff::Maybe
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        let db = Db::open(file.bytes, NAME)?;
        let ours = ["read_only_ops", "read_only_kernels", "read_only_system_config", "op_nodes"]
            .iter()
            .any(|t| db.has_table(t));
        if !ours {
            return Err(ImportError::NotMine(NAME));
        }
        if !progress.report(0, file.bytes.len() as u64) {
            return Err(ImportError::Cancelled);
        }
        Dl {
            db: &db,
            b,
            dict: HashMap::new(),
            metrics: HashMap::new(),
            threads: HashMap::new(),
            devices: HashMap::new(),
            source: file.name.to_string(),
        }
        .run()
    }
}

/// One `metric` row.
#[derive(Debug, Clone, Copy, Default)]
struct Metric {
    count: Option<i64>,
    max: Option<f64>,
    min: Option<f64>,
    sum: Option<f64>,
    avg: Option<f64>,
}

struct Dl<'a> {
    db: &'a Db,
    b: &'a mut TraceBuilder,
    dict: HashMap<i64, String>,
    metrics: HashMap<i64, Metric>,
    threads: HashMap<(i64, i64), TrackId>,
    devices: HashMap<i64, TrackId>,
    source: String,
}

/// An op's facts from `read_only_ops`.
#[derive(Debug, Clone, Default)]
struct Op {
    name: String,
    op_id: String,
    op_type: String,
    direction: String,
    data_type: String,
    stack_trace: String,
}

fn cell(v: &Val) -> Cell {
    match v {
        Val::Null => Cell::Empty,
        Val::Int(i) => Cell::Int(*i),
        Val::Real(f) if f.is_finite() => Cell::Float(*f),
        Val::Real(_) => Cell::Empty,
        Val::Text(s) => Cell::parse(s),
    }
}

fn table(kind: TableKind, section: &str, source: &str, cols: &[&str], rows: Vec<Vec<Cell>>) -> DataTable {
    DataTable {
        kind,
        section: section.to_string(),
        source_file: source.to_string(),
        columns: cols
            .iter()
            .map(|c| Column { name: c.to_string(), unit: ColumnUnit::from_header(c) })
            .collect(),
        rows,
    }
}

impl<'a> Dl<'a> {
    fn scan(&mut self, table: &str, cols: &[&str], required: bool) -> Vec<Vec<Val>> {
        let mut rows = Vec::new();
        match self.db.scan(table, cols, |r| {
            rows.push(r.to_vec());
            true
        }) {
            Ok(Some(missing)) => {
                for m in missing {
                    self.b.warn(WarningKind::DlprofMissingColumn, || format!("{table} has no column {m}"));
                }
            }
            Ok(None) if required => {
                self.b.warn(WarningKind::DlprofMissingTable, || format!("no {table} table"))
            }
            Ok(None) => {}
            Err(e) => self
                .b
                .warn(WarningKind::SqliteReadError, || format!("{table}: {e}; the rows before it were kept")),
        }
        rows
    }

    fn s(&self, v: &Val) -> String {
        match v {
            Val::Int(i) => self.dict.get(i).cloned().unwrap_or_default(),
            Val::Text(t) => t.clone(),
            _ => String::new(),
        }
    }
    fn metric(&self, v: &Val) -> Metric {
        v.int().and_then(|i| self.metrics.get(&i).copied()).unwrap_or_default()
    }

    fn thread(&mut self, pid: i64, tid: i64) -> TrackId {
        if let Some(&t) = self.threads.get(&(pid, tid)) {
            return t;
        }
        let g = self.host(pid);
        let t = self.b.add_track(g, &format!("thread {tid}"), TrackKind::Thread, &format!("tid:{pid}:{tid}"));
        self.b.set_track_sort(t, tid);
        self.threads.insert((pid, tid), t);
        t
    }
    fn host(&mut self, pid: i64) -> GroupId {
        // one group per process: find it through any of its threads
        if let Some((_, &t)) = self.threads.iter().find(|((p, _), _)| *p == pid) {
            let _ = t;
        }
        let name = format!("Process {pid}");
        for g in 0..self.b.group_count() {
            let g = GroupId(g as u32);
            if self.b.string(self.b.group_name(g)) == name {
                return g;
            }
        }
        let g = self.b.add_group(&name, GroupKind::Process);
        self.b.set_group_sort(g, pid);
        g
    }
    fn device(&mut self, device: i64, gpu_names: &HashMap<i64, String>) -> TrackId {
        if let Some(&t) = self.devices.get(&device) {
            return t;
        }
        let name = match gpu_names.get(&device) {
            Some(n) if !n.is_empty() => format!("GPU {device} — {n}"),
            _ => format!("GPU {device}"),
        };
        let g = self.b.add_group(&name, GroupKind::Device);
        self.b.set_group_sort(g, -1_000_000 + device);
        let t = self.b.add_track(g, "kernels and memory", TrackKind::Stream, &format!("gpu:{device}"));
        // the database keeps no stream: concurrent work gets lanes instead of an overlap track
        self.b.set_track_layout(t, loupe_core::model::Layout::Lanes);
        self.devices.insert(device, t);
        t
    }

    fn run(mut self) -> Result<(), ImportError> {
        self.dict = self.db.strings("dictionary", "id", "string").unwrap_or_default();
        if !self.db.has_table("dictionary") {
            self.b.warn(WarningKind::DlprofMissingTable, || {
                "no dictionary table: names are shown as numbers".into()
            });
        }
        for r in self.scan("metric", &["id", "count", "max", "min", "sum", "avg"], true) {
            if let Some(id) = r[0].int() {
                let m = Metric {
                    count: r[1].int(),
                    max: r[2].real(),
                    min: r[3].real(),
                    sum: r[4].real(),
                    avg: r[5].real(),
                };
                self.metrics.insert(id, m);
            }
        }
        let gpu_names = self.system_config();
        let ops = self.ops();
        self.timeline(&ops, &gpu_names);
        self.summary();
        self.op_table(&ops);
        self.kernel_table(&ops);
        self.op_type_table();
        self.recommendations();
        if self.b.slice_count() == 0 {
            self.b.warn(WarningKind::DlprofNoEvents, || {
                "the database has no op, kernel, memory or iteration rows".into()
            });
        }
        Ok(())
    }

    fn system_config(&mut self) -> HashMap<i64, String> {
        const COLS: &[&str] = &[
            "num_gpus",
            "cpu_model",
            "driver_version",
            "framework",
            "cuda_version",
            "cudnn_version",
            "nsys_version",
            "dlprof_version",
            "dlprof_build",
            "profile_name",
            "mode_string",
            "original_command",
        ];
        const LABELS: &[&str] = &[
            "GPU Count",
            "CPU Model",
            "GPU Driver Version",
            "Framework",
            "CUDA Version",
            "cuDNN Version",
            "NSys Version",
            "DLProf Version",
            "DLProf Build",
            "Profile Name",
            "Mode",
            "Command",
        ];
        let mut kv: Vec<(String, Val)> = Vec::new();
        if let Some(r) = self.scan("read_only_system_config", COLS, true).into_iter().next() {
            kv.extend(LABELS.iter().zip(r).map(|(l, v)| (l.to_string(), v)));
        }
        let mut names = HashMap::new();
        let gpus = self.scan(
            "read_only_gpu_infos",
            &["device_id", "gpu_name", "compute_capability_major", "compute_capability_minor", "sm_count"],
            false,
        );
        for r in gpus {
            let d = r[0].int().unwrap_or(0);
            let name = self.s(&r[1]);
            kv.push((format!("GPU {d} Name"), Val::Text(name.clone())));
            kv.push((
                format!("GPU {d} Compute Capability"),
                Val::Text(format!("{}.{}", r[2].display(), r[3].display())),
            ));
            kv.push((format!("GPU {d} SM Count"), r[4].clone()));
            names.insert(d, name);
        }
        if let Some(r) = self.scan("db_version", &["current_version"], false).into_iter().next() {
            kv.push(("Database Version".into(), r[0].clone()));
        }
        for (k, v) in &kv {
            let v = v.display();
            if !v.is_empty() {
                self.b.add_metadata(k.clone(), v);
            }
        }
        let rows = kv.into_iter().map(|(k, v)| vec![Cell::Text(k), cell(&v)]).collect();
        let t = table(TableKind::DlprofSummary, "System Config", &self.source, &["Key", "Value"], rows);
        self.b.add_table(t);
        names
    }

    fn ops(&mut self) -> HashMap<i64, Op> {
        const COLS: &[&str] = &[
            "id",
            "op_id",
            "op_name",
            "op_type_id",
            "direction_id",
            "data_type_id",
            "stack_trace",
            "op_id_id",
        ];
        let mut out = HashMap::new();
        for r in self.scan("read_only_ops", COLS, true) {
            let Some(id) = r[0].int() else { continue };
            let name = r[2].display();
            let op_id = match &r[1] {
                Val::Text(t) => t.clone(),
                _ => self.s(&r[7]),
            };
            out.insert(
                id,
                Op {
                    name: if name.is_empty() { op_id.clone() } else { name },
                    op_id,
                    op_type: self.s(&r[3]),
                    direction: self.s(&r[4]),
                    data_type: self.s(&r[5]),
                    stack_trace: r[6].display(),
                },
            );
        }
        out
    }

    fn timeline(&mut self, ops: &HashMap<i64, Op>, gpu_names: &HashMap<i64, String>) {
        let k = |b: &mut TraceBuilder, s: &str| b.intern(s);
        let op_cat = k(self.b, "op");
        let keys: Vec<StrId> = ["op id", "op type", "direction", "data type", "stack trace"]
            .iter()
            .map(|s| k(self.b, s))
            .collect();
        // ops
        for r in self.scan(
            "read_only_op_instances",
            &["read_only_ops_id", "cpu_start", "cpu_stop", "process_id", "thread_id"],
            true,
        ) {
            let (Some(start), Some(stop)) = (r[1].int(), r[2].int()) else {
                self.b.warn(WarningKind::DlprofMissingTime, || {
                    "an op instance has no cpu_start or cpu_stop; skipped".into()
                });
                continue;
            };
            let op = r[0].int().and_then(|i| ops.get(&i)).cloned().unwrap_or_default();
            let track = self.thread(r[3].int().unwrap_or(0), r[4].int().unwrap_or(0));
            let mut args = Vec::new();
            for (key, v) in
                keys.iter().zip([&op.op_id, &op.op_type, &op.direction, &op.data_type, &op.stack_trace])
            {
                if !v.is_empty() {
                    args.push((*key, ArgValue::Str(self.b.intern(v))));
                }
            }
            let args = self.b.add_args(args);
            let name = if op.name.is_empty() { "(unknown op)" } else { &op.name };
            let name = self.b.intern(name);
            self.b.add_slice(track, start, stop.saturating_sub(start), name, op_cat, args);
        }
        // GPU work
        let grid_block: HashMap<i64, String> = self
            .scan("read_only_grid_block", &["id", "x", "y", "z"], false)
            .into_iter()
            .filter_map(|r| {
                Some((r[0].int()?, format!("[{}, {}, {}]", r[1].display(), r[2].display(), r[3].display())))
            })
            .collect();
        let ak: Vec<StrId> = [
            "device",
            "op",
            "api_start_ns",
            "api_dur_ns",
            "grid",
            "block",
            "uses tensor cores",
            "long name",
            "bytes",
            "copy kind",
        ]
        .iter()
        .map(|s| k(self.b, s))
        .collect();
        let (launch, flow_cat) = (k(self.b, "launch"), k(self.b, "ac2g"));
        let kinds: [(&str, &str, &[&str], GpuWork); 3] = [
            (
                "read_only_kernels",
                "kernel",
                &["grid_id", "block_id", "uses_tc", "long_name_id"],
                GpuWork::Kernel,
            ),
            ("read_only_memcpys", "gpu_memcpy", &["num_bytes", "copy_kind"], GpuWork::Memcpy),
            ("read_only_memsets", "gpu_memset", &["num_bytes"], GpuWork::Memset),
        ];
        for (tbl, cat, extra, work) in kinds {
            let mut cols = vec![
                "read_only_ops_id",
                "name_id",
                "api_start",
                "api_stop",
                "gpu_start",
                "gpu_stop",
                "device_id",
                "process_id",
                "thread_id",
            ];
            cols.extend_from_slice(extra);
            let required = tbl == "read_only_kernels";
            let cat = k(self.b, cat);
            for r in self.scan(tbl, &cols, required) {
                let (Some(start), Some(stop)) = (r[4].int(), r[5].int()) else {
                    self.b.warn(WarningKind::DlprofMissingTime, || {
                        format!("a {tbl} row has no gpu_start or gpu_stop; skipped")
                    });
                    continue;
                };
                let device = r[6].int().unwrap_or(0);
                let track = self.device(device, gpu_names);
                let name = self.s(&r[1]);
                let name = self.b.intern(if name.is_empty() { "(unnamed)" } else { &name });
                let mut args = vec![(ak[0], ArgValue::Int(device))];
                if let Some(op) = r[0].int().and_then(|i| ops.get(&i)) {
                    args.push((ak[1], ArgValue::Str(self.b.intern(&op.name))));
                }
                if let (Some(a), Some(z)) = (r[2].int(), r[3].int()) {
                    args.push((ak[2], ArgValue::Int(a)));
                    args.push((ak[3], ArgValue::Int(z.saturating_sub(a))));
                }
                let mut bytes = None;
                if required {
                    for (i, key) in [(9, ak[4]), (10, ak[5])] {
                        if let Some(g) = r[i].int().and_then(|g| grid_block.get(&g)) {
                            args.push((key, ArgValue::Json(self.b.intern(g))));
                        }
                    }
                    if let Some(tc) = r[11].int() {
                        args.push((ak[6], ArgValue::Bool(tc != 0)));
                    }
                    let long = self.s(&r[12]);
                    if !long.is_empty() {
                        args.push((ak[7], ArgValue::Str(self.b.intern(&long))));
                    }
                } else {
                    bytes = r[9].int().and_then(|v| u64::try_from(v).ok());
                    if let Some(v) = bytes {
                        args.push((ak[8], ArgValue::UInt(v)));
                    }
                    if let Some(v) = r.get(10).and_then(|v| v.int()) {
                        args.push((ak[9], ArgValue::Int(v)));
                    }
                }
                let args = self.b.add_args(args);
                let h = self.b.add_slice(track, start, stop.saturating_sub(start), name, cat, args);
                // the table the row came from is its kind of work
                let bytes = bytes.unwrap_or(u64::MAX);
                self.b.set_slice_domain(
                    h,
                    SliceDomain { bytes, gpu_work: Some(work), ..SliceDomain::default() },
                );
                if let (Some(a), Some(p), Some(t)) = (r[2].int(), r[7].int(), r[8].int()) {
                    let thread = self.thread(p, t);
                    self.b.add_flow(
                        FlowEnd::Enclosing { track: thread, ts_ns: a },
                        FlowEnd::Slice(h),
                        launch,
                        flow_cat,
                    );
                }
            }
        }
        // iterations
        let iters = self.scan("iteration_list", &["iter_value", "start_time", "stop_time"], true);
        if !iters.is_empty() {
            let pid = self.threads.keys().next().map_or(0, |k| k.0);
            let g = self.host(pid);
            let t = self.b.add_track(g, "Iterations", TrackKind::Thread, "iterations");
            self.b.set_track_sort(t, -1);
            let cat = k(self.b, "iteration");
            for r in iters {
                let (Some(n), Some(s), Some(e)) = (r[0].int(), r[1].int(), r[2].int()) else { continue };
                let name = self.b.intern(&format!("Iteration {n}"));
                self.b.add_slice(t, s, e.saturating_sub(s), name, cat, loupe_core::model::ArgsId::NONE);
                self.b.add_iteration(n, s, e);
            }
        }
    }

    fn summary(&mut self) {
        const COLS: &[&str] = &[
            "wall_time",
            "gpu_utilization",
            "tc_utilization",
            "tc_duration_pct",
            "non_tc_duration_pct",
            "memory_duration_pct",
            "dataloader_duration_pct",
            "io_duration_pct",
            "cpu_duration_pct",
            "other_duration_pct",
            "iter_total",
            "iter_aggregated",
            "iter_start",
            "iter_stop",
            "avg_iteration_time",
            "iteration_time_std_dev",
        ];
        // labels as in dlprof_summary.csv
        const LABELS: &[&str] = &[
            "Wall Clock Time (ns)",
            "GPU Utilization %",
            "Tensor Core Kernel Utilization %",
            "Tensor Core Kernel Duration %",
            "Non-Tensor Core Kernel Duration %",
            "Memory Duration %",
            "Dataloader Duration %",
            "IO Duration %",
            "CPU Duration %",
            "Other Duration %",
            "Total Iterations",
            "Aggregated Iterations",
            "Start Iteration",
            "Stop Iteration",
            "Average Iteration Time (ns)",
            "Iteration Time Standard Deviation",
        ];
        let Some(r) = self.scan("model_summary", COLS, false).into_iter().next() else { return };
        let rows: Vec<Vec<Cell>> =
            LABELS.iter().zip(&r).map(|(l, v)| vec![Cell::Text(l.to_string()), cell(v)]).collect();
        for (l, v) in LABELS.iter().zip(&r) {
            if !matches!(v, Val::Null) {
                self.b.add_metadata(format!("DLProf {l}"), v.display());
            }
        }
        let t = table(TableKind::DlprofSummary, "Summary Report", &self.source, &["Key", "Value"], rows);
        self.b.add_table(t);
    }

    fn op_table(&mut self, ops: &HashMap<i64, Op>) {
        let mut ntm: HashMap<i64, [Val; 4]> = HashMap::new();
        for r in self.scan(
            "node_time_metrics",
            &[
                "id",
                "cpu_time_metric_id",
                "gpu_time_metric_id",
                "cpu_overhead_time_metric_id",
                "gpu_idle_time_metric_id",
            ],
            false,
        ) {
            if let Some(id) = r[0].int() {
                ntm.insert(id, [r[1].clone(), r[2].clone(), r[3].clone(), r[4].clone()]);
            }
        }
        let rows_in = self.scan(
            "op_nodes",
            &[
                "read_only_ops_id",
                "node_time_metrics_id",
                "num_calls",
                "tc_eligible",
                "using_tc",
                "kernel_calls",
            ],
            false,
        );
        if rows_in.is_empty() {
            return;
        }
        let mut cols: Vec<String> = [
            "Op ID",
            "Op Name",
            "Direction",
            "Op Type",
            "No. Calls",
            "TC Eligible",
            "Using TC",
            "Kernel Calls",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for what in ["CPU Time", "GPU Time", "CPU Overhead", "GPU Idle"] {
            for agg in ["Total", "Avg.", "Min", "Max"] {
                cols.push(format!("{agg} {what} (ns)"));
            }
        }
        cols.push("Data Type".into());
        cols.push("Stack Trace".into());
        let yes_no = |v: &Val| match v.int() {
            Some(0) => Cell::Text("no".into()),
            Some(_) => Cell::Text("yes".into()),
            None => Cell::Empty,
        };
        let f = |x: Option<f64>| {
            x.map_or(Cell::Empty, |v| {
                if v.fract() == 0.0 && v.abs() < 9e15 {
                    Cell::Int(v as i64)
                } else {
                    Cell::Float(v)
                }
            })
        };
        let mut rows = Vec::new();
        for r in rows_in {
            let op = r[0].int().and_then(|i| ops.get(&i)).cloned().unwrap_or_default();
            let mut row = vec![
                Cell::Text(op.op_id.clone()),
                Cell::Text(op.name.clone()),
                Cell::Text(op.direction.clone()),
                Cell::Text(op.op_type.clone()),
                cell(&r[2]),
                yes_no(&r[3]),
                yes_no(&r[4]),
                cell(&r[5]),
            ];
            let m = r[1].int().and_then(|i| ntm.get(&i)).cloned();
            for i in 0..4 {
                let mm = m.as_ref().map(|m| self.metric(&m[i])).unwrap_or_default();
                row.extend([f(mm.sum), f(mm.avg), f(mm.min), f(mm.max)]);
            }
            row.push(Cell::Text(op.data_type.clone()));
            row.push(Cell::Text(op.stack_trace.clone()));
            rows.push(row);
        }
        let cols: Vec<&str> = cols.iter().map(|s| s.as_str()).collect();
        let t = table(TableKind::DlprofOps, "All Iterations", &self.source, &cols, rows);
        self.b.add_table(t);
    }

    fn kernel_table(&mut self, ops: &HashMap<i64, Op>) {
        let rows_in = self.scan(
            "kernel_summaries",
            &["read_only_ops_id", "kernel_name_id", "api_time_metric_id", "gpu_time_metric_id", "uses_tc"],
            false,
        );
        if rows_in.is_empty() {
            return;
        }
        const COLS: &[&str] = &[
            "Kernel Name",
            "Op ID",
            "Op Name",
            "Direction",
            "Uses TC",
            "Calls",
            "Total GPU Time (ns)",
            "Avg GPU Time (ns)",
            "Min GPU Time (ns)",
            "Max GPU Time (ns)",
            "Total API Time (ns)",
            "Avg API Time (ns)",
            "Min API Time (ns)",
            "Max API Time (ns)",
        ];
        let f = |x: Option<f64>| {
            x.map_or(Cell::Empty, |v| {
                if v.fract() == 0.0 && v.abs() < 9e15 {
                    Cell::Int(v as i64)
                } else {
                    Cell::Float(v)
                }
            })
        };
        let mut rows = Vec::new();
        for r in rows_in {
            let op = r[0].int().and_then(|i| ops.get(&i)).cloned().unwrap_or_default();
            let (api, gpu) = (self.metric(&r[2]), self.metric(&r[3]));
            let uses = match r[4].int() {
                Some(0) => Cell::Text("no".into()),
                Some(_) => Cell::Text("yes".into()),
                None => Cell::Empty,
            };
            rows.push(vec![
                Cell::Text(self.s(&r[1])),
                Cell::Text(op.op_id),
                Cell::Text(op.name),
                Cell::Text(op.direction),
                uses,
                gpu.count.map_or(Cell::Empty, Cell::Int),
                f(gpu.sum),
                f(gpu.avg),
                f(gpu.min),
                f(gpu.max),
                f(api.sum),
                f(api.avg),
                f(api.min),
                f(api.max),
            ]);
        }
        let t = table(TableKind::DlprofKernels, "Kernel Report", &self.source, COLS, rows);
        self.b.add_table(t);
    }

    fn op_type_table(&mut self) {
        let mut ntm: HashMap<i64, [Val; 2]> = HashMap::new();
        for r in self.scan("node_time_metrics", &["id", "cpu_time_metric_id", "gpu_time_metric_id"], false) {
            if let Some(id) = r[0].int() {
                ntm.insert(id, [r[1].clone(), r[2].clone()]);
            }
        }
        let rows_in = self.scan(
            "op_type_metrics",
            &["op_node_type_id", "op_type_metrics_id", "num_nodes", "num_calls"],
            false,
        );
        if rows_in.is_empty() {
            return;
        }
        const COLS: &[&str] = &["Op Type", "# Ops", "# Calls", "Total CPU Time (ns)", "Total GPU Time (ns)"];
        let f = |x: Option<f64>| {
            x.map_or(Cell::Empty, |v| {
                if v.fract() == 0.0 && v.abs() < 9e15 {
                    Cell::Int(v as i64)
                } else {
                    Cell::Float(v)
                }
            })
        };
        let mut rows = Vec::new();
        for r in rows_in {
            let m = r[1].int().and_then(|i| ntm.get(&i)).cloned();
            let (cpu, gpu) = match &m {
                Some(m) => (self.metric(&m[0]), self.metric(&m[1])),
                None => (Metric::default(), Metric::default()),
            };
            rows.push(vec![Cell::Text(self.s(&r[0])), cell(&r[2]), cell(&r[3]), f(cpu.sum), f(gpu.sum)]);
        }
        let t = table(TableKind::DlprofOpTypes, "Op Type Summary Report", &self.source, COLS, rows);
        self.b.add_table(t);
    }

    fn recommendations(&mut self) {
        let rows: Vec<Vec<Cell>> = self
            .scan("expert_systems_feedback", &["problem", "recommendation"], false)
            .into_iter()
            .map(|r| vec![Cell::Text(self.s(&r[0])), Cell::Text(self.s(&r[1]))])
            .collect();
        if !rows.is_empty() {
            let t = table(
                TableKind::DlprofRecommendations,
                "Expert Systems Feedback",
                &self.source,
                &["Problem", "Recommendation"],
                rows,
            );
            self.b.add_table(t);
        }
    }
}
