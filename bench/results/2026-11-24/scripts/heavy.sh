#!/bin/bash
set -u
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; cat /tmp/c4g /tmp/c1g >/dev/null
G=build-gpu/gpu_phases; H=build-gpu/hay
NAMES=(-e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government)
SN=.device-carry/data/patterns/snort-community.txt
one() { echo "== phases $*"; timeout 100 $G --runs 7 --energy-seconds 0 "$@" /tmp/c4g 2>&1 | grep -E "warm scan, fresh|split, the last|ran on"; }
for r in 1 2; do
one --backend cuda "${NAMES[@]}"; one --backend auto --params split=off "${NAMES[@]}"; one --backend auto "${NAMES[@]}"
one --backend cuda -e "the "; one --backend auto --params split=heavy -e "the "
done
cmd() { # label, file, args
  local l=$1 f=$2; shift 2; local ts=()
  for k in 1 2 3 4 5; do a=$(date +%s.%N); "$H" find "$@" "$f" >/tmp/o.txt 2>/dev/null; b=$(date +%s.%N); ts+=($(echo "$b - $a" | bc)); done
  echo "== cmd $l | $(basename $f) | s: ${ts[*]} | $(head -c 60 /tmp/o.txt | tr '\n' ' ')"
  "$H" find --stats "$@" "$f" 2>&1 >/dev/null | grep -E "split|note|backend" | head -3 | cut -c1-300
}
for f in /tmp/c1g /tmp/c4g; do
  for b in "--backend cpu" "--backend cuda" "--backend auto --params split=off" "--backend auto"; do
    cmd "names $b" $f --count-matches $b "${NAMES[@]}"
    cmd "snort $b" $f --count-matches $b --escapes -f $SN
  done
done
