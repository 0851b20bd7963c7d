#!/bin/bash
# Session 17 call 4: why the H100 host's end-to-end counts from a fresh mapping reach only 30-37 GB/s of a
# 55 GB/s pinned ceiling: staging copy with plain vs non-temporal stores (HAY_STAGE_COPY=nt, experiment),
# MAP_POPULATE (gpu_phases --populate), staging threads 8/12; 4 GiB in /dev/shm, 2 interleaved rounds.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay gpu_phases copy_ceiling > $OUT/build.log 2>&1 || grep error $OUT/build.log | head
stamp built
W=/dev/shm/hay; mkdir -p $W
while [ $(stat -c %s $W/c4g 2>/dev/null || echo 0) -lt 4294967296 ]; do cat $D/text/*.txt >> $W/c4g; done
truncate -s 4294967296 $W/c4g
ph() { $B/gpu_phases --backend cuda --runs 9 --energy-seconds 0.1 "$@" $W/c4g 2>&1 | grep -E "one-shot scan|warm scan" | grep -v " J per scan" | sed -e 's/ (first in process)//' -e 's/, the last.*//' | tr -s ' ' | tr '\n' ';'; echo; }
for r in 1 2; do
  echo "== round $r $(date +%T)"
  $B/copy_ceiling --gib 4 --runs 9 2>&1 | grep pinned
  for set in snort lit; do
    if [ $set = snort ]; then P="-f $D/patterns/snort-community.txt"; else P="-e Sherlock"; fi
    printf "%-5s memcpy        " $set; ph $P
    printf "%-5s nt            " $set; HAY_STAGE_COPY=nt ph $P
    printf "%-5s populate      " $set; ph --populate $P
    printf "%-5s populate nt   " $set; HAY_STAGE_COPY=nt ph --populate $P
    printf "%-5s st8           " $set; ph --params stage_threads=8 $P
    printf "%-5s st8 nt        " $set; HAY_STAGE_COPY=nt ph --params stage_threads=8 $P
    printf "%-5s st12 nt       " $set; HAY_STAGE_COPY=nt ph --params stage_threads=12 $P
  done
done
stamp end
