#!/bin/bash
# Session 22 call 2: branch s22/sort (small_sort + tidy; fdr-gpu's short matches listed warp-wide).
set -u
CAP=560
. scripts/device-call.sh
for set in snort-community et-open; do
  timeout 60 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$set.txt 2>&1
  stamp "list $set rc=$?"; grep -E "ids.ends|phases" $OUT/list-$set.txt | cut -c1-140
done
timeout 300 ctest --test-dir $B -R '^(fdr_gpu|conformance_gpu|gpu_list|list_sort|list_sort_conformance_gpu)$' --output-on-failure -j4 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; grep -E "Test +#|tests passed|FAIL|mismatch" $OUT/tests.txt | head -20
if [ $(left) -gt 60 ]; then
  set=snort-community
  timeout $(( $(left) - 25 )) /usr/local/cuda/bin/ncu --kernel-name-base demangled -k "regex:fdr_kernel<[^,]*, (\\(int\\))?1," --launch-skip 4 -c 1 --set full --import-source yes -o $OUT/prof \
     $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu.log 2>&1
  stamp "ncu rc=$?"
  if [ -f $OUT/prof.ncu-rep ]; then
    /usr/local/cuda/bin/ncu -i $OUT/prof.ncu-rep --page details > $OUT/details.txt 2>&1
    /usr/local/cuda/bin/ncu -i $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
    grep -E "Duration|Issued Warp|Executed Instructions  |Active Threads" $OUT/details.txt | head
    rm -f $OUT/prof.ncu-rep
  fi
fi
cd $OUT && tar czf all.tgz --exclude=all.tgz --exclude=build.log * && ls -la all.tgz && find . -type f ! -name all.tgz -delete
