#!/bin/bash
# Session 22 call 1: (a) branch tidy/s21-sort's GPU tests (list_sort incl. "dense stretches",
# list_sort_conformance_gpu, list_cuda_regions) and its list rows; (b) ncu full profile of
# fdr-gpu's list kernel (snort, et-open: first list launch); (c) exp/s21-small-regions' sort.cu
# swapped in, incremental build, the same tests and rows, ncu durations of the sort kernels.
set -u
. scripts/device-call.sh
tests() {
  timeout 150 ctest --test-dir $B -R '^(list_sort|list_sort_conformance_gpu|list_cuda_regions)$' --output-on-failure -j3 > $OUT/tests-$1.txt 2>&1
  stamp "tests $1 rc=$?"; grep -E "Passed|Failed|FAIL|tests passed" $OUT/tests-$1.txt | head
}
rows() {
  for set in snort-community et-open; do
    timeout 60 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/list-$1-$set.txt 2>&1
    stamp "list $1 $set rc=$?"; grep -E "ids.ends|phases" $OUT/list-$1-$set.txt | cut -c1-140
  done
}
tests tidy
rows tidy
for set in snort-community et-open; do
  timeout 90 /usr/local/cuda/bin/ncu --kernel-name-base demangled -k "regex:fdr_kernel<[^,]*, (\\(int\\))?1," -c 1 --set full --import-source yes -o $OUT/prof-$set \
     $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-full-$set.log 2>&1
  stamp "ncu full $set rc=$?"; grep -E "==PROF==|==ERR|fdr_kernel" $OUT/ncu-full-$set.log | head -5
  if [ -f $OUT/prof-$set.ncu-rep ]; then
    /usr/local/cuda/bin/ncu -i $OUT/prof-$set.ncu-rep --page details > $OUT/details-$set.txt 2>&1
    /usr/local/cuda/bin/ncu -i $OUT/prof-$set.ncu-rep --page source --csv --print-source sass > $OUT/sass-$set.csv 2>&1
    gzip -9 $OUT/sass-$set.csv; rm -f $OUT/prof-$set.ncu-rep
  fi
done
stamp "left $(left)"
cp .dev-s22/small-sort.cu src/cuda/sort.cu
cmake --build $B -j16 > $OUT/build-small.log 2>&1 || { grep -E "error" $OUT/build-small.log | head; }
stamp "built small"
tests small
rows small
for set in snort-community et-open; do
  [ $(left) -lt 40 ] && break
  timeout 40 /usr/local/cuda/bin/ncu -k "regex:small_sort|region_sort|region_pass" -c 16 --metrics gpu__time_duration.sum \
      $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-small-$set.txt 2>&1
  stamp "ncu small $set rc=$?"
  awk '/^  [a-zA-Z_]/{n=$0; sub(/\(.*/,"",n); sub(/.*::/,"",n)} /gpu__time/{s[n]+=$3; c[n]++} END{for(k in s) printf "   %-28s n=%d avg %.1f us\n",k,c[k],s[k]/c[k]}' $OUT/ncu-small-$set.txt
done
git checkout -q src/cuda/sort.cu
