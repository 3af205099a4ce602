/* scopes: PMIX_LOCAL data is seen only on its node, PMIX_REMOTE only on other nodes,
 * PMIX_GLOBAL everywhere; a key posted outside the reader's scope answers
 * PMIX_ERR_EXISTS_OUTSIDE_SCOPE. After a collecting fence the data is at every server;
 * after a non-collecting one a remote peer's data comes through direct modex.
 * Run: pmixrun --nodes K -n N scopes K collect|nocollect */
#include "mn.h"

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 2 ? (uint32_t)atoi(argv[1]) : 0;
    if (n == 0 || k == 0) {
        CHECK(k > 0, "usage: scopes K collect|nocollect");
        CHECK_DONE();
    }
    bool collect = 0 == strcmp(argv[2], "collect");
    const char *ns = me.nspace;
    uint32_t node = mn_node_of(n, k, me.rank);

    CHECK_RC(mn_put_u32(PMIX_LOCAL, "sc.local", 100 + me.rank), PMIX_SUCCESS, "Put LOCAL");
    CHECK_RC(mn_put_u32(PMIX_REMOTE, "sc.remote", 200 + me.rank), PMIX_SUCCESS, "Put REMOTE");
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "sc.global", 300 + me.rank), PMIX_SUCCESS, "Put GLOBAL");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(mn_fence(collect), PMIX_SUCCESS, collect ? "collecting Fence" : "Fence");

    uint32_t bad_local = 0, bad_remote = 0;
    for (uint32_t q = 0; q < n; q++) {
        if (q == me.rank) {
            continue;
        }
        bool same = mn_node_of(n, k, q) == node;
        uint32_t v = 0;
        /* The first Get of a remote peer names a key it may see, so the direct modex
         * of a non-collecting run fetches its data for this node once. */
        const char *first = same ? "sc.local" : "sc.remote";
        pmix_status_t rc = mn_get_u32(ns, q, first, NULL, &v);
        bool ok = PMIX_SUCCESS == rc && v == (same ? 100u : 200u) + q;
        rc = mn_get_u32(ns, q, same ? "sc.remote" : "sc.local", NULL, &v);
        ok = ok && PMIX_ERR_EXISTS_OUTSIDE_SCOPE == rc;
        if (PMIX_ERR_EXISTS_OUTSIDE_SCOPE != rc) {
            printf("rank %u: key outside scope of rank %u (%s node): %s\n", me.rank, q,
                   same ? "same" : "other", PMIx_Error_string(rc));
        }
        rc = mn_get_u32(ns, q, "sc.global", NULL, &v);
        ok = ok && PMIX_SUCCESS == rc && v == 300 + q;
        if (!ok) {
            if (same) {
                bad_local++;
            } else {
                bad_remote++;
            }
        }
    }
    CHECK(0 == bad_local, "scopes of the peers on my node (%u wrong)", bad_local);
    CHECK(0 == bad_remote, "scopes of the peers on other nodes (%u wrong)", bad_remote);
    /* A key nobody posted stays NOT_FOUND (IMMEDIATE: do not wait for it). */
    uint32_t v = 0;
    CHECK_RC(mn_get_u32(ns, (me.rank + 1) % n, "sc.none", PMIX_IMMEDIATE, &v), PMIX_ERR_NOT_FOUND,
             "Get of a key never posted");

    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
