//! The streaming Chrome JSON import gives the same model as the whole-buffer import, for any
//! split of the file (chunk sizes down to 7 bytes), on the shared Chrome/Kineto samples (required:
//! the test fails when they are absent) and on generated Kineto-like traces; with lazy arguments, the same model apart
//! from where the args live, the args re-read from their byte ranges equal the eager ones, and
//! the GPU analyses (which read Kineto's `stream`/`correlation`) give the same result.

use loupe_core::analysis::gpu::{gpu_analysis, GpuOptions};
use loupe_core::import::chrome::{args_from_text, synth, StreamOptions};
use loupe_core::import::{import_bytes, import_chrome_stream, streamable, NoProgress, SNIFF_BYTES};
use loupe_core::Trace;
use std::io::Read;
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples");

/// A reader that returns at most `n` bytes per call.
struct Dribble<'a> {
    rest: &'a [u8],
    n: usize,
}

impl Read for Dribble<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(out.len()).min(self.rest.len());
        out[..k].copy_from_slice(&self.rest[..k]);
        self.rest = &self.rest[k..];
        Ok(k)
    }
}

fn stream(name: &str, bytes: &[u8], chunk: usize, lazy: bool) -> Result<Trace, String> {
    let opts = StreamOptions { chunk_bytes: chunk, lazy_args: lazy.then_some(0), max_peak_bytes: None };
    let mut r = Dribble { rest: bytes, n: chunk };
    import_chrome_stream(name, bytes.len() as u64, &mut r, opts, &mut NoProgress).map_err(|e| e.to_string())
}

fn encode(t: &Trace) -> Vec<u8> {
    bincode::encode_to_vec(t, bincode::config::standard()).expect("encodes")
}

/// The whole-buffer import and another way of importing (`how`) agree: the same trace, byte for
/// byte once encoded (and valid), or the same error.
fn assert_same(name: &str, how: &str, whole: &Result<Trace, String>, other: &Result<Trace, String>) {
    match (whole, other) {
        (Ok(w), Ok(o)) => {
            o.validate().expect("valid");
            assert!(encode(w) == encode(o), "{name}: model differs {how}");
        }
        (Err(w), Err(o)) => assert_eq!(w, o, "{name}: error differs {how}"),
        _ => panic!("{name}: whole {:?} vs {how} {:?}", whole.as_ref().err(), other.as_ref().err()),
    }
}

/// Whole buffer vs streamed at several chunk sizes.
fn check_same(name: &str, bytes: &[u8], chunks: &[usize]) {
    let whole = import_bytes(name, bytes, &mut NoProgress).map_err(|e| e.to_string());
    for &c in chunks {
        assert_same(name, &format!("with {c}-byte chunks"), &whole, &stream(name, bytes, c, false));
    }
}

/// Lazy args: same slices; every lazy range re-read equals the eager args; same GPU analysis.
fn check_lazy(name: &str, bytes: &[u8], chunk: usize) -> usize {
    let Ok(eager) = import_bytes(name, bytes, &mut NoProgress) else { return 0 };
    let lazy = stream(name, bytes, chunk, true).expect("lazy import");
    lazy.validate().expect("valid");
    assert_eq!(eager.tracks.len(), lazy.tracks.len(), "{name}");
    let mut n = 0;
    for (te, tl) in eager.tracks.iter().zip(&lazy.tracks) {
        assert_eq!(te.slices.start_ns, tl.slices.start_ns, "{name}");
        assert_eq!(te.slices.dur_ns, tl.slices.dur_ns, "{name}");
        let names = |t: &Trace, c: &loupe_core::model::SliceColumns| -> Vec<String> {
            c.name.iter().map(|&s| t.str(s).to_string()).collect()
        };
        assert_eq!(names(&eager, &te.slices), names(&lazy, &tl.slices), "{name}");
        for (i, (&ae, &al)) in te.slices.args.iter().zip(&tl.slices.args).enumerate() {
            let shown = match lazy.args.lazy_ref(al) {
                Some(r) => {
                    n += 1;
                    let a = r.offset as usize;
                    args_from_text(&bytes[a..a + r.len as usize])
                }
                None => lazy.args_display(al),
            };
            assert_eq!(eager.args_display(ae), shown, "{name}: args of slice {i}");
        }
    }
    let (ge, gl) =
        (gpu_analysis(&eager, &GpuOptions::default()), gpu_analysis(&lazy, &GpuOptions::default()));
    assert_eq!(ge, gl, "{name}: GPU analysis differs with lazy args");
    n
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["chrome-trace-json", "chrome-trace-json/malformed", "pytorch-kineto", "furiosa"] {
        let Ok(rd) = std::fs::read_dir(Path::new(ROOT).join(dir)) else { continue };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
        paths.sort();
        for p in paths {
            let Ok(raw) = std::fs::read(&p) else { continue };
            let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
                let mut out = Vec::new();
                if flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).is_err() {
                    continue;
                }
                out
            } else {
                raw
            };
            let name = p
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().trim_end_matches(".gz").to_string());
            if streamable(&name, &bytes[..bytes.len().min(SNIFF_BYTES)]) {
                out.push((format!("{dir}/{name}"), bytes));
            }
        }
    }
    out
}

