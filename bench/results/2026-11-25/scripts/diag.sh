#!/bin/bash
# The split's timeline in whole commands (HAY_SPLIT_DEBUG=1), snort and et-open, 4 and 1 GiB.
set -u
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build build-gpu -j16 --target hay >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 2; }
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; cat /tmp/c4g /tmp/c1g >/dev/null
H=build-gpu/hay; D=.dev-data/patterns
run() { local f=$1; shift; echo "== $(basename $f) $*"; for k in 1 2; do
  a=$(date +%s%N); HAY_SPLIT_DEBUG=1 $H find --count-matches --stats "$@" $f 2>&1 | grep -E "^split|split cpu|device init" | cut -c1-200; b=$(date +%s%N)
  echo "   wall $(( (b - a) / 1000000 )) ms"; done; }
for f in /tmp/c4g /tmp/c1g; do
  run $f --escapes -f $D/snort-community.txt
  run $f --backend auto --params split=off --escapes -f $D/snort-community.txt
  run $f --params split_keep=15 --escapes -f $D/snort-community.txt
  run $f --threads 4 --escapes -f $D/snort-community.txt
  run $f --escapes -f $D/et-open.txt
done
