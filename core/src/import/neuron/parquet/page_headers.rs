//! A bounded walk over a column chunk's page headers and over the file's metadata (Thrift
//! compact protocol), run before the parquet crate reads them.
//!
//! The crate reads a page header from an `io::Read` and skips the fields it does not know
//! element by element: a list that declares 2^31 doubles past the end of a 1.4 KB file made it
//! run for minutes (each skip at end of input "succeeds" with nothing read; found by the
//! `import_parquet` fuzz target). This walk follows the bytes exactly as the crate's
//! `PageHeader::read_thrift_without_stats` does (the known fields read by their declared type,
//! the others skipped by their wire type, booleans in a list taking no bytes), but refuses a
//! list or map that declares more elements than there are bytes left (every element of a
//! well-formed list takes at least one byte) and any read past the chunk. Each step consumes a
//! byte or is a boolean list element, and those are budgeted by the chunk's length, so the walk
//! is linear in the chunk. Anything it accepts, the crate reads along the same path.

/// Why a chunk's page headers were refused.
pub(super) type Refusal = String;

/// Walk every page header of a column chunk (`chunk` is the chunk's bytes: the dictionary page,
/// if any, then the data pages, each a header and `compressed_page_size` bytes).
pub(super) fn check(chunk: &[u8]) -> Result<(), Refusal> {
    let mut pos = 0usize;
    let mut page = 0usize;
    while pos < chunk.len() {
        let mut r = Reader { buf: &chunk[pos..], at: 0, bool_budget: chunk.len() };
        let compressed = r.page_header().map_err(|e| format!("page {page}'s header: {e}"))?;
        let data = usize::try_from(compressed)
            .map_err(|_| format!("page {page}'s header gives a negative size ({compressed})"))?;
        pos = pos
            .checked_add(r.at)
            .and_then(|p| p.checked_add(data))
            .filter(|&p| p <= chunk.len())
            .ok_or_else(|| format!("page {page} ({data} bytes) runs past its column chunk"))?;
        page += 1;
    }
    Ok(())
}

/// Walk the file's metadata (the footer's `FileMetaData`: one Thrift struct, every field skipped
/// by its wire type) with the same bounds. The crate reads it with the same skip for the fields
/// it does not know, and its known fields read by their declared type fail at the end of the
/// bytes rather than spin.
pub(super) fn check_metadata(footer: &[u8]) -> Result<(), Refusal> {
    let mut r = Reader { buf: footer, at: 0, bool_budget: footer.len() };
    r.skip(12, SKIP_DEPTH)
}

/// The crate's skip depth (`DEFAULT_SKIP_DEPTH`).
const SKIP_DEPTH: u32 = 64;

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
    /// Boolean list elements take no bytes in the crate's skip: at most this many in all.
    bool_budget: usize,
}

