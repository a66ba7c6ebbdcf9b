#!/usr/bin/env bash
# Usage: vector_code.sh SPMDRUN SPEC_DIR [STATS_DIR]. The vmapped body of pool_map.spmd (a
# sum of sin over a fused loop) compiles, after optimisation, to vector arithmetic: <8 x
# float> or wider fma in the kernel and no sin left as a call, neither libm's sinf nor the
# llvm.sin intrinsic (which the backend would split into one sinf call per lane).
# tests/stats/donate.spmd's `x / psum(sum(x), i)` (x times the reciprocal, as XLA does
# it), whose output is written over x (Note [Buffer donation]), runs with vectors only:
# no scalar fallback loop, which LLVM's run-time overlap check would pick for an output
# written over its input (Note [Parallel loops] in compiler/codegen/EmitElementwise.cpp).
# bench/rule30.spmd's stencil reads its halo concatenate without a copy of it (no buffer
# allocated in the kernel) in a vectorised loop (Note [Fused concatenate], same file).
# tests/golden/trig_slow_parts.spmd compiles in parts that each call the slow paths of sin,
# cos and tan: every slow path is defined once, not once per part (Note [Slow paths apart]
# in compiler/codegen/Jit.cpp).
set -u
bin=$1; spec=$2
ll=$("$bin" --devices cpu:8 --dump=llvm --no-run "$spec/pool_map.spmd") || { echo "--dump=llvm failed"; exit 1; }
grep -qE '@llvm\.fma\.v(8|16)f32' <<<"$ll" || { echo "no <8 x float> or wider fma in the kernel"; exit 1; }
if grep -qE 'call [^@]*@(sinf|llvm\.sin\.)' <<<"$ll"; then echo "sin is still a call"; exit 1; fi
if [ $# -ge 3 ]; then
  ll=$("$bin" --devices cpu:8 --dump=llvm --no-run "$3/donate.spmd") || { echo "--dump=llvm of donate.spmd failed"; exit 1; }
  # ( [a-z]+)*: any fast-math flags LLVM may print.
  grep -qE '(fdiv|fmul)( [a-z]+)* <(8|16) x float>' <<<"$ll" || { echo "donate.spmd: no vector division"; exit 1; }
  if grep -qE 'fmul( [a-z]+)* float |fdiv( [a-z]+)* float %' <<<"$ll"; then
    echo "donate.spmd: a scalar division is left (a fallback loop)"; exit 1
  fi
fi
bench=$(dirname "$0")/../../bench
ll=$("$bin" --devices cpu:8 --dump=llvm --no-run "$bench/rule30.spmd") || { echo "--dump=llvm of rule30 failed"; exit 1; }
kernel=$(sed -n '/^define void @pmap/,/^}/p' <<<"$ll")
if grep -q 'spmd_dev_alloc' <<<"$kernel"; then echo "rule30: the concatenate is materialised"; exit 1; fi
grep -qE 'xor <(16|32|64) x i(1|8)>' <<<"$kernel" || { echo "rule30: the stencil is not vectorised"; exit 1; }
ll=$("$bin" --devices cpu:8 --dump=llvm --no-run "$(dirname "$0")/trig_slow_parts.spmd") || { echo "--dump=llvm of trig_slow_parts failed"; exit 1; }
grep -q '^; part 2 of' <<<"$ll" || { echo "trig_slow_parts: not split in parts"; exit 1; }
defs=$(grep -oE '^define [^@]*@spmd\.vecmath\.[a-z0-9.]+\.slow\(' <<<"$ll" | sed 's/.*@//' | sort)
[ "$(wc -l <<<"$defs")" -ge 6 ] || { echo "trig_slow_parts: slow paths missing:"; echo "$defs"; exit 1; }
dups=$(uniq -d <<<"$defs")
[ -z "$dups" ] || { echo "trig_slow_parts: slow paths defined in more than one part:"; echo "$dups"; exit 1; }
echo ok
