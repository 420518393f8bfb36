//! Nsight Systems `nsys export --type sqlite` → the model (format `nsys-sqlite`).
//!
//! Observed on Nsight Systems 2022.1.3.3 exports (schema 2.9.1, `../shared/samples/
//! nsight-systems-sqlite`); newer tables (`OSRT_API`, `GPU_METRICS`, `ENUM_*`) follow the
//! documented column names and are read when present. Every table and column is looked up by name;
//! a missing one is a warning (`nsys_missing_table` / `nsys_missing_column`), never an error,
//! unless nothing at all identifies an Nsight export (then the file is not ours).
//!
//! Mapping (times are the export's ns, on its session clock):
//! - **Processes** (`globalPid`/`globalTid >> 24 & 0xFFFFFF`; `PROCESSES` names them) are groups;
//!   each `globalTid` is a thread track named from `ThreadNames`.
//! - **GPU activities**: one group per `deviceId` (named from `TARGET_INFO_GPU`), one stream
//!   track per (device, context, stream). `CUPTI_ACTIVITY_KIND_KERNEL` rows are `kernel` slices
//!   named by `demangledName` (else `shortName`, `mangledName`; `StringIds` resolved) with grid,
//!   block, registers per thread, static/dynamic shared memory, stream, device, context and
//!   correlation as args; `MEMCPY` rows are `gpu_memcpy` slices named like Kineto's (`Memcpy HtoD
//!   (Pinned -> Device)`, from `copyKind`/`srcKind`/`dstKind`, CUPTI's enum values or the
//!   export's `ENUM_*` tables) and `MEMSET` rows `gpu_memset` slices; their byte count goes to the
//!   typed `bytes` column. The category strings are Kineto's, so the GPU analyses apply.
//! - **CUDA API calls** (`CUPTI_ACTIVITY_KIND_RUNTIME`, which holds runtime and driver calls):
//!   `cuda_runtime` slices (`cuda_driver` for names starting `cu` but not `cuda`) on their
//!   thread, named without the `_vNNNN` version suffix; each is the start of a flow to the GPU
//!   activity with the same `correlationId` in the same process (the launch).
//! - **NVTX** (`NVTX_EVENTS`): every row with an end is a range; push/pop ranges (and ranges of
//!   an unknown type) nest on their thread (category `nvtx`), start/end ranges (`eventType` 60)
//!   may overlap and go to an async track per process and domain. Rows without an end are marks
//!   (instants). Text from `text` or `textId`; domain names from domain-create rows (`eventType`
//!   75), category names from `eventType` 33 rows; colour (ARGB) as `#rrggbb`. The event type
//!   numbers (59 push/pop, 60 start/end, 34 mark, 33 category, 75 domain) are the export
//!   documentation's; the samples contain only 59.
//! - **OS runtime calls** (`OSRT_API`): `osrt` slices on their thread.
//! - **Synchronization** (`CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`): `cuda_sync` slices on a
//!   per-device async track (they span running kernels, so not on the stream track).
//! - **Profiler overhead** (`PROFILER_OVERHEAD`): `overhead` slices on an async track per process.
//! - **GPU metrics** (`GPU_METRICS`, names from `TARGET_INFO_GPU_METRICS`): one counter per GPU
//!   (`typeId`) and metric.
//! - `EXPORT_META_DATA`, `TARGET_INFO_GPU` and `TARGET_INFO_SESSION_START_TIME` become metadata.
//!
//! What a user sees counted as slices (the CLI's `slices`): kernels + memcpys + memsets + CUDA API
//! calls + OS runtime calls + NVTX ranges with an end + synchronization rows + profiler-overhead
//! rows.

use crate::db::{Db, Val};
use loupe_core::import::{ImportError, Importer, InputFile, Progress, Sniff};
use loupe_core::model::{
    ArgValue, ArgsId, FlowEnd, GpuWork, GroupId, GroupKind, Layout, SliceDomain, SliceHandle, TrackId,
    TrackKind,
};
use loupe_core::model::{HostWork, WarningKind};
use loupe_core::{StrId, TraceBuilder};
use std::collections::HashMap;

pub struct NsysSqlite;

pub const NAME: &str = "nsys-sqlite";

/// Tables whose presence says "an Nsight Systems export".
const MARKER_TABLES: &[&str] = &[
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "NVTX_EVENTS",
    "OSRT_API",
    "TARGET_INFO_SESSION_START_TIME",
];

