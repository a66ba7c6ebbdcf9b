#!/usr/bin/env bash
# Usage: check.sh SPMDRUN ROOT MODE [ARGS]. Runs under mpirun (label mpi; exits 77, saying
# why, where there is no mpirun).
#   programs P K [NAME...]  every spec example (tests/spec), the goldens that run pmaps and
#                           tests/mpi/spanning.spmd (or the NAMEs given: spec/x, golden/y,
#                           mpi/z): `mpirun -np P spmdrun --devices cpu:K` must print the
#                           same standard output, the same error lines and exit with the
#                           same code as one process with cpu:P*K.
#   faults                  a rank stopped (SIGSTOP) before a collective and a rank killed
#                           (SIGKILL) mid-run end every process within the timeout; a
#                           device error on one rank ends every rank with the single-process
#                           message; different --arg, --devices or scripts stop at start-up.
#   stats                   a sharded chain across ranks moves no bytes through rank 0
#                           until the final read (--stats).
#   nogpu                   --devices cuda:K under mpirun on a machine without a GPU: the
#                           "no usable CUDA GPU" error and exit 1, in bounded time (skipped,
#                           77, where a CUDA driver is installed: tests/gpu/verify.sh runs
#                           GPUs under mpirun there).
#   interrupt               Ctrl-C: SIGINT to mpirun ends the job (mpirun's own doing); to
#                           one rank, stopped at a host poll point or inside a launch, or
#                           to every rank: the job ends long before --collective-timeout
#                           (60 s), with exit code 130.
set -u
bin=$(realpath "$1"); root=$(realpath "$2"); mode=$3; shift 3
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
mpi=(mpirun --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Open MPI's session directory under our own TMPDIR: two mpiruns started at once (ctest -j)
# race to create the same one in /tmp.
export TMPDIR=$tmp
fail=0
bad() { echo "FAIL $*"; fail=1; }

# What must agree: standard output, the error lines, the exit code.
errlines() { grep -E '^error:|: error:' "$1" | grep -v '^error: rank [0-9]*: ' || true; }

# Arguments for spanning.spmd: an outer axis a and an inner c that divide P*K.
spanargs() {
  case $1 in
    12) echo "--arg a=2 --arg c=2" ;; 8) echo "--arg a=2 --arg c=2" ;; 6) echo "--arg a=2 --arg c=3" ;;
    4) echo "--arg a=2 --arg c=1" ;; 3) echo "--arg a=1 --arg c=3" ;; 2) echo "--arg a=2 --arg c=1" ;;
    *) echo "--arg a=1 --arg c=1" ;;
  esac
}

