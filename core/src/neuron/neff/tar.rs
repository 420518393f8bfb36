//! Minimal tar reader/writer for the NEFF payload: 512-byte ustar/GNU headers, GNU long
//! names (`L`), pax `x` records (`path`, `size`), regular files only. Bounds-checked, never
//! panics; a damaged archive yields the members read so far plus a warning.

use serde::Serialize;
use std::collections::HashMap;

pub const BLOCK: usize = 512;

/// One regular-file member of the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Member {
    /// Normalised path (no leading `./` or `/`), as stored.
    pub path: String,
    /// Bytes actually available (smaller than `declared_size` when the archive is truncated).
    pub size: u64,
    /// Size declared by the header.
    pub declared_size: u64,
    /// Offset of the data within the unpacked tar bytes.
    #[serde(skip)]
    pub offset: usize,
}

/// The unpacked tarball: raw bytes plus member index.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Archive {
    #[serde(skip)]
    pub data: Vec<u8>,
    pub members: Vec<Member>,
    /// Problems met while reading (truncation, bad checksum, unsupported entries).
    pub warnings: Vec<String>,
    /// Path lookups (built by [`Archive::read`]; an archive assembled by hand falls back to scans).
    #[serde(skip)]
    index: PathIndex,
}

/// Member indexes by path, last occurrence winning (as with `tar x`).
#[derive(Debug, Clone, Default)]
struct PathIndex {
    exact: HashMap<String, usize>,
    lower: HashMap<String, usize>,
    /// (ASCII-lower-case directory, ASCII-lower-case base name) → member.
    dir_base: HashMap<(String, String), usize>,
    /// Directory (exact) → members in it, in archive order.
    by_dir: HashMap<String, Vec<usize>>,
    /// How many members were indexed (a different count means the list was edited: scan).
    len: usize,
}

impl PathIndex {
    fn build(members: &[Member]) -> PathIndex {
        let mut ix = PathIndex::default();
        for (i, m) in members.iter().enumerate() {
            ix.exact.insert(m.path.clone(), i);
            ix.lower.insert(m.path.to_lowercase(), i);
            ix.dir_base
                .insert((dir_of(&m.path).to_ascii_lowercase(), base_name(&m.path).to_ascii_lowercase()), i);
        }
        for (i, m) in members.iter().enumerate() {
            ix.by_dir.entry(dir_of(&m.path).to_string()).or_default().push(i);
        }
        ix.len = members.len();
        ix
    }
    fn is_for(&self, members: &[Member]) -> bool {
        self.len == members.len() && self.len > 0
    }
}

fn field_str(b: &[u8]) -> String {
    super::header::c_string(b)
}

/// Parse an octal (or GNU base-256) numeric field.
fn parse_num(b: &[u8]) -> Option<u64> {
    if let Some(&first) = b.first() {
        if first & 0x80 != 0 {
            // base-256, big-endian, first byte's top bit is the marker
            let mut v: u64 = (first & 0x7f) as u64;
            for &c in &b[1..] {
                v = v.checked_mul(256)?.checked_add(c as u64)?;
            }
            return Some(v);
        }
    }
    let mut v: u64 = 0;
    let mut seen = false;
    for &c in b {
        match c {
            b'0'..=b'7' => {
                v = v.checked_mul(8)?.checked_add((c - b'0') as u64)?;
                seen = true;
            }
            b' ' | 0 if !seen => continue,
            b' ' | 0 => break,
            _ => return None,
        }
    }
    Some(v)
}

/// True if `h` (512 bytes) is a tar header with a correct checksum.
pub fn header_valid(h: &[u8]) -> bool {
    if h.len() < BLOCK || h.iter().all(|&c| c == 0) {
        return false;
    }
    let Some(stored) = parse_num(&h[148..156]) else { return false };
    let mut unsigned: u64 = 0;
    let mut signed: i64 = 0;
    for (i, &c) in h[..BLOCK].iter().enumerate() {
        let c = if (148..156).contains(&i) { b' ' } else { c };
        unsigned += c as u64;
        signed += (c as i8) as i64;
    }
    stored == unsigned || stored as i64 == signed
}

pub fn normalise_path(p: &str) -> String {
    let p = p.replace('\\', "/");
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

fn pax_records(data: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let Some(sp) = rest.iter().position(|&c| c == b' ') else { break };
        let Some(len) = std::str::from_utf8(&rest[..sp]).ok().and_then(|s| s.parse::<usize>().ok()) else {
            break;
        };
        if len <= sp + 1 || len > rest.len() {
            break;
        }
        let rec = &rest[sp + 1..len];
        let rec = rec.strip_suffix(b"\n").unwrap_or(rec);
        if let Some(eq) = rec.iter().position(|&c| c == b'=') {
            out.push((
                String::from_utf8_lossy(&rec[..eq]).into_owned(),
                String::from_utf8_lossy(&rec[eq + 1..]).into_owned(),
            ));
        }
        rest = &rest[len..];
    }
    out
}

