//! The `.loupe` file: one file that re-opens a profile without its original files — the built
//! model, the app's view state (annotations, layout, view: an opaque JSON text the app owns) and
//! what the model was built from.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! 0   8  magic  "LOUPE\0\x1a\n"   (NUL, ^Z and LF catch text-mode and truncating transfers)
//! 8   4  format version (u32)      = FORMAT_VERSION
//! 12  1  compression               0 = none, 1 = zlib (DEFLATE)
//! 13  3  reserved, zero
//! 16  8  payload length once decompressed (u64)
//! 24  …  payload: bincode 2 (standard, fixed-width integers) of
//!        FileMeta, then the state JSON (String), then the Trace
//! ```
//!
//! **Versions.** The model's bincode layout changes whenever `Trace` (or anything in it) changes,
//! so [`FORMAT_VERSION`] is bumped with every such change and [`read`] refuses other versions with
//! [`LoupeFileError::Version`] (a file from a newer Loupe, or an older one that this build cannot
//! migrate: the message says to re-open the original files). A migration, when one is worth
//! writing, is a `match` arm in [`read`] decoding the old layout into today's model.
//! `core/tests/loupe_file.rs` pins a hash of the bincode layout of a small fixed trace, so a change
//! of the model that forgets to bump the version fails a test.
//!
//! **Untrusted bytes.** Every length is checked before it is used; the payload is inflated with a
//! bound; bincode decodes with a memory limit scaled to the payload; the decoded model must pass
//! [`Trace::validate`], and its level-of-detail indexes are rebuilt rather than trusted. Bad bytes
//! give a [`LoupeFileError`], never a panic (fuzz target `import_loupe`).
//!
//! **Compression**, measured (`cargo run --release -p loupe-core --example loupe_size`): zlib
//! level 1 shrinks the model 4.5–7× (Kineto 16.5 MB → 2.4 MB, NTFF 104 KB → 24 KB) in ~5 ms per
//! MB; level 6 saves 15–20 % more but is 10–14× slower, so level 1. It is kept only when it saves
//! at least 5 %.

use crate::lod::LodIndex;
use crate::model::Trace;
use std::io::{Read, Write};

/// The first 8 bytes of every `.loupe` file.
pub const MAGIC: &[u8; 8] = b"LOUPE\0\x1a\n";
/// The layout this build writes and reads. Bump it with every change of the model's bincode layout.
pub const FORMAT_VERSION: u32 = 10;
const HEADER_BYTES: usize = 24;
/// zlib level: see the module doc.
const ZLIB_LEVEL: u32 = 1;

/// What the model was made from, and by what.
#[derive(Debug, Clone, Default, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct FileMeta {
    /// `loupe-core` version that wrote the file.
    pub written_by: String,
    /// The input files (name as given to the importer, size in bytes).
    pub sources: Vec<SourceFile>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode, serde::Serialize)]
pub struct SourceFile {
    pub name: String,
    pub size_bytes: u64,
}

/// A decoded `.loupe` file.
#[derive(Debug)]
pub struct LoupeFile {
    pub meta: FileMeta,
    /// The app's state (annotations, layout, view) as it wrote it; `""` when none.
    pub state_json: String,
    pub trace: Trace,
    /// Bytes of the file, and of its payload once decompressed.
    pub file_bytes: u64,
    pub payload_bytes: u64,
    pub compressed: bool,
}

/// Why a `.loupe` file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LoupeFileError {
    #[error("not a .loupe file (it does not start with the Loupe magic)")]
    NotLoupe,
    #[error(
        "this .loupe file has format version {found}; this Loupe reads version {supported} only. {}",
        if *found > *supported { "It was saved by a newer Loupe: open it there, or update." }
        else { "It was saved by an older Loupe: re-open the original profile files and save again." }
    )]
    Version { found: u32, supported: u32 },
    #[error(".loupe file damaged: {0}. Re-open the original profile files and save again.")]
    Damaged(String),
    #[error(
        ".loupe file too large: its model expands to {payload} bytes, more than the {} Loupe can hold \
         for a file of this size",
        crate::units::human_bytes(*.limit)
    )]
    TooLarge { payload: u64, limit: u64 },
    #[error("cannot write the .loupe file: {0}")]
    Write(String),
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_fixed_int_encoding()
}

