//! Data operands of the executed instruction words: the bytes each instruction reads and writes
//! in SBUF, PSUM and HBM, and the FLOPs of the Tensor engine's matrix instructions, as
//! neuron-profile computes its per-instruction `sbuf_read_bytes`, `psum_write_bytes`,
//! `hbm_read_bytes`, `elements`, … (the JSON export's instruction rows) and sums them into its
//! `summary`.
//!
//! The NTFF embeds every engine's runtime program (`/4/4/1/4/3`, 64 bytes per pc), so the
//! operands are in the capture even without the NEFF. The field layout below was read off the
//! corpus (92 NTFF/JSON pairs, `ntff-v5.md`) by matching the words with the export's operand
//! text; **every field is CONSISTENT, none is VERIFIED in general**: the corpus has one program
//! family (a 128×128×K matmul), so only fields that vary with K (moving sizes, DMA element
//! sizes, addresses) are pinned down; fields constant in the corpus (PE rows/columns `0x80`, the
//! data types fp16 `7` / fp32 `0xA`, the memory windows) are the only candidates that fit.
//! Anything outside what was seen makes the totals unknown ([`Ntff::instruction_traffic`] returns
//! `None`), never a guess.
//!
//! Word layout (byte offsets; u16/u32 little-endian):
//! - MATMUL (`0x02`): moving tensor `src` address u32 @16, access-pattern counts u16 @26, @28,
//!   @30, data type @32, PE rows @38, PE columns @39. Bytes: `count × size(type)` read from SBUF
//!   and written to PSUM (neuron-profile uses the source type for both); FLOPs `2 × rows ×
//!   columns × count`.
//! - LDWEIGHTS (`0x01`): counts @26, @28, @30, type @32: `count × size` read from SBUF.
//! - ACTIVATE (`0x21`): source address u32 @16, counts @26..@30, type low nibble of @32;
//!   destination address u32 @48, counts @58..@62, type @33. Memory by address: PSUM at
//!   `0x200_0000..0x300_0000`, SBUF below. A PSUM → SBUF instruction is also counted in
//!   `psum_read_sbuf_write_*` (its written bytes).
//! - DMA_DIRECT2D (`0xB8`, GpSimd's software DMA): source at @16..@24, destination at @40..@48;
//!   byte 7 of each = `0x20` marks a DRAM tensor table entry (HBM), else a 48-bit address in the
//!   SBUF window (`addr >> 28 == 0xfffc`). Source bytes = element size u32 @36 × counts u16 @32,
//!   @34; destination bytes = element size u16 @60 × counts u16 @56, @58.
//! - No data operands (counted as nothing, as neuron-profile does): SET_ORDERING_MODE,
//!   EVENT_SEMAPHORE(_RANGE_CLEAR), NOP, DRAIN, NOTIFY, COMPARE_BRANCH, ACT_TABLE_LOAD, WRITE. A
//!   WRITE in the NEFF program is the static DMA trigger; neuron-profile gives it its DMA block's
//!   bytes, which [`Ntff::instruction_traffic`] adds from [`Ntff::static_dma_blocks`].
//!
//! Only instructions of the NEFF program are counted (those with a compiler pc): neuron-profile
//! reports no bytes for the runtime's own preamble (TENSOR_LOAD / TENSOR_STORE there included).

use super::opcodes::{opcode_name, NO_DATA_OPERAND};
use super::Ntff;
use crate::model::InstructionTraffic;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mem {
    Sbuf,
    Psum,
    Hbm,
}

