#!/bin/bash
# list-check.sh - h/gpu-list2 on the GPU host, from the root of a copy of the
# committed tree with .device-carry at the root:  bash .dev-s13/list-check.sh
# 1. builds build-gpu on 16 cores (bench on, the carried data)
# 2. the GPU suites, ctest -j8 (JOBS), each test's time; the list tests'
#    own lines (sections' times, small-list costs)
# 3. cuda_pfac_bench list for snort-community and et-open (--reps 1; REPS)
# 4. with the time left, the slowest suites alone, one after another
# Whole run capped at CAP seconds (default 530); outputs in $OUT (6 files).
set -u
T0=$(date +%s); CAP=${CAP:-530}; JOBS=${JOBS:-8}; REPS=${REPS:-1}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
OUT=${OUT:-/tmp/list-check-out}; mkdir -p "$OUT"
sh scripts/bench-device unpack > /dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
[ -d "$D/text" ] || D=$PWD/../shared/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "tree $(git log -1 --format=%h 2>/dev/null) nproc $(nproc)"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR="$D" \
    > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 2; }
timeout $(( $(left) - 200 )) cmake --build $B -j16 > "$OUT/build.log" 2>&1 ||
    { grep -E "error|Error" -A3 "$OUT/build.log" | head -30; exit 2; }
stamp "built"

RX=${RX:-"gpu|cuda|split|sw_db|db_parts|batch|conformance|list|align_db|fdr|auto_choice|modes"}
# Leave ~110 s for the two list benchmarks.
TT=$(( $(left) - 110 )); [ $TT -gt 500 ] && TT=500
(cd $B && timeout $(( TT + 5 )) ctest -j"$JOBS" --timeout "$TT" -R "$RX" > "$OUT/ctest.log" 2>&1)
grep -E "Test +#" "$OUT/ctest.log" | sed -E 's/ +Test +#[0-9]+: / /; s/ \.{3,}/ /' 
grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest.log"
grep -A40 "The following tests" "$OUT/ctest.log" | head -40
# The list tests' own lines: sections' times, the many-matches row.
L=$B/Testing/Temporary/LastTest.log
# The list tests' sections; conformance_gpu's variants, engines (times) and
# slowest cases.
if [ -f "$L" ]; then
    grep -E "^(dense|sparse|boundaries|short|stop): [0-9.]+ s|^many matches:|FAIL" "$L" |
        head -40 > "$OUT/test-lines.txt"
    awk '/Test: conformance_gpu$/ {on = 1} /<end of output>/ {on = 0} on' "$L" |
        grep -E "^(engine|variant|case) " >> "$OUT/test-lines.txt"
    grep -vE "^(case|variant) " "$OUT/test-lines.txt" | head -80
    grep -E "^case " "$OUT/test-lines.txt" | awk '{print $(NF-1), $0}' |
        sort -rn | head -12 | cut -d' ' -f2-
fi
stamp "tests done, $(left) s left"

BENCH=${BENCH:-1}   # 0: the tests alone
for set in snort-community et-open; do
    if [ "$BENCH" = 1 ] && [ "$(left)" -gt 25 ]; then
        stamp "cuda_pfac_bench list $set --reps $REPS"
        timeout $(( $(left) - 5 )) $B/cuda_pfac_bench list "$D/patterns/$set.txt" "$D/text" \
            --reps "$REPS" > "$OUT/list-$set.txt" 2>&1
        echo "exit $?"
        grep -v "^#   phases" "$OUT/list-$set.txt" | tail -24
    fi
done
# With the time left: the slowest suites alone, one after another (what the
# shared GPU costs them under -j8).
for t in conformance_gpu modes cuda_exact batch_cuda gpu_list; do
    [ "$BENCH" = 1 ] && [ "$(left)" -gt 40 ] || break
    (cd $B && timeout $(( $(left) - 10 )) ctest -R "^$t\$" --timeout $(( $(left) - 15 )) 2>&1 |
        grep -E "Test +#" | sed -E 's/ +Test +#[0-9]+: / alone: /; s/ \.{3,}/ /')
done
stamp "end"
