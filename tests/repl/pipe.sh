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
# Commands that take nothing refuse extra words (`:quit now` does not quit), and :ir of a
# function value (a builtin, a lambda) says to show a call instead of an empty program.
printf ':devices x\n:help me\n:quit now\n:ir print\n:llvm fn(x) = x\nprint(1)\n:quit\nprint(2)\n' |
  "$spmdrun" --devices cpu:2 > "$out" 2>&1; rc=$?
cat > "$out.want" <<'EOF2'
error: :devices takes no argument, got 'x'
error: :help takes no argument, got 'me'
error: :quit takes no argument, got 'now'
error: 'print' is a builtin function, whose code exists only at the types of a call: show a call instead, e.g. :ir print(x)
error: 'fn(x) = x' is a function, whose code exists only at the types of a call: show a call instead, e.g. :llvm (fn(x) = x)(x)
1
EOF2
diff -u "$out.want" "$out" || { echo "FAIL: extra words after a command, :ir of a builtin"; rm -f "$out.want"; exit 1; }
rm -f "$out.want"
[ "$rc" -eq 1 ] || { echo "FAIL: extra words after a command: exit code $rc, expected 1"; exit 1; }
echo ok
