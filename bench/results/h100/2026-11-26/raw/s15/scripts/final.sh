#!/bin/bash
# Session 15 final check of merged main on the device: build, GPU suites, fdr-gpu vs PFAC, swdb, align CPU kernels,
# find with dense sets (16 threads) against ripgrep, auto at 1 MiB. Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-570}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay; RG=$PWD/.device-carry/rg
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
RX="gpu|cuda|split|sw_db|db_parts|batch|conformance|list|align|fdr|auto_choice|modes|api|scan_parts|find"
(cd $B && timeout 330 ctest -j8 --timeout 300 -R "$RX" > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest.log | head -30; grep "Total Test time" $OUT/ctest.log
stamp tests done
for set in snort-community et-open; do
  [ $(left) -gt 120 ] && timeout 80 $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 ${LITS_ROWS:-} > $OUT/lits-$set.txt 2>&1; grep -v "^#   " $OUT/lits-$set.txt | head -8
done
stamp lits done
[ $(left) -gt 90 ] && timeout 80 $B/swdb_bench --data $D --runs 3 ecoli pseudo256 > $OUT/swdb.txt 2>&1; tail -3 $OUT/swdb.txt
W=/dev/shm/hay; mkdir -p $W/pats
if [ $(left) -gt 60 ]; then
  if [ ! -f $W/c1g ]; then
    while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
    truncate -s 1073741824 $W/c1g
  fi
  head -c 1048576 $W/c1g > $W/c1m; cp $D/patterns/et-open.txt $W/pats/etopen.txt; cp $D/patterns/snort-community.txt $W/pats/snort.txt
  echo "== auto vs cpu at 1 MiB, et-open, --count-matches, 7 interleaved rounds"
  for r in 1 2 3 4 5 6 7; do for be in cpu auto; do printf "%s " $be; t $H find --count-matches --backend $be -f $W/pats/etopen.txt $W/c1m; done; echo; done
  $H find --count-matches --backend auto --stats -f $W/pats/etopen.txt $W/c1m 2>&1 >/dev/null | grep -v timeline | head -12
fi
stamp end
