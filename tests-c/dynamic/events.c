/* events: event handler chains and PMIx_Notify_event ranges under pmixrun.
 * Run: pmixrun -n N events   (N >= 3)
 *  - chain order: FIRST, single-code (PREPEND, BEFORE, append), multi-code, default, LAST;
 *    each handler sees the results of the ones before it;
 *  - PMIX_EVENT_ACTION_COMPLETE ends the chain; PMIX_EVENT_NON_DEFAULT skips defaults;
 *  - PMIX_EVENT_AFFECTED_PROC filters; PMIX_EVENT_ONESHOT runs once;
 *  - registration errors: a second FIRST, BEFORE an unknown name;
 *  - ranges: PROC_LOCAL stays in the process; NAMESPACE reaches every rank; CUSTOM
 *    reaches exactly the listed ranks (not even the caller unless listed);
 *  - blocking Notify/Register inside a handler return PMIX_ERR_WOULD_BLOCK; Notify with
 *    a callback calls it once. */
#include "dyn.h"

#define EV_CHAIN 7001
#define EV_OTHER 7002
#define EV_STOP 7003
#define EV_NONDEF 7004
#define EV_AFF 7005
#define EV_ONCE 7006
#define EV_RANGE 7007
#define EV_INNER 7008

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char order[256];
static size_t seen_results[16];
static int calls[16];
static struct waiter chain_done;
static struct waiter range_w;
static pmix_status_t inner_notify = PMIX_SUCCESS, inner_register = PMIX_SUCCESS;

/* cbdata of a handler registration: its letter/index. */
static void note(int idx, size_t nresults)
{
    pthread_mutex_lock(&lock);
    size_t n = strlen(order);
    if (n + 1 < sizeof(order)) {
        order[n] = (char)('A' + idx);
        order[n + 1] = 0;
    }
    seen_results[idx] = nresults;
    calls[idx]++;
    pthread_mutex_unlock(&lock);
}

#define HANDLER(NAME, IDX, STATUS)                                                          \
    static void NAME(size_t id, pmix_status_t status, const pmix_proc_t *source,           \
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],               \
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,           \
                     void *cbdata)                                                          \
    {                                                                                       \
        (void)id;                                                                           \
        (void)status;                                                                       \
        (void)source;                                                                       \
        (void)info;                                                                         \
        (void)ninfo;                                                                        \
        (void)results;                                                                      \
        note(IDX, nresults);                                                                \
        pmix_info_t *r;                                                                     \
        PMIX_INFO_CREATE(r, 1);                                                             \
        int v = IDX;                                                                        \
        PMIX_INFO_LOAD(&r[0], "ev.result", &v, PMIX_INT);                                   \
        if (cbfunc) {                                                                       \
            cbfunc(STATUS, r, 1, release_results, r, cbdata);                               \
        }                                                                                   \
    }

static void release_results(pmix_status_t status, void *cbdata)
{
    (void)status;
    pmix_info_t *r = cbdata;
    PMIX_INFO_FREE(r, 1);
}

HANDLER(h_first, 0, PMIX_SUCCESS)
HANDLER(h_s1, 1, PMIX_SUCCESS)
HANDLER(h_s2, 2, PMIX_SUCCESS)
HANDLER(h_s0, 3, PMIX_SUCCESS)
HANDLER(h_multi, 4, PMIX_SUCCESS)
HANDLER(h_default, 5, PMIX_SUCCESS)
HANDLER(h_stop, 7, PMIX_EVENT_ACTION_COMPLETE)
HANDLER(h_aff, 8, PMIX_SUCCESS)
HANDLER(h_once, 9, PMIX_SUCCESS)
HANDLER(h_nondef, 11, PMIX_SUCCESS)

