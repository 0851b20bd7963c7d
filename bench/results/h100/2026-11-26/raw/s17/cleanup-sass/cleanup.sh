#!/bin/bash
# h/cleanup on the GPU host: the code-quality pass moved CUDA code without changing it
# (exact.cu split into exact.cu + exact_fast.cu + exact.cuh with one ex_launch; pfac/fdr-gpu
# kernels take the job's outputs as one hay_job_out) and touched GPU test programs
# (tests/gpu/gpu.c, fdr_gpu.c, opencl.c; tests/api batch.c, list.c through testutil).
# Build everything, then the GPU tests.  Run from the tree root with $OUT set, carry
# .device-carry; hard cap CAP seconds (default 560).
# Outputs under $OUT: info.txt cfg.log build.log ctest.log (and ctest-rest.log when time allows).
set -u
T0=$(date +%s); CAP=${CAP:-560}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib:${LD_LIBRARY_PATH:-}
{ nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format='%h %s' 2>/dev/null; } | tee $OUT/info.txt
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; tail -5 $OUT/build.log; }
stamp built
# The brief's set: the one-pattern engines (cuda_exact), conformance_gpu, modes, every GPU
# program (gpu, gpu_list, fdr_gpu, fdr_gpu_core, split_gpu, ...), marks, batch_cuda, list_cuda.
(cd $B && timeout $(( $(left) - 60 )) ctest -R "exact|conformance|modes|gpu|marks|cuda" -j8 \
   --timeout 300 --output-on-failure > $OUT/ctest.log 2>&1)
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Not Run|Skipped|Passed" $OUT/ctest.log | head -60
stamp "brief's set done, $(left) s left"
# Then, if time allows, the other programs whose sources changed: opencl (tests/gpu/opencl.c,
# on the NVIDIA OpenCL), batch/list rows on the host side.
[ $(left) -gt 90 ] && (cd $B && timeout $(( $(left) - 20 )) ctest -R "^(opencl|batch|list|api|align_api)$" -j4 \
   --timeout 200 --output-on-failure > $OUT/ctest-rest.log 2>&1)
[ -f $OUT/ctest-rest.log ] && grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|\(Failed\)|Passed|Skipped" $OUT/ctest-rest.log | head -20
stamp end
