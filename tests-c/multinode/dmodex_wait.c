/* dmodex_wait: after a non-collecting fence, a Get of a remote process's key that it
 * has not committed yet waits for it (through direct modex), bounded by PMIX_TIMEOUT.
 * Run: pmixrun --nodes K -n N dmodex_wait   (rank 0 and rank N-1 on different nodes) */
#include <sys/time.h>
#include <unistd.h>

#include "mn.h"

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int main(void)
{
    pmix_proc_t me;
    uint32_t n = mn_init(&me);
    if (n < 2) {
        CHECK(n >= 2, "at least 2 ranks");
        CHECK_DONE();
    }
    const char *ns = me.nspace;
    pmix_rank_t last = n - 1;
    CHECK_RC(mn_put_u32(PMIX_GLOBAL, "dw.early", 7 + me.rank), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "Fence (no data)");

    if (me.rank == last) {
        sleep(1);
        CHECK_RC(mn_put_u32(PMIX_GLOBAL, "dw.late", 4242), PMIX_SUCCESS, "Put late");
        CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit late");
    } else if (me.rank == 0) {
        pmix_value_t *v = NULL;
        double t0 = now();
        pmix_status_t rc = mn_get(ns, last, "dw.late", NULL, NULL, 20, &v);
        double t = now() - t0;
        CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_UINT32 && v->data.uint32 == 4242,
              "Get waits for a key committed later on another node: %s after %.2f s",
              PMIx_Error_string(rc), t);
        CHECK(t > 0.5, "it did wait (%.2f s)", t);
        if (v) PMIX_VALUE_RELEASE(v);
        /* Its other data came with the same answer. */
        uint32_t e = 0;
        CHECK_RC(mn_get_u32(ns, last, "dw.early", PMIX_OPTIONAL, &e), PMIX_SUCCESS,
                 "the rest of its data is cached");
        CHECK(e == 7 + last, "dw.early of rank %u is %u", last, e);
        t0 = now();
        rc = mn_get(ns, last, "dw.never", NULL, NULL, 1, &v);
        t = now() - t0;
        CHECK_RC(rc, PMIX_ERR_TIMEOUT, "Get of a key never committed ends with PMIX_TIMEOUT");
        CHECK(t > 0.8 && t < 10, "after about 1 s (%.2f s)", t);
        if (v) PMIX_VALUE_RELEASE(v);
    }
    CHECK_RC(mn_fence(false), PMIX_SUCCESS, "final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
