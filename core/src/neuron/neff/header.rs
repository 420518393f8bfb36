//! The 1024-byte NEFF header (neuron.md §1.2). Little-endian, no magic; offsets follow the
//! official struct (`work-with-neff-files.rst`), confirmed on the nkipy samples.

use serde::Serialize;

/// Size of the header; the tarball starts right after it.
pub const HEADER_SIZE: usize = 1024;

/// Every field of the official header struct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NeffHeader {
    /// `pkg_version` @0x000. 1 = tar + SHA-256, 2 = tgz + MD5 (unofficial reading).
    pub pkg_version: u64,
    /// `header_size` @0x008; 1024 in every known file.
    pub header_size: u64,
    /// `data_size` @0x010: bytes of tarball after the header.
    pub data_size: u64,
    /// `neff_version_major` @0x018.
    pub neff_version_major: u64,
    /// `neff_version_minor` @0x020.
    pub neff_version_minor: u64,
    /// `neff_build_version` @0x028 (128 B, NUL-padded ASCII; often empty).
    pub build_version: String,
    /// `num_tpb` @0x0A8: NeuronCores for efficient execution.
    pub num_tpb: u32,
    /// `hash` @0x0AC, first 16 bytes as 32 lower-case hex (MD5 of the data, with each 32-bit
    /// word byte-reversed in the nkipy samples; informational only).
    pub hash: String,
    /// All 32 hash bytes as 64 lower-case hex (the second half is zero or ASCII '0' in known files).
    pub hash_full: String,
    /// `uuid` @0x0CC as 32 lower-case hex.
    pub uuid: String,
    /// `name` @0x0DC (256 B): the network name, e.g. `file.neff`.
    pub network_name: String,
    /// `requested_tpb_count` @0x1DC.
    pub requested_tpb_count: u32,
    /// `tpb_per_node` @0x1E0: 64 bytes, one per kelf node.
    pub tpb_per_node: Vec<u8>,
    /// `feature_bits` @0x220.
    pub feature_bits: u64,
    /// Names of the set feature bits, from an unofficial bit map (neuron.md §1.2);
    /// unknown bits appear as `bit<N>`.
    pub features: Vec<String>,
    /// `lnc_size` @0x228: logical NeuronCore size (physical cores per logical core).
    pub lnc_size: u32,
    /// True when the reserved `pad` area (0x22C..0x400) holds non-zero bytes.
    pub pad_nonzero: bool,
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(off..off + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = b.get(off..off + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}

/// NUL-terminated, lossy UTF-8, trimmed of trailing whitespace.
pub(crate) fn c_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).trim_end().to_string()
}

pub(crate) fn hex(b: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &c in b {
        s.push(H[(c >> 4) as usize] as char);
        s.push(H[(c & 15) as usize] as char);
    }
    s
}

/// Feature bit names (\[RE\] map quoted in neuron.md §1.2; unofficial).
const FEATURE_BITS: &[(u64, &str)] = &[
    (0x2, "collective_has_offset"),
    (0x4, "custom_ops"),
    (0x8, "coalesced_ccops"),
    (0x10, "queue_set_instances"),
    (0x20, "has_functions"),
    (0x40, "dynamic_pwp"),
    (0x80, "indirect_memcpy_32b_sem_wait"),
    (0x100, "indirect_memcpy_bound_check"),
    (0x200, "dma_desc_higher_dim"),
    (0x400, "vnc"),
    (0x800, "dve_perf_mode"),
    (0x1000, "dge"),
    (0x2000, "pool_rsqrt"),
    (0x4000, "remote_sem"),
    (0x8000, "dge_cast"),
    (0x10000, "vector_dge"),
    (0x20000, "embedding_stride32"),
    (0x100000, "sqi_no_rearm"),
    (0x200000, "hardware_dge"),
    (0x400000, "partial_sb2sb_ccop"),
    (0x2000000, "large_tensor_support"),
];

pub fn feature_names(bits: u64) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..64 {
        let m = 1u64 << i;
        if bits & m == 0 {
            continue;
        }
        match FEATURE_BITS.iter().find(|(b, _)| *b == m) {
            Some((_, n)) => out.push((*n).to_string()),
            None => out.push(format!("bit{i}")),
        }
    }
    out
}

