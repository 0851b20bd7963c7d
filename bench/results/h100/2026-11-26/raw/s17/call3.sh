#!/bin/bash
# Session 17 call 3: (a) issue 17 §5 on the H100: end-to-end counts from the page cache (4 GiB, /dev/shm)
# against the pinned copy ceiling, same run, 3 rounds; (b) bench part auto, full mode, without --stats timing.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay gpu_phases copy_ceiling > $OUT/build.log 2>&1 || grep error $OUT/build.log | head
stamp built
W=/dev/shm/hay; mkdir -p $W/pats
while [ $(stat -c %s $W/c4g 2>/dev/null || echo 0) -lt 4294967296 ]; do cat $D/text/*.txt >> $W/c4g; done
truncate -s 4294967296 $W/c4g
ph() { $B/gpu_phases --backend cuda --runs 9 --energy-seconds 0.3 "$@" $W/c4g 2>&1 | grep -E "^matches|one-shot scan|warm scan|resident scan|ran on" | grep -v " J per scan" | tr -s ' ' | tr '\n' ';'; echo; }
for r in 1 2 3; do
  echo "== round $r $(date +%T)"
  $B/copy_ceiling --gib 4 --runs 9 2>&1 | grep pinned
  printf "literal "; ph -e "Sherlock Holmes"
  printf "snort   "; ph -f $D/patterns/snort-community.txt
  printf "etopen  "; ph -f $D/patterns/et-open.txt
done
stamp e2e
rm -f $W/c4g
timeout 420 python3 bench/run.py --parts auto --build $B --data $D --out /tmp/auto --work /dev/shm/work 2>&1 | grep -E "^auto:|CHECK|rows"
cp /tmp/auto/bench.csv $OUT/auto-bench.csv; cp /tmp/auto/report.md $OUT/auto-report.md
stamp end
