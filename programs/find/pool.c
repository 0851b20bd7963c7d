/* pool.c - the worker threads of a walk and their ordered output (see
 * pool.h). */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUEUE 256               /* files queued, not yet taken */
#define WINDOW 4096             /* files found, not yet printed (ordered) */
#define SPILL ((size_t)1 << 20) /* unordered: held output written between pieces */

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
} pool_worker;

struct find_pool {
    find_searcher *r;
    bool ordered;
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    job q[QUEUE];
    size_t qhead, qlen;
    bool closed;
    uint64_t next_seq;
    _Atomic uint64_t next_print;   /* ordered: the file that prints next */
    held win[WINDOW];
    atomic_bool stop;
    unsigned n;
    pool_worker *ws;
};

static void put_out(find_pool *p, const char *data, size_t len)
{
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

/* Between pieces: the file printing next stops holding its output back;
 * unordered, a big held output goes out. */
static void between(find_worker *w)
{
    pool_worker *pw = (pool_worker *)w;
    find_pool *p = pw->pool;
    if (pw->direct)
        return;
    if (p->ordered) {
        if (atomic_load(&p->next_print) != pw->seq)
            return;
        /* The files before this one have printed, and the ones after wait
         * for it: standard output is this worker's alone. */
        spill(pw);
        pw->w.out = stdout;
        pw->direct = true;
        return;
    }
    fflush(pw->ms);
    if (pw->size >= SPILL || p->r->flush_lines) {
        pthread_mutex_lock(&p->lock);
        spill(pw);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The file is done: its output prints now or waits for its turn. */
static void file_done(pool_worker *pw)
{
    find_pool *p = pw->pool;
    fflush(pw->ms);
    pthread_mutex_lock(&p->lock);
    if (!p->ordered) {
        put_out(p, pw->buf, pw->size);
    } else {
        uint64_t next = atomic_load(&p->next_print);
        if (pw->seq == next) {
            if (!pw->direct)
                put_out(p, pw->buf, pw->size);
            next++;
            held *h;
            while ((h = &p->win[next % WINDOW])->done) {
                put_out(p, h->data, h->len);
                free(h->data);
                *h = (held){ NULL, 0, false };
                next++;
            }
            atomic_store(&p->next_print, next);
            pthread_cond_broadcast(&p->room);
        } else {
            held *h = &p->win[pw->seq % WINDOW];
            h->data = malloc(pw->size ? pw->size : 1);
            if (h->data)
                memcpy(h->data, pw->buf, pw->size);
            else
                fprintf(stderr, "hay: out of memory; output lost\n");
            h->len = h->data ? pw->size : 0;
            h->done = true;
        }
    }
    pthread_mutex_unlock(&p->lock);
    fseeko(pw->ms, 0, SEEK_SET);
}

static void *worker_main(void *arg)
{
    pool_worker *pw = arg;
    find_pool *p = pw->pool;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->qlen && !p->closed)
            pthread_cond_wait(&p->work, &p->lock);
        if (!p->qlen) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        job j = p->q[p->qhead];
        p->qhead = (p->qhead + 1) % QUEUE;
        p->qlen--;
        pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->lock);

        pw->seq = j.seq;
        pw->direct = false;
        pw->w.out = pw->ms;
        if (!atomic_load(&p->stop))
            find_search_file(&pw->w, j.fd, j.name, j.walked);
        close(j.fd);
        free(j.name);
        if (p->r->cf->quiet && pw->w.t.any_match)
            atomic_store(&p->stop, true);
        file_done(pw);
    }
    return NULL;
}

bool find_pool_visit(void *pool, int fd, char *name, bool walked)
{
    find_pool *p = pool;
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->stop) &&
           (p->qlen == QUEUE ||
            (p->ordered && p->next_seq - atomic_load(&p->next_print) >= WINDOW)))
        pthread_cond_wait(&p->room, &p->lock);
    bool stop = atomic_load(&p->stop);
    if (!stop) {
        p->q[(p->qhead + p->qlen) % QUEUE] = (job){ fd, name, walked, p->next_seq++ };
        p->qlen++;
        pthread_cond_signal(&p->work);
    }
    pthread_mutex_unlock(&p->lock);
    if (stop) {
        close(fd);
        free(name);
    }
    return !stop;
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
    stop_workers(p);
    fflush(stdout);
    free_pool(p, into);
}
