#!/bin/bash
# Session 20 call F (final code cb21a38+): count kernel with other run/threads (params), lits
# (count, marks; PFAC beside), the resident and pinned ordered lists (fdr-gpu; PFAC for et-open),
# then the GPU tests not yet run on the chunk counter.
set -u
T0=$(date +%s); CAP=${CAP:-590}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
git log --oneline -1 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in snort-community et-open; do
  for P in default run=32 run=128 threads=512; do
    A=""; [ $P = default ] || A="--params $P"
    echo "### $set $P" >> $OUT/count-params.txt
    timeout 40 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 5 --algo fdr-gpu $A --only "no-such-row" >> $OUT/count-params.txt 2>&1
    stamp "count $set $P rc=$?"; tail -n 3 $OUT/count-params.txt | grep -E "kernel-only" | cut -c1-100
  done
done
for set in snort-community et-open; do
  timeout 60 $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 --count-only --rows 2 > $OUT/lits-$set.txt 2>&1
  stamp "lits $set rc=$?"; grep -E "^pfac|^fdr|marks" $OUT/lits-$set.txt | cut -c1-140
done
for r in "snort-community fdr-gpu" "et-open fdr-gpu" "et-open pfac"; do
  set -- $r
  timeout 80 $B/cuda_pfac_bench list $D/patterns/$1.txt $D/text --reps 3 --algo $2 --only "pinned ids+ends|device ids+ends" > $OUT/list-$1-$2.txt 2>&1
  stamp "list $1 $2 rc=$?"; grep -E "ids.ends  " $OUT/list-$1-$2.txt | grep -v serial | cut -c1-100
done
(cd $B && timeout $(( $(left) - 5 )) ctest -j8 --timeout 300 -R "^(list_arrays_cuda|cli_find_marks.cuda|api|stops|split|auto_choice_warm|auto_choice_cold|auto_choice_literal|cli.backend-cuda|cli.json-list|cli.find-invert-list|list_cuda_regions|gpu|cuda_exact|list_sort|batch|list|conformance)$" --output-on-failure > $OUT/ctestF.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Passed|Skipped" $OUT/ctestF.log | head -30
