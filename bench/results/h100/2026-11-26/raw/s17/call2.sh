#!/bin/bash
# Session 17 call 2: bench part auto, full mode (1 MiB, 64 MiB, 1 GiB; cpu, cuda, auto; 5 interleaved rounds).
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay > $OUT/build.log 2>&1 || grep error $OUT/build.log | head
stamp built
timeout 500 python3 bench/run.py --parts auto --build $B --data $D --out /tmp/auto --work /dev/shm/work 2>&1 | grep -E "^auto:|CHECK|rows" 
cp /tmp/auto/bench.csv $OUT/auto-bench.csv; cp /tmp/auto/report.md $OUT/auto-report.md
stamp end
