/* pool.c - the worker threads of a walk, the walk's tree of entries and
 * their ordered output (see pool.h). */
#include "pool.h"

#include "cli.h"
#include "ignore.h"
#include "pool_queue.h"
#include "pool_timeline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define BATCH 16                /* entries taken at once */
#define OPERANDS 256            /* operands queued (open), not done yet */
#define DIR_FDS 1024            /* directories held open for their entries */
#define WINDOW 1024             /* ordered: entries done, not printed yet, a
                                   worker (4 workers at least) */
#define WINDOW_BYTES ((size_t)256 << 20)   /* ... and their output */
#define SPILL ((size_t)1 << 20) /* unordered: held output written out */
#define HOLD ((size_t)16 << 20) /* ordered: a file holding back more output
                                   waits for its turn to print it */
#define WHOLE_FDS 8             /* a directory walked whole by one worker:
                                   descriptors it holds down its tree */
#define BIG FIND_READ_CAP       /* a file this big lets other workers take
                                   the entries queued behind it (sized) */

typedef struct pool_worker {
    find_worker w;         /* first: find_worker's hook gets this back */
    find_pool *pool;
    find_walk walk;        /* this worker's copy of the walk's settings */
    pthread_t tid;
    bool started;
    FILE *ms;              /* the output held back */
    char *buf;
    size_t size;
    node *cur;             /* the entry being searched */
    range run;             /* the range being run ... */
    size_t run_i;          /* ... and cur's place in it */
    unsigned loan;         /* spare cores lent to cur now (p->lent) */
    uint64_t cur_size;     /* HAY_WALK_TIMELINE: cur's size (sized) ... */
    unsigned peak;         /* ... and the most threads it had (lend) */
    bool direct;           /* its output goes straight to standard output */
    /* Ordered: the range's entries done but not handed over yet. */
    node *loc[BATCH];
    unsigned nloc;
    range next;            /* taken when a directory was listed: run next */
} pool_worker;

struct find_pool {
    find_searcher *r;
    bool ordered;
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a range to take, or the end */
    pthread_cond_t moved;  /* the printing moved on */
    find_queue queue;      /* ranges not taken */
    unsigned busy;         /* workers with a range */
    unsigned idle;         /* workers waiting for a range */
    atomic_uint spare;     /* of them, those no range waits for: their cores
                              go to a big file's library threads */
    atomic_uint lent;      /* of them, those lent to a file now */
    unsigned holding;      /* workers waiting for their turn (HOLD) */
    bool closed;           /* no more operands */
    atomic_bool stop;
    size_t operands;       /* queued, not done with */
    size_t operand_cap;
    uint64_t next_seq;
    atomic_size_t dir_fds;
    size_t dir_fd_cap;
    /* Ordered: the operands not printed, and where the printing is (an
     * entry of cur_dir, or the first operand). */
    node *head, *tail;
    node *cur_dir;
    size_t cur_i;
    _Atomic(node *) waiting;   /* the entry the printing waits on */
    size_t held, held_bytes;   /* done, not printed */
    size_t window;             /* WINDOW entries a worker */
    unsigned n;
    pool_worker *ws;
    find_timeline *tl;     /* NULL unless HAY_WALK_TIMELINE is set */
};

/* How many of the queued ranges workers may take now (lock held):
 * ordered output far behind the work takes only what it waits on. */
static size_t takeable(const find_pool *p)
{
    if (!p->queue.n)
        return 0;
    if (!p->ordered || (p->held < p->window && p->held_bytes < WINDOW_BYTES))
        return p->queue.n;
    return p->queue.v[0].first == atomic_load(&p->waiting);
}

static bool may_take(const find_pool *p)
{
    return takeable(p) > 0;
}

/* Counts the idle workers that no range waits for (lock held, after the
 * ranges, the idle workers or the printing changed): their cores are lent
 * to big files (pool.h, lend). */
static void count_spare(find_pool *p)
{
    size_t t = takeable(p);
    atomic_store(&p->spare, p->idle > t ? p->idle - (unsigned)t : 0);
}

/* The library threads the worker's file gets now (search.h's
 * find_worker.threads), with `left` bytes of it to search (0: a file that
 * starts, or ended): its own core, and if what is left is big enough to be
 * mapped (input.h) the spare workers' cores (count_spare) that no other
 * file has borrowed.  A loan is given back between the file's pieces and
 * at its end, so several big files at the walk's end share the spare cores
 * rather than each starting a thread on every one of them.  The spare
 * cores may shrink under a loan (a range queued): a brief excess of
 * threads, until the file's next piece. */
