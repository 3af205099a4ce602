/* group: PMIx_Group_construct / _destruct with members on several nodes (the front end
 * collects the members' servers like a fence and assigns the context id).
 * 1. "mn-all" over every rank, asking for a context id and sharing PMIX_GROUP_LOCAL_CID
 *    = 1000 + rank: every member gets the same id (checked through a collecting fence),
 *    the membership of N, and reads any member's local CID qualified by the group's id.
 * 2. "mn-node" over this node's ranks, and "mn-even" over the even ranks (spanning the
 *    nodes): ids differ from mn-all's; mn-even's is the same on every member; the
 *    mn-node groups of different nodes (each formed by its node's server alone) have
 *    different ids.
 * 3. Destructs; a name destructed on every node can be constructed again.
 * 4. "mn-leave" over every rank; the last node's ranks leave it: every other member
 *    hears PMIX_GROUP_LEFT for each, and their destruct does not wait for that node.
 * Run: pmixrun --nodes K -n N group K */
#include <stdatomic.h>
#include <unistd.h>

#include "mn.h"

static atomic_int left_events = 0;

static void left_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                         size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                         void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == PMIX_GROUP_LEFT) {
        atomic_fetch_add(&left_events, 1);
    }
    if (cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static pmix_proc_t *procs_of(const char *ns, uint32_t first, uint32_t count, uint32_t step)
{
    pmix_proc_t *p = NULL;
    PMIX_PROC_CREATE(p, count);
    for (uint32_t i = 0; i < count; i++) {
        PMIX_LOAD_PROCID(&p[i], ns, first + i * step);
    }
    return p;
}

/* Construct `name` over `procs`, with a context id and PMIX_GROUP_LOCAL_CID = lcid; the
 * status, the id in *cid (0 if none) and the membership's size in *nmembers. */
static pmix_status_t construct(const char *name, pmix_proc_t *procs, size_t n, size_t lcid,
                               size_t *cid, size_t *nmembers)
{
    pmix_info_t grp[1];
    PMIX_INFO_LOAD(&grp[0], PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 1, .array = grp};
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_INFO, &darray, PMIX_DATA_ARRAY);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Group_construct(name, procs, n, info, 2, &results, &nresults);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&grp[0]);
    *cid = 0;
    *nmembers = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID)) {
            PMIx_Value_get_number(&results[i].value, cid, PMIX_SIZE);
        } else if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP) &&
                   results[i].value.type == PMIX_DATA_ARRAY && results[i].value.data.darray) {
            *nmembers = results[i].value.data.darray->size;
        }
    }
    if (results) {
        PMIX_INFO_FREE(results, nresults);
    }
    return rc;
}

/* Every rank's `key` (a size_t put just now) read after a collecting fence; how many
 * differ from `want`. */
static int differing(const char *ns, uint32_t n, const char *key, size_t want,
                     const bool *member)
{
    int bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (member && !member[r]) {
            continue;
        }
        pmix_value_t *v = NULL;
        if (PMIX_SUCCESS != mn_get(ns, r, key, NULL, NULL, 0, &v) || !v ||
            v->type != PMIX_SIZE || v->data.size != want) {
            fprintf(stderr, "rank %u's %s is not %zu\n", r, key, want);
            bad++;
        }
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
    }
    return bad;
}

