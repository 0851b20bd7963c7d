#!/bin/bash
# build, test and time the GPU database search (one device call)
set -o pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
t0=$(date +%s)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$PWD/data > $OUT/cmake.log 2>&1 || { tail -30 $OUT/cmake.log; exit 1; }
cmake -S . -B buildB -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="-DSWDB_MINB16=6 -DSWDB_MINB32=4" > $OUT/cmakeB.log 2>&1 || exit 1
cmake --build build -j16 --target test_sw_db_test swdb_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -30; exit 1; }
cmake --build buildB -j16 --target test_sw_db_test swdb_bench > $OUT/buildB.log 2>&1 || { grep -E "error" $OUT/buildB.log | head -30; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for b in build buildB; do
  timeout 100 $b/tests/test_sw_db_test > $OUT/test_$b.log 2>&1; echo "test $b rc=$?"; tail -3 $OUT/test_$b.log
done
B="timeout 120 build/swdb_bench --data $PWD/data"
BB="timeout 120 buildB/swdb_bench --data $PWD/data"
{
$B --runs 3 ecoli pseudo256
$B --runs 3 --params rows=16 ecoli pseudo256 | tail -n +2
$BB --runs 3 pseudo256 | tail -n +2
$BB --runs 3 --params rows=16 pseudo256 | tail -n +2
$B --runs 1 pseudo1024 | tail -n +2
} 2>&1 | tee $OUT/bench.log | cut -f1,3,5-12