static void lend(pool_worker *pw, uint64_t left)
{
    find_pool *p = pw->pool;
    if (pw->loan)
        atomic_fetch_sub(&p->lent, pw->loan);
    unsigned want = left >= FIND_MAP_MIN ? p->r->threads - 1 : 0, take = 0;
    unsigned lent = atomic_load(&p->lent);
    while (want) {
        unsigned spare = atomic_load(&p->spare);
        take = spare > lent ? spare - lent : 0;
        take = take < want ? take : want;
        if (!take || atomic_compare_exchange_weak(&p->lent, &lent, lent + take))
            break;
    }
    pw->loan = take;
    pw->w.threads = 1 + take;
    pw->peak = pw->peak > 1 + take ? pw->peak : 1 + take;
}

static void put_out(find_pool *p, const char *data, size_t len)
{
    if (len)   /* an empty held output may have no buffer at all */
        fwrite(data, 1, len, stdout);
    if (p->r->flush_lines)
        fflush(stdout);
}

/* Writes the worker's held output to standard output (lock held, or the
 * worker's entry printing next). */
static void spill(pool_worker *pw)
{
    fflush(pw->ms);
    put_out(pw->pool, pw->buf, pw->size);
    fseeko(pw->ms, 0, SEEK_SET);
}

static void close_dir_fd(find_pool *p, node *d)
{
    if (d->fd >= 0) {
        close(d->fd);
        d->fd = -1;
        if (d->parent)   /* an operand's is not counted */
            atomic_fetch_sub(&p->dir_fds, 1);
    }
}

/* Frees a directory's entries and what it held for them. */
static void free_kids(find_pool *p, node *d)
{
    for (size_t i = 0; i < d->nkids; i++) {
        free(d->kids[i].name);
        free(d->kids[i].out);
    }
    free(d->kids);
    d->kids = NULL;
    d->nkids = 0;
    close_dir_fd(p, d);
    find_ignore_leave(d->rules, d->parent ? d->parent->rules : NULL);
    d->rules = NULL;
}

static void free_operand(find_pool *p, node *k)
{
    free_kids(p, k);
    if (k->fd >= 0)
        close(k->fd);
    free(k->name);
    free(k->out);
    free(k);
    p->operands--;
}

/* Unordered: k and everything under it are done with (lock held); so may
 * be the directories above it. */
static void done_with(find_pool *p, node *k)
{
    for (node *d; (d = k->parent); k = d) {
        if (--d->live)
            return;
        free_kids(p, d);
    }
    free_operand(p, k);
    pthread_cond_broadcast(&p->moved);
}

/* Ordered: prints what is done from where the printing is on, freeing as
 * it goes (lock held). */
static void advance(find_pool *p)
{
    node *was = atomic_load(&p->waiting);
    node *k;
    for (;;) {
        node *d = p->cur_dir;
        if (d && p->cur_i == d->nkids) {   /* the directory is over */
            p->cur_dir = d->parent;
            p->cur_i = d->parent ? (size_t)(d - d->parent->kids) + 1 : 0;
            free_kids(p, d);
            if (!d->parent) {
                p->head = d->next;
                free_operand(p, d);
            }
            continue;
        }
        k = d ? &d->kids[p->cur_i] : p->head;
        if (!k || !k->done)
            break;
        p->held--;
        if (k->is_dir && !k->whole) {
            p->cur_dir = k;
            p->cur_i = 0;
            continue;
        }
        put_out(p, k->out, k->len);
        p->held_bytes -= k->len;
        free(k->out);
        k->out = NULL;
        if (d) {
            p->cur_i++;
        } else {
            p->head = k->next;
            free_operand(p, k);
        }
    }
    atomic_store(&p->waiting, k);
    if (k != was) {
        count_spare(p);
        pthread_cond_broadcast(&p->moved);
        pthread_cond_broadcast(&p->work);
    }
}

/* Ordered: the range's entries done so far become the printing's (lock
 * held). */
