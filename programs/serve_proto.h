/*
 * serve_proto.h - the protocol between `hay db serve` (align_serve.c) and
 * `hay align --server` (align_client.c) on a Unix-domain stream socket.
 *
 * Every message is a 24-byte header and a payload:
 *     0  magic "HAYSERVE"     8  u32 version (SP_VERSION)
 *    12  u32 type (SP_HELLO, SP_REQUEST, SP_REPLY)
 *    16  u64 payload bytes
 * all integers little-endian, doubles as their IEEE-754 bits in a u64.
 * Either side checks the magic, the version and the type it expects, and
 * a payload size against that type's limit, before it allocates anything:
 * a length from the peer is never trusted.
 *
 * One connection is one search:
 *   server -> client  SP_HELLO, as soon as the server takes the connection
 *                     (the server runs one search at a time: a client that
 *                     connects while another is served waits here):
 *                       u32 dna (1: a DNA database), u32 backend (the
 *                       hay_backend the server searches with), then the
 *                       served path (at most SP_MAX_PATH bytes, no NUL)
 *   client -> server  SP_REQUEST, the header sent with two descriptors
 *                     (SCM_RIGHTS): the client's standard output and error,
 *                     where the server then writes the command's output:
 *                       u32 nargs, u32 args bytes, u32 scoring bytes,
 *                       u32 has_db, u64 db device, u64 db inode,
 *                       u64 query bytes, then six doubles: the client's
 *                       start (monotonic and realtime clocks), its
 *                       process's start, its reading of the queries (start,
 *                       end) and the moment it sent the request;
 *                       then the arguments (nargs NUL-terminated words, as
 *                       `hay align` was given them less --server), the
 *                       client's scoring (sp_scoring_pack) and the query
 *                       file's text (gunzipped)
 *   server -> client  SP_REPLY: u32 exit status of the command
 * A client that sees no SP_HELLO or no SP_REPLY in its timeout, a reply cut
 * short or another version gives up with exit status 2.
 */
#ifndef HAY_SERVE_PROTO_H
#define HAY_SERVE_PROTO_H

#include "haystack_align.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SP_VERSION 1u
#define SP_HEADER 24
enum { SP_HELLO = 1, SP_REQUEST = 2, SP_REPLY = 3 };

#define SP_MAX_PATH 4096
#define SP_MAX_ARGS 1024                    /* words */
#define SP_MAX_ARG_BYTES ((size_t)1 << 20)
#define SP_MAX_SCORING ((size_t)1 << 16)
#define SP_MAX_QUERIES ((size_t)1 << 30)    /* query text a request */
#define SP_REQUEST_FIXED 88                 /* the request's fixed part */

typedef struct sp_request {
    uint32_t nargs, args_bytes, scoring_bytes, has_db;
    uint64_t db_dev, db_ino, query_bytes;
    double t0, real0, proc_start, read_start, read_end, sent;
} sp_request;

/* A little-endian u32 into p[0, 4), and back. */
void sp_put32(unsigned char *p, uint32_t v);
uint32_t sp_get32(const unsigned char *p);

/* A header into buf (SP_HEADER bytes). */
void sp_header(unsigned char *buf, uint32_t type, uint64_t payload);
/* Checks a header: 0 and *payload, or -1 with why in err ("another
 * version (3; this hay speaks 1)", ...); a payload over max is refused. */
int sp_header_check(const unsigned char *buf, uint32_t type, uint64_t max,
                    uint64_t *payload, char *err, size_t errcap);

void sp_request_pack(const sp_request *r, unsigned char *buf);
/* The fixed part back, its sizes bounded by the limits above and by the
 * payload's size (all parts must add up to it).  -1 with why in err. */
int sp_request_unpack(const unsigned char *buf, uint64_t payload,
                      sp_request *r, char *err, size_t errcap);

/* A request's words: `bytes` bytes that must hold exactly nargs
 * NUL-terminated words (1 <= nargs <= SP_MAX_ARGS, the last byte a NUL),
 * pointed to from argv[0, nargs).  0, or -1 when they do not add up
 * (argv untouched). */
int sp_words(char *words, uint32_t bytes, uint32_t nargs, char **argv);

/* A scoring as bytes (alphabet, letters, name, gaps, DNA flag and the
 * whole matrix): two scorings give the same bytes exactly when they score
 * alike and print alike.  malloc'd into *out; -1 if out of memory. */
int sp_scoring_pack(const hay_align_scoring *s, unsigned char **out,
                    size_t *len);
/* "BLOSUM62, gaps 11/1" of packed bytes (checked: "unreadable" if not a
 * packing). */
void sp_scoring_describe(const unsigned char *p, size_t len, char *buf,
                         size_t cap);

/* Reads exactly n bytes within timeout_ms (each wait; -1: none).  0, or
 * -1 with errno (ETIMEDOUT when the time ran out, EPIPE on an end of the
 * stream before n bytes; *got says how many came). */
int sp_read(int fd, void *buf, size_t n, int timeout_ms, size_t *got);
/* Writes all n bytes (no SIGPIPE).  0, or -1 with errno. */
int sp_write(int fd, const void *buf, size_t n);
/* Sends n bytes with nfds descriptors (SCM_RIGHTS).  0 or -1. */
int sp_send_fds(int fd, const void *buf, size_t n, const int *fds, int nfds);
/* Reads exactly n bytes, the first of which carry up to maxfds
 * descriptors (close-on-exec); *nfds how many came.  As sp_read. */
int sp_recv_fds(int fd, void *buf, size_t n, int timeout_ms, int *fds,
                int maxfds, int *nfds);

/* A socket connected to path; -1 with errno. */
int sp_connect(const char *path);

#endif
