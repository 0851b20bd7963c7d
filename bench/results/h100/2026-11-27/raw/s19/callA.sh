#!/bin/bash
# Session 19 call A: main 29897f4 on the H100: build, then the GPU tests that never ran on merged main,
# then the rest of the GPU-touching tests, then fdr-gpu/PFAC list phases (baseline).
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log --oneline -1 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
NEW="^(conformance_gpu|list_sort_conformance_gpu|gpu|gpu_list|cuda_exact|list_sort|fdr_gpu|fdr_gpu_core|sw_cuda|split_gpu|auto_choice_warm|auto_choice_cold|auto_choice_literal|sw_db|db_parts|cli_find_marks.cuda|cli_align_serve.cuda|cuda_list|cuda_overflow|cuda_marks|cli.algo-fdr|cli.backend-cuda|cli.align-backend-cuda.*|cli.find-invert-list|cli.json-list|cli.align-dna-auto|cli.align-list|align_db_gpu_mock)$"
(cd $B && timeout $(( $(left) - 200 )) ctest -j12 --timeout 300 -R "$NEW" --output-on-failure > $OUT/ctestA.log 2>&1)
stamp tests-new
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctestA.log | head -30
echo "skipped: $(grep '\*\*\*Skipped' $OUT/ctestA.log | awk '{print $4}' | tr '\n' ' ')"
grep -E "Test +#" $OUT/ctestA.log | awk '{print $(NF-1), $4}' | sort -n | tail -8
for set in snort-community et-open; do
  for algo in fdr-gpu pfac; do
    [ $(left) -lt 40 ] && break
    timeout $(( $(left) - 10 )) $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo $algo --only "resident list arrays, device ids+ends" > $OUT/list-$set-$algo.txt 2>&1
    stamp "list $set $algo rc=$?"
  done
done