/* The LAST handler also signals the end of the chain. */
static void h_last(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    note(6, nresults);
    if (cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
    waiter_done(&chain_done, status);
}

static void h_range(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    waiter_done(&range_w, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void h_inner(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    inner_notify = PMIx_Notify_event(EV_OTHER, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    pmix_status_t c = EV_OTHER;
    inner_register = PMIx_Register_event_handler(&c, 1, NULL, 0, h_s1, NULL, NULL);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
    waiter_done(&chain_done, PMIX_SUCCESS);
}

static int reg(pmix_status_t *codes, size_t n, pmix_info_t *info, size_t ninfo,
               pmix_notification_fn_t h)
{
    return PMIx_Register_event_handler(codes, n, info, ninfo, h, NULL, NULL);
}

static void reset(void)
{
    pthread_mutex_lock(&lock);
    order[0] = 0;
    memset(calls, 0, sizeof(calls));
    pthread_mutex_unlock(&lock);
    waiter_init(&chain_done);
}

static void notify_local(pmix_status_t code, pmix_info_t *info, size_t ninfo)
{
    CHECK_RC(PMIx_Notify_event(code, NULL, PMIX_RANGE_PROC_LOCAL, info, ninfo, NULL, NULL),
             PMIX_SUCCESS, "Notify (PROC_LOCAL, blocking)");
}

static void barrier(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "barrier");
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    pmix_info_t info[2];
    bool t = true;
    pmix_status_t chain = EV_CHAIN;
    pmix_status_t both[2] = {EV_CHAIN, EV_OTHER};

    /* Handlers for EV_CHAIN in every category and position. */
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_NAME, "s1", PMIX_STRING);
    CHECK(reg(&chain, 1, info, 1, h_s1) >= 0, "s1 (append)");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_NAME, "s2", PMIX_STRING);
    CHECK(reg(&chain, 1, info, 1, h_s2) >= 0, "s2 (append)");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_PREPEND, &t, PMIX_BOOL);
    CHECK(reg(&chain, 1, info, 1, h_s0) >= 0, "s0 (prepend)");
    PMIX_INFO_DESTRUCT(&info[0]);
    CHECK(reg(both, 2, NULL, 0, h_multi) >= 0, "multi-code");
    CHECK(reg(NULL, 0, NULL, 0, h_default) >= 0, "default");
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_LAST, &t, PMIX_BOOL);
    CHECK(reg(&chain, 1, info, 1, h_last) >= 0, "last");
    CHECK_RC(reg(&chain, 1, info, 1, h_last), PMIX_ERR_EVENT_REGISTRATION, "a second LAST");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_FIRST, &t, PMIX_BOOL);
    CHECK(reg(&chain, 1, info, 1, h_first) >= 0, "first");
    CHECK_RC(reg(&chain, 1, info, 1, h_first), PMIX_ERR_EVENT_REGISTRATION, "a second FIRST");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_BEFORE, "nobody", PMIX_STRING);
    CHECK_RC(reg(&chain, 1, info, 1, h_s1), PMIX_ERR_EVENT_REGISTRATION,
             "BEFORE an unknown handler");
    PMIX_INFO_DESTRUCT(&info[0]);

    /* The chain: A(first) D(s0) B(s1) C(s2) E(multi) F(default) G(last). */
    reset();
    notify_local(EV_CHAIN, NULL, 0);
    CHECK(waiter_wait(&chain_done), "the chain reached the last handler");
    pthread_mutex_lock(&lock);
    CHECK(0 == strcmp(order, "ADBCEFG"), "order %s", order);
    CHECK(6 == seen_results[6], "the last handler saw 6 results (%zu)", seen_results[6]);
    CHECK(2 == seen_results[1], "s1 saw 2 results (%zu)", seen_results[1]);
    pthread_mutex_unlock(&lock);

    /* ACTION_COMPLETE ends the chain; NON_DEFAULT skips the default handler. */
    pmix_status_t stop = EV_STOP;
    CHECK(reg(&stop, 1, NULL, 0, h_stop) >= 0, "stopper");
    reset();
    notify_local(EV_STOP, NULL, 0);
    pmix_status_t nondef = EV_NONDEF;
    CHECK(reg(&nondef, 1, NULL, 0, h_nondef) >= 0, "non-default target");
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_NON_DEFAULT, &t, PMIX_BOOL);
    notify_local(EV_NONDEF, info, 1);
    PMIX_INFO_DESTRUCT(&info[0]);
    sleep_ms(300);
    pthread_mutex_lock(&lock);
    CHECK(1 == calls[7] && 0 == calls[5], "nothing after ACTION_COMPLETE (default ran %d)",
          calls[5]);
    CHECK(1 == calls[11], "the non-default event reached its handler");
    pthread_mutex_unlock(&lock);

    /* Affected-process filter and one-shot. */
    pmix_status_t aff = EV_AFF;
    pmix_proc_t one;
    load_proc(&one, me.nspace, 1);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &one, PMIX_PROC);
    CHECK(reg(&aff, 1, info, 1, h_aff) >= 0, "handler for events affecting rank 1");
    PMIX_INFO_DESTRUCT(&info[0]);
    pmix_status_t once = EV_ONCE;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_ONESHOT, &t, PMIX_BOOL);
    CHECK(reg(&once, 1, info, 1, h_once) >= 0, "one-shot handler");
    PMIX_INFO_DESTRUCT(&info[0]);
    reset();
    pmix_proc_t two;
    load_proc(&two, me.nspace, 2);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &two, PMIX_PROC);
    notify_local(EV_AFF, info, 1);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &one, PMIX_PROC);
    notify_local(EV_AFF, info, 1);
    PMIX_INFO_DESTRUCT(&info[0]);
    notify_local(EV_ONCE, NULL, 0);
    notify_local(EV_ONCE, NULL, 0);
    sleep_ms(300);
    pthread_mutex_lock(&lock);
    CHECK(1 == calls[8], "the filtered handler ran for rank 1 only (%d)", calls[8]);
    CHECK(1 == calls[9], "the one-shot handler ran once (%d)", calls[9]);
    pthread_mutex_unlock(&lock);

    /* Blocking calls inside a handler. */
    pmix_status_t inner = EV_INNER;
    CHECK(reg(&inner, 1, NULL, 0, h_inner) >= 0, "inner handler");
    reset();
    notify_local(EV_INNER, NULL, 0);
    CHECK(waiter_wait(&chain_done), "inner handler ran");
    CHECK_RC(inner_notify, PMIX_ERR_WOULD_BLOCK, "blocking Notify inside a handler");
    CHECK_RC(inner_register, PMIX_ERR_WOULD_BLOCK, "blocking Register inside a handler");

    /* Ranges across the clients of the server. */
    pmix_status_t rc_code = EV_RANGE;
    waiter_init(&range_w);
    CHECK(reg(&rc_code, 1, NULL, 0, h_range) >= 0, "range handler");
    barrier();
    if (0 == me.rank) {
        struct waiter w;
        waiter_init(&w);
        CHECK_RC(PMIx_Notify_event(EV_RANGE, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, op_done, &w),
                 PMIX_SUCCESS, "Notify NAMESPACE");
        CHECK(waiter_wait(&w) && 1 == w.calls, "Notify called back once");
    }
    barrier();
    CHECK(waiter_wait_n(&range_w, 1, 10), "NAMESPACE range reached rank %u", me.rank);
    barrier();
    waiter_init(&range_w);
    barrier();
    if (0 == me.rank) {
        pmix_data_array_t darr;
        PMIX_DATA_ARRAY_CONSTRUCT(&darr, 1, PMIX_PROC);
        ((pmix_proc_t *)darr.array)[0] = two;
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
        CHECK_RC(PMIx_Notify_event(EV_RANGE, NULL, PMIX_RANGE_CUSTOM, info, 1, NULL, NULL),
                 PMIX_SUCCESS, "Notify CUSTOM {rank 2}");
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_DATA_ARRAY_DESTRUCT(&darr);
        CHECK_RC(PMIx_Notify_event(EV_RANGE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
                 PMIX_SUCCESS, "Notify PROC_LOCAL");
    }
    barrier();
    sleep_ms(300);
    int got = range_w.calls;
    if (0 == me.rank) {
        CHECK(1 == got, "rank 0: only its own PROC_LOCAL event (%d)", got);
    } else if (2 == me.rank) {
        CHECK(1 == got, "rank 2: the CUSTOM event (%d)", got);
    } else {
        CHECK(0 == got, "rank %u: nothing (%d)", me.rank, got);
    }
    barrier();
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
