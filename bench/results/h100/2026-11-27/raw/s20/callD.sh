#!/bin/bash
# Session 20 call D: fdr-gpu's warps taking chunks from a counter (dynamic) against the fixed
# order (HAY_CUDA_FDR_CHUNKS=static), same build: count kernel, marks, list; then GPU tests.
set -u
T0=$(date +%s); CAP=${CAP:-585}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
mode() { if [ $1 = dynamic ]; then unset HAY_CUDA_FDR_CHUNKS; else export HAY_CUDA_FDR_CHUNKS=$1; fi; }
for set in et-open snort-community; do
  for m in dynamic static; do
    mode $m
    echo "### $set $m" >> $OUT/lits-$set.txt
    timeout 90 $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 --count-only --rows 2 >> $OUT/lits-$set.txt 2>&1
    stamp "lits $set $m rc=$?"; tail -n 2 $OUT/lits-$set.txt | cut -c1-150
    echo "### $set $m" >> $OUT/list-$set.txt
    timeout 90 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" >> $OUT/list-$set.txt 2>&1
    stamp "list $set $m rc=$?"; tail -n 12 $OUT/list-$set.txt | grep -E "same|DIFF|1 calls" | grep -v radix | cut -c1-100
  done
done
unset HAY_CUDA_FDR_CHUNKS
(cd $B && timeout $(( $(left) - 5 )) ctest -j8 --timeout 300 -R "^(fdr_gpu|fdr_gpu_core|conformance_gpu|gpu_list|list_sort_conformance_gpu|cli.algo-fdr|realdata|batch_cuda|cuda_overflow|cuda_list|cuda_marks|modes|split_gpu|list_cuda)$" --output-on-failure > $OUT/ctestD.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Passed|Skipped" $OUT/ctestD.log | head -20
