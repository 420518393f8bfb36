//! Debug aid: import files together and print one FNV hash of the whole model (its bincode
//! encoding) and one of its device summary (JSON; `-` when it is not a device profile), to
//! check that two builds make the same model and figures on the same inputs:
//! `cargo run --release -p loupe-core --example model_hash -- FIXED... [--each FILE...]`
//! imports the fixed files once, or with `--each` once per following file, together with it.
use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::strings::Fnv;

fn run(paths: &[String]) {
    let files: Vec<(String, Vec<u8>)> =
        paths.iter().map(|p| (p.clone(), std::fs::read(p).expect("read"))).collect();
    let inputs: Vec<InputFile<'_>> = files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
    match import_files(&inputs, &mut NoProgress) {
        Ok(t) => {
            let raw = bincode::encode_to_vec(&t, bincode::config::standard().with_fixed_int_encoding())
                .expect("encode");
            let mut h = Fnv::new();
            h.bytes(&raw);
            let summary = loupe_core::analysis::device_summary::device_summary(&t).map_or("-".into(), |s| {
                let mut h = Fnv::new();
                h.bytes(serde_json::to_string(&s).expect("json").as_bytes());
                format!("{:016x}", h.0)
            });
            println!("{:016x} {summary} {} B {}", h.0, raw.len(), paths.join(" "));
        }
        Err(e) => println!("error: {e} {}", paths.join(" ")),
    }
}

fn main() {
    let mut fixed: Vec<String> = std::env::args().skip(1).collect();
    let Some(k) = fixed.iter().position(|a| a == "--each") else {
        run(&fixed);
        return;
    };
    let each: Vec<String> = fixed.split_off(k).into_iter().skip(1).collect();
    for f in each {
        let mut paths = fixed.clone();
        paths.push(f);
        run(&paths);
    }
}
