#!/bin/bash
# Session 22 call 4: main (b3b1b4a). The tail of fdr-gpu's list kernel (et-open: 32% of warp samples
# at the block's closing barrier, about 2 chunks a warp in a 16 MiB piece): larger pieces
# (result_cap, chunk) and shorter runs (run=32), against the defaults in the same run.
set -u
CAP=320
HAY_CALL_TARGETS=cuda_pfac_bench
. scripts/device-call.sh
row() {  # set params
  [ $(left) -lt 45 ] && { stamp "skip $1 $2"; return; }
  timeout 60 $B/cuda_pfac_bench list $D/patterns/$1.txt $D/text --reps 3 --algo fdr-gpu ${2:+--params $2} --only "resident list arrays, device ids+ends" > $OUT/list-$1-${2:-default}.txt 2>&1
  stamp "list $1 ${2:-default} rc=$?"; grep -E "ids.ends|phases" $OUT/list-$1-${2:-default}.txt | grep -v "radix\|blocksort" | cut -c1-140
}
row et-open ""
row et-open "result_cap=64M,chunk=64M"
row et-open "run=32"
row snort-community "chunk=64M"
row et-open "result_cap=64M,chunk=64M,run=32"
cd $OUT && tar czf all.tgz --exclude=all.tgz --exclude=build.log * && find . -type f ! -name all.tgz -delete
