#!/bin/bash
# Session 21 call A: (1) does a command right after a --backend cuda process run slower (auto part's
# fixed order cpu, cuda, auto)? (2) nsys: the resident list's kernels by name (fdr-gpu, et-open and
# snort), (3) the GPU tests never run on session 20's last code.
set -u
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data; B=build-gpu
export LD_LIBRARY_PATH=$PWD/.device-carry/lib
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader; git log --oneline | head -1
ls /usr/local/cuda/bin | tr '\n' ' '; echo; which nsys
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON -DHAY_DATA_DIR=$D > $OUT/cfg.log 2>&1 || tail -20 $OUT/cfg.log
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; }
stamp built
timeout 150 python3 .dev-s21/order.py $PWD/$B/hay $D 21 > $OUT/order.txt 2>&1; stamp "order rc=$?"
cat $OUT/order.txt
NSYS=$(ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS"
for set in snort-community et-open; do
  if [ -n "$NSYS" ]; then
    timeout 100 $NSYS profile -o /tmp/ns-$set --force-overwrite true -t cuda \
      $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/nsys-run-$set.txt 2>&1
    $NSYS stats -r cuda_gpu_kern_sum -f csv /tmp/ns-$set.nsys-rep > $OUT/nsys-$set.csv 2>&1
  else
    timeout 100 /usr/local/cuda/bin/ncu -k "regex:region_|convert_kernel|cut_kernel|fdr_kernel|Scan" -s 400 -c 40 --metrics gpu__time_duration.sum \
      $B/cuda_pfac_bench list $D/patterns/$set.txt $D/text --reps 1 --algo fdr-gpu --only "resident list arrays, device ids+ends" > $OUT/ncu-$set.txt 2>&1
  fi
  stamp "profile $set rc=$?"
done
head -c 3000 $OUT/nsys-snort-community.csv 2>/dev/null; head -c 3000 $OUT/nsys-et-open.csv 2>/dev/null
timeout 330 ctest --test-dir $B -R '^(fdr_gpu|fdr_gpu_static|auto_choice_warm|auto_choice_cold|auto_choice_literal|cli_find_marks.cuda|cuda_marks)$' --output-on-failure -j4 > $OUT/tests.txt 2>&1
stamp "tests rc=$?"; tail -15 $OUT/tests.txt
