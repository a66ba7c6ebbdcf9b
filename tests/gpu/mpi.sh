#!/usr/bin/env bash
# Usage: mpi.sh SPMDRUN SOURCE_DIR [split]. GPUs under mpirun (Note [GPUs across processes] in
# runtime/mpi/GpuLink.h) on a machine with one GPU, the two cases such a machine can run:
#   nccl1   mpirun -np 1 --devices cuda:8 with SPMD_MPI_ALL_GROUPS=1: every group of a
#           collective takes the cross-process path, so all_gather, ppermute and
#           all_to_all go through a one-rank NCCL communicator per group;
#   host2   mpirun -np 2 --devices cuda:4: both ranks on the one GPU, so NCCL is refused
#           and groups that span the ranks go through MPI via pinned host buffers;
#   host2all  the same with SPMD_MPI_ALL_GROUPS=1 (every group through host memory);
#   host1   mpirun -np 1 --devices cuda:8, SPMD_NCCL=0 and SPMD_MPI_ALL_GROUPS=1.
# Each program (the spec examples and the goldens tests/mpi/check.sh runs) must print
# exactly what one process with cuda:8 prints (the same bits), and agree with cpu:8 as
# tests/gpu/check.sh demands (tests/gpu/compare.py). Prints the --stats line that names
# the path of each case. Exits 77 without mpirun or a usable GPU. With `split`, the same
# runs use CPU devices with --split-kernels instead of cuda (a check of this script and of
# the cross-process path of CPU devices, without a GPU).
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); mode=${3:-cuda}
py=${PYTHON:-/usr/bin/python3}
dev() { if [ "$mode" = split ]; then echo "--devices cpu:$1 --split-kernels"; else echo "--devices cuda:$1"; fi; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
if [ "$mode" != split ]; then
  probe=$(echo 'print(1)' | "$bin" --devices cuda:1 - 2>&1)
  [ "$probe" = "1" ] || { echo "SKIP: no usable CUDA GPU ($probe)"; exit 77; }
fi
mpi=(mpirun --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
pass=0; failn=0
fail() { echo "FAIL $*"; failn=$((failn + 1)); }
errlines() { grep -E '^error:|: error:' "$1" | grep -v '^error: rank [0-9]*: ' || true; }

names=()
for f in "$src"/tests/spec/*.spmd; do
  grep -q '^# not on gpu: ' "$f" && continue
  names+=("spec/$(basename "${f%.spmd}")")
done
for g in collectives all_to_all bool_reductions random_maps pmap_loop_grad pmap_deep empty_axes shapes \
         shard_map_compose shard_map_keys shard_map_mesh; do
  names+=("golden/$g")
done
names+=(mpi/spanning mpi/inplace)

extra() {
  case $1 in
    mpi/spanning) echo "--arg a=2 --arg c=2" ;;
    spec/random_matmul) echo "--arg rows=500 --arg cols=600" ;;
  esac
}
# The references, once: one process with cpu:8 and with the GPU's 8 devices.
i=0
for name in "${names[@]}"; do
  dir="$src/tests/${name%%/*}"; file="${name#*/}.spmd"; i=$((i + 1))
  (cd "$dir" && timeout 300 "$bin" --devices cpu:8 $(extra $name) "$file") >"$tmp/cpu.$i" 2>/dev/null
  echo $? >"$tmp/cpu.$i.rc"
  (cd "$dir" && timeout 300 "$bin" $(dev 8) $(extra $name) "$file") >"$tmp/ref.$i" 2>"$tmp/ref.$i.err"
  echo $? >"$tmp/ref.$i.rc"
done

# runcase LABEL WANT P K ENV...: every program under `env ENV... mpirun -np P --devices
# cuda:K`; WANT is what --stats must say after "across processes: ".
runcase() {
  local label=$1 want=$2 P=$3 K=$4; shift 4
  local envs=("$@") name i=0
  for name in "${names[@]}"; do
    local dir="$src/tests/${name%%/*}" file="${name#*/}.spmd"
    i=$((i + 1))
    local r0 r1 r2; r0=$(cat "$tmp/cpu.$i.rc"); r1=$(cat "$tmp/ref.$i.rc")
    (cd "$dir" && env "${envs[@]}" timeout 300 "${mpi[@]}" -np $P "$bin" $(dev $K) $(extra $name) "$file") \
      >"$tmp/got" 2>"$tmp/got.err"; r2=$?
    if [ $r1 -ne $r2 ] || ! cmp -s "$tmp/ref.$i" "$tmp/got" || [ "$(errlines "$tmp/ref.$i.err")" != "$(errlines "$tmp/got.err")" ]; then
      fail "$name $label: exit $r2, one process with 8 devices exit $r1"
      diff "$tmp/ref.$i" "$tmp/got" | head -6; head -4 "$tmp/got.err"
    elif [ $r0 -ne $r2 ] || ! msg=$("$py" "$src/tests/gpu/compare.py" "$tmp/got" "$tmp/cpu.$i"); then
      fail "$name $label: against cpu:8 (exit $r0): ${msg:-}"
    else
      pass=$((pass + 1))
    fi
  done
  # The path this case took, and the bytes that crossed processes, from --stats (rank 0's
  # standard error) of a program whose groups span the ranks.
  (cd "$src/tests/mpi" && env "${envs[@]}" timeout 300 "${mpi[@]}" -np $P "$bin" $(dev $K) --stats \
      $(extra mpi/spanning) spanning.spmd) >/dev/null 2>"$tmp/stats"
  echo "$label (-np $P $(dev $K | sed "s/--devices //") ${envs[*]}): ${#names[@]} programs"
  grep -E '^devices:|^across processes:|^(psum|all_gather|ppermute|all_to_all|psum_scatter) ' "$tmp/stats" | sed 's/^/    /'
  # The path must be the one this case is for (CPU devices in split mode have none).
  if [ "$mode" != split ] && ! grep -q "^across processes: $want" "$tmp/stats"; then
    fail "$label: --stats does not say 'across processes: $want'"; head -3 "$tmp/stats"
  fi
}
runcase nccl1 "NCCL [0-9.]* (one GPU per rank)" 1 8 SPMD_MPI_ALL_GROUPS=1
runcase host2 "MPI through pinned host buffers (ranks 0 and 1 share GPU" 2 4 SPMD_MPI_ALL_GROUPS=0
runcase host2all "MPI through pinned host buffers (ranks 0 and 1 share GPU" 2 4 SPMD_MPI_ALL_GROUPS=1
runcase host1 "MPI through pinned host buffers (SPMD_NCCL=0)" 1 8 SPMD_MPI_ALL_GROUPS=1 SPMD_NCCL=0
echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
