#!/bin/sh
# grep_compare.sh - hay find against LC_ALL=C grep -F on real data.
#
# Usage: grep_compare.sh HAY DATA_DIR
#
# For every file of DATA_DIR/text and DATA_DIR/logs, patterns are picked from
# the file itself: its most frequent word, a rare word (2 occurrences if any),
# its most frequent mixed-case word, a list of 20 words (-f) plus one that
# does not occur, a short string that occurs several times per line, and the
# last 300 bytes of the longest line.  For
# each, `hay find` and `grep -F` run with -c, -c -i, -n, -o and -l and their
# outputs and exit statuses must be identical; so they must with grep's
# selection and context options (-v, -w, -x, -m, -C, -L, -Z, -z and the
# combinations people use: -vc, -wo, -lv, -C2 -n, -x -c, -w -i, -v -n -A1,
# -m2 -c, -Z -l, -z -c) for the frequent, rare, list and dense patterns.  --count-matches is checked
# against `grep -o | wc -l` for words that cannot overlap themselves.  A few
# runs over several files at once check file-name prefixes and -r.
# Prints "N passed, M failed" last; exits 1 on any failure and 77 (skip) when
# the data folder is missing.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 HAY DATA_DIR" >&2
    exit 2
fi
hay=$1
data=$2
if [ ! -d "$data/text" ] || [ ! -d "$data/logs" ]; then
    echo "SKIP: ../shared/data not found (looked in $data)"
    exit 77
fi
if [ ! -x "$hay" ]; then
    echo "grep_compare: $hay is not an executable" >&2
    exit 2
fi
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hay-grep.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

