/* An event reaches a handler registered after it was raised (as OpenPMIx's cached
 * events do): rank 0 raises PMIX_NOTIFY_ALLOC_COMPLETE with range GLOBAL (what the
 * alloc example does), and every other rank, on every node, registers its handler
 * only later:
 *
 *   lateev register   the others are connected (a fence with rank 0 first), and
 *                     register one second after rank 0 raised the event
 *   lateev connect    the others call PMIx_Init two seconds after rank 0 raised it
 *
 * Each other rank must get the event exactly once, from rank 0, with its
 * PMIX_ALLOC_STATUS; a handler registered after that one gets nothing more. */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "mn.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int hits = 0, second_hits = 0;
static pmix_rank_t from = PMIX_RANK_INVALID;
static int alloc_status = 1;

static void on_alloc(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)results, (void)nresults;
    pthread_mutex_lock(&mu);
    hits++;
    from = source ? source->rank : PMIX_RANK_INVALID;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_ALLOC_STATUS) && info[i].value.type == PMIX_STATUS) {
            alloc_status = info[i].value.data.status;
        }
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void on_alloc_second(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    pthread_mutex_lock(&mu);
    second_hits++;
    pthread_mutex_unlock(&mu);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "register") != 0 && strcmp(argv[1], "connect") != 0)) {
        fprintf(stderr, "usage: lateev register|connect\n");
        return 2;
    }
    int late_init = strcmp(argv[1], "connect") == 0;
    pmix_rank_t my_rank = (pmix_rank_t)atoi(getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "0");
    if (late_init && my_rank != 0) {
        sleep(2);
    }
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (0 == n) {
        CHECK_DONE();
    }
    if (!late_init) {
        CHECK_RC(mn_fence(false), PMIX_SUCCESS, "fence: every rank connected");
    }
    if (0 == me.rank) {
        pmix_info_t info;
        pmix_status_t st = PMIX_ERR_NOT_SUPPORTED;
        PMIX_INFO_LOAD(&info, PMIX_ALLOC_STATUS, &st, PMIX_STATUS);
        CHECK_RC(PMIx_Notify_event(PMIX_NOTIFY_ALLOC_COMPLETE, &me, PMIX_RANGE_GLOBAL, &info, 1,
                                   NULL, NULL),
                 PMIX_SUCCESS, "rank 0 raises PMIX_NOTIFY_ALLOC_COMPLETE");
        PMIX_INFO_DESTRUCT(&info);
    } else {
        if (!late_init) {
            sleep(1);
        }
        pmix_status_t code = PMIX_NOTIFY_ALLOC_COMPLETE;
        pmix_status_t reg = PMIx_Register_event_handler(&code, 1, NULL, 0, on_alloc, NULL, NULL);
        CHECK(reg >= 0, "rank %u registers its handler late: %d", me.rank, reg);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&mu);
        while (0 == hits) {
            if (pthread_cond_timedwait(&cv, &mu, &until) != 0) {
                break;
            }
        }
        pthread_mutex_unlock(&mu);
        /* A handler registered now finds nothing left; a duplicate would come by now. */
        reg = PMIx_Register_event_handler(&code, 1, NULL, 0, on_alloc_second, NULL, NULL);
        CHECK(reg >= 0, "a second handler: %d", reg);
        usleep(300 * 1000);
        pthread_mutex_lock(&mu);
        CHECK(1 == hits, "rank %u (node %s): the late handler got the event %d times, want 1",
              me.rank, getenv("PMIX_HOSTNAME") ? getenv("PMIX_HOSTNAME") : "?", hits);
        CHECK(0 == from, "rank %u: the event's source is rank %d", me.rank, (int)from);
        CHECK(PMIX_ERR_NOT_SUPPORTED == alloc_status, "rank %u: PMIX_ALLOC_STATUS %d",
              me.rank, alloc_status);
        CHECK(0 == second_hits, "rank %u: the second handler got it %d times", me.rank,
              second_hits);
        pthread_mutex_unlock(&mu);
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "closing fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
