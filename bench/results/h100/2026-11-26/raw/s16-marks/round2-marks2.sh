#!/bin/bash
# h/marks on the GPU host, round 2 (marks written whole, slices made ahead): build, the GPU tests of hay_scan_marks / hay_scan_first and of the
# kernels they changed, the lits bench's marks/first rows, whole `hay find` commands (cuda vs cpu
# vs ripgrep).  Run from the tree root with $OUT set; hard cap CAP seconds (default 470).
set -u
T0=$(date +%s); CAP=${CAP:-470}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%h 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 --target hay test_cuda_marks test_modes test_batch test_conformance \
  cuda_pfac_bench > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; tail -5 $OUT/build.log; }
echo "== built at $(( $(date +%s) - T0 )) s"
# marks/first on every backend (GPU rows), the CLI on cuda, the host side; the kernels' count and
# list paths (modes, batch_cuda, conformance_gpu) that the template modes touched
ct() {   # ct NAME REGEX SECONDS
  (cd $B && timeout $3 ctest -j6 --timeout $3 --output-on-failure -R "$2" > $OUT/ctest-$1.log 2>&1)
  grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Not Run|Skipped|Passed" $OUT/ctest-$1.log | head -30
  grep -E "^FAIL" $OUT/ctest-$1.log | head -20; }
ct marks "^(modes|cuda_marks|cli_find_marks.cuda|batch_cuda)$" 200
echo "== tests done at $(( $(date +%s) - T0 )) s, $(left) s left"
W=/dev/shm/hay; mkdir -p $W/pats
if [ ! -f $W/c1g ]; then
  while [ $(stat -c %s $W/c1g 2>/dev/null || echo 0) -lt 1073741824 ]; do cat $D/text/*.txt >> $W/c1g; done
  truncate -s 1073741824 $W/c1g
fi
RG=.device-carry/rg; export LD_LIBRARY_PATH=$PWD/.device-carry/lib:${LD_LIBRARY_PATH:-}
tm() { local t0=$(date +%s%N); "$@" > $W/out 2>$W/err; local rc=$?; local t1=$(date +%s%N)
       printf "%5d ms rc=%d %-12s | %s\n" $(( (t1 - t0) / 1000000 )) $rc "$(head -c 40 $W/out | tr '\n' ' ')" "$*" | sed "s|$W/||g;s|$D/||g"; }
for set in snort-community et-open; do
  [ $(left) -gt 60 ] || break
  echo "== lits $set (marks/first rows) $(date +%T)"
  timeout $(( $(left) - 5 )) $B/cuda_pfac_bench lits $D/patterns/$set.txt $D/text --reps 3 --count-only --rows 2 \
    > $OUT/lits-$set.txt 2>&1; echo "rc=$?"; cat $OUT/lits-$set.txt
done
for set in snort-community et-open; do
  P=$D/patterns/$set.txt
  [ $(left) -gt 60 ] || break
  echo "== find $set over 1 GiB ($(date +%T))"
  for o in -c -l -q "" ; do
    [ $(left) -gt 40 ] || break
    for b in cuda cpu cuda cpu; do
      if [ -z "$o" ]; then tm sh -c "$B/hay find --backend $b -f $P $W/c1g | wc -l"
      else tm $B/hay find --backend $b $o -f $P $W/c1g; fi
    done
    [ -x $RG ] && { if [ -z "$o" ]; then tm sh -c "$RG --no-config -F -f $P $W/c1g | wc -l"; else tm $RG --no-config -F $o -f $P $W/c1g; fi; }
  done
  for sl in 67108864 1073741824; do [ $(left) -gt 40 ] && tm env HAY_MARKS_SLICE=$sl $B/hay find --backend cuda -c -f $P $W/c1g; done
  [ $(left) -gt 40 ] && tm $B/hay find --backend cuda --stats -c -f $P $W/c1g && grep -E "compile|scan|total|ran=" $W/err
done
echo "== conformance_gpu (the kernels' count and list paths; block.cuh) $(left) s left"
[ $(left) -gt 20 ] && ct conf "^conformance_gpu$" $(( $(left) - 5 ))
echo "== end at $(( $(date +%s) - T0 )) s"
