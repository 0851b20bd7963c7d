#!/bin/bash
# diag0 (lead's diagnostic): build the branch, run the slow GPU suites alone (-j7, 480 s cap each), per-test times
set -u
T0=$(date +%s)
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
echo "== built at $(( $(date +%s) - T0 )) s"
(cd $B && timeout 500 ctest -j7 --timeout 480 -R "^(gpu_list|modes|conformance_gpu|gpu|fdr_gpu|batch_cuda|cuda_exact)$" > $OUT/ctest.log 2>&1)
grep -E "Test +#|tests passed|Total Test" $OUT/ctest.log
echo "== end at $(( $(date +%s) - T0 )) s"
