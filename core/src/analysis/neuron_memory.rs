//! **The Memory view's data** (issue 40 §3, Neuron Explorer's memory view): SBUF and PSUM
//! occupancy over time per device, one row per sampled SBUF partition (0 / 32 / 64 / 96, one
//! per group of 32) and per PSUM bank, read from the counters the importers made:
//!
//! - an NTFF: computed from the executed instruction words' operands
//!   (`neuron::ntff::memory`: a byte is live from the instruction that writes it until the
//!   last instruction that reads it ends, neuron-profile's definition, checked row by row
//!   against the export on every shared capture by `core/tests/neuron_memory_oracle.rs`);
//! - the JSON export's `instruction_usage` rows and Explorer Parquet's `SbufUsage` /
//!   `PsumUsage` tables, as recorded.
//!
//! Values are percent of a partition (SBUF: 192 KiB on trn1 / inf2) or of a bank (PSUM: 0 or
//! 100 %, a bank is in use while any of its bytes is live), step functions in time.
//!
//! **What the files do not carry** ([`MISSING_FROM_NTFF`], [`NO_MEMORY_ROWS`]): an NTFF does
//! not give the SBUF destination of the NEFF's static DMA blocks (the weights the runtime loads
//! before the first instruction; NEFF DMA descriptors), so those bytes count only once an
//! instruction writes them (unless the capture's own JSON export is dropped with it: its
//! aggregated `dma` rows state the destination); nor the partition range of an access (every access of the shared
//! captures spans all 128 partitions, so the four partition rows of an NTFF are equal); nor
//! which tensor a range belongs to (the export's `SbufAllocation` table: Parquet only), so
//! fragmentation shows as occupancy, not as address ranges. Spill and reload are DMA traffic
//! (`spill_save_bytes` / `spill_reload_bytes`) and appear as DMA slices, not here.

use crate::model::{CounterTrack, GroupId, Trace};

/// Which memory a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Memory {
    Sbuf,
    Psum,
}

impl Memory {
    pub fn label(self) -> &'static str {
        match self {
            Memory::Sbuf => "SBUF",
            Memory::Psum => "PSUM",
        }
    }
}

/// One row of the view: a counter of a device group.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryRow {
    pub memory: Memory,
    /// Short, for a chart's row label: `"SBUF p0"`, `"PSUM b2"`, `"SBUF avg"`.
    pub label: String,
    /// What the row is, for a hover.
    pub title: String,
    /// Index into `Trace::counters`.
    pub counter: usize,
}

/// One device's rows, SBUF first.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceMemory {
    pub group: GroupId,
    pub name: String,
    pub rows: Vec<MemoryRow>,
}

/// Shown when a device profile has no occupancy rows.
pub const NO_MEMORY_ROWS: &str = "No SBUF/PSUM occupancy in these files. It comes from an NTFF's \
     instruction operands (when every executed instruction word is of a known layout and the \
     instance type's memory sizes are known), from the neuron-profile JSON export's \
     instruction_usage rows, or from an Explorer Parquet directory's SbufUsage / PsumUsage tables.";

/// Shown beside rows computed from an NTFF.
pub const MISSING_FROM_NTFF: &str = "Computed from the NTFF's instruction operands. Not in the \
     NTFF: the SBUF destination of the NEFF's static DMA blocks (weights loaded before the first \
     instruction count only once an instruction writes them; drop the capture's neuron-profile JSON \
     export with it to count them), the partition range of each access \
     (the four partition rows are therefore equal), and which tensor owns an address range.";

/// The counter names the importers give (`neuron_json`, `neuron_parquet`, `neuron_binary`).
fn classify(name: &str) -> Option<(Memory, u32, String, String)> {
    if let Some(rest) = name.strip_prefix("SBUF partition ") {
        let n: u32 = rest.strip_suffix(" usage")?.trim().parse().ok()?;
        let group = format!("partitions {n}–{}", n + 31);
        return Some((
            Memory::Sbuf,
            n,
            format!("SBUF p{n}"),
            format!("SBUF partition {n} (sampled for {group}): % of the partition's bytes live"),
        ));
    }
    if let Some(rest) = name.strip_prefix("PSUM bank ") {
        let n: u32 = rest.strip_suffix(" usage")?.trim().parse().ok()?;
        return Some((
            Memory::Psum,
            n,
            format!("PSUM b{n}"),
            format!("PSUM bank {n}: 100 % while any of its bytes is live"),
        ));
    }
    None
}

