#!/bin/bash
# Session 20 call A: fdr-gpu's list in two passes (per-warp counts, no global atomic) against
# the one pass (HAY_CUDA_FDR_LIST=atomic), same process build; GPU tests of lists and fdr.
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in snort-community et-open; do
  for v in two atomic two2 atomic2; do
    case $v in atomic*) export HAY_CUDA_FDR_LIST=atomic;; *) unset HAY_CUDA_FDR_LIST;; esac
    timeout 100 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set-$v.txt 2>&1
    stamp "list $set $v rc=$?"
    grep -E "same|DIFF" $OUT/list-$set-$v.txt | cut -c1-90
    grep -A1 "serial\]" $OUT/list-$set-$v.txt | grep "1 calls" | cut -c1-110
  done
done
unset HAY_CUDA_FDR_LIST
(cd $B && timeout $(( $(left) - 5 )) ctest -j8 --timeout 300 -R "^(fdr_gpu|fdr_gpu_core|conformance_gpu|gpu_list|list_sort_conformance_gpu|cli.algo-fdr|realdata|list_cuda|batch_cuda|cuda_overflow|cuda_list)$" --output-on-failure > $OUT/ctestA.log 2>&1)
stamp tests
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Passed|Skipped" $OUT/ctestA.log | head -20
stamp end
