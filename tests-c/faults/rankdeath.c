/* rankdeath: the last rank (the victim) is SIGKILLed while the others are in the middle
 * of a collective or a Get that needs it. Run under pmixrun --enable-recovery (so the
 * survivors are not killed with it), N >= 3 ranks:
 *
 *   pmixrun --enable-recovery -n N rankdeath fence|connect|get self|peer
 *
 *   fence    the victim enters a fence over the whole job (PMIx_Fence_nb) and dies in it;
 *            rank 1..N-2 wait in that fence; rank 0 enters it only once it has heard
 *            of the death (the event), so the fence can never have completed;
 *   connect  the same with PMIx_Connect over the whole job (the victim never enters it,
 *            or the connect could complete before it dies);
 *   get      the victim never puts "rankdeath.never"; the others wait for it with a
 *            PMIx_Get (rank 0 with PMIx_Get_nb) when it dies;
 *   self     the victim kills itself (raise(SIGKILL)) 300 ms after entering;
 *   peer     rank 0 kills it by its PMIX_PROC_PID 300 ms after the start.
 *
 * Every survivor checks: the operation fails with the status below within 10 s (not a
 * hang), the event PMIX_ERR_PROC_TERM_WO_SYNC arrives with the victim as source and
 * PMIX_EVENT_AFFECTED_PROC, the same operation fails at once when tried again, and the
 * survivors can still fence among themselves. pmixrun then exits with 128+SIGKILL. */
#include "dynamic/dyn.h"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#define LIMIT_S 10.0

static struct waiter ev;
static pmix_status_t ev_status = PMIX_SUCCESS;
static pmix_proc_t ev_source, ev_affected;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&ev.lock);
    bool first = 0 == ev.calls;
    pthread_mutex_unlock(&ev.lock);
    if (first) {
        ev_status = status;
        if (source) {
            ev_source = *source;
        }
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                PMIX_PROC == info[i].value.type && info[i].value.data.proc) {
                ev_affected = *info[i].value.data.proc;
            }
        }
    }
    waiter_done(&ev, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static struct waiter opw;
static void get_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void)kv;
    waiter_done((struct waiter *)cbdata, status);
}

static pmix_proc_t me, wild, victim;
static const char *what;

/* The operation under test; non-blocking for rank 0 in peer mode (it has to kill). */
static pmix_status_t start_op(bool nb)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    if (0 == strcmp(what, "fence")) {
        if (nb) {
            return PMIx_Fence_nb(&wild, 1, NULL, 0, op_done, &opw);
        }
        return PMIx_Fence(&wild, 1, NULL, 0);
    }
    if (0 == strcmp(what, "connect")) {
        if (nb) {
            return PMIx_Connect_nb(&wild, 1, NULL, 0, op_done, &opw);
        }
        return PMIx_Connect(&wild, 1, NULL, 0);
    }
    if (nb) {
        return PMIx_Get_nb(&victim, "rankdeath.never", NULL, 0, get_done, &opw);
    }
    rc = PMIx_Get(&victim, "rankdeath.never", NULL, 0, &v);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    return rc;
}

/* What the survivors' operation must return. */
static pmix_status_t expected(void)
{
    /* As OpenPMIx answers requests parked on a peer whose connection dropped. */
    if (0 == strcmp(what, "get")) {
        return PMIX_ERR_LOST_CONNECTION;
    }
    return PMIX_ERR_PROC_TERM_WO_SYNC;
}

