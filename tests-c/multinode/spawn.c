/* spawn: PMIx_Spawn from a rank on another node than the first (pmixrun runs the child
 * job on the spawning rank's node), then PMIx_Connect between the whole parent job
 * (on every node) and the child job.
 * The last rank spawns 2 copies of this program ("child"); the parents learn the
 * child namespace from a collecting fence. Each child checks PMIX_PARENT_ID, fences
 * with its sibling and puts "mn-child" = 100 + rank. Every parent and child then
 * connects over both jobs; every parent reads both children's "mn-child", every child
 * the parent rank 0's "mn-parent". Before connecting, every parent (on any node) resolves
 * the child job's one node and its 2 ranks there, and reads its PMIX_JOB_SIZE. Disconnect,
 * finalize.
 * Run: pmixrun --nodes K -n N spawn */
#include <unistd.h>

#include "mn.h"

static pmix_status_t connect_jobs(const char *a, const char *b, bool disconnect)
{
    pmix_proc_t procs[2];
    PMIX_LOAD_PROCID(&procs[0], a, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], b, PMIX_RANK_WILDCARD);
    return disconnect ? PMIx_Disconnect(procs, 2, NULL, 0) : PMIx_Connect(procs, 2, NULL, 0);
}

static int child(pmix_proc_t *me)
{
    pmix_value_t *v = NULL;
    pmix_proc_t parent;
    pmix_status_t rc = PMIx_Get(me, PMIX_PARENT_ID, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_PROC, "PMIX_PARENT_ID (rc %s)",
          PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_PROC) {
        CHECK_DONE();
    }
    memcpy(&parent, v->data.proc, sizeof parent);
    PMIX_VALUE_RELEASE(v);
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "mn-child", 100 + me->rank), PMIX_SUCCESS, "PMIx_Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "the child job's collecting Fence");
    uint32_t x = 0;
    CHECK_RC(mn_get_u32(me->nspace, 1 - me->rank, "mn-child", NULL, &x), PMIX_SUCCESS,
             "Get of the sibling's key");
    CHECK(x == 101 - me->rank, "the sibling's mn-child is %u (got %u)", 101 - me->rank, x);
    CHECK_RC(connect_jobs(parent.nspace, me->nspace, false), PMIX_SUCCESS,
             "PMIx_Connect with the parent job");
    CHECK_RC(mn_get_u32(parent.nspace, 0, "mn-parent", NULL, &x), PMIX_SUCCESS,
             "Get of parent rank 0's key");
    CHECK(x == 4242, "parent rank 0's mn-parent is 4242 (got %u)", x);
    CHECK_RC(connect_jobs(parent.nspace, me->nspace, true), PMIX_SUCCESS, "PMIx_Disconnect");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize (child)");
    CHECK_DONE();
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n == 0) {
        CHECK_DONE();
    }
    if (argc > 1 && 0 == strcmp(argv[1], "child")) {
        return child(&me);
    }
    CHECK(n >= 2, "at least 2 parent ranks");
    char ns[PMIX_MAX_NSLEN + 1] = {0};
    if (me.rank == n - 1) {
        CHECK_RC(mn_spawn_children(argv[0], 2, ns), PMIX_SUCCESS, "PMIx_Spawn");
        CHECK_RC(mn_put_string(PMIX_GLOBAL, "mn-child-ns", ns), PMIX_SUCCESS, "PMIx_Put");
    }
    if (me.rank == 0) {
        CHECK_RC(mn_put_u32(PMIX_GLOBAL, "mn-parent", 4242), PMIX_SUCCESS, "PMIx_Put");
    }
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence (the child namespace)");
    pmix_value_t *v = NULL;
    CHECK_RC(mn_get(me.nspace, n - 1, "mn-child-ns", NULL, NULL, 0, &v), PMIX_SUCCESS,
             "Get of the child namespace");
    if (!v || v->type != PMIX_STRING || !v->data.string) {
        CHECK(false, "the child namespace is a string");
        CHECK_DONE();
    }
    snprintf(ns, sizeof ns, "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    /* The child job is known on every node, not only on the one hosting it: its one
     * node, and its 2 ranks there. */
    char *nodes = NULL;
    pmix_status_t rc = PMIx_Resolve_nodes(ns, &nodes);
    CHECK(rc == PMIX_SUCCESS && nodes && nodes[0] && !strchr(nodes, ','),
          "rank %u resolves the child job's one node: %s (rc %s)", me.rank, nodes ? nodes : "-",
          PMIx_Error_string(rc));
    pmix_proc_t *peers = NULL;
    size_t npeers = 0;
    rc = PMIx_Resolve_peers(nodes, ns, &peers, &npeers);
    CHECK(rc == PMIX_SUCCESS && npeers == 2, "rank %u resolves %zu child ranks on %s (rc %s)",
          me.rank, npeers, nodes ? nodes : "-", PMIx_Error_string(rc));
    if (peers) {
        PMIX_PROC_FREE(peers, npeers);
    }
    free(nodes);
    pmix_proc_t cjob;
    PMIX_LOAD_PROCID(&cjob, ns, PMIX_RANK_WILDCARD);
    v = NULL;
    rc = PMIx_Get(&cjob, PMIX_JOB_SIZE, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32 && v->data.uint32 == 2,
          "rank %u reads the child job's size 2 (rc %s)", me.rank, PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    CHECK_RC(connect_jobs(me.nspace, ns, false), PMIX_SUCCESS, "PMIx_Connect with the child job");
    for (pmix_rank_t r = 0; r < 2; r++) {
        uint32_t x = 0;
        CHECK_RC(mn_get_u32(ns, r, "mn-child", NULL, &x), PMIX_SUCCESS, "Get of a child's key");
        CHECK(x == 100 + r, "child %u's mn-child is %u (got %u)", r, 100 + r, x);
    }
    CHECK_RC(connect_jobs(me.nspace, ns, true), PMIX_SUCCESS, "PMIx_Disconnect");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
