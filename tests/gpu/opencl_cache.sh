#!/bin/sh
# opencl_cache.sh - a damaged OpenCL program cache entry (issue 20 row 4).
#
# Usage: opencl_cache.sh HAY INPUT
#
# Builds the cache with one search, then damages its entry in turn:
# truncated (to 3000 bytes, to half), bits flipped in the binary (PoCL's
# own header at its start, the middle, the end), in our header, bytes
# appended, emptied, overwritten with random bytes.  Each
# time the same search must give the same answer with exit 0 (the driver
# is never handed a damaged binary: PoCL asserted or crashed on one), and
# the entry must have been rewritten whole (its first size, and no longer
# the damaged bytes).  Skips (77) without an OpenCL device.
set -u
hay=$1
input=$2
if ! "$hay" devices 2>/dev/null | grep -q '^opencl *available'; then
    echo "SKIP: no OpenCL device"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/hay-ocl-cache.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
HAY_CACHE_DIR=$dir/cache
export HAY_CACHE_DIR

search() { "$hay" find --backend opencl -c the "$input"; }
want=$(search) || { echo "FAIL: the first search failed"; exit 1; }
entry=$(ls "$dir"/cache/*.bin 2>/dev/null | head -n 1)
if [ -z "$entry" ]; then
    echo "FAIL: no cache entry written in $dir/cache"
    exit 1
fi
size=$(wc -c <"$entry")

passed=0 failed=0
damage() {   # damage NAME PYTHON-STATEMENTS (b: the entry's bytes)
    python3 - "$entry" "$2" <<'PY'
import sys
path, code = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
exec(code)
open(path, "wb").write(bytes(b))
PY
    cp "$entry" "$dir/damaged"
    got=$(search 2>"$dir/err")
    rc=$?
    now=$(wc -c <"$entry")
    if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
        echo "FAIL $1: exit $rc, output '$got', want '$want' ($(head -c 300 "$dir/err"))"
        failed=$((failed + 1))
    elif [ "$now" -ne "$size" ] || cmp -s "$entry" "$dir/damaged"; then
        echo "FAIL $1: the entry was not rewritten ($now bytes, first $size)"
        failed=$((failed + 1))
    else
        echo "PASS $1"
        passed=$((passed + 1))
    fi
}

damage "truncated to 3000 bytes" 'del b[3000:]'
damage "truncated to half" 'del b[len(b) // 2:]'
damage "bits flipped in the binary" '
for off in (len(b) // 2, len(b) - 10, len(b) - 3000):
    b[off] ^= 0x10'
damage "the binary's first bytes flipped" '
start = b.index(0) + 1 + 16   # after the key, its NUL, length and checksum
for off in range(start, start + 128):
    b[off] ^= 0xff'
damage "a bit flipped in the header" 'b[40] ^= 0x01'
damage "bytes appended" 'b += b"garbage"'
damage "emptied" 'del b[:]'
damage "random bytes" '
import random
r = random.Random(7)
b[:] = bytes(r.randrange(256) for _ in range(len(b)))'

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
