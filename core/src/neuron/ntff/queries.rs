//! Tables derived from a decoded capture on demand (ntff-v5.md §7): pending DMA count, static
//! DMA blocks, DMA queue labels, DMA throughput.

use super::derived::dma_throughput;
use super::opcodes::OP_DMA_DIRECT2D;
use super::Instruction;
use super::{CounterPoint, DmaPacket, Metadata, Ntff, ThroughputPoint};

/// [`Ntff::static_dma_blocks`] built a packet at a time (for a sink of decoded rows).
#[derive(Debug, Default, Clone)]
pub struct StaticDmaBlocks(Vec<(u8, i64, i64, u64)>);

impl StaticDmaBlocks {
    /// Count packet `p` of a queue of kind `kind` ([`Metadata::dma_queue_kind`]).
    pub fn add(&mut self, p: &DmaPacket, kind: &str) {
        if kind != "data" {
            return;
        }
        let (s, e) = (p.start_ps, p.end_ps);
        let bytes = if p.size_bytes == 4 { 0 } else { u64::from(p.size_bytes) };
        match self.0.iter_mut().find(|b| b.0 == p.queue) {
            Some(b) => {
                b.1 = b.1.min(s);
                b.2 = b.2.max(e);
                b.3 += bytes;
            }
            None => self.0.push((p.queue, s, e, bytes)),
        }
    }
    /// `(queue, start_ps, end_ps, bytes)`, in queue order.
    pub fn finish(mut self) -> Vec<(u8, i64, i64, u64)> {
        self.0.sort_by_key(|b| b.0);
        self.0
    }
}

impl Metadata {
    /// JSON DMA `subgroup` label (GUESS, fits the corpus): `"<name>-Q<q>-E<e>"` when a `/7`
    /// descriptor names (engine, queue) with a static queue, `"Q<q>-E<e>"` for dynamic queues
    /// (name ends in `Dynamic`) and for queues without a descriptor.
    pub fn dma_queue_label(&self, dma_engine: u8, queue: u8) -> String {
        match self.static_queue(dma_engine, queue) {
            Some(q) => format!("{}-Q{queue}-E{dma_engine}", q.display_name),
            None => format!("Q{queue}-E{dma_engine}"),
        }
    }

    /// JSON DMA `queue_type` (GUESS from 3 patterns): `software_dynamic` for dynamic queues,
    /// `data` for named static queues, `instruction` for queues without a descriptor.
    pub fn dma_queue_kind(&self, dma_engine: u8, queue: u8) -> &'static str {
        let d = self.dma_queues.iter().find(|d| d.dma_engine == dma_engine as u64 && d.queue == queue as u64);
        match d {
            Some(d) if d.name.ends_with("Dynamic") => "software_dynamic",
            Some(_) => "data",
            None => "instruction",
        }
    }

    fn static_queue(&self, dma_engine: u8, queue: u8) -> Option<&crate::neuron::ntff::DmaQueueDescriptor> {
        self.dma_queues
            .iter()
            .find(|d| d.dma_engine == dma_engine as u64 && d.queue == queue as u64)
            .filter(|d| !d.name.ends_with("Dynamic"))
    }
}

impl Ntff {
    /// Pending-DMA counter (JSON `pending_dma`): +1 at the start of every DMA trigger
    /// instruction, −1 at each `static_block_ends_ns`; sorted by time.
    ///
    /// Triggers known from the NTFF alone: DMA_DIRECT2D (software DGE on GpSimd). The static
    /// DMA trigger is a plain WRITE at runtime, so `is_static_trigger` must come from the NEFF
    /// (JSON `compiler_opcode` `PSEUDO_DMA_TRIGGER`); likewise the static block boundaries
    /// (see [`Ntff::queue_end_ns`] for the corpus rule "all in-window queue-1 packets").
    /// Dynamic triggers are never decremented, as in the export. Verified 117/117 with the
    /// triggers taken from the JSON.
    pub fn pending_dma(
        &self,
        is_static_trigger: impl Fn(&Instruction) -> bool,
        static_block_ends_ns: &[i64],
    ) -> Vec<CounterPoint> {
        let ev: Vec<(i64, i64)> = self
            .instructions
            .iter()
            .filter(|i| i.opcode_byte == OP_DMA_DIRECT2D || is_static_trigger(i))
            .map(|i| (i.start_ns(), 1))
            .chain(static_block_ends_ns.iter().map(|&t| (t, -1)))
            .collect();
        pending_dma_points(ev)
    }
}

/// The pending-DMA counter of [`Ntff::pending_dma`] from its steps `(ns, +1 or -1)` in
/// instruction order (then the block ends): sorted by time, increments first, and summed.
pub fn pending_dma_points(mut ev: Vec<(i64, i64)>) -> Vec<CounterPoint> {
    ev.sort_by_key(|&(t, d)| (t, -d));
    let mut v = 0i64;
    ev.into_iter()
        .map(|(t, d)| {
            v += d;
            CounterPoint { ts_ns: t, value: v }
        })
        .collect()
}

impl Ntff {
    /// Static DMA blocks (neuron-profile's aggregated DMA rows) as far as the NTFF alone shows
    /// them: per named static queue index (`data` in [`Ntff::dma_queue_kind`]), its in-window
    /// packets on every DMA engine form one block, from the first start to the last end (ps
    /// relative to T0, like every decoded time), with the bytes of its data packets: the 4-byte packets, each DMA
    /// engine's write of the block's completion semaphore, are left out. The NEFF knows the
    /// real blocks; this rule assumes one block per queue and execution (CONSISTENT: every
    /// capture of the corpus, one block each, equals the export's aggregated row, ntff-v5.md
    /// §5.4). `(queue, start_ps, end_ps, bytes)`, in queue order.
    pub fn static_dma_blocks(&self) -> Vec<(u8, i64, i64, u64)> {
        let mut out = StaticDmaBlocks::default();
        for p in &self.dma_packets {
            out.add(p, self.dma_queue_kind(p.dma_engine, p.queue));
        }
        out.finish()
    }

    /// JSON DMA `subgroup` label: [`Metadata::dma_queue_label`].
    pub fn dma_queue_label(&self, dma_engine: u8, queue: u8) -> String {
        self.metadata.dma_queue_label(dma_engine, queue)
    }

    /// JSON DMA `queue_type`: [`Metadata::dma_queue_kind`].
    pub fn dma_queue_kind(&self, dma_engine: u8, queue: u8) -> &'static str {
        self.metadata.dma_queue_kind(dma_engine, queue)
    }

    /// `floor(max end)` ns over the in-window packets of DMA queue `queue` (all engines), the
    /// end of the static DMA block in the corpus (queue 1). `None` without such packets.
    pub fn queue_end_ns(&self, queue: u8) -> Option<i64> {
        self.dma_packets
            .iter()
            .filter(|p| p.queue == queue)
            .map(|p| p.end_ps)
            .max()
            .map(|e| e.div_euclid(1000))
    }

    /// DMA throughput as an exact step function: at every packet start/end the summed rate of
    /// the packets in flight and the bytes of all packets started so far. The JSON
    /// `dma_throughput` table samples the same quantities on a coarser, unreproduced grid.
    pub fn dma_throughput(&self) -> Vec<ThroughputPoint> {
        dma_throughput(&self.dma_packets)
    }
}
