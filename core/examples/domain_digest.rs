//! Debug aid: import files together and print every track's typed domain fields, slice by
//! slice, as one FNV hash per track (compare two builds of the model on the same inputs):
//! `cargo run --release -p loupe-core --example domain_digest -- FILE...`
use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::strings::Fnv;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<(String, Vec<u8>)> =
        paths.iter().map(|p| (p.clone(), std::fs::read(p).expect("read"))).collect();
    let inputs: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
    let t = match import_files(&inputs, &mut NoProgress) {
        Ok(t) => t,
        Err(e) => {
            println!("error: {e}");
            return;
        }
    };
    let mut all = Fnv::new();
    for (ti, tr) in t.tracks.iter().enumerate() {
        let mut h = Fnv::new();
        let n = tr.slices.start_ns.len();
        for i in 0..n {
            let d = tr.slices.domain_of(i);
            h.bytes(t.strings.get(d.opcode).as_bytes());
            h.u64(u64::from(d.operator.0));
            h.u64(u64::from(d.instruction));
            h.u64(u64::from(d.source.0));
            h.u64(d.bytes);
            h.u64(u64::from(d.start_sub_ps));
            h.u64(u64::from(d.dur_sub_ps));
            h.u64(d.flops);
            h.u64(u64::from(d.transpose));
            for (k, v) in t.args.get(tr.slices.args[i]) {
                h.bytes(t.strings.get(k).as_bytes());
                h.bytes(format!("{v:?}").as_bytes());
            }
        }
        all.u64(h.0);
        println!("track {ti} {} slices {n} domain {:016x}", t.strings.get(tr.name), h.0);
    }
    println!("all {:016x} slices {} model {} bytes", all.0, t.slice_count(), t.heap_bytes());
}
