#!/bin/sh
# The tutorial cannot drift: every snippet in docs/tutorial/ (*.spmd run as a script,
# *.repl fed to the REPL through a pipe) must print exactly its .out file on 8 CPU
# devices, and docs/tutorial.md must show each snippet and output verbatim.
# A snippet's first line may be `# run: OPTIONS` (extra command-line options).
# Usage: tutorial.sh SPMDRUN SOURCE_DIR
spmdrun=$1; dir=$2/docs/tutorial
out=$(mktemp); trap 'rm -f "$out"' EXIT
fail=0
for f in "$dir"/*.spmd "$dir"/*.repl; do
  [ -e "$f" ] || continue
  base=${f%.*}
  case $f in
    *.repl) "$spmdrun" --devices cpu:8 < "$f" > "$out" 2>&1 ;;
    *) opts=$(head -n 1 "$f" | sed -n 's/^# run: //p')
       # shellcheck disable=SC2086
       "$spmdrun" --devices cpu:8 $opts "$f" > "$out" 2>&1 ;;
  esac
  rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL: $f exited with $rc"; cat "$out"; fail=1; continue; fi
  if ! diff -u "$base.out" "$out"; then echo "FAIL: $f: output differs from $base.out"; fail=1; fi
done
python3 "$dir/sync.py" --check || fail=1
[ $fail -eq 0 ] && echo ok
exit $fail
