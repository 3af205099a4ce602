/* A client with no server in its environment is a singleton: Init succeeds, its own
 * data works locally, Fence succeeds and Fence_nb reports PMIX_OPERATION_SUCCEEDED. */
#include <string.h>
#include <stdlib.h>
#include <pmix.h>
#include "check.h"

/* CHECK_RC evaluates its first argument twice; calls go through this instead. */
#define CHECK_CALL(call, want, what)                                        \
    do {                                                                    \
        pmix_status_t call_rc_ = (call);                                    \
        CHECK_RC(call_rc_, want, what);                                     \
    } while (0)

static void never(pmix_status_t st, void *cbd) { (void)st; (void)cbd; abort(); }

int main(void)
{
    pmix_proc_t me;
    pmix_value_t val, *v = NULL;
    int x = 5;
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_SERVER_URI41"); unsetenv("PMIX_SERVER_URI4"); unsetenv("PMIX_SERVER_URI3");
    unsetenv("PMIX_SERVER_URI21"); unsetenv("PMIX_SERVER_URI2");
    CHECK_CALL(PMIx_Get(NULL, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_INIT, "Get before Init");
    pmix_status_t irc = PMIx_Init(&me, NULL, 0);
    CHECK_RC(irc, PMIX_ERR_UNREACH, "singleton Init (no server: UNREACH, and usable)");
    CHECK(strncmp(me.nspace, "singleton.", 10) == 0 && me.rank == 0, "nspace %s rank %u", me.nspace, me.rank);
    PMIX_VALUE_LOAD(&val, &x, PMIX_INT);
    CHECK_CALL(PMIx_Put(PMIX_GLOBAL, "k", &val), PMIX_SUCCESS, "Put");
    CHECK_CALL(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    CHECK_CALL(PMIx_Get(&me, "k", NULL, 0, &v), PMIX_SUCCESS, "Get own key");
    CHECK(v && v->type == PMIX_INT && v->data.integer == 5, "own value");
    if (v) PMIX_VALUE_RELEASE(v);
    v = NULL;
    CHECK_CALL(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence");
    CHECK_CALL(PMIx_Fence_nb(NULL, 0, NULL, 0, never, NULL), PMIX_OPERATION_SUCCEEDED, "Fence_nb");
    CHECK_CALL(PMIx_Get(NULL, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS, "JOB_SIZE");
    CHECK(v && v->type == PMIX_UINT32 && v->data.uint32 == 1, "JOB_SIZE is 1");
    if (v) PMIX_VALUE_RELEASE(v);
    pmix_status_t rc = PMIx_Finalize(NULL, 0); /* CHECK_RC evaluates twice */
    CHECK_RC(rc, PMIX_SUCCESS, "Finalize");
    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_ERR_INIT, "Finalize without Init");
    CHECK_DONE();
}
