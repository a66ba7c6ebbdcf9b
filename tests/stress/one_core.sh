#!/usr/bin/env bash
# Usage: one_core.sh SPMDRUN DIR. CPU devices outnumbering the cores: collectives.spmd on
# cpu:3, cpu:8 and cpu:16 pinned to one core (taskset -c 0) must finish within 120 s
# (ONECORE_TIMEOUT) and print what the same program prints unpinned. With more devices than
# cores the devices run on fibers and a device waiting in a collective switches to another
# (Note [Fibers] in runtime/cpu/CpuDevice.cpp); with SPMD_CPU_FIBERS=0, threads: a thread
# about to sleep in a collective wakes another while devices are unclaimed (Note [Dispatch]);
# without that wake-up this program hangs on cpu:8. Both are run.
set -u
bin=$1; dir=$2; fail=0
command -v taskset >/dev/null || { echo "skipped: no taskset"; exit 77; }
for fibers in 1 0; do
export SPMD_CPU_FIBERS=$fibers
for n in 3 8 16; do
  want=$(timeout "${ONECORE_TIMEOUT:-120}" "$bin" --devices cpu:$n "$dir/collectives.spmd" --arg n=100 2>&1)
  got=$(timeout "${ONECORE_TIMEOUT:-120}" taskset -c 0 "$bin" --devices cpu:$n "$dir/collectives.spmd" --arg n=100 2>&1); rc=$?
  [ -n "$want" ] || { echo "FAIL cpu:$n (SPMD_CPU_FIBERS=$fibers) unpinned printed nothing (timed out?)"; fail=1; continue; }
  if [ $rc -ne 0 ]; then echo "FAIL cpu:$n (SPMD_CPU_FIBERS=$fibers) on one core: exit $rc (124: timed out): $(head -3 <<<"$got")"; fail=1
  elif [ "$got" != "$want" ]; then echo "FAIL cpu:$n (SPMD_CPU_FIBERS=$fibers) on one core prints differently"; diff <(echo "$want") <(echo "$got") | head; fail=1
  else echo "PASS cpu:$n on one core (SPMD_CPU_FIBERS=$fibers)"; fi
done
done
exit $fail
