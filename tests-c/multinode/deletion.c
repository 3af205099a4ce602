/* deletion: a key deleted with PMIX_DEL_GLOBAL. Processes on the deleting process's
 * node stop seeing it once the deletion is committed (no fence needed); processes on
 * other nodes once the next collecting fence, which carries the deletion, completes.
 * Run: pmixrun --nodes K -n N deletion K */
#include "mn.h"

int main(int argc, char **argv)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    uint32_t k = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    if (n == 0 || k == 0) {
        CHECK(k > 0, "usage: deletion K");
        CHECK_DONE();
    }
    const char *ns = me.nspace;
    bool same = mn_node_of(n, k, me.rank) == mn_node_of(n, k, 0);
    uint32_t v = 0;

    if (me.rank == 0) {
        CHECK_RC(mn_put_u32(PMIX_GLOBAL, "del.gone", 11), PMIX_SUCCESS, "Put del.gone");
        CHECK_RC(mn_put_u32(PMIX_GLOBAL, "del.stay", 22), PMIX_SUCCESS, "Put del.stay");
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    }
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence");
    if (me.rank != 0) {
        /* Read it, so it sits in this process's cache too. */
        CHECK(PMIX_SUCCESS == mn_get_u32(ns, 0, "del.gone", NULL, &v) && v == 11,
              "rank 0's del.gone is visible before the deletion");
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence");

    if (me.rank == 0) {
        CHECK_RC(PMIx_Put(PMIX_DEL_GLOBAL, "del.gone", NULL), PMIX_SUCCESS, "Put PMIX_DEL_GLOBAL");
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit the deletion");
        CHECK_RC(mn_get_u32(ns, 0, "del.gone", PMIX_OPTIONAL, &v), PMIX_ERR_NOT_FOUND,
                 "my own deleted key is gone at once");
    }
    /* A barrier only: no data moves. */
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence after the deletion");
    if (me.rank != 0 && same) {
        CHECK_RC(mn_get_u32(ns, 0, "del.gone", PMIX_IMMEDIATE, &v), PMIX_ERR_NOT_FOUND,
                 "on rank 0's node the key is gone at commit");
    }
    CHECK_RC(mn_fence(true), PMIX_SUCCESS, "collecting Fence carrying the deletion");
    if (me.rank != 0) {
        CHECK_RC(mn_get_u32(ns, 0, "del.gone", PMIX_IMMEDIATE, &v), PMIX_ERR_NOT_FOUND,
                 same ? "still gone on rank 0's node" : "gone on another node after the fence");
        CHECK(PMIX_SUCCESS == mn_get_u32(ns, 0, "del.stay", NULL, &v) && v == 22,
              "the other key stays");
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
