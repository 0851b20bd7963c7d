#!/bin/bash
# Session 19 call H: review tidy (fdr_short_in_word): list phases, GPU tests, lits count.
set -u
T0=$(date +%s); CAP=${CAP:-540}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null; git status --short | head
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in snort-community et-open; do
  for v in tidy; do
    timeout 100 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set-$v.txt 2>&1
    stamp "list $set $v rc=$?"
    grep -E "same|DIFF|kernel-only|serial" $OUT/list-$set-$v.txt | cut -c1-90
    grep -A1 "serial\]" $OUT/list-$set-$v.txt | grep "1 calls" | cut -c1-110
  done
done
(cd $B && timeout $(( $(left) - 5 )) ctest -j8 --timeout 300 -R "^(fdr_gpu|fdr_gpu_core|conformance_gpu|gpu_list|list_sort_conformance_gpu|cli.algo-fdr|realdata|list_cuda|batch_cuda)$" --output-on-failure > $OUT/ctestH.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Passed|Skipped" $OUT/ctestH.log | head -20
for set in snort-community et-open; do
  [ $(left) -lt 60 ] && break
  timeout $(( $(left) - 10 )) $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 --count-only --rows 2 > $OUT/lits-$set.txt 2>&1
  stamp "lits $set rc=$?"; grep -vE "^#" $OUT/lits-$set.txt | head -12 | cut -c1-100
done
stamp end
