#!/bin/bash
# Session 18 call 1 (H100): (a) end-to-end count staged vs transfer=register beside the pinned ceiling,
# (b) auto's small-command gap (cpu vs auto, interleaved; syscalls), (c) the two GPU tests never run on merged main.
set -u
T0=$(date +%s); stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log --oneline -1
which strace ltrace perf 2>&1 | head -3
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
# (a)
W=/dev/shm/hay; mkdir -p $W
while [ $(stat -c %s $W/c2g 2>/dev/null || echo 0) -lt 2147483648 ]; do cat $D/text/*.txt >> $W/c2g; done
truncate -s 2147483648 $W/c2g
ph() { $B/gpu_phases --backend cuda --runs 3 --energy-seconds 0.05 "$@" $W/c2g 2>&1 | grep -E "warm scan" | grep -v " J per scan" | sed -e 's/; the last.*//' -e 's/the last.*//' | tr -s ' ' | tr '\n' ';'; echo; }
for r in 1 2; do
$B/copy_ceiling --gib 2 --runs 3 2>&1 | grep pinned
printf "snort staged    "; ph -f $D/patterns/snort-community.txt
printf "snort register  "; ph --params transfer=register -f $D/patterns/snort-community.txt
printf "lit   staged    "; ph -e "Sherlock Holmes"
printf "lit   register  "; ph --params transfer=register -e "Sherlock Holmes"
done
stamp phases
# (b)
head -c 1048576 $W/c2g > $W/p1m; head -c 67108864 $W/c2g > $W/p64m
H=$B/hay
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]*1000 " ms (min " a[1]*1000 ")"}'; }
tm() { local s=$EPOCHREALTIME; "$@" > /dev/null 2>&1; local e=$EPOCHREALTIME; awk -v a=$s -v b=$e 'BEGIN{printf "%.6f\n", b-a}'; }
for c in "lit64|-e|Sherlock Holmes|--count-matches|$W/p64m" "w15_64|-f|$D/patterns/english-words-15plus.txt|--count-matches|$W/p64m" "snort1|-f|$D/patterns/snort-community.txt|-c|$W/p1m"; do
  IFS='|' read -r name po pv mode in <<< "$c"
  for be in cpu auto; do rm -f $W/t.$be; done
  for i in $(seq 21); do for be in cpu auto; do tm $H find --backend $be $po "$pv" $mode $in >> $W/t.$be; done; done
  for be in cpu auto; do echo "$name $be $(med < $W/t.$be)"; done
  $H find --backend auto --stats $po "$pv" $mode $in 2>&1 >/dev/null | grep -E "ran=|note|auto" | head -3
  if which strace >/dev/null 2>&1; then
    for be in cpu auto; do strace -f -c -o $OUT/strace-$name-$be.txt $H find --backend $be $po "$pv" $mode $in >/dev/null 2>&1
      strace -f -tt -o $OUT/stracett-$name-$be.txt $H find --backend $be $po "$pv" $mode $in >/dev/null 2>&1; done
  fi
  for be in cpu auto; do LD_DEBUG=statistics $H find --backend $be $po "$pv" $mode $in 2>&1 >/dev/null | grep -E "total startup|relocation" | head -2 | sed "s/^/$be /"; done
done
stamp auto
# (c)
(cd $B && timeout 330 ctest -j2 --timeout 320 -R "^(list_arrays_cuda|cli_find_marks.cuda)$" > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Passed|Skipped" $OUT/ctest.log | head
stamp end
