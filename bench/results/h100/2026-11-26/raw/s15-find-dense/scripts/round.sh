#!/bin/sh
# .dev-s13/round.sh - h/find-dense: the find rows with dense literal sets
# (snort-community, et-open) on the 16-core host, CPU only.  Run from the
# worktree root with .device-carry carried; everything lands under $OUT.
# Under 6 minutes: the rows run in order of importance, each only while
# time is left (a row cut short is said so in summary.txt).
set -u
OUT=${OUT:-/tmp/find-dense-out}
mkdir -p "$OUT"
T0=$(date +%s)
left() { echo $(( ${1:-330} - ($(date +%s) - T0) )); }
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
# secs CMD...: the seconds CMD took (its output thrown away)
secs() { a=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(date +%s%N); echo $(( (b - a) / 1000000 ))ms; }
say "== $(date -u) $(nproc) cores; $(git log -1 --format=%h 2>/dev/null || echo no-git)"
sh scripts/bench-device unpack
DATA=$PWD/.device-carry/data
cmake -S . -B build-dense -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF -DHAY_OPENCL=OFF \
    -DHAY_TESTS=OFF >"$OUT/cmake.log" 2>&1
cmake --build build-dense -j16 --target hay >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
say "built in $(( $(date +%s) - T0 )) s"
export LD_LIBRARY_PATH=$PWD/.device-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
RG=$PWD/.device-carry/rg
for b in find-etopen-c find-snort-c find-etopen-lines find-snort-lines; do
    l=$(left 300)
    if [ "$l" -lt 40 ]; then say "$b: not run (time)"; continue; fi
    timeout "$l" python3 bench/run.py search --hay build-dense/hay --data "$DATA" \
        --work /tmp/hay-bench --carry .device-carry --bench "$b" --runs 2 --warmup 0 \
        --out "$OUT/$b" >"$OUT/$b.log" 2>&1
    say "$b: rc=$? ($(( $(date +%s) - T0 )) s)"
    grep -E "wall .* s" "$OUT/$b.log" | tee -a "$OUT/summary.txt"
done
# The other outputs once each, 16 threads, beside ripgrep (whole commands).
C=/tmp/hay-bench/data/corpus1g.txt
for set in snort-community et-open; do
    for a in -n -o --color=always -w -v -l; do
        [ "$(left 345)" -lt 20 ] && { say "$set $a: not run (time)"; continue; }
        h=$(secs build-dense/hay find $a -f "$DATA/patterns/$set.txt" "$C")
        [ "$(left 345)" -lt 20 ] && { say "$set $a: hay $h, rg not run (time)"; continue; }
        r=$(secs "$RG" --no-config -F $a -f "$DATA/patterns/$set.txt" "$C")
        say "$set $a: hay (16T) $h, rg $r"
    done
done
say "total $(( $(date +%s) - T0 )) s"
