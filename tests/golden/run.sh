#!/usr/bin/env bash
# Usage: run.sh SPMDRUN FILE.spmd. Runs FILE with 8 CPU devices (or the devices named
# on a '# devices: SPEC' line) and compares with FILE.out; or, when the file's first line
# is '# expect: LINE:COL: error: TEXT', checks that it fails with that diagnostic (or
# with '# expect-run: LINE:COL: TEXT', with that run-time error). Each run has a time
# limit of $GOLDEN_TIMEOUT seconds (300 by default): a run that takes longer fails, saying so.
set -u
bin=$1; f=$2
limit=${GOLDEN_TIMEOUT:-300}
# spmd ARGS...: spmdrun under the time limit (exit 124 when killed for it); timed_out CODE
# fails the test, saying so, when the run was killed.
spmd() { timeout -k 10 "$limit" "$bin" "$@"; }
timed_out() {
  if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
    echo "FAIL: $(basename "$f") did not finish within $limit seconds (killed; GOLDEN_TIMEOUT sets the limit)"
    exit 1
  fi
}
dev=$(sed -n 's/^# devices: //p' "$f" | head -1); dev=${dev:-cpu:8}
# Note [Host-dependent goldens]: JAX's f32 sums of small 2-D slabs follow the vector width
# that XLA's LLVM picks for the CPU it runs on, and so do spmdrun's (vfTable in
# compiler/codegen/XlaSum.cpp): AVX-512 hosts and AVX2 hosts print other last digits for
# some shapes. The host's kind is avx512 or avx2 (SPMD_SUM_HOST, if set, overrides it, for
# spmdrun too). FILE.KIND.out, where it exists, is JAX's output on that kind of host and
# replaces FILE.out there; a '# host: KIND' line runs the file only on that kind (exit 77,
# a skip that says why, elsewhere), for outputs that JAX gave on one kind only.
kind=${SPMD_SUM_HOST:-$(grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo avx512 || echo avx2)}
only=$(sed -n 's/^# host: //p' "$f" | head -1)
if [ -n "$only" ] && [ "$only" != "$kind" ]; then
  echo "SKIP: $(basename "$f")'s expected output is JAX's on an $only host; this host is $kind"
  exit 77
fi
expected=${f%.spmd}.out
[ -f "${f%.spmd}.$kind.out" ] && expected=${f%.spmd}.$kind.out
want=$(sed -n '1s/^# expect: //p' "$f")
# '# expect-run: LINE:COL: TEXT': the program compiles but fails at run time with an
# error that names its source location ("error: FILE:LINE:COL: TEXT"), exit 1.
wantrun=$(sed -n '1s/^# expect-run: //p' "$f")
if [ -n "$wantrun" ]; then
  err=$(spmd --devices "$dev" "$f" 2>&1 >/dev/null); code=$?; timed_out $code
  [ $code -eq 1 ] || { echo "exit code $code, want 1"; echo "$err"; exit 1; }
  grep -F -- "error: " <<<"$err" | grep -qF -- "$(basename "$f"):$wantrun" || { echo "want '$wantrun', got:"; echo "$err"; exit 1; }
  echo ok; exit 0
fi
if [ -n "$want" ]; then
  err=$(spmd --devices "$dev" "$f" 2>&1 >/dev/null); code=$?; timed_out $code
  [ $code -eq 1 ] || { echo "exit code $code, want 1"; echo "$err"; exit 1; }
  pos=${want%%error:*}; text=${want#*error: }
  grep -F -- "$(basename "$f"):${pos}error:" <<<"$err" | grep -qiF -- "$text" || { echo "want '$want', got:"; echo "$err"; exit 1; }
  grep -q '^ *\^' <<<"$err" || { echo "no caret line"; exit 1; }
  echo ok; exit 0
fi
got=$(cd "$(dirname "$f")" && spmd --devices "$dev" "$(basename "$f")" 2>&1); code=$?; timed_out $code
[ $code -eq 0 ] || { echo "exit code $code"; echo "$got"; exit 1; }
diff <(echo "$got") "$expected" || exit 1
echo ok
