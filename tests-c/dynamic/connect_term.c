/* connect_term: a connected member that ends without PMIx_Disconnect raises
 * PMIX_ERR_PROC_TERM_WO_SYNC at the other members.
 * Run: pmixrun -n N connect_term finalize|crash   (N >= 2)
 *   finalize: rank 1 calls PMIx_Finalize without disconnecting, then exits 0;
 *   crash:    rank 1 exits without PMIx_Finalize (pmixrun then fails the job).
 * The other ranks wait for the event and check its source and affected process (in crash
 * mode they ignore the SIGTERM with which pmixrun ends the job meanwhile). */
#include "dyn.h"

#include <signal.h>
#include <unistd.h>

static struct waiter ev;
static pmix_proc_t ev_source;
static pmix_proc_t ev_affected;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    if (source) {
        ev_source = *source;
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            PMIX_PROC == info[i].value.type) {
            ev_affected = *info[i].value.data.proc;
        }
    }
    waiter_done(&ev, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild;
    bool crash = argc > 1 && 0 == strcmp(argv[1], "crash");
    waiter_init(&ev);
    if (crash) {
        /* pmixrun kills the job when rank 1 dies; stay long enough to see the event. */
        signal(SIGTERM, SIG_IGN);
    }
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    pmix_status_t code = PMIX_ERR_PROC_TERM_WO_SYNC;
    CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL) >= 0,
          "register a handler for PMIX_ERR_PROC_TERM_WO_SYNC");
    if (crash && 1 != me.rank) {
        /* pmixrun kills the job when rank 1 dies; stay long enough to see the event.
         * Ignore SIGTERM before rank 1 can exit (it may leave right after the fence). */
        signal(SIGTERM, SIG_IGN);
    }
    load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect(&wild, 1, NULL, 0), PMIX_SUCCESS, "connect the whole job");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after connect");
    if (1 == me.rank) {
        if (crash) {
            printf("rank 1 exits without PMIx_Finalize\n");
            fflush(stdout);
            _exit(0);
        }
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "rank 1 finalizes without disconnect");
        CHECK_DONE();
    }
    CHECK(waiter_wait_n(&ev, 1, 20), "the event arrived");
    CHECK_RC(ev.status, PMIX_ERR_PROC_TERM_WO_SYNC, "event code");
    CHECK(PMIX_CHECK_NSPACE(ev_source.nspace, me.nspace) && 1 == ev_source.rank,
          "source is rank 1 (%s:%u)", ev_source.nspace, ev_source.rank);
    CHECK(1 == ev_affected.rank, "affected process is rank 1 (%u)", ev_affected.rank);
    if (0 == check_failures) {
        printf("rank %u got PMIX_ERR_PROC_TERM_WO_SYNC from rank 1\n", me.rank);
        fflush(stdout);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
