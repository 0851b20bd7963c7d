#!/bin/sh
# test-install.sh BUILD_DIR WORK_DIR CC: installs the build into WORK_DIR/prefix
# and builds a small program against it with CMake's find_package(haystack) and
# with pkg-config (shared and static).  Prints "N passed, M failed" last.
set -u
build=$1 work=$2 cc=$3
rm -rf "$work" && mkdir -p "$work/src"
prefix=$work/prefix
pass=0 fail=0
check() { if "$@" >"$work/last.log" 2>&1; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: $*"; cat "$work/last.log"; fi; }
cat >"$work/src/main.c" <<'C'
#include <haystack.h>
#include <stdio.h>
int main(void)
{
    hay_pattern p = { "lo", 2 };
    hay_patterns *set;
    hay_scratch *s;
    uint64_t n = 0;
    if (hay_patterns_compile(&p, 1, NULL, &set) || hay_scratch_create(set, &s) ||
        hay_scan_count(set, s, "hello, lo", 9, NULL, &n))
        return 1;
    printf("haystack %s: %llu\n", hay_version(), (unsigned long long)n);
    hay_scratch_free(s);
    hay_patterns_free(set);
    return n == 2 ? 0 : 1;
}
C
cat >"$work/src/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(haystack 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer haystack::haystack)
C
check cmake --install "$build" --prefix "$prefix"
check cmake -S "$work/src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc"
check cmake --build "$work/cmake-build"
check env LD_LIBRARY_PATH="$prefix/lib" "$work/cmake-build/consumer"
if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  check sh -c "$cc '$work/src/main.c' \$(pkg-config --cflags --libs haystack) -o '$work/pc-shared'"
  check env LD_LIBRARY_PATH="$prefix/lib" "$work/pc-shared"
  check sh -c "$cc '$work/src/main.c' \$(pkg-config --cflags haystack) \$(pkg-config --libs --static haystack | sed 's#-lhaystack#$prefix/lib/libhaystack.a#') -o '$work/pc-static'"
  check "$work/pc-static"
else
  echo "SKIP: pkg-config not installed; the pkg-config half is not checked"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
