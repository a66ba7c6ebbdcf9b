#!/usr/bin/env bash
# Usage: check.sh SPMDRUN DIR. --stats shows that sharded results stay on the devices:
# a chain of pmaps, a chain of shard_maps and a pmap in a loop send their input once and
# read the result once; and a loop of pmaps takes memory from the OS for its first step
# only (the buffer pool).
# DEVICES (default cpu:8) picks the devices: the GPU test runs it with cuda:8.
set -u
bin=$1; dir=$2; fail=0
want() {  # FILE "host -> device: A   device -> host: B"
  local got; got=$("$bin" --devices ${DEVICES:-cpu:8} --stats "$dir/$1" 2>&1 >/dev/null | grep -o 'host -> device: .*device -> host: [0-9.]* [A-Za-z]*')
  if [ "$got" != "$2" ]; then echo "$1: got '$got', want '$2'"; fail=1; fi
}
# x (256 KiB) goes to the devices once; z is read once by the host's sum; y never moves.
want chain.spmd "host -> device: 256.0 KiB   device -> host: 256.0 KiB"
# The 64 KiB board is sent by the first step and read by the final sum, not per step.
want loop_carry.spmd "host -> device: 64.0 KiB   device -> host: 64.0 KiB"
# xs (512 KiB) never leaves the devices; each iteration the host reads 8 scalars.
want loop_const.spmd "host -> device: 32 B   device -> host: 320 B"
# Two shard_maps over one mesh and spec: x (256 KiB) goes once, z is read once; y stays.
want shard_chain.spmd "host -> device: 256.0 KiB   device -> host: 256.0 KiB"
# The same, summed flattened (reshape(z, [-1])): the sum reads z's blocks in place, 32 B
# back and nothing sent (the assembled z would be read and sent back: 512 KiB to devices).
want shard_chain_flat.spmd "host -> device: 256.0 KiB   device -> host: 32 B"
# The same over a 2-D mesh, and as nested pmaps: each device reads its own block in place,
# and the host's sum of z is summed on the devices (JAX keeps z sharded over the mesh: Note
# [Sharded host values]), reading their 8 results (32 B) back, z never.
want shard_chain_2d.spmd "host -> device: 256.0 KiB   device -> host: 32 B"
want nested_chain.spmd "host -> device: 256.0 KiB   device -> host: 32 B"
# pool_loop.spmd: 2 steps and 20 steps take the same number of blocks from the OS (the
# 18 more steps only reuse blocks). Only on CPU devices (a GPU's memory is its own).
os_allocs() {  # STEPS -> "ALLOCS OS" from the memory line
  "$bin" --devices ${DEVICES:-cpu:8} --stats --arg steps=$1 "$dir/pool_loop.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: \([0-9]*\) allocations, \([0-9]*\) from the OS.*/\1 \2/p'
}
if [[ ${DEVICES:-cpu:8} == cpu* ]]; then
  read -r a2 os2 <<<"$(os_allocs 2)"; read -r a20 os20 <<<"$(os_allocs 20)"
  if [ -z "${os2:-}" ] || [ -z "${os20:-}" ]; then echo "pool_loop.spmd: no memory line in --stats"; fail=1
  elif [ "$os2" != "$os20" ] || [ "$a20" -le "$a2" ]; then
    echo "pool_loop.spmd: 2 steps: $a2 allocations, $os2 from the OS; 20 steps: $a20, $os20 from the OS"; fail=1
  fi
fi
# donate.spmd: ys is written over xs, which dies at that launch (Note [Buffer donation] in
# compiler/ir/InPlace.cpp): one 4 MiB array in use at a time; with keep=1, xs stays live
# and ys needs its own. Only on CPU devices without --split-kernels (the only ones that
# donate).
peak() {  # KEEP -> the peak in use
  "$bin" --devices ${DEVICES:-cpu:8} --stats --arg keep=$1 "$dir/donate.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: .*peak in use: \([0-9.]* [A-Za-z]*\).*/\1/p'
}
if [[ ${DEVICES:-cpu:8} == cpu* && ${DEVICES:-} != *split* ]]; then
  p0=$(peak 0); p1=$(peak 1)
  if [ "$p0" != "4.0 MiB" ] || [ "$p1" != "8.0 MiB" ]; then
    echo "donate.spmd: peak in use '$p0' (want 4.0 MiB), with xs live '$p1' (want 8.0 MiB)"; fail=1
  fi
