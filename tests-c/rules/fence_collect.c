/* fence_collect: rule "PMIX_COLLECT_DATA makes every participant's committed data
 * available locally afterwards: the local server holds it, so a Get with PMIX_IMMEDIATE
 * finds it" -- for every peer, every key, right after the fence. (That a fence without
 * PMIX_COLLECT_DATA exchanges nothing is rules_host's "exchange" case: only a host sees
 * what crosses nodes.)
 * Run: pmixrun -n 4 fence_collect */
#include "rules.h"

int main(void)
{
    RULES_INIT();
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "fc.k%d", k);
        CHECK_RC(put_int(PMIX_GLOBAL, key, 1000 * (int)me.rank + k), PMIX_SUCCESS, "Put");
    }
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    collect("collecting Fence");
    pmix_info_t imm;
    flag_info(&imm, PMIX_IMMEDIATE);
    int bad = 0;
    for (uint32_t r = 0; r < nprocs; r++) {
        pmix_proc_t p;
        proc_of(&p, r);
        for (int k = 0; k < 3; k++) {
            char key[32];
            int v = -1;
            snprintf(key, sizeof key, "fc.k%d", k);
            if (PMIX_SUCCESS != get_int(&p, key, &imm, 1, &v) || v != 1000 * (int)r + k) {
                bad++;
            }
        }
    }
    CHECK(0 == bad, "after PMIX_COLLECT_DATA every participant's data is there for IMMEDIATE (%d missing)",
          bad);
    PMIX_INFO_DESTRUCT(&imm);
    barrier("final Fence");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