/// Whether `bytes` start like a `.loupe` file (the importer registry's sniff).
pub fn is_loupe(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Encode a `.loupe` file into `w`; returns the bytes written.
pub fn write(
    w: &mut dyn Write,
    trace: &Trace,
    state_json: &str,
    meta: &FileMeta,
) -> Result<u64, LoupeFileError> {
    let payload = encode_payload(trace, state_json, meta)?;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(ZLIB_LEVEL));
    z.write_all(&payload).map_err(|e| LoupeFileError::Write(e.to_string()))?;
    let packed = z.finish().map_err(|e| LoupeFileError::Write(e.to_string()))?;
    // keep compression only where it pays (≥ 5 % smaller)
    let compress = (packed.len() as u64) * 100 < (payload.len() as u64) * 95;
    let body: &[u8] = if compress { &packed } else { &payload };
    let mut head = [0u8; HEADER_BYTES];
    head[..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    head[12] = u8::from(compress);
    head[16..24].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    w.write_all(&head).and_then(|_| w.write_all(body)).map_err(|e| LoupeFileError::Write(e.to_string()))?;
    Ok((HEADER_BYTES + body.len()) as u64)
}

/// [`write()`] into a new vector.
pub fn to_bytes(trace: &Trace, state_json: &str, meta: &FileMeta) -> Result<Vec<u8>, LoupeFileError> {
    let mut v = Vec::new();
    write(&mut v, trace, state_json, meta)?;
    Ok(v)
}

fn encode_payload(trace: &Trace, state_json: &str, meta: &FileMeta) -> Result<Vec<u8>, LoupeFileError> {
    let mut out = Vec::new();
    let e = |e: bincode::error::EncodeError| LoupeFileError::Write(e.to_string());
    bincode::encode_into_std_write(meta, &mut out, bincode_config()).map_err(e)?;
    bincode::encode_into_std_write(state_json, &mut out, bincode_config()).map_err(e)?;
    bincode::encode_into_std_write(trace, &mut out, bincode_config()).map_err(e)?;
    Ok(out)
}

/// Decode a `.loupe` file. Never panics on any bytes.
pub fn read(bytes: &[u8]) -> Result<LoupeFile, LoupeFileError> {
    if !is_loupe(bytes) {
        return Err(LoupeFileError::NotLoupe);
    }
    let damaged = |m: &str| LoupeFileError::Damaged(m.to_string());
    let head = bytes.get(..HEADER_BYTES).ok_or_else(|| damaged("the header is cut short"))?;
    let le32 = |r: &[u8]| r.try_into().map(u32::from_le_bytes).map_err(|_| damaged("header"));
    let le64 = |r: &[u8]| r.try_into().map(u64::from_le_bytes).map_err(|_| damaged("header"));
    let version = le32(&head[8..12])?;
    // migrations of older layouts go here (`1 => …` stays today's layout)
    if version != FORMAT_VERSION {
        return Err(LoupeFileError::Version { found: version, supported: FORMAT_VERSION });
    }
    let compression = head[12];
    if head[13..16] != [0, 0, 0] {
        return Err(damaged("reserved header bytes are not zero"));
    }
    let payload_len = le64(&head[16..24])?;
    // the declared size is checked before anything is inflated: the payload and the model
    // decoded from it (about as large again, and half more) are held at once
    let limit = crate::limits::max_loupe_payload(bytes.len() as u64);
    if payload_len > limit {
        return Err(LoupeFileError::TooLarge { payload: payload_len, limit });
    }
    let body = &bytes[HEADER_BYTES..];
    // zlib expands at most ~1032:1: a header that declares more than that for this body is a
    // lie (a bomb or a corrupt length), refused before anything is inflated
    if compression == 1 && payload_len > (body.len() as u64).saturating_mul(ZLIB_MAX_RATIO) {
        return Err(damaged(&format!(
            "its header declares a {payload_len}-byte model, more than {} compressed bytes can hold",
            body.len()
        )));
    }
    let inflated;
    let payload: &[u8] = match compression {
        0 => body,
        1 => {
            let mut v = Vec::with_capacity((payload_len as usize).min(body.len().saturating_mul(16)));
            flate2::read::ZlibDecoder::new(body)
                .take(payload_len.saturating_add(1))
                .read_to_end(&mut v)
                .map_err(|e| LoupeFileError::Damaged(format!("its compressed model is corrupt ({e})")))?;
            inflated = v;
            &inflated
        }
        c => return Err(LoupeFileError::Damaged(format!("unknown compression {c}"))),
    };
    if payload.len() as u64 != payload_len {
        return Err(LoupeFileError::Damaged(format!(
            "the model is {} bytes, the header says {payload_len} (cut short?)",
            payload.len()
        )));
    }
    let (meta, state_json, mut trace) = decode_payload(payload)?;
    trace
        .validate()
        .map_err(|e| LoupeFileError::Damaged(format!("the saved model is inconsistent ({e})")))?;
    // the level-of-detail indexes are derived data: rebuilt, never trusted from the file
    for t in &mut trace.tracks {
        t.lod = LodIndex::build(&t.slices);
    }
    Ok(LoupeFile {
        meta,
        state_json,
        trace,
        file_bytes: bytes.len() as u64,
        payload_bytes: payload_len,
        compressed: compression == 1,
    })
}

/// `payload` behind a valid header, uncompressed (the fuzz target and the regression tests reach
/// the decoder with it).
pub fn frame_uncompressed(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_BYTES + payload.len());
    v.extend_from_slice(MAGIC);
    v.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    v.extend_from_slice(&[0, 0, 0, 0]);
    v.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

type Payload = (FileMeta, String, Trace);

/// The largest expansion DEFLATE allows (258 bytes per 2-bit code, ≈ 1032:1), rounded up.
const ZLIB_MAX_RATIO: u64 = 1040;

/// bincode with a memory limit scaled to the payload: a lying length can make the decoder
/// reserve at most a few times the payload, never gigabytes for a small file.
/// Only the metadata and the app's state of a `.loupe` file (they come first in the payload, so
/// this inflates a few kilobytes, not the model). For the app, which gets the model from the
/// parser worker and the state from here. Never panics on any bytes.
pub fn read_state(bytes: &[u8]) -> Result<(FileMeta, String), LoupeFileError> {
    if !is_loupe(bytes) {
        return Err(LoupeFileError::NotLoupe);
    }
    let damaged = |m: String| LoupeFileError::Damaged(m);
    let head = bytes.get(..HEADER_BYTES).ok_or_else(|| damaged("the header is cut short".into()))?;
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version != FORMAT_VERSION {
        return Err(LoupeFileError::Version { found: version, supported: FORMAT_VERSION });
    }
    let body = &bytes[HEADER_BYTES..];
    // the state is at most the whole file's worth of JSON: bound the decoder by it
    const LIMIT: usize = 256 << 20;
    let cfg = bincode::config::standard().with_fixed_int_encoding().with_limit::<LIMIT>();
    let mut reader: Box<dyn Read + '_> = match head[12] {
        0 => Box::new(body),
        1 => Box::new(flate2::read::ZlibDecoder::new(body)),
        c => return Err(damaged(format!("unknown compression {c}"))),
    };
    let meta: FileMeta = bincode::decode_from_std_read(&mut reader, cfg)
        .map_err(|e| damaged(decode_damage("its metadata", &e)))?;
    let state: String = bincode::decode_from_std_read(&mut reader, cfg)
        .map_err(|e| damaged(decode_damage("the saved view (annotations, layout)", &e)))?;
    Ok((meta, state))
}

