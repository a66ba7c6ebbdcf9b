#!/usr/bin/env bash
# Usage: many_defs.sh SPMDRUN. 4,000 function definitions through the REPL's pipe, then a
# call of the last: linear in the number of definitions (Note [REPL snapshots]), within
# 30 s (it took 89 s, each input copying every scope before it and compiling an empty
# module; now a second or two). A var declared before them and assigned after them is
# still rolled back by an input that fails.
set -u
bin=$1
in=$(python3 -c "
n = 4000
print('var v = 1.0')
print(''.join(f'fn g{i}(x) = x + {i}.0\n' for i in range(n)), end='')
print(f'g{n - 1}(1.0)')
print('v = 2.0; let bad = zeros([2]) + zeros([3])')
print('v')")
start=$(date +%s)
out=$(timeout 30 "$bin" --devices cpu:2 <<<"$in" 2>&1); code=$?
took=$(( $(date +%s) - start ))
[ $code -ne 124 ] || { echo "FAIL: 4,000 definitions took over 30 s"; exit 1; }
[ "$(grep -v 'error\|zeros\|\^' <<<"$out")" = $'4000.0\n1.0' ] || { echo "FAIL: got: $out"; exit 1; }
echo "ok ($took s)"
