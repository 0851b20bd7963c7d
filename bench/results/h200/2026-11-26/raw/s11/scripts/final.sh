#!/bin/bash
# Session 11 final call: build everything, the GPU tests, then the figures of
# issues 17-20 on the 16-core host.  bash .dev-s11/final.sh [sections]
set -u
S=${1:-build,tests,walk,pair,auto,sets}
has() { case ",$S," in *",$1,"*) return 0;; esac; return 1; }
sh scripts/bench-device unpack
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay
RG=$PWD/.device-carry/rg; export LD_LIBRARY_PATH=$PWD/.device-carry/lib
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null
if has build; then
  echo "== build"; date +%T
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > /tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
  cmake --build $B -j16 > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -20 /tmp/build.log; }
  date +%T
fi
if has tests; then
  echo "== GPU tests"
  (cd $B && timeout 240 ctest -j8 --timeout 230 --output-on-failure -R "gpu|cuda|opencl|split|sw_db|db_parts|fdr|auto_choice|modes|conformance" > /tmp/ctest.log 2>&1)
  cp /tmp/ctest.log $OUT/ctest.log
  grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Passed +[0-9.]+ sec" /tmp/ctest.log | grep -E "conformance|fdr|auto_choice|tests passed|tests failed|Failed|Timeout" | head -30
  date +%T
fi
if has walk; then
  echo "== -r /usr/include -c include, 16 threads (5 runs; $(find /usr/include -type f | wc -l) files)"
  for tool in hay rg grep; do printf "%-5s " $tool; for i in 1 2 3 4 5; do
    case $tool in hay) t $H find -r -a -c include /usr/include;; rg) t $RG --no-config -uuu -a -c -F -E none include /usr/include;; grep) t env LC_ALL=C grep -r -a -c -F include /usr/include;; esac; done
    echo " sum=$(awk -F: '{s+=$NF} END {print s}' /tmp/out.txt)"; done
  echo "== -r /usr/share -c Holmes (3 runs; $(du -sh /usr/share 2>/dev/null | cut -f1))"
  for tool in hay rg grep; do printf "%-5s " $tool; for i in 1 2 3; do
    case $tool in hay) t $H find -r -a -c Holmes /usr/share;; rg) t $RG --no-config -uuu -a -c -F -E none Holmes /usr/share;; grep) t env LC_ALL=C grep -r -a -c -F Holmes /usr/share;; esac; done
    echo " sum=$(awk -F: '{s+=$NF} END {print s}' /tmp/out.txt)"; done
fi
if has pair; then
  P=$D/bio/dna-pairs
  echo "== H. pylori B slices (70 kbp) with traceback: -j 16, -j 1"
  for j in 16 16 1; do printf -- "-j %-3s " $j; t $H align -j $j $P/H_pylori26695_Bslice.fasta $P/H_pyloriJ99_Bslice.fasta; md5sum < /tmp/out.txt; done
fi
W=/dev/shm/hay; mkdir -p $W
if has auto || has sets; then
  if [ ! -f $W/c1g ]; then
    while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
    truncate -s 1073741824 $W/c1g; head -c 67108864 $W/c1g > $W/c64m
  fi
  Pt=$W/pats; mkdir -p $Pt
  cp .dev-s11/words8.txt .dev-s11/names8.txt .dev-s11/words64.txt $Pt/; cp $D/patterns/snort-community.txt $Pt/snort.txt; cp $D/patterns/et-open.txt $Pt/etopen.txt
  cp $D/patterns/english-words-15plus.txt $Pt/words15.txt
  awk 'NR % 2 == 0' $D/patterns/english-words.txt | head -50000 > $Pt/words50k.txt
fi
if has auto; then
  echo "== whole commands --count-matches, 1 GiB and 64 MiB: cpu / cuda / auto (3 runs)"
  for f in ${AUTO_FILES:-c1g c64m}; do for s in ${AUTO_SETS:-words8 words15 words50k snort etopen}; do for be in cpu cuda auto; do
    printf "%-5s %-9s %-5s " $f $s $be; for r in 1 2 3; do t $H find --count-matches --backend $be -f $Pt/$s.txt $W/$f; done; printf "| %s\n" "$(head -c 20 /tmp/out.txt)"
  done; HAY_SPLIT_DEBUG=1 $H find --count-matches --stats -f $Pt/$s.txt $W/$f 2>&1 >/dev/null | grep -E "^auto:|ran=" | cut -c1-160; done; done
fi
if has startup; then
  echo "== start-up: an empty file, 10 runs each"; : > /tmp/empty
  printf "hay  "; for i in 1 2 3 4 5 6 7 8 9 10; do t $H find -c Holmes /tmp/empty; done; echo
  printf "rg   "; for i in 1 2 3 4 5 6 7 8 9 10; do t $RG --no-config -c -F Holmes /tmp/empty; done; echo
  printf "hay -r /usr/share "; for i in 1 2 3 4 5; do t $H find -r -a -c Holmes /usr/share; done; echo " files=$(find /usr/share -type f | wc -l)"
  printf "rg  -r /usr/share "; for i in 1 2 3 4 5; do t $RG --no-config -uuu -a -c -F -E none Holmes /usr/share; done; echo
  printf "hay -r -j1 /usr/share "; for i in 1 2 3; do t $H find --threads 1 -r -a -c Holmes /usr/share; done; echo
  printf "rg  -r -j1 /usr/share "; for i in 1 2 3; do t $RG --no-config -j1 -uuu -a -c -F -E none Holmes /usr/share; done; echo
  perf_ok=$(command -v strace); [ -n "$perf_ok" ] && { strace -c -f -o /tmp/st.txt $H find -r -a -c Holmes /usr/share >/dev/null 2>&1; sort -k4 -n -r /tmp/st.txt | head -12; }
fi
if has sets; then
  echo "== CPU literal sets, 1 GiB, scan GB/s: hay (--stats scan phase) vs Hyperscan (hs_bench)"
  for s in words15 words64 words8; do for th in 1 16; do
    printf "%-8s %2sT hay " $s $th
    for r in 1 2 3; do $H find --count-matches --backend cpu --threads $th --stats -f $Pt/$s.txt $W/c1g 2>&1 >/dev/null | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "gbps=[0-9.]*" | tr '\n' ' '; done
    $H find --count-matches --backend cpu --stats -f $Pt/$s.txt $W/c1g 2>&1 >/dev/null | grep -o " algo=[a-z-]*" | head -1 | tr '\n' ' '
    printf "| hs "; for r in 1 2 3; do .device-carry/hs_bench -f $Pt/$s.txt --threads $th $W/c1g 2>&1 | grep -o "phase=scan.*gbps=[0-9.]*" | grep -o "gbps=[0-9.]*" | tr '\n' ' '; done; echo
  done; done
fi
