/* evorder: event handler ordering relative to named handlers (PMIX_EVENT_HDLR_BEFORE /
 * _AFTER), as OpenPMIx master places them.
 * Run: pmixrun -n 1 evorder
 * "omp" is registered PMIX_EVENT_HDLR_FIRST (first overall) and "end" PMIX_EVENT_HDLR_LAST;
 * "mpi" AFTER "omp" and "tail" BEFORE "end" are accepted; BEFORE the first and AFTER the
 * last, or naming no handler, are PMIX_ERR_EVENT_REGISTRATION. A local event then runs
 * omp, mpi, s1, tail, end, each partial step seeing the results before it, and the
 * notifier's callback is called. */
#include "../tests-c/dynamic/dyn.h"

static char order[128];
static struct waiter notified;

#define STEP(NAME, LAST)                                                                   \
    static void NAME(size_t id, pmix_status_t status, const pmix_proc_t *source,          \
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],              \
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,          \
                     void *cbdata)                                                         \
    {                                                                                      \
        (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results,      \
            (void)nresults;                                                                \
        strncat(order, #NAME " ", sizeof(order) - strlen(order) - 1);                     \
        if (cbfunc) {                                                                      \
            cbfunc(LAST ? PMIX_EVENT_ACTION_COMPLETE : PMIX_EVENT_PARTIAL_ACTION_TAKEN,   \
                   NULL, 0, NULL, NULL, cbdata);                                           \
        }                                                                                  \
    }
STEP(omp, 0)
STEP(mpi, 0)
STEP(s1, 0)
STEP(tail, 0)
STEP(end, 1)
STEP(never, 0)

static pmix_status_t reg(const char *name, const char *where, const char *other,
                         pmix_notification_fn_t fn)
{
    pmix_status_t code = PMIX_OPENMP_PARALLEL_ENTERED;
    pmix_info_t info[2];
    bool t = true;
    size_t n = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    if (NULL != where) {
        if (NULL != other) {
            PMIX_INFO_LOAD(&info[1], where, other, PMIX_STRING);
        } else {
            PMIX_INFO_LOAD(&info[1], where, &t, PMIX_BOOL);
        }
        n = 2;
    }
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, info, n, fn, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

int main(void)
{
    pmix_proc_t me;
    waiter_init(&notified);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    CHECK(reg("s1", NULL, NULL, s1) >= 0, "plain handler s1");
    CHECK(reg("omp", PMIX_EVENT_HDLR_FIRST, NULL, omp) >= 0, "omp first overall");
    CHECK(reg("end", PMIX_EVENT_HDLR_LAST, NULL, end) >= 0, "end last overall");
    CHECK(reg("mpi", PMIX_EVENT_HDLR_AFTER, "omp", mpi) >= 0, "mpi after omp (the first)");
    CHECK(reg("tail", PMIX_EVENT_HDLR_BEFORE, "end", tail) >= 0, "tail before end (the last)");
    CHECK_RC(reg("x1", PMIX_EVENT_HDLR_BEFORE, "omp", never), PMIX_ERR_EVENT_REGISTRATION,
             "nothing goes before the first");
    CHECK_RC(reg("x2", PMIX_EVENT_HDLR_AFTER, "end", never), PMIX_ERR_EVENT_REGISTRATION,
             "nothing goes after the last");
    CHECK_RC(reg("x3", PMIX_EVENT_HDLR_AFTER, "nobody", never), PMIX_ERR_EVENT_REGISTRATION,
             "a name no handler has");

    pmix_info_t nd;
    PMIX_INFO_LOAD(&nd, PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_Notify_event(PMIX_OPENMP_PARALLEL_ENTERED, &me, PMIX_RANGE_PROC_LOCAL, &nd,
                               1, op_done, &notified),
             PMIX_SUCCESS, "notify locally");
    CHECK(waiter_wait_n(&notified, 1, 10), "the notifier's callback ran");
    for (int i = 0; i < 100 && strlen(order) < strlen("omp mpi s1 tail end "); i++) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    CHECK(0 == strcmp(order, "omp mpi s1 tail end "), "chain order: %s", order);
    PMIX_INFO_DESTRUCT(&nd);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
