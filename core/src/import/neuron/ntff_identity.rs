//! The identity of an NTFF capture, shared by the NTFF importer ([`super::binary`], which
//! reads it) and the neuron-profile JSON importer ([`super::json`], which matches an
//! export to its capture): its own file so that neither importer depends on the other for it.

/// What identifies one NTFF capture, read from its header and metadata protobuf only (no
/// record decoding), to recognise the capture's own neuron-profile JSON export
/// ([`super::json::ExportIdentity`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NtffIdentity {
    pub version: u8,
    /// `/1`: the NEFF path given at capture (the export's `profile_info.neff_name`).
    pub neff_path: String,
    /// Lower-case hex of the NEFF UUID (fewer than 32 digits when the NTFF's copy is truncated).
    pub uuid_hex: String,
    /// `/4/4/1/14`: execution time in picoseconds (the export's `summary.total_time` in s); 0 = absent.
    pub execution_time_ps: u64,
}
