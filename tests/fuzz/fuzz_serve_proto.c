/*
 * fuzz_serve_proto.c - libFuzzer target for what `hay db serve` reads from
 * a client and `hay align --server` from a server (programs/serve_proto.h):
 * the message header, the request's fixed part, its words and a packed
 * scoring, all from the peer and never trusted.
 *
 * The first byte picks the reader; the rest is its input.  Each result is
 * checked against the contract in serve_proto.h (an accepted header names
 * the magic, version and type and a payload within the limit; an accepted
 * request's parts are within bounds and add up to the payload; accepted
 * words are exactly nargs NUL-terminated strings inside the buffer; a
 * description is a NUL-terminated string in the buffer given).  Any
 * disagreement aborts.  A real scoring's packing must describe itself as
 * readable.
 */
#include "serve_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) { \
    fprintf(stderr, "fuzz_serve_proto: check failed at line %d: %s\n", __LINE__, #c); \
    abort(); } } while (0)

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Bytes [at, at + n) of the input, zero past its end. */
static void take(const uint8_t *d, size_t size, size_t at, uint8_t *out, size_t n)
{
    memset(out, 0, n);
    if (at < size)
        memcpy(out, d + at, size - at < n ? size - at : n);
}

static void fuzz_header(const uint8_t *d, size_t size)
{
    uint8_t h[SP_HEADER + 9];
    take(d, size, 0, h, sizeof h);
    uint32_t type = (uint32_t)(h[SP_HEADER] % 4);
    uint64_t max = le(h + SP_HEADER + 1, 8);
    uint64_t payload = 0xdeadbeef;
    char err[128];
    err[0] = 0;
    if (sp_header_check(h, type, max, &payload, err, sizeof err) == 0) {
        CHECK(memcmp(h, "HAYSERVE", 8) == 0);
        CHECK(le(h + 8, 4) == SP_VERSION && le(h + 12, 4) == type);
        CHECK(payload == le(h + 16, 8) && payload <= max);
    } else {
        CHECK(err[0] != 0 && memchr(err, 0, sizeof err));
    }
    /* What sp_header writes, sp_header_check takes back. */
    uint8_t w[SP_HEADER];
    uint64_t n = max % (SP_MAX_QUERIES + 1);
    sp_header(w, SP_REQUEST, n);
    CHECK(sp_header_check(w, SP_REQUEST, SP_MAX_QUERIES, &payload, err, sizeof err) == 0 &&
          payload == n);
}

static void fuzz_request(const uint8_t *d, size_t size)
{
    uint8_t fixed[SP_REQUEST_FIXED];
    take(d, size, 8, fixed, sizeof fixed);
    uint64_t payload = le(d, size < 8 ? size : 8);
    sp_request r;
    char err[160];
    err[0] = 0;
    if (sp_request_unpack(fixed, payload, &r, err, sizeof err) != 0) {
        CHECK(err[0] != 0 && memchr(err, 0, sizeof err));
        return;
    }
    CHECK(r.nargs >= 1 && r.nargs <= SP_MAX_ARGS && r.args_bytes >= r.nargs);
    CHECK(r.args_bytes <= SP_MAX_ARG_BYTES && r.scoring_bytes <= SP_MAX_SCORING);
    CHECK(r.query_bytes <= SP_MAX_QUERIES && r.has_db <= 1);
    CHECK(SP_REQUEST_FIXED + (uint64_t)r.args_bytes + r.scoring_bytes + r.query_bytes ==
          payload);
    /* Packing it again gives the same bytes. */
    uint8_t again[SP_REQUEST_FIXED];
    sp_request_pack(&r, again);
    CHECK(memcmp(again, fixed, sizeof fixed) == 0);
}

static void fuzz_words(const uint8_t *d, size_t size)
{
    if (size < 2)
        return;
    uint32_t nargs = (uint32_t)(d[0] | d[1] << 8);
    size_t bytes = size - 2;
    if (bytes == 0 || bytes > SP_MAX_ARG_BYTES)
        return;
    char *words = malloc(bytes);
    char **argv = malloc(sizeof *argv * (SP_MAX_ARGS + 1));
    CHECK(words && argv);
    memcpy(words, d + 2, bytes);
    argv[0] = NULL;
    if (sp_words(words, (uint32_t)bytes, nargs, argv) == 0) {
        CHECK(nargs >= 1 && nargs <= SP_MAX_ARGS && words[bytes - 1] == 0);
        size_t at = 0;
        for (uint32_t i = 0; i < nargs; i++) {
            CHECK(argv[i] == words + at);
            size_t n = strlen(argv[i]);
            CHECK(at + n < bytes);
            at += n + 1;
        }
        CHECK(at == bytes);
    } else {
        CHECK(argv[0] == NULL);
        size_t nul = 0;
        for (size_t i = 0; i < bytes; i++)
            nul += words[i] == 0;
        CHECK(nargs < 1 || nargs > SP_MAX_ARGS || nul != nargs || words[bytes - 1] != 0);
    }
    free(argv);
    free(words);
}

static void fuzz_scoring(const uint8_t *d, size_t size)
{
    char buf[64];
    memset(buf, 'x', sizeof buf);
    sp_scoring_describe(d, size, buf, sizeof buf);
    CHECK(memchr(buf, 0, sizeof buf) != NULL);
}

/* The packings of real scorings describe themselves. */
static void real_scorings(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    hay_align_scoring *s = NULL;
    CHECK(hay_align_scoring_builtin("blosum62", 11, 1, &s) == HAY_OK);
    unsigned char *p = NULL;
    size_t n = 0;
    char buf[256];
    CHECK(sp_scoring_pack(s, &p, &n) == 0);
    sp_scoring_describe(p, n, buf, sizeof buf);
    CHECK(strcmp(buf, "unreadable") != 0);
    free(p);
    hay_align_scoring_free(s);
    CHECK(hay_align_scoring_dna(2, -3, 5, 2, &s) == HAY_OK);
    CHECK(sp_scoring_pack(s, &p, &n) == 0);
    sp_scoring_describe(p, n, buf, sizeof buf);
    CHECK(strncmp(buf, "DNA match 2 mismatch -3", 23) == 0);
    free(p);
    hay_align_scoring_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    real_scorings();
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0: fuzz_header(data + 1, size - 1); break;
    case 1: fuzz_request(data + 1, size - 1); break;
    case 2: fuzz_words(data + 1, size - 1); break;
    default: fuzz_scoring(data + 1, size - 1); break;
    }
    return 0;
}