/// Every device group's occupancy rows: per group the SBUF partition rows (0, 32, 64, 96) then
/// the PSUM banks, in number order; groups without any are left out. Falls back to the
/// averages (`SBUF usage`, `PSUM usage`) when a memory has no per-partition / per-bank rows.
pub fn memory_rows(trace: &Trace) -> Vec<DeviceMemory> {
    let mut out = Vec::new();
    for (gi, g) in trace.groups.iter().enumerate() {
        let mut rows: Vec<(Memory, u32, MemoryRow)> = Vec::new();
        let mut avg: Vec<(Memory, usize)> = Vec::new();
        for &c in &g.counters {
            let Some(ct) = trace.counters.get(c.0 as usize) else { continue };
            let name = trace.str(ct.name);
            if let Some((memory, n, label, title)) = classify(name) {
                rows.push((memory, n, MemoryRow { memory, label, title, counter: c.0 as usize }));
            } else if name == "SBUF usage" {
                avg.push((Memory::Sbuf, c.0 as usize));
            } else if name == "PSUM usage" {
                avg.push((Memory::Psum, c.0 as usize));
            }
        }
        for (memory, counter) in avg {
            if !rows.iter().any(|r| r.0 == memory) {
                let title = format!("{} usage: mean over its partitions / banks, %", memory.label());
                rows.push((
                    memory,
                    0,
                    MemoryRow { memory, label: format!("{} avg", memory.label()), title, counter },
                ));
            }
        }
        if rows.is_empty() {
            continue;
        }
        rows.sort_by_key(|r| (r.0, r.1));
        out.push(DeviceMemory {
            group: GroupId(gi as u32),
            name: trace.str(g.name).to_string(),
            rows: rows.into_iter().map(|r| r.2).collect(),
        });
    }
    out
}

/// Whether the trace has a Neuron device group (the view applies).
pub fn has_device(trace: &Trace) -> bool {
    trace.groups.iter().any(|g| g.device.is_some())
}

/// Whether the trace's occupancy was computed from an NTFF without the static DMA blocks'
/// destination (then [`MISSING_FROM_NTFF`] applies; the NTFF's own export dropped with it
/// states the destination, `neuron.memory_static_dma`).
pub fn from_ntff(trace: &Trace) -> bool {
    let has = |key: &str| trace.metadata.entries.iter().any(|(k, _)| k == key);
    has("ntff.version") && !has("neuron.memory_static_dma")
}

/// One cell of a row: the bin `[t0, t1)`, the highest value in it and the time-weighted mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub t0_ns: i64,
    pub t1_ns: i64,
    pub peak: f64,
    pub mean: f64,
}

/// The counter's step function (each sample holds until the next) over `cols` equal bins of
/// `[t0, t1)`: per bin its peak and time-weighted mean. Before the first sample the value is 0.
/// O(samples in range + cols).
pub fn cells(c: &CounterTrack, t0_ns: i64, t1_ns: i64, cols: usize) -> Vec<Cell> {
    let cols = cols.max(1);
    let span = (t1_ns - t0_ns).max(1);
    let edge = |k: usize| t0_ns + (span as i128 * k as i128 / cols as i128) as i64;
    let n = c.ts_ns.len().min(c.value.len());
    // the sample in force at t0
    let mut i = c.ts_ns[..n].partition_point(|&t| t <= t0_ns);
    let mut cur = if i > 0 { c.value[i - 1] } else { 0.0 };
    let mut out = Vec::with_capacity(cols);
    for k in 0..cols {
        let (b0, b1) = (edge(k), edge(k + 1));
        let mut peak = cur;
        let mut area = 0.0;
        let mut at = b0;
        while i < n && c.ts_ns[i] < b1 {
            let t = c.ts_ns[i].max(b0);
            area += cur * (t - at) as f64;
            at = t;
            cur = c.value[i];
            peak = peak.max(cur);
            i += 1;
        }
        area += cur * (b1 - at) as f64;
        let w = (b1 - b0).max(1) as f64;
        out.push(Cell { t0_ns: b0, t1_ns: b1, peak, mean: area / w });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CounterRole, GroupKind, TraceBuilder};

    #[test]
    fn rows_and_cells() {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("NeuronCore 0", GroupKind::Device);
        let names = [
            "SBUF usage",
            "SBUF partition 32 usage",
            "SBUF partition 0 usage",
            "PSUM bank 1 usage",
            "PSUM usage",
        ];
        let mut ids = Vec::new();
        for n in names {
            let c = b.add_counter(g, n, "%");
            b.set_counter_role(c, CounterRole::Generic);
            ids.push(c);
        }
        for &c in &ids {
            b.add_counter_sample(c, 10, 50.0);
            b.add_counter_sample(c, 20, 0.0);
            b.add_counter_sample(c, 30, 100.0);
        }
        let t = b.finish();
        let d = memory_rows(&t);
        assert_eq!(d.len(), 1);
        let labels: Vec<&str> = d[0].rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["SBUF p0", "SBUF p32", "PSUM b1"]);
        let c = &t.counters[d[0].rows[0].counter];
        // bins [0,20) [20,40): 0 until 10, 50 until 20; then 0 until 30, 100 until 40
        let cs = cells(c, 0, 40, 2);
        assert_eq!((cs[0].peak, cs[0].mean), (50.0, 25.0));
        assert_eq!((cs[1].peak, cs[1].mean), (100.0, 50.0));
        assert_eq!((cs[1].t0_ns, cs[1].t1_ns), (20, 40));
        // a bin inside one step
        let cs = cells(c, 12, 18, 1);
        assert_eq!((cs[0].peak, cs[0].mean), (50.0, 50.0));
        assert!(!has_device(&t) || t.groups[0].device.is_some());
    }
}
