/* serve_proto.c - the messages of serve_proto.h and the socket I/O. */
#include "serve_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const unsigned char MAGIC[8] = { 'H', 'A', 'Y', 'S', 'E', 'R', 'V', 'E' };

void sp_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t sp_get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void putd(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put64(p, v);
}

static double getd(const unsigned char *p)
{
    uint64_t v = get64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

void sp_header(unsigned char *buf, uint32_t type, uint64_t payload)
{
    memcpy(buf, MAGIC, sizeof MAGIC);
    sp_put32(buf + 8, SP_VERSION);
    sp_put32(buf + 12, type);
    put64(buf + 16, payload);
}

int sp_header_check(const unsigned char *buf, uint32_t type, uint64_t max,
                    uint64_t *payload, char *err, size_t errcap)
{
    if (memcmp(buf, MAGIC, sizeof MAGIC)) {
        snprintf(err, errcap, "not the hay server protocol (bad magic)");
        return -1;
    }
    uint32_t v = sp_get32(buf + 8), t = sp_get32(buf + 12);
    if (v != SP_VERSION) {
        snprintf(err, errcap, "protocol version %u (this hay speaks %u)",
                 (unsigned)v, SP_VERSION);
        return -1;
    }
    if (t != type) {
        snprintf(err, errcap, "message type %u where %u was due",
                 (unsigned)t, (unsigned)type);
        return -1;
    }
    *payload = get64(buf + 16);
    if (*payload > max) {
        snprintf(err, errcap, "a message of %llu bytes (at most %llu)",
                 (unsigned long long)*payload, (unsigned long long)max);
        return -1;
    }
    return 0;
}

void sp_request_pack(const sp_request *r, unsigned char *b)
{
    sp_put32(b, r->nargs);
    sp_put32(b + 4, r->args_bytes);
    sp_put32(b + 8, r->scoring_bytes);
    sp_put32(b + 12, r->has_db);
    put64(b + 16, r->db_dev);
    put64(b + 24, r->db_ino);
    put64(b + 32, r->query_bytes);
    putd(b + 40, r->t0);
    putd(b + 48, r->real0);
    putd(b + 56, r->proc_start);
    putd(b + 64, r->read_start);
    putd(b + 72, r->read_end);
    putd(b + 80, r->sent);
}

int sp_request_unpack(const unsigned char *b, uint64_t payload,
                      sp_request *r, char *err, size_t errcap)
{
    r->nargs = sp_get32(b);
    r->args_bytes = sp_get32(b + 4);
    r->scoring_bytes = sp_get32(b + 8);
    r->has_db = sp_get32(b + 12);
    r->db_dev = get64(b + 16);
    r->db_ino = get64(b + 24);
    r->query_bytes = get64(b + 32);
    r->t0 = getd(b + 40);
    r->real0 = getd(b + 48);
    r->proc_start = getd(b + 56);
    r->read_start = getd(b + 64);
    r->read_end = getd(b + 72);
    r->sent = getd(b + 80);
    if (r->nargs < 1 || r->nargs > SP_MAX_ARGS ||
        r->args_bytes > SP_MAX_ARG_BYTES || r->args_bytes < r->nargs ||
        r->scoring_bytes > SP_MAX_SCORING || r->query_bytes > SP_MAX_QUERIES ||
        r->has_db > 1) {
        snprintf(err, errcap, "a request out of bounds (%u words, %u bytes "
                 "of them, %u of scoring, %llu of queries)",
                 (unsigned)r->nargs, (unsigned)r->args_bytes,
                 (unsigned)r->scoring_bytes,
                 (unsigned long long)r->query_bytes);
        return -1;
    }
    if (SP_REQUEST_FIXED + (uint64_t)r->args_bytes + r->scoring_bytes +
        r->query_bytes != payload) {
        snprintf(err, errcap, "a request whose parts do not add up to its "
                 "%llu bytes", (unsigned long long)payload);
        return -1;
    }
    return 0;
}

int sp_words(char *words, uint32_t bytes, uint32_t nargs, char **argv)
{
    if (nargs < 1 || nargs > SP_MAX_ARGS || bytes < nargs || words[bytes - 1] != 0)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < bytes; i++)
        k += words[i] == 0;
    if (k != nargs)
        return -1;
    for (uint32_t i = 0, at = 0; i < nargs; i++) {
        argv[i] = words + at;
        at += (uint32_t)strlen(words + at) + 1;
    }
    return 0;
}

/* Packing: "HSC1", u32 alpha, u32 dna, i32 open, i32 extend, u32 name
 * bytes, the name, the letters (alpha), then the matrix (alpha x alpha
 * i32, row by row). */
