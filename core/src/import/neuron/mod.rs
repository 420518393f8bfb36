//! The AWS Neuron importers, in one place: the NTFF capture with its NEFF (`binary`: the records
//! decoded straight into the model, each event correlated to its instruction, operator and
//! source line as it is added), the NEFF alone (`neff`: the program view), neuron-profile's JSON
//! export (`json`), Neuron Explorer's Parquet output (`parquet`) and TensorBoard-Neuron's
//! operator tables (`tb_ops`). The device layout they share (tracks per engine and DMA queue,
//! semaphores, activity, the typed domain of an instruction) is `device`; the identity of a
//! capture, which joins an NTFF and its own export, is `ntff_identity`. The formats themselves
//! (NEFF, NTFF, protobuf wire) are decoded in `crate::neuron`.
//!
//! Correlation runs inside the NTFF import, not as a pass over the finished model: the importer
//! resolves each instruction once (`crate::neuron::correlate::Correlator`) and builds the events
//! from it, so no table of decoded rows is ever held (issue 42, goal 2; ARCHITECTURE.md's data
//! flow).

pub mod binary;
pub mod device;
pub mod json;
pub mod neff;
mod ntff_identity;
pub mod parquet;
pub mod tb_ops;
