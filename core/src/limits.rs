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

/// `bytes` as a short human size ("1.5 GiB", "64 MiB", "512 KiB").
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {}", UNITS[u])
}

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
}
