//! Small Nsight Systems / DLProf databases written here with SQLite itself: the features the
//! shared samples lack (start/end NVTX ranges, marks, domains, colours, OS runtime calls, driver
//! calls, GPU metrics, `ENUM_*` tables) and schema drift (missing tables and columns).

use loupe_core::import::NoProgress;
use loupe_core::model::{ArgValue, TrackKind};
use rusqlite::{Connection, MAIN_DB};

fn db(sql: &str) -> Vec<u8> {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(sql).unwrap();
    c.serialize(MAIN_DB).unwrap().to_vec()
}

const NSYS: &str = r#"
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'my_kernel'),(3,'cuLaunchKernel'),(4,'pthread_mutex_lock'),
  (5,'worker'),(6,'registered range');
CREATE TABLE PROCESSES(globalPid INT, pid INT, name TEXT);
INSERT INTO PROCESSES VALUES (16777216*77, 77, 'train.py');
CREATE TABLE ThreadNames(nameId INT, priority INT, globalTid INT);
INSERT INTO ThreadNames VALUES (5, 0, 16777216*77 + 78);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT, returnValue INT);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, 16777216*77 + 78, 9, 1, 0), (300, 350, 0, 16777216*77 + 78, 10, 3, 0);
-- no registersPerThread/dynamicSharedMemory columns (an older or newer schema)
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT,
  globalPid INT, demangledName INT, shortName INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (250, 400, 1, 1, 13, 9, 16777216*77, 2, 2, 4, 2, 1, 128, 1, 1),
  (420, 500, 1, 1, 14, 10, 16777216*77, 2, 2, 1, 1, 1, 32, 1, 1);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INT, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT,
  globalPid INT, bytes INT, copyKind INT, srcKind INT, dstKind INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (600, 700, 1, 1, 13, 11, 16777216*77, 4096, 1, 2, 3);
CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, category INT, color INT, text TEXT,
  globalTid INT, endGlobalTid INT, textId INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES
  (0, NULL, 75, NULL, NULL, NULL, 'MyDomain', 16777216*77 + 78, NULL, NULL, 5),
  (50, 800, 59, NULL, NULL, -16711936, 'step', 16777216*77 + 78, NULL, NULL, 0),
  (60, 300, 60, 1, NULL, NULL, NULL, 16777216*77 + 78, NULL, 6, 5),
  (70, 310, 60, 2, NULL, NULL, 'overlapping', 16777216*77 + 78, NULL, NULL, 5),
  (90, NULL, 34, NULL, NULL, NULL, 'a mark', 16777216*77 + 78, NULL, NULL, 0);
