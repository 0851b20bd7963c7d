#!/bin/bash
# Session 16 call 1: fdr-gpu's count kernel on et-open: baseline lits, then a full Nsight Compute profile
# with the SASS lines that stall most.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target cuda_pfac_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
timeout 100 $B/cuda_pfac_bench lits $D/patterns/et-open.txt $D/text --reps 3 --count-only > $OUT/lits-et-open.txt 2>&1; grep -v "^#   " $OUT/lits-et-open.txt | head -30
stamp lits
NCU=/usr/local/cuda/bin/ncu
timeout 240 $NCU -k regex:fdr_kernel -c 1 --set full --import-source no -o /tmp/etopen $B/cuda_pfac_bench lits $D/patterns/et-open.txt $D/text --reps 1 --count-only --rows 2 > $OUT/ncu-run.txt 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu-run.txt
stamp ncu
$NCU --import /tmp/etopen.ncu-rep --page details > $OUT/ncu-details.txt 2>&1
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occ|Issued Ipc|No Eligible|Warp Cycles|Executed Ipc|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Branch Eff|Avg. Active|Local" $OUT/ncu-details.txt | head -50
$NCU --import /tmp/etopen.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>&1; ls -la /tmp/sass.csv
python3 - <<'PY' > $OUT/sass-top.txt 2>&1
import csv, sys
rows = list(csv.reader(open('/tmp/sass.csv', errors='replace')))
hdr = None
for i, r in enumerate(rows):
    if any('Warp Stall Sampling' in c for c in r):
        hdr = i; break
if hdr is None:
    print("no header"); print(rows[:3]); sys.exit()
h = rows[hdr]; print(h)
ci = [j for j, c in enumerate(h) if c.startswith('Warp Stall Sampling (All')][0]
body = [r for r in rows[hdr+1:] if len(r) == len(h)]
tot = sum(float(r[ci] or 0) for r in body)
idx = sorted(range(len(body)), key=lambda k: -float(body[k][ci] or 0))
print("total samples", tot, "instructions", len(body))
for k in idx[:60]:
    print(k, "%.2f%%" % (100*float(body[k][ci] or 0)/tot), " | ".join(body[k][:3]))
PY
head -70 $OUT/sass-top.txt
cp /tmp/sass.csv $OUT/ 2>/dev/null; xz -9 $OUT/sass.csv 2>/dev/null
stamp end
