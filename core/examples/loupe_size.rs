//! Size and speed of the `.loupe` file on real profiles: the raw model (bincode), zlib levels 1
//! and 6, and read time. `cargo run --release -p loupe-core --example loupe_size -- FILE...`
use loupe_core::import::{import_bytes, NoProgress};
use loupe_core::loupe_file::{read, to_bytes, FileMeta};
use std::io::Write;
use std::time::Instant;

fn main() {
    for p in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&p) else { continue };
        let Ok(t) = import_bytes(&p, &bytes, &mut NoProgress) else { continue };
        let raw = bincode::encode_to_vec(&t, bincode::config::standard().with_fixed_int_encoding())
            .unwrap_or_default();
        let z = |level| {
            let s = Instant::now();
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
            let _ = e.write_all(&raw);
            let n = e.finish().map(|v| v.len()).unwrap_or(0);
            (n, s.elapsed().as_secs_f64() * 1e3)
        };
        let (z1, t1) = z(1);
        let (z6, t6) = z(6);
        let s = Instant::now();
        let file = to_bytes(&t, "", &FileMeta::default()).unwrap_or_default();
        let write_ms = s.elapsed().as_secs_f64() * 1e3;
        let s = Instant::now();
        let ok = read(&file).is_ok();
        let read_ms = s.elapsed().as_secs_f64() * 1e3;
        println!(
            "{p}: input {} B, model {} B, zlib-1 {z1} B ({t1:.0} ms), zlib-6 {z6} B ({t6:.0} ms); .loupe {} B written in {write_ms:.0} ms, read {read_ms:.0} ms ({ok})",
            bytes.len(),
            raw.len(),
            file.len()
        );
    }
}
