/*
 * input.c - mapped and read inputs, binary detection (see input.h).
 *
 * Why a SIGBUS handler and not siglongjmp: a mapped file is scanned by the
 * library's threads, so the fault can come on any of them, and jumping out
 * of a library thread is undefined.  The handler instead maps anonymous
 * zero pages over the mapping from the faulting page to its end, marks the
 * mapping truncated and returns: the faulting load runs again and reads
 * zeros, every thread finishes its scan normally, and search.c stops
 * printing and warns.  mmap(2) is a plain system call on Linux, safe in a
 * handler.  Small files, and big ones searched on one core, are read, never
 * mapped, so the handler matters for big files on several threads only; a
 * fault outside every guarded mapping is a real bug and gets the default
 * action.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BINARY_PROBE ((size_t)32 << 10)
#define GUARDS 64                    /* mappings guarded at once */

/* The guarded mappings: [base, end), and whether a fault hit them.  A slot
 * is free with base 0, reserved with base 1 (a compare-exchange), in use
 * with base the mapping's address; the handler only reads base and end and
 * sets hit. */
static struct guard {
    _Atomic uintptr_t base, end;
    atomic_bool hit;
} guards[GUARDS];
static uintptr_t page_mask;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < GUARDS; i++) {
        uintptr_t b = atomic_load(&guards[i].base), e = atomic_load(&guards[i].end);
        if (b > 1 && a >= b && a < e) {
            uintptr_t from = a & ~page_mask;
            if (mmap((void *)from, e - from, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                atomic_store(&guards[i].hit, true);
                return;
            }
            break;
        }
    }
    signal(sig, SIG_DFL);   /* not ours: the fault repeats and kills */
}

static void guard_init(void)
{
    page_mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static int guard_take(void *m, uint64_t len)
{
    pthread_once(&guard_once, guard_init);
    for (int i = 0; i < GUARDS; i++) {
        uintptr_t free_slot = 0;
        if (!atomic_compare_exchange_strong(&guards[i].base, &free_slot, 1))
            continue;
        atomic_store(&guards[i].hit, false);
        atomic_store(&guards[i].end, (uintptr_t)m + (uintptr_t)len);
        atomic_store(&guards[i].base, (uintptr_t)m);
        return i;
    }
    return -1;
}

void find_readbuf_free(find_readbuf *rb)
{
    free(rb->p);
    rb->p = NULL;
    rb->cap = 0;
}

void find_input_close(find_input *in)
{
    if (in->map) {
        munmap(in->map, (size_t)in->map_len);
        if (in->guard >= 0) {
            atomic_store(&guards[in->guard].end, 0);
            atomic_store(&guards[in->guard].base, 0);
        }
    }
    in->map = NULL;
    in->guard = -1;
}

bool find_input_maps(hay_backend backend, bool tuned, unsigned threads, uint64_t size)
{
    static atomic_int env;   /* 0: not looked at yet, 1: unset, 2: set */
    if (threads > 1 || (backend != HAY_BACKEND_CPU && backend != HAY_BACKEND_AUTO))
        return true;
    if (backend == HAY_BACKEND_CPU)
        return false;
    int e = atomic_load(&env);
    if (!e) {
        e = getenv("HAY_AUTO_GPU_MIN") ? 2 : 1;
        atomic_store(&env, e);
    }
    return size >= FIND_GPU_MIN || tuned || e == 2;
}

/* Maps a regular file of `size` bytes, handed out from `pos` on; 0 when it
 * could not be (the caller reads it). */
static int try_map(find_input *in, uint64_t size, uint64_t pos)
{
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, in->fd, 0);
    if (m == MAP_FAILED)
        return 0;   /* ENODEV and the like: read it instead */
    int g = guard_take(m, size);
    if (g < 0) {
        munmap(m, (size_t)size);
        return 0;
    }
    in->map = m;
    in->map_len = size;
    in->map_off = pos;
    in->guard = g;
    in->mapped = true;
    return 1;
}

