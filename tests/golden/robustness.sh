#!/usr/bin/env bash
# Usage: robustness.sh SPMDRUN [cuda]. Programs at the edges, each ending with the right
# answer or a clear error, never a crash, a hang or an internal error; each runs on CPU
# devices and through the GPU's device programs on CPU devices (--split-kernels), or with
# `cuda` on the GPUs (--devices cuda:8) instead:
#  - generated long programs: 30,000 statements of `x = x + 1.0` (Note [Fusion depth],
#    Note [Segments]), long operator chains, deep nesting (Note [Nesting limits]);
#  - dynamic indices into empty arrays and negative ones (Note [Index errors]): run-time
#    errors that name the index as the program computed it;
#  - arrays that do not fit in memory together (Note [Memory limits]).
set -u
bin=$1; gpu=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# run NAME WANT_EXIT WANT_TEXT [flags...]: runs $tmp/NAME.spmd on cpu:8 and split (run_cpu,
# run_split: one of them); the output (stdout and stderr) must contain WANT_TEXT (a fixed
# string), the exit code must be WANT_EXIT, within 60 seconds.
run() { check "cpu split" "$@"; }
run_cpu() { check cpu "$@"; }
run_split() { check split "$@"; }
check() {
  local modes=$1 name=$2 want=$3 text=$4; shift 4
  local m mode
  for m in $modes; do
    mode="--devices cpu:8"
    [ "$m" = split ] && mode="--devices cpu:8 --split-kernels"
    [ "$m" = split ] && [ "$gpu" = cuda ] && mode="--devices cuda:8"
    out=$(cd "$tmp" && timeout 60 "$bin" $mode "$@" "$name.spmd" 2>&1); code=$?
    if [ $code -ne "$want" ]; then bad "$name $mode: exit $code, want $want: $(head -c 400 <<<"$out")"; continue; fi
    grep -qF -- "$text" <<<"$out" || bad "$name $mode: want '$text' in: $(head -c 400 <<<"$out")"
  done
}

# ---- long programs -------------------------------------------------------------------
python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
w = lambda n, s: open(f"{d}/{n}.spmd", "w").write(s)
n = 30000
w("long_array", "var x = zeros([4])\n" + "x = x + 1.0\n" * n + "print(x)\n")
w("long_scalar", "var x = sum(ones([3]))\n" + "x = x + 1.0\n" * 12000 + "print(x)\n")
w("long_pmap", "let y = pmap i (x0 in zeros([2])) {\nvar x = x0\n" + "x = x + 1.0\n" * 5000 + "x }\nprint(y)\n")
# A long chain in one expression (under the limit) and one over it.
w("chain_ok", "let a = ones([3])\nprint(" + " + ".join(["a"] * 5000) + ")\n")
w("chain_long", "print(" + "+".join(["1.0"] * 100000) + ")\n")
# Right-nested chains and deep nesting: refused at the token that goes too deep.
w("pow_chain", "print(" + "**".join(["1.0"] * 10000) + ")\n")
w("pow_ok", "print(" + "**".join(["1.0"] * 150) + ")\n")
w("parens", "print(" + "(" * 100000 + "1" + ")" * 100000 + ")\n")
w("blocks", "print(" + "{" * 100000 + "1" + "}" * 100000 + ")\n")
w("prefix", "print(" + "-" * 100000 + "1)\n")
w("nested_ok", "print(" + "(" * 150 + "1" + ")" * 150 + ")\n")
w("elif", "let c = 3\nlet x = if c == 0 { 0 }\n" +
  "".join(f"else if c == {i} {{ {i} }}\n" for i in range(1, 5000)) + "else { -1 }\nprint(x)\n")
w("elif_ok", "let c = 3\nlet x = if c == 0 { 0 }\n" +
  "".join(f"else if c == {i} {{ {i} }}\n" for i in range(1, 100)) + "else { -1 }\nprint(x)\n")
# A long pmap body (Note [Segments]) with collectives, loops, an inner pmap and two
# results, one stacked along axis 1, all crossing segment boundaries.
body = ["var x = x0", "var acc = zeros([3])"]
for i in range(2600):
    if i % 500 == 0: body.append("x = x + psum(x, i) * 0.001")
    elif i % 700 == 0: body.append("for t in 0..2 { acc = acc + x * 0.5 }")
    elif i % 900 == 0: body += ["let inner = pmap j (q in zeros([2])) { q + x[0] }", "acc = acc + inner[1]"]
    else: body.append("x = x * 1.0001 + 0.5")
w("long_mix", "let (a, b) = pmap i (x0 in reshape(arange(12.0), [4, 3])) -> along (0, 1) {\n" +
  "\n".join(body) + "\n(x, acc + x)\n}\nprint(a)\nprint(b[2])\n")
