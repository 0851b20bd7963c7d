#!/bin/bash
# Session 16 final A: merged main on the H100: build, the whole test suite with the GPU, fdr-gpu vs PFAC
# with every row (lists, marks, first match, list arrays). Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-575}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log --oneline -1 2>/dev/null || true
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
(cd $B && timeout $(( $(left) - 130 )) ctest -j12 --timeout 300 > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest.log | head -30; grep "Total Test time" $OUT/ctest.log
echo "skipped: $(grep -c '\*\*\*Skipped' $OUT/ctest.log): $(grep '\*\*\*Skipped' $OUT/ctest.log | awk '{print $4}' | tr '\n' ' ')"
stamp tests done
for set in snort-community et-open; do
  [ $(left) -gt 40 ] && timeout $(( $(left) / 2 )) $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 > $OUT/lits-$set.txt 2>&1; grep -v "^#   " $OUT/lits-$set.txt | head -16
done
stamp end
