//! The **Tensor view**'s rows: every tensor of the loaded NEFF (its `tensor_map.json` per
//! subgraph, as the program's `Tensors` table carries it: subgraph, name, kind, dtype, shape),
//! with its size = elements × the dtype's bytes (`None` for a dtype not listed in
//! [`dtype_bytes`]). Constants (`is_const`, no `kind`) read as `const`. From Neuron Explorer's
//! Parquet tables the same `Tensors` table comes from `TensorInfo`: no dtype, its stated `size`
//! (bytes) is the size.
//!
//! # DMA transfers per tensor: not linked, and why
//! Neuron Explorer's Tensor Viewer lists the DMA queues and transfers that move each tensor.
//! Loupe cannot: the NTFF's DMA packets name only their queue and DMA engine (`qSyncIO0-Q1-E0`,
//! bytes, times), and the NEFF's queue definitions (`def.json` `dma_queue`: type, queue count,
//! owner engine, semaphores) name no tensor. The shared nkipy NEFFs use only dynamic queues
//! (`qPoolDynamic`, `qSPDynamicHW`: descriptors generated on the device at run time, so the NEFF
//! holds no descriptor naming a tensor); what remains is the NEFF's DMA debug info
//! (`debug_info_backend_DMA.dbg`), which Loupe does not decode yet, and for static queues their
//! descriptor tables. So [`TensorTable::dma_link`] states that reason and the rows carry no DMA
//! figures, rather than
//! guessing a tensor from a queue's name.

use crate::model::Trace;

/// Why DMA transfers are not attributed to tensors (see the module doc).
pub const DMA_LINK_MISSING: &str =
    "DMA transfers cannot be linked to tensors: the NTFF's DMA packets name only \
     their queue and DMA engine, the NEFF's queue definitions name no tensor (dynamic queues have \
     no descriptors in the NEFF at all), and the NEFF's DMA debug info, which would say what a \
     transfer moves, is not decoded by Loupe yet";

/// One NEFF tensor.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TensorRow {
    pub subgraph: String,
    pub name: String,
    /// `input`, `output`, or `const` (a constant: no `kind` in the tensor map).
    pub kind: String,
    pub dtype: String,
    pub shape: Vec<i64>,
    /// Elements × the dtype's bytes; `None` for an unknown dtype or a shape without dimensions.
    pub size_bytes: Option<u64>,
}

/// The tensors of the loaded program.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TensorTable {
    pub rows: Vec<TensorRow>,
    /// `Err(reason)`: DMA transfers are not linked to the tensors, and why.
    pub dma_link: Result<(), &'static str>,
}

/// Bytes per element of a NEFF dtype name (`float16`, `bfloat16`, `float32`, `int8`, …).
pub fn dtype_bytes(dtype: &str) -> Option<u64> {
    let d = dtype.trim().to_ascii_lowercase();
    Some(match d.as_str() {
        "float64" | "int64" | "uint64" | "double" => 8,
        "float32" | "int32" | "uint32" | "float" | "fp32" => 4,
        "float16" | "bfloat16" | "int16" | "uint16" | "half" | "fp16" | "bf16" => 2,
        "int8" | "uint8" | "bool" => 1,
        _ if d.contains("fp8") || d.contains("float8") => 1,
        _ => return None,
    })
}

/// Parse a shape as the program table writes it (`[128, 256]`).
fn parse_shape(s: &str) -> Vec<i64> {
    s.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// The tensors of the trace's program; `None` when no program with a tensor table is loaded.
pub fn neff_tensors(trace: &Trace) -> Option<TensorTable> {
    let program = trace.program.as_ref()?;
    let table = program.table(crate::model::ProgramTableKind::Tensors)?;
    let col = |n: &str| table.columns.iter().position(|c| c == n);
    let (sg, name, kind, dtype, shape) =
        (col("subgraph"), col("name")?, col("kind"), col("dtype"), col("shape"));
    // a stated size (Explorer's TensorInfo `size`, bytes) wins over elements × dtype bytes
    let stated = col("size");
    let cell = |row: &[String], c: Option<usize>| c.and_then(|c| row.get(c)).cloned().unwrap_or_default();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let shape = parse_shape(&cell(row, shape));
            let dtype = cell(row, dtype);
            let elements = (!shape.is_empty())
                .then(|| shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?)))
                .flatten();
            let size_bytes = cell(row, stated)
                .trim()
                .parse::<u64>()
                .ok()
                .or_else(|| elements.zip(dtype_bytes(&dtype)).and_then(|(e, b)| e.checked_mul(b)));
            let kind = cell(row, kind);
            TensorRow {
                subgraph: cell(row, sg),
                name: row.get(name).cloned().unwrap_or_default(),
                kind: if kind.is_empty() { "const".into() } else { kind },
                dtype,
                shape,
                size_bytes,
            }
        })
        .collect();
    Some(TensorTable { rows, dma_link: Err(DMA_LINK_MISSING) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_shapes() {
        assert_eq!(parse_shape("[128, 256]"), vec![128, 256]);
        assert_eq!(parse_shape("[]"), Vec::<i64>::new());
        assert_eq!(dtype_bytes("float16"), Some(2));
        assert_eq!(dtype_bytes("bfloat16"), Some(2));
        assert_eq!(dtype_bytes("float32"), Some(4));
        assert_eq!(dtype_bytes("complex128"), None);
    }

    #[test]
    fn rows_from_the_program_table() {
        let mut t = crate::model::TraceBuilder::new("t").finish();
        assert!(neff_tensors(&t).is_none());
        t.program = Some(crate::model::Program {
            tables: vec![crate::model::Table {
                kind: crate::model::ProgramTableKind::Tensors,
                name: "Tensors".into(),
                columns: ["subgraph", "name", "kind", "dtype", "shape", "layer"].map(String::from).to_vec(),
                rows: vec![
                    ["sg00", "x", "input", "float16", "[128, 256]", "x"].map(String::from).to_vec(),
                    ["sg00", "w", "", "float32", "[1, 1, 1, 16384]", "w"].map(String::from).to_vec(),
                    ["sg00", "q", "", "weird", "[4]", "q"].map(String::from).to_vec(),
                ],
            }],
            ..Default::default()
        });
        let tt = neff_tensors(&t).unwrap();
        assert_eq!(tt.rows.len(), 3);
        assert_eq!(tt.rows[0].size_bytes, Some(128 * 256 * 2));
        assert_eq!(tt.rows[1].kind, "const");
        assert_eq!(tt.rows[1].size_bytes, Some(16384 * 4));
        assert_eq!(tt.rows[2].size_bytes, None);
        assert!(tt.dma_link.is_err());
    }
}
