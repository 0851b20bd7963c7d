#!/bin/bash
# Session 17 final B: merged main (with h/cleanup) on the H100: the GPU tests of what the cleanup touched
# (exact split, job outputs); hay db serve against one process (issue 16's
# whole command, 7 interleaved rounds). Hard cap: CAP seconds.
set -u
T0=$(date +%s); CAP=${CAP:-200}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu; H=$PWD/$B/hay
export LD_LIBRARY_PATH=$PWD/.device-carry/lib OMP_WAIT_POLICY=passive
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
(cd $B && timeout $(( $(left) - 60 )) ctest -j8 --timeout 100 -R "cuda_exact|conformance_gpu|^gpu$|^fdr_gpu|cuda_marks|^stops$|api_allocators|cli_align_serve.cuda" > $OUT/ctest.log 2>&1)
grep -E "Test +#|tests passed|tests failed" $OUT/ctest.log
stamp tests
timeout $(( $(left) - 3 )) python3 bench/run.py serve --hay $H --data $D --backend cuda --threads 16 --runs 7 --warmup 1 --out /tmp/serve > $OUT/serve.txt 2>&1; echo "serve rc=$?"; tail -8 $OUT/serve.txt
stamp end
