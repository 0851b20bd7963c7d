#!/bin/bash
# .dev-s13/round.sh - branch h/sw-inter: the database search's CPU score pass
# with each kernel (db_kernel=inter: src/align/sw_inter_avx2.c; striped; auto)
# on the 16-core host.  CPU build only.  Under 5 minutes.  Outputs under $OUT.
# Usage (repository root, carry [".device-carry"]): bash .dev-s13/round.sh
set -u
OUT=${OUT:-/tmp/swi-out}; mkdir -p "$OUT"
exec > >(tee "$OUT/round.txt") 2>&1
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=${B:-build-cpu}; H=$PWD/$B/hay
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta; T=$P/ecoli_k12_proteome.faa
echo "== host"; date -u +%T; nproc; lscpu | grep -E "Model name"; git log --oneline -1
grep -o -w -E "avx2|avx512bw" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
echo "== build (CPU only)"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_CUDA=OFF \
  -DHAY_DATA_DIR=$D > "$OUT/cfg.log" 2>&1 || tail -20 "$OUT/cfg.log"
cmake --build $B -j16 --target hay test_align_inter > "$OUT/build.log" 2>&1 \
  || { grep -E "error" "$OUT/build.log" | head -20; exit 1; }
date -u +%T
$H db build $T /tmp/swi-ecoli.hdb > /dev/null || exit 1
# seconds of the whole command, then --stats' search seconds and engine
t() {
  local s=$(date +%s%N)
  "$@" > /tmp/swi-o.txt 2> /tmp/swi-e.txt; local rc=$?
  local e=$(date +%s%N)
  awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f", (b - a) / 1e9; if (rc) printf "(rc%d)", rc }'
  printf "/%s " "$(grep -o ' seconds=[0-9.]*' /tmp/swi-e.txt | head -1 | cut -d= -f2)"
}
run() { # kernel threads query db -> one timing
  t $H align --stats --backend cpu -j $2 --top 50 --score-only --params db_kernel=$1 $3 $4
}
echo "== 31 queries x E. coli (5.98e10 cells), -j 16 --top 50 --score-only, 5 rounds"
echo "   interleaved, the order rotated each round; each entry: whole command s / search s (--stats)"
K="inter_avx512 inter_avx2 striped auto"
declare -A R=([inter_avx512]="" [inter_avx2]="" [striped]="" [auto]="")
for r in 1 2 3 4 5; do
  set -- $K; K="$2 $3 $4 $1"
  for k in $K; do R[$k]="${R[$k]} $(run $k 16 $Q /tmp/swi-ecoli.hdb)"; done
done
for k in inter_avx512 inter_avx2 striped auto; do
  run $k 16 $Q /tmp/swi-ecoli.hdb > /dev/null
  echo "$k: ${R[$k]} engine=$(grep -o 'engine=[^ ]*' /tmp/swi-e.txt | cut -d= -f2) md5=$(md5sum < /tmp/swi-o.txt | cut -c1-8)"
done
python3 - "${R[inter_avx512]}" "${R[inter_avx2]}" "${R[striped]}" "${R[auto]}" <<'EOF2'
import statistics, sys
for name, v in zip(("inter_avx512", "inter_avx2", "striped", "auto"), sys.argv[1:]):
    w = [float(x.split("/")[0]) for x in v.split()]
    s = [float(x.split("/")[1]) for x in v.split()]
    print("%-12s median whole %.3f s (%.1f GCUPS), search %.3f s (%.1f GCUPS)" % (
        name, statistics.median(w), 5.977e10 / statistics.median(w) / 1e9,
        statistics.median(s), 5.977e10 / statistics.median(s) / 1e9))
EOF2
sed '/^>/!s/U/X/g' $T > /tmp/swi-ux.fa
printf "parasail striped16 16T (U read as X) "
for r in 1 2 3; do LD_LIBRARY_PATH=$PWD/.device-carry/lib-bench .device-carry/parasail_bench --threads 16 --matrix blosum62 --open 11 --extend 1 $Q /tmp/swi-ux.fa 2>&1 | grep -o "seconds=[0-9.]* gcups=[0-9.]*" | tr '\n' ' '; done; echo
date -u +%T
echo "== one thread, 2 rounds (whole s / search s)"
for r in 1 2; do for k in inter_avx512 inter_avx2 striped; do printf "%s %s  " $k "$(run $k 1 $Q /tmp/swi-ecoli.hdb)"; done; done; echo
echo "== per query, -j 16 (the kernel by query length), best of 3, search s"
mkdir -p /tmp/swi-q; rm -f /tmp/swi-q/*
awk '/^>/{n++; f=sprintf("/tmp/swi-q/q%02d.fa", n)} {print > f}' $Q
for f in /tmp/swi-q/q*.fa; do
  L=$(grep -v '>' $f | tr -d '\n' | wc -c)
  line="$(basename $f) len=$L"
  for k in inter_avx512 inter_avx2 striped; do
    b=""; for r in 1 2 3; do b="$b $(run $k 16 $f /tmp/swi-ecoli.hdb | cut -d/ -f2)"; done
    line="$line $k=$(echo $b | tr ' ' '\n' | sort -n | head -1)"
  done
  echo "$line"
done
date -u +%T
echo "== small databases, 1 query (361 aa) and 31, -j 16: where auto switches (best of 5, search s)"
python3 - $T <<'EOF'
import random, sys
recs = []
for l in open(sys.argv[1]):
    if l.startswith(">"): recs.append([l, ""])
    else: recs[-1][1] += l.strip()
random.seed(1); random.shuffle(recs)
for n in (128, 256, 512, 1024, 2048):
    open("/tmp/swi-db%d.fa" % n, "w").write("".join("%s%s\n" % (h, s) for h, s in recs[:n]))
EOF
for n in 128 256 512 1024 2048; do
  $H db build /tmp/swi-db$n.fa /tmp/swi-db$n.hdb > /dev/null
  for qq in /tmp/swi-q/q10.fa $Q; do
    line="db=$n q=$(basename $qq)"
    for k in inter_avx512 inter_avx2 striped auto; do
      b=""; for r in 1 2 3 4 5; do b="$b $(run $k 16 $qq /tmp/swi-db$n.hdb | cut -d/ -f2)"; done
      line="$line $k=$(echo $b | tr ' ' '\n' | sort -n | head -1)"
    done
    echo "$line engine(auto)=$(grep -o 'engine=[^ ]*' /tmp/swi-e.txt | cut -d= -f2)"
  done
done
date -u +%T
echo "== test_align_inter on this CPU"
OMP_WAIT_POLICY=passive timeout 100 $B/tests/align/test_align_inter $D 2>&1 | tail -12
date -u +%T