#[test]
fn samples_same_model_streamed() {
    let all = samples();
    if all.is_empty() {
        panic!("no Chrome JSON samples under {ROOT} (the shared samples beside the repository are required)");
    }
    let mut lazy_sets = 0;
    for (name, bytes) in &all {
        let chunks: &[usize] = if bytes.len() <= 2 << 20 { &[7, 1024, 64 << 10] } else { &[1024, 1 << 20] };
        check_same(name, bytes, chunks);
        lazy_sets += check_lazy(name, bytes, 4096);
    }
    eprintln!("{} samples streamed; {lazy_sets} lazy argument sets re-read and compared", all.len());
    assert!(lazy_sets > 0);
}

#[test]
fn synthetic_kineto_same_model_streamed() {
    let bytes = synth::chrome_trace_json(1 << 20, 7);
    check_same("synth.json", &bytes, &[7, 1000, 1 << 16]);
    assert!(check_lazy("synth.json", &bytes, 1 << 16) > 1000);
}

#[test]
fn damaged_and_edge_cases_same_model_streamed() {
    let cases: &[&str] = &[
        r#"[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1,"args":{"x":1.5e3,"s":"q\"z"}}"#,
        r#"[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"X","name":"b","ts":"#,
        r#"[,{"ph":"i","name":"a","ts":1,"pid":1,"tid":1} {"ph":"i","name":"b","ts":2,"pid":1,"tid":1}] trailing"#,
        r#"{"deviceProperties":[{"id":0}],"traceEvents":[{"ph":"X","name":"k","cat":"kernel","ts":1,"dur":2,"pid":0,"tid":7,"args":{"stream":7,"correlation":12}}],"displayTimeUnit":"ns","x":12345678}"#,
        r#"{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}],"meta":{"a":"#,
        r#"{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}] "x":1}"#,
        r#"{"other":1,"more":[1,2,3]}"#,
        r#"[[1,2,3,4],[5,6,7,8]]"#,
        r#"[{"ph":"X","name":"a","ts":1,"dur":2} 5 ]"#,
        "\u{feff}[{\"ph\":\"B\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,\"args\":{\"n\":12345}},{\"ph\":\"E\",\"ts\":9,\"pid\":1,\"tid\":1,\"args\":{\"m\":-0.25}}]",
    ];
    // not Chrome JSON: the loader reads those whole (and reports them) instead of streaming
    assert!(!streamable("blank.json", b"   ") && !streamable("x.json", b"x"));
    for (i, c) in cases.iter().enumerate() {
        check_same(&format!("case{i}.json"), c.as_bytes(), &[1, 2, 3, 7, 1024]);
        check_lazy(&format!("case{i}.json"), c.as_bytes(), 3);
    }
}

#[test]
fn too_large_is_refused_early_with_a_message() {
    let bytes = synth::chrome_trace_json(1 << 20, 3);
    let opts = StreamOptions { chunk_bytes: 64 << 10, lazy_args: Some(0), max_peak_bytes: Some(100 << 10) };
    let mut r = Dribble { rest: &bytes, n: 64 << 10 };
    let e = import_chrome_stream("big.json", bytes.len() as u64, &mut r, opts, &mut NoProgress).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("million events") && m.contains("most Loupe can hold"), "{m}");
    // the whole file was not read to find out
    assert!(r.rest.len() > bytes.len() / 2);
}

/// The trace of `bytes` pushed into a [`StreamImport`] in pieces of the sizes `sizes` cycles
/// through (as the browser's worker pushes its asynchronous reads), parsed `chunk` bytes at least
/// at a time.
fn pushed(name: &str, bytes: &[u8], sizes: &[usize], chunk: usize) -> Result<Trace, String> {
    // the builder the browser's worker pushes into: under the import's budget
    pushed_into(loupe_core::import::chrome_stream_builder(bytes.len() as u64), name, bytes, sizes, chunk)
}

