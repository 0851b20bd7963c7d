#!/bin/bash
# Session 21 call B: the regions' counting sort (sort.cu count_region): tests, then the resident
# list rows of fdr-gpu (snort, et-open) with the counting way and CUB's block radix sort
# ([blocksort]) in the same process; ncu: region_sort's duration per piece both ways.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
git log --oneline | head -1; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
timeout 200 ctest --test-dir $B -R '^(list_sort|list_sort_conformance_gpu|list_cuda_regions)$' --output-on-failure > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Passed|Failed|FAIL|tests passed" $OUT/tests.txt | head -20
for set in snort-community et-open; do
  timeout 100 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set.txt 2>&1
  stamp "list $set rc=$?"; grep -E "^resident list arrays, device ids.ends|phases" $OUT/list-$set.txt | cut -c1-150
done
for set in snort-community:136 et-open:264; do
  N=${set#*:}; set=${set%:*}
  timeout 120 /usr/local/cuda/bin/ncu -k "regex:region_sort" -c $N --metrics gpu__time_duration.sum \
      $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-$set.txt 2>&1
  stamp "ncu $set rc=$?"
  grep gpu__time $OUT/ncu-$set.txt | awk '{v[NR]=$3} END{n=NR; h=int(n/2); for(i=1;i<=n;i++){ if(i<=h) a+=v[i]; else b+=v[i]} printf "   %d launches: first half avg %.1f us, second half %.1f us\n", n, a/h, b/(n-h)}'
done
