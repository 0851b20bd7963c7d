/*
 * pool.c - helper threads that sleep between jobs (pool.h).
 */
#include "pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

enum { POOL_MAX = 64 };

typedef struct helper_arg {
    struct hay_pool *p;
    unsigned i;
} helper_arg;

struct hay_pool {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned n;                  /* helpers started */
    pthread_t th[POOL_MAX];
    helper_arg arg[POOL_MAX];
    hay_pool_fn fn;              /* the current job */
    void *job;
    uint64_t gen;                /* jobs posted */
    unsigned pending;            /* helpers still on the current job */
    bool quit;
};

static void *helper_main(void *arg)
{
    hay_pool *p = ((helper_arg *)arg)->p;
    unsigned i = ((helper_arg *)arg)->i;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->quit)
            break;
        seen = p->gen;
        hay_pool_fn fn = p->fn;
        void *job = p->job;
        pthread_mutex_unlock(&p->lock);
        fn(job, i);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

hay_pool *hay_pool_start(unsigned helpers)
{
    if (helpers == 0)
        return NULL;
    hay_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    unsigned want = helpers < POOL_MAX ? helpers : POOL_MAX;
    while (p->n < want) {
        p->arg[p->n] = (helper_arg){ p, p->n };
        if (pthread_create(&p->th[p->n], NULL, helper_main, &p->arg[p->n]) != 0)
            break;
        p->n++;
    }
    if (p->n == 0) {
        hay_pool_stop(p);
        return NULL;
    }
    return p;
}

void hay_pool_wait(hay_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void hay_pool_stop(hay_pool *p)
{
    if (!p)
        return;
    hay_pool_wait(p);
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

unsigned hay_pool_size(const hay_pool *p)
{
    return p ? p->n : 0;
}

void hay_pool_post(hay_pool *p, hay_pool_fn fn, void *job)
{
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->job = job;
    p->pending = p->n;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
}