/// One instruction word's operands: `None` when the opcode or a field is outside the known
/// layout.
fn word_cost(w: &[u8]) -> Option<InstructionTraffic> {
    let u16_at =
        |o: usize| -> Option<u64> { Some(u64::from(u16::from_le_bytes([*w.get(o)?, *w.get(o + 1)?]))) };
    let u32_at = |o: usize| -> Option<u64> {
        Some(u64::from(u32::from_le_bytes([*w.get(o)?, *w.get(o + 1)?, *w.get(o + 2)?, *w.get(o + 3)?])))
    };
    let size = |t: u8| -> Option<u64> {
        match t {
            0x7 => Some(2),
            0xA => Some(4),
            _ => None,
        }
    };
    let count3 = |o: usize| -> Option<u64> { Some(u16_at(o)? * u16_at(o + 2)? * u16_at(o + 4)?) };
    let on_chip = |addr: u64| -> Option<Mem> {
        match addr {
            0..0x200_0000 => Some(Mem::Sbuf),
            0x200_0000..0x300_0000 => Some(Mem::Psum),
            _ => None,
        }
    };
    let mut c = InstructionTraffic::default();
    let op = *w.first()?;
    match opcode_name(op) {
        "MATMUL" => {
            let n = count3(26)?;
            let bytes = n * size(*w.get(32)?)?;
            if on_chip(u32_at(16)?)? != Mem::Sbuf {
                return None;
            }
            let (rows, cols) = (u64::from(*w.get(38)?), u64::from(*w.get(39)?));
            c.sbuf_read_bytes = bytes;
            c.psum_write_bytes = bytes;
            c.hardware_flops = 2 * rows * cols * n;
        }
        "LDWEIGHTS" => {
            c.sbuf_read_bytes = count3(26)? * size(*w.get(32)?)?;
        }
        "ACTIVATE" => {
            let src = on_chip(u32_at(16)?)?;
            let dst = on_chip(u32_at(48)?)?;
            let read = count3(26)? * size(*w.get(32)? & 0x0F)?;
            let written = count3(58)? * size(*w.get(33)?)?;
            match src {
                Mem::Psum => c.psum_read_bytes = read,
                _ => c.sbuf_read_bytes = read,
            }
            match dst {
                Mem::Psum => c.psum_write_bytes = written,
                _ => c.sbuf_write_bytes = written,
            }
            if src == Mem::Psum && dst == Mem::Sbuf {
                c.psum_read_sbuf_write_count = 1;
                c.psum_read_sbuf_write_bytes = written;
            }
        }
        "DMA_DIRECT2D" => {
            let side = |o: usize| -> Option<Mem> {
                if *w.get(o + 7)? == 0x20 {
                    return Some(Mem::Hbm);
                }
                let addr = u32_at(o)? | (u16_at(o + 4)? << 32);
                (addr >> 28 == 0xfffc).then_some(Mem::Sbuf)
            };
            let read = u32_at(36)? * u16_at(32)? * u16_at(34)?;
            let written = u16_at(60)? * u16_at(56)? * u16_at(58)?;
            match side(16)? {
                Mem::Hbm => c.hbm_read_bytes = read,
                _ => c.sbuf_read_bytes = read,
            }
            match side(40)? {
                Mem::Hbm => c.hbm_write_bytes = written,
                _ => c.sbuf_write_bytes = written,
            }
        }
        op if NO_DATA_OPERAND.contains(&op) => {}
        _ => return None,
    }
    Some(c)
}

/// The operands of the word at `pc` of `engine`'s runtime program: `None` when the word is
/// missing or outside the known layout (see [`Ntff::instruction_traffic`]).
pub fn slot_traffic(meta: &super::Metadata, engine: u8, pc: u32) -> Option<InstructionTraffic> {
    word_cost(meta.program(engine)?.slot(pc)?)
}

impl Ntff {
    /// Bytes read and written per memory and the Tensor engine's FLOPs, summed over every
    /// executed instruction of the NEFF program (see the module doc for the operand layout),
    /// plus the static DMA blocks of data queues as HBM reads and SBUF writes (neuron-profile's
    /// "data" queues load weights from HBM into the State Buffer). `None` when an executed
    /// program instruction is outside the known layout, or its word is missing.
    pub fn instruction_traffic(&self) -> Option<InstructionTraffic> {
        let mut t = InstructionTraffic::default();
        let mut cache: Vec<((u8, u32), InstructionTraffic)> = Vec::new();
        for ins in &self.instructions {
            if ins.compiler_pc.is_none() {
                continue;
            }
            let key = (ins.engine, ins.pc);
            let c = match cache.iter().find(|x| x.0 == key) {
                Some(x) => x.1,
                None => {
                    let c = slot_traffic(&self.metadata, ins.engine, ins.pc)?;
                    if cache.len() < 4096 {
                        cache.push((key, c));
                    }
                    c
                }
            };
            t += c;
        }
        for (_, _, _, bytes) in self.static_dma_blocks() {
            t.hbm_read_bytes += bytes;
            t.sbuf_write_bytes += bytes;
        }
        Some(t)
    }
}

