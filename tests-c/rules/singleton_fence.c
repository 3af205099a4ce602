/* singleton_fence: rule "a singleton's Fence returns SUCCESS and Fence_nb
 * PMIX_OPERATION_SUCCEEDED, without a server" (and never calls the callback); the
 * blocking form of Fence_nb (NULL cbfunc) returns SUCCESS too. Data put by the singleton
 * reads back after a collecting fence.
 * Run without any launcher: env -i singleton_fence */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    CHECK(1 == nprocs, "a job of one (%u)", nprocs);
    struct waiter w;
    waiter_init(&w);
    CHECK_RC(put_int(PMIX_GLOBAL, "sf.k", 9), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    double t0 = now();
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "singleton Fence: SUCCESS");
    collect("singleton collecting Fence: SUCCESS");
    CHECK_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &w), PMIX_OPERATION_SUCCEEDED,
             "singleton Fence_nb: OPERATION_SUCCEEDED");
    CHECK_RC(PMIx_Fence_nb(&me, 1, NULL, 0, op_done, &w), PMIX_OPERATION_SUCCEEDED,
             "singleton Fence_nb over {self}: OPERATION_SUCCEEDED");
    CHECK_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL), PMIX_SUCCESS,
             "singleton Fence_nb with NULL cbfunc: SUCCESS");
    CHECK(now() - t0 < 0.5, "at once (%.2f s)", now() - t0);
    sleep_ms(200);
    CHECK(0 == waiter_calls(&w), "no callback");
    int v = -1;
    CHECK_RC(get_int(&me, "sf.k", NULL, 0, &v), PMIX_SUCCESS, "own data after the fences");
    CHECK(9 == v, "sf.k = %d", v);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
