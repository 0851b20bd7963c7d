# scripts/device-call.sh - the common start of a hand-written script for the
# lent GPU machine (the device tool's `run`, carry [".device-carry", ...]),
# sourced from the repository root after `set -u`:
#
#   . scripts/device-call.sh
#
# It defines
#   T0, CAP       the start and the seconds the script means to keep to
#                 (CAP from the environment, default 570: the tool's limit
#                 is 600 and a script cut off loses its output's tail)
#   left          seconds left of CAP;  stamp MSG: "== [N s] MSG"
#   D, B          the carried data (.device-carry/data) and the build folder
#                 (build-gpu)
#   pack          the outputs in $OUT into one file, all.tgz (the build's
#                 log left out): the tool returns only a few files a call,
#                 and drops the rest unread; call it last
# unpacks the carried payload (scripts/bench-device unpack), puts the carried
# libraries on LD_LIBRARY_PATH, prints the commit and the changed files, and
# configures and builds B (Release, warnings as errors, benchmarks on, the
# data folder for the tests) with its logs in $OUT; a failed build prints
# its errors and exits 2.  Set HAY_CALL_TARGETS to build only those targets.
T0=$(date +%s)
CAP=${CAP:-570}
left() { echo $((CAP - ($(date +%s) - T0))); }
stamp() { echo "== [$(($(date +%s) - T0)) s] $*"; }
pack() {
    (cd "$OUT" && tar czf all.tgz --exclude=all.tgz --exclude=build.log -- * &&
        find . -type f ! -name all.tgz -delete)
}
OUT=${OUT:-/tmp/device-call-out}
mkdir -p "$OUT"
sh scripts/bench-device unpack >/dev/null 2>&1
D=$PWD/.device-carry/data
B=${B:-build-gpu}
export LD_LIBRARY_PATH=$PWD/.device-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
git log --oneline -1 2>/dev/null
git status --short 2>/dev/null | head
if ! cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DHAY_WERROR=ON -DHAY_BENCH=ON \
    -DHAY_DATA_DIR="$D" >"$OUT/cfg.log" 2>&1; then
    tail -20 "$OUT/cfg.log"
    exit 2
fi
# shellcheck disable=SC2086  # (the targets' list splits on spaces)
if ! cmake --build "$B" -j"$(nproc)" ${HAY_CALL_TARGETS:+--target $HAY_CALL_TARGETS} \
    >"$OUT/build.log" 2>&1; then
    grep -iE "error|stop\." "$OUT/build.log" | head -20
    exit 2
fi
stamp built
