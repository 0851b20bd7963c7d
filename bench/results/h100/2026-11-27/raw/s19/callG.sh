#!/bin/bash
# Session 19 call G: the full ordered list into pinned and device arrays (ids+ends), fdr-gpu and PFAC
# in the same call, 1 GiB, final code (c435bd8).
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
for set in snort-community et-open; do
  for algo in fdr-gpu pfac; do
    timeout 130 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo $algo --only "pinned ids+ends|device ids+ends" > $OUT/listG-$set-$algo.txt 2>&1
    stamp "list $set $algo rc=$?"
    grep -E "same|DIFF" $OUT/listG-$set-$algo.txt | grep -v serial | cut -c1-90
  done
done
