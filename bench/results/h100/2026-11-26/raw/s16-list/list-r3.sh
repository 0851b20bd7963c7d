#!/bin/bash
# h/list round 3 (session 16): hay_scan_list on the H100 host.  Run from the tree root on the
# device with $OUT set.  Build (targets only), GPU list tests, cuda_pfac_bench list for snort and
# et-open (--reps 3) (no lits).
# Hard cap: CAP seconds (default 470).
set -u
T0=$(date +%s); CAP=${CAP:-470}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a $OUT/stamps.txt; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt; nproc >> $OUT/device.txt
git log --oneline -1 >> $OUT/device.txt 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target cuda_pfac_bench test_list test_cuda_list test_batch test_gpu_list > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
(cd $B && timeout 150 ctest --timeout 140 -R "^(list_cuda|gpu_list)$" --output-on-failure > $OUT/ctest.log 2>&1)
grep -E "Test +#|tests passed|tests failed" $OUT/ctest.log | head -20
grep -E "^row |bounded|ok |FAILED" $OUT/ctest.log | head -20
stamp tests done
for set in snort-community et-open; do
  t=$(( $(left) - 10 )); [ $set = snort-community ] && t=$(( t / 2 ))
  if [ $t -gt 30 ]; then
    timeout $t $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 > $OUT/list-$set.txt 2>&1
    echo "rc=$?" >> $OUT/list-$set.txt
    grep -v "^#   cuda list" $OUT/list-$set.txt | tail -40
  fi
  stamp list $set done
done
stamp end