impl Archive {
    /// Read a tar archive. Errors only when the very first header is invalid.
    pub fn read(data: Vec<u8>) -> Result<Archive, String> {
        let mut members = Vec::new();
        let mut warnings = Vec::new();
        let mut pos = 0usize;
        let mut long_name: Option<String> = None;
        let mut pax_path: Option<String> = None;
        let mut pax_size: Option<u64> = None;
        let mut first = true;
        loop {
            let Some(h) = data.get(pos..pos + BLOCK) else {
                if pos < data.len() || (pos == data.len() && first) {
                    warnings.push(format!("tar truncated at byte {pos}"));
                }
                break;
            };
            if h.iter().all(|&c| c == 0) {
                break; // end-of-archive marker
            }
            if !header_valid(h) {
                if first {
                    return Err("payload is not a tar archive (bad first header)".into());
                }
                warnings.push(format!("bad tar header checksum at byte {pos}; stopped"));
                break;
            }
            first = false;
            let declared = pax_size.take().or_else(|| parse_num(&h[124..136])).unwrap_or(0);
            let typeflag = h[156];
            let magic = &h[257..263];
            let mut name = field_str(&h[0..100]);
            if magic == b"ustar\0" {
                let prefix = field_str(&h[345..500]);
                if !prefix.is_empty() {
                    name = format!("{prefix}/{name}");
                }
            }
            let data_start = pos + BLOCK;
            let avail = data.len().saturating_sub(data_start) as u64;
            let size = declared.min(avail);
            let body = &data[data_start..data_start + size as usize];
            let padded = declared.div_ceil(BLOCK as u64).saturating_mul(BLOCK as u64);
            let next = (data_start as u64).saturating_add(padded);
            match typeflag {
                b'L' => long_name = Some(field_str(body)),
                b'x' => {
                    for (k, v) in pax_records(body) {
                        match k.as_str() {
                            "path" => pax_path = Some(v),
                            "size" => pax_size = v.trim().parse().ok(),
                            _ => {}
                        }
                    }
                }
                b'0' | 0 | b'7' => {
                    let raw = pax_path.take().or(long_name.take()).unwrap_or(name);
                    if size < declared {
                        warnings.push(format!("member {raw} truncated: {size} of {declared} bytes present"));
                    }
                    members.push(Member {
                        path: normalise_path(&raw),
                        size,
                        declared_size: declared,
                        offset: data_start,
                    });
                }
                b'K' | b'g' => {} // long link name / global pax: nothing we use
                _ => {
                    // directories, links, global pax headers, GNU 'K' etc.: no file data for us
                    long_name = None;
                    pax_path = None;
                }
            }
            if next > data.len() as u64 {
                break;
            }
            pos = next as usize;
        }
        let index = PathIndex::build(&members);
        Ok(Archive { data, members, warnings, index })
    }

    /// Data of member `i` (bounds-checked).
    pub fn bytes(&self, i: usize) -> &[u8] {
        self.members
            .get(i)
            .and_then(|m| self.data.get(m.offset..m.offset.saturating_add(m.size as usize)))
            .unwrap_or(&[])
    }

    /// Find a member by path: exact (after normalisation), then case-insensitive. Last
    /// occurrence wins, as with `tar x`.
    pub fn find(&self, path: &str) -> Option<usize> {
        let p = normalise_path(path);
        let lp = p.to_lowercase();
        if self.index.is_for(&self.members) {
            return self.index.exact.get(&p).or_else(|| self.index.lower.get(&lp)).copied();
        }
        if let Some(i) = self.members.iter().rposition(|m| m.path == p) {
            return Some(i);
        }
        self.members.iter().rposition(|m| m.path.to_lowercase() == lp)
    }

    /// Members whose directory is exactly `dir`, in archive order.
    pub fn members_in_dir(&self, dir: &str) -> Vec<usize> {
        if self.index.is_for(&self.members) {
            return self.index.by_dir.get(dir).cloned().unwrap_or_default();
        }
        (0..self.members.len()).filter(|&i| dir_of(&self.members[i].path) == dir).collect()
    }

