#!/bin/bash
# fdr-ab.sh - fdr's scan variants (h/fdr-host, issue 18) against Hyperscan on
# english-words-15plus, interleaved.  Run from the repository root:
#
#   .dev-s12/fdr-ab.sh build [VARIANT...]    build one hay a variant in /tmp/hfdr-ab/VARIANT
#   .dev-s12/fdr-ab.sh run   [VARIANT...]    ROUNDS (7) interleaved rounds: 1 thread,
#                                            1 thread under taskset -c 3, 16 threads
#   .dev-s12/fdr-ab.sh all   [VARIANT...]    both
#   .dev-s12/fdr-ab.sh counts                candidates and verifications (1 thread)
#
# Variants (default: base const nomask all priv pop allpop):
#   base     main's scan (session 11): FDR_DEFAULT_VARIANT=0
#   const    =1: 3-byte loops specialized on the key bits: shift by a constant, not by CL
#   nomask   =3: const + the key without the AND (another hash: the table changes)
#   verify2  =4: candidates' bytes 8-15 compared as one word before memcmp
#   bloom    =8: a bitmap of the literals' prefix hashes before the literal table
#   all      =15: all four: this branch's default (a plain build)
#   d14      all with 14 key bits (128 KiB table in L2, not 32 KiB in L1)
#   s1       all at stride 1 (twice the lookups, fewer candidates)
#   priv     base, hay maps the file MAP_PRIVATE as hs_bench does (not MAP_SHARED)
#   pop      base, hay maps with MAP_POPULATE; Hyperscan then runs as hs_bench
#            --populate (page faults out of both scan phases)
#   allpop   all, with MAP_POPULATE (compare with hs-pop)
# Environment: ROUNDS (7), THREADS ("1 1p 16"; 1p = 1 thread pinned by taskset -c 3),
# PIN_CPU (3), JOBS (16), PATS (/dev/shm/hay/pats/words15.txt), TEXT (/dev/shm/hay/c1g),
# HS (.device-carry/hs_bench, LD_LIBRARY_PATH=.device-carry/lib).
set -u
ROOT=$PWD
OUT=/tmp/hfdr-ab
PATS=${PATS:-/dev/shm/hay/pats/words15.txt}
TEXT=${TEXT:-/dev/shm/hay/c1g}
HS=${HS:-$ROOT/.device-carry/hs_bench}
ROUNDS=${ROUNDS:-7}
THREADS=${THREADS:-"1 1p 16"}
JOBS=${JOBS:-16}
export LD_LIBRARY_PATH=$ROOT/.device-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

defs() {
    case $1 in
    base|priv|pop) echo "-DFDR_DEFAULT_VARIANT=0" ;;
    const) echo "-DFDR_DEFAULT_VARIANT=1" ;;
    nomask) echo "-DFDR_DEFAULT_VARIANT=3" ;;
    verify2) echo "-DFDR_DEFAULT_VARIANT=4" ;;
    bloom) echo "-DFDR_DEFAULT_VARIANT=8" ;;
    all|allpop) echo "-DFDR_DEFAULT_VARIANT=15" ;;
    d14) echo "-DFDR_DEFAULT_VARIANT=15 -DFDR_FORCE_DOMAIN=14" ;;
    s1) echo "-DFDR_DEFAULT_VARIANT=15 -DFDR_FORCE_STRIDE=1" ;;
    cnt-base) echo "-DFDR_COUNTERS=1 -DFDR_DEFAULT_VARIANT=0" ;;
    cnt-all) echo "-DFDR_COUNTERS=1 -DFDR_DEFAULT_VARIANT=15" ;;
    *) echo "fdr-ab.sh: unknown variant $1" >&2; return 1 ;;
    esac
}

# The source of a variant: the tree itself, or a copy with programs/find/input.c's
# mmap changed (priv, pop).
src_of() {
    case $1 in
    priv|pop|allpop)
        local s=$OUT/src-$1 flag
        [ "$1" = priv ] && flag="MAP_PRIVATE" || flag="MAP_PRIVATE | MAP_POPULATE"
        rm -rf "$s" && mkdir -p "$s"
        tar --exclude='./build*' --exclude=./.device-carry --exclude=./.git --exclude='./.dev-*' \
            --exclude=./bench/work -cf - . | tar -C "$s" -xf -
        sed -i "s/PROT_READ, MAP_SHARED, in->fd, 0)/PROT_READ, $flag, in->fd, 0)/" "$s/programs/find/input.c"
        grep -q "PROT_READ, $flag, in->fd" "$s/programs/find/input.c" ||
            { echo "fdr-ab.sh: could not patch input.c for $1" >&2; return 1; }
        echo "$s" ;;
    *) echo "$ROOT" ;;
    esac
}

