/* Helpers shared by the dynamic-operation tests (tests-c/dynamic/): a waiter that a
 * callback completes, timing, and process arrays. */
#ifndef PMIX_TESTS_DYN_H
#define PMIX_TESTS_DYN_H

#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    pmix_status_t status;
};

static inline void waiter_init(struct waiter *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->calls = 0;
    w->status = PMIX_ERROR;
}

/* Wait up to `secs` for at least `n` calls; false on timeout. */
static inline bool waiter_wait_n(struct waiter *w, int n, int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&w->lock);
    while (w->calls < n) {
        if (0 != pthread_cond_timedwait(&w->cond, &w->lock, &until)) {
            break;
        }
    }
    bool done = w->calls >= n;
    pthread_mutex_unlock(&w->lock);
    return done;
}

static inline bool waiter_wait(struct waiter *w)
{
    return waiter_wait_n(w, 1, 30);
}

static inline void waiter_done(struct waiter *w, pmix_status_t status)
{
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->calls++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* A pmix_op_cbfunc_t completing the waiter in cbdata. */
static inline void op_done(pmix_status_t status, void *cbdata)
{
    waiter_done((struct waiter *)cbdata, status);
}

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline void load_proc(pmix_proc_t *p, const char *nspace, pmix_rank_t rank)
{
    PMIX_PROC_CONSTRUCT(p);
    PMIX_LOAD_PROCID(p, nspace, rank);
}

/* Ranks `first`.. of `n` processes of `nspace` into `out`, in the order given by rotating
 * by `rot` (so callers can pass the same set in different orders). */
static inline void rank_list(pmix_proc_t *out, const char *nspace, pmix_rank_t first, size_t n,
                             size_t rot)
{
    for (size_t i = 0; i < n; i++) {
        load_proc(&out[i], nspace, first + (pmix_rank_t)((i + rot) % n));
    }
}

static inline void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

#endif
