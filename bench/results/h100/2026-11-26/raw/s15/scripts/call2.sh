#!/bin/bash
# Session 15 call 2: a database larger than the GPU in parts (db_max=) before (9f18e90, .dev-s15/old) and
# after (the working tree); CUDASW++ 4.0 (built elsewhere, .dev-s15/cudasw4/) beside hay on the same data.
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay; HO=/tmp/oldb/hay
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay > $OUT/build.log 2>&1 || grep -E "error" $OUT/build.log | head
cmake -S .dev-s15/old -B /tmp/oldb -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$D > /tmp/cfg-old.log 2>&1 || tail -5 /tmp/cfg-old.log
cmake --build /tmp/oldb -j16 --target hay > /tmp/build-old.log 2>&1 || grep -E "error" /tmp/build-old.log | head
stamp built
python3 - <<'PY'
import os
AA = b"ARNDCQEGHILKMFPSTWYV"
tbl = bytes(AA[i % 20] for i in range(256))
n, L = 1000000, 256
data = os.urandom(n * L).translate(tbl)
with open("/tmp/p256.faa", "wb") as f:
    for i in range(n):
        f.write(b">s%d\n" % i); f.write(data[i * L:(i + 1) * L]); f.write(b"\n")

PY
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta; T=$P/ecoli_k12_proteome.faa
python3 - "$Q" <<'PY'
import sys
recs = [r for r in open(sys.argv[1]).read().split(">")[1:]]
best = min(recs, key=lambda r: abs(len("".join(r.split("\n")[1:])) - 256))
open("/tmp/q1.faa", "w").write(">" + best)
print("q1:", best.split("\n")[0][:40], len("".join(best.split("\n")[1:])), "aa")
PY
printf "db build p256: "; t $H db build /tmp/p256.faa /tmp/p256.hdb; echo; ls -la /tmp/p256.hdb | awk '{print $5}'
stamp data
echo "== 1M x 256 random proteins, hay align --backend cuda --top 50 --score-only --params P, seconds; old = 9f18e90"
for QQ in /tmp/q1.faa $Q; do
  echo "-- queries $QQ"
  for r in 1 2 3; do
    for bin in old new; do HB=$H; [ $bin = old ] && HB=$HO
      for P in none db_max=64M db_max=16M; do
        [ $(left) -gt 120 ] || continue
        PP=""; [ $P != none ] && PP="--params $P"
        printf "r%d %-4s %-12s " $r $bin $P; t $HB align --backend cuda -j 16 --top 50 --score-only $PP $QQ /tmp/p256.hdb; echo " $(md5sum < /tmp/out.txt | cut -c1-8) $(head -c 200 /tmp/err.txt | tr '\n' ' ')"
      done
    done
  done
done
stamp parts done
$H align --backend cuda -j 16 --top 50 --score-only --stats --params db_max=64M /tmp/q1.faa /tmp/p256.hdb > /dev/null 2> $OUT/stats-parts64.txt; tail -40 $OUT/stats-parts64.txt
$H align --backend cuda -j 16 --top 50 --score-only --stats /tmp/q1.faa /tmp/p256.hdb > /dev/null 2> $OUT/stats-resident.txt; tail -30 $OUT/stats-resident.txt
stamp stats done
C=.dev-s15/cudasw4
if [ -x $C/align ] && [ $(left) -gt 90 ]; then
  $H db build $T /tmp/ecoli.hdb > /dev/null 2>&1; mkdir -p /tmp/cdb; printf "cudasw makedb ecoli: "; t $C/makedb $T /tmp/cdb/ecoli; echo; tail -3 /tmp/err.txt
  echo "== E. coli whole commands, 5 rounds: CUDASW++ 4.0 (--dpx --uploadFull --top 50) vs hay --backend cuda --score-only"
  for r in 1 2 3 4 5; do
    printf "r%d cudasw4 " $r; t $C/align --query $Q --db /tmp/cdb/ecoli --top 50 --uploadFull --prefetchDBFile --mat blosum62 --dpx; cp /tmp/out.txt $OUT/cudasw-ecoli-out.txt
    printf " hay "; t $H align --backend cuda -j 16 --top 50 --score-only $Q /tmp/ecoli.hdb 2>/dev/null || true; echo
  done
  grep -i -E "gcups|time|total" $OUT/cudasw-ecoli-out.txt | tail -8
  if [ $(left) -gt 60 ]; then
    echo "== CUDASW++ pseudodb 1M x 256, 31 queries, whole command"
    t $C/align --query $Q --pseudodb 1000000 256 --top 50 --uploadFull --mat blosum62 --dpx; echo; grep -i -E "gcups|time|total" /tmp/out.txt | tail -6; cp /tmp/out.txt $OUT/cudasw-pseudo-out.txt
  fi
fi
stamp end