/// What a decoder error means for someone holding the file — never the decoder's Debug text.
fn decode_damage(part: &str, e: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError as E;
    let what = match e {
        E::UnexpectedEnd { .. } => "it ends early (the file was cut short)".to_string(),
        E::Io { .. } => "it ends early or its compressed data is corrupt".to_string(),
        E::LimitExceeded => "it declares more data than the file can hold (a corrupt length)".to_string(),
        E::Utf8 { .. } | E::InvalidCharEncoding(_) => "a piece of text in it is not valid UTF-8".to_string(),
        E::UnexpectedVariant { type_name, .. } => {
            format!("a value of type {} is out of range", type_name.rsplit("::").next().unwrap_or(type_name))
        }
        E::InvalidBooleanValue(_) => "a yes/no value is neither".to_string(),
        E::OutsideUsizeRange(_) | E::ArrayLengthMismatch { .. } | E::InvalidIntegerType { .. } => {
            "a length or number in it is corrupt".to_string()
        }
        _ => "its content does not decode".to_string(),
    };
    format!("{part} cannot be read: {what}")
}

fn decode_payload(p: &[u8]) -> Result<Payload, LoupeFileError> {
    const MIB: usize = 1 << 20;
    let n = p.len();
    if n <= 4 * MIB {
        decode_limited::<{ 64 * MIB }>(p)
    } else if n <= 64 * MIB {
        decode_limited::<{ 512 * MIB }>(p)
    } else {
        decode_limited::<{ 1536 * MIB }>(p)
    }
}