# compare LABEL -- ARGS...: runs `hay find ARGS` and `grep -F ARGS`.  With
# sorted=1 the outputs are compared sorted (-r: grep walks in directory
# order, hay in name order).
sorted=
compare() {
    label=$1
    shift 2
    "$hay" find "$@" >"$tmp/hay.out" 2>"$tmp/hay.err"
    hs=$?
    grep -F "$@" >"$tmp/grep.out" 2>"$tmp/grep.err"
    gs=$?
    if [ -n "$sorted" ]; then
        sort -o "$tmp/hay.out" "$tmp/hay.out"
        sort -o "$tmp/grep.out" "$tmp/grep.out"
    fi
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

# count_matches LABEL FILE WORD [-i]: --count-matches against grep -o | wc -l
# (valid because WORD cannot overlap itself).
count_matches() {
    label=$1 file=$2 word=$3
    shift 3
    h=$("$hay" find --count-matches "$@" -e "$word" "$file" 2>&1)
    g=$(grep -F -o "$@" -e "$word" "$file" | wc -l | tr -d ' ')
    if [ "$h" = "$g" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $label: hay find --count-matches $* -e '$word' $file: hay '$h', grep -o | wc -l '$g'" | cut -c1-300
    fi
}

# True when WORD has no border (no proper prefix equal to a suffix), so its
# occurrences cannot overlap; with -i the comparison ignores ASCII case.
no_border() {
    printf '%s\n' "$1" | awk -v icase="$2" '{
        w = icase ? tolower($0) : $0; n = length(w)
        for (k = 1; k < n; k++) if (substr(w, 1, k) == substr(w, n - k + 1)) exit 1
        exit 0 }'
}

files=$(ls "$data"/text/* "$data"/logs/* 2>/dev/null | sort)
for f in $files; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    # Words: runs of bytes that are not ASCII space or punctuation, so that
    # UTF-8 text yields words too.  Most frequent first, ties by byte order.
    # Words over 1000 bytes (the long-needle files) are left out: hay's
    # patterns are limited to 64 KiB, grep's are not.
    tr -s '[:space:][:punct:]' '[\n*]' <"$f" |
        awk 'length($0) >= 3 && length($0) <= 1000' |
        sort | uniq -c | sort -k1,1nr -k2,2 >"$tmp/freq"
    frequent=$(awk 'NR == 1 { print $2 }' "$tmp/freq")
    rare=$(awk '$1 == 2 { print $2; exit }' "$tmp/freq")
    [ -n "$rare" ] || rare=$(awk '$1 == 1 { print $2; exit }' "$tmp/freq")
    mixed=$(awk '$2 ~ /[A-Z]/ && $2 ~ /[a-z]/ { print $2; exit }' "$tmp/freq")
    [ -n "$mixed" ] || mixed=The
    [ -n "$frequent" ] || frequent=the
    [ -n "$rare" ] || rare=Holmes
    { awk 'NR >= 10 && NR < 30 { print $2 }' "$tmp/freq"; echo zqxjkv; } >"$tmp/list"
    # A string found several times per matching line.
    dense=
    for cand in th 'e ' ', ' in 0 : ' ' . aaaa bbbb; do
        lines=$(grep -F -c -e "$cand" "$f")
        occ=$(grep -F -o -e "$cand" "$f" | wc -l)
        if [ "$lines" -gt 0 ] && [ "$occ" -ge $((2 * lines)) ]; then
            dense=$cand
            break
        fi
    done
    [ -n "$dense" ] || dense=e
    # The last 300 bytes of the longest line: a long pattern (in the
    # long-needle files, the adversarial needle itself).
    slice=$(awk '{ if (length($0) > m) { m = length($0); l = $0 } }
        END { n = length(l); print substr(l, n > 300 ? n - 299 : 1) }' "$f")
    printf '%s: frequent "%s", rare "%s", mixed "%s", dense "%s", list of %s\n' \
        "$name" "$frequent" "$rare" "$mixed" "$dense" "$(wc -l <"$tmp/list")" | cut -c1-160

    for flags in "-c" "-c -i" "-n" "-o" "-l"; do
        # shellcheck disable=SC2086
        {
            compare "$name frequent" -- $flags -e "$frequent" "$f"
            compare "$name rare" -- $flags -e "$rare" "$f"
            compare "$name mixed" -- $flags -e "$mixed" "$f"
            compare "$name list" -- $flags -f "$tmp/list" "$f"
            compare "$name dense" -- $flags -e "$dense" "$f"
            compare "$name slice" -- $flags -e "$slice" "$f"
        }
    done
    for flags in "-vc" "-wo" "-lv" "-C2 -n" "-x -c" "-w -i -c" "-v -n -A1" "-m2 -c" \
            "-m3 -n -A2" "-w -n" "-Z -l" "-z -c" "-L" "-v -B1 -b" "-c -w -x"; do
        # shellcheck disable=SC2086
        {
            compare "$name frequent" -- $flags -e "$frequent" "$f"
            compare "$name rare" -- $flags -e "$rare" "$f"
            compare "$name list" -- $flags -f "$tmp/list" "$f"
            compare "$name dense" -- $flags -e "$dense" "$f"
        }
    done
    # -x with whole lines of the file as patterns: its first and last (hay's
    # patterns are limited to 64 KiB: longer lines are left out).
    sed -n '1p;$p' "$f" | awk 'length($0) <= 1000' >"$tmp/lines"
    compare "$name lines" -- -x -n -f "$tmp/lines" "$f"
    for w in "$frequent" "$rare" "$mixed" "$slice"; do
        no_border "$w" 0 && count_matches "$name" "$f" "$w"
        no_border "$w" 1 && count_matches "$name" "$f" "$w" -i
    done
done

# Several files at once: name prefixes, per-file counts, -l, -r.
# shellcheck disable=SC2086
{
    compare "all files" -- -c -e the $files
    compare "all files" -- -l -e ERROR $files
    compare "all files" -- -n -i -e error $files
    compare "all files" -- -h -o -e Error $files
}
logs=$(ls "$data"/logs/* | sort)
"$hay" find -r -c -e ERROR "$data/logs" >"$tmp/hay.out" 2>&1
# shellcheck disable=SC2086
grep -F -c -e ERROR $logs >"$tmp/grep.out"
if cmp -s "$tmp/hay.out" "$tmp/grep.out"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL -r: hay find -r -c -e ERROR $data/logs differs from grep over the sorted file list"
    diff "$tmp/grep.out" "$tmp/hay.out" | head -n 6 | sed 's/^/     /'
fi

# -r with the selection options, compared sorted.
sorted=1
compare "-m1 -r" -- -m1 -r -e ERROR "$data/logs"
compare "-L -r --include" -- -L -r --include='*.log' -e kernel "$data"
compare "-l -r --exclude" -- -l -r --exclude='*.txt' -e the "$data"
compare "-c -r --exclude-dir" -- -c -r --exclude-dir=text -e ERROR "$data"
compare "-v -c -r" -- -v -c -r -e e "$data/logs"
sorted=

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
