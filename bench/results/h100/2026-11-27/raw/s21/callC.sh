#!/bin/bash
# Session 21 call C: the regions' counting sort with 256 buckets a region: tests, the resident list
# rows of fdr-gpu (snort, et-open; counting against [blocksort] in the same process); then the auto
# part with every other round in the reverse order (bench/lib/auto_part.py in_order).
set -u
T0=$(date +%s); CAP=${CAP:-585}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
git log --oneline | head -1; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
timeout 120 ctest --test-dir $B -R '^(list_sort|list_sort_conformance_gpu)$' --output-on-failure -j2 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Passed|Failed|FAIL|tests passed|HAY_CUDA_SORT" $OUT/tests.txt | head -20
for set in snort-community et-open; do
  timeout 60 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set.txt 2>&1
  stamp "list $set rc=$?"; grep -E "^resident list arrays, device ids.ends|phases" $OUT/list-$set.txt | cut -c1-150
done
timeout $(( $(left) - 5 )) python3 bench/run.py --parts auto --build $B --data $D --out /tmp/auto --work /dev/shm/work > $OUT/auto-console.txt 2>&1; cp /tmp/auto/report.md $OUT/auto-report.md; cp /tmp/auto/*.csv $OUT/ 2>/dev/null
stamp "auto rc=$?"; grep -E "^auto:" $OUT/auto-console.txt | cut -c1-150
