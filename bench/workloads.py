"""The benchmark suite's workloads: which .spmd file and which baseline each one runs, its
sizes per mode, and the physical bound its numbers are compared with.

A workload's sizes go to spmdrun as `--arg NAME=VALUE` and to baselines.py as `NAME=VALUE`,
so both sides always run the same problem.
"""
from dataclasses import dataclass, field


@dataclass
class Workload:
    name: str                 #: the row's name; also baselines.py's function
    spmd: str                 #: the script, relative to bench/
    sizes: dict               #: mode ("full", "quick", "smoke") -> {arg: value}
    what: str                 #: one line for the table
    kernel_line: int = 0      #: line of the pmap whose --stats time is "the kernel" (0: none)
    steady: str = "run"       #: spmdrun's steady-state measure: "run" phase or "kernel"
    rivals: tuple = ()        #: other baseline keys besides jax_steady (numpy, pool, ...)
    extra: dict = field(default_factory=dict)
    cpu2: bool = True         #: also run on --devices cpu:2 (False: the script needs 8 devices)


WORKLOADS = [
    Workload("normalize", "normalize.spmd",
             {"full": {"n": 1 << 26}, "quick": {"n": 1 << 22}, "smoke": {"n": 1 << 13}},
             "x / psum(sum(x)) over 8 devices, f32", kernel_line=8, rivals=("numpy",)),
    Workload("rule30", "rule30.spmd",
             {"full": {"cells": 1 << 20, "steps": 1000}, "quick": {"cells": 1 << 16, "steps": 100},
              "smoke": {"cells": 64, "steps": 3}},
             "Rule 30, ppermute halo, one pmap per step", kernel_line=20, rivals=("numpy",)),
    Workload("random_matmul", "random_matmul.spmd",
             {"full": {"rows": 1000, "cols": 1200}, "quick": {"rows": 200, "cols": 240},
              "smoke": {"rows": 8, "cols": 12}},
             "8 x normal(rows, cols) then m @ m.T", kernel_line=8, rivals=("numpy",),
             cpu2=False),
    Workload("pool_map", "pool_map.spmd",
             {"full": {"inputs": 1000000}, "quick": {"inputs": 20000}, "smoke": {"inputs": 64}},
             "f(x) = sum(sin(x * [1..100])) on N inputs", kernel_line=7,
             rivals=("numpy", "pool")),
    Workload("train_mlp", "train_mlp.spmd",
             {"full": {"steps": 301}, "quick": {"steps": 31}, "smoke": {"steps": 3}},
             "spec train_mlp: 2-32-2 MLP, batch 512, SGD steps", kernel_line=29),
    Workload("train_mlp_wide", "train_mlp_wide.spmd",
             {"full": {"batch": 1024, "steps": 20}, "quick": {"batch": 256, "steps": 3},
              "smoke": {"batch": 16, "steps": 1}},
             "784-512-512-10 MLP, data parallel SGD", kernel_line=34),
    Workload("micro_dispatch", "micro_dispatch.spmd",
             {"full": {"calls": 1000}, "quick": {"calls": 200}, "smoke": {"calls": 3}},
             "a loop of trivial pmaps (v + 1.0)", kernel_line=6),
    Workload("micro_psum", "micro_psum.spmd",
             {"full": {"mb": 16, "reps": 10}, "quick": {"mb": 4, "reps": 3},
              "smoke": {"mb": 1, "reps": 1}},
             "psum of 8 x MB MiB f32, one pmap per psum", kernel_line=10, steady="kernel"),
]

#: The spec examples whose compile time is compared (tests/spec/NAME.spmd).
SPEC_EXAMPLES = ["grad_nested", "nested_normalize", "normalize", "pool_map", "random_matmul",
                 "rule30", "squares", "train_mlp", "vmap_vs_pmap"]


def mlp_flops(batch, widths):
    """Matrix-product FLOPs of one SGD step: forward 2*B*sum(in*out), backward twice that."""
    return 6 * batch * sum(a * b for a, b in zip(widths, widths[1:]))


def bound(w, sizes, machine, devices=8):
    """(work, unit, seconds at the machine's bound, what the bound is) for workload w run on
    `devices` devices, or None where no physical bound is meaningful. train_mlp's batch and
    micro_psum's buffers grow with the devices; the other workloads' sizes do not."""
    bw, peak = machine["copy_GBps"] * 1e9, machine["sgemm_GFLOPs"] * 1e9
    if w.name == "normalize":
        b = 12 * sizes["n"]  # read x for the sum, read x again and write y: 3 x 4 bytes
        return b, "B", b / bw, "copy bandwidth (3 passes of 4 B/element)"
    if w.name == "rule30":
        b = 2 * sizes["cells"] * sizes["steps"]
        return b, "B", b / bw, "copy bandwidth (1 B read + 1 B written per cell per step)"
    if w.name == "random_matmul":
        f = 8 * 2 * sizes["rows"] ** 2 * sizes["cols"]
        return f, "FLOP", f / peak, "numpy sgemm peak (the m @ m.T kernel only)"
    if w.name == "train_mlp":
        f = sizes["steps"] * mlp_flops(devices * 64, [2, 32, 2])
        return f, "FLOP", f / peak, "numpy sgemm peak"
    if w.name == "train_mlp_wide":
        f = sizes["steps"] * mlp_flops(sizes["batch"], [784, 512, 512, 10])
        return f, "FLOP", f / peak, "numpy sgemm peak"
    if w.name == "micro_psum":
        b = 2 * devices * sizes["mb"] * 2**20 * sizes["reps"]  # read d buffers, write d sums
        return b, "B", b / bw, "copy bandwidth (read d x MB, write d x MB per psum, d devices)"
    return None
