/* fence_timeout: rule "PMIX_TIMEOUT bounds the fence for every participant". Rank 2
 * never enters. Rank 1 enters first without a timeout; rank 0 enters later with
 * PMIX_TIMEOUT=1. Both are released with PMIX_ERR_TIMEOUT about a second after rank 0's
 * arrival, and so is a Fence_nb through its callback.
 * Run: pmixrun -n 3 fence_timeout */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    CHECK(3 == nprocs, "3 ranks (%u)", nprocs);
    pmix_info_t to;
    timeout_info(&to, 1);
    barrier("start Fence");
    double t0 = now();
    if (0 == me.rank) {
        sleep_ms(300);
        pmix_status_t rc = PMIx_Fence(NULL, 0, &to, 1);
        double dt = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "the participant that gave PMIX_TIMEOUT times out");
        CHECK(dt >= 1.1 && dt < 4.0, "... a second after it entered (%.2f s)", dt);
    } else if (1 == me.rank) {
        pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
        double dt = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "a participant without PMIX_TIMEOUT is released too");
        CHECK(dt >= 1.1 && dt < 4.0, "... at the same time (%.2f s)", dt);
    } else {
        sleep_ms(2500); /* never enters that fence */
    }
    barrier("resync Fence");

    /* Fence_nb: the callback reports the timeout. */
    t0 = now();
    if (2 != me.rank) {
        struct waiter w;
        waiter_init(&w);
        CHECK_RC(PMIx_Fence_nb(NULL, 0, &to, 1, op_done, &w), PMIX_SUCCESS, "Fence_nb accepted");
        CHECK(waiter_wait(&w, 10), "Fence_nb callback ran");
        double dt = now() - t0;
        CHECK(PMIX_ERR_TIMEOUT == w.status && dt >= 0.8 && dt < 4.0,
              "Fence_nb: PMIX_ERR_TIMEOUT through the callback after %.2f s", dt);
    } else {
        sleep_ms(2500);
    }
    PMIX_INFO_DESTRUCT(&to);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