int find_input_open(int fd, const char *name, bool at_start, bool whole, bool map,
                    const struct stat *known, find_readbuf *rb, find_input *in)
{
    memset(in, 0, sizeof *in);
    in->fd = fd;
    in->name = name;
    in->guard = -1;
    in->rb = rb;
    in->whole = whole;
    struct stat st;
    if (known) {
        st = *known;
    } else if (fstat(fd, &st) < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, strerror(errno));
        return -1;
    }
    in->stream = !S_ISREG(st.st_mode);
    /* A bigger pipe lets the writer run ahead: fewer, larger reads and
     * fewer switches between the two processes.  Not allowed (the
     * system's pipe-max-size) is no matter. */
    if (S_ISFIFO(st.st_mode))
        (void)fcntl(fd, F_SETPIPE_SZ, (int)FIND_READ_CAP);
    size_t want = FIND_READ_CAP;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        off_t pos = at_start ? 0 : lseek(fd, 0, SEEK_CUR);   /* stdin may be part read */
        if (pos < 0)
            pos = 0;
        if (st.st_size <= pos) {
            in->done = true;
            return 0;
        }
        uint64_t left = (uint64_t)(st.st_size - pos);
        if (map && left >= FIND_MAP_MIN && try_map(in, (uint64_t)st.st_size, (uint64_t)pos))
            return 0;
        /* Read in one piece with one read if it fits the buffer (or is
         * wanted whole and the mapping failed). */
        in->sized = true;
        in->left = left;
        in->size = (uint64_t)st.st_size;
        in->at = (uint64_t)pos;
        if (left < want || whole)
            want = (size_t)left + 1;
    }
    if (rb->cap < want) {
        uint8_t *p = realloc(rb->p, want);
        if (!p) {
            fprintf(stderr, "hay: %s: out of memory\n", name);
            return -1;
        }
        rb->p = p;
        rb->cap = want;
    }
    return 0;
}

/* Whether more bytes can be read from a stream without waiting. */
static bool ready(int fd)
{
    struct pollfd pf = { .fd = fd, .events = POLLIN };
    return poll(&pf, 1, 0) > 0;
}

/* Reads into the buffer's free space: at least one byte unless at the end,
 * then (a regular file, or a stream that has more ready) on until it is
 * full.  Returns -1 after printing an error. */
static int fill(find_input *in)
{
    find_readbuf *rb = in->rb;
    do {
        ssize_t got = read(in->fd, rb->p + in->have, rb->cap - in->have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "hay: %s: %s\n", in->name, strerror(errno));
            return -1;
        }
        if (got == 0) {
            in->eof = true;
            return 0;
        }
        in->have += (size_t)got;
        if (in->sized) {
            /* The size fstat gave: no read to learn of the end. */
            in->left -= (uint64_t)got < in->left ? (uint64_t)got : in->left;
            if (!in->left) {
                in->eof = true;
                return 0;
            }
        }
    } while (in->have < rb->cap && (!in->stream || in->whole || ready(in->fd)));
    return 0;
}

int find_input_next(find_input *in, const uint8_t **p, size_t *n)
{
    if (in->done)
        return 0;
    if (in->mapped) {
        in->done = true;
        *p = (const uint8_t *)in->map + in->map_off;
        *n = (size_t)(in->map_len - in->map_off);
        return 1;
    }
    find_readbuf *rb = in->rb;
    /* The part line left over from the last piece moves to the front. */
    memmove(rb->p, rb->p + in->next, in->have - in->next);
    in->have -= in->next;
    in->at += in->next;
    in->next = 0;
    /* The rest of a big file, mapped when the caller asks for it. */
    if (in->map_rest && in->sized && !in->whole && in->left + in->have >= FIND_MAP_MIN &&
        try_map(in, in->size, in->at)) {
        in->done = true;
        *p = (const uint8_t *)in->map + in->map_off;
        *n = (size_t)(in->map_len - in->map_off);
        return 1;
    }
    size_t scanned = 0;   /* rb->p[0, scanned) holds no newline */
    for (;;) {
        if (!in->eof) {
            if (in->have == rb->cap) {
                /* One line longer than the buffer (or the whole input,
                 * asked for): the buffer grows. */
                size_t cap = rb->cap * 2;
                uint8_t *q = realloc(rb->p, cap);
                if (!q) {
                    fprintf(stderr, "hay: %s: out of memory\n", in->name);
                    return -1;
                }
                rb->p = q;
                rb->cap = cap;
            }
            if (fill(in) < 0)
                return -1;
        }
        if (in->eof) {
            in->done = true;
            if (!in->have)
                return 0;
            *p = rb->p;
            *n = in->have;
            in->next = in->have;
            return 1;
        }
        if (in->whole)
            continue;
        const uint8_t *nl = memrchr(rb->p + scanned, '\n', in->have - scanned);
        if (nl) {
            *p = rb->p;
            *n = (size_t)(nl - rb->p) + 1;
            in->next = *n;
            return 1;
        }
        scanned = in->have;
    }
}

void find_input_map_rest(find_input *in, bool map)
{
    in->map_rest = map;
}

bool find_input_ended(const find_input *in)
{
    return in->done;
}

bool find_input_truncated(const find_input *in)
{
    return in->guard >= 0 && atomic_load(&guards[in->guard].hit);
}

uint64_t find_input_first_nul(const find_input *in, const uint8_t *p, size_t n)
{
    if (!in->mapped && in->rb && p == in->rb->p && in->have > n)
        n = in->have;   /* the bytes read after the first piece */
    const uint8_t *z = memchr(p, 0, n < BINARY_PROBE ? n : BINARY_PROBE);
    return z ? (uint64_t)(z - p) : UINT64_MAX;
}
