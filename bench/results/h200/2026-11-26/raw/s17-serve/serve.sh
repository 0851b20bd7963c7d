#!/bin/bash
# h/serve device call: issue 16's whole command through a resident server.
# Run from the tree root on the GPU host with $OUT set (carry .device-carry).
# Builds hay (CUDA on), runs the serve tests (cli_align_serve.cpu and .cuda),
# then bench/run.py serve: `hay db serve` on the E. coli database with
# --backend cuda -j 16, 7 interleaved rounds (+1 warm-up) of the one-process
# `hay align --backend cuda -j 16 --top 50 [--score-only] Q DB` and its client
# form `hay align --server SOCK ...`, outputs checked equal; then one --stats
# timeline of each. Outputs (6 files): build.log ctest-serve.log bench-serve.txt
# serve-results.csv server.log stats.txt. Stays under CAP seconds (default 290).
set -u
T0=$(date +%s); CAP=${CAP:-290}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay
export LD_LIBRARY_PATH=$PWD/.device-carry/lib OMP_WAIT_POLICY=passive
P=$D/bio/protein; Q=$P/queries_24-5478aa.fasta; T=$P/ecoli_k12_proteome.faa
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log --oneline -1 2>/dev/null
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/build.log 2>&1 || tail -20 $OUT/build.log
cmake --build $B -j16 --target hay >> $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; exit 1; }
stamp built
$H align --list | grep backends
(cd $B && timeout $(( $(left) > 240 ? 150 : $(left) / 2 )) ctest --output-on-failure -R cli_align_serve) > $OUT/ctest-serve.log 2>&1
grep -E "tests passed|Passed|Failed|Skipped|FAIL|passed," $OUT/ctest-serve.log | head -20
stamp tests done
W=/tmp/serve-bench; mkdir -p $W
timeout $(( $(left) - 40 )) python3 bench/run.py serve --hay $H --data $D --backend cuda --threads 16 \
  --runs 7 --warmup 1 --out $W > $OUT/bench-serve.txt 2>&1; echo "bench rc=$?"
cat $OUT/bench-serve.txt; cp $W/results.csv $OUT/serve-results.csv 2>/dev/null
stamp bench done
# One --stats timeline each: the client's (a second search in the server's process:
# the database already on the device) and the one process's.
S=$W/stats.sock
$H db serve $W/ecoli.hdb --socket $S --backend cuda -j 16 2> $OUT/server.log & SP=$!
for i in $(seq 100); do [ -S $S ] && break; sleep 0.1; done
{ echo "### client, --score-only (1st and 2nd request)"
  $H align --server $S --backend cuda -j 16 --top 50 --score-only --stats $Q $W/ecoli.hdb 2>&1 >/dev/null
  $H align --server $S --backend cuda -j 16 --top 50 --score-only --stats $Q $W/ecoli.hdb 2>&1 >/dev/null
  echo "### client, alignments"
  $H align --server $S --backend cuda -j 16 --top 50 --stats $Q $W/ecoli.hdb 2>&1 >/dev/null
  echo "### one process, --score-only"
  $H align --backend cuda -j 16 --top 50 --score-only --stats $Q $W/ecoli.hdb 2>&1 >/dev/null
} > $OUT/stats.txt
kill -TERM $SP; wait $SP; echo "server exit $?"; cat $W/server.log >> $OUT/server.log 2>/dev/null
grep -E "^### |stats: queries|serve:receive|search:gpu|phase=cli:search" $OUT/stats.txt | head -30
stamp end
