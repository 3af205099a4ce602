/* fence_subset: fences over a subset of the job. Even and odd ranks fence separately
 * (collecting), each participant listing the participants in its own order; then each
 * group reads its members' data. Finally everyone fences together.
 * Run: pmixrun -n N fence_subset   (N >= 4) */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

int main(void)
{
    pmix_proc_t me, job;
    RT_INIT(&me);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t n = rt_job_size(me.nspace, 0);
    CHECK(n >= 4, "job size %u >= 4", n);
    if (n < 4) {
        CHECK_DONE();
    }

    pmix_value_t val;
    val.type = PMIX_UINT32;
    val.data.uint32 = 1000 + me.rank;
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "fs.value", &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");

    /* My group: ranks with my parity, listed starting after me (the order differs
     * between participants and must not matter). */
    uint32_t parity = me.rank % 2, count = 0;
    for (uint32_t r = parity; r < n; r += 2) {
        count++;
    }
    pmix_proc_t *procs = calloc(count, sizeof *procs);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = (me.rank + 2 + 2 * i) % n;
        if (r % 2 == parity && k < count) {
            bool dup = false;
            for (uint32_t j = 0; j < k; j++) {
                dup |= procs[j].rank == r;
            }
            if (!dup) {
                PMIX_LOAD_PROCID(&procs[k], me.nspace, r);
                k++;
            }
        }
    }
    CHECK(k == count, "group of %u ranks listed", count);

    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(procs, k, &info, 1), PMIX_SUCCESS, "collecting Fence of my parity group");
    PMIX_INFO_DESTRUCT(&info);

    uint32_t bad = 0;
    for (uint32_t j = 0; j < k; j++) {
        pmix_value_t *got = NULL;
        pmix_status_t rc = PMIx_Get(&procs[j], "fs.value", NULL, 0, &got);
        if (PMIX_SUCCESS != rc || !got || got->type != PMIX_UINT32 ||
            got->data.uint32 != 1000 + procs[j].rank) {
            bad++;
        }
        if (got) {
            PMIX_VALUE_RELEASE(got);
        }
    }
    CHECK(0 == bad, "values of the %u group members (%u wrong)", k, bad);

    /* A second subset fence, non-collecting, in the same groups. */
    CHECK_RC(PMIx_Fence(procs, k, NULL, 0), PMIX_SUCCESS, "non-collecting Fence of the group");
    free(procs);

    /* A fence whose participants do not include the caller is refused at once. */
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, me.nspace, (me.rank + 1) % n);
    pmix_status_t rc = PMIx_Fence(&other, 1, NULL, 0);
#ifdef PMIX_ERR_NOT_A_MEMBER
    CHECK_RC(rc, PMIX_ERR_NOT_A_MEMBER, "Fence over a set without me");
#else
    CHECK(PMIX_SUCCESS != rc, "Fence over a set without me fails (%s)", PMIx_Error_string(rc));
#endif

    /* Everyone, collecting: now the other group's values are here too. */
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "collecting Fence of the job");
    PMIX_INFO_DESTRUCT(&info);
    bad = 0;
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        pmix_value_t *got = NULL;
        if (PMIX_SUCCESS != PMIx_Get(&p, "fs.value", NULL, 0, &got) || !got ||
            got->data.uint32 != 1000 + r) {
            bad++;
        }
        if (got) {
            PMIX_VALUE_RELEASE(got);
        }
    }
    CHECK(0 == bad, "values of all %u ranks (%u wrong)", n, bad);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK_DONE();
}
