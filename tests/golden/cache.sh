#!/usr/bin/env bash
# Usage: cache.sh SPMDRUN. The on-disk object cache (Note [Object cache] in
# compiler/codegen/ObjectCache.h): a second run of an unchanged program loads its code
# instead of compiling it and prints the same; a corrupt or truncated entry is a miss,
# never trusted; a changed program, argument, location or -O level is a miss; --no-cache
# neither reads nor writes; an unusable cache directory only costs time.
set -u
bin=$1; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export SPMDRUN_CACHE_DIR=$tmp/cache
err() { echo "$*"; fail=1; }
# run NAME WANT-CACHE-USE ARGS...: runs spmdrun --stats, keeps stdout in $tmp/NAME.out.
run() {
  local name=$1 want=$2; shift 2
  timeout 120 "$bin" --stats "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local use; use=$(sed -n 's/^object cache: \([a-z]*\).*/\1/p' "$tmp/$name.err")
  [ "$use" = "$want" ] || err "$name: object cache '$use', want '$want': $(head -c 400 "$tmp/$name.err")"
}
entries() { find "$SPMDRUN_CACHE_DIR" -name '*.obj' 2>/dev/null | wc -l; }

cat >"$tmp/p.spmd" <<'P'
let n = arg("n", 3)
let x = pmap i (v in reshape(arange(4 * n), [2, -1])) {
  let y = sin(f32(v) * 0.25) * 2.0
  y + psum(y, i)
}
print(x)
P
run first miss --devices cpu:2 "$tmp/p.spmd"
[ "$(entries)" = 1 ] || err "after the first run: $(entries) entries, want 1"
run second hit --devices cpu:2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/second.out" || err "a cached program printed differently"
[ -s "$tmp/first.out" ] || err "the program printed nothing"
run split1 miss --devices cpu:2 --split-kernels "$tmp/p.spmd"
run split2 hit --devices cpu:2 --split-kernels "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/split2.out" || err "a cached --split-kernels program printed differently"

# A corrupt entry (one byte flipped in the middle) and a truncated one are misses, and
# the next run replaces them.
f=$(find "$SPMDRUN_CACHE_DIR" -name '*.obj' | head -1)
for f in $(find "$SPMDRUN_CACHE_DIR" -name '*.obj'); do
  size=$(stat -c %s "$f")
  printf '\x5a' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
done
run corrupt miss --devices cpu:2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/corrupt.out" || err "after a corrupt entry the program printed differently"
run repaired hit --devices cpu:2 "$tmp/p.spmd"
for f in $(find "$SPMDRUN_CACHE_DIR" -name '*.obj'); do truncate -s 100 "$f"; done
run truncated miss --devices cpu:2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/truncated.out" || err "after a truncated entry the program printed differently"
# Something other than a file in an entry's place is a miss too: a directory made the read
# throw through main (abort, exit 134), a FIFO or a link to /dev/zero was read forever.
for kind in dir fifo zero; do
  for f in $(find "$SPMDRUN_CACHE_DIR" -name '*.obj'); do
    rm -rf "$f"
    case $kind in dir) mkdir "$f" ;; fifo) mkfifo "$f" ;; zero) ln -s /dev/zero "$f" ;; esac
  done
  run "entry_$kind" miss --devices cpu:2 "$tmp/p.spmd"
  cmp -s "$tmp/first.out" "$tmp/entry_$kind.out" || err "with a $kind in an entry's place the program printed differently"
done
run replaced hit --devices cpu:2 "$tmp/p.spmd"  # the link was replaced by the entry

# A different program, argument or optimisation level is a different entry. (The device
# count is not part of the key: the code of a program that does not ask for it is the
# same on 2 devices as on 3, and is reused.)
run arg miss --devices cpu:2 --arg n=2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/arg.out" && err "--arg n=2 printed what n=3 did"
run opt miss -O1 --devices cpu:2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/opt.out" || err "-O1 printed differently"
run devices hit --devices cpu:3 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/devices.out" || err "cpu:3 printed differently"

# Locations are part of the key: the same program one line lower reports its run-time
# error one line lower.
printf 'let x = pmap i (v in arange(8)) { v + 2 }\nprint(x[x[7]])\n' >"$tmp/e.spmd"
run loc1 miss --devices cpu:8 "$tmp/e.spmd"
printf '\nlet x = pmap i (v in arange(8)) { v + 2 }\nprint(x[x[7]])\n' >"$tmp/e.spmd"
run loc2 miss --devices cpu:8 "$tmp/e.spmd"
grep -q 'e.spmd:2:' "$tmp/loc1.err" || err "no run-time error at line 2: $(cat "$tmp/loc1.err")"
grep -q 'e.spmd:3:' "$tmp/loc2.err" || err "the moved program's error is not at line 3: $(cat "$tmp/loc2.err")"

# A module large enough to be compiled in parts (Note [Parallel compilation] in
# compiler/codegen/Jit.cpp): every part's object is kept, and a hit prints the same.
mlp=$(dirname "$0")/../spec/train_mlp.spmd
run parts1 miss --devices cpu:8 "$mlp"
grep -qE 'LLVM in [2-9] parts' "$tmp/parts1.err" || err "train_mlp was not compiled in parts: $(grep LLVM "$tmp/parts1.err")"
run parts2 hit --devices cpu:8 "$mlp"
cmp -s "$tmp/parts1.out" "$tmp/parts2.out" || err "a cached program of several parts printed differently"
grep -q 'LLVM in' "$tmp/parts2.err" && err "a cache hit reported an LLVM compile"

# Parts that share the trig slow paths (Note [Slow paths apart] in compiler/codegen/Jit.cpp),
# each compiled on its first call (Note [Slow paths on first call]), by eight device threads
# at once in the pmap bodies: not kept in the cache, so a hit compiles them again and
# prints the same.
trig=$(dirname "$0")/trig_slow_parts.spmd
run slow1 miss --devices cpu:8 "$trig"
grep -qE 'LLVM in [2-9] parts \+ [0-9]+ slow paths on first call' "$tmp/slow1.err" ||
  err "trig_slow_parts did not compile its slow paths on first call: $(grep LLVM "$tmp/slow1.err")"
run slow2 hit --devices cpu:8 "$trig"
cmp -s "$tmp/slow1.out" "$tmp/slow2.out" || err "a cached program with shared slow paths printed differently"
cmp -s "$tmp/slow2.out" "${trig%.spmd}.out" || err "a cached program with shared slow paths printed what JAX does not"

# spec pool_map's sin never takes its slow path (|x| <= 100), so none is compiled.
run poolmap off --no-cache --devices cpu:8 "$(dirname "$0")/../spec/pool_map.spmd"
grep -qE 'LLVM in [2-9] parts,' "$tmp/poolmap.err" ||
  err "pool_map compiled slow paths it never calls: $(grep LLVM "$tmp/poolmap.err")"

# --no-cache neither reads nor writes.
before=$(entries)
run nocache off --no-cache --devices cpu:2 --arg n=5 "$tmp/p.spmd"
[ "$(entries)" = "$before" ] || err "--no-cache wrote an entry"

# A cache directory that cannot be made: the program still runs.
touch "$tmp/file"
SPMDRUN_CACHE_DIR=$tmp/file/cache run unwritable miss --devices cpu:2 "$tmp/p.spmd"
cmp -s "$tmp/first.out" "$tmp/unwritable.out" || err "with an unusable cache directory the program printed differently"

[ $fail -eq 0 ] && echo "cache: all checks passed"
exit $fail
