#!/bin/bash
# Session 17 final A: merged main on the H100: build everything, the whole test suite with the GPU except the
# two longest GPU tests (final B runs them). Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-580}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
(cd $B && timeout $(( $(left) - 10 )) ctest -j12 --timeout 300 -E "cli_find_marks.cuda|list_arrays_cuda" > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest.log | head -30; grep "Total Test time" $OUT/ctest.log
echo "skipped: $(grep -c '\*\*\*Skipped' $OUT/ctest.log): $(grep '\*\*\*Skipped' $OUT/ctest.log | awk '{print $4}' | tr '\n' ' ')"
grep -c "Test *#" $OUT/ctest.log
stamp end
