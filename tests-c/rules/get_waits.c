/* get_waits: rule "without OPTIONAL/IMMEDIATE a Get for a non-reserved key that is not
 * there yet waits until the target posts and commits it". Rank 1 puts its key after a
 * second and commits it half a second later, without any fence; rank 0's Get (blocking)
 * and Get_nb (callback) both return the value, and not before the commit.
 * Run: pmixrun -n 2 get_waits */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    barrier("start Fence");
    double t0 = now();
    if (1 == me.rank) {
        sleep_ms(1000);
        CHECK_RC(put_int(PMIX_GLOBAL, "gw.late", 42), PMIX_SUCCESS, "Put after 1 s");
        sleep_ms(500);
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit after 1.5 s");
    } else if (0 == me.rank) {
        pmix_proc_t one;
        proc_of(&one, 1);
        struct waiter w;
        waiter_init(&w);
        CHECK_RC(PMIx_Get_nb(&one, "gw.late", NULL, 0, value_done, &w), PMIX_SUCCESS,
                 "Get_nb of a key not posted yet is accepted");
        int v = -1;
        pmix_status_t rc = get_int(&one, "gw.late", NULL, 0, &v);
        double dt = now() - t0;
        CHECK(PMIX_SUCCESS == rc && 42 == v, "the Get waits and returns the committed value (%s, %d)",
              PMIx_Error_string(rc), v);
        CHECK(dt >= 1.3, "... not before the commit (%.2f s; a Put alone is not enough)", dt);
        CHECK(waiter_wait(&w, 20), "Get_nb callback ran");
        CHECK(PMIX_SUCCESS == w.status && w.value && w.value->type == PMIX_INT &&
                  42 == w.value->data.integer,
              "Get_nb delivers the value once it is committed (%s)", PMIx_Error_string(w.status));
        waiter_release(&w);
    }
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