impl NeffHeader {
    /// Decode the header from the first 1024 bytes. Never fails: validation is separate
    /// ([`NeffHeader::problem`]); missing bytes read as zero.
    pub fn decode(b: &[u8]) -> NeffHeader {
        let get = |r: std::ops::Range<usize>| -> &[u8] { b.get(r).unwrap_or(&[]) };
        let hash_bytes = get(0xAC..0xCC);
        NeffHeader {
            pkg_version: u64_at(b, 0x00),
            header_size: u64_at(b, 0x08),
            data_size: u64_at(b, 0x10),
            neff_version_major: u64_at(b, 0x18),
            neff_version_minor: u64_at(b, 0x20),
            build_version: c_string(get(0x28..0xA8)),
            num_tpb: u32_at(b, 0xA8),
            hash: hex(hash_bytes.get(..16).unwrap_or(&[])),
            hash_full: hex(hash_bytes),
            uuid: hex(get(0xCC..0xDC)),
            network_name: c_string(get(0xDC..0x1DC)),
            requested_tpb_count: u32_at(b, 0x1DC),
            tpb_per_node: get(0x1E0..0x220).to_vec(),
            feature_bits: u64_at(b, 0x220),
            features: feature_names(u64_at(b, 0x220)),
            lnc_size: u32_at(b, 0x228),
            pad_nonzero: get(0x22C..0x400).iter().any(|&c| c != 0),
        }
    }

    /// Why this is not a plausible NEFF header, or None. Checks structure only (no magic):
    /// header_size == 1024, small non-zero pkg_version, plausible major version.
    pub fn problem(&self) -> Option<String> {
        if self.header_size != HEADER_SIZE as u64 {
            return Some(format!("header_size is {}, expected 1024", self.header_size));
        }
        if self.pkg_version == 0 || self.pkg_version > 15 {
            return Some(format!("implausible pkg_version {}", self.pkg_version));
        }
        if self.neff_version_major > 15 || self.neff_version_minor > 0xFFFF {
            return Some(format!(
                "implausible NEFF version {}.{}",
                self.neff_version_major, self.neff_version_minor
            ));
        }
        if self.data_size == 0 {
            return Some("data_size is 0".into());
        }
        None
    }

    /// Encode back to 1024 bytes (used by the writer; `features`/`hash` strings are ignored,
    /// `hash_full` and `uuid` are decoded from hex when valid).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[0x00..0x08].copy_from_slice(&self.pkg_version.to_le_bytes());
        b[0x08..0x10].copy_from_slice(&self.header_size.to_le_bytes());
        b[0x10..0x18].copy_from_slice(&self.data_size.to_le_bytes());
        b[0x18..0x20].copy_from_slice(&self.neff_version_major.to_le_bytes());
        b[0x20..0x28].copy_from_slice(&self.neff_version_minor.to_le_bytes());
        put_str(&mut b[0x28..0xA8], &self.build_version);
        b[0xA8..0xAC].copy_from_slice(&self.num_tpb.to_le_bytes());
        put_hex(&mut b[0xAC..0xCC], &self.hash_full);
        put_hex(&mut b[0xCC..0xDC], &self.uuid);
        put_str(&mut b[0xDC..0x1DC], &self.network_name);
        b[0x1DC..0x1E0].copy_from_slice(&self.requested_tpb_count.to_le_bytes());
        let n = self.tpb_per_node.len().min(64);
        b[0x1E0..0x1E0 + n].copy_from_slice(&self.tpb_per_node[..n]);
        b[0x220..0x228].copy_from_slice(&self.feature_bits.to_le_bytes());
        b[0x228..0x22C].copy_from_slice(&self.lnc_size.to_le_bytes());
        b
    }
}

fn put_str(dst: &mut [u8], s: &str) {
    let n = s.len().min(dst.len().saturating_sub(1));
    dst[..n].copy_from_slice(&s.as_bytes()[..n]);
}

fn put_hex(dst: &mut [u8], s: &str) {
    let v = |c: u8| -> Option<u8> { (c as char).to_digit(16).map(|d| d as u8) };
    for (i, pair) in s.as_bytes().chunks(2).enumerate() {
        if i >= dst.len() || pair.len() < 2 {
            break;
        }
        if let (Some(h), Some(l)) = (v(pair[0]), v(pair[1])) {
            dst[i] = (h << 4) | l;
        }
    }
}