static void hand_over(pool_worker *pw)
{
    find_pool *p = pw->pool;
    for (unsigned i = 0; i < pw->nloc; i++) {
        node *k = pw->loc[i];
        k->done = true;
        p->held++;
        p->held_bytes += k->len;
    }
    pw->nloc = 0;
    advance(p);
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
        node *at = pw->nloc ? pw->loc[0] : pw->cur;
        bool turn = atomic_load(&p->waiting) == at;
        if (!turn && pw->size < HOLD)
            return;
        /* The range's earlier files print first; then standard output is
         * this worker's alone (the entries after it wait for it).  One
         * worker at least never waits here: the entry the printing waits
         * on may not be taken yet. */
        pthread_mutex_lock(&p->lock);
        if (pw->nloc)
            hand_over(pw);
        if (atomic_load(&p->waiting) != pw->cur) {
            if (p->holding + 1 >= p->n) {
                pthread_mutex_unlock(&p->lock);
                return;
            }
            p->holding++;
            while (atomic_load(&p->waiting) != pw->cur)
                pthread_cond_wait(&p->moved, &p->lock);
            p->holding--;
        }
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

/* search.h's sized: the file's library threads (lend); and a big file
 * takes long enough that the entries queued behind it in the worker's
 * range go back to the queue, for idle workers to take now (a directory's
 * big files, listed together, would otherwise be searched one after
 * another on one core); the printing's order is the entries', not the
 * workers'. */
static void sized(find_worker *w, uint64_t left)
{
    pool_worker *pw = (pool_worker *)w;
    find_pool *p = pw->pool;
    if (!pw->cur_size)
        pw->cur_size = left;
    size_t rest = pw->run.n - pw->run_i - 1;
    if (left >= BIG && rest && pw->run.first + pw->run_i == pw->cur) {
        pthread_mutex_lock(&p->lock);
        if (find_queue_push(&p->queue, pw->cur + 1, rest)) {
            pw->run.n = pw->run_i + 1;
            if (p->ordered && pw->nloc)
                hand_over(pw);
            count_spare(p);
            pthread_cond_signal(&p->work);
        }
        pthread_mutex_unlock(&p->lock);
    }
    lend(pw, left);
}

/* The file (or directory walked whole) k is done. */
static void file_done(pool_worker *pw, node *k)
{
    find_pool *p = pw->pool;
    if (!p->ordered) {
        fflush(pw->ms);
        pthread_mutex_lock(&p->lock);
        if (pw->size >= SPILL || p->r->flush_lines)
            spill(pw);
        done_with(p, k);
        pthread_mutex_unlock(&p->lock);
        return;
    }
    if (pw->direct) {
        pthread_mutex_lock(&p->lock);
        pw->loc[pw->nloc++] = k;
        hand_over(pw);
        pthread_mutex_unlock(&p->lock);
        pw->direct = false;
        pw->w.out = pw->ms;
        return;
    }
    fflush(pw->ms);
    if (pw->size) {
        if ((k->out = malloc(pw->size))) {
            memcpy(k->out, pw->buf, pw->size);
            k->len = pw->size;
        } else {
            fprintf(stderr, "hay: out of memory; output lost\n");
        }
    }
    fseeko(pw->ms, 0, SEEK_SET);
    pw->loc[pw->nloc++] = k;
}

/* walk.c's visit inside a directory walked whole by this worker. */
static bool visit_here(void *ctx, int fd, char *name, bool walked)
{
    pool_worker *pw = ctx;
    if (!atomic_load(&pw->pool->stop))
        find_search_file(&pw->w, fd, name, walked);
    lend(pw, 0);
    close(fd);
    free(name);
    if (pw->pool->r->cf->quiet && pw->w.t.any_match)
        atomic_store(&pw->pool->stop, true);
    return !atomic_load(&pw->pool->stop);
}

/* Lists the open directory k: its entries become work.  Returns false
 * when it was walked whole instead (a file, as far as printing goes). */
static bool list_dir(pool_worker *pw, node *k, int fd)
{
    find_pool *p = pw->pool;
    find_walk *w = &pw->walk;
    find_ignore *up_rules = k->parent ? k->parent->rules : NULL;
    w->dirs = k->parent ? &k->parent->link : NULL;
    if (k->depth >= FIND_WALK_FDS ||
        (k->parent && atomic_fetch_add(&p->dir_fds, 1) >= p->dir_fd_cap)) {
        if (k->depth < FIND_WALK_FDS)
            atomic_fetch_sub(&p->dir_fds, 1);
        if (k->fd == fd)
            k->fd = -1;   /* an operand's: find_walk_tree closes it */
        k->whole = true;
        find_walk_tree(w, fd, k->name, up_rules);
        return false;
    }
    find_walk_link_to(w, fd, &k->link);
    w->dirs = &k->link;
    find_walk_entry *v;
    size_t n = find_walk_list(w, fd, k->name, up_rules, &k->rules, &v);
    node *kids = n ? calloc(n, sizeof *kids) : NULL;
    if (n && !kids) {
        fprintf(stderr, "hay: %s: out of memory\n", k->name);
        w->error = true;
        find_walk_entries_free(v, n);
        n = 0;
    }
    for (size_t i = 0; i < n; i++)
        kids[i] = (node){ .parent = k, .name = v[i].name, .base = v[i].base,
                          .depth = k->depth + 1, .fd = -1, .is_dir = v[i].is_dir,
                          .walked = true };
    free(v);
    k->fd = fd;
    k->kids = kids;
    k->nkids = n;
    k->live = n;
    atomic_store(&k->to_open, n);
    pthread_mutex_lock(&p->lock);
    /* Ranges of BATCH entries, a directory ending one (listing it is work
     * enough). */
    size_t pushed = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && j - i < BATCH && !kids[j++].is_dir)
            ;
        if (!find_queue_push(&p->queue, &kids[i], j - i)) {
            fprintf(stderr, "hay: %s: out of memory\n", k->name);
            w->error = true;
            for (size_t m = i; m < n; m++)   /* left out: done, nothing to print */
                kids[m].done = true;
            k->live -= n - i;
            atomic_fetch_sub(&k->to_open, n - i);
            break;
        }
        pushed++;
        i = j;
    }
    if (!n)
        close_dir_fd(p, k);
    if (p->ordered) {
        pw->loc[pw->nloc++] = k;
        hand_over(pw);
    } else if (!k->live) {
        done_with(p, k);
    }
    /* A directory ends its range: the lister takes the directory's first
     * range now if it comes first, without going back for the lock. */
    if (p->queue.n && p->queue.v[0].first == kids && may_take(p)) {
        if (!p->ordered)
            spill(pw);
        pw->next = find_queue_pop(&p->queue);
        pushed--;
    }
    count_spare(p);
    if (pushed > 1)
        pthread_cond_broadcast(&p->work);
    else if (pushed)
        pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    return true;
}

