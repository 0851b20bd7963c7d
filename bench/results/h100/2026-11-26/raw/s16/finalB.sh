#!/bin/bash
# Session 16 final B: fdr-gpu on english-words and the first 100/300/1,000 literals; swdb; align whole commands
# (cpu / cuda / auto) on E. coli and a quarter of it; find: eight words at 64 MiB (cpu vs auto), -c with the IDS
# sets on 1 GiB (cuda vs cpu vs ripgrep). Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-575}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay; RG=$PWD/.device-carry/rg
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay cuda_pfac_bench swdb_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
cmake --build $B -j16 > $OUT/build-all.log 2>&1 || { grep -E "error" $OUT/build-all.log | head; }
(cd $B && timeout 200 ctest -R "cli_find_marks.cuda" --timeout 190 > $OUT/ctest-marks.log 2>&1); grep -E "Passed|Failed|tests passed|Timeout" $OUT/ctest-marks.log
stamp tests
P=$D/patterns; mkdir -p /tmp/sub
for n in 100 300 1000; do head -n $n $P/et-open.txt > /tmp/sub/et-open-$n.txt; head -n $n $P/snort-community.txt > /tmp/sub/snort-$n.txt; done
for f in $P/english-words.txt /tmp/sub/et-open-100.txt /tmp/sub/et-open-300.txt /tmp/sub/et-open-1000.txt /tmp/sub/snort-100.txt /tmp/sub/snort-300.txt /tmp/sub/snort-1000.txt; do
  [ $(left) -gt 200 ] || break
  echo "-- $(basename $f)"; timeout 60 $B/cuda_pfac_bench lits $f $D/text --reps 3 --count-only --rows 2 2>&1 | grep -v "^#   " | tail -2
done
stamp lits subsets
[ $(left) -gt 400 ] && timeout 90 $B/swdb_bench --data $D --runs 3 ecoli pseudo256 > $OUT/swdb.txt 2>&1; tail -4 $OUT/swdb.txt
stamp swdb
Q=$D/bio/protein/queries_24-5478aa.fasta; T=$D/bio/protein/ecoli_k12_proteome.faa
awk '/^>/{n++} n<=1075' $T > /tmp/ecoli-q.faa
$H db build $T /tmp/ecoli.hdb >/dev/null 2>&1; $H db build /tmp/ecoli-q.faa /tmp/ecoli-q.hdb >/dev/null 2>&1
for db in /tmp/ecoli.hdb /tmp/ecoli-q.hdb; do
  echo "== align --top 50 --score-only -j 16, $(basename $db), 5 interleaved rounds (seconds)"
  for r in 1 2 3; do for be in cpu cuda auto; do [ $(left) -gt 90 ] || break; printf "%s " $be; t $H align --backend $be -j 16 --top 50 --score-only $Q $db; done; echo; done
  $H align --backend auto -j 16 --top 50 --score-only --stats $Q $db 2>&1 >/dev/null | grep -iE "backend|engine|note|auto" | head -5
done
stamp align
W=/dev/shm/hay; mkdir -p $W
while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
truncate -s 1073741824 $W/c1g; head -c 67108864 $W/c1g > $W/c64m
echo "== find --count-matches eight words, 64 MiB, 9 interleaved rounds (cpu, auto)"
for r in 1 2 3 4 5 6 7; do for be in cpu auto; do [ $(left) -gt 60 ] || break; printf "%s " $be; t $H find --count-matches --backend $be -f .dev-s16/words8.txt $W/c64m; done; echo; done
for set in snort-community et-open; do
  echo "== find -c -f $set, 1 GiB, 3 rounds (cuda, cpu, auto, rg)"
  for r in 1 2 3; do [ $(left) -gt 30 ] || break; for be in cuda cpu auto; do printf "$be "; t $H find -c --backend $be -f $P/$set.txt $W/c1g; done; printf "rg "; t $RG --no-config -F -c -f $P/$set.txt $W/c1g; echo; done
done
stamp end
