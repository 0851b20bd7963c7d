#!/bin/bash
# Warm scans (bench/gpu_phases: the GPU state made, fresh MAP_SHARED mapping
# per scan, medians) of the 4 GiB corpus whole.sh made, per set and config.
set -u
cmake --build build-gpu -j16 --target gpu_phases >$OUT/build-phases.log 2>&1 || { tail -20 $OUT/build-phases.log; exit 2; }
G=build-gpu/gpu_phases; D=.dev-data/patterns
NAMES=(-e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government)
one() { echo "== phases $*"; timeout 120 $G --runs ${RUNS:-5} --energy-seconds 0 "$@" /tmp/c4g 2>&1 | grep -E "^compile|warm scan, fresh|split, the last|ran on"; }
for set in snort etopen names the; do
  case $set in
    snort) P=(-f $D/snort-community.txt) ;;
    etopen) P=(-f $D/et-open.txt) ;;
    names) P=("${NAMES[@]}") ;;
    the) P=(-e "the ") ;;
  esac
  one --backend cuda "${P[@]}"
  one --backend auto --params split=off "${P[@]}"
  one --backend auto "${P[@]}"
  [ $set = names ] && one --backend auto --params split=heavy "${P[@]}"
done
