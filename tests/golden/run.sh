#!/usr/bin/env bash
# Usage: run.sh SPMDRUN FILE.spmd. Runs FILE with 8 CPU devices (or the devices named
# on a '# devices: SPEC' line) and compares with FILE.out; or, when the file's first line
# is '# expect: LINE:COL: error: TEXT', checks that it fails with that diagnostic (or
# with '# expect-run: LINE:COL: TEXT', with that run-time error).
set -u
bin=$1; f=$2
dev=$(sed -n 's/^# devices: //p' "$f" | head -1); dev=${dev:-cpu:8}
want=$(sed -n '1s/^# expect: //p' "$f")
# '# expect-run: LINE:COL: TEXT': the program compiles but fails at run time with an
# error that names its source location ("error: FILE:LINE:COL: TEXT"), exit 1.
wantrun=$(sed -n '1s/^# expect-run: //p' "$f")
if [ -n "$wantrun" ]; then
  err=$("$bin" --devices "$dev" "$f" 2>&1 >/dev/null); code=$?
  [ $code -eq 1 ] || { echo "exit code $code, want 1"; echo "$err"; exit 1; }
  grep -F -- "error: " <<<"$err" | grep -qF -- "$(basename "$f"):$wantrun" || { echo "want '$wantrun', got:"; echo "$err"; exit 1; }
  echo ok; exit 0
fi
if [ -n "$want" ]; then
  err=$("$bin" --devices "$dev" "$f" 2>&1 >/dev/null); code=$?
  [ $code -eq 1 ] || { echo "exit code $code, want 1"; echo "$err"; exit 1; }
  pos=${want%%error:*}; text=${want#*error: }
  grep -F -- "$(basename "$f"):${pos}error:" <<<"$err" | grep -qiF -- "$text" || { echo "want '$want', got:"; echo "$err"; exit 1; }
  grep -q '^ *\^' <<<"$err" || { echo "no caret line"; exit 1; }
  echo ok; exit 0
fi
got=$(cd "$(dirname "$f")" && "$bin" --devices "$dev" "$(basename "$f")" 2>&1); code=$?
[ $code -eq 0 ] || { echo "exit code $code"; echo "$got"; exit 1; }
diff <(echo "$got") "${f%.spmd}.out" || exit 1
echo ok
