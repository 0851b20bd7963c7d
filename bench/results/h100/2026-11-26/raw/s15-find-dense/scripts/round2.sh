#!/bin/sh
# .dev-s13/round2.sh - h/find-dense round 2: the lines rows only (hay 1, 2,
# 16 threads beside ripgrep), then -n, -v, -o, --color once each on 16
# threads; under 4 minutes (it stops itself).  Outputs under $OUT.
set -u
OUT=${OUT:-/tmp/find-dense-out}
mkdir -p "$OUT"
T0=$(date +%s)
left() { echo $(( ${1:-220} - ($(date +%s) - T0) )); }
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
secs() { a=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(date +%s%N); echo $(( (b - a) / 1000000 ))ms; }
say "== $(date -u) $(nproc) cores"
sh scripts/bench-device unpack
DATA=$PWD/.device-carry/data
cmake -S . -B build-dense -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF -DHAY_OPENCL=OFF \
    -DHAY_TESTS=OFF >"$OUT/cmake.log" 2>&1
cmake --build build-dense -j16 --target hay >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
say "built in $(( $(date +%s) - T0 )) s"
export LD_LIBRARY_PATH=$PWD/.device-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
RG=$PWD/.device-carry/rg
for b in find-etopen-lines find-snort-lines; do
    l=$(left 200)
    if [ "$l" -lt 30 ]; then say "$b: not run (time)"; continue; fi
    timeout "$l" python3 bench/run.py search --hay build-dense/hay --data "$DATA" \
        --work /tmp/hay-bench --carry .device-carry --bench "$b" --engines 'hay|rg' \
        --runs 2 --warmup 0 --out "$OUT/$b" >"$OUT/$b.log" 2>&1
    say "$b: rc=$? ($(( $(date +%s) - T0 )) s)"
    grep -E "wall .* s" "$OUT/$b.log" | tee -a "$OUT/summary.txt"
done
C=/tmp/hay-bench/data/corpus1g.txt
for set in snort-community et-open; do
    for a in -n -v -c; do
        [ "$(left)" -lt 15 ] && { say "$set $a: not run (time)"; continue; }
        h=$(secs build-dense/hay find $a -f "$DATA/patterns/$set.txt" "$C")
        h1=$(secs build-dense/hay find --threads 1 $a -f "$DATA/patterns/$set.txt" "$C")
        [ "$(left)" -lt 10 ] && { say "$set $a: hay 16T $h 1T $h1, rg not run (time)"; continue; }
        r=$(secs "$RG" --no-config -F $a -f "$DATA/patterns/$set.txt" "$C")
        say "$set $a: hay 16T $h, 1T $h1, rg $r"
    done
done
for set in snort-community et-open; do
    for a in -o --color=always; do
        [ "$(left)" -lt 10 ] && { say "$set $a: not run (time)"; continue; }
        say "$set $a: hay 16T $(secs build-dense/hay find $a -f "$DATA/patterns/$set.txt" "$C") (rg in round 1: snort -o 23.7 s)"
    done
done
say "total $(( $(date +%s) - T0 )) s"
