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
# --arg before the file takes one NAME=VALUE, not the file name as a second value.
printf 'print(arg("n", 3), arg("m", 1))\n' > "${TMPDIR:-/tmp}/spmd_cli_arg.spmd"
got=$("$bin" --devices cpu:1 --arg n=5 --arg m=2 "${TMPDIR:-/tmp}/spmd_cli_arg.spmd" 2>&1)
[ "$got" = "5 2" ] || { echo "--arg before the file: got '$got', want '5 2'"; fail=1; }
rm -f "${TMPDIR:-/tmp}/spmd_cli_arg.spmd"
# Misuse found before anything runs: a directory as the script, a trace file that cannot
# be written (the program must not have run).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expectMsg() {  # expectMsg EXIT TEXT cmd...: the exit code and a line of the output
  local want=$1 text=$2; shift 2
  local out; out=$("$@" 2>&1); local got=$?
  if [ $got -ne $want ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "exit $got (want $want), want '$text' in: $(head -c 300 <<<"$out"): $*"; fail=1
  fi
}
expectMsg 2 "spmdrun: cannot read '$tmp': is a directory" "$bin" --devices cpu:2 "$tmp"
printf 'print(42)\n' > "$tmp/p.spmd"
expectMsg 2 "cannot write the trace file '/no/such/dir/t.json'" "$bin" --devices cpu:2 --trace /no/such/dir/t.json "$tmp/p.spmd"
out=$("$bin" --devices cpu:2 --trace /no/such/dir/t.json "$tmp/p.spmd" 2>/dev/null)
[ -z "$out" ] || { echo "--trace to an unwritable path ran the program first: $out"; fail=1; }
expectMsg 2 "is a directory" "$bin" --devices cpu:2 --trace "$tmp" "$tmp/p.spmd"
expectMsg 0 "42" "$bin" --devices cpu:2 --trace "$tmp/t.json" "$tmp/p.spmd"
# --trace takes a file name: given the script instead, it stops and the script is untouched.
expectMsg 2 "the trace would be written over a script" "$bin" --devices cpu:2 --trace "$tmp/p.spmd" </dev/null
[ "$(cat "$tmp/p.spmd")" = "print(42)" ] || { echo "--trace SCRIPT overwrote the script"; fail=1; }
# `--trace -` is not standard output (the program's): misuse, and no file named '-'.
expectMsg 2 "spmdrun: --trace -: the trace is written to a file, not to standard output" \
  bash -c 'cd "$1" && exec "$2" --devices cpu:2 --trace - p.spmd' _ "$tmp" "$(realpath "$bin")"
[ ! -e "$tmp/-" ] || { echo "--trace - wrote a file named '-'"; fail=1; }
grep -q traceEvents "$tmp/t.json" || { echo "--trace wrote no trace"; fail=1; }
# Scripts that are not text, or empty: a clear diagnostic (or nothing to do), never a crash.
: > "$tmp/empty.spmd"
expectMsg 0 "" "$bin" --devices cpu:2 "$tmp/empty.spmd"
head -c 4096 "$bin" > "$tmp/binary.spmd"
expectMsg 1 "binary.spmd:1:" "$bin" --devices cpu:2 "$tmp/binary.spmd"
expectMsg 1 "error: unexpected NUL byte: this is not a text file" "$bin" --devices cpu:2 "$tmp/binary.spmd"
out=$("$bin" --devices cpu:2 "$tmp/binary.spmd" 2>&1)
# Raw bytes are control characters and invalid UTF-8 (Note [Showing a source line] shows
# them as '?'); a valid UTF-8 sequence is shown as it is, and the binary's header may hold
# one (the sanitizer build's does: 0xC9 0xB2).
if LC_ALL=C grep -q '[[:cntrl:]]' <<<"$(tr -d '\t' <<<"$out")" || ! iconv -f UTF-8 -t UTF-8 <<<"$out" >/dev/null 2>&1; then
  echo "the diagnostic of a binary file prints raw bytes"; fail=1
