/* fence_nb: PMIx_Fence_nb (collecting and not) and PMIx_Get_nb, with their callbacks
 * waited for on a condition variable.
 * Run: pmixrun -n N fence_nb */
#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    pmix_status_t status;
    pmix_value_t *value; /* copy, for Get_nb */
};

static void waiter_init(struct waiter *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->calls = 0;
    w->status = PMIX_ERROR;
    w->value = NULL;
}

/* Wait up to 30 s for the callback; false on timeout. */
static bool waiter_wait(struct waiter *w)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w->lock);
    while (0 == w->calls) {
        if (0 != pthread_cond_timedwait(&w->cond, &w->lock, &until)) {
            break;
        }
    }
    bool done = w->calls > 0;
    pthread_mutex_unlock(&w->lock);
    return done;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    struct waiter *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->calls++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void value_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct waiter *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    if (PMIX_SUCCESS == status && kv) {
        /* The library owns kv; keep what we need. */
        PMIX_VALUE_CREATE(w->value, 1);
        if (PMIX_SUCCESS != PMIx_Value_xfer(w->value, kv)) {
            PMIX_VALUE_RELEASE(w->value);
        }
    }
    w->calls++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Fence_nb, then wait: it either completes through the callback, or reports
 * PMIX_OPERATION_SUCCEEDED and never calls it. */
static void fence_nb(const pmix_info_t *info, size_t ninfo, const char *what)
{
    struct waiter w;
    waiter_init(&w);
    pmix_status_t rc = PMIx_Fence_nb(NULL, 0, info, ninfo, op_done, &w);
    CHECK(PMIX_SUCCESS == rc || PMIX_OPERATION_SUCCEEDED == rc, "%s accepted (%s)", what,
          PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc) {
        CHECK(waiter_wait(&w), "%s callback ran", what);
        CHECK_RC(w.status, PMIX_SUCCESS, what);
        CHECK(1 == w.calls, "%s callback ran once (%d)", what, w.calls);
    }
}

int main(void)
{
    pmix_proc_t me, job;
    RT_INIT(&me);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t n = rt_job_size(me.nspace, 1);

    pmix_value_t val;
    val.type = PMIX_INT64;
    val.data.int64 = -7000000000LL - me.rank;
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "fnb.value", &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");

    fence_nb(NULL, 0, "non-collecting Fence_nb");
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    fence_nb(&info, 1, "collecting Fence_nb");
    PMIX_INFO_DESTRUCT(&info);

    /* Get_nb of every rank's value. */
    uint32_t bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        struct waiter w;
        waiter_init(&w);
        pmix_status_t rc = PMIx_Get_nb(&p, "fnb.value", NULL, 0, value_done, &w);
        if (PMIX_SUCCESS != rc || !waiter_wait(&w) || PMIX_SUCCESS != w.status || !w.value ||
            w.value->type != PMIX_INT64 || w.value->data.int64 != -7000000000LL - (int64_t)r) {
            bad++;
            printf("# Get_nb of rank %u: rc %s, status %s\n", r, PMIx_Error_string(rc),
                   PMIx_Error_string(w.status));
        }
        if (w.value) {
            PMIX_VALUE_RELEASE(w.value);
        }
    }
    CHECK(0 == bad, "Get_nb of all %u ranks' values (%u wrong)", n, bad);

    /* Get_nb of job data. */
    struct waiter w;
    waiter_init(&w);
    CHECK_RC(PMIx_Get_nb(&job, PMIX_JOB_SIZE, NULL, 0, value_done, &w), PMIX_SUCCESS,
             "Get_nb(JOB_SIZE)");
    CHECK(waiter_wait(&w) && w.value && w.value->type == PMIX_UINT32 && w.value->data.uint32 == n,
          "Get_nb(JOB_SIZE) = %u", n);
    if (w.value) {
        PMIX_VALUE_RELEASE(w.value);
    }
    /* A NULL callback is refused. */
    CHECK_RC(PMIx_Get_nb(&job, PMIX_JOB_SIZE, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
             "Get_nb with NULL cbfunc");

    fence_nb(NULL, 0, "final Fence_nb");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
