#!/bin/bash
# Session 15 call 3: (a) the align GPU suites on main; (b) the parts and resident layout, old (9f18e90) vs new;
# (c) backend auto against cpu and cuda, whole hay find commands on the H100 host (issue 17 point 3).
set -u
T0=$(date +%s); CAP=${CAP:-570}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay; HO=/tmp/oldb/hay
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || grep -E "error" $OUT/build.log | head
if [ ! -x $HO ]; then
  cmake -S .dev-s15/old -B /tmp/oldb -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$D > /tmp/cfg-old.log 2>&1
  cmake --build /tmp/oldb -j16 --target hay > /tmp/build-old.log 2>&1 || grep -E "error" /tmp/build-old.log | head
fi
stamp built
(cd $B && timeout 200 ctest -j6 --timeout 190 -R "sw_db|db_parts|align|sw_cuda" > $OUT/ctest-align.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run" $OUT/ctest-align.log | head; grep "Total Test" $OUT/ctest-align.log
stamp tests
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta
if [ ! -f /tmp/p256.hdb ]; then
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
$H db build /tmp/p256.faa /tmp/p256.hdb > /dev/null 2>&1
fi
python3 - "$Q" <<'PY'
import sys
recs = [r for r in open(sys.argv[1]).read().split(">")[1:]]
best = min(recs, key=lambda r: abs(len("".join(r.split("\n")[1:])) - 256))
open("/tmp/q1.faa", "w").write(">" + best)
print("q1:", best.split("\n")[0][:40], len("".join(best.split("\n")[1:])), "aa")
PY
echo "== 1M x 256 random proteins, hay align --backend cuda -j 16 --top 50 --score-only [--params P], seconds; old = 9f18e90"
for QQ in /tmp/q1.faa $Q; do
  echo "-- queries $QQ"
  for r in 1 2 3; do
    for bin in old new; do HB=$H; [ $bin = old ] && HB=$HO
      for P in none db_max=64M; do
        PP=""; [ $P != none ] && PP="--params $P"
        printf "r%d %-4s %-12s " $r $bin $P; t $HB align --backend cuda -j 16 --top 50 --score-only $PP $QQ /tmp/p256.hdb; echo " $(md5sum < /tmp/out.txt | cut -c1-8)"
      done
    done
  done
done 2>&1 | tee $OUT/parts.txt
$H align --backend cuda -j 16 --top 50 --score-only --stats /tmp/q1.faa /tmp/p256.hdb 2>&1 >/dev/null | grep -E "db_layout|db_upload|cli:search|device:kernels" 
stamp parts
W=/dev/shm/hay; mkdir -p $W/pats
if [ ! -f $W/c1g ]; then
  while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
  truncate -s 1073741824 $W/c1g
fi
head -c 67108864 $W/c1g > $W/c64m; head -c 1048576 $W/c1g > $W/c1m
cp .dev-s15/words8.txt $W/pats/; cp $D/patterns/snort-community.txt $W/pats/snort.txt; cp $D/patterns/et-open.txt $W/pats/etopen.txt
cp $D/patterns/english-words-15plus.txt $W/pats/words15.txt
awk 'NR % 2 == 0' $D/patterns/english-words.txt | head -50000 > $W/pats/words50k.txt
echo "== hay find --count-matches -f SET FILE, --backend cpu/cuda/auto, 3 runs each, seconds (whole command)"
for f in c1g c64m c1m; do for s in words8 words15 words50k snort etopen; do
  [ $(left) -gt 60 ] || break
  for be in cpu cuda auto; do
    printf "%-5s %-9s %-5s " $f $s $be; for r in 1 2 3; do t $H find --count-matches --backend $be -f $W/pats/$s.txt $W/$f; done; echo "| $(head -c 20 /tmp/out.txt)"
  done
done; done 2>&1 | tee $OUT/auto.txt
echo "== hay find -c (lines) -f SET c1g"
for s in snort etopen; do for be in cpu cuda auto; do
  [ $(left) -gt 20 ] || break
  printf "%-9s %-5s " $s $be; for r in 1 2 3; do t $H find -c --backend $be -f $W/pats/$s.txt $W/c1g; done; echo "| $(head -c 20 /tmp/out.txt)"
done; done 2>&1 | tee $OUT/auto-lines.txt
stamp end
