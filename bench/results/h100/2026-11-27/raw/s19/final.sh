#!/bin/bash
# Session 19 final: the working tree on the H100: build, then the GPU-touching tests named in $SEL
# (call F1: the long GPU-locked ones; F2: the rest). Hard cap CAP s.
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
(cd $B && timeout $(( $(left) - 5 )) ctest -j12 --timeout 400 -R "$SEL" --output-on-failure > $OUT/ctest-$NAME.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest-$NAME.log | head -30
echo "ran: $(grep -cE 'Test +#' $OUT/ctest-$NAME.log); skipped: $(grep '\*\*\*Skipped' $OUT/ctest-$NAME.log | awk '{print $4}' | tr '\n' ' ')"
grep -E "Test +#" $OUT/ctest-$NAME.log | awk '{print $(NF-1), $4, $(NF-2)}' | sort -n | tail -12