static void put_size(const char *key, size_t v)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_SIZE;
    val.data.size = v;
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, "PMIx_Put");
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 2;
    if (n < 4 || k < 2) {
        CHECK(n >= 4 && k >= 2, "at least 4 ranks on 2 nodes");
        CHECK_DONE();
    }
    uint32_t node = mn_node_of(n, k, me.rank);
    size_t cid = 0, nm = 0;
    pmix_proc_t *all = procs_of(me.nspace, 0, n, 1);
    CHECK_RC(construct("mn-all", all, n, 1000 + me.rank, &cid, &nm), PMIX_SUCCESS,
             "construct mn-all");
    CHECK(cid != 0, "mn-all has a context id");
    CHECK(nm == n, "mn-all has %u members (results say %zu)", n, nm);

    /* The same id everywhere. */
    put_size("mn-cid", cid);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
    CHECK(differing(me.nspace, n, "mn-cid", cid, NULL) == 0, "every member has id %zu", cid);

    /* Another node's member's local CID, qualified by the group's id. */
    pmix_rank_t peer = mn_first(n, k, (node + 1) % k);
    pmix_info_t q[1];
    PMIX_INFO_LOAD(&q[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q[0]);
    pmix_proc_t pp;
    PMIX_LOAD_PROCID(&pp, me.nspace, peer);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&pp, PMIX_GROUP_LOCAL_CID, q, 1, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_SIZE && v->data.size == 1000 + peer,
          "rank %u reads rank %u's local CID %u (rc %s)", me.rank, peer, 1000 + peer,
          PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }

    /* This node's group, and the even ranks' group across the nodes. */
    size_t ncid = 0, ecid = 0;
    uint32_t first = mn_first(n, k, node), cnt = mn_count(n, k, node);
    pmix_proc_t *local = procs_of(me.nspace, first, cnt, 1);
    CHECK_RC(construct("mn-node", local, cnt, 0, &ncid, &nm), PMIX_SUCCESS, "construct mn-node");
    CHECK(nm == cnt && ncid != 0 && ncid != cid, "mn-node: %u members, its own id (%zu vs %zu)",
          cnt, ncid, cid);
    put_size("mn-ncid", ncid);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    bool even = me.rank % 2 == 0;
    uint32_t neven = (n + 1) / 2;
    bool member[256] = {false};
    for (uint32_t r = 0; r < n && r < 256; r += 2) {
        member[r] = true;
    }
    pmix_proc_t *evens = procs_of(me.nspace, 0, neven, 2);
    if (even) {
        CHECK_RC(construct("mn-even", evens, neven, 0, &ecid, &nm), PMIX_SUCCESS,
                 "construct mn-even");
        CHECK(nm == neven && ecid != 0 && ecid != cid, "mn-even: %u members, its own id", neven);
        put_size("mn-ecid", ecid);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    }
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
    for (uint32_t r = 0; r < n; r++) {
        v = NULL;
        rc = mn_get(me.nspace, r, "mn-ncid", NULL, NULL, 0, &v);
        bool same = mn_node_of(n, k, r) == node;
        CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_SIZE && (v->data.size == ncid) == same,
              "rank %u's node group id %zu is %s mine (%zu)", r, v ? v->data.size : 0,
              same ? "the same as" : "not", ncid);
        if (v) {
            PMIX_VALUE_RELEASE(v);
        }
    }
    if (even) {
        CHECK(differing(me.nspace, n, "mn-ecid", ecid, member) == 0, "every even rank has id %zu",
              ecid);
        CHECK_RC(PMIx_Group_destruct("mn-even", NULL, 0), PMIX_SUCCESS, "destruct mn-even");
    }
    CHECK_RC(PMIx_Group_destruct("mn-node", NULL, 0), PMIX_SUCCESS, "destruct mn-node");
    CHECK_RC(PMIx_Group_destruct("mn-all", NULL, 0), PMIX_SUCCESS, "destruct mn-all");
    size_t cid2 = 0;
    CHECK_RC(construct("mn-all", all, n, 0, &cid2, &nm), PMIX_SUCCESS, "construct mn-all again");
    CHECK(cid2 != 0 && cid2 != cid, "the new mn-all has a new id (%zu, was %zu)", cid2, cid);
    CHECK_RC(PMIx_Group_destruct("mn-all", NULL, 0), PMIX_SUCCESS, "destruct mn-all again");

    pmix_status_t code = PMIX_GROUP_LEFT;
    int ref = PMIx_Register_event_handler(&code, 1, NULL, 0, left_handler, NULL, NULL);
    CHECK(ref >= 0, "PMIx_Register_event_handler: %d", ref);
    CHECK_RC(construct("mn-leave", all, n, 0, &cid2, &nm), PMIX_SUCCESS, "construct mn-leave");
    uint32_t last = k - 1, nleavers = mn_count(n, k, last);
    if (node == last) {
        CHECK_RC(PMIx_Group_leave("mn-leave", NULL, 0), PMIX_SUCCESS, "PMIx_Group_leave");
    } else {
        for (int i = 0; i < 1000 && atomic_load(&left_events) < (int)nleavers; i++) {
            usleep(10000);
        }
        CHECK(atomic_load(&left_events) == (int)nleavers,
              "rank %u heard %d PMIX_GROUP_LEFT, want %u", me.rank, atomic_load(&left_events),
              nleavers);
        CHECK_RC(PMIx_Group_destruct("mn-leave", NULL, 0), PMIX_SUCCESS,
                 "destruct mn-leave without the last node");
    }
    PMIX_PROC_FREE(all, n);
    PMIX_PROC_FREE(local, cnt);
    PMIX_PROC_FREE(evens, neven);
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
