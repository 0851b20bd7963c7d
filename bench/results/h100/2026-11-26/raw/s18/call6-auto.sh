#!/bin/bash
# Session 18: the auto part (bench/run.py --parts auto, full mode) on merged main, H100.
set -u
T0=$(date +%s); stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay > $OUT/build.log 2>&1 || grep error $OUT/build.log | head
stamp built
timeout 480 python3 bench/run.py --parts auto --build $B --data $D --out /tmp/auto --work /dev/shm/work 2>&1 | grep -E "^auto:|CHECK|rows"
cp /tmp/auto/report.md $OUT/auto-report.md 2>/dev/null; cp /tmp/auto/*.csv $OUT/ 2>/dev/null
stamp end
