/* singleton: a PMIx program started without any launcher (no PMIX_* environment)
 * initializes as a singleton: rank 0 of a job of size 1 whose fences complete at once.
 * Run: env -u PMIX_NAMESPACE -u PMIX_RANK singleton   (run.sh clears every PMIX_ variable) */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static void op_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    *(int *)cbdata += 1;
}

int main(void)
{
    pmix_proc_t me, job;
    pmix_status_t init_rc = PMIx_Init(&me, NULL, 0);
    /* PMIX_ERR_UNREACH, as OpenPMIx returns it: no server, but usable (docs/STATUS.md,
     * "Singletons") */
    CHECK_RC(init_rc, PMIX_ERR_UNREACH, "PMIx_Init as a singleton");
    if (PMIX_ERR_UNREACH != init_rc) {
        CHECK_DONE(); /* nothing else can work */
    }
    CHECK(1 == PMIx_Initialized(), "initialized");
    CHECK(0 == me.rank, "rank 0 (got %u)", me.rank);
    pmix_proc_t again;
    CHECK_RC(PMIx_Init(&again, NULL, 0), PMIX_SUCCESS, "a nested PMIx_Init");
    CHECK(PMIX_CHECK_PROCID(&again, &me), "the nested Init names us too");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "the nested Init's Finalize");
    CHECK(1 == PMIx_Initialized(), "still initialized");
    CHECK('\0' != me.nspace[0], "has a namespace (%s)", me.nspace);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_UINT32 && v->data.uint32 == 1,
          "job size 1 (%s)", PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }

    pmix_value_t val;
    val.type = PMIX_STRING;
    val.data.string = "solo";
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "single.key", &val), PMIX_SUCCESS, "Put");
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    int calls = 0;
    rc = PMIx_Fence_nb(NULL, 0, NULL, 0, op_done, &calls);
    CHECK(PMIX_OPERATION_SUCCEEDED == rc, "Fence_nb completes at once (%s)", PMIx_Error_string(rc));
    CHECK(0 == calls, "and does not call the callback");
    v = NULL;
    rc = PMIx_Get(&me, "single.key", NULL, 0, &v);
    CHECK(PMIX_SUCCESS == rc && v && v->type == PMIX_STRING && 0 == strcmp(v->data.string, "solo"),
          "own key reads back (%s)", PMIx_Error_string(rc));
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    CHECK(0 == PMIx_Initialized(), "finalized");
    CHECK_DONE();
}
