//! Resource limits for hostile or unlucky input (issue 7 §2), in one place. The browser's parser
//! worker is a wasm32 instance: at most 4 GiB of linear memory, and the input, the model and its
//! encoded copy are alive at once, so every budget stays well below that.

/// Total bytes that containers (gzip, zip, and the NEFF's own tar.gz) may expand to, all members
/// of one input together. Beyond it the import fails with a typed "expands to more than" error.
pub const MAX_EXPANDED_BYTES: u64 = 1536 << 20;

/// JSON input larger than this is refused up front: the JSON importers hold the text, the model
/// and (in the browser) its encoded copy at once, about 2.5 bytes per input byte.
pub const MAX_JSON_INPUT_BYTES: u64 = 1_500_000_000;

/// Bytes of JSON text a NEFF's members may parse into trees, all members together (a member
/// parsed twice counts twice). A parsed tree takes up to ~16× its text, so this keeps the trees
/// under ~256 MiB; the sample NEFFs hold about 110 KB of JSON.
pub const NEFF_JSON_BUDGET_BYTES: u64 = 16 << 20;

/// Refuse JSON text above `limit` bytes up front, before any parsing: the browser worker would
/// die holding it (until streaming import lands). Binary formats pass; JSON is recognised by its
/// first non-blank byte (after a UTF-8 byte-order mark).
pub fn check_json_size(bytes: &[u8], limit: u64) -> Result<(), crate::import::error::ImportError> {
    if bytes.len() as u64 <= limit {
        return Ok(());
    }
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = b.iter().take(4096).find(|c| !c.is_ascii_whitespace());
    if matches!(first, Some(b'{') | Some(b'[')) {
        return Err(crate::import::error::ImportError::TooLarge { what: "this JSON file is".into(), limit });
    }
    Ok(())
}

pub use crate::units::human_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(MAX_EXPANDED_BYTES), "1.5 GiB");
        assert_eq!(human_bytes(NEFF_JSON_BUDGET_BYTES), "16 MiB");
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }

    #[test]
    fn json_size() {
        assert!(check_json_size(b"  [1,2,3]", 100).is_ok());
        let e = check_json_size(b"  [1,2,3]", 4).unwrap_err();
        assert_eq!(e.to_string(), "this JSON file is more than 4 bytes (the most Loupe can hold in memory)");
        assert!(check_json_size(b"\xEF\xBB\xBF{\"a\":1}", 4).is_err());
        assert!(check_json_size(b"\x05\x00\x00\x00binary", 4).is_ok());
        let e = check_json_size(b"{}", 0).unwrap_err().to_string();
        assert!(e.contains("more than 0 bytes"), "{e}");
        let msg = crate::import::error::ImportError::TooLarge {
            what: "this JSON file is".into(),
            limit: MAX_JSON_INPUT_BYTES,
        }
        .to_string();
        assert_eq!(msg, "this JSON file is more than 1.4 GiB (the most Loupe can hold in memory)");
    }
}
