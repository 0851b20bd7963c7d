#!/bin/bash
# Session 16 call 7: fdr-gpu short codes laid out over the banks: GPU tests of fdr and lists, lits on both sets.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in et-open snort-community; do
  timeout 150 $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 --count-only > $OUT/lits-$set.txt 2>&1; grep -v "^#   " $OUT/lits-$set.txt | head -30
done
stamp lits
(cd $B && timeout 300 ctest -R "fdr|gpu|conformance|list|modes|find_dense" -j8 --timeout 250 > $OUT/ctest.log 2>&1); grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Skipped" $OUT/ctest.log | head -20
stamp end
