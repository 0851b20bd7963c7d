#!/bin/bash
# Session 23 call 1: branch exp/s22-segments (fdr-gpu lists by chunk; hay_cuda_sort_grouped),
# rebased on main e5073cc.  List rows first (each row checks its list against the reference
# list; the default, by chunk, against [no chunks] in the same process), then the GPU tests.
set -u
CAP=565
. scripts/device-call.sh
for set in snort-community et-open; do
  timeout 80 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set.txt 2>&1
  stamp "list $set rc=$?"; grep -E "ids.ends|phases|differ|wrong|FAIL" $OUT/list-$set.txt | cut -c1-150
done
timeout $(( $(left) - 15 )) ctest --test-dir $B -R '^(fdr_gpu|fdr_gpu_nochunks|list_sort|gpu_list|conformance_gpu|list_sort_conformance_gpu|fdr_gpu_static|list_cuda_regions)$' --output-on-failure -j4 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Test +#|tests passed|FAIL|mismatch|wrong" $OUT/tests.txt | head -30
pack
