//! Containers: gzip (by magic, not extension) and zip (stored or deflated members).
//! Unwrapping is recursive up to [`MAX_DEPTH`] levels (a .zip holding a .json.gz); deeper
//! nesting is a clear error, not an "unrecognised format".
//!
//! Damage that still leaves something to load is a [`Note`] (made a counted trace warning by
//! [`super::import_files`]): a gzip stream that ends early (what was inflated is kept) and
//! bytes after the gzip stream (ignored, the stream is kept).
//!
//! Memory: everything unwrapped from one import (every member, every nesting level, every
//! input file) spends one [`Budget`] ([`crate::limits::MAX_EXPANDED_BYTES`]); going beyond it
//! is [`ImportError::TooLarge`] ("this file expands to more than 1.5 GiB"), never a silent
//! truncation. Declared sizes are never trusted for allocation.

use super::ImportError;
use crate::limits::MAX_EXPANDED_BYTES;
use crate::model::WarningKind;
use std::borrow::Cow;
use std::io::Read;

/// Unwrapped files: (name, bytes), borrowed when nothing had to be unwrapped.
pub type Unwrapped<'a> = Vec<(String, Cow<'a, [u8]>)>;

/// How many container levels are unwrapped (gzip in zip in gzip …).
pub const MAX_DEPTH: u32 = 4;

/// Something unwrapping noticed but could work around, about one unwrapped file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Name of the unwrapped file the note is about.
    pub file: String,
    /// [`WarningKind::ContainerTruncated`] or [`WarningKind::ContainerTrailingBytes`].
    pub kind: WarningKind,
    pub message: String,
}

/// Bytes that unwrapping may still produce (shared by all members of one import).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    limit: u64,
    left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(MAX_EXPANDED_BYTES)
    }
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget { limit, left: limit }
    }
    /// Bytes that may still be produced.
    pub fn left(&self) -> u64 {
        self.left
    }
    fn too_large(&self) -> ImportError {
        ImportError::TooLarge { what: "this file expands to".into(), limit: self.limit }
    }
    /// Spend `n` bytes, or fail with the "expands to more than" error.
    fn spend(&mut self, n: u64) -> Result<(), ImportError> {
        if n > self.left {
            self.left = 0;
            return Err(self.too_large());
        }
        self.left -= n;
        Ok(())
    }
    /// Read `r` to the end within the budget (capacity from `hint`, itself capped).
    fn read_all(&mut self, r: impl Read, hint: u64) -> (Vec<u8>, std::io::Result<()>, bool) {
        let cap = hint.min(self.left).min(256 << 20) as usize;
        let mut out = Vec::with_capacity(cap);
        let res = r.take(self.left.saturating_add(1)).read_to_end(&mut out).map(|_| ());
        let over = out.len() as u64 > self.left;
        self.left = self.left.saturating_sub(out.len() as u64);
        (out, res, over)
    }
}

pub fn is_gzip(b: &[u8]) -> bool {
    b.len() >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8
}
pub fn is_zip(b: &[u8]) -> bool {
    b.len() >= 4 && &b[..4] == b"PK\x03\x04"
}

pub fn gunzip(b: &[u8]) -> Result<Vec<u8>, ImportError> {
    gunzip_within(b, &mut Budget::default())
}

/// [`gunzip`] spending `budget`.
pub fn gunzip_within(b: &[u8], budget: &mut Budget) -> Result<Vec<u8>, ImportError> {
    gunzip_noting(b, budget, &mut Vec::new())
}

/// [`gunzip_within`] that reports recoverable damage: a truncated stream keeps what was
/// inflated, bytes after the last gzip member are ignored (zero padding silently).
fn gunzip_noting(
    b: &[u8],
    budget: &mut Budget,
    notes: &mut Vec<(WarningKind, String)>,
) -> Result<Vec<u8>, ImportError> {
    let mut out = Vec::new();
    let mut rest = b;
    loop {
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        let (part, res, over) = budget.read_all(&mut dec, (rest.len() as u64).saturating_mul(4));
        if over {
            return Err(budget.too_large());
        }
        if out.is_empty() {
            out = part;
        } else {
            out.extend_from_slice(&part);
        }
        match res {
            Ok(()) => {}
            // a truncated gzip still yields what was inflated: let the importer judge the damage
            Err(e) if !out.is_empty() && e.kind() == std::io::ErrorKind::UnexpectedEof => {
                notes.push((
                    WarningKind::ContainerTruncated,
                    format!(
                        "the gzip stream ends early (truncated file?): kept the {} bytes inflated before the end",
                        out.len()
                    ),
                ));
                return Ok(out);
            }
            Err(e) if !out.is_empty() => {
                notes.push((
                    WarningKind::ContainerTruncated,
                    format!(
                        "the gzip stream is damaged after {} inflated bytes ({e}); kept those",
                        out.len()
                    ),
                ));
                return Ok(out);
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(ImportError::Container(format!(
                    "gzip: the stream ends before any data ({} bytes; truncated file?)",
                    b.len()
                )))
            }
            Err(e) => return Err(ImportError::Container(format!("gzip: {e}"))),
        }
        rest = dec.into_inner();
        if is_gzip(rest) {
            continue; // another gzip member
        }
        if rest.iter().any(|&c| c != 0) {
            notes.push((
                WarningKind::ContainerTrailingBytes,
                format!(
                    "{} bytes after the end of the gzip stream were ignored (starts with {})",
                    rest.len(),
                    hex_head(rest)
                ),
            ));
        }
        return Ok(out);
    }
}

