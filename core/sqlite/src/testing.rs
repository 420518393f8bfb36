//! Small databases written with SQLite itself, for the tests and the fuzz targets: an Nsight
//! Systems export and a DLProf database with one row or two of every table the importers read
//! (`tests/fixtures.rs` checks what they load to), and [`damage`], which overwrites bytes of such a
//! database where a fuzz input says, so that a fuzzer explores damaged pages of a database SQLite
//! accepts instead of bytes it rejects at the header.

use rusqlite::{Connection, MAIN_DB};

/// SQL of the small Nsight Systems export.
pub const NSYS_SQL: &str = r#"
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

/// SQL of the small DLProf database.
pub const DLPROF_SQL: &str = r#"
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

/// The database `sql` writes, serialized (`None` if SQLite refuses the SQL).
pub fn database(sql: &str) -> Option<Vec<u8>> {
    let c = Connection::open_in_memory().ok()?;
    c.execute_batch(sql).ok()?;
    Some(c.serialize(MAIN_DB).ok()?.to_vec())
}

/// `base` with bytes overwritten as `data` says: each 3-byte chunk is (offset high, offset low,
/// value), the offset taken modulo the length of `base`.
pub fn damage(base: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    if out.is_empty() {
        return out;
    }
    for c in data.chunks_exact(3) {
        let at = (usize::from(c[0]) << 8 | usize::from(c[1])) % out.len();
        out[at] = c[2];
    }
    out
}
