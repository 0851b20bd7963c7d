/*
 * input.h - the bytes of one open file, handed out in pieces of whole
 * lines.  Two ways in:
 *   mapped  a regular file of at least FIND_MAP_MIN bytes, when the caller
 *           asks for it (find_input_maps), is mapped and handed out as one
 *           piece (the library's threads, or a GPU, read it where it lies);
 *           so is the rest of one being read, when the caller asks between
 *           pieces (find_input_map_rest).  A file truncated while it is
 *           mapped does not kill the process: input.c's SIGBUS handler puts
 *           zero pages over the vanished tail and marks the input truncated
 *           (find_input_truncated), and the search ends with a warning.
 *   read    everything else (small files, big ones searched on one core,
 *           pipes, FIFOs, terminals, /proc and /sys files that report size
 *           0 or cannot be mapped, devices) is read into a buffer that the
 *           caller keeps across files and handed out as soon as whole lines
 *           have arrived, so `tail -f | hay find` prints as lines come, in
 *           bounded memory (the buffer grows only to hold one line longer
 *           than itself).  A regular file is read in pieces of
 *           FIND_READ_CAP bytes (one read a piece, none to learn of its
 *           end: its size is known); one core reads a big file so for less
 *           than mapping it costs (the page tables built and torn down).
 * Errors are printed here, as "hay: NAME: why".
 */
#ifndef HAY_FIND_INPUT_H
#define HAY_FIND_INPUT_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>

#include "haystack.h"

/* Regular files this large or larger may be mapped rather than read. */
#define FIND_MAP_MIN ((uint64_t)8 << 20)
/* A read buffer's usual size: the pieces of a big file read. */
#define FIND_READ_CAP ((size_t)1 << 20)

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
    bool sized;           /* a regular file: `left` bytes are left to read */
    uint64_t left;
    uint64_t size;        /* ... of `size` bytes (fstat) */
    uint64_t at;          /* the file offset of rb->p[0] */
    bool map_rest;        /* map what is left (find_input_map_rest) */
    bool eof;
} find_input;

/* Prepares fd's bytes from its current offset on (from its start when
 * `at_start`: a file just opened).  `rb` is the read buffer to use (kept by
 * the caller).  `whole`: hand a read input out in one piece
 * at its end (a pattern holding a newline may match across lines, so
 * pieces of whole lines would cut its occurrences).  `map`: map a regular
 * file of at least FIND_MAP_MIN bytes (else it is read in pieces).
 * `known`: fd's fstat if the caller has it, else NULL.  Returns 0, or -1
 * after printing why; find_input_close() either way. */
int find_input_open(int fd, const char *name, bool at_start, bool whole, bool map,
                    const struct stat *known, find_readbuf *rb, find_input *in);
void find_input_close(find_input *in);

/* Whether a regular file of `size` bytes is better mapped than read: the
 * library's `threads` (more than one) or a GPU read it where it lies; one
 * core reads it in pieces for less than mapping it costs (the page tables
 * built and torn down).  Backend auto sends no input below FIND_GPU_MIN to
 * a GPU (src/auto/policy.h: 256 MiB for several patterns, more for one or
 * for literals), unless its threshold was `tuned` (--params, --device) or
 * set by HAY_AUTO_GPU_MIN. */
#define FIND_GPU_MIN ((uint64_t)256 << 20)
bool find_input_maps(hay_backend backend, bool tuned, unsigned threads, uint64_t size);

/* The next piece: whole lines, except that the last piece of the input may
 * end without a newline.  Pieces are valid until the next call.  Returns 1
 * with *p, *n set, 0 at the end of the input, or -1 after printing why the
 * reading failed. */
int find_input_next(find_input *in, const uint8_t **p, size_t *n);

/* From the next piece on, the rest of a regular file read in pieces is
 * mapped and handed out as one piece if `map` and at least FIND_MAP_MIN
 * bytes are left (find_input_maps' answer, asked again between pieces:
 * library threads came free while the file was read). */
void find_input_map_rest(find_input *in, bool map);

/* Whether the last piece was handed out (none follows). */
bool find_input_ended(const find_input *in);

/* A mapped file that shrank while it was searched: the bytes past its new
 * end read as zeros.  Safe to call from any thread, at any time. */
bool find_input_truncated(const find_input *in);

/* grep's test: a NUL byte in the first 32 KiB makes a file binary.  The
 * offset of the first NUL there, or UINT64_MAX: `p`, `n` is the input's
 * first piece, and the bytes read after it count too (a first piece of
 * whole lines may be shorter than 32 KiB). */
uint64_t find_input_first_nul(const find_input *in, const uint8_t *p, size_t n);

#endif