CREATE TABLE OSRT_API(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT, returnValue INT);
INSERT INTO OSRT_API VALUES (210, 220, 27, 16777216*77 + 78, 0, 4, 0);
CREATE TABLE TARGET_INFO_GPU_METRICS(typeId INT, metricId INT, metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (1, 0, 'SM Active [Throughput %]');
CREATE TABLE GPU_METRICS(timestamp INT, typeId INT, metricId INT, value INT);
INSERT INTO GPU_METRICS VALUES (100, 1, 0, 10), (200, 1, 0, 90), (300, 1, 0, 40);
"#;

#[test]
fn nsys_features_and_schema_drift() {
    let bytes = db(NSYS);
    let t = loupe_sqlite::import_bytes("fixture.sqlite", &bytes, &mut NoProgress).unwrap();
    t.validate().unwrap();
    assert_eq!(t.format, "nsys-sqlite");
    // 2 API + 2 kernels + 1 memcpy + 3 NVTX ranges + 1 OS runtime call; the mark is an instant
    let s = loupe_core::query::summary(&t);
    assert_eq!((s.slices, s.instants, s.counter_samples, s.flows), (9, 1, 3, 2), "{s:?}");
    let find = |name: &str| {
        t.tracks
            .iter()
            .enumerate()
            .find_map(|(ti, tr)| {
                (0..tr.slices.len()).find(|&i| t.str(tr.slices.name[i]) == name).map(|i| (ti, i))
            })
            .unwrap_or_else(|| panic!("no slice {name}"))
    };
    let cat = |(ti, i): (usize, usize)| t.str(t.tracks[ti].slices.category[i]).to_string();
    assert_eq!(cat(find("cudaLaunchKernel")), "cuda_runtime"); // version suffix dropped
    assert_eq!(cat(find("cuLaunchKernel")), "cuda_driver");
    assert_eq!(cat(find("pthread_mutex_lock")), "osrt");
    let (ti, i) = find("Memcpy Host-to-Device (Pinned -> Device)"); // the export's ENUM label wins
    assert_eq!(t.tracks[ti].slices.domain.as_ref().unwrap().bytes[i], 4096);
    // the registered string (textId) resolves; start/end ranges overlap on an async track
    let (ti, _) = find("registered range");
    assert_eq!(t.tracks[ti].kind, TrackKind::Async);
    assert_eq!(t.str(t.tracks[ti].name), "NVTX ranges (MyDomain)");
    let (ti, i) = find("step");
    assert_eq!(t.tracks[ti].kind, TrackKind::Thread);
    assert_eq!(t.str(t.tracks[ti].name), "worker (78)");
    let color = t.args.get(t.tracks[ti].slices.args[i]).find(|(k, _)| t.str(*k) == "color").map(|(_, v)| v);
    assert!(matches!(color, Some(ArgValue::Str(c)) if t.str(c) == "#00ff00"), "{color:?}");
    // kernels on their own streams of GPU 1; the missing columns are warnings
    let (ti, _) = find("my_kernel");
    assert_eq!(t.str(t.tracks[ti].name), "stream 13");
    assert!(t.warnings.entries.iter().any(|w| w.kind == "nsys_missing_column"));
    assert!(t.groups.iter().any(|g| t.str(g.name) == "train.py (pid 77)"));
    assert_eq!(t.str(t.counters[0].name), "SM Active [Throughput %]");
}

#[test]
fn nsys_export_with_only_some_tables_loads_with_warnings() {
    let bytes = db(
        "CREATE TABLE StringIds(id INT, value TEXT); CREATE TABLE NVTX_EVENTS(start INT, end INT, text TEXT);
        INSERT INTO NVTX_EVENTS VALUES (1, 5, 'r'), (2, NULL, 'm');",
    );
    let t = loupe_sqlite::import_bytes("a.sqlite", &bytes, &mut NoProgress).unwrap();
    t.validate().unwrap();
    assert_eq!(loupe_core::query::summary(&t).slices, 1);
    assert!(t.warnings.entries.iter().any(|w| w.kind == "nsys_missing_table"));
}

#[test]
fn a_foreign_sqlite_database_is_named_not_loaded() {
    let bytes = db("CREATE TABLE notes(id INT, body TEXT); INSERT INTO notes VALUES (1, 'x');");
    let e = loupe_sqlite::import_bytes("notes.db", &bytes, &mut NoProgress).unwrap_err();
    assert!(e.to_string().contains("SQLite database"), "{e}");
}

#[test]
fn a_view_posing_as_a_table_is_not_read_and_a_hostile_query_is_bounded() {
    // a recursive view named like a real table: only objects of type 'table' are read
    let bytes = db("CREATE TABLE StringIds(id INT, value TEXT);
        CREATE VIEW NVTX_EVENTS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS start, x AS end FROM c;
        CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT);");
    let t = loupe_sqlite::import_bytes("v.sqlite", &bytes, &mut NoProgress).unwrap();
    assert_eq!(loupe_core::query::summary(&t).slices, 0);
}

const DLPROF: &str = r#"
CREATE TABLE dictionary(id INTEGER PRIMARY KEY, string TEXT);
INSERT INTO dictionary VALUES (1,'conv_kernel'),(2,'Conv2d'),(3,'fprop'),(4,'cudaMemcpyAsync'),(5,'float32'),(6,'Use AMP'),(7,'Enable it');
CREATE TABLE metric(id INT, count INT, max REAL, min REAL, sum REAL, avg REAL);
INSERT INTO metric VALUES (1, 2, 60, 40, 100, 50), (2, 2, 30, 10, 40, 20);
CREATE TABLE read_only_ops(id INT, op_id TEXT, op_name TEXT, op_type_id INT, direction_id INT, data_type_id INT, stack_trace TEXT);
INSERT INTO read_only_ops VALUES (1, 'CONV_1', '/module/conv', 2, 3, 5, 'model.py:3');
CREATE TABLE read_only_op_instances(id INT, read_only_ops_id INT, cpu_start INT, cpu_stop INT, process_id INT, thread_id INT);
INSERT INTO read_only_op_instances VALUES (1, 1, 100, 200, 5, 5), (2, 1, 300, 400, 5, 5);
CREATE TABLE read_only_grid_block(id INT, x INT, y INT, z INT);
INSERT INTO read_only_grid_block VALUES (1, 8, 1, 1), (2, 256, 1, 1);
CREATE TABLE read_only_kernels(id INT, read_only_ops_id INT, name_id INT, uses_tc INT, api_start INT, api_stop INT,
  gpu_start INT, gpu_stop INT, grid_id INT, block_id INT, device_id INT, process_id INT, thread_id INT);
INSERT INTO read_only_kernels VALUES (1, 1, 1, 1, 110, 120, 150, 210, 1, 2, 0, 5, 5), (2, 1, 1, 0, 310, 320, 330, 370, 1, 2, 0, 5, 5);
CREATE TABLE read_only_memcpys(id INT, read_only_ops_id INT, name_id INT, api_start INT, api_stop INT, gpu_start INT,
  gpu_stop INT, num_bytes INT, copy_kind INT, device_id INT, process_id INT, thread_id INT);
INSERT INTO read_only_memcpys VALUES (1, 1, 4, 130, 140, 215, 230, 1024, 1, 0, 5, 5);
CREATE TABLE iteration_list(id INT, aggr_id INT, iter_value INT, start_time INT, stop_time INT);
INSERT INTO iteration_list VALUES (1, 1, 0, 100, 250), (2, 1, 1, 250, 450);
CREATE TABLE node_time_metrics(id INT, cpu_time_metric_id INT, gpu_time_metric_id INT, api_time_metric_id INT,
  cpu_overhead_time_metric_id INT, gpu_idle_time_metric_id INT);
INSERT INTO node_time_metrics VALUES (1, 1, 2, NULL, NULL, NULL);
CREATE TABLE op_nodes(id INT, read_only_ops_id INT, node_time_metrics_id INT, num_calls INT, tc_eligible INT, using_tc INT, kernel_calls INT);
INSERT INTO op_nodes VALUES (1, 1, 1, 2, 1, 1, 2);
CREATE TABLE expert_systems_feedback(id INT, problem TEXT, recommendation TEXT);
INSERT INTO expert_systems_feedback VALUES (1, 'AMP is off', 'Enable it');
CREATE TABLE read_only_system_config(num_gpus INT, cpu_model TEXT, framework TEXT);
INSERT INTO read_only_system_config VALUES (1, 'Some CPU', 'PyTorch');
"#;

#[test]
fn dlprof_database_timeline_tables_and_dashboard() {
    let bytes = db(DLPROF);
    let t = loupe_sqlite::import_bytes("dlprof_dldb.sqlite", &bytes, &mut NoProgress).unwrap();
    t.validate().unwrap();
    assert_eq!(t.format, "dlprof-sqlite");
    // 2 ops + 2 kernels + 1 memcpy + 2 iterations; no memsets table (a warning only if required)
    let s = loupe_core::query::summary(&t);
    assert_eq!((s.slices, s.flows), (7, 3), "{s:?}");
    assert_eq!(t.iterations.len(), 2);
    let ops = t.tables.iter().find(|x| x.kind == loupe_core::model::TableKind::DlprofOps).unwrap();
    assert_eq!(ops.cell(0, "Op Name").unwrap().display(), "/module/conv");
    assert_eq!(ops.cell(0, "Total CPU Time (ns)").unwrap().as_i64(), Some(100));
    assert_eq!(ops.cell(0, "Max GPU Time (ns)").unwrap().as_i64(), Some(30));
    assert!(t.tables.iter().any(|x| x.kind == loupe_core::model::TableKind::DlprofRecommendations));
    assert!(t.metadata.entries.iter().any(|(k, v)| k == "CPU Model" && v == "Some CPU"));
    let d = loupe_core::analysis::dlprof::DlprofIndex::build(&t).dashboard(Some((1, 1)));
    // iteration 1 holds the second op call and its kernel
    assert_eq!(d.kernel_count, 1);
    let op = d.ops.iter().find(|o| o.name == "/module/conv").unwrap();
    assert_eq!(op.kernels, 1);
    assert!(t.warnings.entries.iter().any(|w| w.kind == "dlprof_missing_column"));
}