impl Importer for NsysSqlite {
    fn name(&self) -> &'static str {
        NAME
    }
    fn sniff(&self, file_name: &str, prefix: &[u8]) -> Sniff {
        if !loupe_core::import::sqlite::is_sqlite(prefix) {
            return Sniff::No;
        }
        if file_name.to_ascii_lowercase().contains("dlprof_dldb") {
            Sniff::Maybe
        } else {
            Sniff::Yes
        }
    }
    fn import(
        &self,
        file: &InputFile<'_>,
        b: &mut TraceBuilder,
        progress: &mut dyn Progress,
    ) -> Result<(), ImportError> {
        let db = Db::open(file.bytes, NAME)?;
        let ours = MARKER_TABLES.iter().any(|t| db.has_table(t))
            || (db.has_table("StringIds") && db.has_table("EXPORT_META_DATA"));
        if !ours {
            return Err(ImportError::NotMine(NAME));
        }
        Nsys::new(&db, b).run(progress, file.bytes.len() as u64)
    }
}

/// Packed `globalTid`/`globalPid` → pid.
pub fn pid_of(global: i64) -> i64 {
    (global >> 24) & 0xFF_FFFF
}
/// Packed `globalTid` → tid.
pub fn tid_of(global: i64) -> i64 {
    global & 0xFF_FFFF
}

/// `cudaLaunchKernel_v7000` → `cudaLaunchKernel`.
pub fn api_name(raw: &str) -> &str {
    if let Some(i) = raw.rfind("_v") {
        let tail = &raw[i + 2..];
        if !tail.is_empty() && tail.bytes().all(|c| c.is_ascii_digit()) {
            return &raw[..i];
        }
    }
    raw
}

/// CUPTI `CUpti_ActivityMemcpyKind`.
fn copy_kind_name(k: i64) -> &'static str {
    match k {
        1 => "HtoD",
        2 => "DtoH",
        3 => "HtoA",
        4 => "AtoH",
        5 => "AtoA",
        6 => "AtoD",
        7 => "DtoA",
        8 => "DtoD",
        9 => "HtoH",
        10 => "PtoP",
        _ => "Unknown",
    }
}
/// CUPTI `CUpti_ActivityMemoryKind`.
fn mem_kind_name(k: i64) -> &'static str {
    match k {
        1 => "Pageable",
        2 => "Pinned",
        3 => "Device",
        4 => "Array",
        5 => "Managed",
        6 => "Device Static",
        7 => "Managed Static",
        _ => "Unknown",
    }
}
/// CUPTI `CUpti_ActivitySynchronizationType`, named as Kineto does.
fn sync_name(k: i64) -> &'static str {
    match k {
        1 => "Event Sync",
        2 => "Stream Wait Event",
        3 => "Stream Sync",
        4 => "Context Sync",
        _ => "Sync",
    }
}

const NVTX_MARK: i64 = 34;
const NVTX_CATEGORY: i64 = 33;
const NVTX_START_END: i64 = 60;
const NVTX_DOMAIN_CREATE: i64 = 75;

struct Nsys<'a> {
    db: &'a Db,
    b: &'a mut TraceBuilder,
    strings: HashMap<i64, String>,
    /// String ids that a row named but `StringIds` does not hold (a damaged or partial table):
    /// each one shows a placeholder name, so they are counted and warned, never silent.
    unresolved: std::cell::Cell<u64>,
    processes: HashMap<i64, GroupId>,
    process_names: HashMap<i64, String>,
    threads: HashMap<i64, TrackId>,
    thread_names: HashMap<i64, String>,
    devices: HashMap<i64, GroupId>,
    gpu_names: HashMap<i64, String>,
    streams: HashMap<(i64, i64, i64), TrackId>,
    sync_tracks: HashMap<i64, TrackId>,
    async_tracks: HashMap<(i64, String), TrackId>,
    /// (pid, correlationId) → the API call that launched it.
    launches: HashMap<(i64, i64), SliceHandle>,
    enums: HashMap<String, HashMap<i64, String>>,
    k: Keys,
}

/// Interned category and arg names.
struct Keys {
    kernel: StrId,
    memcpy: StrId,
    memset: StrId,
    runtime: StrId,
    driver: StrId,
    nvtx: StrId,
    osrt: StrId,
    sync: StrId,
    overhead: StrId,
    launch: StrId,
    flow_cat: StrId,
    device: StrId,
    stream: StrId,
    context: StrId,
    correlation: StrId,
}

