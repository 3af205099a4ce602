/* fence_nb_rules: what PMIx_Fence_nb returns.
 *   rule "Fence_nb returns PMIX_OPERATION_SUCCEEDED when satisfied at once, and then never
 *        calls cbfunc": procs naming only the caller ({self}) is satisfied at once. A
 *        fence over the whole namespace of a job of one goes through the server and
 *        completes through the callback, exactly once (Open MPI 4.1.4 starts a job of one
 *        that way and takes anything but PMIX_SUCCESS for a failure; see
 *        Client::sole_participant);
 *   rule "a NULL cbfunc makes Fence_nb blocking, returning the fence's result": it returns
 *        only once every participant arrived (rank 1 arrives a second late), and returns
 *        the fence's error when there is one (NOT_A_MEMBER).
 * Run: pmixrun -n 1 fence_nb_rules; pmixrun -n 2 fence_nb_rules */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    struct waiter w;
    waiter_init(&w);
    pmix_status_t rc = PMIx_Fence_nb(&me, 1, NULL, 0, op_done, &w);
    CHECK_RC(rc, PMIX_OPERATION_SUCCEEDED, "Fence_nb over {self} is satisfied at once");
    CHECK_RC(PMIx_Fence(&me, 1, NULL, 0), PMIX_SUCCESS, "Fence over {self}");
    pmix_info_t col;
    flag_info(&col, PMIX_COLLECT_DATA);
    rc = PMIx_Fence_nb(&me, 1, &col, 1, op_done, &w);
    CHECK_RC(rc, PMIX_OPERATION_SUCCEEDED, "collecting Fence_nb over {self}: at once");
    PMIX_INFO_DESTRUCT(&col);
    sleep_ms(300);
    CHECK(0 == waiter_calls(&w), "cbfunc is never called after OPERATION_SUCCEEDED");
    if (1 == nprocs) {
        struct waiter w1;
        waiter_init(&w1);
        rc = PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &w1);
        CHECK_RC(rc, PMIX_SUCCESS, "Fence_nb over a job of one: accepted (as OpenPMIx)");
        CHECK(waiter_wait(&w1, 10) && PMIX_SUCCESS == w1.status, "... completes through cbfunc");
        sleep_ms(200);
        CHECK(1 == waiter_calls(&w1), "... exactly once (%d)", waiter_calls(&w1));
    }

    if (nprocs > 1) {
        barrier("start Fence");
        double t0 = now();
        if (1 == me.rank) {
            sleep_ms(1000);
        }
        rc = PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL);
        double dt = now() - t0;
        CHECK_RC(rc, PMIX_SUCCESS, "Fence_nb with a NULL cbfunc returns the fence's result");
        if (0 == me.rank) {
            CHECK(dt >= 0.8, "... once every participant arrived (%.2f s)", dt);
        }
        pmix_proc_t other;
        proc_of(&other, (me.rank + 1) % nprocs);
        CHECK_RC(PMIx_Fence_nb(&other, 1, NULL, 0, NULL, NULL), PMIX_ERR_NOT_A_MEMBER,
                 "Fence_nb with a NULL cbfunc returns the fence's error");
    }
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
