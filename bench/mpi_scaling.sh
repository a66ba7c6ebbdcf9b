#!/usr/bin/env bash
# Usage: bench/mpi_scaling.sh SPMDRUN [RUNS]. Whole-process times (wall, seconds) of
# bench/normalize.spmd (64M elements) and bench/pool_map.spmd under mpirun -np 1, 2 x
# --devices cpu:1, 2, against one process with the same number of devices: the cost of
# crossing processes. Prints min and median of RUNS runs (default 5) per configuration
# and the load average before and after (the machine may be shared).
set -u
bin=$(realpath "$1"); runs=${2:-5}
cd "$(dirname "$0")"
mpi=(mpirun --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none)
export TMPDIR=$(mktemp -d); trap 'rm -rf "$TMPDIR"' EXIT
stat() {  # label command...
  local label=$1; shift
  local ts=()
  for _ in $(seq "$runs"); do
    local t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "$label: failed"; return; }
    ts+=($(echo "$(date +%s.%N) - $t0" | bc))
  done
  printf '%-34s %s\n' "$label" "$(printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "min %.3f  median %.3f  (n=%d)", a[1], a[int((NR+1)/2)], NR}')"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for prog in normalize pool_map; do
  for n in 1 2 4; do stat "$prog one process cpu:$n" "$bin" --devices cpu:$n $prog.spmd; done
  for np in 1 2; do
    for k in 1 2; do stat "$prog mpirun -np $np cpu:$k" "${mpi[@]}" -np $np "$bin" --devices cpu:$k $prog.spmd; done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
