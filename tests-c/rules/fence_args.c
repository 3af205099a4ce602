/* fence_args: who takes part in a fence.
 *   rule "NULL procs means the caller's namespace": ranks passing NULL and ranks passing
 *        {nspace, WILDCARD} are in the same fence;
 *   rule "NULL procs with nprocs > 0 is BAD_PARAM" (both forms, no callback);
 *   rule "the order of procs is irrelevant": every rank lists all ranks in its own order;
 *   rule "a caller not among the participants gets PMIX_ERR_NOT_A_MEMBER at once".
 * Run: pmixrun -n 4 fence_args */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    CHECK(nprocs >= 2, "needs 2 ranks or more (%u)", nprocs);

    /* NULL = own namespace as a wildcard. */
    pmix_status_t rc;
    if (me.rank % 2) {
        rc = PMIx_Fence(&job, 1, NULL, 0);
    } else {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
    }
    CHECK_RC(rc, PMIX_SUCCESS, "NULL procs and {nspace, WILDCARD} are the same fence");

    /* BAD_PARAM */
    struct waiter w;
    waiter_init(&w);
    CHECK_RC(PMIx_Fence(NULL, 3, NULL, 0), PMIX_ERR_BAD_PARAM, "Fence: NULL procs, nprocs 3");
    CHECK_RC(PMIx_Fence_nb(NULL, 3, NULL, 0, op_done, &w), PMIX_ERR_BAD_PARAM,
             "Fence_nb: NULL procs, nprocs 3");

    /* Order irrelevant: rank r lists the ranks starting at r, backwards for odd ranks. */
    pmix_proc_t *list = calloc(nprocs, sizeof *list);
    for (uint32_t i = 0; i < nprocs; i++) {
        uint32_t r = (me.rank % 2) ? (me.rank + nprocs - i) % nprocs : (me.rank + i) % nprocs;
        proc_of(&list[i], r);
    }
    double t0 = now();
    CHECK_RC(PMIx_Fence(list, nprocs, NULL, 0), PMIX_SUCCESS,
             "explicit lists in different orders are the same fence");
    CHECK(now() - t0 < 10.0, "(%.2f s)", now() - t0);
    free(list);

    /* Not a member. */
    pmix_proc_t others[2];
    proc_of(&others[0], (me.rank + 1) % nprocs);
    PMIX_LOAD_PROCID(&others[1], "rules.other.nspace", PMIX_RANK_WILDCARD);
    t0 = now();
    CHECK_RC(PMIx_Fence(others, 1, NULL, 0), PMIX_ERR_NOT_A_MEMBER,
             "Fence over a peer only: NOT_A_MEMBER");
    CHECK_RC(PMIx_Fence(&others[1], 1, NULL, 0), PMIX_ERR_NOT_A_MEMBER,
             "Fence over another namespace: NOT_A_MEMBER");
    CHECK_RC(PMIx_Fence_nb(others, 2, NULL, 0, op_done, &w), PMIX_ERR_NOT_A_MEMBER,
             "Fence_nb over others: NOT_A_MEMBER");
    CHECK_RC(PMIx_Fence_nb(others, 1, NULL, 0, NULL, NULL), PMIX_ERR_NOT_A_MEMBER,
             "Fence_nb with NULL cbfunc over others: NOT_A_MEMBER");
    CHECK(now() - t0 < 0.5, "NOT_A_MEMBER at once (%.2f s)", now() - t0);
    sleep_ms(100);
    CHECK(0 == waiter_calls(&w), "no callback for a refused fence");

    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
