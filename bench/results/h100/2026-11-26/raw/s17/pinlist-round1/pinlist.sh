#!/bin/bash
# h/pinlist on the device: build, the list tests, cuda_pfac_bench list for
# snort-community and et-open.  Run from the tree root with $OUT set; stays
# under 7 minutes (each step gets what is left of 400 s).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
left() { echo $(( 400 - SECONDS )); }
sh scripts/bench-device unpack > /dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
{ nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; git log --oneline -1; } > "$OUT/info.txt" 2>&1
{ cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D &&
  cmake --build $B -j16; } > "$OUT/build.txt" 2>&1 || { tail -40 "$OUT/build.txt"; exit 1; }
echo "built at ${SECONDS}s" >> "$OUT/info.txt"
# The new rows first (pinned and device arrays against hay_scan).
timeout 150 $B/tests/api/test_list cuda-pinned cuda-device cuda-pinned-pieces cuda-device-pieces \
  > "$OUT/tests-arrays.txt" 2>&1; echo "rc=$? at ${SECONDS}s" >> "$OUT/tests-arrays.txt"
tail -8 "$OUT/tests-arrays.txt"
for s in snort-community et-open; do
  t=$(left); [ "$t" -gt 240 ] && t=240; [ "$s" = snort-community ] && [ "$t" -gt 110 ] && t=110
  timeout $t $B/cuda_pfac_bench list $D/patterns/$s.txt $D/text --reps 3 > "$OUT/list-$s.txt" 2>&1
  echo "rc=$? at ${SECONDS}s" >> "$OUT/list-$s.txt"
  grep -E "list arrays|rc=" "$OUT/list-$s.txt"
done
t=$(left)
if [ "$t" -gt 20 ]; then
  timeout $t ctest --test-dir $B -R "list|batch|modes" -E "list_arrays_cuda" --output-on-failure \
    > "$OUT/tests.txt" 2>&1
  echo "rc=$? at ${SECONDS}s" >> "$OUT/tests.txt"
  tail -25 "$OUT/tests.txt"
fi