    /// The last member in directory `dir` whose base name is `base`, both case-insensitive.
    pub fn find_in_dir(&self, dir: &str, base: &str) -> Option<usize> {
        if self.index.is_for(&self.members) {
            return self.index.dir_base.get(&(dir.to_ascii_lowercase(), base.to_ascii_lowercase())).copied();
        }
        self.members.iter().rposition(|m| {
            dir_of(&m.path).eq_ignore_ascii_case(dir) && base_name(&m.path).eq_ignore_ascii_case(base)
        })
    }
}

/// Directory part of a member path ("" for top level).
pub fn dir_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// Base name of a member path.
pub fn base_name(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// Join a relative reference to a directory.
pub fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() || rel.starts_with('/') {
        normalise_path(rel)
    } else {
        normalise_path(&format!("{dir}/{rel}"))
    }
}

fn octal(dst: &mut [u8], v: u64) {
    let w = dst.len() - 1;
    let s = format!("{v:0w$o}");
    let s = &s.as_bytes()[s.len().saturating_sub(w)..];
    dst[..s.len()].copy_from_slice(s);
    dst[w] = 0;
}

fn header_block(name: &[u8], size: u64, typeflag: u8) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    octal(&mut h[100..108], 0o664);
    octal(&mut h[108..116], 65534);
    octal(&mut h[116..124], 65534);
    octal(&mut h[124..136], size);
    octal(&mut h[136..148], 0);
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[265..271].copy_from_slice(b"nobody");
    h[297..303].copy_from_slice(b"nobody");
    h[148..156].copy_from_slice(b"        ");
    let sum: u64 = h.iter().map(|&c| c as u64).sum();
    let s = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(s.as_bytes());
    h
}

fn push_padded(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(data);
    let pad = (BLOCK - data.len() % BLOCK) % BLOCK;
    out.extend(std::iter::repeat_n(0u8, pad));
}

/// Write a ustar archive; names over 100 bytes get a GNU `L` long-name record.
pub fn write(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in members {
        let nb = name.as_bytes();
        if nb.len() > 100 {
            let mut long = nb.to_vec();
            long.push(0);
            out.extend_from_slice(&header_block(b"././@LongLink", long.len() as u64, b'L'));
            push_padded(&mut out, &long);
        }
        out.extend_from_slice(&header_block(nb, data.len() as u64, b'0'));
        push_padded(&mut out, data);
    }
    out.extend(std::iter::repeat_n(0u8, 2 * BLOCK));
    out
}

/// Write a ustar archive where every member's path goes through a pax `x` record.
pub fn write_pax(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in members {
        let body = format!(" path={name}\n");
        // record length includes its own decimal digits
        let mut len = body.len() + 1;
        while format!("{len}{body}").len() != len {
            len += 1;
        }
        let rec = format!("{len}{body}");
        out.extend_from_slice(&header_block(b"PaxHeader", rec.len() as u64, b'x'));
        push_padded(&mut out, rec.as_bytes());
        out.extend_from_slice(&header_block(b"placeholder", data.len() as u64, b'0'));
        push_padded(&mut out, data);
    }
    out.extend(std::iter::repeat_n(0u8, 2 * BLOCK));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_plain_long_and_pax() {
        let long = format!("sg00/{}/PE.bin", "d".repeat(150));
        let ms = vec![
            ("a.json".to_string(), b"{}".to_vec()),
            (long.clone(), vec![7u8; 1000]),
            ("./sg00/x".to_string(), vec![]),
        ];
        let a = Archive::read(write(&ms)).unwrap();
        assert_eq!(a.members.len(), 3);
        assert_eq!(a.members[1].path, long);
        assert_eq!(a.bytes(1), &[7u8; 1000][..]);
        assert_eq!(a.members[2].path, "sg00/x");
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        let p = Archive::read(write_pax(&ms)).unwrap();
        assert_eq!(
            p.members.iter().map(|m| m.path.clone()).collect::<Vec<_>>(),
            vec!["a.json".to_string(), long, "sg00/x".to_string()]
        );
        assert_eq!(p.find("SG00/X"), Some(2));
    }

    #[test]
    fn truncated_and_garbage() {
        let ms = vec![("a".to_string(), vec![1u8; 2000]), ("b".to_string(), vec![2u8; 10])];
        let t = write(&ms);
        for cut in (0..t.len()).step_by(97) {
            let _ = Archive::read(t[..cut].to_vec());
        }
        let a = Archive::read(t[..1200].to_vec()).unwrap();
        assert_eq!(a.members[0].size, 688);
        assert!(!a.warnings.is_empty());
        assert!(Archive::read(vec![0x41; 1024]).is_err());
        assert!(parse_num(b"7777777777777777777777777").is_none());
        assert_eq!(parse_num(&[0x80, 0, 0, 1, 0]), Some(256));
    }
}
