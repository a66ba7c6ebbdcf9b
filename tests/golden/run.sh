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
diff <(echo "$got") "${f%.spmd}.out" || exit 1
echo ok
