#!/bin/sh
# .dev-s12/swdb-start-2.sh - issue 16, round 2: RESULT-1 showed the process's
# exit after a GPU search costs 0.10-0.12 s (the CUDA context's teardown;
# 0.002 s on the CPU path).  hay now ends the device's context on a thread as
# soon as the last search's scores are in (release_device), overlapping the
# alignments and printing.  This measures that, against HAY_ALIGN_RELEASE=0
# (teardown at exit), and a probe program of the exit's options.
# Run from the repository root on the GPU host (data under
# .device-carry/data, as scripts/bench-device lays it out; build dir build-gpu).
#
# Prints:
#  - nvidia-smi persistence mode, the device, the commit
#  - 5 rounds; in each, for the target as a database file (hay db build) and
#    as FASTA, for the 31 queries and for one 10-residue query, with
#    --score-only and with alignments: the whole command with
#      cuda        --backend cuda (device started on a thread at the command's start,
#                  released on a thread after the last scores)
#      cuda-norelease  the same, HAY_ALIGN_RELEASE=0 (context torn down at exit)
#      cuda-nowarm --backend cuda, HAY_ALIGN_WARM_UP=0 (started by the search, torn down at exit)
#      auto        --backend auto (the default: GPU only when the search pays its start-up)
#      cpu16       --backend cpu -j 16
#    each: the wall time measured outside the process (date +%s%N), then
#    `--stats`'s timeline (every phase: at/end are seconds after the search
#    command began, seconds = time inside, count = times entered;
#    "process_start" is from /proc, 10 ms steps); outputs compared with cpu16's
#  - a summary table (medians) of wall and the main phases per config
#  - first: the exit probe (.dev-s12/exit_probe.cu, 5 x {0, 256 MB on the
#    device} x {normal exit, _exit, cudaDeviceReset before exit, the reset on
#    a thread during 150 ms of CPU work}): init, reset, join and exit times
#  - full timelines in round 1 only (rounds 2-5: the summary lines)
#  - last: the device tests of the search (tests/gpu/sw_db_test, db_parts).
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
    if [ "$name" != cpu16 ] && [ -f "$W/out.cpu16.$mode.$QN.$TL" ]; then
        if cmp -s "$W/out.$name.$mode.$QN.$TL" "$W/out.cpu16.$mode.$QN.$TL"; then same=" same-as-cpu16=yes"
        else same=" same-as-cpu16=NO"; fi
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
echo "== exit probe (.dev-s12/exit_probe.cu): init, work, then exit by MODE; exit = process end seen outside - its last stamp"
nvcc -O2 -arch=sm_90 -o "$W/exit_probe" .dev-s12/exit_probe.cu -lpthread || echo "(nvcc failed)"
for rep in 1 2 3 4 5; do
    for mb in 0 256; do
        for m in normal _exit reset reset_thread; do
            s=$(date +%s%N)
            line=$("$W/exit_probe" $m $mb)
            e=$(date +%s%N)
            echo "$line" | awk -v s="$s" -v e="$e" '{ for (i = 1; i <= NF; i++) if ($i ~ /^realtime_end=/) { split($i, a, "="); x = a[2] } }
                { printf "%s wall=%.4f exit=%.4f\n", $0, (e - s) / 1e9, e / 1e9 - x }'
        done
    done
done | tee "$W/probe"
python3 - "$W/probe" <<'PY' || true
import collections, re, statistics, sys
v = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m = re.search(r"mode=(\S+) mb=(\d+)", l)
    if not m: continue
    for k, x in re.findall(r"(\w+)=([0-9.]+)", l):
        if k not in ("mb", "realtime_end"): v[(m.group(1), m.group(2))][k].append(float(x))
for key in sorted(v):
    print("probe mode=%s mb=%s: " % key + " ".join("%s %.4f" % (k, statistics.median(x)) for k, x in v[key].items()))
PY

# The target as FASTA and as a database file (hay db build: PERF.md's
# figures are with the file).
"$HAY" db build "$T" "$W/ecoli.hdb" >/dev/null || exit 1
for r in $(seq 1 "${ROUNDS:-5}"); do
    echo "== round $r"
    for TL in db fasta; do
        TGT=$T; [ $TL = db ] && TGT=$W/ecoli.hdb
        for QN in 31 10; do
            qf=$Q31; [ $QN = 10 ] && qf=$W/q10.fa
            for mode in score align; do
                run cpu16 "$qf" $mode -- --backend cpu -j 16
                run cuda "$qf" $mode -- --backend cuda
                run cuda-norelease "$qf" $mode HAY_ALIGN_RELEASE=0 -- --backend cuda
                run cuda-nowarm "$qf" $mode HAY_ALIGN_WARM_UP=0 -- --backend cuda
                run auto "$qf" $mode -- --backend auto
            done
        done
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
