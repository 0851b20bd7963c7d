#!/bin/bash
# Session 23 call 2: branch s23/round (tidy/s22-deal + exp/s22-round: short_list's owner by
# one OR and a shared table, key bytes from the text) in build-gpu, main e5073cc (main.tar)
# in /tmp/m/b: the list rows of both, alternating; the GPU tests of the changed kernel; then
# (time left) ncu of fdr-gpu's et-open count kernel on one piece (main's build).
set -u
CAP=570
. scripts/device-call.sh
mkdir -p /tmp/m && tar xf .dev-s23/main.tar -C /tmp/m
cmake -S /tmp/m -B /tmp/m/b -DCMAKE_BUILD_TYPE=Release -DHAY_BENCH=ON -DHAY_TESTS=OFF > $OUT/cfg-main.log 2>&1
cmake --build /tmp/m/b -j16 --target cuda_pfac_bench > $OUT/build-main.txt 2>&1; stamp "main built rc=$?"
for set in snort-community et-open; do
  for v in main round; do
    [ $(left) -lt 200 ] && break
    bin=$B/cuda_pfac_bench; [ $v = main ] && bin=/tmp/m/b/cuda_pfac_bench
    timeout 60 $bin list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set-$v.txt 2>&1
    stamp "list $set $v rc=$?"; grep -E "ids.ends|phases|differ|wrong|FAIL" $OUT/list-$set-$v.txt | grep -v "radix\|blocksort" | cut -c1-150
  done
done
timeout $(( $(left) - 110 )) ctest --test-dir $B -R '^(fdr_gpu|fdr_gpu_static|conformance_gpu|gpu_list)$' --output-on-failure -j4 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Test +#|tests passed|FAIL|mismatch|wrong" $OUT/tests.txt | head -30
if [ $(left) -gt 80 ]; then
  set=et-open
  timeout $(( $(left) - 15 )) /usr/local/cuda/bin/ncu --kernel-name-base demangled -k "regex:fdr_kernel<[^,]*, (\\(int\\))?0," --launch-skip 6 -c 1 --set full --import-source yes -o $OUT/prof \
     /tmp/m/b/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends [serial]" > $OUT/ncu.log 2>&1
  stamp "ncu rc=$?"
  if [ -f $OUT/prof.ncu-rep ]; then
    /usr/local/cuda/bin/ncu -i $OUT/prof.ncu-rep --page details > $OUT/details.txt 2>&1
    /usr/local/cuda/bin/ncu -i $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
    grep -E "Duration|Issued Warp|Executed Instructions  |Memory Throughput|DRAM Throughput" $OUT/details.txt | head
    rm -f $OUT/prof.ncu-rep
  fi
fi
pack