programs() {
  local P=$1 K=$2; shift 2
  local N=$((P * K)) names=("$@")
  if [ ${#names[@]} -eq 0 ]; then
    for f in "$root"/tests/spec/*.spmd; do names+=("spec/$(basename "${f%.spmd}")"); done
    # The goldens that run pmaps (the others never touch a device).
    for g in collectives all_to_all bool_reductions random_maps pmap_loop_grad pmap_deep empty_axes shapes \
             shard_map_compose shard_map_keys shard_map_mesh; do
      names+=("golden/$g")
    done
    names+=(mpi/spanning mpi/inplace)
  fi
  local n=0
  for name in "${names[@]}"; do
    local dir="$root/tests/${name%%/*}" file="${name#*/}.spmd" extra=()
    [ "$name" = mpi/spanning ] && extra=($(spanargs $N))
    [ "$name" = spec/random_matmul ] && extra=(--arg rows=500 --arg cols=600)  # as its .check
    (cd "$dir" && timeout 300 "$bin" --devices cpu:$N "${extra[@]}" "$file" >"$tmp/ref.out" 2>"$tmp/ref.err"); local r1=$?
    (cd "$dir" && timeout 300 "${mpi[@]}" -np $P "$bin" --devices cpu:$K "${extra[@]}" "$file" >"$tmp/got.out" 2>"$tmp/got.err"); local r2=$?
    n=$((n + 1))
    if [ $r1 -ne $r2 ] || ! cmp -s "$tmp/ref.out" "$tmp/got.out" || [ "$(errlines "$tmp/ref.err")" != "$(errlines "$tmp/got.err")" ]; then
      bad "$name: -np $P cpu:$K (exit $r2) differs from cpu:$N (exit $r1):"
      diff "$tmp/ref.out" "$tmp/got.out" | head -8
      diff <(errlines "$tmp/ref.err") <(errlines "$tmp/got.err") | head -4
      head -5 "$tmp/got.err"
    fi
  done
  echo "$n programs: -np $P cpu:$K against cpu:$N"
}

# Starts `mpirun -np P` on spmdrun ARGS in the background; each rank writes its pid to
# $tmp/pid.RANK (the shell execs spmdrun, so the pid is spmdrun's).
launch() {
  local P=$1; shift
  rm -f "$tmp"/pid.*
  "${mpi[@]}" -np $P sh -c 'echo $$ > '"$tmp"'/pid.$OMPI_COMM_WORLD_RANK; exec "$0" "$@"' "$bin" "$@" \
    >"$tmp/out" 2>"$tmp/err" &
  job=$!
  for _ in $(seq 100); do [ -f "$tmp/pid.$((P - 1))" ] && break; sleep 0.1; done
}
# Waits for the job at most $1 seconds; sets rc (124 when it had to be killed).
finish() {
  local t=0
  while kill -0 $job 2>/dev/null && [ $t -lt $(($1 * 10)) ]; do sleep 0.1; t=$((t + 1)); done
  if kill -0 $job 2>/dev/null; then kill -9 $job; rc=124; else wait $job; rc=$?; fi
  for p in "$tmp"/pid.*; do kill -CONT "$(cat "$p")" 2>/dev/null; done
  secs=$(awk "BEGIN{print $t/10}")
}

faults() {
  cd "$root/tests/mpi"
  local long=long_loop.spmd
  # A rank that stops before a collective: the others give up after the timeout (2 s).
  launch 3 --devices cpu:2 --collective-timeout 2 "$long"
  sleep 1.5
  kill -STOP "$(cat "$tmp/pid.1")"
  finish 20
  if [ $rc -ne 1 ] || ! grep -qE "^error: rank [02]: .*pmap i @ long_loop.spmd:4:7: waited 2 s for (rank 1|the other ranks)" "$tmp/err"; then
    bad "stopped rank: exit $rc after $secs s"; head -5 "$tmp/err"
  else echo "stopped rank: every rank ended in $secs s: $(grep -m1 '^error' "$tmp/err")"; fi
  # A rank killed mid-run: every process ends (mpirun sees the death; or the timeout).
  launch 2 --devices cpu:2 --collective-timeout 3 "$long"
  sleep 1.5
  kill -9 "$(cat "$tmp/pid.1")"
  finish 20
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -qE "exited on signal 9|waited 3 s for rank 1" "$tmp/err"; then
    bad "killed rank: exit $rc after $secs s"; head -5 "$tmp/err"
  else echo "killed rank: every rank ended in $secs s (exit $rc)"; fi
  for p in "$tmp"/pid.*; do  # gone, or a zombie about to be reaped
    local st; st=$(ps -o stat= -p "$(cat "$p")" 2>/dev/null)
    [ -z "$st" ] || [[ $st == Z* ]] || bad "rank ${p##*.} still runs ($st)"
  done
  # A device error on one rank: the single-process message, once, and exit 1 everywhere.
  local e=device_error.spmd
  "$bin" --devices cpu:6 "$e" >"$tmp/ref.out" 2>"$tmp/ref.err"
  for pk in "2 3" "3 2" "6 1"; do
    set -- $pk
    "${mpi[@]}" -np $1 "$bin" --devices cpu:$2 "$e" >"$tmp/got.out" 2>"$tmp/got.err"; rc=$?
    if [ $rc -ne 1 ] || ! cmp -s "$tmp/ref.out" "$tmp/got.out" || [ "$(errlines "$tmp/got.err")" != "$(errlines "$tmp/ref.err")" ]; then
      bad "device error, -np $1 cpu:$2: exit $rc"; cat "$tmp/got.err" | head -5
    fi
  done
  echo "device error: $(errlines "$tmp/got.err")"
  # Ranks started differently stop at start-up, naming the difference.
  local s=spanning.spmd
  "${mpi[@]}" -np 2 sh -c 'exec "$0" --devices cpu:2 --arg a=$((OMPI_COMM_WORLD_RANK + 1)) "$1"' "$bin" "$s" \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
  grep -q "^error: the ranks were started differently: --arg is 'a=1' on rank 0 but 'a=2' on rank 1" "$tmp/err" && [ $rc -eq 1 ] &&
    [ ! -s "$tmp/out" ] || { bad "mismatched --arg: exit $rc"; head -3 "$tmp/err"; }
  "${mpi[@]}" -np 2 sh -c 'exec "$0" --devices cpu:$((OMPI_COMM_WORLD_RANK + 1)) "$1"' "$bin" "$s" \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
  grep -q "^error: the ranks were started differently: --devices is 'cpu:1' on rank 0 but 'cpu:2' on rank 1" "$tmp/err" &&
    [ $rc -eq 1 ] || { bad "mismatched --devices: exit $rc"; head -3 "$tmp/err"; }
  echo "mismatched start: $(grep -m1 '^error' "$tmp/err")"
  # Misuse every rank finds (an --arg the script never reads: Note [Arguments nobody
  # reads] in cli/Driver.cpp), or one rank only, before MPI starts (a malformed setting in
  # its environment): exit 2 for the job, the message once, no output, in bounded time.
  local t0=$SECONDS
  timeout 60 "${mpi[@]}" -np 2 "$bin" --devices cpu:2 --arg b=2 "$s" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
    [ "$(grep -c "^spmdrun: --arg b=2: the script never reads an argument of that name (it reads a, c)" "$tmp/err")" = 1 ] ||
    { bad "unread --arg under mpirun: exit $rc after $((SECONDS - t0)) s"; head -3 "$tmp/err"; }
  t0=$SECONDS
  timeout 60 "${mpi[@]}" -np 2 sh -c '[ $OMPI_COMM_WORLD_RANK = 1 ] && export SPMD_MEMORY_LIMIT=12abc; exec "$0" --devices cpu:2 "$1"' \
    "$bin" "$s" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "^spmdrun: SPMD_MEMORY_LIMIT='12abc' in the environment" "$tmp/err" ||
    { bad "a bad setting on one rank: exit $rc after $((SECONDS - t0)) s"; head -3 "$tmp/err"; }
  echo "misuse under mpirun: exit 2 in $((SECONDS - t0)) s"
}

stats() {
  # chain.spmd: x goes in, y = f(x) stays sharded, z = g(y) reads y in place, sum(z)
  # reads z: the only bytes across processes are the collectives' and z's final read.
  local got
  got=$(cd "$root/tests/stats" && "${mpi[@]}" -np 4 "$bin" --devices cpu:2 --stats chain.spmd 2>&1 >/dev/null)
  grep -q "host -> device: 256.0 KiB   device -> host: 256.0 KiB" <<<"$got" &&
    grep -q "host reads of sharded results: 1, 786432 bytes across processes (196608 of them into rank 0)" <<<"$got" &&
    grep -qE "^pmap i @ chain.spmd:4:9 +1 .* 0 B +0 B +256.0 KiB" <<<"$got" ||
    { bad "chain --stats:"; echo "$got" | tail -8; }
  echo "$got" | tail -4
}

interrupt() {
  cd "$root/tests"
  local bound=20  # seconds; each case took about 1 s unloaded, the collective timeout is 60
  # SIGINT to mpirun (what Ctrl-C in a terminal does: the ranks are in process groups of
  # their own): Open MPI ends every rank (SIGTERM, then SIGKILL) and exits non-zero.
  launch 2 --devices cpu:2 --arg steps=2000000000 mpi/long_loop.spmd
  sleep 1.5
  kill -INT $job
  finish $bound
  if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then bad "SIGINT to mpirun: exit $rc after $secs s"; head -3 "$tmp/err"
  else echo "SIGINT to mpirun: the job ended in $secs s (exit $rc)"; fi
  # SIGINT to ranks: a loop of launches (host poll points and launches) and a loop inside
  # one launch (device poll points); rank 1 alone, then every rank.
  local prog who pids
  for prog in mpi/long_loop.spmd interrupt/pmap_loop.spmd; do
    for who in 1 all; do
      local steps=(); [ "$prog" = mpi/long_loop.spmd ] && steps=(--arg steps=2000000000)
      launch 2 --devices cpu:2 "${steps[@]}" "$prog"
      for _ in $(seq 600); do grep -q running "$tmp/out" 2>/dev/null && break; [ "$prog" = mpi/long_loop.spmd ] && break; sleep 0.1; done
      sleep 1.5
      if [ $who = all ]; then pids=$(cat "$tmp"/pid.*); else pids=$(cat "$tmp/pid.1"); fi
      local whom="rank 1"; [ $who = all ] && whom="every rank"
      kill -INT $pids
      finish $bound
      if [ $rc -ne 130 ]; then bad "SIGINT to $whom of $prog: exit $rc after $secs s"; head -5 "$tmp/err"
      else echo "SIGINT to $whom of $prog: exit 130 in $secs s"; fi
      for p in "$tmp"/pid.*; do
        local st; st=$(ps -o stat= -p "$(cat "$p")" 2>/dev/null)
        [ -z "$st" ] || [[ $st == Z* ]] || bad "rank ${p##*.} still runs ($st)"
      done
    done
  done
}

nogpu() {
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    echo "SKIP: a CUDA driver is installed (tests/gpu/verify.sh covers GPUs under mpirun)"; exit 77
  fi
  cd "$root/tests/golden"
  local P dev t0 t1
  for P in 1 2 3; do
    for dev in cuda:4 cuda; do
      t0=$(date +%s)
      timeout 60 "${mpi[@]}" -np $P "$bin" --devices $dev collectives.spmd >"$tmp/out" 2>"$tmp/err"; rc=$?
      t1=$(date +%s)
      if [ $rc -ne 1 ] || [ -s "$tmp/out" ] ||
         ! grep -q "^error: no usable CUDA GPU (.*); run with --devices cpu or --devices cpu:N" "$tmp/err"; then
        bad "-np $P --devices $dev without a GPU: exit $rc after $((t1 - t0)) s"; head -3 "$tmp/err"
      fi
    done
  done
  echo "no GPU: $(grep -m1 '^error' "$tmp/err")"
}

case $mode in
  programs) programs "$@" ;;
  nogpu) nogpu ;;
  interrupt) interrupt ;;
  faults) faults ;;
  stats) stats ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
[ $fail -eq 0 ] && echo ok
exit $fail
