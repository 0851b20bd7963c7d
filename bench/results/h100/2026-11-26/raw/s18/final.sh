#!/bin/bash
# Session 18 final: merged main on the H100: build everything, the whole test suite with the GPU except the
# OpenCL CLI tests (no OpenCL change; PoCL runs them on the VM). Hard cap CAP s.
set -u
T0=$(date +%s); CAP=${CAP:-470}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log --oneline -1 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
P1="gpu|cuda|list|batch|modes|split|auto|stops|serve|marks|fdr|sw_|db_|conformance|exact|align_db|realdata|api"
(cd $B && timeout $(( $(left) - 60 )) ctest -j12 --timeout 300 -R "$P1" -E opencl --output-on-failure > $OUT/ctest1.log 2>&1)
stamp phase1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest1.log | head -30
echo "skipped: $(grep -c '\*\*\*Skipped' $OUT/ctest1.log): $(grep '\*\*\*Skipped' $OUT/ctest1.log | awk '{print $4}' | tr '\n' ' ')"
grep -E "Test +#" $OUT/ctest1.log | awk '{print $(NF-1), $4}' | sort -n | tail -6
(cd $B && timeout $(( $(left) - 5 )) ctest -j14 --timeout 200 -E "opencl|$P1" > $OUT/ctest2.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest2.log | head -20
echo "skipped: $(grep -c '\*\*\*Skipped' $OUT/ctest2.log)"; grep -c "Test *#" $OUT/ctest2.log
stamp end
