#!/bin/bash
# Session 18: does a cuda command slow the command after it?  et-open -c and snort --count-matches, 1 GiB.
set -u
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; W=/dev/shm/hay; mkdir -p $W
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_DATA_DIR=$D > /dev/null 2>&1
cmake --build $B -j16 --target hay > /dev/null 2>&1 || echo BUILD FAILED
while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
truncate -s 1073741824 $W/c1g
tm() { local s=$EPOCHREALTIME; $B/hay find --backend "$@" $W/c1g > /dev/null 2>&1; local e=$EPOCHREALTIME; awk -v a=$s -v b=$e 'BEGIN{printf "%.3f ", b-a}'; }
for c in "-c|$D/patterns/et-open.txt" "--count-matches|$D/patterns/snort-community.txt"; do
  IFS='|' read -r o f <<< "$c"; echo "== $o $(basename $f)"
  echo -n "cpu,auto alone:   "; for i in 1 2 3 4 5; do tm cpu $o -f $f; tm auto $o -f $f; done; echo
  echo -n "cuda,auto pairs:  "; for i in 1 2 3 4; do tm cuda $o -f $f; echo -n "-> "; tm auto $o -f $f; echo -n "| "; done; echo
  echo -n "cuda,cpu pairs:   "; for i in 1 2 3 4; do tm cuda $o -f $f; echo -n "-> "; tm cpu $o -f $f; echo -n "| "; done; echo
  echo -n "cuda,sleep1,auto: "; for i in 1 2 3; do tm cuda $o -f $f; sleep 1; echo -n "-> "; tm auto $o -f $f; echo -n "| "; done; echo
done
$B/hay find --backend auto --stats -c -f $D/patterns/et-open.txt $W/c1g 2>&1 >/dev/null | grep -E "ran=|phase=(scan|total|compile)"
