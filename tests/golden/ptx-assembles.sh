#!/usr/bin/env bash
# Usage: ptx-assembles.sh SPMDRUN FILE. The PTX of FILE's kernels (--dump=ptx) assembles
# with ptxas for sm_90 (as relocatable code: collectives are calls into the runtime).
# Exits 77 (CTest: skipped) when ptxas is not installed, and says so.
set -u
bin=$1; f=$2
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ ! -x "$ptxas" ]; then echo "skipped: ptxas not found (install the CUDA toolkit or set PTXAS)"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" --devices cpu:8 --dump=ptx --no-run "$f" > "$tmp/k.ptx" || { echo "--dump=ptx failed"; exit 1; }
if ! grep -q '\.entry' "$tmp/k.ptx"; then echo "no kernels in this program (nothing to assemble)"; exit 0; fi
"$ptxas" -arch=sm_90 -c "$tmp/k.ptx" -o "$tmp/k.o" || { echo "ptxas rejected the PTX"; exit 1; }
echo "ok: $(grep -c '\.entry' "$tmp/k.ptx") kernels assembled"
