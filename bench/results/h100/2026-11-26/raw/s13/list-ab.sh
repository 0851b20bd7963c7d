#!/bin/bash
# list-ab.sh - issue 17 part 2 (the full ordered list from the GPU), on the
# GPU host, from the repository root (a copy of branch h/gpu-list with
# .device-carry at the root):
#
#   .dev-s13/list-ab.sh [SETS]      (default: "snort-community et-open")
#
# 1. builds the tree (16 jobs; CUDA sm_90; bench on) into build-list, and the
#    baseline into /tmp/list-base/build: the same tree with main's (cf2cea1)
#    pipeline.c, context.c, driver.h from .dev-s13/base/ (the list path before
#    this branch: sort, copy-out, sync and delivery serial per piece; the
#    calling thread makes every batch record), with this branch's bench
# 2. the list tests: gpu_list, cuda_list, gpu, split_gpu, fdr_gpu, batch (quick,
#    in parallel)
# 3. .dev-s13/convert_probe (the host side alone: keys -> hay_match batches with
#    1..16 threads against the bench's checksum callback)
# 4. cuda_pfac_bench list SET --reps 3, this branch then the baseline, per set
#    (count, resident kernel, the callback alone, lists: per match,
#    list-batch, list-batch 1 thread, resident list-batch)
# 5. with the time left (the whole call stays under ~7.5 min): batch_cuda and
#    conformance_gpu (slow: 106 s and 227 s on the H200 in session 12)
# Environment: JOBS (16), REPS (3), BUDGET (450 s for the whole call),
# MODE (list; big adds knobs, CPU), BASE (1: build and run the bases),
# BASES ("base": folders of .dev-s13 overlaid on a copy of the tree, each
# built and benchmarked after this tree; "list" names this tree).
set -o pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
T0=$(date +%s)
JOBS=${JOBS:-16}
REPS=${REPS:-3}
BUDGET=${BUDGET:-470}
SETS=${1:-"snort-community et-open"}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }

DATA=$ROOT/.device-carry/data
if [ ! -d "$DATA/text" ]; then
    [ -f .device-carry/payload.tar.xz ] && sh scripts/bench-device unpack
fi
[ -d "$DATA/text" ] || DATA=$ROOT/../shared/data
[ -d "$DATA/text" ] || { echo "no data"; exit 2; }
stamp "host $(hostname) nproc=$(nproc) $(git rev-parse --short HEAD 2>/dev/null)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|L3" | head -4

MODE=${MODE:-list}
BASE=${BASE:-1}
cmake -S . -B build-list -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DHAY_DATA_DIR="$DATA" > /tmp/list-cmake.log 2>&1 ||
    { tail -20 /tmp/list-cmake.log; exit 1; }
TESTS="test_gpu_list test_cuda_list test_gpu test_split test_fdr_gpu test_batch test_conformance"
# BASES: folders of .dev-s13 whose src/ files overlay a copy of this tree
# (default "base": main's list path).
BASES=${BASES:-base}
[ "$BASE" = 1 ] || BASES=""
declare -A bpid
for b in $BASES; do
    rm -rf "/tmp/list-$b" && mkdir -p "/tmp/list-$b/src"
    tar --exclude='./build*' --exclude=./.device-carry --exclude=./.git --exclude='./.dev-*' \
        -cf - . | tar -C "/tmp/list-$b/src" -xf -
    cp -r ".dev-s13/$b/src/." "/tmp/list-$b/src/src/"
    ( cmake -S "/tmp/list-$b/src" -B "/tmp/list-$b/build" -DCMAKE_BUILD_TYPE=Release \
        -DHAY_BENCH=ON -DCMAKE_CUDA_ARCHITECTURES=90 > "/tmp/list-$b-cmake.log" 2>&1 &&
      cmake --build "/tmp/list-$b/build" -j"$JOBS" --target cuda_pfac_bench \
        > "/tmp/list-$b-build.log" 2>&1 ) &
    bpid[$b]=$!
done
cmake --build build-list -j"$JOBS" --target cuda_pfac_bench $TESTS > /tmp/list-build.log 2>&1 ||
    { grep -E "error" -A3 /tmp/list-build.log | head -30; exit 1; }
stamp "built"
ok_bases=""
for b in $BASES; do
    if wait "${bpid[$b]}"; then ok_bases="$ok_bases $b"; else
        echo "$b: build failed"; grep -E "error" -A3 "/tmp/list-$b-build.log" | head; fi
done
BASES=$ok_bases
stamp "bases built:$BASES"

ctest --test-dir build-list -j6 --timeout 240 --output-on-failure \
    -R "^(gpu_list|cuda_list|gpu|split_gpu|fdr_gpu|batch)$" 2>&1 | tail -25
stamp "quick tests done"

if [ -f .dev-s13/convert_probe.c ]; then
    cc -O2 -std=gnu11 -o /tmp/convert_probe .dev-s13/convert_probe.c src/cuda/list.c \
        src/core/pool.c src/core/batch.c src/core/status.c -Isrc/core -Iinclude -lpthread 2>/tmp/probe-cc.log &&
    { stamp "convert_probe (8 pieces of 8.9M keys)"; timeout 60 /tmp/convert_probe 8 1 2 4 8 16; } ||
        tail -5 /tmp/probe-cc.log
fi

for set in $SETS; do
    for which in list $BASES; do
        bin=build-list/cuda_pfac_bench
        [ $which != list ] && bin=/tmp/list-$which/build/cuda_pfac_bench
        stamp "$which: cuda_pfac_bench $MODE $set --reps $REPS"
        timeout $(( $(left) > 30 ? $(left) : 30 )) \
            $bin "$MODE" "$DATA/patterns/$set.txt" "$DATA/text" --reps "$REPS"
        echo "exit $?"
    done
done

rem=$(left)
stamp "slow tests with $rem s left"
if [ "$rem" -gt 60 ]; then
    timeout "$rem" ctest --test-dir build-list -j2 --timeout "$rem" --output-on-failure \
        -R "^(batch_cuda|conformance_gpu)$" 2>&1 | tail -25
fi
stamp "done"
