#!/usr/bin/env bash
# Usage: vector_code.sh SPMDRUN SPEC_DIR. The vmapped body of pool_map.spmd (a sum of
# sin over a fused loop) compiles, after optimisation, to vector arithmetic: <8 x float>
# or wider fma in the kernel and no sin left as a call, neither libm's sinf nor the
# llvm.sin intrinsic (which the backend would split into one sinf call per lane).
set -u
bin=$1; spec=$2
ll=$("$bin" --devices cpu:8 --dump=llvm --no-run "$spec/pool_map.spmd") || { echo "--dump=llvm failed"; exit 1; }
grep -qE '@llvm\.fma\.v(8|16)f32' <<<"$ll" || { echo "no <8 x float> or wider fma in the kernel"; exit 1; }
if grep -qE 'call [^@]*@(sinf|llvm\.sin\.)' <<<"$ll"; then echo "sin is still a call"; exit 1; fi
echo ok
