/* query: PMIx_Query_info(_nb), process sets, PMIx_Resolve_peers/nodes and PMIx_Log
 * under pmixrun.
 * Run: pmixrun -n 2 --pset alpha query : -n 2 --pset beta query
 *  - namespaces, job size (by PMIX_NSPACE), process table and local process table
 *    (pids as registered), number and names of psets, pset membership, attribute support;
 *  - results come as one PMIX_QUERY_RESULTS per query (qualifiers first);
 *  - a query with an unknown key besides a known one: PMIX_ERR_PARTIAL_SUCCESS; only
 *    unknown keys: PMIX_ERR_NOT_FOUND; NULL queries / PMIX_PROCID with PMIX_NSPACE:
 *    PMIX_ERR_BAD_PARAM; the _nb form calls back once;
 *  - PMIx_Get of PMIX_PSET_NAMES names the caller's set;
 *  - Resolve_peers (this node, our namespace) gives every rank; Resolve_nodes our host;
 *  - PMIx_Log to PMIX_LOG_STDERR reaches pmixrun's stderr; an unknown channel is
 *    PMIX_ERR_NOT_SUPPORTED. */
#include "dyn.h"

#include <unistd.h>

static pmix_proc_t me;

/* The value of `key` inside the PMIX_QUERY_RESULTS entries of `res`. */
static const pmix_value_t *find(const pmix_info_t *res, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (!PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) ||
            PMIX_DATA_ARRAY != res[i].value.type) {
            continue;
        }
        const pmix_data_array_t *d = res[i].value.data.darray;
        const pmix_info_t *items = d->array;
        for (size_t j = 0; j < d->size; j++) {
            if (PMIX_CHECK_KEY(&items[j], key)) {
                return &items[j].value;
            }
        }
    }
    return NULL;
}

static pmix_status_t query1(const char *key, pmix_info_t *quals, size_t nquals,
                            pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, key);
    if (nquals) {
        PMIX_INFO_CREATE(q.qualifiers, nquals);
        q.nqual = nquals;
        for (size_t i = 0; i < nquals; i++) {
            PMIX_INFO_XFER(&q.qualifiers[i], &quals[i]);
        }
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

struct qwait {
    struct waiter w;
    size_t n;
    pmix_release_cbfunc_t rel;
    void *relcb;
};

static void query_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct qwait *q = cbdata;
    (void)info;
    q->n = ninfo;
    if (release_fn) {
        release_fn(release_cbdata);
    }
    waiter_done(&q->w, status);
}

