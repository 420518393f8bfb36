//! NeuronCore compute engines and their instruction streams (neuron.md §1.5, §5.1).

use serde::Serialize;
use std::collections::BTreeMap;

/// Bytes per instruction slot in `<ENGINE>.bin` (trn2 samples; neuron.md §1.5).
pub const SLOT_SIZE: usize = 64;

/// The engines (one enum for the whole project: [`crate::model::Engine`]); a NEFF has an
/// instruction stream for each of [`Engine::STREAMS`].
pub use crate::model::domain::Engine;

/// Opcode names known from NTFF/JSON evidence (ntff-v5.md §8; inf2, 15 opcodes). The trn2
/// samples share at least some of them; unknown bytes give None (show `op 0xNN`).
pub fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        0x01 => "LDWEIGHTS",
        0x02 => "MATMUL",
        0x21 => "ACTIVATE",
        0x23 => "ACT_TABLE_LOAD",
        0xA0 => "EVENT_SEMAPHORE",
        0xA2 => "DRAIN",
        0xA4 => "NOP",
        0xA5 => "WRITE",
        0xA6 => "NOTIFY",
        0xA9 => "COMPARE_BRANCH",
        0xAA => "TENSOR_LOAD",
        0xAB => "TENSOR_STORE",
        0xB0 => "EVENT_SEMAPHORE_RANGE_CLEAR",
        0xB1 => "SET_ORDERING_MODE",
        0xB8 => "DMA_DIRECT2D",
        _ => return None,
    })
}

/// An engine binary: a sequence of 64-byte instruction slots. Slot index = compiler pc.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InstructionStream {
    /// Member path of the `.bin`.
    pub path: String,
    /// Size of the `.bin` in bytes.
    pub size: u64,
    /// Number of complete 64-byte slots.
    pub count: u64,
    /// Bytes after the last complete slot (0 in every known file).
    pub trailing_bytes: u64,
    /// Histogram of the first byte of each slot, keyed `0xNN`.
    pub opcode_counts: BTreeMap<String, u64>,
    #[serde(skip)]
    data: Vec<u8>,
}

impl InstructionStream {
    pub fn new(path: &str, data: &[u8]) -> InstructionStream {
        let count = (data.len() / SLOT_SIZE) as u64;
        let mut opcode_counts = BTreeMap::new();
        for slot in data.chunks_exact(SLOT_SIZE) {
            *opcode_counts.entry(format!("0x{:02x}", slot[0])).or_insert(0) += 1;
        }
        InstructionStream {
            path: path.to_string(),
            size: data.len() as u64,
            count,
            trailing_bytes: (data.len() % SLOT_SIZE) as u64,
            opcode_counts,
            data: data.to_vec(),
        }
    }

    /// Slot `i` (64 bytes), None when out of range.
    pub fn slot(&self, i: usize) -> Option<&[u8; SLOT_SIZE]> {
        let start = i.checked_mul(SLOT_SIZE)?;
        self.data.get(start..start.checked_add(SLOT_SIZE)?)?.try_into().ok()
    }

    /// First byte of slot `i` = opcode byte (ntff-v5.md §8).
    pub fn opcode(&self, i: usize) -> Option<u8> {
        self.slot(i).map(|s| s[0])
    }

    /// Opcode bytes of all slots in order.
    pub fn opcodes(&self) -> impl Iterator<Item = u8> + '_ {
        self.data.chunks_exact(SLOT_SIZE).map(|s| s[0])
    }

    /// Raw bytes of the binary.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}