build() {
    local v=$1 d s
    d=$(defs "$v") || return 1
    s=$(src_of "$v") || return 1
    cmake -S "$s" -B "$OUT/$v" -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF \
        -DCMAKE_C_FLAGS="$d" >"$OUT/$v.cmake.log" 2>&1 &&
    cmake --build "$OUT/$v" -j"$JOBS" --target hay >"$OUT/$v.build.log" 2>&1 &&
    echo "built $v ($d)" || { echo "BUILD FAILED: $v (see $OUT/$v.build.log)"; tail -5 "$OUT/$v.build.log"; return 1; }
}

# One run: prints the scan phase's GB/s; warns on a wrong count.
EXPECT=""
one() {
    local out err gb
    out=$("$@" 2>/tmp/hfdr-ab-err) || { echo "FAIL"; return; }
    gb=$(grep -o 'phase=scan.*gbps=[0-9.]*' /tmp/hfdr-ab-err | grep -o '[0-9.]*$')
    if [ -n "$EXPECT" ] && [ "$out" != "$EXPECT" ]; then
        echo "COUNT $out != $EXPECT: $*" >&2
    fi
    echo "$gb"
}

stats() {   # name numbers...: median and best
    python3 -c '
import sys, statistics
name, xs = sys.argv[1], [float(x) for x in sys.argv[2:] if x not in ("", "FAIL")]
if not xs:
    print("%-10s no runs" % name); sys.exit()
print("%-10s median %6.2f  best %6.2f  (%s)" % (name, statistics.median(xs), max(xs), " ".join("%.2f" % x for x in xs)))
' "$@"
}

run() {
    local vs=("$@") th cfg pin v r
    echo "== $(date -u +%FT%TZ) $(hostname) nproc=$(nproc)"
    lscpu | head -20
    echo "patterns $PATS ($(wc -l <"$PATS") lines), text $TEXT ($(stat -c %s "$TEXT") bytes), rounds $ROUNDS"
    "$HS" --version
    EXPECT=$("$HS" -f "$PATS" --threads 1 "$TEXT" 2>/dev/null)
    echo "expected count (Hyperscan): $EXPECT"
    local with_pop=0
    for v in "${vs[@]}"; do case $v in pop|allpop) with_pop=1 ;; esac; done
    for cfg in $THREADS; do
        th=${cfg%p}; pin=""
        [ "$cfg" != "$th" ] && pin="taskset -c ${PIN_CPU:-3}"
        declare -A res=()
        for r in $(seq "$ROUNDS"); do
            for v in "${vs[@]}"; do
                res[$v]+=" $(one $pin "$OUT/$v/hay" find --count-matches --backend cpu --threads "$th" --stats -f "$PATS" "$TEXT")"
            done
            res[hs]+=" $(one $pin "$HS" -f "$PATS" --threads "$th" "$TEXT")"
            if [ $with_pop = 1 ]; then
                res[hs-pop]+=" $(one $pin "$HS" --populate -f "$PATS" --threads "$th" "$TEXT")"
            fi
        done
        echo "-- threads $th${pin:+ ($pin)}: scan-phase GB/s"
        for v in "${vs[@]}" hs $( [ $with_pop = 1 ] && echo hs-pop ); do
            # shellcheck disable=SC2086
            stats "$v" ${res[$v]}
        done
        unset res
    done
}

counts() {
    local v
    for v in cnt-base cnt-all; do
        [ -x "$OUT/$v/hay" ] || build "$v" || continue
        echo "-- $v, 1 thread"
        "$OUT/$v/hay" find --count-matches --backend cpu --threads 1 --stats -f "$PATS" "$TEXT" 2>&1 |
            grep -E '^[0-9]+$|fdr-counters|phase=scan'
    done
}

mkdir -p "$OUT"
cmd=${1:-all}
shift || true
VARS=("$@")
[ ${#VARS[@]} -eq 0 ] && VARS=(base const nomask all priv pop allpop)
case $cmd in
build) for v in "${VARS[@]}"; do build "$v"; done ;;
run) run "${VARS[@]}" ;;
all) for v in "${VARS[@]}"; do build "$v"; done; run "${VARS[@]}" ;;
counts) counts ;;
*) sed -n '2,30p' "$0"; exit 2 ;;
esac
