/* fault_notice: when a rank's exit ends the job, the other ranks hear of it before
 * they are killed (as OpenPMIx master's examples/fault.c relies on).
 * Run: pmixrun -n 3 fault_notice      (exit status 3: rank 1's)
 * Every rank registers a handler for PMIX_ERR_PROC_ABORTED and PMIX_ERR_JOB_TERMINATED
 * and fences; rank 1 then exits with status 3 without finalizing. Ranks 0 and 2 get
 * PMIX_ERR_PROC_ABORTED within 10 s, with PMIX_EVENT_AFFECTED_PROC = rank 1 and
 * PMIX_EXIT_CODE = 3, and finalize. The handler reads its infos after calling its
 * completion callback (as fault.c does): they stay valid until it returns. */
#include <pmix.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../tests-c/check.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int got_status = 0, got_exit = -1, calls = 0;
static pmix_rank_t got_rank = PMIX_RANK_UNDEF;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)results, (void)nresults;
    /* As OpenPMIx's fault example does: complete first, then read the infos (they
     * stay valid until the handler returns). */
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
    pthread_mutex_lock(&mu);
    calls++;
    got_status = status;
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_EXIT_CODE) && info[n].value.type == PMIX_INT) {
            got_exit = info[n].value.data.integer;
        } else if (PMIX_CHECK_KEY(&info[n], PMIX_EVENT_AFFECTED_PROC) &&
                   info[n].value.type == PMIX_PROC) {
            got_rank = info[n].value.data.proc->rank;
        }
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t codes[2] = {PMIX_ERR_PROC_ABORTED, PMIX_ERR_JOB_TERMINATED};
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    int id = PMIx_Register_event_handler(codes, 2, NULL, 0, handler, NULL, NULL);
    CHECK(id >= 0, "handler registered (%d)", id);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    if (me.rank == 1) {
        usleep(200 * 1000);
        fflush(stdout);
        _exit(3);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&mu);
    while (calls == 0 && pthread_cond_timedwait(&cv, &mu, &until) == 0) {
    }
    pthread_mutex_unlock(&mu);
    CHECK(calls == 1, "one event (%d)", calls);
    CHECK_RC(got_status, PMIX_ERR_PROC_ABORTED, "it is PMIX_ERR_PROC_ABORTED");
    CHECK(got_rank == 1, "about rank 1 (%u)", got_rank);
    CHECK(got_exit == 3, "with its exit code (%d)", got_exit);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