fi
# fused_sum.spmd: sums of elementwise expressions compute their input a tile at a time
# (Note [XLA sum order]): x (32 MiB) plus one 1 MiB scratch block per device. Only on
# CPU devices without --split-kernels.
if [[ ${DEVICES:-cpu:8} == cpu:8 ]]; then
  got=$("$bin" --devices cpu:8 --stats "$dir/fused_sum.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: .*peak in use: \([0-9.]* [A-Za-z]*\).*/\1/p')
  [ "$got" == "40.0 MiB" ] || { echo "fused_sum.spmd: peak in use '$got' (want 40.0 MiB)"; fail=1; }
fi
# prefault.spmd: its first two launches' results (8 MiB each) are taken ahead, while the
# program compiles, and the run takes both (Note [Pre-faulting] in runtime/BufferPool.h):
# 2 blocks fewer from the OS. Only on CPU devices (a GPU's results are in its memory).
if [[ ${DEVICES:-cpu:8} == cpu* ]]; then
  got=$("$bin" --devices ${DEVICES:-cpu:8} --stats --no-cache "$dir/prefault.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: .*reused (\([0-9]* of [0-9]*\) blocks taken ahead).*/\1/p')
  [ "$got" == "2 of 2" ] || { echo "prefault.spmd: '$got' blocks taken ahead (want 2 of 2)"; fail=1; }
  # donate.spmd: ys written over xs takes no block of its own, so only xs's is taken
  # ahead; with xs kept alive, both. (More taken than used: 'N of M' with N < M.)
  ahead() {  # KEEP -> "N of M"
    "$bin" --devices ${DEVICES:-cpu:8} --stats --no-cache --arg keep=$1 "$dir/donate.spmd" 2>&1 >/dev/null |
      sed -n 's/^memory: .*reused (\([0-9]* of [0-9]*\) blocks taken ahead).*/\1/p'
  }
  # plan_slice.spmd: xs dies at a host slice, which may be fused: the plan ends there
  # and takes only xs ahead, not a block for ys, which reuses xs's (was 1 of 2).
  got=$("$bin" --devices ${DEVICES:-cpu:8} --stats --no-cache "$dir/plan_slice.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: .*reused (\([0-9]* of [0-9]*\) blocks taken ahead).*/\1/p')
  [ "$got" == "1 of 1" ] || { echo "plan_slice.spmd: '$got' blocks taken ahead (want 1 of 1)"; fail=1; }
  # plan_carry.spmd: xs0, the loop's carry and the first step's psum: 3 blocks of 8 MiB,
  # all taken ahead, and nothing more from the OS for them (was 2 of 2, 4 from the OS).
  got=$("$bin" --devices ${DEVICES:-cpu:8} --stats --no-cache "$dir/plan_carry.spmd" 2>&1 >/dev/null |
    sed -n 's/^memory: .* \([0-9]*\) from the OS, .*reused (\([0-9]* of [0-9]*\) blocks taken ahead).*/\1: \2/p')
  want="3: 3 of 3"  # --split-kernels takes more from the OS (the kernels' own buffers)
  [[ ${DEVICES:-} == *split* ]] && { got=${got#*: }; want="3 of 3"; }
  [ "$got" == "$want" ] || { echo "plan_carry.spmd: '$got' (want '$want': from the OS: taken ahead)"; fail=1; }
  if [[ ${DEVICES:-cpu:8} != *split* ]]; then
    a0=$(ahead 0); a1=$(ahead 1)
    if [ "$a0" != "1 of 1" ] || [ "$a1" != "2 of 2" ]; then
      echo "donate.spmd: blocks taken ahead '$a0' (want 1 of 1), with xs live '$a1' (want 2 of 2)"; fail=1
    fi
  fi
fi
[ $fail -eq 0 ] && echo ok
exit $fail
