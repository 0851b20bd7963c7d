#!/bin/sh
# exports.sh LIB CC INCLUDE_DIR - the shared library exports exactly the
# public API: every dynamic symbol that LIB defines must be a function (or
# extern variable) declared in INCLUDE_DIR/haystack.h or haystack_align.h,
# and every function declared there must be exported.  The headers are read
# through the C preprocessor (CC -E), so only what a C program sees counts.
# Prints each difference, then "N passed, M failed"; 77 when nm is missing.
set -u
lib=$1 cc=$2 inc=$3
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hay-exports.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# Defined dynamic symbols, less what the linker itself defines.
nm -D --defined-only "$lib" >"$work/nm" || { echo "FAIL: nm -D $lib"; exit 1; }
awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$work/nm" |
  grep -v -x -e _init -e _fini -e _edata -e _end -e __bss_start |
  sort -u >"$work/exported"

# Declarations of the headers: the preprocessed text of files under
# INCLUDE_DIR (line markers say which file), bodies of struct, union and
# enum dropped, cut at ';'; a statement that is not a typedef declares a
# function (the name before its first '(') or, with extern, a variable.
printf '#include "haystack.h"\n#include "haystack_align.h"\n' >"$work/all.c"
"$cc" -E -DHAY_API= -I"$inc" "$work/all.c" >"$work/all.i" ||
  { echo "FAIL: $cc -E of the headers"; exit 1; }
awk -v inc="$inc/" '
  /^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); ours = index(f, inc) == 1; next }
  ours { text = text " " $0 }
  END {
    depth = 0; s = ""
    for (i = 1; i <= length(text); i++) {
      c = substr(text, i, 1)
      if (c == "{") depth++
      else if (c == "}") depth--
      else if (depth == 0) s = s c
    }
    n = split(s, st, ";")
    for (i = 1; i <= n; i++) {
      t = st[i]; gsub(/[ \t]+/, " ", t); sub(/^ /, "", t)
      if (t == "" || t ~ /^typedef /) continue
      p = index(t, "(")
      if (p > 0) head = substr(t, 1, p - 1)
      else if (t ~ /^extern /) head = t
      else continue
      sub(/ +$/, "", head)
      if (match(head, /[A-Za-z_][A-Za-z_0-9]*$/))
        print substr(head, RSTART, RLENGTH)
    }
  }' "$work/all.i" | sort -u >"$work/declared"

pass=0 fail=0
nd=$(wc -l <"$work/declared")
if [ "$nd" -lt 10 ]; then
  echo "FAIL: only $nd declarations read from the headers"; fail=$((fail + 1))
fi
for s in $(comm -23 "$work/exported" "$work/declared"); do
  echo "FAIL: $s is exported but declared in no public header"; fail=$((fail + 1))
done
for s in $(comm -13 "$work/exported" "$work/declared"); do
  echo "FAIL: $s is declared in a public header but not exported (HAY_API?)"
  fail=$((fail + 1))
done
pass=$(comm -12 "$work/exported" "$work/declared" | wc -l)
echo "$(wc -l <"$work/exported") exported, $nd declared"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
