/* input.c - mapping files, reading pipes, binary detection (see input.h). */
#include "input.h"

#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BINARY_PROBE ((size_t)32 << 10)
#define PIECE ((size_t)1 << 20)

void find_input_close(find_input *in)
{
    if (in->map)
        munmap(in->map, (size_t)in->map_len);
    free(in->heap);
    memset(in, 0, sizeof *in);
}

int find_input_open(int fd, const char *name, find_input *in)
{
    memset(in, 0, sizeof *in);
    struct stat st;
    if (fstat(fd, &st) < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);   /* stdin may be part read */
        if (pos < 0)
            pos = 0;
        if (st.st_size <= pos)
            return 0;
        /* Shared and read-only: the mapping is the file's page cache and
         * can never turn into private copies of its pages, so a backend
         * that reads the caller's memory directly reads the file where it
         * lies. */
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "hay: %s: cannot map: %s\n", name, strerror(errno));
            return -1;
        }
        in->map = m;
        in->map_len = (uint64_t)st.st_size;
        in->buf = (const uint8_t *)m + pos;
        in->len = (uint64_t)(st.st_size - pos);
        return 0;
    }
    char err[512];
    size_t len = 0;
    if (cli_read_fd(fd, name, &in->heap, &len, err, sizeof err) < 0) {
        fprintf(stderr, "hay: %s\n", err);
        return -1;
    }
    in->buf = in->heap;
    in->len = len;
    return 0;
}

bool find_input_is_stream(int fd)
{
    struct stat sb;
    return fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode);
}

int find_input_read_pieces(int fd, const char *name,
                           int (*piece)(const uint8_t *p, size_t n, void *ctx),
                           void *ctx, uint64_t *bytes)
{
    *bytes = 0;
    uint8_t *buf = malloc(PIECE);
    if (!buf) {
        fprintf(stderr, "hay: %s: out of memory\n", name);
        return -1;
    }
    int rc = 0;
    for (;;) {
        ssize_t got = read(fd, buf, PIECE);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "hay: %s: %s\n", name, strerror(errno));
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        *bytes += (uint64_t)got;
        if (piece(buf, (size_t)got, ctx))
            break;
    }
    free(buf);
    return rc;
}

bool find_input_is_binary(const uint8_t *buf, uint64_t len)
{
    return len && memchr(buf, 0, len < BINARY_PROBE ? (size_t)len : BINARY_PROBE);
}
