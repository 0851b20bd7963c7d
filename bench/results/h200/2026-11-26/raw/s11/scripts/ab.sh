#!/bin/bash
# A/B: fdr before (fdr-old/) and after h/fdr-1t, interleaved, with Hyperscan.
set -u
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
mkdir -p /tmp/old && tar --exclude=./build-gpu --exclude=./.device-carry --exclude=./.git -cf - . | tar -C /tmp/old -xf -
cp .dev-s11/fdr-old/fdr.c .dev-s11/fdr-old/fdr_build.c /tmp/old/src/cpu/; cp .dev-s11/fdr-old/fdr.h .dev-s11/fdr-old/fdr_int.h /tmp/old/src/cpu/
(cd /tmp/old && cmake -S . -B b -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF >/dev/null && cmake --build b -j16 --target hay 2>&1 | grep -E "error|Built target hay")
N=build-gpu/hay; O=/tmp/old/b/hay; P=/dev/shm/hay/pats; F=/dev/shm/hay/c1g
g() { "$@" 2>&1 >/dev/null | grep -o 'phase=scan.*gbps=[0-9.]*' | grep -o '[0-9.]*$'; }
for cfg in "words15 1" "words15 16" "words15 1 -i"; do set -- $cfg; s=$1; th=$2; i=${3:-}
  n=""; o=""; h=""
  for r in 1 2 3 4 5 6 7; do
    n="$n $(g $N find $i --count-matches --backend cpu --threads $th --stats -f $P/$s.txt $F)"
    o="$o $(g $O find $i --count-matches --backend cpu --threads $th --stats -f $P/$s.txt $F)"
    h="$h $(g .device-carry/hs_bench $i -f $P/$s.txt --threads $th $F)"
  done
  echo "$s ${th}T $i | new:$n | old:$o | hs:$h"
done