impl Reader<'_> {
    fn left(&self) -> usize {
        self.buf.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, Refusal> {
        let b = *self.buf.get(self.at).ok_or_else(|| "ends early".to_string())?;
        self.at += 1;
        Ok(b)
    }

    fn skip_bytes(&mut self, n: u64) -> Result<(), Refusal> {
        if n > self.left() as u64 {
            return Err(format!("skips {n} bytes, {} left", self.left()));
        }
        self.at += n as usize;
        Ok(())
    }

    /// ULEB128, as the crate's `read_vlq` (no length limit; bits past 64 are dropped).
    fn varint(&mut self) -> Result<u64, Refusal> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).wrapping_shl(shift);
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift = shift.wrapping_add(7);
        }
    }

    fn zigzag(&mut self) -> Result<i64, Refusal> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A field header: `None` at the struct's stop byte, else (id, wire type).
    fn field(&mut self, last: i16) -> Result<Option<(i16, u8)>, Refusal> {
        let b = self.byte()?;
        let ty = b & 0x0f;
        if ty == 0 {
            return Ok(None);
        }
        if ty > 13 {
            return Err(format!("field type {ty}"));
        }
        let delta = b >> 4;
        let id = if delta != 0 {
            last.checked_add(i16::from(delta)).ok_or_else(|| "field id overflows".to_string())?
        } else {
            self.zigzag()? as i16
        };
        Ok(Some((id, ty)))
    }

    /// A struct's fields: `known` reads the fields it knows and returns true; the rest are skipped.
    fn fields(
        &mut self,
        mut known: impl FnMut(&mut Self, i16, u8) -> Result<bool, Refusal>,
    ) -> Result<(), Refusal> {
        let mut last = 0i16;
        while let Some((id, ty)) = self.field(last)? {
            if !known(self, id, ty)? {
                self.skip(ty, SKIP_DEPTH)?;
            }
            last = id;
        }
        Ok(())
    }

    fn int(&mut self) -> Result<bool, Refusal> {
        self.varint().map(|_| true)
    }

    /// A known boolean field: its value is in the wire type; anything else is an error.
    fn boolean(ty: u8) -> Result<bool, Refusal> {
        if matches!(ty, 1 | 2) {
            Ok(true)
        } else {
            Err(format!("a boolean field of type {ty}"))
        }
    }

    /// `PageHeader` without statistics; returns `compressed_page_size`.
    fn page_header(&mut self) -> Result<i32, Refusal> {
        let mut compressed = None;
        self.fields(|r, id, _| match id {
            1 | 2 | 4 => r.int(),
            3 => {
                compressed = Some(r.zigzag()? as i32);
                Ok(true)
            }
            // DataPageHeader: num_values, three encodings; statistics (5) skipped
            5 => r.fields(|r, id, _| if (1..=4).contains(&id) { r.int() } else { Ok(false) }).map(|_| true),
            // IndexPageHeader: no fields
            6 => r.fields(|_, _, _| Ok(false)).map(|_| true),
            // DictionaryPageHeader: num_values, encoding, is_sorted
            7 => r
                .fields(|r, id, ty| match id {
                    1 | 2 => r.int(),
                    3 => Self::boolean(ty),
                    _ => Ok(false),
                })
                .map(|_| true),
            // DataPageHeaderV2: six integers, is_compressed; statistics (8) skipped
            8 => r
                .fields(|r, id, ty| match id {
                    1..=6 => r.int(),
                    7 => Self::boolean(ty),
                    _ => Ok(false),
                })
                .map(|_| true),
            _ => Ok(false),
        })?;
        compressed.ok_or_else(|| "no compressed_page_size".to_string())
    }

    /// Skip a value of wire type `ty`, as the crate's `skip_till_depth`.
    fn skip(&mut self, ty: u8, depth: u32) -> Result<(), Refusal> {
        if depth == 0 {
            return Err("nested too deeply".into());
        }
        match ty {
            1 | 2 => Ok(()),
            3 => self.byte().map(|_| ()),
            4..=6 => self.varint().map(|_| ()),
            7 => self.skip_bytes(8),
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let h = self.byte()?;
                if h == 0 {
                    return Ok(());
                }
                let element = element_type(h & 0x0f)?;
                let count = match h >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                self.elements(count, &[element], depth)
            }
            11 => {
                let count = self.varint()?;
                if count == 0 {
                    return Ok(());
                }
                let kv = self.byte()?;
                let (k, v) = (element_type(kv >> 4)?, element_type(kv & 0x0f)?);
                self.elements(count, &[k, v], depth)
            }
            12 => {
                while let Some((_, ty)) = self.field(0)? {
                    self.skip(ty, depth - 1)?;
                }
                Ok(())
            }
            13 => self.skip_bytes(16),
            _ => Err(format!("cannot skip a value of type {ty}")),
        }
    }

    /// `count` list elements (or map entries) of the given types.
    fn elements(&mut self, count: u64, types: &[u8], depth: u32) -> Result<(), Refusal> {
        if count > i32::MAX as u64 || count > self.left() as u64 {
            return Err(format!("a list of {count} elements in {} bytes", self.left()));
        }
        for _ in 0..count {
            for &ty in types {
                if matches!(ty, 1 | 2) {
                    self.bool_budget = self
                        .bool_budget
                        .checked_sub(1)
                        .ok_or_else(|| "more boolean list elements than bytes".to_string())?;
                }
                self.skip(ty, depth - 1)?;
            }
        }
        Ok(())
    }
}

