/* connect_rules: the PMIx_Connect / PMIx_Disconnect rules within one namespace.
 * Run: pmixrun -n N connect_rules   (N >= 3)
 *
 *  - NULL procs / nprocs 0 -> PMIX_ERR_BAD_PARAM (blocking and _nb forms);
 *  - a caller not among the participants -> PMIX_ERR_NOT_A_MEMBER at once;
 *  - Disconnect of a never-connected set -> PMIX_ERR_INVALID_OPERATION;
 *  - the order of procs is irrelevant (each rank lists the set rotated differently);
 *  - endpoint data: afterwards each peer's REMOTE/GLOBAL puts (never committed, so only
 *    the connect can have carried them) are found with PMIX_IMMEDIATE; LOCAL puts and
 *    reserved keys are not;
 *  - a wildcard description and an explicit list never match (both time out under
 *    PMIX_TIMEOUT, promptly);
 *  - PMIX_TIMEOUT bounds a connect whose peer never arrives;
 *  - a second connect over the identical set while the first is in progress is refused;
 *  - two connects over different sets proceed independently;
 *  - Connect_nb calls back once; a blocking Connect inside a callback -> WOULD_BLOCK;
 *  - Disconnect, then a second Disconnect -> INVALID_OPERATION. */
#include "dyn.h"

static pmix_proc_t me;
static uint32_t size;
static pmix_status_t inner_rc = PMIX_SUCCESS;

static void timeout_info(pmix_info_t *info, int secs)
{
    PMIX_INFO_CONSTRUCT(info);
    PMIX_INFO_LOAD(info, PMIX_TIMEOUT, &secs, PMIX_INT);
}

static void barrier(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "barrier");
}

/* Completion of the Connect_nb used for the WOULD_BLOCK check. */
static void blocking_inside(pmix_status_t status, void *cbdata)
{
    pmix_proc_t p;
    load_proc(&p, me.nspace, me.rank);
    inner_rc = PMIx_Connect(&p, 1, NULL, 0);
    op_done(status, cbdata);
}

static void put(const char *key, pmix_scope_t scope, int v)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &v, PMIX_INT);
    CHECK_RC(PMIx_Put(scope, key, &val), PMIX_SUCCESS, key);
    PMIX_VALUE_DESTRUCT(&val);
}

