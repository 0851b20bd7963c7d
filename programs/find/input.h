/*
 * input.h - the bytes of one open file: a regular file is mapped, anything
 * else (pipes, terminals) is read whole or, where the caller can take it in
 * pieces, piece by piece.  Also the binary-file test.  Errors are printed
 * here, as "hay: NAME: why".
 */
#ifndef HAY_FIND_INPUT_H
#define HAY_FIND_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct find_input {
    const uint8_t *buf;   /* the bytes to search: buf[0, len) */
    uint64_t len;
    void *map;            /* private to input.c */
    uint64_t map_len;
    uint8_t *heap;
} find_input;

/* Makes fd's bytes from its current offset to its end available in *in.
 * Returns 0, or -1 after printing why.  find_input_close() either way. */
int find_input_open(int fd, const char *name, find_input *in);
void find_input_close(find_input *in);

/* True when fd is not a regular file (a pipe, FIFO, terminal, device). */
bool find_input_is_stream(int fd);

/* Reads fd to its end in pieces, handing each to `piece` (non-zero from it
 * stops the reading); *bytes is the number read.  Returns 0, or -1 after
 * printing why the reading failed. */
int find_input_read_pieces(int fd, const char *name,
                           int (*piece)(const uint8_t *p, size_t n, void *ctx),
                           void *ctx, uint64_t *bytes);

/* grep's test: a NUL byte in the first 32 KiB makes a file binary. */
bool find_input_is_binary(const uint8_t *buf, uint64_t len);

#endif
