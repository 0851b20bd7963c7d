#!/bin/bash
# build, test, time and profile the GPU database search (one device call)
set -o pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
t0=$(date +%s)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$PWD/data > $OUT/cmake.log 2>&1 || { tail -30 $OUT/cmake.log; exit 1; }
cmake --build build -j16 --target test_sw_db_test swdb_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -30; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 100 build/tests/test_sw_db_test > $OUT/test.log 2>&1; echo "test rc=$?"; tail -9 $OUT/test.log
B="timeout 150 build/swdb_bench --data $PWD/data"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>&1 &
SMI=$!
{
$B --runs 3 ecoli pseudo256
$B --runs 1 pseudo1024 | tail -n +2
} 2>&1 | tee $OUT/bench.log | cut -f1,3,5-13
kill $SMI
awk -F', ' 'NR>1 {print $2, $3, $5}' $OUT/smi.csv | sort | uniq -c | sort -rn | head -6
timeout 120 ncu --kernel-name regex:swdb_kernel --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section SchedulerStats build/swdb_bench --data $PWD/data --runs 1 ecoli > $OUT/ncu.txt 2>&1
echo "ncu rc=$?"
grep -E "swdb_kernel|Throughput|Pipe|Issue Slots|Executed Ipc|Warp Cycles Per Issued|Stall|Achieved Occupancy|Theoretical Occupancy|Block Limit|Eligible|No Eligible|One or More|Registers|SM Frequency|Duration" $OUT/ncu.txt | head -60
