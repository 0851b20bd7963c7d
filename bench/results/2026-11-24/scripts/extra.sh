#!/bin/bash
# after gpu-check: splits where the GPU side gets most of the cores
set -u
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; rm /tmp/c1g; cat /tmp/c4g >/dev/null
G=build-gpu/gpu_phases
NAMES=(-e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government)
one() { echo "== $*"; timeout 100 $G --runs 5 --energy-seconds 0 "$@" /tmp/c4g 2>&1 | grep -E "warm scan, fresh|split, the last|ran on"; }
for w in names the; do
  if [ $w = names ]; then P=("${NAMES[@]}"); else P=(-e "the "); fi
  one --backend cuda "${P[@]}"
  one --backend cuda --params stage_threads=12 "${P[@]}"
  for t in 2 4; do one --backend auto --params split=on,transfer=pinned,stage_threads=12 --threads $t "${P[@]}"; done
  one --backend auto --params split=on,stage_threads=14 --threads 2 "${P[@]}"
done