/// A list or map element type (1 and 2 are both booleans).
fn element_type(t: u8) -> Result<u8, Refusal> {
    if (1..=13).contains(&t) {
        Ok(t)
    } else {
        Err(format!("element type {t}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data page header: type 0, sizes, a DataPageHeader; `extra` is spliced in as field 9.
    fn header(compressed: u8, extra: &[u8]) -> Vec<u8> {
        let mut h = vec![
            0x15,
            0x00, // 1: type = DATA_PAGE (0)
            0x15,
            2 * compressed, // 2: uncompressed_page_size
            0x15,
            2 * compressed, // 3: compressed_page_size
            0x2c,           // 5: struct DataPageHeader
            0x15,
            0x02,
            0x15,
            0x00,
            0x15,
            0x00,
            0x15,
            0x00,
            0x00, // num_values 1, encodings
        ];
        if !extra.is_empty() {
            h.push(0x49); // field 9 (delta 4), list
            h.extend_from_slice(extra);
        }
        h.push(0x00);
        h
    }

    #[test]
    fn valid_pages_are_walked_to_the_end() {
        let mut chunk = header(3, &[]);
        chunk.extend_from_slice(&[1, 2, 3]);
        chunk.extend(header(2, &[0x25, 0x02, 0x04])); // an unknown list of two i32s
        chunk.extend_from_slice(&[4, 5]);
        assert_eq!(check(&chunk), Ok(()));
        // the next page's data runs one byte past the chunk
        assert!(check(&chunk[..chunk.len() - 1]).unwrap_err().contains("page 1"));
    }

    #[test]
    fn metadata_with_a_list_longer_than_its_bytes_is_refused() {
        // FileMetaData { 1: i32 2 }: walked to its stop byte
        assert_eq!(check_metadata(&[0x15, 0x04, 0x00]), Ok(()));
        // field 1, list<i32> of 1 610 478 563 elements in 5 bytes (the fuzz target's finding: the
        // crate's skip spun for 3.7 s natively)
        let e = check_metadata(&[0x19, 0xf5, 0xe3, 0xf3, 0xf6, 0xff, 0x05, 0x00]).unwrap_err();
        assert!(e.contains("a list of"), "{e}");
        // cut short, or nested past the crate's depth
        assert!(check_metadata(&[0x15]).is_err());
        assert!(check_metadata(&[0x1c; 200]).is_err());
    }

    #[test]
    fn a_list_longer_than_its_bytes_is_refused() {
        // list<double> of 2^31 - 1 elements: the crate would skip them one by one past the end
        let chunk = header(0, &[0xf7, 0xff, 0xff, 0xff, 0xff, 0x07]);
        let e = check(&chunk).unwrap_err();
        assert!(e.contains("list of 2147483647"), "{e}");
        // a list of booleans (no bytes each in the crate's skip) as long as its bytes is budgeted
        let chunk = header(0, &[0xf1, 0xff, 0xff, 0x03]);
        assert!(check(&chunk).is_err());
    }

    #[test]
    fn damaged_headers_are_errors_not_panics() {
        let base = header(1, &[0x15, 0x02]);
        for cut in 0..base.len() {
            let _ = check(&base[..cut]);
        }
        for i in 0..base.len() {
            for b in [0x00, 0x0f, 0xff, 0x7f, 0x19, 0x1b, 0x1c] {
                let mut h = base.clone();
                h[i] = b;
                let _ = check(&h);
            }
        }
        // deep nesting ends at the skip depth
        let mut deep = header(0, &[]);
        deep.pop();
        deep.push(0x4c); // field 9: struct
        deep.extend(std::iter::repeat_n(0x1c, 100));
        assert!(check(&deep).is_err());
    }
}
