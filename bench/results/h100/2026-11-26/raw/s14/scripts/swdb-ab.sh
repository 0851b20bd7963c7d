#!/bin/bash
# swdb-ab.sh - A/B of the database-search kernel variants (issue 16) on the
# GPU host, from the repository root:
#
#   .dev-s13/swdb-ab.sh [NAME=FLAGS ...]      (default: the list below)
#
# Builds the baseline (no flags) and each variant (-DCMAKE_CUDA_FLAGS=FLAGS)
# into build-ab-NAME (targets $TARGETS; the variants compile only sw_db.cu,
# sw_db_search.cu and sw_db_kernels.cu, the other CUDA objects are copied
# from the baseline by .dev-s13/cuda-launcher.sh, and are built in
# parallel), runs the GPU tests of the search for each (ctest: sw_db, every
# score equal to the scalar reference; db_parts; align_db), and for
# MUTANTS (test only: a sed expression applied to a copy of
# sw_db_kernels.cu, built with the flags given; the tests must FAIL),
# then swdb_bench ecoli + pseudo256 for every variant in turn,
# ROUNDS (3) rounds interleaved, and prints one line per variant: test
# result, kernel GCUPS of each round and the median, per case.
# Data: .device-carry/data/bio/protein/ (unpacked from payload.tar.xz if
# needed), else ../shared/data.  Logs under $OUT (or .dev-s13/ab-out).
set -o pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${OUT:-$ROOT/.dev-s13/ab-out}
mkdir -p "$OUT"
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-16}
CASES=${CASES:-"ecoli pseudo256"}
TARGETS="test_sw_db_test test_db_parts test_align_db swdb_bench"
TESTS='^(sw_db|db_parts|align_db)$'

