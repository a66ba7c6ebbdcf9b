#!/usr/bin/env bash
# Usage: run.sh SPMDRUN [NAME...]: runs each probe NAME.spmd with 8 CPU devices and its
# JAX twin NAME.py (JAX in /tmp/jaxenv), and prints "same NAME" or the diff.
set -u
bin=$(realpath "$1"); shift
cd "$(dirname "$0")"
names=${*:-$(ls *.py | grep -v common.py | sed 's/\.py$//')}
for n in $names; do
  s=$("$bin" --devices cpu:8 "$n.spmd" 2>&1)
  j=$(XLA_FLAGS=--xla_force_host_platform_device_count=8 /tmp/jaxenv/bin/python "$n.py" 2>/dev/null)
  if [ "$s" == "$j" ]; then echo "same $n"; else echo "DIFF $n"; diff <(echo "$s") <(echo "$j"); fi
done
