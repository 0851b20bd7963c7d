#!/bin/bash
# Session 21 call D: the warps' counting sort (sort.cu warp_sort, a warp a region of at most 512
# keys): tests, ncu durations of the sort's kernels (first pieces of the default row, snort and
# et-open), resident and pinned list rows of fdr-gpu and PFAC with [blocksort] and [radix] beside.
set -u
T0=$(date +%s); CAP=${CAP:-520}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
git log --oneline | head -1; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
timeout 170 ctest --test-dir $B -R '^(list_sort|list_sort_conformance_gpu|list_cuda_regions)$' --output-on-failure -j3 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Passed|Failed|FAIL|tests passed|HAY_CUDA_SORT|cases" $OUT/tests.txt | head -20
for set in snort-community et-open; do
  timeout 40 /usr/local/cuda/bin/ncu -k "regex:warp_sort|region_sort|region_pass" -c 15 --metrics gpu__time_duration.sum \
      $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-$set.txt 2>&1
  stamp "ncu $set rc=$?"
  awk '/^  [a-zA-Z_]/{n=$0; sub(/\(.*/,"",n); sub(/.*::/,"",n)} /gpu__time/{s[n]+=$3; c[n]++} END{for(k in s) printf "   %-28s n=%d avg %.1f us\n",k,c[k],s[k]/c[k]}' $OUT/ncu-$set.txt
done
for r in "snort-community fdr-gpu pinned.ids.ends|device.ids.ends" "et-open fdr-gpu pinned.ids.ends|device.ids.ends" "et-open pfac device.ids.ends" "snort-community pfac device.ids.ends"; do
  set -- $r
  [ $(left) -lt 70 ] && { stamp "skip $1 $2"; continue; }
  ONLY=$(echo "$3" | tr . ' ')
  timeout $(( $(left) - 5 )) $B/cuda_pfac_bench list $D/patterns/$1.txt $D/text --reps 3 --algo $2 --only "$ONLY" > $OUT/list-$1-$2.txt 2>&1
  stamp "list $1 $2 rc=$?"; grep -E "ids.ends|phases" $OUT/list-$1-$2.txt | cut -c1-120
done