fi
printf 'let x = 1\nprint(x \xff)\n' > "$tmp/latin.spmd"
expectMsg 1 "latin.spmd:2:9: error: invalid UTF-8 byte 0xFF: a script must be UTF-8 text" "$bin" --devices cpu:2 "$tmp/latin.spmd"
printf 'print("caf\xe9")\n' > "$tmp/latin2.spmd"
expectMsg 1 "latin2.spmd:1:11: error: invalid UTF-8 byte 0xE9" "$bin" --devices cpu:2 "$tmp/latin2.spmd"
printf 'print(1)\x01\n' > "$tmp/control.spmd"
expectMsg 1 "control.spmd:1:9: error: unexpected control character U+0001" "$bin" --devices cpu:2 "$tmp/control.spmd"
printf 'print("caf\xc3\xa9", 1 + 2)\n' > "$tmp/utf8.spmd"
expectMsg 0 "café 3" "$bin" --devices cpu:2 "$tmp/utf8.spmd"
printf '\xef\xbb\xbfprint(7)\n' > "$tmp/bom.spmd"
expectMsg 0 "7" "$bin" --devices cpu:2 "$tmp/bom.spmd"
# Option values at the edges: misuse (exit 2) with a message, never the default in silence.
expectMsg 2 "--devices needs a value" "$bin" --devices "" "$tmp/p.spmd"
expectMsg 2 "--trace needs a file name" "$bin" --devices cpu:2 --trace "" "$tmp/p.spmd"
for v in nan inf -1 0 1x ""; do
  expectMsg 2 "--collective-timeout: must be a positive number of seconds, not '$v'" \
    "$bin" --devices cpu:2 --collective-timeout "$v" "$tmp/p.spmd"
done
expectMsg 0 "42" "$bin" --devices cpu:2 --collective-timeout 0.5 "$tmp/p.spmd"
# Outside mpirun it bounds nothing: a warning on stderr, the run unchanged (stdout, exit 0).
# (Note [A collective timeout in one process], cli/spmdrun.cpp.)
expectMsg 0 "spmdrun: warning: --collective-timeout has no effect outside mpirun" \
  "$bin" --devices cpu:2 --collective-timeout 0.5 "$tmp/p.spmd"
out=$("$bin" --devices cpu:2 --collective-timeout 0.5 "$tmp/p.spmd" 2>/dev/null)
[ "$out" = "42" ] || { echo "--collective-timeout outside mpirun: stdout '$out', want 42"; fail=1; }
out=$("$bin" --devices cpu:2 "$tmp/p.spmd" 2>&1)
[ "$out" = "42" ] || { echo "a plain run printed more than its output: '$out'"; fail=1; }
# --stats --no-run prints the compile phases that ran (to IR), and nothing of a run.
out=$("$bin" --devices cpu:2 --stats --no-run "$tmp/p.spmd" 2>&1); rc=$?
for phase in parse "axis check" lower vmap simplify; do
  grep -qE "^  $phase +[0-9.]+ ms$" <<<"$out" ||
    { echo "--stats --no-run: no '$phase' phase line (exit $rc): $out"; fail=1; }
done
if [ $rc -ne 0 ] || ! grep -qx "compile phases:" <<<"$out" || grep -qE "42|codegen|run  " <<<"$out"; then
  echo "--stats --no-run: exit $rc, want the compile phases only: $out"; fail=1
fi
for d in cpu:0 cpu:-1 cpu:100000 cpu:99999999999999999999 cpu: cpu:1x cpu:0x10 cuda:-1 cuda:0 " cpu:2"; do
  expect 2 "$bin" --devices "$d" "$tmp/p.spmd"
done
expect 2 "$bin" --devices cpu:2 --devices cpu:3 "$tmp/p.spmd"
expect 2 "$bin" --devices cpu:2 -O -1 "$tmp/p.spmd"
expect 2 "$bin" --devices cpu:2 -O 99999999999999999 "$tmp/p.spmd"
expect 2 "$bin" --devices cpu:2 "$tmp/p.spmd" "$tmp/p.spmd"
printf 'print(arg("n", 3))\n' > "$tmp/argn.spmd"
for v in "" abc 99999999999999999999999 1e400 nan "5 6" "[1,2]" true; do
  expectMsg 1 "error: --arg n=$v is not a valid static int" "$bin" --devices cpu:2 --arg "n=$v" "$tmp/argn.spmd"
done
expectMsg 0 "6" "$bin" --devices cpu:2 --arg n=5 --arg n=6 "$tmp/argn.spmd"
# An --arg the script never reads (Note [Arguments nobody reads] in cli/Driver.cpp) is
# misuse, exit 2, before anything runs; a name read only in a branch not taken or a
# function never called counts as read.
expectMsg 2 "spmdrun: --arg nn=5: the script never reads an argument of that name (it reads n)" \
  "$bin" --devices cpu:2 --arg nn=5 "$tmp/argn.spmd"
