#!/usr/bin/env bash
# Usage: bench.sh SPMDRUN. The GPU benchmark (`bench/run --gpu`, bench/gpu_run.py) in one
# command for a lent GPU machine, apart from verify.sh: that one's logs already fill the
# eight files a `run` call brings back, and the two together would not fit in its 10
# minutes. Writes under $OUT (default /tmp/gpu-bench):
#   bench-gpu.json   the raw results; here: bench/run --gpu --report bench-gpu.json puts
#                    the GPU section into BENCHMARKS.md
#   gpu-section.md   that section, to read at once
#   bench.log        the progress log and the table
# The bench stops starting rounds at BENCH_BUDGET seconds (default 400) and is killed at
# BENCH_TIMEOUT (default 470; the JSON is written after every workload, so a killed run
# still leaves what it measured). Without a GPU it says so and exits 1.
set -u
bin=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/gpu-bench}; mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1 | tee "$out/bench.log"
timeout -k 10 "${BENCH_TIMEOUT:-470}" python3 "$src/bench/run" --gpu --spmdrun "$bin" --out "$out" \
  --budget "${BENCH_BUDGET:-400}" 2>&1 | tee -a "$out/bench.log"
rc=${PIPESTATUS[0]}
echo "bench/run --gpu: exit $rc" | tee -a "$out/bench.log"
exit "$rc"