int sp_scoring_pack(const hay_align_scoring *s, unsigned char **out,
                    size_t *len)
{
    int alpha = hay_align_scoring_alpha(s);
    const char *name = hay_align_scoring_name(s);
    size_t nl = strlen(name);
    int32_t open, ext;
    hay_align_scoring_gaps(s, &open, &ext);
    size_t n = 24 + nl + (size_t)alpha + 4 * (size_t)alpha * (size_t)alpha;
    unsigned char *p = malloc(n);
    if (!p)
        return -1;
    memcpy(p, "HSC1", 4);
    sp_put32(p + 4, (uint32_t)alpha);
    sp_put32(p + 8, (uint32_t)hay_align_scoring_is_dna(s));
    sp_put32(p + 12, (uint32_t)open);
    sp_put32(p + 16, (uint32_t)ext);
    sp_put32(p + 20, (uint32_t)nl);
    memcpy(p + 24, name, nl);
    memcpy(p + 24 + nl, hay_align_scoring_letters(s), (size_t)alpha);
    unsigned char *m = p + 24 + nl + alpha;
    for (int a = 0; a < alpha; a++)
        for (int b = 0; b < alpha; b++, m += 4)
            sp_put32(m, (uint32_t)hay_align_scoring_score(s, (uint8_t)a,
                                                       (uint8_t)b));
    *out = p;
    *len = n;
    return 0;
}

void sp_scoring_describe(const unsigned char *p, size_t len, char *buf,
                         size_t cap)
{
    if (len < 24 || memcmp(p, "HSC1", 4) || sp_get32(p + 20) > len - 24) {
        snprintf(buf, cap, "unreadable");
        return;
    }
    uint32_t nl = sp_get32(p + 20);
    int32_t open = (int32_t)sp_get32(p + 12), ext = (int32_t)sp_get32(p + 16);
    if (sp_get32(p + 8)) {   /* DNA: match and mismatch from the matrix */
        /* The letters and the alpha x alpha matrix after the name, checked
         * without overflow (len - 24 - nl bytes are left for them). */
        uint64_t alpha = sp_get32(p + 4), left = len - 24 - (uint64_t)nl;
        if (alpha < 2 || alpha > left || (left - alpha) / 4 / alpha < alpha) {
            snprintf(buf, cap, "unreadable");
            return;
        }
        const unsigned char *m = p + 24 + nl + alpha;
        snprintf(buf, cap, "DNA match %d mismatch %d, gaps %d/%d",
                 (int)(int32_t)sp_get32(m), (int)(int32_t)sp_get32(m + 4),
                 (int)open, (int)ext);
        return;
    }
    snprintf(buf, cap, "%.*s, gaps %d/%d", (int)(nl > 200 ? 200 : nl),
             (const char *)p + 24, (int)open, (int)ext);
}

static int wait_fd(int fd, short ev, int timeout_ms)
{
    struct pollfd pf = { fd, ev, 0 };
    for (;;) {
        int r = poll(&pf, 1, timeout_ms);
        if (r > 0)
            return 0;
        if (r == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR)
            return -1;
    }
}

int sp_read(int fd, void *buf, size_t n, int timeout_ms, size_t *got)
{
    size_t done = 0;
    int rc = 0;
    while (done < n) {
        if (wait_fd(fd, POLLIN, timeout_ms)) {
            rc = -1;
            break;
        }
        ssize_t r = recv(fd, (char *)buf + done, n - done, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EPIPE;
            rc = -1;
            break;
        }
        done += (size_t)r;
    }
    if (got)
        *got = done;
    return rc;
}

int sp_write(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = send(fd, (const char *)buf + done, n - done, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

int sp_send_fds(int fd, const void *buf, size_t n, const int *fds, int nfds)
{
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(4 * sizeof(int))];
    } ctl;
    if (nfds < 1 || nfds > 4 || n == 0) {
        errno = EINVAL;
        return -1;
    }
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)buf, n };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    ssize_t r;
    do
        r = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    return sp_write(fd, (const char *)buf + r, n - (size_t)r);
}

int sp_recv_fds(int fd, void *buf, size_t n, int timeout_ms, int *fds,
                int maxfds, int *nfds)
{
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(8 * sizeof(int))];
    } ctl;
    *nfds = 0;
    if (wait_fd(fd, POLLIN, timeout_ms))
        return -1;
    struct iovec iov = { buf, n };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof ctl.b;
    ssize_t r;
    do
        r = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        if (r == 0)
            errno = EPIPE;
        return -1;
    }
    /* Every descriptor that came is kept or closed: none leaks. */
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int d;
            memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof d);
            if (*nfds < maxfds)
                fds[(*nfds)++] = d;
            else
                close(d);
        }
    }
    if (m.msg_flags & MSG_CTRUNC) {
        errno = EBADMSG;
        return -1;
    }
    return sp_read(fd, (char *)buf + r, n - (size_t)r, timeout_ms, NULL);
}

int sp_connect(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
