#!/bin/bash
# Session 11: whole commands with backend auto vs cpu vs cuda (issue 17 item 3),
# and -c vs --count-matches vs rg -c for eight words (issue 18).
# Run from the repo root on the device: bash .dev-s11/auto.sh [build-dir]
set -u
B=${1:-build-gpu}
sh scripts/bench-device unpack
D=$PWD/.device-carry/data
if [ ! -x $B/hay ]; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$D >/dev/null && cmake --build $B -j16 --target hay 2>&1 | tail -3
fi
H=$B/hay
nproc; nvidia-smi --query-gpu=name --format=csv,noheader
W=/dev/shm/hay; mkdir -p $W
if [ ! -f $W/c1g ]; then
  while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
  truncate -s 1073741824 $W/c1g
  head -c 67108864 $W/c1g > $W/c64m; head -c 1048576 $W/c1g > $W/c1m
fi
P=$W/pats; mkdir -p $P
cp .dev-s11/names8.txt .dev-s11/words8.txt .dev-s11/words64.txt $P/
cp $D/patterns/english-words-15plus.txt $P/words15.txt
cp $D/patterns/snort-community.txt $P/snort.txt
cp $D/patterns/et-open.txt $P/etopen.txt
awk 'NR % 2 == 0' $D/patterns/english-words.txt | head -50000 > $P/words50k.txt
t() { local s=$(date +%s%N); "$@" > /tmp/o.txt 2>/tmp/e.txt; local e=$(date +%s%N); awk -v a=$s -v b=$e 'BEGIN { printf "%.3f ", (b - a) / 1e9 }'; }
echo "== whole commands: hay find --count-matches -f SET FILE, seconds, 3 runs each"
for f in c1m c64m c1g; do
 for s in names8 words8 words64 words15 words50k snort etopen; do
  for be in cpu cuda auto; do
   printf "%-5s %-9s %-5s " $f $s $be
   for r in 1 2 3; do t $H find --count-matches --backend $be -f $P/$s.txt $W/$f; done
   printf "| %s " "$(head -c 40 /tmp/o.txt)"
   [ $be != cpu ] && { $H find --count-matches --stats -f $P/$s.txt $W/$f 2>&1 >/dev/null | grep -o "ran=.*\|phase=compile seconds=[0-9.]*\|phase=scan.*seconds=[0-9.]*\|phase=total seconds=[0-9.]*" | tr '\n' ' ' | cut -c1-260; }
   echo
  done
 done
done
echo "== eight words, 1 GiB: -c / --count-matches / rg -c / grep -c (5 runs)"
RG=.device-carry/rg
for c in "$H find -c -f $P/words8.txt $W/c1g" "$H find --count-matches -f $P/words8.txt $W/c1g" "$H find -c --backend cpu -f $P/words8.txt $W/c1g" "$RG -c -F -f $P/words8.txt $W/c1g" "grep -c -F -f $P/words8.txt $W/c1g"; do
  printf "%-70s " "${c#$PWD/}"; for r in 1 2 3 4 5; do t $c; done; head -c 30 /tmp/o.txt; echo
done
