#!/usr/bin/env bash
# Usage: verify.sh SPMDRUN [TEST_CUDA]. Everything to run on a machine with a GPU (the
# `device` tool lends one to some sessions; see docs/gpu.md), in one command, with the
# logs written under $OUT (default /tmp/gpu-verify):
#   test_cuda.log     the runtime's unit tests (tests/unit/cuda), when TEST_CUDA is given
#   gpu_check.log     tests/gpu/check.sh: every program on cuda:N against cpu:N
#   memcheck.log      compute-sanitizer memcheck of generated kernels on a few programs
#   mpi.log           tests/gpu/mpi.sh: GPUs under mpirun, -np 1 through a one-rank NCCL
#                     communicator and -np 2 sharing the GPU through MPI via host memory,
#                     against cuda:8 (same bits) and cpu:8; the --stats path lines
#   timings.txt       whole-process times and --stats of rule30 and normalize (64M)
#                     on cuda:1, cuda:8 and cpu:8
# The benchmark against JAX (bench/run --gpu) is a `run` call of its own, tests/gpu/bench.sh:
# it needs most of a call's 10 minutes, and these logs already fill the eight files a call
# brings back (docs/gpu.md, "Benchmarking on a GPU").
set -u
bin=$(realpath "$1"); tc=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/gpu-verify}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
if [ -n "$tc" ]; then "$tc" > "$out/test_cuda.log" 2>&1; echo "test_cuda: rc=$? $(tail -2 "$out/test_cuda.log" | tr '\n' ' ')"; fi
bash "$src/tests/gpu/check.sh" "$bin" "$src" > "$out/gpu_check.log" 2>&1
echo "gpu check: rc=$? $(tail -1 "$out/gpu_check.log")"; grep FAIL -A3 "$out/gpu_check.log" | head -30
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$san" ]; then
  : > "$out/memcheck.log"
  for f in tests/spec/rule30.spmd tests/golden/indexing.spmd tests/golden/collectives.spmd tests/golden/reductions.spmd tests/spec/nested_normalize.spmd tests/golden/loops_if.spmd; do
    (cd "$src/$(dirname "$f")" && timeout 120 "$san" --tool memcheck --error-exitcode 9 "$bin" --devices cuda:8 "$(basename "$f")") >> "$out/memcheck.log" 2>&1
    echo "memcheck $f: rc=$?"
  done
  grep -E "ERROR SUMMARY" "$out/memcheck.log" | sort | uniq -c
fi
bash "$src/tests/gpu/mpi.sh" "$bin" "$src" > "$out/mpi.log" 2>&1
echo "gpu mpi: rc=$? $(tail -1 "$out/mpi.log")"
grep -E '^FAIL|^SKIP|^[a-z0-9]+ \(-np|^    ' "$out/mpi.log" | head -40
# Whole-process wall time (s) and the --stats transfer line of one run.
timed() {
  local dev=$1; shift
  local t0 t1; t0=$(date +%s.%N)
  "$bin" --devices "$dev" --stats "$@" > "$out/run.out" 2> "$out/run.err"; local rc=$?
  t1=$(date +%s.%N)
  printf '%-8s %-16s rc=%d %7.3f s   %s\n' "$dev" "$(basename "$1")" $rc "$(awk "BEGIN{print $t1 - $t0}")" \
    "$(grep -o 'host -> device.*' "$out/run.err")"
  grep -E '^pmap|codegen|module load|^  run' "$out/run.err" | sed 's/^/      /'
}
{
  for dev in cuda:1 cuda:8 cpu:8; do
    for rep in 1 2; do
      timed $dev "$src/tests/spec/rule30.spmd"
      timed $dev "$src/bench/rule30.spmd"
      timed $dev "$src/bench/normalize.spmd"
    done
  done
} | tee "$out/timings.txt"