fn hex_head(b: &[u8]) -> String {
    let mut s: String = b.iter().take(8).map(|c| format!("{c:02x} ")).collect();
    s.pop();
    if b.len() > 8 {
        s.push_str(" …");
    }
    s
}

/// Unwrap gzip/zip; returns the inner files with their names. Plain files pass through borrowed.
pub fn unwrap<'a>(name: &str, bytes: &'a [u8]) -> Result<Unwrapped<'a>, ImportError> {
    unwrap_within(name, bytes, &mut Budget::default())
}

/// [`unwrap`] spending `budget` (share one between the files of one import).
pub fn unwrap_within<'a>(
    name: &str,
    bytes: &'a [u8],
    budget: &mut Budget,
) -> Result<Unwrapped<'a>, ImportError> {
    unwrap_noting(name, bytes, budget, &mut Vec::new())
}

/// [`unwrap_within`] that also returns what it worked around ([`Note`]).
pub fn unwrap_noting<'a>(
    name: &str,
    bytes: &'a [u8],
    budget: &mut Budget,
    notes: &mut Vec<Note>,
) -> Result<Unwrapped<'a>, ImportError> {
    unwrap_depth(name, Cow::Borrowed(bytes), 0, budget, notes)
}

fn unwrap_depth<'a>(
    name: &str,
    bytes: Cow<'a, [u8]>,
    depth: u32,
    budget: &mut Budget,
    notes: &mut Vec<Note>,
) -> Result<Unwrapped<'a>, ImportError> {
    let nested = is_gzip(&bytes) || is_zip(&bytes) || is_empty_zip(&bytes);
    if nested && depth >= MAX_DEPTH {
        return Err(ImportError::Container(format!(
            "'{}' is a container nested more than {MAX_DEPTH} levels deep (gzip/zip inside gzip/zip …); \
             unpack it first",
            printable(name)
        )));
    }
    if is_gzip(&bytes) {
        let mut said = Vec::new();
        let inner = gunzip_noting(&bytes, budget, &mut said)?;
        let inner_name = name.strip_suffix(".gz").unwrap_or(name).to_string();
        for (kind, m) in said {
            notes.push(Note {
                file: inner_name.clone(),
                kind,
                message: format!("'{}': {m}", printable(name)),
            });
        }
        return unwrap_depth(&inner_name, Cow::Owned(inner), depth + 1, budget, notes);
    }
    if is_zip(&bytes) || is_empty_zip(&bytes) {
        let mut out = Vec::new();
        let members = read_zip_within(&bytes, budget)?;
        if members.is_empty() {
            return Err(ImportError::Container(format!(
                "the zip archive '{}' is empty (it holds no files)",
                printable(name)
            )));
        }
        for (n, data) in members {
            out.extend(unwrap_depth(&n, Cow::Owned(data), depth + 1, budget, notes)?);
        }
        return Ok(out);
    }
    Ok(vec![(name.to_string(), bytes)])
}

/// An archive with no members is only an end-of-central-directory record.
fn is_empty_zip(b: &[u8]) -> bool {
    b.len() >= 22 && &b[..4] == b"PK\x05\x06"
}

/// A file name safe to show: no control characters, at most 120 characters.
pub(crate) fn printable(name: &str) -> String {
    name.chars().filter(|c| !c.is_control()).take(120).collect()
}

/// `n` bytes at offset `o`, `None` past the end (offsets come from the file: never overflow).
fn bytes_at(b: &[u8], o: usize, n: usize) -> Option<&[u8]> {
    b.get(o..o.checked_add(n)?)
}
fn u16le(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes_at(b, o, 2)?.try_into().ok()?))
}
fn u32le(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes_at(b, o, 4)?.try_into().ok()?))
}

