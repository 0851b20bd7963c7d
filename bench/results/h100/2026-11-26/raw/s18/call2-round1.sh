#!/bin/bash
# session 18 round 1: the pread probe (main's tree not needed), then the two helpers' scripts
D=$PWD/.device-carry/data; W=/dev/shm/hay; mkdir -p $W
sh scripts/bench-device unpack >/dev/null 2>&1
while [ $(stat -c %s $W/c2g 2>/dev/null || echo 0) -lt 2147483648 ]; do cat $D/text/*.txt >> $W/c2g; done
truncate -s 2147483648 $W/c2g
nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp .dev-s13/rd.cu -o /tmp/rd && for T in 4 8 16; do for C in 8 32; do /tmp/rd $W/c2g $T $C 2; done; done > $OUT/rd.txt 2>&1
cat $OUT/rd.txt | tail -48
rm -f $W/c2g
TMO=${TMO:-400} bash .dev-s13/launch.sh "$@"
