#!/bin/bash
# Session 16 call 3: Nsight Compute on fdr-gpu's count kernel (two-round queue), snort-community and et-open.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target cuda_pfac_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
for SET in snort-community et-open; do
NCU=/usr/local/cuda/bin/ncu
timeout 240 $NCU -k regex:fdr_kernel -c 1 --set full --import-source no -o /tmp/$SET $B/cuda_pfac_bench lits $D/patterns/$SET.txt $D/text --reps 1 --count-only --rows 2 > $OUT/ncu-run-$SET.txt 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu-run-$SET.txt
stamp ncu
$NCU --import /tmp/$SET.ncu-rep --page details > $OUT/ncu-details-$SET.txt 2>&1
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occ|Issued Ipc|No Eligible|Warp Cycles|Executed Ipc|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Branch Eff|Avg. Active|Local" $OUT/ncu-details-$SET.txt | head -50
$NCU --import /tmp/$SET.ncu-rep --page source --csv --print-source sass > /tmp/sass-$SET.csv 2>&1; ls -la /tmp/sass-$SET.csv
python3 - /tmp/sass-$SET.csv <<'PY' > $OUT/sass-top-$SET.txt 2>&1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors='replace')))
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
ie = h.index('Instructions Executed'); te = h.index('Thread Instructions Executed')
print("total samples", tot, "instructions", len(body), "warp-inst %.4g thread-inst %.4g" % (sum(float(r[ie] or 0) for r in body), sum(float(r[te] or 0) for r in body)))
for k in idx[:60]:
    print(k, "%.2f%%" % (100*float(body[k][ci] or 0)/tot), " | ".join(body[k][:3]))
PY
head -45 $OUT/sass-top-$SET.txt
cp /tmp/sass-$SET.csv $OUT/ 2>/dev/null; xz -9 $OUT/sass-$SET.csv 2>/dev/null
done
stamp end
