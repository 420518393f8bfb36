//! AWS Neuron formats: NEFF (compiled program), NTFF (device trace) and the schemaless
//! protobuf wire decoding both of them need. Facts: docs/formats/neuron.md, ntff-v5.md.

pub mod correlate;
pub mod neff;
pub mod ntff;
pub mod program;
pub mod protowire;