if [ $# -gt 0 ]; then
    VARIANTS=("$@")
else
    VARIANTS=(
        "b2b1=-DSWDB_B2B=1"
        "b2b3=-DSWDB_B2B=3"
    )
fi
VARIANTS=("base=" "${VARIANTS[@]}")
# Test-only mutants: NAME|FLAGS|SED (on src/cuda/sw_db_kernels.cu).
if [ -z "${MUTANTS+x}" ]; then
    # Round 1's mut-noreset (|-DSWDB_B2B=2|s/^\( *\)E\[q_\] = ngo2; /\1 /: the E
    # reset at a pair boundary removed) failed sw_db as it must; none now.
    MUTANTS=(
    )
fi

DATA=$ROOT/.device-carry/data
if [ ! -f "$DATA/bio/protein/ecoli_k12_proteome.faa" ]; then
    [ -f .device-carry/payload.tar.xz ] && sh scripts/bench-device unpack
fi
[ -f "$DATA/bio/protein/ecoli_k12_proteome.faa" ] || DATA=$ROOT/../shared/data
[ -f "$DATA/bio/protein/ecoli_k12_proteome.faa" ] || { echo "no data (bio/protein)"; exit 2; }
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

t0=$(date +%s)
configure() {   # NAME FLAGS
    cmake -S . -B "build-ab-$1" -DCMAKE_BUILD_TYPE=Release -DHAY_BENCH=ON -DHAY_BENCH=ON -DHAY_DATA_DIR="$DATA" \
        -DCMAKE_CUDA_FLAGS="$2" -DCMAKE_CUDA_COMPILER_LAUNCHER="$ROOT/.dev-s13/cuda-launcher.sh" \
        > "$OUT/cmake-$1.log" 2>&1
}
build() {       # NAME JOBS [BASE]
    if [ -n "$3" ]; then
        SWDB_AB_BASE=$ROOT/build-ab-$3 SWDB_AB_DIR=$ROOT/build-ab-$1 \
            cmake --build "build-ab-$1" -j"$2" --target $TARGETS > "$OUT/build-$1.log" 2>&1
    else
        cmake --build "build-ab-$1" -j"$2" --target $TARGETS > "$OUT/build-$1.log" 2>&1
    fi
}
configure base "" || { tail -20 "$OUT/cmake-base.log"; exit 1; }
build base "$JOBS" || { grep -E "error" "$OUT/build-base.log" | head -20; exit 1; }
echo "baseline built: $(( $(date +%s) - t0 )) s"
pids=()
nv=$(( ${#VARIANTS[@]} - 1 ))
per=$(( JOBS / (nv > 0 ? nv : 1) )); [ $per -lt 2 ] && per=2
for v in "${VARIANTS[@]:1}"; do
    name=${v%%=*} flags=${v#*=}
    ( configure "$name" "$flags" && build "$name" "$per" base ) &
    pids+=($!)
done
declare -A built
i=0
for v in "${VARIANTS[@]:1}"; do
    name=${v%%=*}
    if wait "${pids[i]}"; then built[$name]=1; else
        echo "$name: build failed"; grep -E "error" "$OUT/build-$name.log" | head -10; fi
    i=$((i + 1))
done
built[base]=1
echo "all built: $(( $(date +%s) - t0 )) s"

# Mutants: a copy of the tree with the sed applied, tests only.
for m in "${MUTANTS[@]}"; do
    IFS='|' read -r mname mflags msed <<< "$m"
    src=$ROOT/.dev-s13/src-$mname
    rm -rf "$src" && mkdir -p "$src"
    tar --exclude='./build*' --exclude=./.device-carry --exclude=./.dev-s13 --exclude=./.git -cf - . |
        tar -xf - -C "$src"
    sed -i "$msed" "$src/src/cuda/sw_db_kernels.cu"
    if cmp -s "$src/src/cuda/sw_db_kernels.cu" src/cuda/sw_db_kernels.cu; then
        echo "mutant $mname: the sed changed nothing"; continue
    fi
    if cmake -S "$src" -B "build-ab-$mname" -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR="$DATA" \
        -DCMAKE_CUDA_FLAGS="$mflags" -DCMAKE_CUDA_COMPILER_LAUNCHER="$ROOT/.dev-s13/cuda-launcher.sh" \
        > "$OUT/cmake-$mname.log" 2>&1 &&
        SWDB_AB_BASE=$ROOT/build-ab-base SWDB_AB_DIR=$ROOT/build-ab-$mname \
        cmake --build "build-ab-$mname" -j"$JOBS" --target test_sw_db_test > "$OUT/build-$mname.log" 2>&1; then
        timeout 300 ctest --test-dir "build-ab-$mname" -R '^sw_db$' --timeout 200 \
            > "$OUT/test-$mname.log" 2>&1
        echo "mutant $mname (must fail): rc=$? $(grep -E "tests passed|tests failed" "$OUT/test-$mname.log" | tail -1)"
        grep -E "differ|got .* want" "build-ab-$mname/Testing/Temporary/LastTest.log" 2>/dev/null | head -4
    else
        echo "mutant $mname: build failed"; grep -E "error" "$OUT/build-$mname.log" | head -5
    fi
done
echo "mutants done: $(( $(date +%s) - t0 )) s"

declare -A test
for v in "${VARIANTS[@]}"; do
    name=${v%%=*}
    [ -n "${built[$name]}" ] || continue
    timeout 400 ctest --test-dir "build-ab-$name" -R "$TESTS" --timeout 300 --output-on-failure \
        > "$OUT/test-$name.log" 2>&1
    rc=$?
    test[$name]="rc=$rc $(grep -E "tests passed|tests failed" "$OUT/test-$name.log" | tail -1)"
    echo "test $name: ${test[$name]}"
    grep -E "^ *[0-9]+/[0-9]+ Test" "$OUT/test-$name.log" | sed 's/^/    /'
    [ $rc -ne 0 ] && grep -iE "fail|mismatch|differ" "$OUT/test-$name.log" | head -8
done
echo "tests done: $(( $(date +%s) - t0 )) s"

# Rounds: every variant once per round, in a rotated order.
: > "$OUT/bench.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
    for v in "${VARIANTS[@]}"; do
        name=${v%%=*}
        [ -n "${built[$name]}" ] || continue
        timeout 120 "build-ab-$name/swdb_bench" --data "$DATA" --runs 1 $CASES 2> "$OUT/bench-$name-$r.err" |
            tail -n +2 | sed "s/^/$name\t$r\t/" >> "$OUT/bench.tsv"
    done
done
echo "benches done: $(( $(date +%s) - t0 )) s"
# bench.tsv: name round case queries targets cells create search kernel select
# rescored gcups_kernel gcups_search gcups_cs check
python3 - "$OUT/bench.tsv" "${VARIANTS[@]}" <<'EOF'
import collections, statistics, sys
rows = collections.defaultdict(list)
check = {}
for ln in open(sys.argv[1]):
    f = ln.rstrip("\n").split("\t")
    if len(f) < 15:
        continue
    rows[(f[0], f[2])].append(float(f[11]))
    check.setdefault(f[2], set()).add(f[14])
names = [v.split("=", 1)[0] for v in sys.argv[2:]]
cases = sorted({c for (_, c) in rows}, key=lambda c: (c != "ecoli", c))
base = {c: statistics.median(rows[("base", c)]) for c in cases if rows.get(("base", c))}
print("variant\t" + "\t".join("%s GCUPS kernel (rounds) median vs base" % c for c in cases))
for n in names:
    out = [n]
    for c in cases:
        g = rows.get((n, c))
        if not g:
            out.append("-")
            continue
        m = statistics.median(g)
        rel = " %+.1f%%" % (100 * (m / base[c] - 1)) if c in base else ""
        out.append("%s  %.0f%s" % ("/".join("%.0f" % x for x in g), m, rel))
    print("\t".join(out))
for c, s in check.items():
    print("check %s: %s" % (c, "equal on every run" if len(s) == 1 else "DIFFERS " + " ".join(sorted(s))))
EOF
for v in "${VARIANTS[@]}"; do
    name=${v%%=*}
    echo "$name: ${test[$name]:-not built}  flags: ${v#*=}"
done
echo "total $(( $(date +%s) - t0 )) s"
