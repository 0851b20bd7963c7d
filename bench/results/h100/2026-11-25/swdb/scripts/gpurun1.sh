#!/bin/bash
# build, test and time the GPU database search (one device call)
set -o pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv | tee $OUT/gpu.txt
t0=$(date +%s)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$PWD/data > $OUT/cmake.log 2>&1 || { tail -30 $OUT/cmake.log; exit 1; }
cmake --build build -j16 --target test_sw_db_test swdb_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -30; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
grep -A2 "swdb_kernel" $OUT/build.log | head -5
if [ "$TEST" != 0 ]; then
  t0=$(date +%s)
  timeout 200 build/tests/test_sw_db_test 2>&1 | tee $OUT/test.log | tail -25
  echo "test rc=$? $(( $(date +%s) - t0 )) s"
fi
timeout ${BT:-300} build/swdb_bench --data $PWD/data --runs ${RUNS:-3} $CASES 2>&1 | tee $OUT/bench.log
