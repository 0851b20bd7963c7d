#!/bin/bash
set -u
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build build-gpu -j16 --target gpu_phases test_split >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 2; }
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; rm /tmp/c1g; cat /tmp/c4g >/dev/null
G=build-gpu/gpu_phases
NAMES=(-e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government)
one() { echo "== $*"; timeout 100 $G --runs 7 --energy-seconds 0 "$@" /tmp/c4g 2>&1 | grep -E "warm scan, fresh|split, the last|ran on"; }
for w in names the lit; do
  case $w in names) P=("${NAMES[@]}");; the) P=(-e "the ");; lit) P=(-e "Sherlock Holmes");; esac
  one --backend cpu "${P[@]}"
  one --backend cuda "${P[@]}"
  one --backend cuda --params stage_threads=12 "${P[@]}"
  one --backend auto --params split=on,transfer=pinned,stage_threads=12 --threads 3 "${P[@]}"
  one --backend auto --params split=on,transfer=pinned,stage_threads=13 --threads 2 "${P[@]}"
  one --backend auto --params split=on,transfer=pinned,stage_threads=10 --threads 5 "${P[@]}"
done
echo "== test_split --gpu"; timeout 200 build-gpu/tests/test_split --gpu 2>&1 | tail -3
