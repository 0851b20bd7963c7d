#!/bin/bash
# Session 11 call 2: auto's warm-up and literal rule; the probe's rates.
set -u
sh scripts/bench-device unpack
D=$PWD/.device-carry/data
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_DATA_DIR=$D >/dev/null && cmake --build $B -j16 --target hay test_auto_choice test_split test_gpu 2>&1 | grep -E "error|warning" | head
(cd $B && ctest -R "auto_choice|split|^gpu$" --output-on-failure 2>&1 | tail -15)
H=$B/hay
W=/dev/shm/hay; mkdir -p $W
if [ ! -f $W/c1g ]; then
  while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
  truncate -s 1073741824 $W/c1g
fi
P=$W/pats; mkdir -p $P
cp .dev-s11/words8.txt $P/; cp $D/patterns/snort-community.txt $P/snort.txt; cp $D/patterns/et-open.txt $P/etopen.txt
awk 'NR % 2 == 0' $D/patterns/english-words.txt | head -50000 > $P/words50k.txt
t() { local s=$(date +%s%N); "$@" > /tmp/o.txt 2>/tmp/e.txt; local e=$(date +%s%N); awk -v a=$s -v b=$e 'BEGIN { printf "%.3f ", (b - a) / 1e9 }'; }
for s in words8 words50k snort etopen; do
  for be in cpu cuda auto; do
   printf "%-9s %-5s " $s $be
   for r in 1 2 3 4 5; do t $H find --count-matches --backend $be -f $P/$s.txt $W/c1g; done
   printf "| %s " "$(head -c 20 /tmp/o.txt)"; echo
  done
  HAY_SPLIT_DEBUG=1 $H find --count-matches --stats -f $P/$s.txt $W/c1g 2>&1 >/dev/null | grep -E "^auto:|ran=|phase=compile|phase=total" | cut -c1-200
done
