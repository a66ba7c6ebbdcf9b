#!/usr/bin/env bash
# Usage: run.sh SPMDRUN [NAME...]: runs each probe NAME.spmd with 8 CPU devices (or N, from
# a '# devices: cpu:N' line) and its JAX twin NAME.py (JAX in /tmp/jaxenv) with as many
# host devices, and prints "same NAME" or the diff.
set -u
bin=$(realpath "$1"); shift
cd "$(dirname "$0")"
names=${*:-$(ls *.py | grep -v -e common.py -e errsweep.py -e condfuzz.py | sed 's/\.py$//')}
for n in $names; do
  dev=$(sed -n 's/^# devices: cpu://p' "$n.spmd" | head -1); dev=${dev:-8}
  s=$("$bin" --devices cpu:$dev "$n.spmd" 2>&1)
  j=$(XLA_FLAGS=--xla_force_host_platform_device_count=$dev /tmp/jaxenv/bin/python "$n.py" 2>/dev/null)
  if [ "$s" == "$j" ]; then echo "same $n"; else echo "DIFF $n"; diff <(echo "$s") <(echo "$j"); fi
done
