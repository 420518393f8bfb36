//! Threads (issue 10 goal 4): the import's parallel stages (`loupe_core::par`, feature `rayon`)
//! give the same model for any pool size. Each input is imported in a 1-thread and a 4-thread
//! rayon pool and the two models are compared byte for byte (their wire encodings).
#![cfg(feature = "rayon")]

use loupe_core::import::chrome::synth;
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::model::{wire, ArgsId, Layout, Trace, TraceBuilder, TrackKind};
use loupe_core::StrId;

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(f)
}

fn same_for_1_and_4(name: &str, make: impl Fn() -> Trace + Sync) {
    let one = in_pool(1, || (loupe_core::par::threads(), wire::encode(make()).unwrap()));
    let four = in_pool(4, || (loupe_core::par::threads(), wire::encode(make()).unwrap()));
    assert_eq!((one.0, four.0), (1, 4), "{name}: pool sizes");
    assert!(one.1.len() > 1000, "{name}: a real model ({} bytes)", one.1.len());
    assert!(one.1 == four.1, "{name}: the 1-thread and 4-thread models differ");
}

#[test]
fn chrome_import_is_the_same_on_1_and_4_threads() {
    // large enough for the parallel sort (≥ 64 k slices on the busiest track)
    let json = synth::chrome_trace_json(48 << 20, 7);
    same_for_1_and_4("kineto-like", || import_bytes("t.json", &json, &mut NoProgress).unwrap());
}

#[test]
fn spills_and_lanes_are_the_same_on_1_and_4_threads() {
    // many tracks with ties, improper nesting (spill tracks) and lane layouts
    let make = || {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", loupe_core::model::GroupKind::Process);
        let mut x: u64 = 1;
        for t in 0..24 {
            let name = format!("t{t}");
            let track = b.add_track(g, &name, TrackKind::Thread, &name);
            if t % 3 == 0 {
                b.set_track_layout(track, Layout::Lanes);
            }
            let n = b.intern(&format!("n{t}"));
            for i in 0..(70_000 + t * 1000) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let start = (x % 5_000_000) as i64;
                let dur = ((x >> 20) % 40_000) as i64 + (i % 3) as i64;
                b.add_slice(track, start, dur, n, StrId::EMPTY, ArgsId::NONE);
            }
        }
        b.finish()
    };
    let t = make();
    assert!(t.tracks.iter().any(|t| t.kind == TrackKind::Overlap), "the input spills");
    same_for_1_and_4("spills", make);
}

/// `par::with_read_ahead` (the worker reads the `File` while the pool parses): the same model as
/// reading in line; a read error reaches the parser; an
/// early stop of the parser (a refused file) does not hang the reading side.
#[test]
fn read_ahead_streams_the_same_bytes() {
    use loupe_core::import::chrome::StreamOptions;
    use loupe_core::import::{import_chrome_stream, Progress};
    use std::io::{Cursor, Read};
    let json = synth::chrome_trace_json(12 << 20, 5);
    let opts = || StreamOptions { chunk_bytes: 1 << 20, lazy_args: Some(0), max_peak_bytes: None };
    let size = json.len() as u64;
    let direct = wire::encode(
        import_chrome_stream("t.json", json.len() as u64, &mut Cursor::new(&json), opts(), &mut NoProgress)
            .unwrap(),
    )
    .unwrap();
    // the caller is outside the pool (the global one), like the browser worker's own thread
    let mut reports = 0u32;
    let mut progress = |_: u64, _: u64| {
        reports += 1;
        true
    };
    let ahead =
        loupe_core::par::with_read_ahead(&mut Cursor::new(&json), 300_000, &mut progress, move |r, p| {
            import_chrome_stream("t.json", size, r, opts(), p)
        });
    assert!(wire::encode(ahead.unwrap()).unwrap() == direct, "read-ahead built another model");
    assert!(reports > 0, "progress relayed");
    // a read error after 2 MB reaches the parser as an error
    struct Failing(Cursor<Vec<u8>>);
    impl Read for Failing {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.0.position() >= 2 << 20 {
                return Err(std::io::Error::other("disk gone"));
            }
            self.0.read(out)
        }
    }
    let mut f = Failing(Cursor::new(json.clone()));
    let r = loupe_core::par::with_read_ahead(
        &mut f,
        256 << 10,
        &mut NoProgress,
        move |r, p: &mut dyn Progress| import_chrome_stream("t.json", size, r, opts(), p),
    );
    let e = match r {
        Ok(_) => panic!("a read error must fail the import"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("disk gone"), "{e}");
    // the parser refuses early (too large): the reader stops, nothing hangs
    let small = StreamOptions { max_peak_bytes: Some(1), ..opts() };
    let r =
        loupe_core::par::with_read_ahead(&mut Cursor::new(&json), 64 << 10, &mut NoProgress, move |r, p| {
            import_chrome_stream("t.json", size, r, small, p)
        });
    assert!(r.is_err(), "refused");
}
