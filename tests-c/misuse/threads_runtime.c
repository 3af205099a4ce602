/* Eight threads of one singleton client use the runtime at once: each puts its own
 * keys, commits, reads them back with PMIx_Get, and enters PMIx_Fence_nb waiting for
 * its callback (or takes PMIX_OPERATION_SUCCEEDED: done at once, no callback). Every
 * value read must be the one written, every callback must arrive (bounded wait), and
 * PMIx_Finalize must succeed afterwards. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include "misuse.h"

#define NTHREADS 8
#define ITERS 40

static pmix_proc_t me;
static pthread_barrier_t start;

struct result {
    int id;
    int failures;
    int fences;
};

struct fence_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
};

static void fence_cb(pmix_status_t status, void *cbdata)
{
    struct fence_wait *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

#define T_CHECK(cond) do { if (!(cond)) { r->failures++; } } while (0)

static void *worker(void *arg)
{
    struct result *r = arg;
    char key[64];

    pthread_barrier_wait(&start);
    for (int it = 0; it < ITERS; it++) {
        uint32_t mine = (uint32_t)(r->id * 1000 + it);
        pmix_value_t val, *got = NULL;
        struct fence_wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
        struct timespec until;

        snprintf(key, sizeof(key), "thr%d.key%d", r->id, it);
        PMIX_VALUE_LOAD(&val, &mine, PMIX_UINT32);
        T_CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, key, &val));
        PMIX_VALUE_DESTRUCT(&val);
        T_CHECK(PMIX_SUCCESS == PMIx_Commit());
        T_CHECK(PMIX_SUCCESS == PMIx_Get(&me, key, NULL, 0, &got));
        T_CHECK(NULL != got && PMIX_UINT32 == got->type && mine == got->data.uint32);
        if (NULL != got) {
            PMIX_VALUE_RELEASE(got);
        }

        pmix_status_t frc = PMIx_Fence_nb(NULL, 0, NULL, 0, fence_cb, &w);
        if (PMIX_OPERATION_SUCCEEDED == frc) {
            r->fences++; /* completed at once; the callback is not called */
        } else if (PMIX_SUCCESS == frc) {
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 10;
            pthread_mutex_lock(&w.lock);
            while (!w.done) {
                if (0 != pthread_cond_timedwait(&w.cond, &w.lock, &until)) {
                    break;
                }
            }
            T_CHECK(w.done && PMIX_SUCCESS == w.status);
            r->fences += w.done;
            pthread_mutex_unlock(&w.lock);
            if (!w.done) {
                return NULL; /* the callback may still come: keep `w` alive by leaving */
            }
        } else {
            r->failures++;
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];
    struct result res[NTHREADS];
    pmix_status_t rc;

    unsetenv("PMIX_SERVER_URI41");
    unsetenv("PMIX_SERVER_URI4");
    unsetenv("PMIX_SERVER_URI3");
    unsetenv("PMIX_SERVER_URI2");
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_ERR_UNREACH, "PMIx_Init as a singleton");

    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++) {
        res[i].id = i;
        res[i].failures = 0;
        res[i].fences = 0;
        CHECK(0 == pthread_create(&th[i], NULL, worker, &res[i]), "thread %d started", i);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK(0 == res[i].failures && ITERS == res[i].fences,
              "thread %d: %d put/commit/get/fence rounds, %d fences completed, %d failed checks", i,
              ITERS, res[i].fences, res[i].failures);
    }
    pthread_barrier_destroy(&start);
    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