expectMsg 2 "spmdrun: --arg n=5: the script never reads an argument of that name (it calls no arg())" \
  "$bin" --devices cpu:2 --arg n=5 "$tmp/p.spmd"
expectMsg 2 "spmdrun: --arg a b=1, --arg x=: the script never reads arguments of those names (it reads n)" \
  "$bin" --devices cpu:2 --arg "a b=1" --arg x= --arg n=2 "$tmp/argn.spmd"
expectMsg 2 "the script never reads" "$bin" --devices cpu:2 --no-run --dump=ir --arg m=1 "$tmp/argn.spmd"
out=$("$bin" --devices cpu:2 --arg m=1 "$tmp/argn.spmd" 2>/dev/null)
[ -z "$out" ] || { echo "an unread --arg ran the program: $out"; fail=1; }
printf 'if arg("big", false) { print(arg("n", 3)) } else { print(0) }\nfn f() { arg(name="k", default=1) }\n' > "$tmp/argbranch.spmd"
expectMsg 0 "0" "$bin" --devices cpu:2 --arg n=5 --arg k=2 "$tmp/argbranch.spmd"
expectMsg 0 "5" "$bin" --devices cpu:2 --arg n=5 --arg k=2 --arg big=true "$tmp/argbranch.spmd"
# Settings in the environment (Note [Settings in the environment], runtime/settings/Settings.h): a
# malformed value is misuse, named with its value, never taken as unset in silence; an
# empty value is unset.
for v in 12abc abc -1 1e99 99999999999999999999 " 12" +5; do
  expectMsg 2 "spmdrun: SPMD_MEMORY_LIMIT='$v' in the environment: expected a whole number of bytes" \
    env SPMD_MEMORY_LIMIT="$v" "$bin" --devices cpu:2 "$tmp/p.spmd"
done
expectMsg 0 "42" env SPMD_MEMORY_LIMIT= "$bin" --devices cpu:2 "$tmp/p.spmd"
expectMsg 0 "42" env SPMD_MEMORY_LIMIT=100000000 "$bin" --devices cpu:2 "$tmp/p.spmd"
expectMsg 2 "spmdrun: SPMD_SUM_HOST='avx-512' in the environment: expected avx512 or avx2" \
  env SPMD_SUM_HOST=avx-512 "$bin" --devices cpu:2 "$tmp/p.spmd"
expectMsg 2 "spmdrun: SPMD_BLIS_ARCH='zen4' in the environment: expected skx, zen3 or haswell" \
  env SPMD_BLIS_ARCH=zen4 "$bin" --devices cpu:2 "$tmp/p.spmd"
expectMsg 0 "42" env SPMD_BLIS_ARCH=zen3 "$bin" --devices cpu:2 "$tmp/p.spmd"
for var in SPMD_CPU_FIBERS SPMD_NCCL SPMD_MPI_ALL_GROUPS SPMD_MPI_STAGE; do
  expectMsg 2 "spmdrun: $var='false' in the environment: expected 0 or 1" \
    env $var=false "$bin" --devices cpu:2 "$tmp/p.spmd"