/// [`pushed`] into the builder `b`.
fn pushed_into(
    mut b: loupe_core::model::TraceBuilder,
    name: &str,
    bytes: &[u8],
    sizes: &[usize],
    chunk: usize,
) -> Result<Trace, String> {
    use loupe_core::import::chrome::{set_format, StreamImport};
    use loupe_core::import::finish_chrome_stream;
    let opts = StreamOptions { chunk_bytes: chunk, lazy_args: None, max_peak_bytes: None };
    let dialect = {
        let mut imp = StreamImport::new(&mut b, bytes.len() as u64, opts);
        let (mut at, mut k) = (0, 0);
        loop {
            let end = (at + sizes[k % sizes.len()]).min(bytes.len());
            imp.push(&bytes[at..end], end == bytes.len(), &mut NoProgress).map_err(|e| e.to_string())?;
            (at, k) = (end, k + 1);
            if end == bytes.len() {
                break;
            }
        }
        imp.finish(&mut NoProgress).map_err(|e| e.to_string())?
    };
    set_format(&mut b, dialect);
    finish_chrome_stream(name, b).map_err(|e| e.to_string())
}

/// Issue 37 §2: the pieces the browser's worker pushes are charged to the same budget as the
/// native import ([`loupe_core::import::chrome_stream_builder`], which the classic worker and
/// `import_chrome_stream` both build on); crossing it ends in the typed error, never a model.
#[test]
fn pushed_pieces_are_charged_to_the_import_budget() {
    use loupe_core::limits::Budget;
    for total in [1u64, 200 << 20, 3 << 30] {
        let b = loupe_core::import::chrome_stream_builder(total);
        assert_eq!(b.budget().limit(), Budget::for_input(total).limit(), "{total}");
    }
    let synth = synth::chrome_trace_json(256 << 10, 11);
    let whole = pushed("synth.json", &synth, &[997, 5, 40_000], 1 << 16).expect("fits its budget");
    // the same pieces into a builder whose budget holds a tenth of the model
    let mut b = loupe_core::import::chrome_stream_builder(synth.len() as u64);
    let slices = whole.slice_count() as u64 * loupe_core::limits::Item::Slices.cost();
    b.set_budget(Budget::with_limit(slices / 10));
    let e = pushed_into(b, "synth.json", &synth, &[997, 5, 40_000], 1 << 16).unwrap_err();
    assert!(e.contains("exceed") && e.contains("of memory for one import"), "{e}");
}

#[test]
fn pushed_pieces_same_model_as_whole() {
    let synth = synth::chrome_trace_json(256 << 10, 11);
    // one event far longer than the pieces: parsed only once the buffer has doubled
    let long_arg = "x".repeat(200_000);
    let long = format!(
        r#"{{"traceEvents":[{{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1,"args":{{"s":"{long_arg}"}}}},{{"ph":"X","name":"b","ts":5,"dur":1,"pid":1,"tid":1}}]}}"#
    );
    let docs: [(&str, &[u8]); 3] = [
        ("synth.json", &synth),
        ("long.json", long.as_bytes()),
        ("trunc.json", &synth[..synth.len() * 2 / 3]),
    ];
    for (name, bytes) in docs {
        let whole = import_bytes(name, bytes, &mut NoProgress).map_err(|e| e.to_string());
        let cases = [
            (&[1usize, 2, 3][..], 1),
            (&[1, 2, 3], 1 << 16),
            (&[997, 5, 40_000], 1 << 16),
            (&[8 << 20], 1 << 20),
        ];
        for (sizes, chunk) in cases {
            let p = pushed(name, bytes, sizes, chunk);
            assert_same(name, &format!("pushed in {sizes:?}, {chunk}-byte chunks"), &whole, &p);
        }
    }
}

#[test]
fn push_finished_early_is_an_error() {
    use loupe_core::import::chrome::StreamImport;
    let mut b = loupe_core::model::TraceBuilder::new("");
    let mut imp = StreamImport::new(&mut b, 100, StreamOptions::default());
    imp.push(br#"{"traceEvents":["#, false, &mut NoProgress).expect("a first piece");
    assert!(imp.finish(&mut NoProgress).unwrap_err().to_string().contains("before its last piece"));
}
