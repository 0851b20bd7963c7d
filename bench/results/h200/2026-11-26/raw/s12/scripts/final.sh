#!/bin/bash
# Session 12 final calls: bash .dev-s12/final.sh SECTIONS (build,tests,swdb,align,sets,walk,e2e)
set -u
S=${1:-build,tests}
has() { case ",$S," in *",$1,"*) return 0;; esac; return 1; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay
RG=$PWD/.device-carry/rg; export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nproc; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; lscpu | grep -E "Model name|^Flags" | cut -c1-120
if has build; then
  echo "== build"; date +%T
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > /tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
  cmake --build $B -j16 > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -20 /tmp/build.log; }
  date +%T
fi
if has tests; then
  echo "== GPU tests"
  (cd $B && timeout 400 ctest -j8 --timeout 300 --output-on-failure -R "gpu|cuda|opencl|split|sw_db|db_parts|fdr|auto_choice|modes|conformance|batch|align" > /tmp/ctest.log 2>&1)
  cp /tmp/ctest.log $OUT/ctest.log
  grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Not Run|Skipped" /tmp/ctest.log | head -30
  date +%T
fi
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta; T=$P/ecoli_k12_proteome.faa
if has swdb; then
  echo "== swdb_bench --runs 3 ecoli pseudo256"; date +%T
  timeout 300 $B/swdb_bench --data $D --runs 3 ecoli pseudo256 2>&1 | tail -4
  date +%T
fi
if has align; then
  $H db build $T /tmp/ecoli.hdb >/dev/null 2>&1
  echo "== whole commands, 31 queries x E. coli (db file), top 50, 5 rounds (seconds)"
  for mode in "--score-only" ""; do for be in cuda auto cpu; do
    printf "%-12s %-5s " "${mode:-align}" $be; for r in 1 2 3 4 5; do t $H align --backend $be -j 16 --top 50 $mode $Q /tmp/ecoli.hdb; done; echo " $(md5sum < /tmp/out.txt | cut -c1-8)"
  done; done
  printf "parasail striped16 16T " ; for r in 1 2 3; do LD_LIBRARY_PATH=$PWD/.device-carry/lib-bench .device-carry/parasail_bench --threads 16 --matrix blosum62 --open 11 --extend 1 $Q $T 2>&1 | tail -1 | tr '\n' ' '; done; echo
fi
W=/dev/shm/hay; mkdir -p $W/pats
if has sets; then
  if [ ! -f $W/c1g ]; then
    while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
    truncate -s 1073741824 $W/c1g
  fi
  cp $D/patterns/english-words-15plus.txt $W/pats/words15.txt; cp .dev-s12/pats/*.txt $W/pats/; cp $D/patterns/snort-community.txt $W/pats/snort.txt
  echo "== CPU literal sets, 1 GiB, scan GB/s: hay (--stats scan phase) vs Hyperscan (hs_bench), 7 interleaved rounds"
  for s in ${SETS:-words15 words64 words8 names8}; do for th in 1 16; do
    h=""; x=""
    for r in 1 2 3 4 5 6 7; do
      h="$h $($H find --count-matches --backend cpu --threads $th --stats -f $W/pats/$s.txt $W/c1g 2>&1 >/dev/null | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
      x="$x $(.device-carry/hs_bench -f $W/pats/$s.txt --threads $th $W/c1g 2>&1 | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
    done
    echo "$s ${th}T | hay:$h | hs:$x"
  done; done
  for th in 1 16; do h=""; x=""
    for r in 1 2 3 4 5 6 7; do
      h="$h $($H find -i --count-matches --backend cpu --threads $th --stats -f $W/pats/words8.txt $W/c1g 2>&1 >/dev/null | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
      x="$x $(.device-carry/hs_bench -i -f $W/pats/words8.txt --threads $th $W/c1g 2>&1 | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
    done; echo "words8 -i ${th}T | hay:$h | hs:$x"; done
  h=""; x=""; for r in 1 2 3; do
    h="$h $($H find --count-matches --backend cpu --stats -f $W/pats/snort.txt $W/c1g 2>&1 >/dev/null | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
    x="$x $(.device-carry/hs_bench -f $W/pats/snort.txt --threads 16 $W/c1g 2>&1 | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "[0-9.]*$")"
  done; echo "snort 16T | hay:$h | hs:$x"
  echo "== -c with 8 words, whole command (s), 5 rounds"
  h=""; x=""; for r in 1 2 3 4 5; do h="$h $(t $H find -c -f $W/pats/words8.txt $W/c1g)"; x="$x $(t $RG --no-config -c -F -f $W/pats/words8.txt $W/c1g)"; done
  echo "hay -c:$h | rg -c:$x"
fi
if has walk; then
  echo "== -r, 16 threads and 1, 9 rounds interleaved (ms): /usr/share ($(find /usr/share -type f | wc -l) files), /usr/include"
  for dir in /usr/share /usr/include; do for j in 16 1; do for m in "-a" ""; do
    hh=""; rr=""
    for r in 1 2 3 4 5 6 7 8 9; do
      hh="$hh $(t $H find --threads $j -r $m -c PATH_MAX $dir)"; rr="$rr $(t $RG --no-config -j$j -uuu $m -c -F -E none PATH_MAX $dir)"
    done
    echo "$dir -j$j ${m:-plain} | hay:$hh | rg:$rr"
  done; done; done
fi