done
expectMsg 0 "42" env SPMD_CPU_FIBERS=0 SPMD_SUM_HOST=avx2 "$bin" --devices cpu:2 "$tmp/p.spmd"
# A script whose name starts with '-', after '--'.
cp "$tmp/p.spmd" "$tmp/-dash.spmd"
expectMsg 0 "42" bash -c 'cd "$1" && exec "$2" --devices cpu:2 -- -dash.spmd' _ "$tmp" "$(realpath "$bin")"
printf '\x00\x01\x02' | "$bin" --devices cpu:2 - >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "binary on standard input: exit $rc, want 1"; fail=1; }
# Standard input that cannot be read (closed, a directory) is not an empty script or an
# empty session: before, both exited 0 having run nothing.
expectMsg 2 "spmdrun: cannot read the script from standard input: Bad file descriptor" bash -c '"$1" --devices cpu:2 - <&-' _ "$bin"
expectMsg 2 "spmdrun: cannot read the script from standard input: Is a directory" bash -c '"$1" --devices cpu:2 - <"$2"' _ "$bin" "$tmp"
expectMsg 1 "error: cannot read standard input: Bad file descriptor" bash -c '"$1" --devices cpu:2 <&-' _ "$bin"
expectMsg 1 "error: cannot read standard input: Is a directory" bash -c '"$1" --devices cpu:2 <"$2"' _ "$bin" "$tmp"
expectMsg 0 "" bash -c '"$1" --devices cpu:2 - </dev/null' _ "$bin"
# Sources with no end (Note [Reading a script] in cli/Driver.cpp): reading stops at the
# first NUL's line, and more than 8 MiB is refused, within seconds, never read until memory
# runs out. The REPL bounds one input the same way (a line, or lines in an open bracket,
# read in one scan however many).
bounded() {  # bounded EXIT TEXT cmd...: expectMsg within 60 s
  local want=$1 text=$2; shift 2
  local out; out=$(timeout 60 "$@" 2>&1); local got=$?
  if [ $got -ne $want ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "exit $got (want $want), want '$text' in: $(head -c 300 <<<"$out"): $*"; fail=1
  fi
}
bounded 1 "/dev/zero:1:1: error: unexpected NUL byte" "$bin" --devices cpu:2 /dev/zero
bounded 1 "<stdin>:1:1: error: unexpected NUL byte" bash -c '"$1" --devices cpu:2 - </dev/zero' _ "$bin"
bounded 1 "/dev/zero:1:1: error: unexpected NUL byte" bash -c 'printf ":load /dev/zero\n" | "$1" --devices cpu:2' _ "$bin"
bounded 2 "cannot read the script from standard input: larger than 8 MiB" bash -c 'yes "print(1)" | "$1" --devices cpu:2 -' _ "$bin"
bounded 1 "error: <stdin>: an input larger than 8 MiB" bash -c '"$1" --devices cpu:2 </dev/zero' _ "$bin"
bounded 1 "error: <stdin>: an input larger than 8 MiB" bash -c '{ echo "(1,"; yes ""; } | "$1" --devices cpu:2' _ "$bin"
# Line endings and the byte order mark (Note [Line endings and the byte order mark]): a
# lone CR ends a line, as in Python; the mark is not part of line 1's columns or its shown
# text, so the caret is under the name.
printf 'let x = 1\rprint(x + 1)\r' > "$tmp/cr.spmd"
expectMsg 0 "2" "$bin" --devices cpu:2 "$tmp/cr.spmd"
printf 'let x = 1\r\rprint(x +)\r' > "$tmp/crerr.spmd"
expectMsg 1 "crerr.spmd:3:10: error: expected an expression" "$bin" --devices cpu:2 "$tmp/crerr.spmd"
printf '\xef\xbb\xbfprint(zz)\n' > "$tmp/bomerr.spmd"
want=$(printf 'bomerr.spmd:1:7: error: unknown name '"'"'zz'"'"'\nprint(zz)\n      ^~')
got=$("$bin" --devices cpu:2 "$tmp/bomerr.spmd" 2>&1 | head -3)
[ "$got" = "${tmp}/$want" ] || { echo "a byte order mark before an error: got '$got'"; fail=1; }
# Output that cannot be written (Note [Output that cannot be written] in runtime/HostIO.cpp):
# a message and exit 1, never exit 0 with the output lost; a print into a pipe whose reader
# left (SIGPIPE ignored) stops the run at once.
printf 'for t in 0..100000000 { print(t) }\n' > "$tmp/forever.spmd"
expectMsg 1 "error: cannot write to standard output: No space left on device" bash -c '"$1" --devices cpu:2 "$2" >/dev/full' _ "$bin" "$tmp/p.spmd"
expectMsg 1 "error: cannot write to standard output: Bad file descriptor" bash -c '"$1" --devices cpu:2 "$2" >&-' _ "$bin" "$tmp/p.spmd"
bounded 1 "error: cannot write to standard output: Broken pipe" bash -c 'trap "" PIPE; "$1" --devices cpu:2 "$2" | head -1 >/dev/null; exit ${PIPESTATUS[0]}' _ "$bin" "$tmp/forever.spmd"
expectMsg 1 "spmdrun: cannot write to standard output" bash -c '"$1" --devices cpu:2 --no-run --dump=ir "$2" >/dev/full' _ "$bin" "$tmp/p.spmd"
expectMsg 1 "error: cannot write to standard output: No space left on device" bash -c 'echo "1 + 1" | "$1" --devices cpu:2 >/dev/full' _ "$bin"
expectMsg 1 "spmdrun: cannot write the trace file '/dev/full': No space left on device" "$bin" --devices cpu:2 --trace /dev/full "$tmp/p.spmd"
[ $fail -eq 0 ] && echo ok
exit $fail