impl Ntff {
    /// The Tensor engine's matrix instructions with their FLOPs: `(start ns, end ns, FLOPs)` of
    /// every executed NEFF-program instruction whose word has FLOPs, in instruction order. The
    /// same words and filter as [`Ntff::instruction_traffic`], so the FLOPs add up to its
    /// `hardware_flops`; `None` exactly when it is `None` for the instructions (an operand
    /// outside the known layout).
    pub fn instruction_flops(&self) -> Option<Vec<(i64, i64, u64)>> {
        let mut out = Vec::new();
        let mut cache: Vec<((u8, u32), u64)> = Vec::new();
        for ins in &self.instructions {
            if ins.compiler_pc.is_none() {
                continue;
            }
            let key = (ins.engine, ins.pc);
            let f = match cache.iter().find(|x| x.0 == key) {
                Some(x) => x.1,
                None => {
                    let f = slot_traffic(&self.metadata, ins.engine, ins.pc)?.hardware_flops;
                    if cache.len() < 4096 {
                        cache.push((key, f));
                    }
                    f
                }
            };
            if f > 0 {
                let s = ins.start_ns();
                out.push((s, s.saturating_add(ins.dur_ns().max(0)), f));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An instruction word from its hex dump (whitespace ignored); also used by `memory`'s tests.
    pub(crate) fn word(hex: &str) -> Vec<u8> {
        let h: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
        (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
    }

    /// Words of the corpus (profile_128x128x1000.ntff) with the export's per-instruction values.
    #[test]
    fn corpus_words() {
        let mm = word("02100000 00001305 00000000 00000000 30f70200 01000000 00000002 01000100 07000000 00008080 00000003 0f0f1000 00000002 01000000 00000002 01000100");
        let c = word_cost(&mm).unwrap();
        assert_eq!((c.sbuf_read_bytes, c.psum_write_bytes, c.hardware_flops), (1024, 1024, 2 * 8_388_608));
        let act = word("21100000 05051304 03000000 01000001 00080002 01000100 0100e801 01000100 aa078080 0000803f 00000000 00000000 00450000 01000100 0100e801 01000100");
        let c = word_cost(&act).unwrap();
        assert_eq!((c.psum_read_bytes, c.sbuf_write_bytes, c.psum_read_sbuf_write_bytes), (1952, 976, 976));
        assert_eq!(c.psum_read_sbuf_write_count, 1);
        let load = word("b8100000 00000000 00000000 00191000 00000000 01000020 d0070000 01000000 80000100 d0070000 30f702c0 ff0f0000 00000400 01000000 80000100 d0070707");
        let c = word_cost(&load).unwrap();
        assert_eq!((c.hbm_read_bytes, c.sbuf_write_bytes, c.hbm_write_bytes), (256_000, 256_000, 0));
        let store = word("b8100000 05040000 03000000 001a1000 004100c0 ff0f0000 00000400 01000000 80000100 d0070000 00000000 02000020 d0070000 01000000 80000100 d0070707");
        let c = word_cost(&store).unwrap();
        assert_eq!((c.sbuf_read_bytes, c.hbm_write_bytes), (256_000, 256_000));
        let ldw = word("01100000 05040000 01000000 00000000 fe400000 ffff0000 e0ff2000 01000400 07000000 00008080 00000000 0f0f0f00 00000000 00000000 00000000 00000000");
        assert_eq!(word_cost(&ldw).unwrap().sbuf_read_bytes, 256);
        // an unknown data type, an unknown opcode: unknown, not zero
        let mut bad = mm.clone();
        bad[32] = 0x3;
        assert!(word_cost(&bad).is_none());
        let mut other = mm;
        other[0] = 0x3f;
        assert!(word_cost(&other).is_none());
    }
}
