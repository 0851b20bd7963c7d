#!/bin/bash
# Session 14 final check of merged main on the device: build, GPU tests, swdb and list figures, find options
# at 16 threads and on 2 cores (taskset) against ripgrep. Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
RX="gpu|cuda|split|sw_db|db_parts|batch|conformance|list|align_db|fdr|auto_choice|modes|api|scan_parts|find_opts_nul"
(cd $B && timeout 300 ctest -j8 --timeout 280 -R "$RX" > $OUT/ctest.log 2>&1)
grep -E "Test +#" $OUT/ctest.log | sed 's/\.\.\.*/ /' | awk '{$1=$1};1' > $OUT/test-lines.txt
grep -E "tests passed|tests failed|Failed|Timeout|Not Run" $OUT/ctest.log | head -30
grep "Total Test time" $OUT/ctest.log
stamp tests done
timeout 150 $B/swdb_bench --data $D --runs 3 ecoli pseudo256 > $OUT/swdb.txt 2>&1; tail -12 $OUT/swdb.txt
stamp swdb done
for set in snort-community et-open; do
  if [ $(left) -gt 150 ]; then timeout 60 $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 > $OUT/list-$set.txt 2>&1; grep -v "^#" $OUT/list-$set.txt | tail -10; fi
done
stamp list done
if [ $(left) -gt 60 ]; then
  mkdir -p /tmp/bw; timeout $(( $(left) - 20 )) python3 bench/run.py --parts search --search-args "--bench find-invert|find-word|find-context" --runs 3 --no-gpu --out /tmp/bw > $OUT/find16.log 2>&1
  grep -E "^\| find-" /tmp/bw/report.md; cp /tmp/bw/bench.csv $OUT/find16.csv 2>/dev/null
fi
stamp end
