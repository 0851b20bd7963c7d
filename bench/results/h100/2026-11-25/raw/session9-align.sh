#!/bin/bash
# Issue 16 on the GPU machine, after scripts/gpu-check --tests-only built build-gpu/:
# the GPU database search beside our CPU engine and parasail on all 16 cores.
set -o pipefail
D=$PWD/.device-carry/data
Q=$D/bio/protein/queries_24-5478aa.fasta
T=$D/bio/protein/ecoli_k12_proteome.faa
cmake -S . -B build-gpu -DHAY_BENCH=ON > $OUT/cfg-bench.log 2>&1
cmake --build build-gpu -j16 --target swdb_bench hay > $OUT/build-bench.log 2>&1 || { grep error $OUT/build-bench.log | head; exit 1; }
H=build-gpu/hay
echo "== swdb_bench (kernel / search / create, median of 3)"
timeout 200 build-gpu/swdb_bench --data $D --runs 3 ecoli pseudo256 | tee $OUT/swdb.tsv
echo "== whole commands: 31 queries x E. coli proteome, BLOSUM62 11/1 (seconds, 3 runs each)"
$H db build $T /tmp/ecoli.hdb > /dev/null
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>/tmp/err.txt; local rc=$?; local e=$(date +%s%N); awk -v a=$s -v b=$e -v rc=$rc 'BEGIN { printf "%.3f(rc%d) ", (b - a) / 1e9, rc }'; }
for args in "--backend cuda --top 50 --score-only" "--backend cpu -j 16 --top 50 --score-only" "--backend auto --top 50 --score-only" \
            "--backend cuda --top 50" "--backend cpu -j 16 --top 50" "--backend auto --top 50" "--backend cpu -j 16 --score-only"; do
  printf "%-45s fasta: " "$args"; for i in 1 2 3; do t $H align $args $Q $T; done
  printf " db: "; for i in 1 2 3; do t $H align $args $Q /tmp/ecoli.hdb; done; echo
  cp /tmp/out.txt "$OUT/out-$(echo $args | tr -c 'a-z0-9' _).txt" 2>/dev/null; head -c 300 /tmp/err.txt
done
echo "== the same hits from cuda and cpu"
$H align --backend cuda --top 50 $Q /tmp/ecoli.hdb > /tmp/g.txt; $H align --backend cpu -j 16 --top 50 $Q /tmp/ecoli.hdb > /tmp/c.txt
cmp /tmp/g.txt /tmp/c.txt && echo "identical: $(wc -l < /tmp/g.txt) lines"
$H align --backend cuda --top 50 --stats $Q /tmp/ecoli.hdb 2>&1 >/dev/null | tail -5
echo "== parasail striped16, 16 threads"
LD_LIBRARY_PATH=$PWD/.device-carry/lib-bench timeout 60 .device-carry/parasail_bench --threads 16 --func striped16 $Q $T 2>&1 | tail -2
