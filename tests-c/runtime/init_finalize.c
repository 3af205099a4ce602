/* init_finalize: PMIx_Init/PMIx_Initialized/PMIx_Finalize under pmixrun, including
 * nested (reference-counted) and repeated Init/Finalize in one process.
 * Run: pmixrun -n N init_finalize */
#include <pmix.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(void)
{
    pmix_proc_t me, again;
    const char *ns = getenv("PMIX_NAMESPACE");
    const char *rk = getenv("PMIX_RANK");

    CHECK(0 == PMIx_Initialized(), "not initialized before PMIx_Init");
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init");
    if (PMIX_SUCCESS != rc) {
        CHECK_DONE(); /* nothing else can work */
    }
    CHECK(1 == PMIx_Initialized(), "initialized after PMIx_Init");
    CHECK(NULL != ns && 0 == strcmp(me.nspace, ns), "nspace %s matches PMIX_NAMESPACE %s",
          me.nspace, ns ? ns : "(unset)");
    CHECK(NULL != rk && me.rank == (pmix_rank_t)strtoul(rk, NULL, 10),
          "rank %u matches PMIX_RANK %s", me.rank, rk ? rk : "(unset)");

    /* Nested: a second Init returns the same identity; the library stays up until the
     * matching number of Finalize calls. */
    rc = PMIx_Init(&again, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "nested PMIx_Init");
    CHECK(PMIX_CHECK_PROCID(&me, &again), "nested Init returns the same proc");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "inner PMIx_Finalize");
    CHECK(1 == PMIx_Initialized(), "still initialized after the inner Finalize");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence while still initialized");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "outer PMIx_Finalize");
    CHECK(0 == PMIx_Initialized(), "not initialized after the last Finalize");

    /* Repeated: the process connects again, as the same rank, each time. */
    for (int round = 0; round < 3; round++) {
        pmix_proc_t p;
        rc = PMIx_Init(&p, NULL, 0);
        CHECK_RC(rc, PMIX_SUCCESS, "PMIx_Init again");
        CHECK(PMIX_CHECK_PROCID(&me, &p), "round %d: same proc %s:%u", round, p.nspace, p.rank);
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence after re-init");
        CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize again");
        CHECK(0 == PMIx_Initialized(), "round %d: finalized", round);
    }
    CHECK_DONE();
}