fn decode_limited<const LIMIT: usize>(p: &[u8]) -> Result<Payload, LoupeFileError> {
    let cfg = bincode::config::standard().with_fixed_int_encoding().with_limit::<LIMIT>();
    let (v, used): (Payload, usize) = bincode::decode_from_slice(p, cfg)
        .map_err(|e| LoupeFileError::Damaged(decode_damage("the saved model", &e)))?;
    if used != p.len() {
        return Err(LoupeFileError::Damaged(format!("{} bytes after the model", p.len() - used)));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_state_reads_only_the_state() {
        let t = crate::demo::demo_trace();
        let meta = FileMeta {
            written_by: "t".into(),
            sources: vec![SourceFile { name: "a.json".into(), size_bytes: 3 }],
        };
        let bytes = to_bytes(&t, r#"{"view":1}"#, &meta).unwrap();
        let (m, s) = read_state(&bytes).unwrap();
        assert_eq!((m, s.as_str()), (meta, r#"{"view":1}"#));
        // cut inside the model: the state still reads; cut inside the header: a typed error
        assert!(read_state(&bytes[..bytes.len() / 2]).is_ok());
        assert!(read_state(&bytes[..10]).is_err());
        assert!(matches!(read_state(b"nope"), Err(LoupeFileError::NotLoupe)));
    }
    use crate::model::synth;

    fn meta() -> FileMeta {
        FileMeta {
            written_by: env!("CARGO_PKG_VERSION").into(),
            sources: vec![SourceFile { name: "a.json".into(), size_bytes: 12 }],
        }
    }

    fn model_bytes(t: &Trace) -> Vec<u8> {
        bincode::encode_to_vec(t, bincode_config()).unwrap()
    }

    #[test]
    fn round_trip_keeps_the_model_state_and_meta() {
        let t = crate::demo::demo_trace();
        let bytes = to_bytes(&t, "{\"annotations\":[1]}", &meta()).unwrap();
        let f = read(&bytes).unwrap();
        assert_eq!(model_bytes(&f.trace), model_bytes(&t), "model equality (bincode of every field)");
        assert_eq!(f.state_json, "{\"annotations\":[1]}");
        assert_eq!(f.meta, meta());
        assert_eq!(f.file_bytes, bytes.len() as u64);
        assert!(f.compressed, "the demo model compresses");
        assert!(f.payload_bytes > f.file_bytes);
    }

    #[test]
    fn versions_and_damage_are_typed_errors() {
        let t = synth::nested_trace(30, 2, 4);
        let good = to_bytes(&t, "", &FileMeta::default()).unwrap();
        let mut newer = good.clone();
        newer[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let e = read(&newer).unwrap_err();
        assert!(matches!(e, LoupeFileError::Version { found, .. } if found == FORMAT_VERSION + 1));
        assert!(e.to_string().contains("newer Loupe"), "{e}");
        let mut older = good.clone();
        older[8..12].copy_from_slice(&0u32.to_le_bytes());
        assert!(read(&older).unwrap_err().to_string().contains("older Loupe"));
        assert!(matches!(read(b"{\"traceEvents\":[]}"), Err(LoupeFileError::NotLoupe)));
        assert!(matches!(read(&good[..20]), Err(LoupeFileError::Damaged(_))));
        for cut in [HEADER_BYTES, good.len() / 2, good.len() - 1] {
            assert!(read(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut huge = good.clone();
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(read(&huge), Err(LoupeFileError::TooLarge { .. })));
        let mut flipped = good.clone();
        let n = flipped.len();
        flipped[n - 3] ^= 0xff;
        assert!(read(&flipped).is_err());
    }

    #[test]
    fn damage_is_described_for_a_person_not_as_decoder_debug_text() {
        let t = synth::nested_trace(30, 2, 4);
        let raw = frame_uncompressed(&{
            let mut p = Vec::new();
            let cfg = bincode_config();
            bincode::encode_into_std_write(FileMeta::default(), &mut p, cfg).unwrap();
            bincode::encode_into_std_write("", &mut p, cfg).unwrap();
            bincode::encode_into_std_write(&t, &mut p, cfg).unwrap();
            p
        });
        assert!(read(&raw).is_ok());
        // every single-byte flip and every cut of the uncompressed payload: a message a person can
        // act on (no `{`/`}` of a Debug print, names what to do)
        let mut seen = 0;
        for i in (HEADER_BYTES..raw.len()).step_by(7) {
            for bad in [
                {
                    let mut b = raw.clone();
                    b[i] ^= 0xa5;
                    b
                },
                raw[..i].to_vec(),
            ] {
                let Err(e) = read(&bad) else { continue };
                let m = e.to_string();
                assert!(!m.contains('{') && !m.contains('}'), "decoder text leaked: {m}");
                assert!(m.contains("Re-open the original profile") || m.contains("too large"), "{m}");
                seen += 1;
            }
        }
        assert!(seen > 10, "{seen}");
    }

    #[test]
    fn a_compressed_payload_declaring_more_than_zlib_can_expand_is_refused_before_inflating() {
        let t = synth::nested_trace(30, 2, 4);
        let mut bomb = to_bytes(&t, "", &FileMeta::default()).unwrap();
        let body = (bomb.len() - HEADER_BYTES) as u64;
        bomb[16..24].copy_from_slice(&(body * 2000).to_le_bytes());
        let e = read(&bomb).unwrap_err().to_string();
        assert!(e.contains("more than") && e.contains("compressed bytes can hold"), "{e}");
    }

    #[test]
    fn an_uncompressed_payload_that_lies_about_a_length_is_refused_without_allocating_it() {
        // header + FileMeta whose `written_by` claims 2^60 bytes
        let mut v = Vec::new();
        v.extend_from_slice(MAGIC);
        v.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        v.extend_from_slice(&[0, 0, 0, 0]);
        let payload = (1u64 << 60).to_le_bytes();
        v.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        v.extend_from_slice(&payload);
        assert!(matches!(read(&v), Err(LoupeFileError::Damaged(_))));
    }
}
