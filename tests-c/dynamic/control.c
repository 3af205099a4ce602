/* control: PMIx_Job_control and PMIx_Abort of a subset under pmixrun.
 * Run: pmixrun -n 4 control   (exit status 0: nothing ended unrequested)
 *  - rank 0 terminates a namespace it spawned (PMIX_JOB_CTRL_TERMINATE on child:*) and
 *    hears PMIX_EVENT_JOB_END; unknown directives are PMIX_ERR_NOT_SUPPORTED;
 *    cleanup registration is accepted;
 *  - rank 0 kills rank 3 (PMIX_JOB_CTRL_KILL), rank 1 aborts rank 2 (PMIx_Abort with a
 *    target list without itself): both return PMIX_SUCCESS, the callers carry on and
 *    finalize, and pmixrun reports the abort but exits 0. */
#include "dyn.h"

#include <unistd.h>

static struct waiter job_end;

static void end_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    waiter_done(&job_end, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(void)
{
    pmix_proc_t me;
    waiter_init(&job_end);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    bool t = true;
    pmix_info_t d;
    if (0 == me.rank) {
        pmix_status_t code = PMIX_EVENT_JOB_END;
        PMIx_Register_event_handler(&code, 1, NULL, 0, end_handler, NULL, NULL);
        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup("sleep");
        PMIx_Argv_append_nosize(&app.argv, "sleep");
        PMIx_Argv_append_nosize(&app.argv, "30");
        app.maxprocs = 2;
        pmix_info_t ji;
        PMIX_INFO_LOAD(&ji, PMIX_NOTIFY_COMPLETION, &t, PMIX_BOOL);
        char child[PMIX_MAX_NSLEN + 1];
        CHECK_RC(PMIx_Spawn(&ji, 1, &app, 1, child), PMIX_SUCCESS, "spawn two sleepers");
        PMIX_APP_DESTRUCT(&app);
        PMIX_INFO_DESTRUCT(&ji);
        pmix_proc_t all;
        load_proc(&all, child, PMIX_RANK_WILDCARD);
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_TERMINATE, &t, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        double t0 = now_s();
        CHECK_RC(PMIx_Job_control(&all, 1, &d, 1, &res, &nres), PMIX_SUCCESS,
                 "terminate the spawned namespace");
        PMIX_INFO_DESTRUCT(&d);
        CHECK(waiter_wait_n(&job_end, 1, 20), "the spawned job ended (%.1f s)", now_s() - t0);
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_PAUSE, &t, PMIX_BOOL);
        CHECK_RC(PMIx_Job_control(&all, 1, &d, 1, &res, &nres), PMIX_ERR_NOT_SUPPORTED,
                 "pause is not supported");
        PMIX_INFO_DESTRUCT(&d);
        PMIX_INFO_LOAD(&d, PMIX_REGISTER_CLEANUP, "/tmp/nothing-to-clean", PMIX_STRING);
        CHECK_RC(PMIx_Job_control(NULL, 0, &d, 1, &res, &nres), PMIX_SUCCESS,
                 "cleanup registration");
        PMIX_INFO_DESTRUCT(&d);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    if (me.rank >= 2) {
        /* Wait to be ended by the others. */
        sleep(30);
        printf("rank %u was not ended\n", me.rank);
        return 1;
    }
    sleep_ms(200);
    if (0 == me.rank) {
        pmix_proc_t three;
        load_proc(&three, me.nspace, 3);
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_KILL, &t, PMIX_BOOL);
        CHECK_RC(PMIx_Job_control(&three, 1, &d, 1, NULL, NULL), PMIX_SUCCESS, "kill rank 3");
        PMIX_INFO_DESTRUCT(&d);
    } else {
        pmix_proc_t two;
        load_proc(&two, me.nspace, 2);
        CHECK_RC(PMIx_Abort(5, "ending rank 2", &two, 1), PMIX_SUCCESS, "abort rank 2 only");
    }
    printf("rank %u carries on\n", me.rank);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
