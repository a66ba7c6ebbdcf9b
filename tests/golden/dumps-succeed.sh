#!/usr/bin/env bash
# Usage: dumps-succeed.sh SPMDRUN FILE. The AST and IR dumps of FILE succeed, are not
# empty, and the IR dump has no vmap left (vmap is batched away before code generation).
set -u
bin=$1; f=$2
ast=$("$bin" --devices cpu:8 --dump=ast --no-run "$f") || { echo "--dump=ast failed"; exit 1; }
[ -n "$ast" ] || { echo "empty AST dump"; exit 1; }
grep -q '^Program' <<<"$ast" || { echo "AST dump does not start with Program"; exit 1; }
ir=$("$bin" --devices cpu:8 --dump=ir --no-run "$f") || { echo "--dump=ir failed"; exit 1; }
grep -q '{ lambda' <<<"$ir" || { echo "IR dump has no jaxpr"; exit 1; }
if grep -q '= vmap\[' <<<"$ir"; then echo "vmap left in the IR"; exit 1; fi
echo ok
