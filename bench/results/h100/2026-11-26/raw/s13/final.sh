#!/bin/bash
# Session 13 final check of merged main on the device: build, GPU tests, short figures. Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-270}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%h 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
echo "== built at $(( $(date +%s) - T0 )) s"
RX=${RX:-"gpu|cuda|split|sw_db|db_parts|batch|conformance|list|align_db|fdr|auto_choice|modes"}
(cd $B && timeout $(( $(left) - 45 )) ctest -j14 --timeout 200 --output-on-failure -R "$RX" > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Not Run" $OUT/ctest.log | head -30
grep "Total Test time" $OUT/ctest.log
echo "== tests done at $(( $(date +%s) - T0 )) s, $(left) s left"
for set in et-open snort-community; do
  if [ $(left) -gt 30 ]; then echo "== list $set"; timeout $(( $(left) - 3 )) $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 > $OUT/list-$set.txt 2>&1; grep -v "^#   phases" $OUT/list-$set.txt | tail -16; fi
done
echo "== end at $(( $(date +%s) - T0 )) s"
