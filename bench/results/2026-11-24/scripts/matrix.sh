#!/bin/bash
# device: build, 4 GiB corpus, warm split matrix
set -u
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build build-gpu -j16 --target split_probe gpu_phases hay test_split >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 2; }
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; rm /tmp/c1g; cat /tmp/c4g >/dev/null
G=build-gpu/gpu_phases
NAMES=(-e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government)
run() { # label, args...
  local l=$1; shift
  for cfg in "--backend cpu" "--backend cuda" "--backend auto --params split=on" "--backend auto --params split=on,transfer=pinned" "--backend auto"; do
    echo "== $l | $cfg"
    timeout 120 $G $cfg --runs ${RUNS:-5} --energy-seconds 0 "$@" /tmp/c4g 2>&1 | grep -E "^matches|warm scan|split,|ran on|one-shot scan"
  done
}
nvidia-smi --query-gpu=name --format=csv,noheader
run lit -e "Sherlock Holmes"
run the -e "the "
run names "${NAMES[@]}"
run caseless -i -e "sherlock holmes"
echo "== test_split --gpu"; timeout 200 build-gpu/tests/test_split --gpu 2>&1 | tail -4
