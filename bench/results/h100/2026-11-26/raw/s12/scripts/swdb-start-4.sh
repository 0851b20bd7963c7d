#!/bin/sh
# .dev-s12/swdb-start-4.sh - issue 16, round 4.  RESULT-3: with --params
# scratch=64M the 31 queries' kernels took 0.034-0.035 s against 0.040-0.041
# with the default scratch (sized for every resident block: 150-300 MB) and
# 0.067 with 16M: a scratch that stays in the H100's 50 MB L2?  Before the
# default changes, the search call alone (swdb_bench: ecoli, pseudo256; the
# kernels' median of 3) over scratch budgets, then the 31
# queries' whole command with the best ones.  The exit stayed 0.10-0.11 s
# whatever the scratch (so that is not what makes it heavy).
set -u
ROOT=$(pwd)
B=${BUILD:-$ROOT/build-gpu}
D=${DATA:-$ROOT/.device-carry/data}
Q31=${QUERIES:-$D/bio/protein/queries_24-5478aa.fasta}
T=${TARGET:-$D/bio/protein/ecoli_k12_proteome.faa}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
[ -f "$D/../payload.tar.xz" ] && [ ! -f "$Q31" ] && scripts/bench-device unpack >/dev/null 2>&1
if [ ! -f "$Q31" ] || [ ! -f "$T" ]; then
    echo "no data at $D/bio/protein (scripts/bench-device unpack?)"; exit 1
fi
printf '>q10 ten residues\nHEAGAWGHEE\n' > "$W/q10.fa"

echo "== $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) uncommitted"
nvidia-smi -q | grep -i persist
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version 2>/dev/null | tail -1
nproc
echo "== build ($B, -j${JOBS:-16})"
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DHAY_BENCH=ON >"$W/cmake.log" 2>&1 || { tail -20 "$W/cmake.log"; exit 1; }
cmake --build "$B" -j"${JOBS:-16}" --target hay swdb_bench test_sw_db_test test_db_parts \
    >"$W/build.log" 2>&1 ||
    { tail -40 "$W/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
HAY=$B/hay

# run NAME QUERIES MODE ENV... -- ARGS...: one whole command, timed outside.
run() {
    name=$1; qf=$2; mode=$3; shift 3
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    so=""; [ "$mode" = score ] && so=--score-only
    s=$(date +%s%N)
    env $envs "$HAY" align --top 50 $so --stats "$@" "$qf" "$TGT" >"$W/out.$name.$mode.$QN.$TL" 2>"$W/err"
    rc=$?
    e=$(date +%s%N)
    wall=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    same=""
    if [ "$name" != cuda ] && [ -f "$W/out.cuda.$mode.$QN.$TL" ]; then
        if cmp -s "$W/out.$name.$mode.$QN.$TL" "$W/out.cuda.$mode.$QN.$TL"; then same=" same-as-cuda=yes"
        else same=" same-as-cuda=NO"; fi
    fi
    echo "--- round=$r queries=$QN target=$TL mode=$mode config=$name rc=$rc wall=$wall$same"
    if [ "$r" = 1 ] || [ "$r" = eager ]; then grep -v '^stats: lambda\|^stats: no E-values' "$W/err"
    else grep '^hay' "$W/err"; fi
    grep '^stats: timeline' "$W/err" | sed "s/^/R $r $QN $TL-$mode $name $wall /" >>"$W/all"
    echo "R $r $QN $TL-$mode $name $wall stats: timeline seconds=$wall phase=wall" >>"$W/all"
    # Start-up before align's start and exit after its end, from the wall
    # clock stamps the timeline prints.
    st=$(sed -n 's/.*realtime_start=\([0-9.]*\) realtime_end=\([0-9.]*\).*/\1 \2/p' "$W/err")
    if [ -n "$st" ]; then
        set -- $st
        awk -v s="$s" -v e="$e" -v a="$1" -v b="$2" -v p="R $r $QN $TL-$mode $name $wall" 'BEGIN {
            printf "%s stats: timeline seconds=%.6f phase=outside:exec_to_align_start\n", p, a - s / 1e9
            printf "%s stats: timeline seconds=%.6f phase=outside:align_end_to_exit\n", p, e / 1e9 - b }' >>"$W/all"
        awk -v s="$s" -v e="$e" -v a="$1" -v b="$2" 'BEGIN {
            printf "outside: exec_to_align_start=%.4f align_end_to_exit=%.4f\n", a - s / 1e9, e / 1e9 - b }'
    fi
}

