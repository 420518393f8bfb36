//! Small Nsight Systems / DLProf databases written here with SQLite itself: the features the
//! shared samples lack (start/end NVTX ranges, marks, domains, colours, OS runtime calls, driver
//! calls, GPU metrics, `ENUM_*` tables) and schema drift (missing tables and columns).

use loupe_core::import::NoProgress;
use loupe_core::model::WarningKind;
use loupe_core::model::{ArgValue, TrackKind};
use rusqlite::{Connection, MAIN_DB};

fn db(sql: &str) -> Vec<u8> {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(sql).unwrap();
    c.serialize(MAIN_DB).unwrap().to_vec()
}

#[test]
fn nsys_features_and_schema_drift() {
    let bytes = db(loupe_sqlite::testing::NSYS_SQL);
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
    assert!(t.warnings.entries.iter().any(|w| w.kind == WarningKind::NsysMissingColumn));
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
    assert!(t.warnings.entries.iter().any(|w| w.kind == WarningKind::NsysMissingTable));
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

#[test]
fn dlprof_database_timeline_tables_and_dashboard() {
    let bytes = db(loupe_sqlite::testing::DLPROF_SQL);
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
    assert!(t.warnings.entries.iter().any(|w| w.kind == WarningKind::DlprofMissingColumn));
}
