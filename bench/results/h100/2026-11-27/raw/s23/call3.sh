#!/bin/bash
# Session 23 call 3: branch s23/fused (the regions' sort finished where the list is delivered,
# straight into device-reachable arrays: no pass of sorted keys, no conversion) in build-gpu,
# main e5073cc (main.tar) in /tmp/m/b: list rows of both, alternating; then the GPU tests of
# the list path (list_sort first: it checks the deferred sort against std::sort).
set -u
CAP=575
. scripts/device-call.sh
mkdir -p /tmp/m && tar xf .dev-s23/main.tar -C /tmp/m
cmake -S /tmp/m -B /tmp/m/b -DCMAKE_BUILD_TYPE=Release -DHAY_BENCH=ON -DHAY_TESTS=OFF > $OUT/cfg-main.log 2>&1
cmake --build /tmp/m/b -j16 --target cuda_pfac_bench > $OUT/build-main.txt 2>&1; stamp "main built rc=$?"
for set in snort-community et-open; do
  for v in main fused; do
    bin=$B/cuda_pfac_bench; [ $v = main ] && bin=/tmp/m/b/cuda_pfac_bench
    timeout 60 $bin list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set-$v.txt 2>&1
    stamp "list $set $v rc=$?"; grep -E "ids.ends|differ|wrong|FAIL" $OUT/list-$set-$v.txt | cut -c1-150
  done
done
for t in list_sort list_arrays_cuda list_cuda_regions gpu_list list_sort_conformance_gpu conformance_gpu; do
  [ $(left) -lt 60 ] && { stamp "no time for $t"; continue; }
  timeout $(( $(left) - 10 )) ctest --test-dir $B -R "^$t\$" --output-on-failure > $OUT/test-$t.txt 2>&1
  stamp "test $t rc=$?"; grep -E "Test +#|FAIL|mismatch|wrong" $OUT/test-$t.txt | head -8
done
pack
