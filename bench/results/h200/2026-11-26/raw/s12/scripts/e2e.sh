#!/bin/bash
# Issue 17: end-to-end GPU counts from the page cache against the pinned copy
# ceiling, same run; and whether some processes run slow (the 13.7 GB/s one).
set -u
S=${1:-build,e2e,procs}
has() { case ",$S," in *",$1,"*) return 0;; esac; return 1; }
sh scripts/bench-device unpack >/dev/null
D=$PWD/.device-carry/data; B=build-gpu
nproc; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
if has build; then
  echo "== build"; date +%T
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > /tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
  cmake --build $B -j16 --target hay gpu_phases copy_ceiling ${EXTRA_TARGETS:-} > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -20 /tmp/build.log; }
  date +%T
fi
W=/dev/shm/hay; mkdir -p $W/pats
if [ ! -f $W/c4g ]; then
  while [ $(stat -c %s $W/c4g 2>/dev/null || echo 0) -lt 4294967296 ]; do cat $D/text/*.txt >> $W/c4g; done
  truncate -s 4294967296 $W/c4g
fi
cp $D/patterns/snort-community.txt $W/pats/snort.txt; cp $D/patterns/et-open.txt $W/pats/etopen.txt
ph() { $B/gpu_phases --backend cuda --runs ${RUNS:-9} --energy-seconds 0.3 "$@" $W/c4g 2>&1 | grep -E "^matches|one-shot scan|warm scan|resident scan|ran on" | tr -s ' ' | tr '\n' ';'; echo; }
if has e2e; then
  for r in 1 2 3; do
    echo "== round $r $(date +%T)"
    $B/copy_ceiling --gib 4 --runs 9
    $B/copy_ceiling --gib 4 --runs 9 --piece-mib 64
    printf "literal "; ph -e "Sherlock Holmes"
    printf "snort   "; ph -f $W/pats/snort.txt
    printf "etopen  "; ph -f $W/pats/etopen.txt
    for p in "chunk=67108864" "streams=4" "chunk=134217728,streams=2"; do
      printf "snort %-28s " "$p"; ph --params "$p" -f $W/pats/snort.txt
    done
  done
fi
if has procs; then
  echo "== 10 processes, one literal, 4 GiB, runs 3"
  for i in 1 2 3 4 5 6 7 8 9 10; do RUNS=3 ph -e "Sherlock Holmes"; done
fi