/* HAY_WALK_TIMELINE: the file `name` (NULL: a directory listed), started
 * at t0, is done with. */
static void record(pool_worker *pw, const char *name, double t0)
{
    find_pool *p = pw->pool;
    if (p->tl)
        find_timeline_entry(p->tl, (unsigned)(pw - p->ws), name, !name, pw->cur_size,
                            pw->peak, t0, cli_now());
}

/* One entry or operand: opened, then searched or listed. */
static void run_node(pool_worker *pw, node *k)
{
    find_pool *p = pw->pool;
    int fd = k->fd;
    double t0 = p->tl ? cli_now() : 0;
    pw->cur_size = 0;
    pw->peak = 1;
    if (k->parent) {
        node *d = k->parent;
        find_walk_entry e = { k->name, k->base, k->is_dir };
        fd = atomic_load(&p->stop) ? -1 : find_walk_open(&pw->walk, d->fd, &e);
        /* The last entry opened: no other reads d->fd now, and the printing
         * frees d only after this entry is handed over (under the lock). */
        if (atomic_fetch_sub(&d->to_open, 1) == 1)
            close_dir_fd(p, d);
    }
    pw->cur = k;
    pw->w.out = pw->ms;
    if (fd >= 0 && !atomic_load(&p->stop)) {
        if (k->is_dir) {
            if (list_dir(pw, k, fd)) {
                record(pw, NULL, t0);   /* (k may be printed and freed now) */
                return;
            }
            fd = -1;
        } else {
            find_search_file(&pw->w, fd, k->name, k->walked);
            lend(pw, 0);
        }
    }
    if (fd >= 0)
        close(fd);
    if (k->fd == fd)
        k->fd = -1;
    k->whole = k->is_dir;
    if (p->r->cf->quiet && pw->w.t.any_match)
        atomic_store(&p->stop, true);
    if (pw->walk.stopped)
        atomic_store(&p->stop, true);
    record(pw, k->is_dir ? NULL : k->name, t0);
    file_done(pw, k);
}

