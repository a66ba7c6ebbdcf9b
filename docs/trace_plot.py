#!/usr/bin/env python3
"""Draws a `spmdrun --trace` file as a PNG timeline: one row per track (the host's main
thread, then one per device), kernels and collectives as bars over time.
Usage: trace_plot.py TRACE.json OUT.png [--from-launch N]  (needs matplotlib)
--from-launch N starts the picture at the N-th launch (skipping compilation)."""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"compile": "#9e9e9e", "run": "#e0e0e0", "launch": "#90caf9", "sync": "#ef5350",
          "kernel": "#42a5f5", "collective": "#ffa726"}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    start_launch = int(sys.argv[sys.argv.index("--from-launch") + 1]) if "--from-launch" in sys.argv else 0
    ev = json.load(open(src))["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    tracks = sorted(names)
    xs = [e for e in ev if e["ph"] == "X"]
    launches = sorted(e["ts"] for e in xs if e["cat"] == "launch")
    t0 = launches[start_launch] if launches and start_launch < len(launches) else 0.0
    xs = [e for e in xs if e["ts"] + e["dur"] >= t0 and e["cat"] != "run"]
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(tracks) + 1.2))
    for row, key in enumerate(tracks):
        for cat in ("launch", "compile", "kernel", "collective", "sync"):
            bars = [((e["ts"] - t0) / 1e3, max(e["dur"], 0.5) / 1e3) for e in xs
                    if (e["pid"], e["tid"]) == key and e["cat"] == cat]
            if bars:
                h = 0.5 if cat == "collective" else 0.8
                ax.broken_barh(bars, (row - h / 2, h), facecolors=COLORS[cat], label=cat)
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels([names[k] for k in tracks])
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_title("spmdrun --trace: " + src.split("/")[-1])
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), loc="upper right", fontsize=8, ncol=len(uniq))
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
