#!/bin/bash
# cuda-launcher.sh - CMAKE_CUDA_COMPILER_LAUNCHER for the swdb A/B builds
# (.dev-s13/swdb-ab.sh).  With SWDB_AB_BASE (the baseline's build folder)
# and SWDB_AB_DIR (this build's) set, every CUDA object except the
# database-search ones (sw_db.cu, sw_db_search.cu, sw_db_kernels.cu: the
# files the SWDB_* macros change) is copied from the baseline instead of compiled,
# with its depfile.  Otherwise it runs the command as it is.
obj= dep= src=
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
    -o) obj=${args[i + 1]} ;;
    -MF) dep=${args[i + 1]} ;;
    *.cu) src=${args[i]} ;;
    esac
done
if [ -n "$SWDB_AB_BASE" ] && [ -n "$SWDB_AB_DIR" ] && [ -n "$obj" ] && [ -n "$src" ]; then
    case "$src" in
    */sw_db.cu | */sw_db_search.cu | */sw_db_kernels.cu) ;;
    *)
        abs=$(realpath -m "$obj")
        rel=${abs#"$SWDB_AB_DIR"/}
        if [ "$rel" != "$abs" ] && [ -f "$SWDB_AB_BASE/$rel" ]; then
            cp "$SWDB_AB_BASE/$rel" "$abs"
            if [ -n "$dep" ]; then
                dabs=$(realpath -m "$dep")
                drel=${dabs#"$SWDB_AB_DIR"/}
                [ -f "$SWDB_AB_BASE/$drel" ] && cp "$SWDB_AB_BASE/$drel" "$dabs"
            fi
            exit 0
        fi
        ;;
    esac
fi
exec "$@"
