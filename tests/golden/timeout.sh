#!/usr/bin/env bash
# Usage: timeout.sh SPMDRUN. run.sh gives each golden run a time limit: a program that
# never ends fails its test within the limit, with a message that says so.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/forever.spmd" <<'P'
var x = 0.0
for a in 0..2000000000 { for b in 0..2000000000 { x = x + 1.0 } }
print(x)
P
echo "0.0" > "$tmp/forever.out"
start=$(date +%s)
out=$(GOLDEN_TIMEOUT=2 "$here/run.sh" "$bin" "$tmp/forever.spmd" 2>&1); code=$?
took=$(( $(date +%s) - start ))
[ $code -eq 1 ] || { echo "FAIL: run.sh exit $code, want 1: $out"; exit 1; }
grep -qF "forever.spmd did not finish within 2 seconds" <<<"$out" || { echo "FAIL: no time-limit message in: $out"; exit 1; }
[ $took -lt 30 ] || { echo "FAIL: run.sh took $took s with a 2 s limit"; exit 1; }
echo ok
