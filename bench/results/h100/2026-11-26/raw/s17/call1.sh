#!/bin/bash
# Session 17 call 1: (a) hay find -c / --count-matches cpu vs auto vs cuda over 1 GiB after session 16's
# find fixes; (b) the list rows incl. ids+ends; (c) lits baseline for fdr-gpu.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay; P=$D/patterns
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || grep error $OUT/build.log | head
stamp built
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader; nproc
W=/dev/shm/hay; mkdir -p $W
while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
truncate -s 1073741824 $W/c1g
for r in 1 2 3; do
  printf -- "-c et-open:    "; for be in cpu auto; do printf "$be "; t $H find -c --backend $be -f $P/et-open.txt $W/c1g; done; echo
  printf -- "-c snort:      "; for be in cpu auto; do printf "$be "; t $H find -c --backend $be -f $P/snort-community.txt $W/c1g; done; echo
  printf -- "-cm et-open:   "; for be in cpu auto cuda; do printf "$be "; t $H find --count-matches --backend $be -f $P/et-open.txt $W/c1g; done; echo
  printf -- "-cm snort:     "; for be in cpu auto cuda; do printf "$be "; t $H find --count-matches --backend $be -f $P/snort-community.txt $W/c1g; done; echo
done
stamp find
for set in snort-community et-open; do
  timeout 120 $B/cuda_pfac_bench list $P/$set.txt $D/text --reps 3 > $OUT/list-$set.txt 2>&1; grep -i "list arrays\|^# check\|FAIL" $OUT/list-$set.txt | head -20
done
stamp list
for set in et-open snort-community; do
  timeout 120 $B/cuda_pfac_bench lits $P/$set.txt $D/text --reps 3 --count-only > $OUT/lits-$set.txt 2>&1; grep -v "^#   " $OUT/lits-$set.txt | head -20
done
stamp end
