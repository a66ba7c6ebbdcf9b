#!/usr/bin/env bash
# Ctrl-C in the REPL (driven through a pipe): SIGINT during a long input stops it, prints
# "interrupted" and the REPL goes on with its session intact: bindings made before work,
# a var assigned in the stopped input keeps its old value (the input did not complete),
# the devices run the next pmap. Then end of input exits 0 (an interrupted input is not a
# failed one). Two loops: one at top level, one inside a pmap with a psum.
# Usage: repl.sh SPMDRUN
set -u
set -m  # job control: without it the background REPL would start with SIGINT ignored
bin=$1
tmp=$(mktemp -d)
exec 3>/dev/null
trap 'exec 3>&-; [ -n "${pid:-}" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
now() { date +%s%N; }

mkfifo "$tmp/in"
"$bin" --devices cpu:4 <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"

# waitfor FILE COUNT TEXT: until FILE has COUNT lines equal to TEXT (up to 120 s).
waitfor() {
  for _ in $(seq 12000); do
    [ "$(grep -cx "$3" "$1")" -ge "$2" ] && return 0
    kill -0 $pid 2>/dev/null || break
    sleep 0.01
  done
  bad "no '$3' (#$2) in $1"; echo "stdout:"; cat "$tmp/out"; echo "stderr:"; cat "$tmp/err"
  exit 1
}

# stop N: SIGINT, then the Nth "interrupted" on stderr; prints the time it took.
stop() {
  local t0; t0=$(now)
  kill -INT $pid
  waitfor "$tmp/err" "$1" interrupted
  echo "interrupt $1: 'interrupted' ${2:-} $(( ($(now) - t0) / 1000000 )) ms after SIGINT"
}

printf 'let a = 41\nvar v = 1\nprint("ready")\n' >&3
waitfor "$tmp/out" 1 ready
printf 'for t in 0..2000000000 {\n  v = v + 1\n  if t == 0 { print("running") }\n}\n' >&3
waitfor "$tmp/out" 1 running
sleep 0.2
stop 1 "(host loop)"
printf 'print(a + 1)\nprint(v)\n' >&3
printf 'var y = arange(4.0)\nprint("running")\n' >&3
printf 'y = pmap i (s in y) {\n  var x = s\n  for t in 0..2000000000 { x = psum(x, i) * 0.25 + 1.0 }\n  x\n}\n' >&3
waitfor "$tmp/out" 2 running
sleep 0.3
stop 2 "(pmap loop)"
printf 'print(y)\nprint(pmap i (s in y) { psum(s, i) })\nprint(a)\n' >&3
exec 3>&-
for _ in $(seq 6000); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
if kill -0 $pid 2>/dev/null; then bad "the REPL did not end at end of input"; kill -9 $pid; fi
wait $pid; rc=$?; pid=

want_out='ready
running
42
1
running
[0. 1. 2. 3.]
[6. 6. 6. 6.]
41'
want_err='interrupted
interrupted'
[ "$(cat "$tmp/out")" = "$want_out" ] || { bad "stdout:"; diff <(echo "$want_out") "$tmp/out"; }
[ "$(cat "$tmp/err")" = "$want_err" ] || { bad "stderr:"; cat "$tmp/err"; }
[ $rc -eq 0 ] || bad "exit code $rc at end of input, expected 0"
[ $fail -eq 0 ] && echo ok
exit $fail
