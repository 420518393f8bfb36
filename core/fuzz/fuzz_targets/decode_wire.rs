//! `cargo +nightly fuzz run decode_wire` (from core/): the model transfer encoding
//! ([`loupe_core::model::wire`]) that the page decodes from the parser worker and from its model
//! cache (IndexedDB: bytes the page did not just make). Any bytes give a model or a typed error,
//! never a panic or an allocation beyond the input's size; a decoded model goes through
//! `Trace::validate` like the page does (a failed check is an error there, a panic is a finding).
//! Each input is tried raw, and written over a valid transfer (its first four bytes pick the
//! position) so the fuzzer reaches the column decoder at once; the valid transfer is also fed in
//! chunks of the input's length, as the page feeds it between frames. The valid transfer is a
//! one-step demo model: every kind of data the demo has, in about a sixth of its slices, so each
//! input costs a sixth of the whole demo's decode.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use loupe_core::model::wire::{self, Decoder};

fn valid() -> &'static [u8] {
    static V: OnceLock<Vec<u8>> = OnceLock::new();
    V.get_or_init(|| wire::encode(loupe_core::demo::demo_trace_steps(1)).expect("encode the demo"))
}

fn check(bytes: &[u8]) {
    if let Ok(trace) = wire::decode(bytes) {
        let _ = trace.validate();
    }
}

/// The page's way: header first, then the columns in `chunk`-byte pieces.
fn check_chunked(bytes: &[u8], chunk: usize) {
    let Ok(skel_end) = wire::skeleton_end(bytes) else { return };
    let Ok(table) = Decoder::table_bytes(bytes.get(skel_end..).unwrap_or(&[])) else { return };
    let Some(header) = skel_end.checked_add(table).and_then(|n| bytes.get(..n)) else { return };
    let Ok(mut d) = Decoder::new(header, bytes.len() as u64) else { return };
    for c in bytes[header.len()..].chunks(chunk.max(1)) {
        if d.feed(c).is_err() {
            return;
        }
    }
    if let Ok(trace) = d.finish() {
        let _ = trace.validate();
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut v = valid().to_vec();
    if let Some((pos, patch)) = data.split_first_chunk::<4>() {
        let at = u32::from_le_bytes(*pos) as usize % v.len();
        for (b, p) in v[at..].iter_mut().zip(patch) {
            *b ^= p;
        }
        check(&v);
    }
    check_chunked(valid(), data.len().max(7));
});