w("long_index", "let y = pmap i (x0 in arange(2.0)) {\nvar x = x0\n" + "x = x + 1.0\n" * 2500 +
  "let v = arange(4.0)\nv[i32(x) - 2500 + 3]\n}\nprint(y)\n")
w("lambdas", "let f = " + "fn (x) = " * 5000 + "1\nprint(2)\n")
w("indexing", "let a = zeros([2])\nprint(a" + "[0]" * 20000 + ")\n")
# Calls nest function bodies in lowering (Note [Stack guard]): a chain of 10,000 functions
# overflowed the stack; 1,000 compile.
def calls(n, body="fn f{i}(x) = f{j}(x) + 1.0"):
    return "fn f0(x) = x\n" + "".join(body.format(i=i, j=i - 1) + "\n" for i in range(1, n)) + f"print(f{n - 1}(1.0))\n"
w("calls_deep", calls(10000))
w("calls_ok", calls(1000))
w("calls_loops", calls(10000, "fn f{i}(x) {{ var y = x; for t in 0..1 {{ y = f{j}(y) + 1.0 }}; y }}"))
# grad through 1,000 nested loops (Note [Splitting nested regions]): the front end copied
# every nested region at every level, 55 s; now half a second.
w("grad_loops", "fn f0(x) = x\n" + "".join(f"fn f{i}(x) {{ var y = x; for t in 0..1 {{ y = f{i - 1}(y) * 1.001 }}; y }}\n" for i in range(1, 1000)) + "print(grad(f999)(1.0))\n")
# Blank lines: every line used to look ahead over all the blank lines after it for an
# `else` (quadratic: 100,000 took 75 s).
w("blank_lines", "\n" * 300000 + "print(1)\n")

EOF
# The long ones once each: the host code is the same with and without the split.
run_cpu long_array 0 "[30000. 30000. 30000. 30000.]"
run_split long_scalar 0 "12003.0"
run long_pmap 0 "[5000. 5000.]"
run_cpu long_mix 0 "[5252.831  5273.952  5295.0723 5316.1953]"  # as jax.pmap (fused multiply-adds)
run_cpu long_index 1 "error: long_index.spmd:2504:17: index 4 is out of range for size 4"
run chain_ok 0 "[5000. 5000. 5000.]"
run chain_long 1 "chain_long.spmd:1:40002: error: expression too long (more than 10000 operators)"
run pow_chain 1 "pow_chain.spmd:1:1005: error: expression nested too deeply (more than 200 levels)"
run pow_ok 0 "1.0"
run parens 1 "parens.spmd:1:206: error: expression nested too deeply"
run blocks 1 "blocks.spmd:1:206: error: expression nested too deeply"
run prefix 1 "prefix.spmd:1:206: error: expression nested too deeply"
run nested_ok 0 "1"
run elif 1 "elif.spmd:201:18: error: expression nested too deeply"
run elif_ok 0 "3"
run lambdas 1 "lambdas.spmd:1:1803: error: expression nested too deeply"
run indexing 1 "indexing.spmd:2:29999: error: expression too long"
run_cpu calls_deep 1 "nested too deeply for the compiler's stack"
run_cpu calls_loops 1 "nested too deeply for the compiler's stack"
run_cpu calls_ok 0 "1000.0"
run_cpu blank_lines 0 "1"
# The front end of grad_loops within 15 s (--no-run: LLVM's register allocation of its
# 1,000 nested loops, about 12 s more, is not what this checks).
out=$(cd "$tmp" && timeout 15 "$bin" --devices cpu:8 --no-cache --no-run grad_loops.spmd 2>&1); code=$?
[ $code -eq 0 ] || bad "grad_loops --no-run: exit $code (124: over 15 s): $(head -c 400 <<<"$out")"
# A diagnostic on a very long line shows a window around the caret, not the whole line.
out=$("$bin" --devices cpu:8 "$tmp/parens.spmd" 2>&1)
[ "$(wc -c <<<"$out")" -lt 1000 ] || bad "the diagnostic of parens.spmd is $(wc -c <<<"$out") bytes long"

