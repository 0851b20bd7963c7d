#!/bin/bash
# Session 23 call 4: branch s23/fused: the resident list with larger pieces (et-open: 32M and
# 64M list slots), then GPU tests the list path reaches that call 3 did not run.
set -u
CAP=330
. scripts/device-call.sh
for p in et-open:result_cap=32M et-open:result_cap=64M,chunk=64M snort-community:result_cap=64M,chunk=64M; do
  set=${p%%:*}; par=${p#*:}
  [ $(left) -lt 150 ] && break
  timeout 60 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 3 --algo fdr-gpu --params $par --only "resident list arrays, device ids+ends" > $OUT/list-$set-$par.txt 2>&1
  stamp "list $set $par rc=$?"; grep -E "ids.ends|differ|wrong|FAIL" $OUT/list-$set-$par.txt | grep -v radix | cut -c1-150
done
for t in fdr_gpu split_gpu list_cuda cli_find_marks.cuda; do
  [ $(left) -lt 30 ] && { stamp "no time for $t"; continue; }
  timeout $(( $(left) - 8 )) ctest --test-dir $B -R "^$t\$" --output-on-failure > $OUT/test-$t.txt 2>&1
  stamp "test $t rc=$?"; grep -E "Test +#|FAIL|mismatch|wrong" $OUT/test-$t.txt | head -8
done
pack
