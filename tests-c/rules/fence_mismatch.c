/* fence_mismatch: rule "a WILDCARD description and an explicit list never match each
 * other". Rank 0 names the job as {nspace, WILDCARD}, the others list every rank
 * explicitly; nobody completes, and PMIX_TIMEOUT (2 s) ends both fences for everyone.
 * A fence described the same way afterwards works.
 *
 * Both timeouts run from the server's receipt of each request. The ranks enter the
 * mismatched fences right after a barrier, and wait one more second after theirs timed
 * out before the next fence: otherwise a rank that arrived later still has its request
 * pending when a faster rank's next fence comes, and that one matches it (rank 0's
 * WILDCARD fence met rank 1's WILDCARD barrier in the ASan build, whose ranks start at
 * different speeds: rank 0 saw SUCCESS, and its barrier PROC_TERM_WO_SYNC).
 * Run: pmixrun -n 2 fence_mismatch */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    pmix_info_t to;
    timeout_info(&to, 2);
    pmix_proc_t *list = calloc(nprocs, sizeof *list);
    for (uint32_t i = 0; i < nprocs; i++) {
        proc_of(&list[i], i);
    }
    barrier("line up before the mismatched fences");
    double t0 = now();
    pmix_status_t rc;
    if (0 == me.rank) {
        rc = PMIx_Fence(&job, 1, &to, 1);
    } else {
        rc = PMIx_Fence(list, nprocs, &to, 1);
    }
    double dt = now() - t0;
    CHECK_RC(rc, PMIX_ERR_TIMEOUT, "wildcard and explicit list do not match: the fence times out");
    CHECK(dt >= 1.5 && dt < 6.0, "... after PMIX_TIMEOUT (%.2f s)", dt);
    free(list);
    PMIX_INFO_DESTRUCT(&to);
    sleep(1); /* the other rank's mismatched fence ends too (see the top) */
    barrier("a fence described alike completes");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
