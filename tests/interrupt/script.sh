#!/usr/bin/env bash
# Ctrl-C on a running script (cli/Interrupt.h, Note [Interrupts] in runtime/Runtime.h):
# SIGINT, sent once the run has started (it printed "running"), stops a for loop at host
# level, one inside a pmap over 4 devices with a psum per iteration (as a CPU kernel and,
# with --split-kernels, as a device program), and one whose every iteration is a long
# matmul, there with a second SIGINT that ends the process at once. Each must exit 130
# with "spmdrun: interrupted" and nothing else on stderr, within a bounded time (generous
# for a loaded CI machine; the measured time is printed). A process started with SIGINT
# ignored keeps running.
# Usage: script.sh SPMDRUN SOURCE_DIR
set -u
# Job control: a background job of a script without it starts with SIGINT ignored, which
# spmdrun then keeps ignoring (checked last).
set -m
bin=$1; dir=$2/tests/interrupt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
now() { date +%s%N; }

# start NAME ARGS...: runs spmdrun (stdin from $stdin, else none) in the background and waits (up to 120 s: compiling
# under a sanitizer on a loaded machine) for "running" on its stdout.
start() {
  name=$1; shift
  # Emptied here, not only by the redirection below: that runs in the child, which the
  # loop may overtake, and would then find the previous run's "running".
  : >"$tmp/out"; : >"$tmp/err"
  "$bin" "$@" <"${stdin:-/dev/null}" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1200); do
    grep -q running "$tmp/out" && return 0
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  bad "$name: never printed 'running'"; cat "$tmp/err"; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  return 1
}

# finish NAME LIMIT_S: waits for the process to end (killing it after LIMIT_S), then checks
# exit code 130, the message and no output after "running".
finish() {
  local name=$1 limit=$2 t0=$3 rc ms
  for _ in $(seq $((limit * 100))); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
  if kill -0 $pid 2>/dev/null; then
    kill -9 $pid; wait $pid 2>/dev/null; bad "$name: still running ${limit} s after SIGINT"; return
  fi
  wait $pid; rc=$?
  ms=$(( ($(now) - t0) / 1000000 ))
  if [ $rc -ne 130 ]; then bad "$name: exit code $rc, expected 130"; cat "$tmp/err"; return; fi
  if [ "$(cat "$tmp/err")" != "spmdrun: interrupted" ]; then bad "$name: stderr:"; cat "$tmp/err"; return; fi
  if [ "$(cat "$tmp/out")" != running ]; then bad "$name: stdout:"; cat "$tmp/out"; return; fi
  echo "$name: exit 130 ${ms} ms after SIGINT"
}

interrupt() {  # NAME ARGS...: one SIGINT, a moment after "running"
  local name=$1
  start "$@" || return
  sleep 0.3  # inside the loop (the pmap's launch polls too, should it come first)
  local t0; t0=$(now)
  kill -INT $pid
  finish "$name" 20 "$t0"
}

interrupt "host loop" --devices cpu:4 "$dir/host_loop.spmd"
interrupt "pmap loop" --devices cpu:4 "$dir/pmap_loop.spmd"
interrupt "pmap loop, device program" --devices cpu:4 --split-kernels "$dir/pmap_loop.spmd"
stdin=$dir/host_loop.spmd interrupt "script from stdin" --devices cpu:2 -

# A second SIGINT while the first waits for a long operation: the process ends at once.
if start "long op, SIGINT twice" --devices cpu:2 "$dir/long_op.spmd"; then
  sleep 0.3
  kill -INT $pid
  sleep 0.3
  kill -0 $pid 2>/dev/null && still="still running after the first" || still="ended after the first"
  t0=$(now)
  kill -INT $pid 2>/dev/null
  finish "long op, SIGINT twice ($still)" 10 "$t0"
fi

# SIGTERM (what kill, mpirun and service managers send) keeps its default action: the
# process ends at once, killed by the signal (exit 143 in a shell), whatever it is doing,
# with no handler to run and nothing printed.
for prog in host_loop pmap_loop long_op; do
  if start "SIGTERM, $prog" --devices cpu:4 "$dir/$prog.spmd"; then
    sleep 0.3
    kill -TERM $pid
    for _ in $(seq 1000); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
    if kill -0 $pid 2>/dev/null; then
      kill -9 $pid; bad "SIGTERM, $prog: still running 10 s after SIGTERM"
    fi
    wait $pid; rc=$?
    [ $rc -eq 143 ] || bad "SIGTERM, $prog: exit code $rc, expected 143"
    [ -s "$tmp/err" ] && { bad "SIGTERM, $prog: stderr:"; cat "$tmp/err"; }
  fi
done

# Started with SIGINT ignored (a background job without job control): it goes on.
set +m
if start "SIGINT ignored" --devices cpu:2 "$dir/host_loop.spmd"; then
  kill -INT $pid
  sleep 1
  if kill -0 $pid 2>/dev/null; then echo "SIGINT ignored: still running 1 s after SIGINT"
  else bad "started with SIGINT ignored, it stopped on SIGINT"; fi
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
fi

[ $fail -eq 0 ] && echo ok
exit $fail
