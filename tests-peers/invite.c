/* invite: PMIx_Group_invite as OpenPMIx master's programs see it.
 * Run: pmixrun -n 4 invite   (at least 3 ranks; also with --nodes 2)
 *  1. rank 0 invites ranks 1..N-1 but not itself, asking for a context id: the
 *     invitees (accepting from their PMIX_GROUP_INVITED handler with join_nb) get
 *     PMIX_GROUP_CONSTRUCT_COMPLETE carrying PMIX_GROUP_CONTEXT_ID; rank 0's invite
 *     succeeds, rank 0 is not in the membership and hears no completion; the invitees
 *     fence across the group (rank 0 not taking part) and destruct it;
 *  2. rank 0 invites everyone, itself included, without PMIX_GROUP_OPTIONAL; the last
 *     rank declines: rank 0's invite returns PMIX_GROUP_CONSTRUCT_ABORT and every rank,
 *     the leader and the decliner included, receives the PMIX_GROUP_CONSTRUCT_ABORT
 *     event; nobody receives a completion. */
#include "../tests-c/dynamic/dyn.h"

static pmix_proc_t me;
static uint32_t nprocs;
static struct waiter complete_w, abort_w;
static size_t event_cid = SIZE_MAX;
static size_t event_members;
static bool decline_round;

static void invited(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)results, (void)nresults;
    const char *grp = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID)) {
            grp = info[i].value.data.string;
        }
    }
    bool no = decline_round && me.rank == nprocs - 1;
    if (NULL != grp) {
        PMIx_Group_join_nb(grp, source, no ? PMIX_GROUP_DECLINE : PMIX_GROUP_ACCEPT, NULL, 0,
                           NULL, NULL);
    }
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void completed(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID)) {
            PMIx_Value_get_number(&info[i].value, &event_cid, PMIX_SIZE);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP) &&
                   PMIX_DATA_ARRAY == info[i].value.type) {
            event_members = info[i].value.data.darray->size;
        }
    }
    waiter_done(&complete_w, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void aborted(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    waiter_done(&abort_w, status);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void reg(pmix_status_t code, pmix_notification_fn_t fn)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, fn, NULL, NULL);
    CHECK(rc >= 0, "register a handler for %s (%d)", PMIx_Error_string(code), rc);
}

static void job_fence(void)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Fence(&all, 1, NULL, 0), PMIX_SUCCESS, "job fence");
}

static size_t members_in(pmix_info_t *res, size_t nres, bool *has_me)
{
    size_t n = 0;
    *has_me = false;
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
            PMIX_DATA_ARRAY == res[i].value.type) {
            pmix_proc_t *p = (pmix_proc_t *)res[i].value.data.darray->array;
            n = res[i].value.data.darray->size;
            for (size_t k = 0; k < n; k++) {
                *has_me = *has_me || PMIX_CHECK_PROCID(&p[k], &me);
            }
        }
    }
    return n;
}

/* 1: a coordinator forms a group of the others. */
static void invite_others(void)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    if (0 == me.rank) {
        pmix_proc_t *procs;
        PMIX_PROC_CREATE(procs, nprocs - 1);
        for (uint32_t r = 1; r < nprocs; r++) {
            PMIX_LOAD_PROCID(&procs[r - 1], me.nspace, r);
        }
        pmix_info_t dir;
        PMIX_INFO_LOAD(&dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
        CHECK_RC(PMIx_Group_invite("others", procs, nprocs - 1, &dir, 1, &res, &nres),
                 PMIX_SUCCESS, "rank 0 invites the others, not itself");
        bool has_me;
        size_t n = members_in(res, nres, &has_me);
        CHECK(n == nprocs - 1 && !has_me, "the group is the %zu invitees, without rank 0", n);
        PMIX_INFO_DESTRUCT(&dir);
        PMIX_PROC_FREE(procs, nprocs - 1);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
        CHECK(!waiter_wait_n(&complete_w, 1, 2), "rank 0 hears no completion: not a member");
        return;
    }
    CHECK(waiter_wait_n(&complete_w, 1, 20), "invitee got PMIX_GROUP_CONSTRUCT_COMPLETE");
    CHECK(SIZE_MAX != event_cid, "the completion carries PMIX_GROUP_CONTEXT_ID (%zu)", event_cid);
    CHECK(event_members == nprocs - 1, "its membership has the %zu invitees", event_members);
    pmix_proc_t grp;
    PMIX_LOAD_PROCID(&grp, "others", PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Fence(&grp, 1, NULL, 0), PMIX_SUCCESS, "fence across the group");
    CHECK_RC(PMIx_Group_destruct("others", NULL, 0), PMIX_SUCCESS, "destruct the group");
}

/* 2: an all-or-nothing invitation that the last rank declines. */
static void invite_declined(void)
{
    decline_round = true;
    waiter_init(&complete_w);
    /* Rank 0 sat out round 1's fence: without this one its second invitation could
     * reach an invitee still in round 1 (decline_round not yet set), which accepts. */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "everyone is in round 2");
    if (0 == me.rank) {
        pmix_proc_t *procs;
        pmix_info_t *res = NULL;
        size_t nres = 0;
        PMIX_PROC_CREATE(procs, nprocs);
        for (uint32_t r = 0; r < nprocs; r++) {
            PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
        }
        CHECK_RC(PMIx_Group_invite("declined", procs, nprocs, NULL, 0, &res, &nres),
                 PMIX_GROUP_CONSTRUCT_ABORT, "the invitation the last rank declines aborts");
        PMIX_PROC_FREE(procs, nprocs);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
    }
    CHECK(waiter_wait_n(&abort_w, 1, 20), "rank %u got PMIX_GROUP_CONSTRUCT_ABORT", me.rank);
    CHECK(0 == complete_w.calls, "and no PMIX_GROUP_CONSTRUCT_COMPLETE");
}

int main(void)
{
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    waiter_init(&complete_w);
    waiter_init(&abort_w);
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "init");
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS, "job size");
    nprocs = NULL != val ? val->data.uint32 : 0;
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
    CHECK(nprocs >= 3, "at least 3 ranks (%u)", nprocs);
    reg(PMIX_GROUP_INVITED, invited);
    reg(PMIX_GROUP_CONSTRUCT_COMPLETE, completed);
    reg(PMIX_GROUP_CONSTRUCT_ABORT, aborted);
    job_fence();
    if (nprocs >= 3) {
        invite_others();
        job_fence();
        invite_declined();
        job_fence();
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "finalize");
    CHECK_DONE();
}
