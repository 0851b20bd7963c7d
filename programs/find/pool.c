/* pool.c - the worker threads of a walk and their ordered output (see
 * pool.h). */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "walk.h"

#define QUEUE 256               /* files queued, not yet taken (at most) */
#define BATCH 16                /* files queued, and taken, at once */
#define WINDOW 4096             /* files found, not yet printed (ordered) */
#define SPILL ((size_t)1 << 20) /* unordered: held output written out */
#define HOLD ((size_t)16 << 20) /* ordered: a file holding back more output
                                   waits for its turn to print it */

typedef struct job {
    int fd;
    char *name;
    bool walked;
    uint64_t seq;
} job;

/* A finished file's output waiting for the files before it. */
typedef struct held {
    char *data;
    size_t len;
    bool done;
} held;

typedef struct pool_worker {
    find_worker w;         /* first: find_worker's hook gets this back */
    find_pool *pool;
    pthread_t tid;
    bool started;
    FILE *ms;              /* the file's output held back */
    char *buf;
    size_t size;
    uint64_t seq;          /* the file being searched */
    bool direct;           /* its output goes straight to standard output */
    /* Ordered: the finished files of the batch not handed over yet, the
     * files first, first + 1, ... */
    uint64_t first;
    held loc[BATCH];
    unsigned nloc;
} pool_worker;

struct find_pool {
    find_searcher *r;
    bool ordered;
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    job q[QUEUE];
    size_t qhead, qlen;
    size_t qcap;                   /* QUEUE, or fewer under a low limit of
                                      open files: a queued file is open */
    bool closed;
    job pending[BATCH];            /* the walker's batch, not queued yet */
    unsigned npending;
    uint64_t next_seq;
    _Atomic uint64_t next_print;   /* ordered: the file that prints next */
    held win[WINDOW];
    atomic_bool stop;
    unsigned n;
    pool_worker *ws;
};

static void put_out(find_pool *p, const char *data, size_t len)
{
    if (len)   /* an empty held output may have no buffer at all */
        fwrite(data, 1, len, stdout);
    if (p->r->flush_lines)
        fflush(stdout);
}

/* Writes the worker's held output to standard output (lock held, or the
 * worker's file printing next). */
static void spill(pool_worker *pw)
{
    fflush(pw->ms);
    put_out(pw->pool, pw->buf, pw->size);
    fseeko(pw->ms, 0, SEEK_SET);
}

/* Prints the finished files that are next in order (lock held). */
static void drain(find_pool *p)
{
    uint64_t next = atomic_load(&p->next_print);
    held *h;
    while ((h = &p->win[next % WINDOW])->done) {
        put_out(p, h->data, h->len);
        free(h->data);
        *h = (held){ NULL, 0, false };
        next++;
    }
    atomic_store(&p->next_print, next);
    pthread_cond_broadcast(&p->room);
}

/* Hands the batch's finished files over (lock held): unordered they print
 * now, ordered when their turn comes. */
static void hand_over(pool_worker *pw)
{
    find_pool *p = pw->pool;
    for (unsigned i = 0; i < pw->nloc; i++) {
        held *h = &pw->loc[i];
        if (p->ordered) {
            p->win[(pw->first + i) % WINDOW] = *h;
        } else {
            put_out(p, h->data, h->len);
            free(h->data);
        }
        *h = (held){ NULL, 0, false };
    }
    pw->first += pw->nloc;
    pw->nloc = 0;
    if (p->ordered)
        drain(p);
}

/* Between pieces and lines: the file printing next stops holding its
 * output back, and (ordered) one holding back too much waits for its turn
 * or (unordered) writes it out. */
static void between(find_worker *w)
{
    pool_worker *pw = (pool_worker *)w;
    find_pool *p = pw->pool;
    if (pw->direct)
        return;
    fflush(pw->ms);
    if (p->ordered) {
        bool turn = atomic_load(&p->next_print) == pw->first;
        if (!turn && pw->size < HOLD)
            return;
        /* The files before this one print, the batch's own first; then
         * standard output is this worker's alone (the files after this one
         * wait for it).  Waiting is only ever for earlier files, and the
         * earliest file not done is always free to print: no cycle. */
        pthread_mutex_lock(&p->lock);
        hand_over(pw);
        while (atomic_load(&p->next_print) != pw->first)
            pthread_cond_wait(&p->room, &p->lock);
        pthread_mutex_unlock(&p->lock);
        spill(pw);
        pw->w.out = stdout;
        pw->direct = true;
        return;
    }
    if (pw->size >= SPILL || p->r->flush_lines) {
        pthread_mutex_lock(&p->lock);
        spill(pw);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The file is done: its output is kept with the batch's, or (it printed
 * straight out) its turn ends. */
static void file_done(pool_worker *pw)
{
    find_pool *p = pw->pool;
    if (pw->direct) {
        fflush(stdout);
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->next_print, pw->seq + 1);
        pw->first = pw->seq + 1;
        drain(p);
        pthread_mutex_unlock(&p->lock);
        return;
    }
    fflush(pw->ms);
    held *h = &pw->loc[pw->nloc++];
    *h = (held){ NULL, 0, true };
    if (pw->size) {
        h->data = malloc(pw->size);
        if (h->data) {
            memcpy(h->data, pw->buf, pw->size);
            h->len = pw->size;
        } else {
            fprintf(stderr, "hay: out of memory; output lost\n");
        }
    }
    fseeko(pw->ms, 0, SEEK_SET);
}

