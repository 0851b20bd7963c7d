#!/bin/bash
# One device call: build hay, make the 1 and 4 GiB corpora, time whole commands.
set -u
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build build-gpu -j16 --target hay >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 2; }
for i in $(seq 80); do cat .dev-data/text/*.txt; done | head -c 1073741824 > /tmp/c1g
cat /tmp/c1g /tmp/c1g /tmp/c1g /tmp/c1g > /tmp/c4g; cat /tmp/c4g /tmp/c1g >/dev/null
: > /tmp/empty
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
RUNS=3 python3 .dev-data/cmds.py /tmp/empty
RUNS=${RUNS:-5} python3 .dev-data/cmds.py /tmp/c4g /tmp/c1g
