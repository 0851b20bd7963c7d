#!/bin/bash
# Session 15 call 1: baseline of main on the H100: fdr-gpu vs PFAC (lits), ncu availability and a profile of
# fdr_kernel, swdb pseudo1024 + ecoli + pseudo256, whole align commands. CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay cuda_pfac_bench swdb_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for set in snort-community et-open; do
  timeout 120 $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 > $OUT/lits-$set.txt 2>&1; grep -v "^#   " $OUT/lits-$set.txt
done
stamp lits done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1); echo "ncu: ${NCU:-none}"
if [ -n "$NCU" ]; then
  timeout 150 $NCU -k regex:fdr_kernel -c 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis $B/cuda_pfac_bench lits $D/patterns/snort-community.txt $D/text --reps 1 > $OUT/ncu-snort.txt 2>&1
  echo "ncu rc=$?"; grep -E "ERR|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occ|Block Limit|Issued Ipc|No Eligible|Stall|Warp Cycles|Executed Ipc" $OUT/ncu-snort.txt | head -60
fi
stamp ncu done
timeout 200 $B/swdb_bench --data $D --runs 3 ecoli pseudo256 pseudo1024 > $OUT/swdb.txt 2>&1; tail -14 $OUT/swdb.txt
stamp swdb done
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta; T=$P/ecoli_k12_proteome.faa
$H db build $T /tmp/ecoli.hdb >/dev/null 2>&1
echo "== whole commands, 31 queries x E. coli (db file), top 50, 5 rounds (seconds)"
for mode in "--score-only" ""; do for be in cuda auto cpu; do
  [ $(left) -gt 30 ] || break
  printf "%-12s %-5s " "${mode:-align}" $be; for r in 1 2 3 4 5; do t $H align --backend $be -j 16 --top 50 $mode $Q /tmp/ecoli.hdb; done; echo " $(md5sum < /tmp/out.txt | cut -c1-8)"
done; done
stamp end