static pmix_status_t get_imm(pmix_rank_t r, const char *key, int *out)
{
    pmix_proc_t p;
    pmix_info_t info;
    bool t = true;
    pmix_value_t *v = NULL;
    load_proc(&p, me.nspace, r);
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    if (PMIX_SUCCESS == rc && v) {
        *out = (v->type == PMIX_INT) ? v->data.integer : -1;
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

int main(void)
{
    pmix_value_t *v = NULL;
    pmix_proc_t wild;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "job size");
    size = v ? v->data.uint32 : 0;
    PMIX_VALUE_RELEASE(v);
    CHECK(size >= 3, "needs at least 3 ranks (have %u)", size);
    if (size < 3) {
        PMIx_Finalize(NULL, 0);
        CHECK_DONE();
    }
    pmix_proc_t *all = calloc(size, sizeof(pmix_proc_t));
    struct waiter w;

    /* Bad arguments. */
    CHECK_RC(PMIx_Connect(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "Connect(NULL, 0)");
    CHECK_RC(PMIx_Connect(&wild, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "Connect(procs, 0)");
    CHECK_RC(PMIx_Connect(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "Connect(NULL, 2)");
    waiter_init(&w);
    CHECK_RC(PMIx_Connect_nb(NULL, 0, NULL, 0, op_done, &w), PMIX_ERR_BAD_PARAM,
             "Connect_nb(NULL, 0)");
    CHECK_RC(PMIx_Disconnect(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "Disconnect(NULL, 0)");
    CHECK_RC(PMIx_Disconnect_nb(NULL, 0, NULL, 0, op_done, &w), PMIX_ERR_BAD_PARAM,
             "Disconnect_nb(NULL, 0)");
    CHECK(0 == w.calls, "no callback after a refused call");

    /* Not a member: the next rank alone. */
    pmix_proc_t other;
    load_proc(&other, me.nspace, (me.rank + 1) % size);
    double t0 = now_s();
    CHECK_RC(PMIx_Connect(&other, 1, NULL, 0), PMIX_ERR_NOT_A_MEMBER, "Connect without me");
    CHECK_RC(PMIx_Disconnect(&other, 1, NULL, 0), PMIX_ERR_NOT_A_MEMBER,
             "Disconnect without me");
    CHECK(now_s() - t0 < 1.0, "NOT_A_MEMBER at once (%.2f s)", now_s() - t0);

    /* Never connected. */
    rank_list(all, me.nspace, 0, size, 0);
    CHECK_RC(PMIx_Disconnect(all, size, NULL, 0), PMIX_ERR_INVALID_OPERATION,
             "Disconnect before any connect");

    /* Endpoint data, put but never committed: only the connect can carry it. */
    put("ep.global", PMIX_GLOBAL, 100 + (int)me.rank);
    put("ep.remote", PMIX_REMOTE, 200 + (int)me.rank);
    put("ep.local", PMIX_LOCAL, 300 + (int)me.rank);
    put("pmix.test.reserved", PMIX_GLOBAL, 400 + (int)me.rank);
    barrier();

    /* Everyone connects over the explicit list, each in a different order. */
    rank_list(all, me.nspace, 0, size, me.rank);
    CHECK_RC(PMIx_Connect(all, size, NULL, 0), PMIX_SUCCESS, "Connect over all ranks");
    for (pmix_rank_t r = 0; r < size; r++) {
        if (r == me.rank) {
            continue;
        }
        int got = -1;
        CHECK_RC(get_imm(r, "ep.global", &got), PMIX_SUCCESS, "IMMEDIATE Get of a GLOBAL put");
        CHECK(got == 100 + (int)r, "rank %u's ep.global = %d", r, got);
        got = -1;
        CHECK_RC(get_imm(r, "ep.remote", &got), PMIX_SUCCESS, "IMMEDIATE Get of a REMOTE put");
        CHECK(got == 200 + (int)r, "rank %u's ep.remote = %d", r, got);
        CHECK(PMIX_SUCCESS != get_imm(r, "ep.local", &got), "a LOCAL put did not travel");
        CHECK(PMIX_SUCCESS != get_imm(r, "pmix.test.reserved", &got),
              "a reserved key did not travel");
    }
    barrier();

    /* Connect_nb calls back once; a blocking call inside the callback would block. */
    waiter_init(&w);
    rank_list(all, me.nspace, 0, size, size - me.rank);
    pmix_proc_t wall;
    load_proc(&wall, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect_nb(&wall, 1, NULL, 0, blocking_inside, &w), PMIX_SUCCESS,
             "Connect_nb over the wildcard");
    CHECK(waiter_wait(&w), "Connect_nb called back");
    CHECK_RC(w.status, PMIX_SUCCESS, "Connect_nb status");
    sleep_ms(100);
    CHECK(1 == w.calls, "callback ran once (%d)", w.calls);
    CHECK_RC(inner_rc, PMIX_ERR_WOULD_BLOCK, "blocking Connect inside a callback");
    barrier();

    /* Wildcard and explicit descriptions never match: even ranks use the wildcard, odd
     * ranks the list; both sides time out under PMIX_TIMEOUT = 1 s. */
    pmix_info_t tmo;
    timeout_info(&tmo, 1);
    rank_list(all, me.nspace, 0, size, 0);
    t0 = now_s();
    if (0 == me.rank % 2) {
        CHECK_RC(PMIx_Connect(&wall, 1, &tmo, 1), PMIX_ERR_TIMEOUT,
                 "wildcard set never matches an explicit one");
    } else {
        CHECK_RC(PMIx_Connect(all, size, &tmo, 1), PMIX_ERR_TIMEOUT,
                 "explicit set never matches a wildcard one");
    }
    double took = now_s() - t0;
    CHECK(took >= 0.8 && took < 5.0, "timed out after %.2f s", took);
    barrier();

    /* PMIX_TIMEOUT bounds a connect whose peer never comes. */
    if (0 == me.rank) {
        pmix_proc_t pair[2];
        load_proc(&pair[0], me.nspace, 0);
        load_proc(&pair[1], me.nspace, 1);
        t0 = now_s();
        CHECK_RC(PMIx_Connect(pair, 2, &tmo, 1), PMIX_ERR_TIMEOUT, "lonely connect times out");
        took = now_s() - t0;
        CHECK(took >= 0.8 && took < 5.0, "after %.2f s", took);
    }
    barrier();

    /* Identical set while in progress: refused; then completed by rank 1. */
    pmix_proc_t pair[2];
    load_proc(&pair[0], me.nspace, 0);
    load_proc(&pair[1], me.nspace, 1);
    waiter_init(&w);
    if (0 == me.rank) {
        CHECK_RC(PMIx_Connect_nb(pair, 2, NULL, 0, op_done, &w), PMIX_SUCCESS,
                 "first connect over {0,1}");
        pmix_proc_t rev[2] = {pair[1], pair[0]};
        CHECK_RC(PMIx_Connect(rev, 2, NULL, 0), PMIX_ERR_EXISTS,
                 "second connect over the identical set is refused");
    }
    barrier();
    if (1 == me.rank) {
        CHECK_RC(PMIx_Connect(pair, 2, NULL, 0), PMIX_SUCCESS, "rank 1 completes {0,1}");
    }
    if (0 == me.rank) {
        CHECK(waiter_wait(&w), "first connect completed");
        CHECK_RC(w.status, PMIX_SUCCESS, "first connect status");
    }
    barrier();

    /* Two different sets at once: rank 0 in {0,1} and {0,2}. */
    if (me.rank <= 2) {
        struct waiter w1, w2;
        waiter_init(&w1);
        waiter_init(&w2);
        pmix_proc_t s1[2], s2[2];
        load_proc(&s1[0], me.nspace, 0);
        load_proc(&s1[1], me.nspace, 1);
        load_proc(&s2[0], me.nspace, 2);
        load_proc(&s2[1], me.nspace, 0);
        if (me.rank != 2) {
            CHECK_RC(PMIx_Connect_nb(s1, 2, NULL, 0, op_done, &w1), PMIX_SUCCESS, "{0,1}");
            CHECK(waiter_wait(&w1) && PMIX_SUCCESS == w1.status, "{0,1} completed");
        }
        if (me.rank != 1) {
            CHECK_RC(PMIx_Connect_nb(s2, 2, NULL, 0, op_done, &w2), PMIX_SUCCESS, "{2,0}");
            CHECK(waiter_wait(&w2) && PMIX_SUCCESS == w2.status, "{2,0} completed");
        }
    }
    barrier();

    /* Disconnect the wildcard set, then the explicit one (described in yet another
     * order), then the explicit one again: nothing covers it any more. */
    waiter_init(&w);
    CHECK_RC(PMIx_Disconnect_nb(&wall, 1, NULL, 0, op_done, &w), PMIX_SUCCESS,
             "Disconnect_nb of the wildcard set");
    CHECK(waiter_wait(&w) && PMIX_SUCCESS == w.status, "Disconnect_nb completed");
    rank_list(all, me.nspace, 0, size, (me.rank + 1) % size);
    CHECK_RC(PMIx_Disconnect(all, size, NULL, 0), PMIX_SUCCESS, "Disconnect");
    barrier();
    CHECK_RC(PMIx_Disconnect(all, size, NULL, 0), PMIX_ERR_INVALID_OPERATION,
             "second Disconnect");
    barrier();

    free(all);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
