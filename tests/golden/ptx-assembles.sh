#!/usr/bin/env bash
# Usage: ptx-assembles.sh SPMDRUN FILE. The GPU kernels of FILE (--dump=ptx, the split of
# Note [Device programs]) are real data-parallel kernels: they assemble with the full
# ptxas for sm_90 (no -c: nothing unresolved, so no kernel calls the runtime or the host),
# declare no extern function, and each indexes its elements by %ctaid/%ntid/%tid.
# The checks that need no ptxas run everywhere; the assembly step exits 77 (CTest:
# skipped, and says so) when ptxas is not installed.
set -u
bin=$1; f=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if grep -q "^# expect: " "$f"; then echo "an error program: nothing to assemble"; exit 0; fi
"$bin" --devices cuda:8 --dump=ptx --no-run "$f" > "$tmp/k.ptx" || { echo "--dump=ptx failed"; exit 1; }
kernels=$(grep -c '^\.visible \.entry' "$tmp/k.ptx")
if [ "$kernels" -eq 0 ]; then
  if grep -q 'pmap' "$f"; then echo "a program with a pmap has no GPU kernels"; exit 1; fi
  echo "no pmap, no kernels (nothing to assemble)"; exit 0
fi
if grep -q '\.extern' "$tmp/k.ptx"; then echo "the kernels declare extern symbols:"; grep '\.extern' "$tmp/k.ptx"; exit 1; fi
# Every kernel reads its position in the grid.
entries=$(grep '^\.visible \.entry' "$tmp/k.ptx" | sed 's/.*entry \([A-Za-z0-9_]*\).*/\1/')
for k in $entries; do
  body=$(sed -n "/^\.visible \.entry $k(/,/^}/p" "$tmp/k.ptx")
  if ! grep -q '%tid\.x' <<<"$body" || ! grep -q '%ctaid\.x' <<<"$body"; then
    echo "kernel $k does not index by %tid/%ctaid"; exit 1
  fi
done
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ ! -x "$ptxas" ]; then echo "skipped: ptxas not found (install the CUDA toolkit or set PTXAS); the $kernels kernels index by %tid/%ctaid and declare nothing extern"; exit 77; fi
"$ptxas" -arch=sm_90 "$tmp/k.ptx" -o "$tmp/k.cubin" || { echo "ptxas rejected the PTX"; exit 1; }
echo "ok: $kernels kernels assembled (complete: no unresolved symbols), each indexed by %tid/%ctaid"
