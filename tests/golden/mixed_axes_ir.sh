#!/usr/bin/env bash
# Usage: mixed_axes_ir.sh SPMDRUN. The IR of collectives over tuples that mix a vmap axis
# with pmap axes (Note [Mixed axis tuples], compiler/transforms/BatchMixedAxes.cpp): each
# becomes a collective over the pmap axes alone, moving only what it must (no all_gather),
# plus local reshapes, transposes and selects; no vmap is left.
set -u
bin=$1; fail=0
ir() { printf '%s\n' "$1" | "$bin" --devices cpu:8 --dump=ir --no-run -; }
count() { grep -c -- "$1" <<<"$2"; }
check() {  # check WHAT IR PATTERN WANT
  local n; n=$(count "$3" "$2")
  [ "$n" -eq "$4" ] || { echo "$1: $n lines match '$3', want $4"; echo "$2"; fail=1; }
}
x='let x = reshape(arange(24.0), [2, 4, 3])'
# A shift by one over (j, i): the wrap-around within each i moves locally; two ppermutes
# over i carry the rest (one per distinct pattern of pairs over i).
d=$(ir "$x
print(pmap i (u in x) { vmap j (v in u) { ppermute(v, (j, i), [(k, (k + 1) % 8) for k in 0..8]) } })") || fail=1
check "ppermute (j, i)" "$d" '= ppermute\[axis_name=i ' 2
check "ppermute (j, i)" "$d" 'all_gather\|= vmap\[' 0
# Over (i, j) the same shift crosses devices only for the last example: one ppermute.
d=$(ir "$x
print(pmap i (u in x) { vmap j (v in u) { ppermute(v, (i, j), [(k, (k + 1) % 8) for k in 0..8]) } })") || fail=1
check "ppermute (i, j)" "$d" '= ppermute\[axis_name=i perm=((0, 1), (1, 0))\]' 1
check "ppermute (i, j)" "$d" 'ppermute' 1
# all_to_all and psum_scatter: one collective over the pmap axes of the tuple, in its order.
d=$(ir "let y = reshape(arange(128.0), [2, 2, 2, 8, 2])
print(pmap r (a in y) { pmap c (b in a) { vmap j (v in b) { all_to_all(v, (c, j, r), 0, 1) } } })
print(pmap r (a in y) { pmap c (b in a) { vmap j (v in b) { psum_scatter(v, (c, j, r)) } } })") || fail=1
flat=$(tr -s ' \n' ' ' <<<"$d")  # params printed over several lines, joined
check "all_to_all" "$flat" "= all_to_all\\[ axis_index_groups=None axis_name=('c', 'r') axis_size=4 concat_axis=0 split_axis=0 \\]" 1
check "psum_scatter" "$d" '= reduce_scatter\[' 1
check "psum_scatter" "$(grep -A2 '= reduce_scatter\[' <<<"$d")" "^ *axis_name=('c', 'r')$" 1
check "all_to_all, psum_scatter" "$d" 'all_gather\|= vmap\[' 0
[ $fail -eq 0 ] && echo ok
exit $fail
