/* mixed: the servers disagree on delta modex (pmixrun --node-env gives one node
 * PMIX_MCA_pmix_server_fence_delta_modex=1). A collecting fence then fails with
 * PMIX_ERR_BAD_PARAM on every rank and none of the rejected exchange is stored; a
 * fence that collects no data still works.
 * Run: pmixrun --nodes K -n N --node-env 1:PMIX_MCA_pmix_server_fence_delta_modex=1 mixed K */
#include "mn.h"

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    if (n < 2 || k < 2) {
        CHECK(k >= 2, "usage: mixed K (K >= 2)");
        CHECK_DONE();
    }
    uint32_t node = mn_node_of(n, k, me.rank);
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "mx.value", 5 + me.rank), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(mn_fence(true), PMIX_ERR_BAD_PARAM,
             "collecting Fence between servers with different delta-modex settings");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "a Fence without data still works");
    uint32_t v = 0, wrong = 0;
    for (uint32_t q = 0; q < n; q++) {
        if (q == me.rank) {
            continue;
        }
        pmix_status_t rc = mn_get_u32(me.nspace, q, "mx.value", PMIX_IMMEDIATE, &v);
        bool same = mn_node_of(n, k, q) == node;
        /* A peer on my node is known to my server; no other node's data was stored. */
        if (same ? (PMIX_SUCCESS != rc || v != 5 + q) : PMIX_ERR_NOT_FOUND != rc) {
            wrong++;
        }
    }
    CHECK(0 == wrong, "nothing of the rejected exchange was stored (%u wrong)", wrong);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
