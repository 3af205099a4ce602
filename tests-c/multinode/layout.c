/* layout: node-level reserved keys are right on every node of a multi-node job.
 * Run: pmixrun --nodes K -n N layout K
 * Each rank knows pmixrun's block placement and checks its own node's keys (job level),
 * every process's host, node id and local rank, and every node's keys selected with
 * PMIX_NODE_INFO and a PMIX_HOSTNAME or PMIX_NODEID qualifier. */
#include "mn.h"

static char *peers_of(uint32_t n, uint32_t k, uint32_t node)
{
    static char buf[4096];
    size_t off = 0;
    buf[0] = '\0';
    uint32_t first = mn_first(n, k, node);
    for (uint32_t r = first; r < first + mn_count(n, k, node); r++) {
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%u", r == first ? "" : ",", r);
    }
    return buf;
}

static bool is_str(pmix_value_t *v, const char *want)
{
    return v && v->type == PMIX_STRING && v->data.string && 0 == strcmp(v->data.string, want);
}

/* Get a node-level key for node `node`, selected by host name (by_name) or node id. */
static pmix_status_t node_get(const char *ns, uint32_t node, bool by_name, const char *key,
                              pmix_value_t **out)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    bool yes = true;
    char host[32];
    snprintf(host, sizeof host, "node%u", node);
    PMIX_INFO_LOAD(&info[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    if (by_name) {
        PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, host, PMIX_STRING);
    } else {
        PMIX_INFO_LOAD(&info[1], PMIX_NODEID, &node, PMIX_UINT32);
    }
    pmix_status_t rc = PMIx_Get(&job, key, info, 2, out);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    if (n == 0 || k == 0) {
        CHECK(k > 0, "usage: layout K");
        CHECK_DONE();
    }
    const char *ns = me.nspace;
    uint32_t node = mn_node_of(n, k, me.rank);
    char host[32], list[1024] = "";
    snprintf(host, sizeof host, "node%u", node);
    for (uint32_t i = 0; i < k; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%snode%u", i ? "," : "", i);
    }
    pmix_value_t *v = NULL;

    /* Job level: this node's view and the whole job's. */
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_NUM_NODES, NULL, NULL, 0, &v) &&
              v && v->type == PMIX_UINT32 && v->data.uint32 == k,
          "PMIX_NUM_NODES is %u", k);
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_NODE_LIST, NULL, NULL, 0, &v) &&
              is_str(v, list),
          "PMIX_NODE_LIST is %s (got %s)", list, v && v->type == PMIX_STRING ? v->data.string : "?");
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, NULL, NULL, 0, &v) &&
              v && v->type == PMIX_UINT32 && v->data.uint32 == mn_count(n, k, node),
          "PMIX_LOCAL_SIZE is %u on %s", mn_count(n, k, node), host);
    if (v) PMIX_VALUE_RELEASE(v);
    const char *peers = peers_of(n, k, node);
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL, NULL, 0, &v) &&
              is_str(v, peers),
          "PMIX_LOCAL_PEERS is %s on %s", peers, host);
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_LOCALLDR, NULL, NULL, 0, &v) && v &&
              v->type == PMIX_PROC_RANK && v->data.rank == mn_first(n, k, node),
          "PMIX_LOCALLDR is %u", mn_first(n, k, node));
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PROCS, NULL, NULL, 0, &v) && v &&
              v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_PROC &&
              v->data.darray->size == mn_count(n, k, node) &&
              ((pmix_proc_t *)v->data.darray->array)[0].rank == mn_first(n, k, node),
          "PMIX_LOCAL_PROCS lists this node's %u ranks", mn_count(n, k, node));
    if (v) PMIX_VALUE_RELEASE(v);

    /* Myself. */
    CHECK(PMIX_SUCCESS == mn_get(ns, me.rank, PMIX_HOSTNAME, NULL, NULL, 0, &v) && is_str(v, host),
          "my PMIX_HOSTNAME is %s", host);
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, me.rank, PMIX_NODEID, NULL, NULL, 0, &v) && v &&
              v->type == PMIX_UINT32 && v->data.uint32 == node,
          "my PMIX_NODEID is %u", node);
    if (v) PMIX_VALUE_RELEASE(v);
    CHECK(PMIX_SUCCESS == mn_get(ns, me.rank, PMIX_NODE_RANK, NULL, NULL, 0, &v) && v &&
              v->type == PMIX_UINT16 && v->data.uint16 == me.rank - mn_first(n, k, node),
          "my PMIX_NODE_RANK is %u", me.rank - mn_first(n, k, node));
    if (v) PMIX_VALUE_RELEASE(v);

    /* Every process, local or remote. */
    uint32_t bad = 0;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t qn = mn_node_of(n, k, q);
        char qh[32];
        snprintf(qh, sizeof qh, "node%u", qn);
        if (PMIX_SUCCESS != mn_get(ns, q, PMIX_HOSTNAME, NULL, NULL, 0, &v) || !is_str(v, qh)) {
            bad++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
        if (PMIX_SUCCESS != mn_get(ns, q, PMIX_NODEID, NULL, NULL, 0, &v) || !v ||
            v->type != PMIX_UINT32 || v->data.uint32 != qn) {
            bad++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
        if (PMIX_SUCCESS != mn_get(ns, q, PMIX_LOCAL_RANK, NULL, NULL, 0, &v) || !v ||
            v->type != PMIX_UINT16 || v->data.uint16 != q - mn_first(n, k, qn)) {
            bad++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
    }
    CHECK(0 == bad, "host, node id and local rank of all %u ranks (%u wrong)", n, bad);

    /* Every node, selected by name and by id. */
    bad = 0;
    for (uint32_t j = 0; j < k; j++) {
        const char *pj = peers_of(n, k, j);
        if (PMIX_SUCCESS != node_get(ns, j, true, PMIX_LOCAL_PEERS, &v) || !is_str(v, pj)) {
            bad++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
        if (PMIX_SUCCESS != node_get(ns, j, false, PMIX_LOCAL_SIZE, &v) || !v ||
            v->type != PMIX_UINT32 || v->data.uint32 != mn_count(n, k, j)) {
            bad++;
        }
        if (v) PMIX_VALUE_RELEASE(v);
    }
    CHECK(0 == bad, "PMIX_NODE_INFO of all %u nodes by name and id (%u wrong)", k, bad);

    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
