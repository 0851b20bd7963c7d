#!/bin/bash
# Session 20 call C: et-open's list with pieces of 32 MiB (result_cap=32M) against the default
# (16M slots: 16 MiB pieces); ncu of the list kernel and the marks kernel (stall reasons, SASS).
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for cap in 33554432 default; do
  P=""; [ $cap = default ] || P="--params result_cap=$cap"
  echo "### et-open cap $cap" >> $OUT/list-cap.txt
  timeout 100 $B/cuda_pfac_bench list $D/patterns/et-open.txt $D/text --reps 3 --algo fdr-gpu $P --only "resident list arrays, device ids+ends" >> $OUT/list-cap.txt 2>&1
  stamp "list et-open cap $cap rc=$?"
  tail -n 12 $OUT/list-cap.txt | grep -E "same|DIFF|1 calls|pieces" | grep -v radix | cut -c1-150
done
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters"
timeout 150 $NCU --kernel-name-base mangled -k regex:fdr_kernelILb0ELi1ELb1ELb0E -s 5 -c 1 $SEC -o $OUT/list -f \
  $B/cuda_pfac_bench list $D/patterns/et-open.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-list.log 2>&1
stamp "ncu list rc=$?"
timeout 150 $NCU --kernel-name-base mangled -k regex:fdr_kernelILb0ELi2ELb1ELb0E -s 3 -c 1 $SEC -o $OUT/marks -f \
  $B/cuda_pfac_bench lits $D/patterns/et-open.txt $D/text --reps 1 --count-only --rows 2 > $OUT/ncu-marks.log 2>&1
stamp "ncu marks rc=$?"
for k in list marks; do
  [ -f $OUT/$k.ncu-rep ] || continue
  $NCU --import $OUT/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
  $NCU --import $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/$k-sass.csv 2>$OUT/$k-sass.err
  python3 .dev-s20/top_sass.py $OUT/$k-sass.csv > $OUT/$k-top.txt 2>&1
  rm -f $OUT/$k-sass.csv $OUT/$k.ncu-rep
  echo "--- $k"; grep -E "Duration|Executed Instructions |Stall|Warp Cycles Per Issued|Issued Warp|Achieved Occupancy|Registers|Block Limit|No Eligible|Active Warps" $OUT/$k-details.txt | head -30
  head -25 $OUT/$k-top.txt | cut -c1-140
done
stamp end
