#!/usr/bin/env python3
"""Draws bench/chart.png from bench/run's raw results: per workload, spmdrun's time over its
best rival's (steady state) and over JAX's first call (compile included), on a log scale.

Usage: chart.py RESULTS.json OUT.png   (needs matplotlib; bench/run calls it from the venv)
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402


def main(raw, png):
    rows = [r for r in report.rows(json.loads(Path(raw).read_text()))]
    names = [r["name"] for r in rows]
    steady = [r["ratio_steady"] or float("nan") for r in rows]
    e2e = [r["ratio_e2e"] or float("nan") for r in rows]
    fig, ax = plt.subplots(figsize=(8, 5))
    ys = range(len(names))
    ax.barh([y - 0.2 for y in ys], steady, 0.4, label="spmdrun run / best rival steady")
    ax.barh([y + 0.2 for y in ys], e2e, 0.4, label="spmdrun process / JAX first call")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_yticks(list(ys), names)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio (log scale; < 1: spmdrun faster, > 1: slower)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=8)
    ax.set_title("spmdrun vs baselines, 8 CPU devices on 2 cores")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == "__main__":
    main(*sys.argv[1:3])