static void victim_main(bool self_kill)
{
    if (0 == strcmp(what, "fence")) {
        /* Enter the fence and die in it. */
        pmix_status_t rc = PMIx_Fence_nb(&wild, 1, NULL, 0, op_done, &opw);
        if (PMIX_SUCCESS != rc) {
            printf("FAIL victim could not enter the fence: %d\n", rc);
        }
    }
    printf("rank %u (victim) is ready to die\n", me.rank);
    fflush(stdout);
    if (self_kill) {
        usleep(300 * 1000);
        raise(SIGKILL);
    }
    for (;;) {
        pause(); /* until rank 0 kills it */
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rankdeath fence|connect|get self|peer\n");
        return 2;
    }
    what = argv[1];
    bool self_kill = 0 == strcmp(argv[2], "self");
    waiter_init(&ev);
    waiter_init(&opw);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "job size");
    uint32_t n = (v && PMIX_UINT32 == v->type) ? v->data.uint32 : 0;
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    CHECK(n >= 3, "at least 3 ranks (%u)", n);
    if (n < 3) {
        CHECK_DONE();
    }
    load_proc(&victim, me.nspace, n - 1);
    pid_t victim_pid = 0;
    v = NULL;
    CHECK_RC(PMIx_Get(&victim, PMIX_PROC_PID, NULL, 0, &v), PMIX_SUCCESS,
             "the victim's PMIX_PROC_PID");
    if (v && PMIX_PID == v->type) {
        victim_pid = v->data.pid;
    }
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    pmix_status_t codes[] = {PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_ABORTED,
                             PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_EVENT_PROC_TERMINATED,
                             PMIX_ERR_LOST_CONNECTION};
    CHECK(PMIx_Register_event_handler(codes, 5, NULL, 0, handler, NULL, NULL) >= 0,
          "register the fault handler");
    /* Everybody has its handler before anyone can die. */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "start fence");
    if (victim.rank == me.rank) {
        victim_main(self_kill);
    }

    double t0 = now_s();
    pmix_status_t rc;
    if (0 == me.rank) {
        if (!self_kill) {
            if (0 == strcmp(what, "get")) {
                /* Be waiting for the victim's data when it dies. */
                CHECK_RC(start_op(true), PMIX_SUCCESS, "Get_nb accepted");
            }
            usleep(300 * 1000);
            CHECK(victim_pid > 0 && 0 == kill(victim_pid, SIGKILL), "kill the victim (pid %d)",
                  (int)victim_pid);
        }
        /* Enter (fence, connect) only once the death is known: nothing can complete. */
        CHECK(waiter_wait_n(&ev, 1, (int)LIMIT_S), "the fault event arrived");
        if (0 == strcmp(what, "get") && !self_kill) {
            CHECK(waiter_wait_n(&opw, 1, (int)LIMIT_S), "Get_nb completed");
            rc = opw.status;
        } else {
            rc = start_op(false);
        }
    } else {
        rc = start_op(false);
    }
    double took = now_s() - t0;
    CHECK_RC(rc, expected(), "the operation fails");
    CHECK(took < LIMIT_S, "within %.0f s (%.2f s)", LIMIT_S, took);
    CHECK(waiter_wait_n(&ev, 1, (int)LIMIT_S), "the fault event arrived");
    CHECK_RC(ev_status, PMIX_ERR_PROC_TERM_WO_SYNC, "event code");
    CHECK(PMIX_CHECK_NSPACE(ev_source.nspace, me.nspace) && victim.rank == ev_source.rank,
          "event source is the victim (%s:%u)", ev_source.nspace, ev_source.rank);
    CHECK(PMIX_CHECK_NSPACE(ev_affected.nspace, me.nspace) && victim.rank == ev_affected.rank,
          "affected process is the victim (%u)", ev_affected.rank);
    /* Tried again, the operation fails at once. */
    t0 = now_s();
    CHECK_RC(start_op(false), expected(), "the operation fails again");
    CHECK(now_s() - t0 < LIMIT_S, "at once (%.2f s)", now_s() - t0);
    /* The survivors go on among themselves. */
    pmix_proc_t *alive;
    PMIX_PROC_CREATE(alive, n - 1);
    for (uint32_t r = 0; r + 1 < n; r++) {
        PMIX_LOAD_PROCID(&alive[r], me.nspace, r);
    }
    CHECK_RC(PMIx_Fence(alive, n - 1, NULL, 0), PMIX_SUCCESS, "a fence of the survivors");
    PMIX_PROC_FREE(alive, n - 1);
    if (0 == check_failures) {
        printf("rank %u: %s failed with %s after %.2f s; event from rank %u\n", me.rank, what,
               PMIx_Error_string(rc), took, victim.rank);
        fflush(stdout);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
