//! Write a matching NEFF + NTFF pair and the Python sources their debug info names, for the
//! browser tests of the code view (tests/e2e/code.test.mjs) and for trying it by hand:
//! `cargo run -p loupe-core --example gen_neuron_pair -- <dir> [iterations]`
//!
//! Writes `<dir>/model.neff` (`neff::writer::minimal_neff`), `<dir>/model.ntff`
//! (`ntff::writer::minimal_pair_capture`, default 6 iterations, each instruction execution with
//! its own pseudo-random wait and CRCs), `<dir>/src/model.py` (line 58 is
//! the matmul the debug info points at) and `<dir>/src/kernel.py` (line 13, the kernel line of
//! the BIR debug info).

use std::path::Path;

use loupe_core::neuron::{neff, ntff};

const MODEL_PY: &str = r#""""A tiny model for the Loupe code-view fixture.

The NEFF written next to this file says its matmul comes from line 58.
"""
import math

import torch
import torch.nn as nn

HIDDEN = 256
HEADS = 4
EPS = 1e-5


def gelu(x):
    # tanh approximation
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


class Norm(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = EPS

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + self.eps) * self.weight


class Block(nn.Module):
    """One MLP block."""

    def __init__(self, dim: int = HIDDEN):
        super().__init__()
        self.norm = Norm(dim)
        self.up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        h = self.norm(x)
        h = gelu(self.up(h))
        return x + self.down(h)


class Model(nn.Module):
    def __init__(self, layers: int = 2):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.w = nn.Parameter(torch.randn(HIDDEN, 128) * 0.02)

    @torch.no_grad()
    def forward(self, x, y):
        for block in self.blocks:
            x = block(x)
        x = x.to(torch.float16)
        # the projection the compiler turned into the MATMUL
        out = torch.matmul(x, y)
        return out


def main():
    model = Model()
    x = torch.randn(128, HIDDEN, dtype=torch.float16)
    y = torch.randn(HIDDEN, 64, dtype=torch.float16)
    print(model(x, y).shape)


if __name__ == "__main__":
    main()
"#;

const KERNEL_PY: &str = r#"# A kernel the compiler lowered the matmul to (fixture).
import neuronxcc.nki.language as nl


def matmul_kernel(a, b, out):
    """Tiled matmul: 128 x 64 tiles."""
    for i in nl.affine_range(a.shape[0] // 128):
        for j in nl.affine_range(b.shape[1] // 64):
            acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(a.shape[1] // 128):
                ta = nl.load(a[i * 128:(i + 1) * 128, k * 128:(k + 1) * 128])
                tb = nl.load(b[k * 128:(k + 1) * 128, j * 64:(j + 1) * 64])
                acc += nl.matmul(ta, tb, transpose_x=True)
            nl.store(out[i * 128:(i + 1) * 128, j * 64:(j + 1) * 64], value=acc)
"#;

fn write(path: &Path, bytes: &[u8]) {
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("could not write {}: {e}", path.display());
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: gen_neuron_pair <dir> [iterations]");
        std::process::exit(2);
    };
    let iterations: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    // the debug info names these lines: keep the texts in step with the writer
    let line = |text: &str, n: usize| text.lines().nth(n - 1).unwrap_or("").to_string();
    if !line(MODEL_PY, 58).contains("torch.matmul") || !line(KERNEL_PY, 13).contains("nl.matmul") {
        eprintln!("internal: the fixture sources no longer have the matmul at model.py:58 / kernel.py:13");
        std::process::exit(1);
    }
    let dir = Path::new(dir);
    let src = dir.join("src");
    if let Err(e) = std::fs::create_dir_all(&src) {
        eprintln!("could not create {}: {e}", src.display());
        std::process::exit(1);
    }
    write(&dir.join("model.neff"), &neff::writer::minimal_neff());
    // every execution with its own wait and CRCs, as on hardware (the fixture's are all zero):
    // a model that shared them would look smaller than a real capture's
    let mut capture = ntff::writer::minimal_pair_capture(iterations);
    ntff::writer::vary_executions(&mut capture);
    write(&dir.join("model.ntff"), &ntff::writer::write(&capture));
    write(&src.join("model.py"), MODEL_PY.as_bytes());
    write(&src.join("kernel.py"), KERNEL_PY.as_bytes());
    println!("wrote model.neff, model.ntff, src/model.py, src/kernel.py to {}", dir.display());
}
