/* get_not_available: rule "after the progress engine stopped: PMIX_ERR_NOT_AVAILABLE".
 * "Stopped" is PMIx_Progress_thread_stop on the library's shared progress thread (no
 * PMIX_PROGRESS_THREAD_NAME, or that thread's name): from then on Get, Get_nb, Put,
 * Commit, Fence and Fence_nb return NOT_AVAILABLE at once and run no callback. A stop
 * naming another thread changes nothing. PMIx_Finalize still works (it is how such a
 * process leaves), and a later PMIx_Init starts a working engine again.
 * Run: pmixrun -n 2 get_not_available */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_proc_t peer;
    proc_of(&peer, (me.rank + 1) % nprocs);
    CHECK_RC(put_int(PMIX_GLOBAL, "na.k", 1), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");

    pmix_info_t other;
    PMIX_INFO_CONSTRUCT(&other);
    PMIX_INFO_LOAD(&other, PMIX_PROGRESS_THREAD_NAME, "some-other-thread", PMIX_STRING);
    PMIx_Progress_thread_stop(&other, 1);
    PMIX_INFO_DESTRUCT(&other);
    int v = -1;
    CHECK_RC(get_int(&peer, "na.k", NULL, 0, &v), PMIX_SUCCESS,
             "stopping another (unknown) progress thread changes nothing");

    PMIx_Progress_thread_stop(NULL, 0);
    struct waiter w;
    waiter_init(&w);
    double t0 = now();
    pmix_value_t *pv = NULL;
    CHECK_RC(PMIx_Get(&peer, "na.k", NULL, 0, &pv), PMIX_ERR_NOT_AVAILABLE, "Get after the stop");
    CHECK_RC(PMIx_Get(&me, "na.k", NULL, 0, &pv), PMIX_ERR_NOT_AVAILABLE, "Get of own key");
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &pv), PMIX_ERR_NOT_AVAILABLE,
             "Get of job data");
    CHECK_RC(PMIx_Get_nb(&peer, "na.k", NULL, 0, value_done, &w), PMIX_ERR_NOT_AVAILABLE,
             "Get_nb after the stop");
    CHECK_RC(put_int(PMIX_GLOBAL, "na.k2", 2), PMIX_ERR_NOT_AVAILABLE, "Put after the stop");
    CHECK_RC(PMIx_Commit(), PMIX_ERR_NOT_AVAILABLE, "Commit after the stop");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_NOT_AVAILABLE, "Fence after the stop");
    CHECK_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &w), PMIX_ERR_NOT_AVAILABLE,
             "Fence_nb after the stop");
    CHECK(now() - t0 < 1.0, "all at once (%.2f s)", now() - t0);
    sleep_ms(200);
    CHECK(0 == waiter_calls(&w), "no callback ran");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize after the stop");

    /* A new PMIx_Init gets a running engine again. */
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init again");
    v = -1;
    CHECK_RC(get_int(&peer, "na.k", NULL, 0, &v), PMIX_SUCCESS, "Get works after re-init");
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
