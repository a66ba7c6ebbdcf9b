#!/bin/sh
# The conformance goldens (tests/golden/conf9*.spmd, JAX's output in .out) fed to the REPL
# through a pipe, as `spmdrun < prog.spmd`: a script typed line by line must print what
# running the file prints (issue 14). Usage: goldens_pipe.sh SPMDRUN SOURCE_DIR
spmdrun=$1; src=$2
cd "$src/tests/golden" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
fail=0; n=0
for f in conf9*.spmd; do
  head -1 "$f" | grep -q '^# expect' && continue
  dev=$(sed -n 's/^# devices: //p' "$f" | head -1); dev=${dev:-cpu:8}
  timeout -k 10 300 "$spmdrun" --devices "$dev" < "$f" > "$out" 2>&1
  rc=$?
  n=$((n + 1))
  if [ "$rc" -ne 0 ] || ! diff -u "${f%.spmd}.out" "$out" > /dev/null; then
    echo "FAIL: $f through the REPL (exit $rc):"; diff -u "${f%.spmd}.out" "$out" | head -20
    fail=1
  fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no conf9 goldens found"; exit 1; }
[ "$fail" -eq 0 ] && echo "ok ($n programs)"
exit $fail
