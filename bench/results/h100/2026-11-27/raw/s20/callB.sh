#!/bin/bash
# Session 20 call B: fdr-gpu's list: direct (two passes, written in place, shorts placed by ballot)
# against the one pass (atomic) and the staged two passes (two); GPU tests of lists and fdr (direct).
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
run() { # set mode
  if [ $2 = direct ]; then unset HAY_CUDA_FDR_LIST; else export HAY_CUDA_FDR_LIST=$2; fi
  echo "### $1 $2" >> $OUT/list-$1.txt
  timeout 100 $B/cuda_pfac_bench list $D/patterns/$1.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" >> $OUT/list-$1.txt 2>&1
  stamp "list $1 $2 rc=$?"
  tail -n 12 $OUT/list-$1.txt | grep -E "same|DIFF|1 calls" | grep -v radix | cut -c1-100
}
run et-open direct; run et-open atomic; run snort-community direct; run snort-community atomic; run snort-community two
unset HAY_CUDA_FDR_LIST
(cd $B && timeout $(( $(left) - 5 )) ctest -j8 --timeout 300 -R "^(fdr_gpu|fdr_gpu_core|conformance_gpu|gpu_list|list_sort_conformance_gpu|cli.algo-fdr|realdata|list_cuda|batch_cuda|cuda_overflow|cuda_list)$" --output-on-failure > $OUT/ctestB.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Passed|Skipped" $OUT/ctestB.log | head -20
