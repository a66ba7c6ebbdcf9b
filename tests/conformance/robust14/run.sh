#!/usr/bin/env bash
# Usage: run.sh SPMDRUN [NAME...]: runs each robust14 program and its JAX twin, prints
# "same NAME" or the diff. JAX: /tmp/jaxenv/bin/python, 8 host devices, x64 off.
bin=$(realpath "$1"); shift
cd "$(dirname "$0")"
names=${*:-$(ls *.spmd | sed 's/\.spmd$//')}
export XLA_FLAGS=--xla_force_host_platform_device_count=8
for n in $names; do
  s=$(timeout 120 "$bin" --devices cpu:8 "$n.spmd" 2>/tmp/r14_err_$n); sc=$?
  j=$(/tmp/jaxenv/bin/python "$n.py" 2>/dev/null); jc=$?
  if [ "$s" == "$j" ] && [ $sc -eq $jc ]; then echo "same $n"; else
    echo "DIFF $n (spmdrun exit $sc, JAX exit $jc)"; diff <(echo "$s") <(echo "$j") | head -20; head -c 600 /tmp/r14_err_$n; fi
done
