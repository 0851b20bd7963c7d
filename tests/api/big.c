/*
 * big.c - an input over 4 GiB: a 4.5 GiB sparse file (ftruncate, so it
 * takes no disk) mapped read-only, with needles before 4 GiB, across the
 * 4 GiB line and past it.  hay_scan_count and the uint64 offsets that
 * hay_scan and a stream report must be exact; any 32-bit truncation shows.
 *
 *   test_big [dir]   the file goes in $TMPDIR, else dir, else /tmp (the
 *                    first where it can be made)
 *
 * The one-pattern engine runs by default (about 3 s); HAY_TEST_SCALE >= 4
 * adds a multi-pattern set (about 20 s on two cores).
 *
 * Exits 77 (skipped) with a message when the file cannot be made or mapped.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GIB ((uint64_t)1 << 30)
#define SIZE (4 * GIB + GIB / 2)
#define NEEDLE "hay>4GiB-needle!"
#define NEEDLE_LEN (sizeof NEEDLE - 1)

static const uint64_t where[] = {
    100,                       /* near the start */
    4 * GIB - 5,               /* across the 4 GiB line */
    4 * GIB + 12345,           /* past it */
    SIZE - NEEDLE_LEN,         /* at the very end */
};
#define NWHERE (sizeof where / sizeof where[0])

/* Makes the sparse file in dir, with the needles, and maps it; NULL with
 * errno set when any step fails.  The file is unlinked at once. */
static uint8_t *make_map(const char *dir, int *fd_out, const char **step)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/hay-big-XXXXXX", dir);
    *step = "create";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);   /* gone when closed, whatever happens */
    *step = "size";
    if (ftruncate(fd, (off_t)SIZE) != 0)
        goto fail;
    *step = "write";
    for (size_t i = 0; i < NWHERE; i++)
        if (pwrite(fd, NEEDLE, NEEDLE_LEN, (off_t)where[i]) != (ssize_t)NEEDLE_LEN)
            goto fail;
    *step = "map";
    uint8_t *map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        goto fail;
    *fd_out = fd;
    return map;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
}

static void check_engine(const char *algo, const uint8_t *map, bool multi)
{
    hay_pattern p[2] = { { NEEDLE, NEEDLE_LEN }, { "zz", 2 } };
    size_t np = multi ? 2 : 1;
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.algo = algo;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(p, np, &o, &set);
    if (!CHECK(s == HAY_OK, "compile %s: %s", algo, hay_strerror(s)))
        return;
    hay_scratch *scr = NULL;
    hay_scratch_create(set, &scr);
    hay_scan_opts so;
    hay_scan_opts_init(&so);
    so.threads = 2;

    double t0 = tu_now();
    tu_mlist exp = { 0 };
    for (size_t i = 0; i < NWHERE; i++)
        tu_mlist_push(&exp, 0, where[i], where[i] + NEEDLE_LEN);
    tu_checker ck;
    tu_checker_init(&ck, &exp, 0, p, np);
    s = hay_scan(set, scr, map, SIZE, &so, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok, "scan %s of 4.5 GiB: %s; %s", algo,
          hay_strerror(s), ok ? "offsets agree" : ck.err);
    tu_checker_free(&ck);
    double t1 = tu_now();

    uint64_t n = 0;
    s = hay_scan_count(set, scr, map, SIZE, &so, &n);
    CHECK(s == HAY_OK && n == NWHERE, "count %s of 4.5 GiB: %s, %" PRIu64
          ", want %zu", algo, hay_strerror(s), n, (size_t)NWHERE);
    printf("%-6s scan %.2f s, count %.2f s\n", algo, t1 - t0, tu_now() - t1);
    tu_mlist_free(&exp);
    hay_scratch_free(scr);
    hay_patterns_free(set);
}

/* The same through a stream, in 1 GiB writes: one write ends at 4 GiB,
 * inside the needle there. */
static void check_stream(const uint8_t *map)
{
    hay_pattern p = { NEEDLE, NEEDLE_LEN };
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(&p, 1, NULL, &set);
    if (!CHECK(s == HAY_OK, "compile: %s", hay_strerror(s)))
        return;
    tu_mlist exp = { 0 };
    for (size_t i = 0; i < NWHERE; i++)
        tu_mlist_push(&exp, 0, where[i], where[i] + NEEDLE_LEN);
    tu_checker ck;
    tu_checker_init(&ck, &exp, 0, &p, 1);
    double t0 = tu_now();
    hay_stream *st = NULL;
    s = hay_stream_open(set, tu_check_cb, &ck, &st);
    bool ok = s == HAY_OK;
    for (uint64_t at = 0; ok && at < SIZE; at += GIB) {
        uint64_t n = SIZE - at < GIB ? SIZE - at : GIB;
        ok = hay_stream_write(st, map + at, (size_t)n) == HAY_OK;
    }
    ok = hay_stream_close(st) == HAY_OK && ok;
    hay_stream_free(st);
    bool agree = tu_checker_done(&ck, false);
    CHECK(ok && agree, "stream of 4.5 GiB in 1 GiB writes: %s; %s",
          ok ? "calls ok" : "a call failed", agree ? "offsets agree" : ck.err);
    printf("stream %.2f s\n", tu_now() - t0);
    tu_checker_free(&ck);
    tu_mlist_free(&exp);
    hay_patterns_free(set);
}

int main(int argc, char **argv)
{
    const char *dirs[3] = { getenv("TMPDIR"), argc > 1 ? argv[1] : NULL, "/tmp" };
    uint8_t *map = NULL;
    int fd = -1;
    for (size_t i = 0; i < 3 && !map; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        const char *step;
        map = make_map(dirs[i], &fd, &step);
        if (!map)
            printf("cannot %s a 4.5 GiB sparse file in %s: %s\n", step, dirs[i],
                   strerror(errno));
    }
    if (!map) {
        printf("SKIP: no folder for the 4.5 GiB sparse file\n");
        tu_finish();
        return TU_SKIP;
    }
    madvise(map, SIZE, MADV_SEQUENTIAL);

    check_engine("auto", map, false);
    check_stream(map);
    if (tu_scale() >= 4)
        check_engine("auto", map, true);

    munmap(map, SIZE);
    close(fd);
    return tu_finish();
}
