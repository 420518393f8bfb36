//! Every input a fuzz target in `core/fuzz` ever crashed on, kept as a regression test: the files in
//! `tests/fuzz_regressions/<target>/` are fed to the importer exactly as that target feeds them
//! (same file name, same framing), and each must give a typed error or a trace that passes
//! [`loupe_core::Trace::validate`]: never a panic. The inputs are tiny and checked in (they were
//! made by the fuzzer, not copied from the shared samples). Add one with
//! `cp core/fuzz/artifacts/<target>/crash-… core/tests/fuzz_regressions/<target>/<what>.bin`.

use loupe_core::import::{import_bytes, NoProgress};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

const TARGETS: [&str; 11] = [
    "import_chrome",
    "import_neff",
    "import_ntff",
    "import_neuron_json",
    "import_parquet",
    "import_dlprof_csv",
    "import_tb_neuron_ops",
    "import_loupe",
    "import_rocprof",
    "import_perfetto",
    "import_xplane",
];

/// The (file name, bytes) pairs a target hands to `import_bytes` for one fuzz input: keep in step
/// with `core/fuzz/fuzz_targets/<target>.rs`.
fn imports_of(target: &str, data: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    fn framed(prefix: &[u8], data: &[u8]) -> Vec<u8> {
        let mut v = prefix.to_vec();
        v.extend_from_slice(data);
        v
    }
    match target {
        "import_chrome" => vec![
            ("fuzz.json", data.to_vec()),
            ("fuzz.json", framed(b"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},", data)),
        ],
        "import_neff" => {
            let _ = loupe_core::neuron::neff::parse(data);
            vec![("fuzz.neff", data.to_vec())]
        }
        "import_ntff" => {
            let _ = loupe_core::neuron::ntff::parse(data);
            vec![("fuzz.ntff", data.to_vec())]
        }
        "import_neuron_json" if data.first() == Some(&b'{') => vec![("fuzz.json", data.to_vec())],
        "import_neuron_json" => {
            vec![("fuzz.json", framed(b"{\"metadata\":{\"ntff_version\":5},\"instruction\":[", data))]
        }
        "import_parquet" => {
            let name = if data.len().is_multiple_of(2) { "Instruction.parquet" } else { "fuzz.parquet" };
            let bytes = if data.starts_with(b"PAR1") { data.to_vec() } else { framed(b"PAR1", data) };
            vec![(name, bytes)]
        }
        "import_dlprof_csv" => vec![
            ("fuzz.csv", data.to_vec()),
            ("fuzz.csv", framed(b"Kernel Report\nKernel Name,Op ID,Uses TC,Total GPU Time (ns)\n", data)),
        ],
        "import_tb_neuron_ops" => {
            vec![
                ("neuron_framework_op.json", data.to_vec()),
                ("neuron_hlo_op.json", framed(b"{\"ops\": [", data)),
            ]
        }
        "import_loupe" => vec![
            ("fuzz.loupe", data.to_vec()),
            ("fuzz.loupe", loupe_core::loupe_file::frame_uncompressed(data)),
        ],
        "import_perfetto" => {
            let mut v = vec![("fuzz.pftrace", data.to_vec())];
            if data.len() < 128 {
                v.push(("fuzz.pftrace", framed(&[0x0A, data.len() as u8], data)));
            }
            v
        }
        "import_xplane" => vec![("fuzz.xplane.pb", data.to_vec()), ("fuzz.op_profile.json", data.to_vec())],
        "import_rocprof" => {
            vec![("fuzz.json", data.to_vec()), ("fuzz.json", framed(b"{\"rocprofiler-sdk-tool\": [", data))]
        }
        _ => panic!("unknown fuzz target {target}"),
    }
}

fn cases(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.retain(|p| p.file_name().is_some_and(|n| n != "README.md"));
    files.sort();
    files
}

/// Panics seen by the hook, caught or not: natively the Parquet importer turns a panic inside the
/// crate into an error (`catch_unwind`), but in the browser's wasm worker a panic aborts, so a
/// caught panic still fails these tests.
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
    });
}

#[test]
fn fuzz_regressions_load_or_fail_cleanly() {
    count_panics();
    let mut n = 0;
    for target in TARGETS {
        for path in cases(target) {
            let data = std::fs::read(&path).expect("read a regression input");
            for (name, bytes) in imports_of(target, &data) {
                let before = PANICS.load(Ordering::SeqCst);
                let result = import_bytes(name, &bytes, &mut NoProgress);
                assert_eq!(PANICS.load(Ordering::SeqCst), before, "{}: panicked (caught)", path.display());
                match result {
                    Ok(trace) => {
                        if let Err(e) = trace.validate() {
                            panic!("{}: {e}", path.display());
                        }
                    }
                    Err(e) => {
                        assert!(!e.to_string().is_empty(), "{}: an error without a message", path.display())
                    }
                }
            }
            n += 1;
        }
    }
    eprintln!("fuzz regressions: {n} inputs");
}

/// The framing helper covers every target the fuzz crate declares.
#[test]
fn every_fuzz_target_is_covered() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
        .expect("core/fuzz/Cargo.toml");
    let declared: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| n.starts_with("import_"))
        // the SQLite targets feed loupe-sqlite: their regressions are core/sqlite/tests/fuzz_regressions.rs
        .filter(|n| !n.ends_with("_sqlite"))
        .collect();
    assert_eq!(declared, TARGETS, "keep TARGETS and imports_of in step with core/fuzz");
}

/// The synthetic Parquet seeds (`core/fuzz/seeds/import_parquet`, written by `core/fuzz/seedgen`)
/// are valid tables: they load, so the page checks that guard the crate do not refuse real files
/// (PLAIN and dictionary strings, optional columns, several row groups and codecs).
#[test]
fn parquet_seeds_load() {
    count_panics();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/import_parquet");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("core/fuzz/seeds/import_parquet") {
        let path = entry.expect("a seed").path();
        let name = path.file_name().and_then(|n| n.to_str()).expect("a file name").to_string();
        let bytes = std::fs::read(&path).expect("read a seed");
        let before = PANICS.load(Ordering::SeqCst);
        let trace = match import_bytes(&name, &bytes, &mut NoProgress) {
            Ok(t) => t,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(PANICS.load(Ordering::SeqCst), before, "{name}: panicked (caught)");
        trace.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        if name.starts_with("instruction") {
            assert_eq!(trace.slice_count(), 6, "{name}");
        }
        n += 1;
    }
    assert!(n >= 7, "{n} seeds");
}