static void *worker_main(void *arg)
{
    pool_worker *pw = arg;
    find_pool *p = pw->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (!may_take(p)) {
            double t0 = p->tl ? cli_now() : 0;
            p->idle++;
            count_spare(p);
            while (!may_take(p) && !(p->closed && !p->busy && !p->queue.n))
                pthread_cond_wait(&p->work, &p->lock);
            p->idle--;
            if (p->tl)
                find_timeline_idle(p->tl, (unsigned)(pw - p->ws), t0, cli_now());
        }
        if (!may_take(p))
            break;
        range r = find_queue_pop(&p->queue);
        p->busy++;
        count_spare(p);
        pthread_mutex_unlock(&p->lock);
        while (r.n) {
            pw->next = (range){ NULL, 0 };
            pw->run = r;   /* (sized may shorten it) */
            for (pw->run_i = 0; pw->run_i < pw->run.n; pw->run_i++)
                run_node(pw, &pw->run.first[pw->run_i]);
            r = pw->next;
        }
        if (!p->ordered) {
            pthread_mutex_lock(&p->lock);
            spill(pw);
        } else {
            pthread_mutex_lock(&p->lock);
            if (pw->nloc)
                hand_over(pw);
        }
        if (!--p->busy && p->closed && !p->queue.n)
            pthread_cond_broadcast(&p->work);
    }
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Queues an operand (the caller's thread). */
static bool add_operand(find_pool *p, int fd, char *name, bool walked, bool is_dir)
{
    node *k = calloc(1, sizeof *k);
    if (!k) {
        fprintf(stderr, "hay: %s: out of memory\n", name);
        close(fd);
        free(name);
        return false;
    }
    *k = (node){ .name = name, .fd = fd, .is_dir = is_dir, .walked = walked };
    pthread_mutex_lock(&p->lock);
    while (!atomic_load(&p->stop) && p->operands >= p->operand_cap)
        pthread_cond_wait(&p->moved, &p->lock);
    k->seq = p->next_seq++;
    p->operands++;
    if (p->ordered) {
        if (p->tail && p->head)
            p->tail->next = k;
        else
            p->head = k;
        p->tail = k;
    }
    if (!find_queue_push(&p->queue, k, 1)) {
        fprintf(stderr, "hay: %s: out of memory\n", name);
        k->done = true;
        if (!p->ordered)
            free_operand(p, k);
        else
            p->held++;
    }
    if (p->ordered)
        advance(p);
    count_spare(p);
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    return !atomic_load(&p->stop);
}

bool find_pool_visit(void *pool, int fd, char *name, bool walked)
{
    return add_operand(pool, fd, name, walked, false);
}

bool find_pool_visit_dir(void *pool, int fd, char *path)
{
    return add_operand(pool, fd, path, false, true);
}

static void free_pool(find_pool *p, find_totals *into)
{
    for (unsigned i = 0; i < p->n; i++) {
        pool_worker *pw = &p->ws[i];
        if (into) {
            find_totals_merge(into, &pw->w.t);
            into->error |= pw->walk.error;
        }
        if (pw->ms)
            fclose(pw->ms);
        free(pw->buf);
        hay_scratch_free(pw->w.scratch);
        find_readbuf_free(&pw->w.rb);
    }
    while (p->head) {   /* left by a failure only */
        node *k = p->head;
        p->head = k->next;
        free_operand(p, k);
    }
    free(p->queue.v);
    find_timeline_finish(p->tl);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->moved);
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

find_pool *find_pool_start(find_searcher *r, const find_walk *walk, unsigned workers,
                           bool ordered)
{
    find_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->ws = calloc(workers, sizeof *p->ws))) {
        free(p);
        fprintf(stderr, "hay: out of memory\n");
        return NULL;
    }
    p->r = r;
    p->ordered = ordered;
    /* Descriptors: each worker's file and directory walked whole (up to
     * WHOLE_FDS); what is left goes to queued operands (a quarter) and to
     * directories held open for their entries (a half). */
    p->operand_cap = OPERANDS;
    p->dir_fd_cap = DIR_FDS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        rlim_t used = 64 + (rlim_t)workers * (WHOLE_FDS + 2);
        rlim_t spare = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
        if (spare / 4 < p->operand_cap)
            p->operand_cap = spare / 4 > 1 ? (size_t)(spare / 4) : 1;
        if (spare / 2 < p->dir_fd_cap)
            p->dir_fd_cap = (size_t)(spare / 2);
    }
    p->n = workers;
    p->tl = find_timeline_start(workers);
    p->window = (size_t)WINDOW * (workers > 4 ? workers : 4);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->moved, NULL);
    for (unsigned i = 0; i < workers; i++) {
        pool_worker *pw = &p->ws[i];
        pw->pool = p;
        pw->w.r = r;
        pw->w.between = between;
        pw->w.sized = sized;
        pw->w.threads = 1;   /* (lend) */
        pw->walk = *walk;
        pw->walk.visit = visit_here;
        pw->walk.visit_dir = NULL;
        pw->walk.ctx = pw;
        pw->walk.dirs = NULL;
        pw->walk.error = pw->walk.stopped = false;
        pw->walk.fd_levels = WHOLE_FDS;
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
