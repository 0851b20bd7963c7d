#!/bin/bash
# Session 20 call E: resident ordered lists with other driver settings (streams, result_cap:
# piece size) for fdr-gpu, et-open and snort; ncu durations of one piece's list kernels (et-open).
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in et-open snort-community; do
  for P in default streams=6 result_cap=33554432 result_cap=33554432,streams=6; do
    A=""; [ $P = default ] || A="--params $P"
    echo "### $set $P" >> $OUT/list-$set.txt
    timeout 80 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu $A --only "resident list arrays, device ids+ends" >> $OUT/list-$set.txt 2>&1
    stamp "list $set $P rc=$?"; tail -n 12 $OUT/list-$set.txt | grep -E "^resident list arrays, device ids.ends  " | cut -c1-100
  done
done
NCU=/usr/local/cuda/bin/ncu
timeout 120 $NCU -k "regex:fdr_kernel|region_|Scan|convert_kernel|cut_kernel|DeviceRadix" -s 200 -c 14 --section SpeedOfLight \
  $B/cuda_pfac_bench list $D/patterns/et-open.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-sort.txt 2>&1
stamp "ncu rc=$?"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput" $OUT/ncu-sort.txt | cut -c1-110 | head -60
