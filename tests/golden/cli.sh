#!/usr/bin/env bash
# Usage: cli.sh SPMDRUN SPECDIR. Command-line misuse exits 2; --help and --version exit 0.
set -u
bin=$1; spec=$2; fail=0
expect() { local want=$1; shift; "$@" >/dev/null 2>&1; local got=$?; if [ $got -ne $want ]; then echo "exit $got, want $want: $*"; fail=1; fi; }
expect 0 "$bin" --help
expect 0 "$bin" --version
expect 2 "$bin" --no-such-flag "$spec/squares.spmd"
expect 2 "$bin" --dump=bogus --no-run "$spec/squares.spmd"
expect 2 "$bin" --devices gpu:3 "$spec/squares.spmd"
expect 2 "$bin" --arg noequals "$spec/squares.spmd"
expect 2 "$bin" /no/such/file.spmd
expect 1 "$bin" --devices cpu:8 "$spec/errors/unknown_name.spmd"
# --devices cuda runs where a GPU is usable; elsewhere it exits 1 and says why.
out=$(echo 'print(1 + 2)' | "$bin" --devices cuda - 2>&1); rc=$?
if [ $rc -ne 0 ] && { [ $rc -ne 1 ] || ! grep -q "no usable CUDA GPU" <<<"$out"; }; then
  echo "--devices cuda: exit $rc without a clear message: $out"; fail=1
fi
expect 0 "$bin" --devices cpu:8 --no-run --dump=ir "$spec/squares.spmd"
"$bin" --version | grep -q '^spmdrun ' || { echo "--version prints no version"; fail=1; }
echo 'print(1 + 2)' | "$bin" --devices cpu:2 - | grep -qx 3 || { echo "reading a script from stdin failed"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