/// Read a zip through its central directory (sizes are reliable there, unlike in local headers
/// written with data descriptors). Directories and empty files are skipped.
pub fn read_zip(b: &[u8]) -> Result<Vec<(String, Vec<u8>)>, ImportError> {
    read_zip_within(b, &mut Budget::default())
}

/// [`read_zip`] spending `budget` for every member together.
pub fn read_zip_within(b: &[u8], budget: &mut Budget) -> Result<Vec<(String, Vec<u8>)>, ImportError> {
    let bad = |m: &str| ImportError::Container(format!("zip: {m}"));
    // end of central directory: last 22..22+65535 bytes
    let min = b.len().saturating_sub(22 + 65535);
    let eocd = (min..b.len().saturating_sub(21))
        .rev()
        .find(|&o| bytes_at(b, o, 4) == Some(b"PK\x05\x06"))
        .ok_or_else(|| bad("no end-of-central-directory record (truncated archive?)"))?;
    let count = u16le(b, eocd.saturating_add(10)).ok_or_else(|| bad("truncated"))? as usize;
    let mut p = u32le(b, eocd.saturating_add(16)).ok_or_else(|| bad("truncated"))? as usize;
    let mut out = Vec::new();
    for _ in 0..count {
        if bytes_at(b, p, 4) != Some(b"PK\x01\x02") {
            return Err(bad("damaged central directory"));
        }
        let method = u16le(b, p.saturating_add(10)).ok_or_else(|| bad("truncated"))?;
        let csize = u32le(b, p.saturating_add(20)).ok_or_else(|| bad("truncated"))? as usize;
        let usize_ = u32le(b, p.saturating_add(24)).ok_or_else(|| bad("truncated"))? as u64;
        let nlen = u16le(b, p.saturating_add(28)).ok_or_else(|| bad("truncated"))? as usize;
        let xlen = u16le(b, p.saturating_add(30)).ok_or_else(|| bad("truncated"))? as usize;
        let clen = u16le(b, p.saturating_add(32)).ok_or_else(|| bad("truncated"))? as usize;
        let lho = u32le(b, p.saturating_add(42)).ok_or_else(|| bad("truncated"))? as usize;
        let name =
            String::from_utf8_lossy(bytes_at(b, p.saturating_add(46), nlen).ok_or_else(|| bad("truncated"))?)
                .into_owned();
        p = p.saturating_add(46 + nlen + xlen + clen);
        if name.ends_with('/') || name.starts_with("__MACOSX/") {
            continue;
        }
        if bytes_at(b, lho, 4) != Some(b"PK\x03\x04") {
            return Err(bad("bad local header"));
        }
        let lnlen = u16le(b, lho.saturating_add(26)).ok_or_else(|| bad("truncated"))? as usize;
        let lxlen = u16le(b, lho.saturating_add(28)).ok_or_else(|| bad("truncated"))? as usize;
        let start = lho.saturating_add(30 + lnlen + lxlen);
        let data = b
            .get(start..start.saturating_add(csize))
            .ok_or_else(|| bad(&format!("member '{name}' is truncated")))?;
        let content = match method {
            0 => {
                budget.spend(data.len() as u64)?;
                data.to_vec()
            }
            8 => {
                // the declared size is a hint only (0xFFFFFFFF in zip64 archives, or a lie);
                // a real size beyond the budget is refused before inflating
                if usize_ > budget.left && usize_ != u64::from(u32::MAX) {
                    return Err(budget.too_large());
                }
                let hint = if usize_ == u64::from(u32::MAX) { csize as u64 } else { usize_ };
                let (v, res, over) = budget.read_all(flate2::read::DeflateDecoder::new(data), hint);
                if over {
                    return Err(budget.too_large());
                }
                res.map_err(|e| bad(&format!("member '{name}': {e}")))?;
                v
            }
            m => return Err(bad(&format!("member '{name}' uses unsupported compression method {m}"))),
        };
        if !content.is_empty() {
            out.push((name, content));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_round_trip_and_truncation() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"[{\"ph\":\"X\"}]").unwrap();
        let gz = e.finish().unwrap();
        let v = unwrap("a.json.gz", &gz).unwrap();
        assert_eq!(v[0].0, "a.json");
        assert_eq!(&*v[0].1, b"[{\"ph\":\"X\"}]");
        for cut in 0..gz.len() {
            let _ = unwrap("a.gz", &gz[..cut]);
        }
        assert!(read_zip(b"PK\x03\x04garbage").is_err());
    }
}
