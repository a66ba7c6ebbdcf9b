#!/usr/bin/env bash
# Usage: check.sh SPMDRUN SOURCE_DIR [split]. The GPU test (CTest label `gpu`): every spec
# example and every golden program of the project runs on --devices cuda:1 and cuda:8
# and prints what the same program prints on cpu:1 and cpu:8 (integers, bools, keys and
# text exactly; floats within tests/gpu/compare.py's tolerance); the programs with
# collectives also on 2 and 3 devices; a chain of pmaps moves no bytes between host and
# device (--stats, tests/stats); a device allocation too large for the GPU fails with a
# clear message and exit 1; runs of one program on the GPU are bit-identical.
# Exits 77 (CTest: skipped), saying why, when no GPU is usable.
# With `split`, the same checks run the GPU's device programs and kernels on CPU devices
# (--devices cpu:N --split-kernels) instead, which needs no GPU (CTest: split_kernels).
# CHECK_EXTRA_COUNTS (default "2 3") are the device counts run besides 1 and 8 for programs
# with collectives; ./x sanitize sets it empty and CHECK_CYCLE=1 (tests/tests.cmake, below)
# to keep CI's time.
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); mode=${3:-cuda}
py=${PYTHON:-/usr/bin/python3}
dev() { if [ "$mode" = split ]; then echo "--devices cpu:$1 --split-kernels"; else echo "--devices cuda:$1"; fi; }
if [ "$mode" != split ]; then
  probe=$(echo 'print(1)' | "$bin" --devices cuda:1 - 2>&1)
  if [ "$probe" != "1" ]; then echo "skipped: no usable CUDA GPU ($probe)"; exit 77; fi
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; failn=0
fail() { echo "FAIL $*"; failn=$((failn+1)); }
# Split mode runs kernels as plain loops on the CPU: the cookbook's 5000 x 6000 matmul is
# sized down there (the GPU runs it at full size).
# (Only to the programs that read them: an --arg the script never reads is an error.)
# run NAME FILE N: cpu:N against cuda:N
run() {
  local name=$1 f=$2 n=$3 dir; dir=$(dirname "$f")
  local args=(); [ "$mode" = split ] && grep -q 'arg("rows"' "$f" && args=(--arg rows=64 --arg cols=96)
  (cd "$dir" && timeout 300 "$bin" --devices cpu:$n "$(basename "$f")" "${args[@]}") > "$tmp/cpu" 2>&1; local c1=$?
  (cd "$dir" && timeout 300 "$bin" $(dev $n) "$(basename "$f")" "${args[@]}") > "$tmp/gpu" 2>&1; local c2=$?
  if [ $c1 -ne $c2 ]; then fail "$name $mode:$n: exit $c2, cpu:$n exit $c1"; head -5 "$tmp/gpu"; return; fi
  # What the machine has free changes between two runs (Note [Memory limits] in
  # runtime/BufferPool.h): an out-of-memory message is compared without that figure.
  sed -i -E 's/more than the [0-9.]+ ([KMGT]i)?B (available|left)/more than the N \2/' "$tmp/cpu" "$tmp/gpu"
  if msg=$("$py" "$src/tests/gpu/compare.py" "$tmp/gpu" "$tmp/cpu"); then
    echo "PASS $name $mode:$n"; pass=$((pass+1))
  else fail "$name $mode:$n: $msg"; diff "$tmp/gpu" "$tmp/cpu" | head -6; fi
}
programs=()
for f in "$src"/tests/spec/*.spmd "$src"/tests/golden/*.spmd "$src"/examples/*.spmd "$src"/tests/stats/*.spmd; do
  grep -q '^# expect: ' "$f" && continue
  # A program whose CPU output is meant to differ on a GPU (CPU devices flush denormals,
  # as XLA's CPU code does; GPUs do not) says so on a '# not on gpu:' line.
  [ "$mode" != split ] && grep -q '^# not on gpu: ' "$f" && continue
  # A program whose last bits depend on the order of a sum that cancels (the split
  # kernels and the GPU sum in another order than the CPU devices' fused code) says so
  # on a '# not split: ' line: a tolerance cannot compare values that are rounding noise.
  if grep -q '^# not split: ' "$f"; then echo "SKIP $(basename "$f"): $(sed -n 's/^# not split: //p' "$f" | head -1)"; continue; fi
  programs+=("$f")
done
# CHECK_CYCLE=1 (./x sanitize): each program on one of 1 and 8 devices, in turn, so both
# counts' code paths still run under ASan over the whole list, at half the runs.
i=0
for f in "${programs[@]}"; do
  name=$(basename "$(dirname "$f")")/$(basename "$f" .spmd)
  counts="1 8"; [ "${CHECK_CYCLE-}" = 1 ] && { [ $((i % 2)) -eq 0 ] && counts=8 || counts=1; }
  i=$((i + 1))
  for n in $counts; do run "$name" "$f" $n; done
  if grep -qE 'psum|pmean|pmax|pmin|ppermute|all_gather|all_to_all|psum_scatter|axis_index' "$f"; then
    for n in ${CHECK_EXTRA_COUNTS-2 3}; do run "$name" "$f" $n; done
  fi
done
# The same program twice on the GPU: the same bits.
f=$src/tests/golden/reductions.spmd
(cd "$(dirname "$f")" && "$bin" $(dev 8) "$(basename "$f")") > "$tmp/a" 2>&1
(cd "$(dirname "$f")" && "$bin" $(dev 8) "$(basename "$f")") > "$tmp/b" 2>&1
if cmp -s "$tmp/a" "$tmp/b"; then echo "PASS deterministic"; pass=$((pass+1)); else fail "two runs differ"; fi
# Shards stay on the GPU: the byte counts of the CPU devices' accounting, now real copies.
if msg=$(DEVICES="$(dev 8 | sed 's/--devices //')" bash "$src/tests/stats/check.sh" "$bin" "$src/tests/stats" 2>&1); then
  echo "PASS stats (sharded chain on cuda:8)"; pass=$((pass+1))
else fail "stats: $msg"; fi
# Out of device memory: a clear message and exit 1, well within the time limit.
printf 'let y = pmap i (x in arange(8.0)) {\n  let z = zeros([200000000000]) + x\n  z[0] + z[7] }\nprint(y)\n' > "$tmp/oom.spmd"
out=$(timeout 120 "$bin" $(dev 8) "$tmp/oom.spmd" 2>&1); code=$?
if [ $code -eq 1 ] && grep -qi 'out of memory' <<<"$out"; then echo "PASS out of memory: $(head -1 <<<"$out")"; pass=$((pass+1))
else fail "out of memory: exit $code: $out"; fi
# A dynamic index out of range inside a pmap: the CPU's message, from the kernel's error record.
printf 'let y = pmap i (x in arange(8.0)) { let v = arange(8.0)\n  v[i32(x) + 1] }\nprint(y)\n' > "$tmp/idx.spmd"
want=$("$bin" --devices cpu:8 "$tmp/idx.spmd" 2>&1); got=$("$bin" $(dev 8) "$tmp/idx.spmd" 2>&1); code=$?
if [ $code -eq 1 ] && [ "$got" == "$want" ]; then echo "PASS index error: $got"; pass=$((pass+1))
else fail "index error: exit $code: got '$got', want '$want'"; fi
echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