: >"$W/all"
echo "== swdb_bench over scratch budgets (ecoli, pseudo256; kernel_s is the score kernels' median of 3)"
sb=$(find "$B" -name swdb_bench -type f | head -1)
for sc in default 32M 48M 64M 128M; do
    p=""; [ $sc != default ] && p="scratch=$sc"
    echo "-- scratch=$sc"
    if [ -n "$p" ]; then "$sb" --data "$D" --runs 3 --params "$p" ecoli pseudo256 2>&1 | tail -3
    else "$sb" --data "$D" --runs 3 ecoli pseudo256 2>&1 | tail -3; fi
done

"$HAY" db build "$T" "$W/ecoli.hdb" >/dev/null || exit 1
for r in $(seq 1 "${ROUNDS:-5}"); do
    echo "== round $r"
    TL=db TGT=$W/ecoli.hdb
    QN=31 qf=$Q31
    for mode in score align; do
        run cuda "$qf" $mode -- --backend cuda
        run cuda-scratch32M "$qf" $mode -- --backend cuda --params scratch=32M
        run cuda-scratch48M "$qf" $mode -- --backend cuda --params scratch=48M
        run cuda-scratch64M "$qf" $mode -- --backend cuda --params scratch=64M
    done
done

echo "== summary: medians over the rounds (seconds; wall measured outside the process)"
python3 - "$W/all" <<'EOF' || echo "(python3 missing: see the raw timelines above)"
import collections, re, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    key = (f[2], f[3], f[4])
    m = re.search(r"seconds=([0-9.]+) .*phase=(\S+)", line)
    if m:
        v[key + (m.group(2),)].append(float(m.group(1)))
    m = re.search(r"timeline end=\+([0-9.]+)", line)
    if m:
        v[key + ("in-process",)].append(float(m.group(1)))
phases = sorted({k[3] for k in v})
configs = sorted({k[:3] for k in v}, key=lambda c: (-int(c[0]), c[1], c[2]))
main = ["wall", "outside:exec_to_align_start", "outside:align_end_to_exit", "in-process",
        "gpu:batch_buffers_upload",
        "search:device_release_start", "cli:device_start_free", "cli:read_queries", "cli:read_target", "cli:db_build",
        "cli:open_db", "cli:scoring_and_kind", "cli:search", "search:device_wait", "warm:driver", "warm:context", "warm:kernels_load",
        "warm:select_load", "gpu:driver", "gpu:context", "gpu:db_upload", "gpu:profiles",
        "gpu:batch_buffers_upload", "gpu:launch", "gpu:wait_16bit", "gpu:select_launch",
        "gpu:wait_select", "device:kernels", "device:select", "search:end_cells",
        "search:traceback", "search:cpu_scores", "cli:print", "cli:free"]
for c in configs:
    print("%s queries, target-mode %s, %s:" % c)
    for p in main + [p for p in phases if p not in main]:
        x = v.get(c + (p,))
        if x and (p in main or statistics.median(x) >= 0.001):
            print("   %-26s median %.4f  min %.4f  max %.4f  (n=%d)" % (
                p, statistics.median(x), min(x), max(x), len(x)))
EOF

echo "== once: the device test of the search (tests/gpu/sw_db_test)"
t=$(find "$B" -name test_sw_db_test -type f | head -1)
[ -n "$t" ] && "$t" 2>&1 | tail -5
echo "== once: a database larger than the device allows, in parts (tests/gpu/db_parts)"
t=$(find "$B" -name test_db_parts -type f | head -1)
[ -n "$t" ] && "$t" 2>&1 | tail -5
echo "== done $(date -u +%FT%TZ)"
