/*
 * pool.h - a few helper threads that sleep between jobs (pool.c): the
 * CUDA driver's staging copies (src/cuda/stage.c) and the CUDA list's
 * record conversion (src/cuda/list.c).  Unlike an OpenMP team, idle
 * helpers do not spin on cores that the calling thread's other work needs,
 * and a job can run while the calling thread does something else.
 *
 * A job is fn(job, i) run once by every helper i in [0, n); post() starts
 * it and returns at once, wait() waits until every helper is done.  One
 * job at a time: post again only after wait().
 */
#ifndef HAY_POOL_H
#define HAY_POOL_H

typedef struct hay_pool hay_pool;
typedef void (*hay_pool_fn)(void *job, unsigned i);

/* Up to `helpers` threads (at most 64); NULL when helpers is 0 or none
 * could be made. */
hay_pool *hay_pool_start(unsigned helpers);
/* Waits for the current job (if any), then ends the threads. */
void hay_pool_stop(hay_pool *p);
/* The helper threads (0 for NULL). */
unsigned hay_pool_size(const hay_pool *p);
void hay_pool_post(hay_pool *p, hay_pool_fn fn, void *job);
void hay_pool_wait(hay_pool *p);

#endif
