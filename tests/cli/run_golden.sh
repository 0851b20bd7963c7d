#!/bin/sh
# run_golden.sh - run the CLI golden cases.
#
# Usage: run_golden.sh HAY CASES_DIR [CASE...]
#
# Every case is a folder CASES_DIR/NAME holding
#   cmd       one shell line, run by sh in CASES_DIR with $HAY set to the hay
#             binary and LC_ALL=C (inputs are under ../inputs)
#   expected  the exact standard output
#   status    the exit status (missing: 0)
#   stderr    optional: the exact standard error (otherwise not checked)
#   skip_if   optional: a shell line run the same way; when it succeeds the
#             case is skipped (e.g. a GPU is present)
# With no CASE every folder of CASES_DIR runs.  Prints one line per case and
# "N passed, M failed[, K skipped]" last; exits 1 if any case failed and 77
# if every case was skipped.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 HAY CASES_DIR [CASE...]" >&2
    exit 2
fi
hay=$1
cases=$2
shift 2
case $hay in /*) ;; *) hay=$(pwd)/$hay ;; esac
if [ ! -x "$hay" ]; then
    echo "run_golden: $hay is not an executable" >&2
    exit 2
fi
cd "$cases" || exit 2
if [ $# -eq 0 ]; then
    set -- *
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hay-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0 failed=0 skipped=0
for name in "$@"; do
    dir=$name
    if [ ! -f "$dir/cmd" ] || [ ! -f "$dir/expected" ]; then
        echo "FAIL $name: no cmd or expected file"
        failed=$((failed + 1))
        continue
    fi
    if [ -f "$dir/skip_if" ] &&
            HAY=$hay LC_ALL=C sh -c "$(cat "$dir/skip_if")" >/dev/null 2>&1; then
        echo "SKIP $name"
        skipped=$((skipped + 1))
        continue
    fi
    want_status=0
    [ -f "$dir/status" ] && want_status=$(tr -d ' \n' <"$dir/status")
    HAY=$hay LC_ALL=C sh -c "$(cat "$dir/cmd")" >"$tmp/out" 2>"$tmp/err" </dev/null
    got_status=$?
    ok=1
    if ! cmp -s "$dir/expected" "$tmp/out"; then
        ok=0
        echo "--- $name: standard output differs (expected, got):"
        diff -u "$dir/expected" "$tmp/out" | sed -n '3,40p' | cat -A | cut -c1-200
    fi
    if [ "$got_status" != "$want_status" ]; then
        ok=0
        echo "--- $name: exit status $got_status, expected $want_status"
    fi
    if [ -f "$dir/stderr" ] && ! cmp -s "$dir/stderr" "$tmp/err"; then
        ok=0
        echo "--- $name: standard error differs (expected, got):"
        diff -u "$dir/stderr" "$tmp/err" | sed -n '3,20p'
    fi
    if [ $ok -eq 1 ]; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "     cmd: $(cat "$dir/cmd")"
        if [ -s "$tmp/err" ]; then
            echo "     stderr: $(head -c 400 "$tmp/err")"
        fi
        echo "FAIL $name"
        failed=$((failed + 1))
    fi
done

if [ $skipped -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ] || exit 1
[ $passed -eq 0 ] && [ $skipped -gt 0 ] && exit 77
exit 0
