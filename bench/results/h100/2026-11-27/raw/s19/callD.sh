#!/bin/bash
# Session 19 call D: ncu profile of fdr-gpu's list kernel (et-open, one 16 MiB piece), then the auto part
# (bench/run.py --parts auto: 15 interleaved rounds for backends under 1 s).
set -u
T0=$(date +%s); CAP=${CAP:-570}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
NCU=/usr/local/cuda/bin/ncu
for K in "fdr_kernelILb0ELi1ELb1ELb0E" "fdr_kernelILb0ELi0ELb1ELb1E"; do
timeout 150 $NCU --kernel-name-base mangled -k regex:$K -s 2 -c 1 --set full --import-source no -o /tmp/prof-$K \
  $B/cuda_pfac_bench list $D/patterns/et-open.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-run-$K.txt 2>&1
echo "ncu rc=$?"; tail -2 $OUT/ncu-run-$K.txt
$NCU --import /tmp/prof-$K.ncu-rep --page details > $OUT/ncu-details-$K.txt 2>&1
$NCU --import /tmp/prof-$K.ncu-rep --page raw --csv > $OUT/ncu-raw-$K.csv 2>&1
stamp "ncu $K"
done
grep -E "Duration|Memory Throughput|L2 Cache Throughput|Executed Ipc A|Achieved Occupancy|Registers Per|Local Memory|Warp Cycles Per Issued|No Eligible" $OUT/ncu-details-*.txt | cut -c1-160
timeout $(( $(left) - 10 )) python3 bench/run.py --parts auto --build $B --data $D --out /tmp/auto --work /dev/shm/work 2>&1 | grep -E "^auto:|CHECK|rows" | tail -5
cp /tmp/auto/report.md $OUT/auto-report.md 2>/dev/null; cp /tmp/auto/*.csv $OUT/ 2>/dev/null
grep -E "auto / best" $OUT/auto-report.md | awk -F'|' '{print $2, $6}' | sort -t' ' -k2 | tail -30
stamp end
