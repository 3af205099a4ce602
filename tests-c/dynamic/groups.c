/* groups: PMIx_Group_* under pmixrun.
 * Run: pmixrun -n 4 groups
 *  - bad name -> BAD_PARAM; an explicit list without the caller -> NOT_A_MEMBER;
 *  - ranks 0-2 construct "gA" (each lists the members in its own order) with
 *    PMIX_GROUP_ASSIGN_CONTEXT_ID: all get the same context id and the membership, the
 *    other members' (uncommitted) endpoint data is found with PMIX_IMMEDIATE, and
 *    handlers registered for PMIX_GROUP_MEMBERSHIP_UPDATE see it;
 *  - ranks 2-3 construct "gB" with _nb at the same time: another context id;
 *  - a group name in Connect and Fence stands for its members; queries and Get of
 *    PMIX_GROUP_NAMES report the groups;
 *  - invitations: rank 0 invites ranks 1 and 3; rank 1 accepts, rank 3 declines:
 *    without PMIX_GROUP_OPTIONAL both calls end in PMIX_GROUP_CONSTRUCT_ABORT; with it
 *    the group forms from ranks 0 and 1;
 *  - rank 1 leaves that group and rank 0 hears PMIX_GROUP_LEFT;
 *  - destruct: all members, then NOT_FOUND for a second one. */
#include "dyn.h"

static pmix_proc_t me;
static struct waiter update_w, left_w, join_w, invited_w;
static char invited_grp[PMIX_MAX_NSLEN + 1];

#define SIMPLE_HANDLER(NAME, W)                                                           \
    static void NAME(size_t id, pmix_status_t status, const pmix_proc_t *source,         \
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],             \
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,         \
                     void *cbdata)                                                        \
    {                                                                                     \
        (void)id;                                                                         \
        (void)source;                                                                     \
        (void)info;                                                                       \
        (void)ninfo;                                                                      \
        (void)results;                                                                    \
        (void)nresults;                                                                   \
        waiter_done(&W, status);                                                          \
        if (cbfunc) {                                                                     \
            cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);              \
        }                                                                                 \
    }

SIMPLE_HANDLER(update_handler, update_w)
SIMPLE_HANDLER(left_handler, left_w)

static void join_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbdata;
    if (release_fn) {
        release_fn(release_cbdata);
    }
    waiter_done(&join_w, status);
}

/* Rank 1 accepts invitations, rank 3 declines them. */
static void invited_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID)) {
            PMIX_LOAD_NSPACE(invited_grp, info[i].value.data.string);
        }
    }
    pmix_group_opt_t opt = 1 == me.rank ? PMIX_GROUP_ACCEPT : PMIX_GROUP_DECLINE;
    pmix_status_t rc = PMIx_Group_join_nb(invited_grp, source, opt, NULL, 0, join_cb, NULL);
    if (PMIX_SUCCESS != rc) {
        waiter_done(&join_w, rc);
    }
    waiter_done(&invited_w, PMIX_SUCCESS);
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static size_t ctx_of(pmix_info_t *res, size_t n, size_t *members)
{
    size_t ctx = 0;
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID)) {
            ctx = res[i].value.data.size;
        }
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) && members) {
            *members = res[i].value.data.darray->size;
        }
    }
    return ctx;
}

static void barrier(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "barrier");
}

struct infowait {
    struct waiter w;
    size_t ctx;
};

