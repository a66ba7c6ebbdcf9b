#!/usr/bin/env bash
# Usage: run.sh SPMDRUN FILE.spmd          compare FILE's IR dump with FILE.ir
#        run.sh --update SPMDRUN FILE...   rewrite each FILE.ir from the current compiler
# A transform test is a .spmd program whose header names the passes to dump after
# ('# dump-after: vmap' or '# dump-after: lower,vmap'; optional '# devices: SPEC', default
# cpu:8). The expected text is `spmdrun --dump-after=PASSES --no-run FILE` verbatim, in
# FILE.ir beside it; any change to that IR fails the test with a diff (tests/transforms/README.md).
set -u
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
[ $# -ge 2 ] || { echo "usage: $0 [--update] SPMDRUN FILE.spmd..." >&2; exit 2; }
bin=$1; shift
case $bin in */*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;; esac  # we cd below
fail=0
for f in "$@"; do
  passes=$(sed -n 's/^# dump-after: //p' "$f" | head -1)
  [ -n "$passes" ] || { echo "$f: no '# dump-after: PASSES' line"; fail=1; continue; }
  dev=$(sed -n 's/^# devices: //p' "$f" | head -1); dev=${dev:-cpu:8}
  got=$(cd "$(dirname "$f")" && "$bin" --devices "$dev" --dump-after="$passes" --no-run "$(basename "$f")" 2>&1)
  code=$?
  [ $code -eq 0 ] || { echo "$f: exit code $code"; echo "$got"; fail=1; continue; }
  want=${f%.spmd}.ir
  if [ $update -eq 1 ]; then
    printf '%s\n' "$got" > "$want"
    echo "wrote $want"
    continue
  fi
  [ -f "$want" ] || { echo "$f: no $want (write it with: $0 --update $bin $f)"; fail=1; continue; }
  if ! diff -u "$want" <(printf '%s\n' "$got"); then
    echo "$f: the IR after '$passes' changed (diff above: - expected, + now). If the change is"
    echo "intended, review it and regenerate: $0 --update $bin $f"
    fail=1
  fi
done
[ $fail -eq 0 ] && [ $update -eq 0 ] && echo ok
exit $fail