# ---- dynamic indices -------------------------------------------------------------------
cat > "$tmp/set_empty.spmd" <<'EOF'
let a = zeros([0])
let i = i32(sum(ones([2])))
print(set(a, i, 1.0))
EOF
cat > "$tmp/get_empty.spmd" <<'EOF'
let a = zeros([0, 3])
let i = i32(sum(ones([2])))
print(a[i])
EOF
cat > "$tmp/set_empty_pmap.spmd" <<'EOF'
let y = pmap i (x in arange(2.0)) { let a = zeros([0]); set(a, i32(x), 1.0) }
print(y)
EOF
cat > "$tmp/get_empty_pmap.spmd" <<'EOF'
let y = pmap i (x in arange(2.0)) { let a = zeros([4, 0]); a[i32(x)][1:] }
print(y)
EOF
cat > "$tmp/get_empty_inner.spmd" <<'EOF'
let y = pmap i (x in arange(2.0)) { let a = zeros([4, 0]); a[1, i32(x) - 1] }
print(y)
EOF
cat > "$tmp/negative.spmd" <<'EOF'
let a = arange(10.0)
let i = i32(sum(ones([2]))) - 13
print(a[i])
EOF
cat > "$tmp/negative_set.spmd" <<'EOF'
let a = arange(10.0)
let i = i32(sum(ones([2]))) - 13
print(set(a, i, 5.0))
EOF
cat > "$tmp/negative_pmap.spmd" <<'EOF'
let y = pmap i (x in arange(2.0)) { let a = arange(10.0); a[i32(x) - 12] }
print(y)
EOF
cat > "$tmp/negative_ok.spmd" <<'EOF'
let a = arange(10.0)
let i = i32(sum(ones([2]))) - 12
print(a[i], set(a, i, 5.0))
EOF
run set_empty 1 "error: set_empty.spmd:3:7: index 2 is out of range for size 0"
run get_empty 1 "error: get_empty.spmd:3:8: index 2 is out of range for size 0"
# Several devices fail: the lowest device's error is the one reported, every time.
run set_empty_pmap 1 "error: set_empty_pmap.spmd:1:57: index 0 is out of range for size 0"
run get_empty_pmap 0 "[]"
run get_empty_inner 1 "error: get_empty_inner.spmd:1:72: index -1 is out of range for size 0"
run negative 1 "error: negative.spmd:3:8: index -11 is out of range for size 10"
run negative_set 1 "error: negative_set.spmd:3:7: index -11 is out of range for size 10"
run negative_pmap 1 "error: negative_pmap.spmd:1:68: index -12 is out of range for size 10"
run negative_ok 0 "0.0 [5. 1. 2. 3. 4. 5. 6. 7. 8. 9.]"
for k in 1 2 3 4 5; do run set_empty_pmap 1 "index 0 is out of range for size 0"; done

# ---- memory (Note [Memory limits] in runtime/BufferPool.h) ------------------------------
# Arrays that fit one by one but not together: under SPMD_MEMORY_LIMIT (bytes the pool may
# hold at once) the second 200 MB buffer is refused with a message naming it, not killed.
cat > "$tmp/held.spmd" <<'EOF'
var a = zeros([50000000])
for t in 0..2 { a = a + f32(t) }
var b = ones([50000000])
for t in 0..2 { b = b * 2.0 + a }
print(a[0:2], b[0:2])
EOF
SPMD_MEMORY_LIMIT=300000000 run_cpu held 1 "error: held.spmd:2:1: out of host memory: f32[50000000] needs 200000000 bytes (190.7 MiB), more than the"
SPMD_MEMORY_LIMIT=300000000 run_cpu held 1 "left under SPMD_MEMORY_LIMIT (286.1 MiB)"
SPMD_MEMORY_LIMIT=1200000000 run_cpu held 0 "[1. 1.] [7. 7.]"
# A matrix product's workspace (BLIS's packing blocks, the pairs' second chain: Note [GEMM
# workspace] in runtime/cpu/CpuGemm.cpp) refused under the cap: the process ends with the
# message and exit 1, never an abort (spmd_cpu_gemm is called from generated code, which
# cannot unwind).
cat > "$tmp/workspace.spmd" <<'EOF'
let ms = normal(key(1), [1, 1000, 1200])
print(sum(pmap i (m in ms) { m @ transpose(m) }))
EOF
SPMD_MEMORY_LIMIT=20000000 run_cpu workspace 1 "error: out of host memory: a matrix product's workspace needs"
SPMD_MEMORY_LIMIT=60000000 run_cpu workspace 0 "1.2785132e+06"

# ---- many devices ----------------------------------------------------------------------
# The most CPU devices --devices accepts, on however few cores: a pmap over all of them
# starts and ends within 30 s (Note [Stopping many devices]: the exit alone took over a
# minute on 2 cores). The sum 0 + ... + 4095 is exact in f32; NumPy prints
# np.float32(8386560.0) as 8.38656e+06.
echo 'print(pmap i (v in arange(4096.0)) { psum(v, i) }[4095], device_count())' > "$tmp/many.spmd"
out=$(timeout 30 "$bin" --devices cpu:4096 "$tmp/many.spmd" 2>&1); code=$?
[ $code -eq 0 ] && [ "$out" = "8.38656e+06 4096" ] || bad "many.spmd on cpu:4096: exit $code (124: over 30 s): $(head -c 400 <<<"$out")"

[ $fail -eq 0 ] && echo ok
exit $fail
