#!/bin/sh
# Round 4 for h/fdr-count (optional): A/B of .dev-s13/precheck.patch (the
# prefix bitmap checked in registers before a candidate is queued) against
# the committed HEAD.  Outputs under $OUT; about 5 minutes.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
sh scripts/bench-device unpack
D=$PWD/.device-carry/data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; } > "$OUT/device.txt" 2>&1
build() {
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON \
        -DHAY_OPENCL=OFF -DHAY_DATA_DIR="$D" > "$OUT/build-$1.log" 2>&1 &&
    timeout 200 cmake --build build-gpu -j16 --target cuda_pfac_bench test_fdr_gpu \
        test_fdr_gpu_core >> "$OUT/build-$1.log" 2>&1 || { tail -30 "$OUT/build-$1.log"; exit 2; }
}
bench() {
    for set in snort-community et-open; do
        timeout 60 build-gpu/cuda_pfac_bench lits "$D/patterns/$set.txt" "$D/text" --reps 3 \
            --count-only --rows 3 2>&1 | grep -v "^#   " | sed "s/^/$1 $set: /"
    done
}
build A && bench A | tee "$OUT/lits-A.txt"
git apply .dev-s13/precheck.patch || exit 2
build B && bench B | tee "$OUT/lits-B.txt"
(cd build-gpu && timeout 120 ctest -R "^fdr_gpu" --output-on-failure) > "$OUT/ctest-B.log" 2>&1
echo "ctest B rc=$?"; grep -E "tests passed|Failed|Passed" "$OUT/ctest-B.log" | tail -4
git apply -R .dev-s13/precheck.patch
# The GPU suites that backend cuda's new choice (fdr-gpu for 100..32,768
# literals) could touch, on HEAD (the patch is off again).
timeout 200 cmake --build build-gpu -j16 --target test_gpu_list test_split test_auto_choice \
    test_modes test_batch > "$OUT/build-suites.log" 2>&1 || tail -20 "$OUT/build-suites.log"
(cd build-gpu && timeout 240 ctest -R "gpu_list|split_gpu|auto_choice|^modes$|batch_cuda" \
    --output-on-failure) > "$OUT/ctest-suites.log" 2>&1
echo "ctest suites rc=$?"; grep -E "tests passed|Failed|Passed|\*\*\*" "$OUT/ctest-suites.log" | tail -12
