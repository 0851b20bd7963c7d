#!/bin/sh
# params_read.sh SRC - every parameter key declared in SRC is read.
#
# A key is declared by a HAY_PARAM_*(STRUCT, FIELD, "key", ...) line
# (src/core/params.h).  It counts as read when a file under SRC that names
# STRUCT accesses .FIELD or ->FIELD outside its declaration and other than
# as the target of an assignment.
# A key parsed and never read (the old gpu_min) fails this test.
#
# PENDING: structs whose reader has not been converted yet; they are
# skipped, and the test fails once they do have a reader (so that the
# entry is removed).  Empty: every table's keys are read.
PENDING=""

src=${1:?usage: params_read.sh SRC}
files=$(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \))
decls=$(grep -h -o -E 'HAY_PARAM_(U|SZ|D|B|E|S)\([A-Za-z_][A-Za-z0-9_]*, *[A-Za-z_][A-Za-z0-9_]*, *"[^"]*"' $files |
        sed -E 's/^HAY_PARAM_[A-Z]+\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+), *"([^"]*)"/\1 \2 \3/')
passed=0
failed=0
for s in $(printf '%s\n' "$decls" | awk '{ print $1 }' | sort -u); do
    readers=$(grep -l -w "$s" $files)
    is_pending=0
    for p in $PENDING; do
        [ "$p" = "$s" ] && is_pending=1
    done
    # A pending struct's keys are read once a file other than its
    # declaration reads one of them.
    [ $is_pending = 1 ] && readers=$(printf '%s\n' $readers | grep -v 'cuda_params\.[ch]$')
    for f in $(printf '%s\n' "$decls" | awk -v s="$s" '$1 == s { print $2 ":" $3 }'); do
        field=${f%%:*}
        key=${f#*:}
        if [ -n "$readers" ] && grep -h -v 'HAY_PARAM_' $readers |
           sed -E "s/(\.|->)$field *=([^=]|\$)/ =\2/g" |
           grep -q -E "(\.|->)$field([^A-Za-z0-9_]|\$)"; then
            read=1
        else
            read=0
        fi
        if [ $is_pending = 1 ] && [ $read = 1 ]; then
            echo "FAIL: key '$key' ($s.$field) is read now: take $s off PENDING in $0"
            failed=$((failed + 1))
        elif [ $is_pending = 1 ]; then
            echo "pending: key '$key' ($s.$field)"
        elif [ $read = 1 ]; then
            passed=$((passed + 1))
        else
            echo "FAIL: key '$key' ($s.$field) is declared but never read"
            failed=$((failed + 1))
        fi
    done
done
if [ $passed -eq 0 ]; then
    echo "FAIL: no declared key found under $src"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