static void construct_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct infowait *iw = cbdata;
    iw->ctx = ctx_of(info, ninfo, NULL);
    if (release_fn) {
        release_fn(release_cbdata);
    }
    waiter_done(&iw->w, status);
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    waiter_init(&update_w);
    waiter_init(&left_w);
    waiter_init(&join_w);
    waiter_init(&invited_w);
    pmix_status_t code = PMIX_GROUP_MEMBERSHIP_UPDATE;
    PMIx_Register_event_handler(&code, 1, NULL, 0, update_handler, NULL, NULL);
    code = PMIX_GROUP_LEFT;
    PMIx_Register_event_handler(&code, 1, NULL, 0, left_handler, NULL, NULL);
    code = PMIX_GROUP_INVITED;
    PMIx_Register_event_handler(&code, 1, NULL, 0, invited_handler, NULL, NULL);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    bool t = true;
    pmix_info_t ctx;
    PMIX_INFO_LOAD(&ctx, PMIX_GROUP_ASSIGN_CONTEXT_ID, &t, PMIX_BOOL);

    /* Bad arguments. */
    pmix_proc_t pair[2];
    load_proc(&pair[0], me.nspace, 0);
    load_proc(&pair[1], me.nspace, 1);
    CHECK_RC(PMIx_Group_construct(NULL, pair, 2, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
             "NULL group name");
    if (3 == me.rank) {
        CHECK_RC(PMIx_Group_construct("g0", pair, 2, NULL, 0, &res, &nres),
                 PMIX_ERR_NOT_A_MEMBER, "a group without the caller");
    }

    /* Endpoint data, never committed. */
    int ep = 500 + (int)me.rank;
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &ep, PMIX_INT);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "grp.ep", &val), PMIX_SUCCESS, "put endpoint");
    barrier();

    size_t ctx_a = 0, ctx_b = 0;
    struct infowait bw;
    waiter_init(&bw.w);
    if (me.rank <= 2) {
        pmix_proc_t three[3];
        rank_list(three, me.nspace, 0, 3, me.rank);
        CHECK_RC(PMIx_Group_construct("gA", three, 3, &ctx, 1, &res, &nres), PMIX_SUCCESS,
                 "construct gA");
        size_t members = 0;
        ctx_a = ctx_of(res, nres, &members);
        CHECK(ctx_a > 0 && 3 == members, "gA: context id %zu, %zu members", ctx_a, members);
        PMIX_INFO_FREE(res, nres);
        pmix_info_t imm;
        PMIX_INFO_LOAD(&imm, PMIX_IMMEDIATE, &t, PMIX_BOOL);
        for (pmix_rank_t r = 0; r <= 2; r++) {
            if (r == me.rank) {
                continue;
            }
            pmix_proc_t p;
            pmix_value_t *v = NULL;
            load_proc(&p, me.nspace, r);
            pmix_status_t rc = PMIx_Get(&p, "grp.ep", &imm, 1, &v);
            CHECK(PMIX_SUCCESS == rc && v && 500 + (int)r == v->data.integer,
                  "gA member %u's endpoint with PMIX_IMMEDIATE (rc %d)", r, rc);
            if (v) {
                PMIX_VALUE_RELEASE(v);
            }
        }
        CHECK(waiter_wait_n(&update_w, 1, 10), "PMIX_GROUP_MEMBERSHIP_UPDATE arrived");
    }
    if (me.rank >= 2) {
        pmix_proc_t two[2];
        rank_list(two, me.nspace, 2, 2, me.rank);
        CHECK_RC(PMIx_Group_construct_nb("gB", two, 2, &ctx, 1, construct_cb, &bw),
                 PMIX_SUCCESS, "construct gB (_nb)");
        CHECK(waiter_wait(&bw.w) && PMIX_SUCCESS == bw.w.status, "gB built");
        ctx_b = bw.ctx;
        CHECK(ctx_b > 0 && (2 != me.rank || ctx_b != ctx_a), "gB context id %zu", ctx_b);
    }
    barrier();

    /* A group name stands for its members. */
    if (me.rank <= 2) {
        pmix_proc_t g;
        load_proc(&g, "gA", PMIX_RANK_WILDCARD);
        CHECK_RC(PMIx_Fence(&g, 1, NULL, 0), PMIX_SUCCESS, "fence over gA");
        CHECK_RC(PMIx_Connect(&g, 1, NULL, 0), PMIX_SUCCESS, "connect over gA");
        CHECK_RC(PMIx_Disconnect(&g, 1, NULL, 0), PMIX_SUCCESS, "disconnect over gA");
        pmix_value_t *v = NULL;
        CHECK_RC(PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v), PMIX_SUCCESS,
                 "Get PMIX_GROUP_NAMES");
        bool found = false;
        if (v && PMIX_DATA_ARRAY == v->type) {
            for (size_t i = 0; i < v->data.darray->size; i++) {
                found |= 0 == strcmp(((char **)v->data.darray->array)[i], "gA");
            }
        }
        CHECK(found, "rank %u is in gA", me.rank);
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
    }
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NUM_GROUPS);
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "query number of groups");
    if (1 == nres) {
        pmix_info_t *r = res[0].value.data.darray->array;
        CHECK(2 == r[0].value.data.size, "two groups (%zu)", r[0].value.data.size);
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    barrier();

    /* Invitations. The leader names itself too: only then is it a member of the group
     * that forms (as OpenPMIx does; a leader that invites only others stays out). */
    pmix_proc_t inv[3];
    load_proc(&inv[0], me.nspace, 1);
    load_proc(&inv[1], me.nspace, 3);
    load_proc(&inv[2], me.nspace, 0);
    if (0 == me.rank) {
        CHECK_RC(PMIx_Group_invite("gI", inv, 3, NULL, 0, &res, &nres),
                 PMIX_GROUP_CONSTRUCT_ABORT, "an invitation someone declines");
    }
    if (1 == me.rank || 3 == me.rank) {
        CHECK(waiter_wait(&invited_w), "invited to gI");
        CHECK(waiter_wait(&join_w), "join completed");
        CHECK_RC(join_w.status, 1 == me.rank ? PMIX_GROUP_CONSTRUCT_ABORT : PMIX_SUCCESS,
                 "join outcome");
        waiter_init(&invited_w);
        waiter_init(&join_w);
    }
    barrier();
    if (0 == me.rank) {
        pmix_info_t opt;
        PMIX_INFO_LOAD(&opt, PMIX_GROUP_OPTIONAL, &t, PMIX_BOOL);
        CHECK_RC(PMIx_Group_invite("gJ", inv, 3, &opt, 1, &res, &nres), PMIX_SUCCESS,
                 "an optional invitation");
        size_t members = 0;
        ctx_of(res, nres, &members);
        CHECK(2 == members, "gJ formed from ranks 0 and 1 (%zu)", members);
        PMIX_INFO_FREE(res, nres);
    }
    if (1 == me.rank || 3 == me.rank) {
        CHECK(waiter_wait(&invited_w), "invited to gJ");
        CHECK(waiter_wait(&join_w) && PMIX_SUCCESS == join_w.status, "join gJ completed");
    }
    barrier();
    if (1 == me.rank) {
        CHECK_RC(PMIx_Group_leave("gJ", NULL, 0), PMIX_SUCCESS, "rank 1 leaves gJ");
    }
    if (0 == me.rank) {
        CHECK(waiter_wait(&left_w), "rank 0 heard PMIX_GROUP_LEFT");
        CHECK_RC(PMIx_Group_destruct("gJ", NULL, 0), PMIX_SUCCESS, "destruct gJ alone");
    }
    barrier();

    /* Destruct. */
    if (me.rank <= 2) {
        CHECK_RC(PMIx_Group_destruct("gA", NULL, 0), PMIX_SUCCESS, "destruct gA");
        CHECK_RC(PMIx_Group_destruct("gA", NULL, 0), PMIX_ERR_NOT_FOUND, "gA is gone");
    }
    if (me.rank >= 2) {
        struct waiter w;
        waiter_init(&w);
        CHECK_RC(PMIx_Group_destruct_nb("gB", NULL, 0, op_done, &w), PMIX_SUCCESS,
                 "destruct gB (_nb)");
        CHECK(waiter_wait(&w) && PMIX_SUCCESS == w.status, "gB destructed");
    }
    barrier();
    PMIX_INFO_DESTRUCT(&ctx);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