impl<'a> Nsys<'a> {
    fn new(db: &'a Db, b: &'a mut TraceBuilder) -> Nsys<'a> {
        let k = Keys {
            kernel: b.intern("kernel"),
            memcpy: b.intern("gpu_memcpy"),
            memset: b.intern("gpu_memset"),
            runtime: b.intern("cuda_runtime"),
            driver: b.intern("cuda_driver"),
            nvtx: b.intern("nvtx"),
            osrt: b.intern("osrt"),
            sync: b.intern("cuda_sync"),
            overhead: b.intern("overhead"),
            launch: b.intern("launch"),
            flow_cat: b.intern("ac2g"),
            device: b.intern("device"),
            stream: b.intern("stream"),
            context: b.intern("context"),
            correlation: b.intern("correlation"),
        };
        // what the host rows are, by the table they come from (NVTX ranges and profiler
        // overhead stay untyped: for the analyses, ops)
        b.set_host_work(k.runtime, HostWork::Runtime);
        b.set_host_work(k.driver, HostWork::Runtime);
        b.set_host_work(k.osrt, HostWork::OsRuntime);
        Nsys {
            db,
            b,
            strings: HashMap::new(),
            unresolved: std::cell::Cell::new(0),
            processes: HashMap::new(),
            process_names: HashMap::new(),
            threads: HashMap::new(),
            thread_names: HashMap::new(),
            devices: HashMap::new(),
            gpu_names: HashMap::new(),
            streams: HashMap::new(),
            sync_tracks: HashMap::new(),
            async_tracks: HashMap::new(),
            launches: HashMap::new(),
            enums: HashMap::new(),
            k,
        }
    }

    /// Scan a table; a missing table or column is a warning, a read error (a damaged page) a
    /// warning that keeps the rows read before it.
    fn scan(&mut self, table: &str, cols: &[&str], mut f: impl FnMut(&mut TraceBuilder, &[Val])) -> bool {
        let b = &mut *self.b;
        match self.db.scan(table, cols, |r| {
            f(b, r);
            true
        }) {
            Ok(Some(missing)) => {
                for m in missing {
                    self.b.warn(WarningKind::NsysMissingColumn, || format!("{table} has no column {m}"));
                }
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.b.warn(WarningKind::SqliteReadError, || {
                    format!("{table}: {e}; the rows before it were kept")
                });
                true
            }
        }
    }

    fn string<'s>(&'s self, v: &'s Val) -> Option<&'s str> {
        match v {
            Val::Text(s) => Some(s),
            Val::Int(i) => {
                let s = self.strings.get(i).map(|s| s.as_str());
                if s.is_none() {
                    self.unresolved.set(self.unresolved.get() + 1);
                }
                s
            }
            _ => None,
        }
    }

    fn enum_name(&self, table: &str, v: i64) -> Option<&str> {
        self.enums.get(table)?.get(&v).map(|s| s.as_str())
    }

    fn run(mut self, progress: &mut dyn Progress, total: u64) -> Result<(), ImportError> {
        match self.db.strings("StringIds", "id", "value") {
            Ok(s) => self.strings = s,
            Err(e) => self.b.warn(WarningKind::SqliteReadError, || {
                format!("StringIds (the names of kernels, API calls and ranges) cannot be read: {e}; names are placeholders")
            }),
        }
        if !self.db.has_table("StringIds") {
            self.b.warn(WarningKind::NsysMissingTable, || {
                "no StringIds table: names are shown as numbers".into()
            });
        }
        self.read_metadata();
        self.read_names();
        let steps: [fn(&mut Self); 8] = [
            Self::read_runtime,
            Self::read_kernels,
            Self::read_memcpy,
            Self::read_memset,
            Self::read_sync,
            Self::read_nvtx,
            Self::read_osrt,
            Self::read_overhead,
        ];
        let n = steps.len() as u64 + 1;
        for (i, step) in steps.iter().enumerate() {
            if !progress.report(total * i as u64 / n, total) {
                return Err(ImportError::Cancelled);
            }
            step(&mut self);
        }
        self.read_gpu_metrics();
        self.name_streams();
        let unresolved = self.unresolved.get();
        if unresolved > 0 {
            self.b.warn_n(WarningKind::NsysUnresolvedName, unresolved, || {
                format!(
                    "{unresolved} names refer to string ids that StringIds ({} entries) does not hold: shown as placeholders such as \"(unnamed kernel)\"",
                    self.strings.len()
                )
            });
        }
        if self.b.slice_count() == 0 {
            self.b.warn(WarningKind::NsysNoEvents, || {
                "the export has no kernel, API, NVTX or OS runtime rows".into()
            });
        }
        Ok(())
    }

    fn read_metadata(&mut self) {
        let mut meta = Vec::new();
        self.scan("EXPORT_META_DATA", &["name", "value"], |_, r| {
            if let (Some(n), v) = (r[0].text(), r[1].display()) {
                meta.push((format!("nsys {n}"), v));
            }
        });
        let mut gpus = Vec::new();
        self.scan(
            "TARGET_INFO_GPU",
            &["id", "name", "smCount", "computeMajor", "computeMinor", "totalMemory", "busLocation"],
            |_, r| gpus.push(r.to_vec()),
        );
        for g in gpus {
            let id = g[0].int().unwrap_or(0);
            let name = g[1].display();
            meta.push((format!("GPU {id}"), name.clone()));
            meta.push((format!("GPU {id} SMs"), g[2].display()));
            meta.push((
                format!("GPU {id} compute capability"),
                format!("{}.{}", g[3].display(), g[4].display()),
            ));
            meta.push((format!("GPU {id} memory bytes"), g[5].display()));
            if !g[6].display().is_empty() {
                meta.push((format!("GPU {id} bus"), g[6].display()));
            }
            self.gpu_names.insert(id, name);
        }
        self.scan("TARGET_INFO_SESSION_START_TIME", &["utcEpochNs", "utcTime"], |_, r| {
            meta.push(("session start (UTC epoch ns)".into(), r[0].display()));
            meta.push(("session start (UTC)".into(), r[1].display()));
        });
        for (k, v) in meta {
            self.b.add_metadata(k, v);
        }
        // ENUM_* lookup tables of newer exports: (id, name) or (id, label)
        let enums: Vec<String> = self
            .db
            .table_names()
            .filter(|t| t.to_ascii_uppercase().starts_with("ENUM_"))
            .map(String::from)
            .collect();
        for t in enums {
            let mut m = HashMap::new();
            let _ = self.db.scan(&t, &["id", "label", "name"], |r| {
                if let Some(id) = r[0].int() {
                    if let Some(s) = r[1].text().or(r[2].text()) {
                        m.insert(id, s.to_string());
                    }
                }
                true
            });
            self.enums.insert(t.to_ascii_uppercase(), m);
        }
    }

    fn read_names(&mut self) {
        let mut procs = HashMap::new();
        self.scan("PROCESSES", &["globalPid", "pid", "name"], |_, r| {
            if let (Some(g), Some(n)) = (r[0].int(), r[2].text()) {
                let pid = r[1].int().unwrap_or_else(|| pid_of(g));
                procs.insert(pid, n.to_string());
            }
        });
        self.process_names = procs;
        let mut ids = Vec::new();
        self.scan("ThreadNames", &["nameId", "globalTid"], |_, r| {
            if let (Some(n), Some(t)) = (r[0].int(), r[1].int()) {
                ids.push((t, n));
            }
        });
        for (t, n) in ids {
            if let Some(s) = self.strings.get(&n) {
                self.thread_names.insert(t, s.clone());
            }
        }
    }

    fn process(&mut self, pid: i64) -> GroupId {
        if let Some(&g) = self.processes.get(&pid) {
            return g;
        }
        let name = match self.process_names.get(&pid) {
            Some(n) => format!("{n} (pid {pid})"),
            None => format!("Process {pid}"),
        };
        let g = self.b.add_group(&name, GroupKind::Process);
        self.b.set_group_sort(g, pid);
        self.processes.insert(pid, g);
        g
    }

    fn thread(&mut self, global_tid: i64) -> TrackId {
        if let Some(&t) = self.threads.get(&global_tid) {
            return t;
        }
        let (pid, tid) = (pid_of(global_tid), tid_of(global_tid));
        let g = self.process(pid);
        let name = match self.thread_names.get(&global_tid) {
            Some(n) => format!("{n} ({tid})"),
            None => format!("thread {tid}"),
        };
        let t = self.b.add_track(g, &name, TrackKind::Thread, &format!("tid:{global_tid}"));
        self.b.set_track_sort(t, tid);
        self.threads.insert(global_tid, t);
        t
    }

    fn device(&mut self, device: i64) -> GroupId {
        if let Some(&g) = self.devices.get(&device) {
            return g;
        }
        let name = match self.gpu_names.get(&device) {
            Some(n) => format!("GPU {device} — {n}"),
            None => format!("GPU {device}"),
        };
        let g = self.b.add_group(&name, GroupKind::Device);
        self.b.set_group_sort(g, -1_000_000 + device);
        self.devices.insert(device, g);
        g
    }

    fn stream(&mut self, device: i64, context: i64, stream: i64) -> TrackId {
        if let Some(&t) = self.streams.get(&(device, context, stream)) {
            return t;
        }
        let g = self.device(device);
        let t = self.b.add_track(
            g,
            &format!("stream {stream}"),
            TrackKind::Stream,
            &format!("stream:{device}:{context}:{stream}"),
        );
        self.b.set_track_sort(t, stream);
        self.streams.insert((device, context, stream), t);
        t
    }

    /// Streams of a device that has several contexts say which context they are in.
    fn name_streams(&mut self) {
        let mut contexts: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(d, c, _) in self.streams.keys() {
            let v = contexts.entry(d).or_default();
            if !v.contains(&c) {
                v.push(c);
            }
        }
        let renames: Vec<(TrackId, String)> = self
            .streams
            .iter()
            .filter(|((d, _, _), _)| contexts.get(d).is_some_and(|v| v.len() > 1))
            .map(|(&(_, c, s), &t)| (t, format!("stream {s} (context {c})")))
            .collect();
        for (t, n) in renames {
            self.b.set_track_name(t, &n);
        }
    }

    fn async_track(&mut self, group: GroupId, key: (i64, String), name: &str) -> TrackId {
        if let Some(&t) = self.async_tracks.get(&key) {
            return t;
        }
        let t = self.b.add_track(group, name, TrackKind::Async, &format!("{}:{}", key.0, key.1));
        self.b.set_track_layout(t, Layout::Lanes);
        self.b.set_track_sort(t, i64::MAX / 4);
        self.async_tracks.insert(key, t);
        t
    }

    fn times(&mut self, table: &str, s: &Val, e: &Val) -> Option<(i64, i64)> {
        match (s.int(), e.int()) {
            (Some(s), Some(e)) => Some((s, e.saturating_sub(s))),
            _ => {
                self.b.warn(WarningKind::NsysMissingTime, || {
                    format!("a {table} row has no start or end; skipped")
                });
                None
            }
        }
    }

    fn read_runtime(&mut self) {
        let mut rows = Vec::new();
        let found = self.scan(
            "CUPTI_ACTIVITY_KIND_RUNTIME",
            &["start", "end", "globalTid", "correlationId", "nameId", "returnValue"],
            |_, r| rows.push(r.to_vec()),
        );
        if !found {
            self.b.warn(WarningKind::NsysMissingTable, || {
                "no CUPTI_ACTIVITY_KIND_RUNTIME table (no CUDA API calls)".into()
            });
        }
        for r in rows {
            let Some((start, dur)) = self.times("CUDA API", &r[0], &r[1]) else { continue };
            let gtid = r[2].int().unwrap_or(0);
            let raw = self.string(&r[4]).unwrap_or("(unknown API)").to_string();
            let name = api_name(&raw);
            let cat = if name.starts_with("cu") && !name.starts_with("cuda") {
                self.k.driver
            } else {
                self.k.runtime
            };
            let track = self.thread(gtid);
            let name = self.b.intern(name);
            let mut args = Vec::new();
            if let Some(c) = r[3].int() {
                args.push((self.k.correlation, ArgValue::Int(c)));
            }
            if let Some(v) = r[5].int() {
                args.push((self.b.intern("return value"), ArgValue::Int(v)));
            }
            let args = self.b.add_args(args);
            let h = self.b.add_slice(track, start, dur, name, cat, args);
            if let Some(c) = r[3].int() {
                self.launches.insert((pid_of(gtid), c), h);
            }
        }
    }

    /// The GPU slice's common args, track and the flow from its launch.
    fn gpu_slice(
        &mut self,
        r: &[Val],
        name: StrId,
        cat: StrId,
        mut args: Vec<(StrId, ArgValue)>,
        bytes: Option<u64>,
        work: GpuWork,
    ) {
        let Some((start, dur)) = self.times("GPU activity", &r[0], &r[1]) else { return };
        let (device, context, stream) =
            (r[2].int().unwrap_or(0), r[3].int().unwrap_or(0), r[4].int().unwrap_or(-1));
        let pid = r[6].int().map(pid_of).unwrap_or(0);
        let track = self.stream(device, context, stream);
        args.push((self.k.device, ArgValue::Int(device)));
        args.push((self.k.stream, ArgValue::Int(stream)));
        args.push((self.k.context, ArgValue::Int(context)));
        if let Some(c) = r[5].int() {
            args.push((self.k.correlation, ArgValue::Int(c)));
        }
        let args: ArgsId = self.b.add_args(args);
        let h = self.b.add_slice(track, start, dur, name, cat, args);
        // the table the row came from is its kind of work
        let bytes = bytes.unwrap_or(u64::MAX);
        self.b.set_slice_domain(h, SliceDomain { bytes, gpu_work: Some(work), ..SliceDomain::default() });
        if let Some(launch) = r[5].int().and_then(|c| self.launches.get(&(pid, c)).copied()) {
            self.b.add_flow(FlowEnd::Slice(launch), FlowEnd::Slice(h), self.k.launch, self.k.flow_cat);
        }
    }

    fn read_kernels(&mut self) {
        const COLS: &[&str] = &[
            "start",
            "end",
            "deviceId",
            "contextId",
            "streamId",
            "correlationId",
            "globalPid",
            "demangledName",
            "shortName",
            "mangledName",
            "gridX",
            "gridY",
            "gridZ",
            "blockX",
            "blockY",
            "blockZ",
            "registersPerThread",
            "staticSharedMemory",
            "dynamicSharedMemory",
            "localMemoryPerThread",
        ];
        let mut rows = Vec::new();
        if !self.scan("CUPTI_ACTIVITY_KIND_KERNEL", COLS, |_, r| rows.push(r.to_vec())) {
            self.b.warn(WarningKind::NsysMissingTable, || {
                "no CUPTI_ACTIVITY_KIND_KERNEL table (no kernels)".into()
            });
        }
        let keys: Vec<StrId> = [
            "grid",
            "block",
            "registers per thread",
            "shared memory",
            "static shared memory",
            "dynamic shared memory",
            "local memory per thread",
            "short name",
        ]
        .iter()
        .map(|k| self.b.intern(k))
        .collect();
        for r in rows {
            let name =
                [7, 8, 9].iter().find_map(|&i| self.string(&r[i])).unwrap_or("(unnamed kernel)").to_string();
            let short = self.string(&r[8]).map(String::from);
            let dim = |a: usize| {
                let v: Vec<String> = (a..a + 3).map(|i| r[i].int().unwrap_or(0).to_string()).collect();
                format!("[{}]", v.join(", "))
            };
            let mut args = vec![
                (keys[0], ArgValue::Json(self.b.intern(&dim(10)))),
                (keys[1], ArgValue::Json(self.b.intern(&dim(13)))),
            ];
            if let Some(v) = r[16].int() {
                args.push((keys[2], ArgValue::Int(v)));
            }
            if let (Some(s), Some(d)) = (r[17].int(), r[18].int()) {
                args.push((keys[3], ArgValue::Int(s.saturating_add(d))));
            }
            for (k, i) in [(keys[4], 17), (keys[5], 18), (keys[6], 19)] {
                if let Some(v) = r[i].int() {
                    args.push((k, ArgValue::Int(v)));
                }
            }
            if let Some(s) = short.filter(|s| *s != name) {
                args.push((keys[7], ArgValue::Str(self.b.intern(&s))));
            }
            let name = self.b.intern(&name);
            self.gpu_slice(&r, name, self.k.kernel, args, None, GpuWork::Kernel);
        }
    }

    fn read_memcpy(&mut self) {
        const COLS: &[&str] = &[
            "start",
            "end",
            "deviceId",
            "contextId",
            "streamId",
            "correlationId",
            "globalPid",
            "bytes",
            "copyKind",
            "srcKind",
            "dstKind",
        ];
        let mut rows = Vec::new();
        self.scan("CUPTI_ACTIVITY_KIND_MEMCPY", COLS, |_, r| rows.push(r.to_vec()));
        let (kind_k, bytes_k) = (self.b.intern("kind"), self.b.intern("bytes"));
        for r in rows {
            let kind = |t: &str, i: usize, f: fn(i64) -> &'static str| -> String {
                match r[i].int() {
                    Some(v) => self.enum_name(t, v).map(String::from).unwrap_or_else(|| f(v).to_string()),
                    None => "Unknown".to_string(),
                }
            };
            let ck = kind("ENUM_CUDA_MEMCPY_OPER", 8, copy_kind_name);
            let (src, dst) =
                (kind("ENUM_CUDA_MEM_KIND", 9, mem_kind_name), kind("ENUM_CUDA_MEM_KIND", 10, mem_kind_name));
            let name = self.b.intern(&format!("Memcpy {ck} ({src} -> {dst})"));
            let bytes = r[7].int().and_then(|v| u64::try_from(v).ok());
            let mut args = vec![(kind_k, ArgValue::Str(self.b.intern(&ck)))];
            if let Some(v) = bytes {
                args.push((bytes_k, ArgValue::UInt(v)));
            }
            self.gpu_slice(&r, name, self.k.memcpy, args, bytes, GpuWork::Memcpy);
        }
    }

    fn read_memset(&mut self) {
        const COLS: &[&str] = &[
            "start",
            "end",
            "deviceId",
            "contextId",
            "streamId",
            "correlationId",
            "globalPid",
            "bytes",
            "memKind",
            "value",
        ];
        let mut rows = Vec::new();
        self.scan("CUPTI_ACTIVITY_KIND_MEMSET", COLS, |_, r| rows.push(r.to_vec()));
        let (kind_k, bytes_k, value_k) =
            (self.b.intern("kind"), self.b.intern("bytes"), self.b.intern("value"));
        for r in rows {
            let kind = match r[8].int() {
                Some(v) => self
                    .enum_name("ENUM_CUDA_MEM_KIND", v)
                    .map(String::from)
                    .unwrap_or_else(|| mem_kind_name(v).into()),
                None => "Unknown".to_string(),
            };
            let name = self.b.intern(&format!("Memset ({kind})"));
            let bytes = r[7].int().and_then(|v| u64::try_from(v).ok());
            let mut args = vec![(kind_k, ArgValue::Str(self.b.intern(&kind)))];
            if let Some(v) = bytes {
                args.push((bytes_k, ArgValue::UInt(v)));
            }
            if let Some(v) = r[9].int() {
                args.push((value_k, ArgValue::Int(v)));
            }
            self.gpu_slice(&r, name, self.k.memset, args, bytes, GpuWork::Memset);
        }
    }

    fn read_sync(&mut self) {
        const COLS: &[&str] =
            &["start", "end", "deviceId", "contextId", "streamId", "correlationId", "syncType", "eventId"];
        let mut rows = Vec::new();
        self.scan("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", COLS, |_, r| rows.push(r.to_vec()));
        for r in rows {
            let Some((start, dur)) = self.times("synchronization", &r[0], &r[1]) else { continue };
            let device = r[2].int().unwrap_or(0);
            let track = match self.sync_tracks.get(&device) {
                Some(&t) => t,
                None => {
                    let g = self.device(device);
                    let t = self.async_track(g, (device, "sync".into()), "CUDA synchronization");
                    self.sync_tracks.insert(device, t);
                    t
                }
            };
            let name = match r[6].int() {
                Some(v) => self
                    .enum_name("ENUM_CUPTI_SYNC_TYPE", v)
                    .map(String::from)
                    .unwrap_or_else(|| sync_name(v).into()),
                None => "Sync".into(),
            };
            let name = self.b.intern(&name);
            let mut args = vec![(self.k.device, ArgValue::Int(device))];
            // 0xFFFFFFFF: no stream (a context or event synchronisation)
            if let Some(s) = r[4].int().filter(|&s| s != 0xFFFF_FFFF && s >= 0) {
                args.push((self.k.stream, ArgValue::Int(s)));
            }
            if let Some(c) = r[5].int() {
                args.push((self.k.correlation, ArgValue::Int(c)));
            }
            let args = self.b.add_args(args);
            self.b.add_slice(track, start, dur, name, self.k.sync, args);
        }
    }

    fn read_nvtx(&mut self) {
        const COLS: &[&str] = &[
            "start",
            "end",
            "eventType",
            "text",
            "textId",
            "globalTid",
            "domainId",
            "color",
            "category",
            "rangeId",
        ];
        let mut rows = Vec::new();
        self.scan("NVTX_EVENTS", COLS, |_, r| rows.push(r.to_vec()));
        // names first: domains and categories are rows too
        let mut domains: HashMap<i64, String> = HashMap::new();
        let mut categories: HashMap<i64, String> = HashMap::new();
        for r in &rows {
            let text = self.string(&r[3]).or_else(|| self.string(&r[4])).map(String::from);
            match (r[2].int(), text) {
                (Some(NVTX_DOMAIN_CREATE), Some(t)) => {
                    domains.insert(r[6].int().unwrap_or(0), t);
                }
                (Some(NVTX_CATEGORY), Some(t)) => {
                    categories.insert(r[8].int().unwrap_or(0), t);
                }
                _ => {}
            }
        }
        let (domain_k, color_k, cat_k) =
            (self.b.intern("domain"), self.b.intern("color"), self.b.intern("category"));
        let empty = self.b.intern("");
        for r in rows {
            let ty = r[2].int();
            if matches!(ty, Some(NVTX_DOMAIN_CREATE) | Some(NVTX_CATEGORY) | Some(76) | Some(39)) {
                continue;
            }
            let Some(start) = r[0].int() else { continue };
            let text =
                self.string(&r[3]).or_else(|| self.string(&r[4])).unwrap_or("(unnamed range)").to_string();
            let gtid = r[5].int().unwrap_or(0);
            let domain_id = r[6].int().unwrap_or(0);
            let mut args = Vec::new();
            if let Some(d) = domains.get(&domain_id) {
                args.push((domain_k, ArgValue::Str(self.b.intern(d))));
            }
            if let Some(c) = r[7].int() {
                args.push((color_k, ArgValue::Str(self.b.intern(&format!("#{:06x}", c & 0xFF_FFFF)))));
            }
            if let Some(c) = r[8].int().filter(|&c| c != 0) {
                let v =
                    categories.get(&c).map(|s| ArgValue::Str(self.b.intern(s))).unwrap_or(ArgValue::Int(c));
                args.push((cat_k, v));
            }
            let args = self.b.add_args(args);
            let name = self.b.intern(&text);
            match r[1].int() {
                None => {
                    let t = self.thread(gtid);
                    self.b.add_instant(t, start, name, self.k.nvtx, args);
                    let _ = (NVTX_MARK, empty);
                }
                Some(end) => {
                    let track = if ty == Some(NVTX_START_END) {
                        let pid = pid_of(gtid);
                        let g = self.process(pid);
                        let label = match domains.get(&domain_id) {
                            Some(d) => format!("NVTX ranges ({d})"),
                            None => "NVTX ranges".to_string(),
                        };
                        self.async_track(g, (pid, format!("nvtx:{domain_id}")), &label)
                    } else {
                        self.thread(gtid)
                    };
                    self.b.add_slice(track, start, end.saturating_sub(start), name, self.k.nvtx, args);
                }
            }
        }
    }

    fn read_osrt(&mut self) {
        let mut rows = Vec::new();
        self.scan("OSRT_API", &["start", "end", "globalTid", "nameId", "returnValue"], |_, r| {
            rows.push(r.to_vec())
        });
        for r in rows {
            let Some((start, dur)) = self.times("OS runtime", &r[0], &r[1]) else { continue };
            let track = self.thread(r[2].int().unwrap_or(0));
            let name = self.string(&r[3]).unwrap_or("(unknown call)").to_string();
            let name = self.b.intern(&name);
            let args = match r[4].int() {
                Some(v) => {
                    let k = self.b.intern("return value");
                    self.b.add_args([(k, ArgValue::Int(v))])
                }
                None => ArgsId::NONE,
            };
            self.b.add_slice(track, start, dur, name, self.k.osrt, args);
        }
    }

    fn read_overhead(&mut self) {
        let mut rows = Vec::new();
        self.scan("PROFILER_OVERHEAD", &["start", "end", "globalTid", "nameId"], |_, r| {
            rows.push(r.to_vec())
        });
        for r in rows {
            let Some((start, dur)) = self.times("profiler overhead", &r[0], &r[1]) else { continue };
            let pid = pid_of(r[2].int().unwrap_or(0));
            let g = self.process(pid);
            let track = self.async_track(g, (pid, "overhead".into()), "profiler overhead");
            let name = self.string(&r[3]).unwrap_or("profiler overhead").to_string();
            let name = self.b.intern(&name);
            self.b.add_slice(track, start, dur, name, self.k.overhead, ArgsId::NONE);
        }
    }

    fn read_gpu_metrics(&mut self) {
        if !self.db.has_table("GPU_METRICS") {
            return;
        }
        let mut names: HashMap<i64, String> = HashMap::new();
        let _ = self.db.scan("TARGET_INFO_GPU_METRICS", &["metricId", "metricName"], |r| {
            if let (Some(i), Some(n)) = (r[0].int(), r[1].text()) {
                names.insert(i, n.to_string());
            }
            true
        });
        let mut rows = Vec::new();
        self.scan("GPU_METRICS", &["timestamp", "typeId", "metricId", "value"], |_, r| rows.push(r.to_vec()));
        let mut counters = HashMap::new();
        let mut groups: HashMap<i64, GroupId> = HashMap::new();
        for r in rows {
            let (Some(ts), Some(m), Some(v)) = (r[0].int(), r[2].int(), r[3].real()) else { continue };
            let ty = r[1].int().unwrap_or(0);
            let c = match counters.get(&(ty, m)) {
                Some(&c) => c,
                None => {
                    let g = match groups.get(&ty) {
                        Some(&g) => g,
                        None => {
                            let g = self.b.add_group(&format!("GPU metrics (type {ty})"), GroupKind::Device);
                            groups.insert(ty, g);
                            g
                        }
                    };
                    let name = names.get(&m).cloned().unwrap_or_else(|| format!("metric {m}"));
                    let unit = if name.contains('%') || name.to_ascii_lowercase().contains("percent") {
                        "%"
                    } else {
                        ""
                    };
                    let c = self.b.add_counter(g, &name, unit);
                    counters.insert((ty, m), c);
                    c
                }
            };
            self.b.add_counter_sample(c, ts, v);
        }
    }
}
