/*
 * input.h - the bytes of one open file, handed out in pieces of whole
 * lines.  Two ways in:
 *   mapped  a regular file of at least FIND_MAP_MIN bytes is mapped and
 *           handed out as one piece (the library's threads, or a GPU, read
 *           it where it lies).  A file truncated while it is mapped does not
 *           kill the process: input.c's SIGBUS handler puts zero pages over
 *           the vanished tail and marks the input truncated
 *           (find_input_truncated), and the search ends with a warning.
 *   read    everything else (small files, pipes, FIFOs, terminals, /proc
 *           and /sys files that report size 0 or cannot be mapped, devices)
 *           is read into a buffer that the caller keeps across files and
 *           handed out as soon as whole lines have arrived, so `tail -f |
 *           hay find` prints as lines come, in bounded memory (the buffer
 *           grows only to hold one line longer than itself).
 * Errors are printed here, as "hay: NAME: why".
 */
#ifndef HAY_FIND_INPUT_H
#define HAY_FIND_INPUT_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>

/* Regular files this large or larger are mapped rather than read. */
#define FIND_MAP_MIN ((uint64_t)8 << 20)

/* A read buffer, reused from file to file (one per thread). */
typedef struct find_readbuf {
    uint8_t *p;
    size_t cap;
} find_readbuf;

void find_readbuf_free(find_readbuf *rb);

typedef struct find_input {
    /* private to input.c */
    int fd;
    const char *name;
    bool stream;          /* not a regular file: hand out what has arrived */
    bool whole;
    bool mapped, done;
    void *map;
    uint64_t map_len, map_off;
    int guard;            /* the SIGBUS guard slot of the mapping, or -1 */
    find_readbuf *rb;
    size_t have, next;    /* rb->p[next, have) is read but not handed out */
    size_t expect;        /* a small regular file's size: read no further */
    bool eof;
} find_input;

/* Prepares fd's bytes from its current offset on (from its start when
 * `at_start`: a file just opened).  `rb` is the read buffer to use (kept by
 * the caller).  `whole`: hand a read input out in one piece
 * at its end (a pattern holding a newline may match across lines, so
 * pieces of whole lines would cut its occurrences).  `known`: fd's fstat
 * if the caller has it, else NULL.  Returns 0, or -1 after printing why;
 * find_input_close() either way. */
int find_input_open(int fd, const char *name, bool at_start, bool whole,
                    const struct stat *known, find_readbuf *rb, find_input *in);
void find_input_close(find_input *in);

/* The next piece: whole lines, except that the last piece of the input may
 * end without a newline.  Pieces are valid until the next call.  Returns 1
 * with *p, *n set, 0 at the end of the input, or -1 after printing why the
 * reading failed. */
int find_input_next(find_input *in, const uint8_t **p, size_t *n);

/* A mapped file that shrank while it was searched: the bytes past its new
 * end read as zeros.  Safe to call from any thread, at any time. */
bool find_input_truncated(const find_input *in);

/* grep's test: a NUL byte in the first 32 KiB makes a file binary. */
bool find_input_is_binary(const uint8_t *buf, uint64_t len);

#endif