static void *worker_main(void *arg)
{
    pool_worker *pw = arg;
    find_pool *p = pw->pool;
    job batch[BATCH];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (pw->nloc)
            hand_over(pw);
        while (!p->qlen && !p->closed)
            pthread_cond_wait(&p->work, &p->lock);
        unsigned n = 0;
        while (p->qlen && n < BATCH) {
            batch[n++] = p->q[p->qhead];
            p->qhead = (p->qhead + 1) % QUEUE;
            p->qlen--;
        }
        if (n)
            pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->lock);
        if (!n)
            break;
        pw->first = batch[0].seq;
        for (unsigned i = 0; i < n; i++) {
            job *j = &batch[i];
            pw->seq = j->seq;
            pw->direct = false;
            pw->w.out = pw->ms;
            if (!atomic_load(&p->stop))
                find_search_file(&pw->w, j->fd, j->name, j->walked);
            close(j->fd);
            free(j->name);
            if (p->r->cf->quiet && pw->w.t.any_match)
                atomic_store(&p->stop, true);
            file_done(pw);
        }
    }
    return NULL;
}

/* Queues the walker's batch (the walker's thread). */
static bool push_pending(find_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->stop) && p->qlen + p->npending > p->qcap)
        pthread_cond_wait(&p->room, &p->lock);
    bool stop = atomic_load(&p->stop);
    for (unsigned i = 0; i < p->npending && !stop; i++)
        p->q[(p->qhead + p->qlen++) % QUEUE] = p->pending[i];
    if (!stop)
        pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    if (stop) {
        for (unsigned i = 0; i < p->npending; i++) {
            close(p->pending[i].fd);
            free(p->pending[i].name);
        }
    }
    p->npending = 0;
    return !stop;
}

bool find_pool_visit(void *pool, int fd, char *name, bool walked)
{
    find_pool *p = pool;
    if (p->ordered && p->next_seq - atomic_load(&p->next_print) >= WINDOW) {
        /* Too far ahead of the printing: wait (the batch goes first). */
        if (p->npending && !push_pending(p)) {
            close(fd);
            free(name);
            return false;
        }
        pthread_mutex_lock(&p->lock);
        while (!atomic_load(&p->stop) &&
               p->next_seq - atomic_load(&p->next_print) >= WINDOW)
            pthread_cond_wait(&p->room, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
    p->pending[p->npending++] = (job){ fd, name, walked, p->next_seq++ };
    /* An operand goes at once: it may be a pipe whose lines are awaited. */
    if (p->npending == BATCH || !walked)
        return push_pending(p);
    return !atomic_load(&p->stop);
}

static void free_pool(find_pool *p, find_totals *into)
{
    for (unsigned i = 0; i < p->n; i++) {
        pool_worker *pw = &p->ws[i];
        if (into)
            find_totals_merge(into, &pw->w.t);
        if (pw->ms)
            fclose(pw->ms);
        free(pw->buf);
        hay_scratch_free(pw->w.scratch);
        find_readbuf_free(&pw->w.rb);
    }
    for (size_t i = 0; i < WINDOW; i++)
        free(p->win[i].data);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->room);
    free(p->ws);
    free(p);
}

static void stop_workers(find_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->closed = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n; i++)
        if (p->ws[i].started)
            pthread_join(p->ws[i].tid, NULL);
}

find_pool *find_pool_start(find_searcher *r, unsigned workers, bool ordered)
{
    find_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->ws = calloc(workers, sizeof *p->ws))) {
        free(p);
        fprintf(stderr, "hay: out of memory\n");
        return NULL;
    }
    p->r = r;
    p->ordered = ordered;
    /* Room for the walk's directories (walk.h), the files being searched
     * and a margin, then two queued files per descriptor left. */
    p->qcap = QUEUE;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        rlim_t spare = rl.rlim_cur > FIND_WALK_FDS + 2 * workers + 64
                           ? (rl.rlim_cur - FIND_WALK_FDS - 2 * workers - 64) / 2 : 0;
        if (spare < p->qcap)
            p->qcap = spare > BATCH ? (size_t)spare : BATCH;
    }
    p->n = workers;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->room, NULL);
    for (unsigned i = 0; i < workers; i++) {
        pool_worker *pw = &p->ws[i];
        pw->pool = p;
        pw->w.r = r;
        pw->w.between = between;
        pw->ms = open_memstream(&pw->buf, &pw->size);
        hay_status st = r->matcher->set
                            ? hay_scratch_create(r->matcher->set, &pw->w.scratch) : HAY_OK;
        if (!pw->ms || st != HAY_OK ||
            pthread_create(&pw->tid, NULL, worker_main, pw) != 0) {
            fprintf(stderr, "hay: cannot start the search threads\n");
            stop_workers(p);
            free_pool(p, NULL);
            return NULL;
        }
        pw->started = true;
    }
    return p;
}

void find_pool_finish(find_pool *p, find_totals *into)
{
    if (p->npending)
        push_pending(p);
    stop_workers(p);
    fflush(stdout);
    free_pool(p, into);
}