int main(void)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (check_failures) {
        CHECK_DONE();
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_value_t *v;
    pmix_info_t q[2];

    /* Namespaces. */
    CHECK_RC(query1(PMIX_QUERY_NAMESPACES, NULL, 0, &res, &nres), PMIX_SUCCESS, "namespaces");
    v = find(res, nres, PMIX_QUERY_NAMESPACES);
    CHECK(v && PMIX_STRING == v->type && strstr(v->data.string, me.nspace), "our namespace is listed");
    PMIX_INFO_FREE(res, nres);

    /* Job size of a named namespace; the qualifiers come first in the results. */
    PMIX_INFO_LOAD(&q[0], PMIX_NSPACE, me.nspace, PMIX_STRING);
    CHECK_RC(query1(PMIX_JOB_SIZE, q, 1, &res, &nres), PMIX_SUCCESS, "job size");
    v = find(res, nres, PMIX_JOB_SIZE);
    CHECK(v && PMIX_UINT32 == v->type && 4 == v->data.uint32, "job size 4");
    CHECK(1 == nres && PMIX_CHECK_KEY(&((pmix_info_t *)res[0].value.data.darray->array)[0],
                                      PMIX_QUERY_QUALIFIERS),
          "one PMIX_QUERY_RESULTS, qualifiers first");
    PMIX_INFO_FREE(res, nres);

    /* Process tables. */
    for (int local = 0; local < 2; local++) {
        const char *k = local ? PMIX_QUERY_LOCAL_PROC_TABLE : PMIX_QUERY_PROC_TABLE;
        CHECK_RC(query1(k, q, 1, &res, &nres), PMIX_SUCCESS, k);
        v = find(res, nres, k);
        CHECK(v && PMIX_DATA_ARRAY == v->type && PMIX_PROC_INFO == v->data.darray->type &&
                  4 == v->data.darray->size,
              "%s has 4 entries", k);
        if (v && PMIX_DATA_ARRAY == v->type && 4 == v->data.darray->size) {
            pmix_proc_info_t *pi = v->data.darray->array;
            for (pmix_rank_t r = 0; r < 4; r++) {
                pmix_proc_t p;
                pmix_value_t *pid = NULL;
                load_proc(&p, me.nspace, r);
                PMIx_Get(&p, PMIX_PROC_PID, NULL, 0, &pid);
                CHECK(pi[r].proc.rank == r && pid && pi[r].pid == pid->data.pid &&
                          pi[r].hostname && pi[r].hostname[0] && pi[r].executable_name &&
                          strstr(pi[r].executable_name, "query"),
                      "%s entry %u (pid %d)", k, r, (int)pi[r].pid);
                if (pid) {
                    PMIX_VALUE_RELEASE(pid);
                }
            }
            if (me.rank == 0) {
                CHECK(pi[0].state != PMIX_PROC_STATE_UNDEF, "state set (%d)", pi[0].state);
            }
        }
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&q[0]);

    /* Process sets. */
    CHECK_RC(query1(PMIX_QUERY_NUM_PSETS, NULL, 0, &res, &nres), PMIX_SUCCESS, "num psets");
    v = find(res, nres, PMIX_QUERY_NUM_PSETS);
    CHECK(v && PMIX_SIZE == v->type && 2 == v->data.size, "two psets");
    PMIX_INFO_FREE(res, nres);
    CHECK_RC(query1(PMIX_QUERY_PSET_NAMES, NULL, 0, &res, &nres), PMIX_SUCCESS, "pset names");
    v = find(res, nres, PMIX_QUERY_PSET_NAMES);
    CHECK(v && PMIX_STRING == v->type && 0 == strcmp(v->data.string, "alpha,beta"),
          "names %s", v && PMIX_STRING == v->type ? v->data.string : "?");
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_LOAD(&q[0], PMIX_PSET_NAME, "beta", PMIX_STRING);
    CHECK_RC(query1(PMIX_QUERY_PSET_MEMBERSHIP, q, 1, &res, &nres), PMIX_SUCCESS,
             "pset membership");
    v = find(res, nres, PMIX_QUERY_PSET_MEMBERSHIP);
    CHECK(v && PMIX_DATA_ARRAY == v->type && 2 == v->data.darray->size &&
              2 == ((pmix_proc_t *)v->data.darray->array)[0].rank,
          "beta holds ranks 2 and 3");
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&q[0]);
    pmix_value_t *val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &val), PMIX_SUCCESS, "Get PMIX_PSET_NAMES");
    CHECK(val && PMIX_DATA_ARRAY == val->type && 1 == val->data.darray->size &&
              0 == strcmp(((char **)val->data.darray->array)[0], me.rank < 2 ? "alpha" : "beta"),
          "rank %u is in its app's set", me.rank);
    if (val) {
        PMIX_VALUE_RELEASE(val);
    }

    /* Attribute support. */
    pmix_query_t aq;
    PMIX_QUERY_CONSTRUCT(&aq);
    PMIx_Argv_append_nosize(&aq.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    PMIx_Argv_append_nosize(&aq.keys, "PMIx_Get");
    PMIX_INFO_CREATE(aq.qualifiers, 1);
    aq.nqual = 1;
    bool t = true;
    PMIX_INFO_LOAD(&aq.qualifiers[0], PMIX_CLIENT_ATTRIBUTES, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Query_info(&aq, 1, &res, &nres), PMIX_SUCCESS, "attribute support");
    v = find(res, nres, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    bool timeout_listed = false;
    if (v && PMIX_DATA_ARRAY == v->type) {
        pmix_info_t *fns = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            if (PMIX_CHECK_KEY(&fns[i], "PMIx_Get") && PMIX_DATA_ARRAY == fns[i].value.type) {
                pmix_regattr_t *ra = fns[i].value.data.darray->array;
                for (size_t j = 0; j < fns[i].value.data.darray->size; j++) {
                    if (0 == strcmp(ra[j].name, "PMIX_TIMEOUT") &&
                        0 == strcmp(ra[j].string, PMIX_TIMEOUT) && PMIX_INT == ra[j].type) {
                        timeout_listed = true;
                    }
                }
            }
        }
    }
    CHECK(timeout_listed, "PMIx_Get supports PMIX_TIMEOUT");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&aq);

    /* Partial and missing answers; bad arguments. */
    pmix_query_t two[2];
    PMIX_QUERY_CONSTRUCT(&two[0]);
    PMIX_QUERY_CONSTRUCT(&two[1]);
    PMIx_Argv_append_nosize(&two[0].keys, PMIX_QUERY_NAMESPACES);
    PMIx_Argv_append_nosize(&two[1].keys, "pmix.qry.no-such-key");
    CHECK_RC(PMIx_Query_info(two, 2, &res, &nres), PMIX_ERR_PARTIAL_SUCCESS, "one of two keys");
    CHECK(1 == nres, "one result (%zu)", nres);
    PMIX_INFO_FREE(res, nres);
    CHECK_RC(PMIx_Query_info(&two[1], 1, &res, &nres), PMIX_ERR_NOT_FOUND, "only unknown keys");
    CHECK(NULL == res && 0 == nres, "no results");
    CHECK_RC(PMIx_Query_info(NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM, "NULL queries");
    struct qwait qw;
    waiter_init(&qw.w);
    CHECK_RC(PMIx_Query_info_nb(two, 2, query_cb, &qw), PMIX_SUCCESS, "Query_info_nb");
    CHECK(waiter_wait(&qw.w), "Query_info_nb called back");
    CHECK(PMIX_ERR_PARTIAL_SUCCESS == qw.w.status && 1 == qw.n, "nb: partial, 1 result");
    sleep_ms(50);
    CHECK(1 == qw.w.calls, "once");
    PMIX_QUERY_DESTRUCT(&two[0]);
    PMIX_QUERY_DESTRUCT(&two[1]);
    pmix_query_t bad;
    PMIX_QUERY_CONSTRUCT(&bad);
    PMIx_Argv_append_nosize(&bad.keys, PMIX_JOB_SIZE);
    PMIX_INFO_CREATE(bad.qualifiers, 2);
    bad.nqual = 2;
    PMIX_INFO_LOAD(&bad.qualifiers[0], PMIX_PROCID, &me, PMIX_PROC);
    PMIX_INFO_LOAD(&bad.qualifiers[1], PMIX_NSPACE, me.nspace, PMIX_STRING);
    CHECK_RC(PMIx_Query_info(&bad, 1, &res, &nres), PMIX_ERR_BAD_PARAM,
             "PMIX_PROCID together with PMIX_NSPACE");
    PMIX_QUERY_DESTRUCT(&bad);

    /* Resolve peers and nodes. */
    pmix_proc_t *peers = NULL;
    size_t npeers = 0;
    CHECK_RC(PMIx_Resolve_peers(NULL, me.nspace, &peers, &npeers), PMIX_SUCCESS, "Resolve_peers");
    CHECK(4 == npeers, "4 peers on this node (%zu)", npeers);
    PMIX_PROC_FREE(peers, npeers);
    char host[256] = "";
    pmix_value_t *hv = NULL;
    if (PMIX_SUCCESS == PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &hv) && hv) {
        snprintf(host, sizeof(host), "%s", hv->data.string);
        PMIX_VALUE_RELEASE(hv);
    }
    CHECK_RC(PMIx_Resolve_peers(host, NULL, &peers, &npeers), PMIX_SUCCESS,
             "Resolve_peers of every namespace");
    CHECK(npeers >= 4, "at least our 4 (%zu)", npeers);
    PMIX_PROC_FREE(peers, npeers);
    char *nodes = NULL;
    CHECK_RC(PMIx_Resolve_nodes(me.nspace, &nodes), PMIX_SUCCESS, "Resolve_nodes");
    CHECK(nodes && 0 == strcmp(nodes, host), "nodes %s", nodes ? nodes : "?");
    free(nodes);

    /* Log. */
    char line[128];
    snprintf(line, sizeof(line), "query log line from rank %u", me.rank);
    PMIX_INFO_LOAD(&q[0], PMIX_LOG_STDERR, line, PMIX_STRING);
    CHECK_RC(PMIx_Log(q, 1, NULL, 0), PMIX_SUCCESS, "Log to stderr");
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_LOAD(&q[0], PMIX_LOG_EMAIL, "nobody", PMIX_STRING);
    CHECK_RC(PMIx_Log(q, 1, NULL, 0), PMIX_ERR_NOT_SUPPORTED, "Log by email");
    PMIX_INFO_DESTRUCT(&q[0]);

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
