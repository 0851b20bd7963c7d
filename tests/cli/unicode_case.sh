#!/bin/sh
# unicode_case.sh - hay find -i on UTF-8 text against grep -F -i in the
# C.UTF-8 locale, on real data.
#
# Usage: unicode_case.sh HAY DATA_DIR
#
# For every file of DATA_DIR/text holding words beyond ASCII, patterns are
# picked from the file itself: its four most frequent such words and its two
# most frequent of 10 letters or more (these have more case variants than
# are expanded: the verified fallback), each as it occurs, in capitals and with a capital first letter (Python's simple
# upper(); words with letters whose folding grep and Unicode's simple
# folding disagree on, ß, ẞ, ı, İ, ſ and the Kelvin sign, are not picked),
# and all of them at once with -f.  For each, `hay find` and `grep -F` run
# with -i -c, -i -n and -i -o, and their outputs and exit statuses must be
# identical; -i -c must also differ from ASCII-only folding (--no-unicode)
# for at least one pattern per file with cased letters beyond ASCII, or the
# check could not fail.  Prints "N passed, M failed" last; exits 1 on any failure and
# 77 (skip) when the data folder or the C.UTF-8 locale is missing.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 HAY DATA_DIR" >&2
    exit 2
fi
hay=$1
data=$2
if [ ! -d "$data/text" ]; then
    echo "SKIP: ../shared/data not found (looked in $data)"
    exit 77
fi
if ! locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
    echo "SKIP: no C.UTF-8 locale"
    exit 77
fi
export LC_ALL=C.UTF-8
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hay-ucase.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

compare() {   # compare LABEL ARGS...: hay find ARGS against grep -F ARGS
    label=$1
    shift
    "$hay" find "$@" >"$tmp/hay.out" 2>"$tmp/hay.err"
    hs=$?
    grep -F "$@" >"$tmp/grep.out" 2>"$tmp/grep.err"
    gs=$?
    if [ $hs -eq $gs ] && cmp -s "$tmp/hay.out" "$tmp/grep.out"; then
        passed=$((passed + 1))
        return
    fi
    failed=$((failed + 1))
    echo "FAIL $label: hay find $*" | cut -c1-300
    echo "     exit status: hay $hs, grep $gs; output sizes: hay $(wc -c <"$tmp/hay.out"), grep $(wc -c <"$tmp/grep.out")"
    diff "$tmp/grep.out" "$tmp/hay.out" | head -n 6 | cut -c1-160 | sed 's/^/     /'
    [ -s "$tmp/hay.err" ] && head -n 3 "$tmp/hay.err" | sed 's/^/     hay stderr: /'
}

for f in "$data"/text/*.txt; do
    name=$(basename "$f")
    python3 - "$f" >"$tmp/words" <<'PY'
import collections, re, sys
text = open(sys.argv[1], encoding="utf-8", errors="ignore").read()
skip = set("ßẞıİſ\u212a")
words = collections.Counter(
    w for w in re.findall(r"\w{3,}", text)
    if any(ord(c) > 127 for c in w) and not skip & set(w))
long = collections.Counter({w: n for w, n in words.items() if len(w) >= 10})
for w, _ in words.most_common(4) + long.most_common(2):
    for form in {w, w.upper(), w[0].upper() + w[1:]}:
        if len(form) == len(w):   # upper() may lengthen (full case mapping)
            print(form)
PY
    [ -s "$tmp/words" ] || continue
    differs=0 cased=0
    while IFS= read -r w; do
        compare "$name -i -c '$w'" -i -c -e "$w" "$f"
        compare "$name -i -n '$w'" -i -n -e "$w" "$f"
        compare "$name -i -o '$w'" -i -o -e "$w" "$f"
        a=$("$hay" find -i -c -e "$w" "$f")
        b=$("$hay" find --no-unicode -i -c -e "$w" "$f")
        [ "$a" != "$b" ] && differs=1
        [ "$(printf '%s' "$w" | python3 -c 'import sys; print(int(any(ord(c) > 127 and c.lower() != c.upper() for c in sys.stdin.read())))')" = 1 ] && cased=1
    done <"$tmp/words"
    compare "$name -i -f words -c" -i -c -f "$tmp/words" "$f"
    compare "$name -i -f words -o" -i -o -n -f "$tmp/words" "$f"
    if [ $cased -eq 1 ] && [ $differs -eq 0 ]; then
        failed=$((failed + 1))
        echo "FAIL $name: Unicode -i counted as --no-unicode for every cased word (the check cannot fail)"
    fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] || exit 1
[ $passed -eq 0 ] && exit 77
exit 0
