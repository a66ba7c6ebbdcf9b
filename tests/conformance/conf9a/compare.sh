#!/usr/bin/env bash
# Usage: compare.sh SPMDRUN [NAME...]. Runs each pNN_*.spmd here with 8 CPU devices and
# its JAX twin NAME.py (JAX 0.10.2 on the CPU, $JAXPY or /tmp/jaxenv/bin/python), and
# prints SAME or DIFF (with the diff, JAX's lines first) per program.
bin=$(realpath "$1"); shift
cd "$(dirname "$0")"
py=${JAXPY:-/tmp/jaxenv/bin/python}
names="$*"; [ -z "$names" ] && names=$(ls p*.spmd | sed 's/\.spmd$//')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in $names; do
  XLA_FLAGS=--xla_force_host_platform_device_count=8 "$py" -W ignore "$n.py" >"$tmp/want" 2>&1
  "$bin" --devices cpu:8 "$n.spmd" >"$tmp/got" 2>&1
  if cmp -s "$tmp/want" "$tmp/got"; then echo "SAME $n"; else echo "DIFF $n"; diff "$tmp/want" "$tmp/got"; fi
done
