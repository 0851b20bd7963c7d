/*
 * align_client.c - `hay align --server PATH`: the client of `hay db serve`
 * (align_serve.c).  It reads the queries here (the server may not see this
 * command's files, nor resolve its relative paths), makes the scoring of
 * its options, and sends them with the command's arguments and its
 * standard output and error (serve_proto.h); the server writes the
 * output there, and the client exits with the status the server reports.
 * Every wait on the server is bounded by --server-timeout.
 */
#include "align.h"
#include "cli.h"
#include "serve_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* Why a read from the server failed, for "hay align: --server PATH: ...". */
static const char *why_read(int e, int timeout_s, char *buf, size_t cap)
{
    if (e == ETIMEDOUT)
        snprintf(buf, cap, "no answer in %d s (--server-timeout)", timeout_s);
    else if (e == EPIPE || e == ECONNRESET)
        snprintf(buf, cap, "the server closed the connection before its "
                 "answer was whole (did it stop or fail?)");
    else if (e == EAGAIN || e == EWOULDBLOCK)
        snprintf(buf, cap, "the server took no data for %d s "
                 "(--server-timeout)", timeout_s);
    else
        snprintf(buf, cap, "%s", strerror(e));
    return buf;
}

/* The server's greeting: *dna of its database, its path (path[cap]).  -1
 * after a message. */
static int read_hello(const aconfig *cf, int fd, int ms, uint32_t *dna,
                      char *path, size_t cap)
{
    unsigned char h[SP_HEADER], p[8 + SP_MAX_PATH];
    char err[256], why[160];
    uint64_t n = 0;
    if (sp_read(fd, h, sizeof h, ms, NULL)) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server,
                why_read(errno, cf->server_timeout, why, sizeof why));
        return -1;
    }
    if (sp_header_check(h, SP_HELLO, sizeof p, &n, err, sizeof err)) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server, err);
        return -1;
    }
    if (n < 8) {
        fprintf(stderr, "hay align: --server %s: a greeting too short\n",
                cf->server);
        return -1;
    }
    if (sp_read(fd, p, (size_t)n, ms, NULL)) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server,
                why_read(errno, cf->server_timeout, why, sizeof why));
        return -1;
    }
    *dna = sp_get32(p);
    size_t pl = (size_t)n - 8 < cap - 1 ? (size_t)n - 8 : cap - 1;
    memcpy(path, p + 8, pl);
    path[pl] = 0;
    return 0;
}

int align_client_main(aconfig *cf)
{
    timeline clock;   /* only its start: the command's t0 */
    timeline_init(&clock);
    int fd = -1, rc = 2, ms = cf->server_timeout * 1000;
    char *text = NULL, *args = NULL, err[1024] = "", why[160];
    unsigned char *blob = NULL, req[SP_HEADER + SP_REQUEST_FIXED];
    size_t len = 0, blen = 0, abytes = 0;
    hay_align_scoring *s = NULL;
    sp_request rq;
    memset(&rq, 0, sizeof rq);
    rq.t0 = clock.t0;
    rq.real0 = clock.real0;
    rq.proc_start = timeline_process_start();
    rq.read_start = cli_now();
    if (seq_file_slurp(cf->qpath, &text, &len, err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        goto out;
    }
    rq.read_end = cli_now();
    if (len > SP_MAX_QUERIES) {
        fprintf(stderr, "hay align: %s: %zu bytes of queries; a server takes "
                "at most %zu a request (split QUERY, or leave out --server)\n",
                cf->qpath, len, SP_MAX_QUERIES);
        goto out;
    }
    if (cf->tpath) {   /* the served database, by device and inode */
        struct stat st;
        if (stat(cf->tpath, &st) != 0) {
            fprintf(stderr, "hay align: cannot open '%s': %s\n", cf->tpath,
                    strerror(errno));
            goto out;
        }
        rq.has_db = 1;
        rq.db_dev = (uint64_t)st.st_dev;
        rq.db_ino = (uint64_t)st.st_ino;
    }
    fd = sp_connect(cf->server);
    if (fd < 0) {
        fprintf(stderr, "hay align: --server %s: no server answers there "
                "(%s); start one with 'hay db serve DB --socket %s'\n",
                cf->server, strerror(errno), cf->server);
        goto out;
    }
    struct timeval tv = { cf->server_timeout, 0 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    uint32_t dna;
    char spath[SP_MAX_PATH + 1];
    if (read_hello(cf, fd, ms, &dna, spath, sizeof spath))
        goto out;
    /* The scoring as this command would make it for the served database
     * (after the same check of its kind): the server compares it with its
     * own. */
    if (check_db_kind(cf, "hay align", cf->tpath ? cf->tpath : spath, (int)dna))
        goto out;
    s = make_scoring(cf, (int)dna);
    if (!s)
        goto out;
    if (sp_scoring_pack(s, &blob, &blen)) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    for (int i = 0; i < cf->nargs; i++)
        abytes += strlen(cf->args[i]) + 1;
    if (cf->nargs > (int)SP_MAX_ARGS || abytes > SP_MAX_ARG_BYTES) {
        fprintf(stderr, "hay align: --server: a command line of more than "
                "%d words or %zu bytes\n", SP_MAX_ARGS, SP_MAX_ARG_BYTES);
        goto out;
    }
    args = malloc(abytes ? abytes : 1);
    if (!args) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    for (size_t i = 0, w = 0; i < (size_t)cf->nargs; i++) {
        size_t n = strlen(cf->args[i]) + 1;
        memcpy(args + w, cf->args[i], n);
        w += n;
    }
    rq.nargs = (uint32_t)cf->nargs;
    rq.args_bytes = (uint32_t)abytes;
    rq.scoring_bytes = (uint32_t)blen;
    rq.query_bytes = len;
    rq.sent = cli_now();
    sp_header(req, SP_REQUEST, SP_REQUEST_FIXED + abytes + blen + len);
    sp_request_pack(&rq, req + SP_HEADER);
    const int fds[2] = { STDOUT_FILENO, STDERR_FILENO };
    if (sp_send_fds(fd, req, SP_HEADER + SP_REQUEST_FIXED, fds, 2) ||
        sp_write(fd, args, abytes) || sp_write(fd, blob, blen) ||
        sp_write(fd, text, len)) {
        fprintf(stderr, "hay align: --server %s: sending the request: %s\n",
                cf->server, why_read(errno, cf->server_timeout, why,
                                     sizeof why));
        goto out;
    }
    unsigned char h[SP_HEADER], p[4];
    uint64_t n = 0;
    if (sp_read(fd, h, sizeof h, ms, NULL)) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server,
                why_read(errno, cf->server_timeout, why, sizeof why));
        goto out;
    }
    if (sp_header_check(h, SP_REPLY, sizeof p, &n, err, sizeof err) ||
        n != sizeof p) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server,
                *err ? err : "a reply of the wrong size");
        goto out;
    }
    if (sp_read(fd, p, sizeof p, ms, NULL)) {
        fprintf(stderr, "hay align: --server %s: %s\n", cf->server,
                why_read(errno, cf->server_timeout, why, sizeof why));
        goto out;
    }
    uint32_t status = sp_get32(p);
    rc = status > 255 ? 2 : (int)status;
out:
    if (fd >= 0)
        close(fd);
    free(text);
    free(args);
    free(blob);
    hay_align_scoring_free(s);
    timeline_free(&clock);
    return rc;
}
