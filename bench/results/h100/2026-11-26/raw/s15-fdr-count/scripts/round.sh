#!/bin/sh
# Device round for h/fdr-count (run from the repository root, .device-carry
# carried): builds the fdr-gpu tests and cuda_pfac_bench, runs `cuda_pfac_bench
# lits` on snort-community (with lists) and et-open (counts only), then the
# GPU tests that touch fdr-gpu.  Outputs under $OUT; about 7 minutes at most.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
sh scripts/bench-device unpack
D=$PWD/.device-carry/data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > "$OUT/device.txt" 2>&1
{
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON \
    -DHAY_OPENCL=OFF -DHAY_DATA_DIR="$D" &&
timeout 240 cmake --build build-gpu -j16 --target hay cuda_pfac_bench test_fdr_gpu \
    test_fdr_gpu_core test_conformance test_gpu
} > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 2; }
echo "built at $(date -u +%T)"
timeout 100 build-gpu/cuda_pfac_bench lits "$D/patterns/snort-community.txt" "$D/text" \
    --reps 3 > "$OUT/lits-snort-community.txt" 2>&1
echo "rc=$?" >> "$OUT/lits-snort-community.txt"
cat "$OUT/lits-snort-community.txt"
timeout 60 build-gpu/cuda_pfac_bench lits "$D/patterns/et-open.txt" "$D/text" --reps 3 \
    --count-only > "$OUT/lits-et-open.txt" 2>&1
echo "rc=$?" >> "$OUT/lits-et-open.txt"
cat "$OUT/lits-et-open.txt"
timeout 60 build-gpu/cuda_pfac_bench lits "$D/patterns/english-words.txt" "$D/text" --reps 3 \
    --count-only --rows 2 > "$OUT/lits-english-words.txt" 2>&1
echo "rc=$?" >> "$OUT/lits-english-words.txt"
cat "$OUT/lits-english-words.txt"
# Small sets for backend cuda's choice (hay_fdr_gpu_preferred): the first
# N literals of snort-community and et-open.
mkdir -p /tmp/fdrsub
for n in 100 300 1000; do
    head -n $n "$D/patterns/snort-community.txt" > /tmp/fdrsub/snort-$n.txt
    head -n $n "$D/patterns/et-open.txt" > /tmp/fdrsub/et-open-$n.txt
done
for f in /tmp/fdrsub/*.txt; do
    timeout 30 build-gpu/cuda_pfac_bench lits "$f" "$D/text" --reps 3 --count-only --rows 2 \
        2>&1 | grep -v "^#   " | tail -3
done > "$OUT/lits-small.txt"
cat "$OUT/lits-small.txt"
echo "tests from $(date -u +%T)"
(cd build-gpu && timeout 150 ctest -R "fdr|conformance_gpu|^gpu$" -j4 --output-on-failure) \
    > "$OUT/ctest.log" 2>&1
echo "ctest rc=$?"
grep -E "tests passed|tests failed|Failed|Passed|Skipped|Timeout" "$OUT/ctest.log" | tail -8
