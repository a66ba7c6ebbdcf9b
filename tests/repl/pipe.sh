#!/bin/sh
# Drives the REPL through a pipe (no prompt, no banner): definitions across lines, a
# multi-line block, errors followed by correct lines, :type of a pmap result and of a
# shard_map result over a mesh bound by name, :ir of a
# function, :load. Compares stdout+stderr with session.out; the exit code must be 1
# (an input failed).  Usage: pipe.sh SPMDRUN SOURCE_DIR
spmdrun=$1; src=$2
cd "$src" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$spmdrun" --devices cpu:8 < tests/repl/session.in > "$out" 2>&1
rc=$?
if ! diff -u tests/repl/session.out "$out"; then echo "FAIL: REPL output differs"; exit 1; fi
if [ "$rc" -ne 1 ]; then echo "FAIL: exit code $rc, expected 1 after failed inputs"; exit 1; fi
# A clean session exits 0, and nothing is re-run: the print runs once.
printf 'let a = arange(3)\nprint("once")\nlet b = a * 2\nb\n' | "$spmdrun" --devices cpu:2 > "$out" 2>&1 || { echo "FAIL: clean session exit code"; cat "$out"; exit 1; }
printf 'once\n[0 2 4]\n' | diff -u - "$out" || { echo "FAIL: clean session output"; exit 1; }
# :load of a directory says so (it used to load nothing, silently), and the session goes on.
printf ':load /\n:load /no/such/file.spmd\nprint(2)\n' | "$spmdrun" --devices cpu:2 > "$out" 2>&1; rc=$?
printf "error: cannot open '/': is a directory\nerror: cannot open '/no/such/file.spmd': No such file or directory\n2\n" | diff -u - "$out" || { echo "FAIL: :load of a directory"; exit 1; }
[ "$rc" -eq 1 ] || { echo "FAIL: :load of a directory: exit code $rc, expected 1"; exit 1; }
echo ok
