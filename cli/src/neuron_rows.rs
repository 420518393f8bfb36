//! Neuron device tables read back from the model, the same for NTFF, the JSON export and Parquet:
//! instructions are the slices of engine tracks (`TrackRole::Engine`) with their typed opcode
//! and program counter (`SliceDomain::pc`), DMA packets the slices of DMA queue tracks
//! (`TrackRole::DmaQueue`; the export's `dma_engine`, `dma_queue`, `transfer_size` arguments),
//! semaphores the counters of role `CounterRole::Semaphore` with their typed number
//! (`CounterTrack::number`).

use loupe_core::model::{ArgValue, CounterRole, GroupKind, TrackRole};
use loupe_core::Trace;

pub struct InstructionRow {
    pub engine: String,
    pub pc: String,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub opcode: String,
}
pub struct DmaRow {
    pub engine: String,
    pub queue: String,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub size: String,
}
pub struct SemRow {
    pub id: i64,
    pub ts_ns: i64,
    pub value: String,
}

fn arg(t: &Trace, args: loupe_core::model::ArgsId, key: &str) -> Option<ArgValue> {
    t.args.get(args).find(|(k, _)| t.str(*k) == key).map(|(_, v)| v)
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        format!("{}", v as i64)
    } else {
        v.to_string()
    }
}

pub fn instructions(t: &Trace) -> Vec<InstructionRow> {
    let mut rows = Vec::new();
    // engine tracks by their typed role; the engine of a row is its instruction stream
    // (TensorMatrix rows run on the PE stream, `Tensor`), the opcode the typed column
    for tr in t.tracks.iter() {
        let Some(engine) = tr.role.engine() else { continue };
        let c = &tr.slices;
        for i in 0..c.len() {
            let d = c.domain_of(i);
            if d.pc == u32::MAX {
                continue;
            }
            let opcode = if d.opcode == loupe_core::StrId::EMPTY { c.name[i] } else { d.opcode };
            rows.push(InstructionRow {
                engine: engine.stream().name().to_string(),
                pc: d.pc.to_string(),
                start_ns: c.start_ns[i],
                dur_ns: c.dur_ns.at(i),
                opcode: t.str(opcode).to_string(),
            });
        }
    }
    rows.sort_by(|a, b| (a.start_ns, &a.engine, a.dur_ns).cmp(&(b.start_ns, &b.engine, b.dur_ns)));
    rows
}

pub fn dma(t: &Trace) -> Vec<DmaRow> {
    let mut rows = Vec::new();
    // packets only: the aggregated transfers (DMA blocks) have tracks of their own (`DmaTransfers`)
    for tr in t.tracks.iter().filter(|tr| tr.role == TrackRole::DmaQueue) {
        let c = &tr.slices;
        for i in 0..c.len() {
            let (Some(e), Some(q)) = (arg(t, c.args[i], "dma_engine"), arg(t, c.args[i], "dma_queue")) else {
                continue;
            };
            let size = arg(t, c.args[i], "transfer_size")
                .or_else(|| arg(t, c.args[i], "size"))
                .map(|v| t.arg_to_string(v))
                .unwrap_or_default();
            rows.push(DmaRow {
                engine: t.arg_to_string(e),
                queue: t.arg_to_string(q),
                start_ns: c.start_ns[i],
                dur_ns: c.dur_ns.at(i),
                size,
            });
        }
    }
    rows.sort_by(|a, b| (a.start_ns, &a.engine, &a.queue).cmp(&(b.start_ns, &b.engine, &b.queue)));
    rows
}

pub fn semaphores(t: &Trace) -> Vec<SemRow> {
    let mut rows = Vec::new();
    for c in &t.counters {
        if c.role != CounterRole::Semaphore || t.groups[c.group.idx()].kind != GroupKind::Device {
            continue;
        }
        let Some(id) = c.number else { continue };
        for (ts, v) in c.ts_ns.iter().zip(&c.value) {
            rows.push(SemRow { id, ts_ns: *ts, value: num(*v) });
        }
    }
    rows.sort_by_key(|r| (r.ts_ns, r.id));
    rows
}
