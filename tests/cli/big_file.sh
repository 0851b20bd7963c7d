#!/bin/sh
# big_file.sh - hay find on an input over 4 GiB.
#
# Usage: big_file.sh HAY WORKDIR
#
# Makes a sparse 4.5 GiB file in WORKDIR with two needles: one across the
# 4 GiB boundary (at 2^32 - 3) and one after it (at 2^32 + 12345) on the
# second line (a newline just before it).  Offsets must come
# out exact: any 32-bit truncation shows.  Exits 77 (skip) when the file
# cannot be created.  Prints "N passed, M failed" last.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 HAY WORKDIR" >&2
    exit 2
fi
hay=$1
dir=$2
mkdir -p "$dir" || exit 2
f=$dir/hay-big-input.bin
rm -f "$f"
trap 'rm -f "$f"' EXIT

four=4294967296
at1=$((four - 3))
at2=$((four + 12345))
if ! truncate -s 4608M "$f" 2>/dev/null ||
        ! printf 'NEEDLE' | dd of="$f" bs=1 seek=$at1 conv=notrunc 2>/dev/null ||
        ! printf '\nNEEDLE\n' | dd of="$f" bs=1 seek=$((at2 - 1)) conv=notrunc 2>/dev/null ||
        [ "$(wc -c <"$f" | tr -d ' ')" != $((4608 * 1048576)) ]; then
    echo "SKIP: cannot create a sparse 4.5 GiB file in $dir"
    exit 77
fi
export LC_ALL=C

passed=0
failed=0
check() {   # check LABEL EXPECTED_STATUS EXPECTED_OUTPUT -- ARGS...
    label=$1 want_status=$2 want=$3
    shift 4
    got=$("$hay" find "$@" 2>&1)
    status=$?
    if [ "$got" = "$want" ] && [ $status -eq "$want_status" ]; then
        echo "PASS $label"
        passed=$((passed + 1))
    else
        echo "FAIL $label: hay find $*"
        echo "     expected (status $want_status): $want"
        echo "     got (status $status): $(printf '%s' "$got" | head -c 400)"
        failed=$((failed + 1))
    fi
}

t0=$(date +%s)
check "-a -b -o" 0 "$at1:NEEDLE
$at2:NEEDLE" -- -a -b -o -e NEEDLE "$f"
check "-a -n -b -o" 0 "1:$at1:NEEDLE
2:$at2:NEEDLE" -- -a -n -b -o -e NEEDLE "$f"
check "--count-matches" 0 "2" -- --count-matches -e NEEDLE "$f"
check "-c" 0 "2" -- -c -e NEEDLE "$f"
check "binary" 0 "hay: $f: binary file matches" -- -b -o -e NEEDLE "$f"
check "--json" 0 "{\"file\":\"$f\",\"pattern\":0,\"offset\":$at1,\"line\":1}
{\"file\":\"$f\",\"pattern\":0,\"offset\":$at2,\"line\":2}" -- --json -e NEEDLE "$f"
check "no match" 1 "0" -- -c -e ELDEEN "$f"
echo "($(($(date +%s) - t0)) s for $passed + $failed runs over 4.5 GiB)"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
