#!/bin/bash
# Eight literals (names) on 8 and 16 GiB: where auto's measured rates give a split.
set -u
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build build-gpu -j16 --target hay >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 2; }
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c8g
cat /tmp/c8g /tmp/c8g > /tmp/c16g; rm /tmp/c1g; cat /tmp/c8g /tmp/c16g > /dev/null
free -g | head -2
SETS=names RUNS=${RUNS:-3} python3 .dev-data/cmds.py /tmp/c8g /tmp/c16g
HAY_SPLIT_DEBUG=1 build-gpu/hay find --count-matches --stats -e "Sherlock Holmes" -e Pierre -e Ahab -e Jesus -e whale -e Lord -e President -e government /tmp/c16g 2>&1 | grep -E "ready|first piece|split cpu|device init|ran="
